#include "communicator.hpp"

#include <mpi.h>

#include <redist/error.hpp>

#include <mpi4py/mpi4py.h>

namespace py = pybind11;

namespace redist_python {
namespace {

// mpi4py's C API, imported once (the module imports mpi4py.MPI before it imports this).
void import_once() {
  static const bool imported = [] {
    if (import_mpi4py() < 0) throw py::error_already_set();
    return true;
  }();
  (void)imported;
}

}  // namespace

bool is_communicator(py::handle obj) {
  import_once();
  return PyObject_TypeCheck(obj.ptr(), &PyMPIComm_Type) != 0;
}

boost::mpi::communicator communicator_of(py::handle comm) {
  if (!is_communicator(comm))
    throw py::type_error("redist: comm must be an mpi4py communicator (MPI.Comm), got " +
                         std::string(py::str(py::type::handle_of(comm))));
  const MPI_Comm* c = PyMPIComm_Get(comm.ptr());
  if (c == nullptr) throw py::error_already_set();
  if (*c == MPI_COMM_NULL) throw redist::invalid_argument("redist: comm is MPI.COMM_NULL");
  return boost::mpi::communicator(*c, boost::mpi::comm_attach);
}

}  // namespace redist_python
