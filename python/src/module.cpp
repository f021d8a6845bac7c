// The extension module redist._redist: its error type and classes (the package redist
// re-exports them, python/redist/__init__.py).
#include <redist/error.hpp>

#include "bindings.hpp"
#include "runtime.hpp"
#include <pybind11/pybind11.h>

namespace py = pybind11;

PYBIND11_MODULE(_redist, m) {
  m.doc() = "redist: distributed matrix layouts and their redistribution over mpi4py";
  py::module_::import("mpi4py.MPI");  // MPI initialized before anything here uses it
  // Every redist::error (bad layouts, regions, arrays, disagreeing ranks) is one Python
  // exception, a ValueError: raised alike on every rank by collective calls.
  py::register_exception<redist::error>(m, "Error", PyExc_ValueError);
  redist_python::bind_layout(m);
  redist_python::bind_redistributor(m);
}
