// The transport legs of ctest (tests/CMakeLists.txt): mpi-tcp-np2 and -np4 run this suite
// over Open MPI's TCP BTL, mpi-small-messages-np3 with a 4 KiB split limit. Between ranks of
// one node redist's own node-local transports (the shared window, direct reads of a
// node-shared source) would carry the bytes instead of MPI, so both legs turn them off
// (REDIST_SHARED_WINDOW=0) and set REDIST_TEST_EXPECT_TRANSPORT=point-to-point, which this
// case checks: every message of a multi-rank move, from a private source and from a
// node-shared one, went point to point, and the executor ran it so. Elsewhere, and at one
// rank (no message travels), it is reported as skipped, with the reason.
#include <string>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "runtime_skip.hpp"

namespace {

using namespace redist;
using namespace redist::test;

constexpr const char* transport_case =
    "mpi: every message takes the transport the run expects (REDIST_TEST_EXPECT_TRANSPORT)";

std::string why_not_check() {
  if (expected_transport().empty())
    return "REDIST_TEST_EXPECT_TRANSPORT is not set (the TCP and small-message legs set it)";
  if (boost::mpi::communicator{}.size() < 2)
    return "at 1 rank no message travels: nothing to check";
  return "";
}
[[maybe_unused]] const bool transport_registered = skip_when(transport_case, why_not_check);

/// Moves `region` from a to b and checks the data and that every message went point to
/// point. Collective.
template <class A, class B>
void check_point_to_point(const boost::mpi::communicator& comm, A& a, B& b, const Region& region) {
  fill_source(a);
  fill_sentinel(b);
  Redistributor r(a, b, comm, region);
  r.redistribute();
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, region, checked)) == 0);
  CHECK_FALSE(r.execution_options().shared_window);
  const TaskGraph& g = r.task_graph();
  CHECK(sum(comm, not_point_to_point(g)) == 0);
  CHECK(sum(comm, r.direct_messages().first + r.direct_messages().second) == 0);
  // Not vacuous: the move has messages, and the executor ran them point to point: every
  // sent chunk packed and handed to MPI, every received chunk arrived from MPI, none
  // acknowledged (only window and direct messages are).
  const index_t messages = sum(comm, r.plan().stats.messages_sent);
  CHECK(messages > 0);
  CHECK(sum(comm, r.plan().stats.messages_received) == messages);
  const TaskCounts& run = r.tasks_run();
  CHECK(run.send == g.send.chunks.size());
  CHECK(run.arrive == g.recv.chunks.size());
  CHECK(run.ack == 0);
}

}  // namespace

TEST_CASE(transport_case) {
  const boost::mpi::communicator comm;
  // The one run-wide expectation so far; another value is a mistake in the harness. The
  // environment is the same on every rank, so all stop here alike.
  REQUIRE(expected_transport() == "point-to-point");
  const auto [P, Q] = near_square_grid(comm.size());
  const Layout src{uniform(70, 60, 8, 7), BlockCyclic(P, Q)};
  const Layout dst{uniform(70, 60, 6, 9), BlockCyclic(Q, P, 1, 1, GridCoord{Q - 1, P - 1})};
  const Region region{{60, 50}, {5, 4}, {3, 7}};
  {
    INFO("private source: the shared window would carry it");
    TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
    TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
    check_point_to_point(comm, a, b, region);
  }
  {
    INFO("node-shared source: the receivers would read it in place");
    auto a = node_shared_matrix<double>(src, TilePerAllocation<>{}, comm);
    TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
    check_point_to_point(comm, a, b, region);
  }
}
