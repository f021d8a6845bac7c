// The transport legs of ctest (tests/CMakeLists.txt) set REDIST_TEST_EXPECT_TRANSPORT, which
// this case checks on a multi-rank move from a private source and from a node-shared one:
// - point-to-point: mpi-tcp-np2 and -np4 (Open MPI's TCP BTL) and mpi-small-messages-np3 (a
//   4 KiB split limit) turn redist's node-local transports off (REDIST_SHARED_WINDOW=0), so
//   that MPI carries every byte: every message went point to point, and the executor ran it so;
// - cross-memory: mpi-cross-memory-np2 and -np4 force REDIST_TRANSPORT=cross-memory: every
//   message between ranks of the node from a private source was read by its receiver through
//   the kernel, nothing packed; a node-shared source is still read in place (direct);
// - node-window: mpi-cross-memory-refused-np3 forces it too, with the kernel's permission
//   probe made to fail (REDIST_CROSS_MEMORY_PROBE=fail): every such message fell back to the
//   node window, and every rank says why.
// Elsewhere, and at one rank (no message travels), it is reported as skipped, with the reason.
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
    return "REDIST_TEST_EXPECT_TRANSPORT is not set (the transport legs of ctest set it)";
  if (boost::mpi::communicator{}.size() < 2)
    return "at 1 rank no message travels: nothing to check";
  return "";
}
[[maybe_unused]] const bool transport_registered = skip_when(transport_case, why_not_check);

/// Messages of `how` in this rank's task graph, sent and received.
index_t messages_of(const TaskGraph& g, Transport how) {
  index_t n = 0;
  for (const Transport t : g.send_transport) n += t == how;
  for (const Transport t : g.recv_transport) n += t == how;
  return n;
}

/// Moves `region` from a to b and checks the data, and that every message went as the run
/// expects: `expected` for a private source; for a node-shared one, direct where the run
/// keeps node-local paths. Collective.
template <class A, class B>
void check_transport(const boost::mpi::communicator& comm, A& a, B& b, const Region& region,
                     bool node_shared) {
  move_and_check(comm, a, b, region, [&](const auto& r, index_t) {
    const std::string expected = expected_transport();
    const TaskGraph& g = r.task_graph();
    const index_t all =
        sum(comm, static_cast<index_t>(g.send_transport.size() + g.recv_transport.size()));
    // Not vacuous: the move has messages.
    const index_t messages = sum(comm, r.plan().stats.messages_sent);
    CHECK(messages > 0);
    CHECK(sum(comm, r.plan().stats.messages_received) == messages);
    const TaskCounts& run = r.tasks_run();
    CHECK(run.arrive == g.recv.chunks.size());
    if (expected == "point-to-point") {
      CHECK_FALSE(r.execution_options().shared_window);
      CHECK(sum(comm, not_point_to_point(g)) == 0);
      CHECK(sum(comm, r.direct_messages().first + r.direct_messages().second) == 0);
      // Every sent chunk packed and handed to MPI, none acknowledged (only messages read
      // in the window or in place are).
      CHECK(run.send == g.send.chunks.size());
      CHECK(run.ack == 0);
      return;
    }
    // One node: every message stays on it.
    const Transport want = node_shared                  ? Transport::direct
                           : expected == "cross-memory" ? Transport::cross_memory
                                                        : Transport::shared_window;
    CHECK(sum(comm, messages_of(g, want)) == all);
    // Read in place: nothing packed, every message acknowledged; through the window:
    // every chunk packed.
    CHECK(run.send == (reads_in_place(want) ? 0 : g.send.chunks.size()));
    CHECK(run.ack == g.send_transport.size());
    const bool refused = !r.cross_memory_refused().empty();
    CHECK(sum(comm, refused ? 1 : 0) == (expected == "node-window" ? comm.size() : 0));
  });
}

}  // namespace

TEST_CASE(transport_case) {
  const boost::mpi::communicator comm;
  // The run-wide expectations; another value is a mistake in the harness. The environment
  // is the same on every rank, so all stop here alike.
  const std::string expected = expected_transport();
  REQUIRE(
      (expected == "point-to-point" || expected == "cross-memory" || expected == "node-window"));
  if (expected != "point-to-point") {
    // Every rank on one node: the legs that force a node transport are not run on several.
    REQUIRE(node_map(comm).nodes == 1);
  }
  const auto [P, Q] = near_square_grid(comm.size());
  const Layout src{uniform(70, 60, 8, 7), BlockCyclic(P, Q)};
  const Layout dst{uniform(70, 60, 6, 9), BlockCyclic(Q, P, 1, 1, GridCoord{Q - 1, P - 1})};
  const Region region{{60, 50}, {5, 4}, {3, 7}};
  {
    INFO("private source");
    TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
    TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
    check_transport(comm, a, b, region, false);
  }
  {
    INFO("node-shared source: the receivers would read it in place");
    auto a = node_shared_matrix<double>(src, TilePerAllocation<>{}, comm);
    TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
    check_transport(comm, a, b, region, expected != "point-to-point");
  }
}
