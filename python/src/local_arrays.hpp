#pragma once
// The caller's NumPy arrays as one rank's storage of a layout, checked before anything moves:
// dtype, dimensions, shape, order, alignment, and for a target that it is writable. The
// arrays are used in place, never copied.
#include <string>
#include <vector>

#include <redist/index.hpp>

#include "py_layout.hpp"
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace redist_python {

/// Where a rank's storage of one matrix lies in the caller's arrays.
struct LocalStorage {
  std::vector<void*> data;        ///< per allocation
  std::vector<index_t> elements;  ///< per allocation
  index_t ld = 0;                 ///< ScaLAPACK: the array's rows (its LLD); 0 for tiles
  friend bool operator==(const LocalStorage&, const LocalStorage&) = default;
};

/// Checks `arrays` (`name`: "a" or "b", for the messages) against what `layout` stores on
/// `rank`: tile storage, a 1-D contiguous array per allocation (a list of them for several);
/// ScaLAPACK storage, a 2-D Fortran-ordered array of LLD x LOCc, LLD >= LOCr. `dtype` is
/// the element type; `writable` whether the array is written.
/// @throws redist::storage_error naming the argument, what was expected and what was given.
LocalStorage local_storage(const PyLayout& layout, int rank, pybind11::handle arrays,
                           const pybind11::dtype& dtype, bool writable, const std::string& name);

/// What a rank stores as NumPy's shapes: (elements,) per allocation, or (LOCr, LOCc).
std::vector<std::vector<index_t>> local_shapes(const LocalExtents& e, bool scalapack);

}  // namespace redist_python
