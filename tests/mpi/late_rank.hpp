#pragma once
// A rank that comes late to a move (tests/mpi/test_ring.cpp: its ring fills; test_push.cpp:
// its pushers wait for its "free" note) ends every rank in the progress timeout's error.
#include <chrono>
#include <string>
#include <thread>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace redist::test {

/// Runs r.start() and r.wait() with rank `late` starting 3 s after the others, under a
/// progress timeout of 1 s (set in r's options): the others give up waiting for it, and when
/// it comes they move nothing more, so it gives up too. Checks the error on every rank (the
/// others' naming `late`) and that the source `a` is unchanged. Collective.
template <class R, class A>
void check_late_rank_times_out(const boost::mpi::communicator& comm, R& r, const A& a, int late) {
  if (comm.rank() == late) std::this_thread::sleep_for(std::chrono::seconds(3));
  std::string what;
  try {
    r.start();
    r.wait();
  } catch (const progress_timeout_error& e) {
    what = e.what();
  }
  CHECK(what.find("made no progress for 1 s") != std::string::npos);
  if (comm.rank() != late)
    CHECK(what.find("rank " + std::to_string(late) + " (") != std::string::npos);
  comm.barrier();
  CHECK(source_errors(a) == 0);  // the source is never written
}

}  // namespace redist::test
