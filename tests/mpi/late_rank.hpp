#pragma once
// A rank that comes to a move only after every other rank has given up on it or finished
// (test_engine.cpp: its peers wait for its sends), and the progress timeout's error that it
// then ends every rank in (test_ring.cpp: its ring fills; test_push.cpp: its pushers wait
// for its "free" note).
#include <string>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace redist::test {

/// Runs `step` on every rank, on rank `late` only after each other rank's `step` has
/// returned or thrown: they send it a note on a duplicate of `comm`, so the notes meet no
/// message of the move. Collective.
template <class Step>
void after_the_others(const boost::mpi::communicator& comm, int late, Step&& step) {
  const boost::mpi::communicator notes(comm, boost::mpi::comm_duplicate);
  if (comm.rank() == late) {
    for (int i = 1; i < comm.size(); ++i) notes.recv(boost::mpi::any_source, 0);
    step();
  } else {
    try {
      step();
    } catch (...) {
      notes.send(late, 0);  // an unexpected error fails the case, it does not hang `late`
      throw;
    }
    notes.send(late, 0);
  }
}

/// Runs r.start() and r.wait() with rank `late` starting only once every other rank has
/// given up or finished (each sends it a note on a duplicate of `comm` then), under a
/// progress timeout of 1 s (set in r's options): the others give up waiting for it, and when
/// it comes they move nothing more, so it gives up too. Waiting for the notes, not for a
/// fixed time, keeps the order whatever the load, at 2 s where a 3 s sleep took 4. Checks
/// the error on every rank (the others' naming `late`) and that the source `a` is
/// unchanged. Collective.
template <class R, class A>
void check_late_rank_times_out(const boost::mpi::communicator& comm, R& r, const A& a, int late) {
  std::string what;
  const auto move = [&] {
    try {
      r.start();
      r.wait();
    } catch (const progress_timeout_error& e) {
      what = e.what();
    }
  };
  after_the_others(comm, late, move);
  CHECK(what.find("made no progress for 1 s") != std::string::npos);
  if (comm.rank() != late)
    CHECK(what.find("rank " + std::to_string(late) + " (") != std::string::npos);
  comm.barrier();
  CHECK(source_errors(a) == 0);  // the source is never written
}

}  // namespace redist::test
