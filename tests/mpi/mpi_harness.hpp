// Helpers for tests/mpi: collective agreement, so one failing rank cannot leave the others
// waiting in a collective.
#pragma once

#include <functional>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <doctest/doctest.h>

namespace redist::test {

/// The communicator of all ranks running the test.
inline boost::mpi::communicator world() { return boost::mpi::communicator{}; }

/// True on every rank iff @p local is true on every rank of @p comm. Collective.
inline bool all_ranks(const boost::mpi::communicator& comm, bool local) {
  return boost::mpi::all_reduce(comm, local, std::logical_and<bool>());
}

}  // namespace redist::test

/// CHECK that holds on every rank; every rank reports the same result. Collective.
#define REDIST_CHECK_ALL_RANKS(cond) \
  CHECK(::redist::test::all_ranks(::redist::test::world(), static_cast<bool>(cond)))
