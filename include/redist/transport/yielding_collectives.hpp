#pragma once
/// @file transport/yielding_collectives.hpp
/// A barrier and an all-reduce that wait by testing their nonblocking form and yielding the
/// core between tests, instead of spinning in MPI's progress engine. For timing loops and
/// other waits of a program around redist's own (which yield inside wait(),
/// docs/transports.md, "Waiting yields"): a rank done early then leaves its core to the
/// ranks still moving data and, on simulated nodes (scripts/cluster.sh), to the kernel's
/// network path. With nothing else to run, a yield returns at once.
///
/// Each takes a timeout (seconds; 0: none), as redist's own waits take
/// ExecutionOptions::progress_timeout_seconds: a rank whose sends all left before a link
/// died goes on to the program's next collective, where it would wait forever for a peer
/// that is stalled or gone.

#include <sstream>
#include <thread>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/mpi/exception.hpp>
#include <mpi.h>

#include <redist/detail/stopwatch.hpp>
#include <redist/error.hpp>

namespace redist::transport {

/// Waits for request `r`, yielding between MPI_Test calls, for at most `timeout_seconds`
/// (0: no limit).
/// @throws boost::mpi::exception when MPI reports an error.
/// @throws progress_timeout_error naming `what` when the time is up; `r` is left pending
///   (a program that catches it ends without another collective, as after redist's own).
inline void wait_yielding(MPI_Request& r, double timeout_seconds = 0,
                          const char* what = "a request") {
  const redist::detail::Stopwatch clock;
  for (int done = 0;;) {
    BOOST_MPI_CHECK_RESULT(MPI_Test, (&r, &done, MPI_STATUS_IGNORE));
    if (done) return;
    if (timeout_seconds > 0 && clock.seconds() > timeout_seconds) {
      std::ostringstream os;
      os << "redist: " << what << " did not complete in " << timeout_seconds
         << " s (ExecutionOptions::progress_timeout_seconds, REDIST_PROGRESS_TIMEOUT)";
      throw progress_timeout_error(os.str());
    }
    std::this_thread::yield();
  }
}

/// comm.barrier(), waiting as wait_yielding does.
inline void barrier_yielding(const boost::mpi::communicator& comm, double timeout_seconds = 0) {
  MPI_Request r;
  BOOST_MPI_CHECK_RESULT(MPI_Ibarrier, (comm, &r));
  wait_yielding(r, timeout_seconds, "a barrier");
}

/// boost::mpi::all_reduce of one value of an MPI type (double, long, ...) with a predefined
/// MPI operation (MPI_MAX, MPI_SUM, ...), waiting as wait_yielding does.
template <class T>
T all_reduce_yielding(const boost::mpi::communicator& comm, T value, MPI_Op op,
                      double timeout_seconds = 0) {
  T result{};
  MPI_Request r;
  BOOST_MPI_CHECK_RESULT(
      MPI_Iallreduce, (&value, &result, 1, boost::mpi::get_mpi_datatype<T>(value), op, comm, &r));
  wait_yielding(r, timeout_seconds, "an all-reduce");
  return result;
}

/// The largest of every rank's `t`.
inline double max_yielding(const boost::mpi::communicator& comm, double t,
                           double timeout_seconds = 0) {
  return all_reduce_yielding(comm, t, MPI_MAX, timeout_seconds);
}

}  // namespace redist::transport
