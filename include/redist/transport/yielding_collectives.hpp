#pragma once
/// @file transport/yielding_collectives.hpp
/// A barrier and an all-reduce that wait by testing their nonblocking form and yielding the
/// core between tests, instead of spinning in MPI's progress engine. For timing loops and
/// other waits of a program around redist's own (which yield inside wait(),
/// docs/transports.md, "Waiting yields"): a rank done early then leaves its core to the
/// ranks still moving data and, on simulated nodes (scripts/cluster.sh), to the kernel's
/// network path. With nothing else to run, a yield returns at once.

#include <thread>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/mpi/exception.hpp>
#include <mpi.h>

namespace redist::transport {

/// Waits for request `r`, yielding between MPI_Test calls.
/// @throws boost::mpi::exception when MPI reports an error.
inline void wait_yielding(MPI_Request& r) {
  for (int done = 0;;) {
    BOOST_MPI_CHECK_RESULT(MPI_Test, (&r, &done, MPI_STATUS_IGNORE));
    if (done) return;
    std::this_thread::yield();
  }
}

/// comm.barrier(), waiting as wait_yielding does.
inline void barrier_yielding(const boost::mpi::communicator& comm) {
  MPI_Request r;
  BOOST_MPI_CHECK_RESULT(MPI_Ibarrier, (comm, &r));
  wait_yielding(r);
}

/// boost::mpi::all_reduce of one value of an MPI type (double, long, ...) with a predefined
/// MPI operation (MPI_MAX, MPI_SUM, ...), waiting as wait_yielding does.
template <class T>
T all_reduce_yielding(const boost::mpi::communicator& comm, T value, MPI_Op op) {
  T result{};
  MPI_Request r;
  BOOST_MPI_CHECK_RESULT(
      MPI_Iallreduce, (&value, &result, 1, boost::mpi::get_mpi_datatype<T>(value), op, comm, &r));
  wait_yielding(r);
  return result;
}

/// The largest of every rank's `t`.
inline double max_yielding(const boost::mpi::communicator& comm, double t) {
  return all_reduce_yielding(comm, t, MPI_MAX);
}

}  // namespace redist::transport
