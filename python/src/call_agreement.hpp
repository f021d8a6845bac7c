#pragma once
// Every call that moves data first agrees, in one all-reduce, on two things: whether some
// rank's arrays were refused (then every rank raises the lowest such rank's error, and no
// rank is left in the move) and whether some rank's arrays differ from those the plan is
// bound to (then every rank binds anew).
#include <exception>
#include <string>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>
#include <mpi.h>

#include <redist/collective/collectively.hpp>

namespace redist_python {

/// A rank's refusal of its arrays, caught where they were checked.
struct Refusal {
  redist::detail::ErrorKind kind = redist::detail::ErrorKind::none;
  std::string what;

  void take(const std::exception& e) {
    kind = redist::detail::kind_of(e);
    what = e.what();
  }
  bool refused() const { return kind != redist::detail::ErrorKind::none; }
};

/// Whether any rank's arrays changed. Collective.
/// @throws (on every rank) the error of the lowest rank that refused its arrays.
inline bool agree_on_call(const boost::mpi::communicator& comm, const Refusal& mine, bool changed) {
  // Max of (size - rank): the lowest refusing rank; max of the flags: any change.
  int in[2] = {mine.refused() ? comm.size() - comm.rank() : 0, changed ? 1 : 0};
  int out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm);
  if (out[0] == 0) return out[1] != 0;
  const int first = comm.size() - out[0];
  int kind = static_cast<int>(mine.kind);
  std::string what = mine.what;
  boost::mpi::broadcast(comm, kind, first);
  boost::mpi::broadcast(comm, what, first);
  redist::detail::throw_kind(static_cast<redist::detail::ErrorKind>(kind), what);
}

}  // namespace redist_python
