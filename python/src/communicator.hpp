#pragma once
// mpi4py communicators as Boost.MPI ones.
#include <boost/mpi/communicator.hpp>

#include <pybind11/pybind11.h>

namespace redist_python {

/// The communicator of an mpi4py `MPI.Comm`, attached (the caller's object keeps owning it).
/// @throws pybind11::type_error if `comm` is not an mpi4py communicator; redist::error
/// naming it if it is MPI.COMM_NULL.
boost::mpi::communicator communicator_of(pybind11::handle comm);

/// Whether `obj` is an mpi4py communicator.
bool is_communicator(pybind11::handle obj);

}  // namespace redist_python
