#pragma once
// The module's Python classes, each defined in its own unit.
#include <redist/index.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace redist_python {

/// redist.Layout (layout_binding.cpp).
void bind_layout(pybind11::module_& m);
/// redist.Redistributor (redistributor_binding.cpp).
void bind_redistributor(pybind11::module_& m);

/// numpy.dtype(`obj`), one the module moves.
/// @throws redist::invalid_argument naming the dtypes it moves.
pybind11::dtype element_dtype(pybind11::handle obj);

}  // namespace redist_python
