// Node-shared target memory (node_shared.hpp): between ranks of a node every message is
// pushed, its sender writing it straight into the receiver's target (transport/push.hpp).
// Each case checks every target element on every rank (outside the region: untouched), the
// source unchanged, and that the push path was really taken between ranks of one node (all
// ranks, unless the run spans nodes: tests/cluster), or not taken where it must not be: a
// transform that scales, a policy that forces another transport, every message point to
// point (REDIST_TEST_EXPECT_TRANSPORT). A receiver that does not start ends every rank in the
// progress timeout's error, as a dead link does.
#include <complex>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "first_move_faults.hpp"
#include "late_rank.hpp"
#include "mpi_test_support.hpp"
#include "node_shared_moves.hpp"
#include "random_cases.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Every message that can be pushed is (ExecutionOptions::push_min_run_bytes 0): these
/// tests' small tiles would otherwise go through the node window.
ExecutionOptions every_push(ExecutionOptions x = {}) {
  x.push_min_run_bytes = 0;
  return x;
}

RunOptions shared_target(RunOptions o = {}) {
  o.node_shared_target = true;
  o.execution = every_push(o.execution);
  return o;
}

/// Whether this run pushes between ranks of one node at all: node paths on and the transport
/// policy automatic (the legs that force cross-memory, or every message point to point, do
/// not push).
bool pushing() {
  const ExecutionOptions o = ExecutionOptions{}.with_environment();
  return o.node_paths() && o.transport == TransportPolicy::automatic;
}

/// This rank's sends to ranks of its node (simulated nodes of REDIST_RANKS_PER_NODE too),
/// summed over the ranks.
template <class R>
index_t intra_node(const boost::mpi::communicator& comm, const R& r) {
  return sum(comm,
             intra_node_sends(r.plan(), reference_nodes(comm, ranks_per_node_env()), comm.rank()));
}

/// Every message between ranks of one node was pushed (none where the run does not push),
/// and, when pushed, none read in place.
void check_all_pushed(const RunReport& rep) {
  const index_t want = pushing() ? rep.intra_node_messages : 0;
  CHECK(rep.push_sends == want);
  CHECK(rep.push_receives == want);
  if (pushing()) CHECK(rep.direct_sends == 0);
}

}  // namespace

TEST_CASE("mpi: node-shared target, every message pushed") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  // The node-shared moves of every kind of memory; several messages between one pair of
  // ranks, in different batches, whose "written" notes name them by ordinal.
  node_shared_moves(comm, shared_target(), check_all_pushed);
  SUBCASE("small ring slots: many small chunks a message, columns cut") {
    RunOptions o = shared_target();
    o.execution.ring_slots = 2;
    o.execution.ring_slot_bytes = 256;
    o.repeats = 2;
    const Layout src{uniform(120, 90, 32, 16), BlockCyclic(1, np)};
    const Layout dst{uniform(120, 90, 10, 10), BlockCyclic(np, 1)};
    const RunReport rep =
        check_redistribution<double>(comm, src, ScalapackColumnMajor<>{}, dst,
                                     ScalapackColumnMajor<>{}, Region::whole({120, 90}), o);
    CHECK(rep.ok);
    check_all_pushed(rep);
  }
  SUBCASE("streamed stores, stitched: runs of 10 that meet mid-line in both targets") {
    // Case a's pattern (each source column split between the ranks' targets) with streaming
    // forced: the push and the local part it sweeps store stitched (engine/stitched_runs.hpp).
    RunOptions o = shared_target();
    o.execution.streaming = Toggle::on;
    const Layout src{uniform(230, 70, 48, 16), BlockCyclic(1, np)};
    const Layout dst{uniform(230, 70, 10, 10), BlockCyclic(np, 1)};
    for (const Region& region : {Region::whole({230, 70}), Region{{171, 33}, {5, 7}, {41, 30}}}) {
      const RunReport rep = check_redistribution<double>(comm, src, ScalapackColumnMajor<>{}, dst,
                                                         ScalapackColumnMajor<>{}, region, o);
      CHECK(rep.ok);
      check_all_pushed(rep);
    }
  }
  SUBCASE("no rings: chunks of ExecutionOptions::chunk_bytes") {
    RunOptions o = shared_target();
    o.execution.ring_slots = 0;
    o.execution.chunk_bytes = 512;
    const Layout src{uniform(70, 66, 9, 9), BlockCyclic(P, Q)};
    const Layout dst{uniform(70, 66, 13, 4), BlockCyclic(Q, P)};
    const RunReport rep = check_redistribution<double>(
        comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, Region{{50, 40}, {3, 9}, {11, 2}}, o);
    CHECK(rep.ok);
    check_all_pushed(rep);
  }
  SUBCASE("source node-shared too: pushed, not read in place") {
    RunOptions o = shared_target();
    o.node_shared_source = true;
    const Layout src{uniform(64, 64, 8, 8), BlockCyclic(P, Q)};
    const Layout dst{uniform(64, 64, 5, 12), BlockCyclic(Q, P)};
    const RunReport rep =
        check_redistribution<double>(comm, src, TilePerAllocation<>{}, dst,
                                     ScalapackColumnMajor<>{}, Region::whole({64, 64}), o);
    CHECK(rep.ok);
    check_all_pushed(rep);
  }
}

TEST_CASE("mpi: node-shared target under a policy that forces another transport") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(48, 40, 6, 5), BlockCyclic(1, np)};
  const Layout dst{uniform(48, 40, 7, 4), BlockCyclic(np, 1)};
  for (const TransportPolicy policy :
       {TransportPolicy::node_window, TransportPolicy::point_to_point}) {
    CAPTURE(static_cast<int>(policy));
    RunOptions o = shared_target();
    o.execution.transport = policy;
    const RunReport rep = check_redistribution<double>(
        comm, src, TilePerAllocation<>{}, dst, TilePerAllocation<>{}, Region::whole({48, 40}), o);
    CHECK(rep.ok);
    // REDIST_TRANSPORT, where a leg sets it, wins over the options (execution_options.hpp).
    const bool forced = o.execution.with_environment().transport != TransportPolicy::automatic;
    CHECK(rep.push_sends == (forced ? 0 : rep.intra_node_messages));
    CHECK(rep.push_receives == rep.push_sends);
  }
}

TEST_CASE("mpi: short runs that fill small tiles go through the node window, others are pushed") {
  // Source blocks of 96 rows, cut by the target's tiles into segments that fill their
  // tiles' columns (ld == rows). Into 16-row tiles of doubles (128-byte runs) a push would
  // scatter each source column over six tiles, and the node window carries it (by
  // default); 64-row tiles (512 bytes) are pushed, and so is a ScaLAPACK target of 16-row
  // blocks, whose runs continue each other in a taller column.
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(192, 40, 96, 8), BlockCyclic(np, 1)};
  const auto moved = [&](const auto& dst_storage, index_t tile_rows, index_t min_run_bytes) {
    RunOptions o;
    o.node_shared_target = true;
    if (min_run_bytes >= 0) o.execution.push_min_run_bytes = min_run_bytes;
    const Layout dst{uniform(192, 40, tile_rows, 16), BlockCyclic(1, np)};
    const RunReport rep =
        check_redistribution<double>(comm, src, ScalapackColumnMajor<>{}, dst, dst_storage,
                                     Region{{150, 40}, {6, 0}, {42, 0}}, o);
    CHECK(rep.ok);
    CHECK(rep.push_receives == rep.push_sends);
    return rep;
  };
  const auto all_or_none = [&](const RunReport& rep, bool pushed) {
    CHECK(rep.push_sends == (pushed && pushing() ? rep.intra_node_messages : 0));
  };
  SUBCASE("16-row tiles: the node window by default, pushed with push_min_run_bytes 0") {
    all_or_none(moved(TilePerAllocation<>{}, 16, -1), false);
    all_or_none(moved(TilePerAllocation<>{}, 16, 0), true);
    all_or_none(moved(TilePerAllocation<>{}, 16, 128), true);  // 128 bytes: long enough
    all_or_none(moved(TilePerAllocation<>{}, 16, 129), false);
  }
  SUBCASE("64-row tiles: pushed by default") {
    all_or_none(moved(TilePerAllocation<>{}, 64, -1), true);
  }
  SUBCASE("ScaLAPACK storage of 16-row blocks: pushed by default") {
    all_or_none(moved(ScalapackColumnMajor<>{}, 16, -1), true);
  }
}

TEST_CASE("mpi: transforms into a node-shared target: pushed where they only copy") {
  const boost::mpi::communicator comm;
  const auto [P, Q] = near_square_grid(comm.size());
  const Layout src{uniform(64, 48, 8, 6), BlockCyclic(P, Q)};
  const Layout dst{uniform(50, 70, 5, 7), BlockCyclic(Q, P)};
  auto b = node_shared_matrix<double>(dst, ScalapackColumnMajor<>{}, comm);
  // Tile storage: a copy per segment; ScaLAPACK storage: a copy per slice into the
  // described target (engine/separated_source.hpp), transposed too.
  const auto check = [&](auto& a) {
    a.for_each_element([](ElementIndex e, double& v) { v = value_at<double>(e); });
    for (const Transform<double> t :
         {Transform<double>{Op::transpose, 1.0, 0.0}, Transform<double>{Op::transpose, -2.0, 0.5},
          Transform<double>{Op::none, 3.0, 0.0}, Transform<double>{Op::none, 1.0, 0.0}}) {
      CAPTURE(static_cast<int>(t.op));
      CAPTURE(t.alpha);
      const Region region = t.op == Op::none ? Region{{30, 40}, {10, 6}, {7, 12}}
                                             : Region{{40, 30}, {10, 6}, {7, 12}};
      b.for_each_element([](ElementIndex e, double& v) { v = initial_at<double>(e); });
      Redistributor r(a, b, comm, region, t, PlanOptions{}, every_push());
      r.redistribute();
      index_t bad = 0;
      b.for_each_element(
          [&](ElementIndex e, double& v) { bad += !(v == expected_at(region, t, e)); });
      CHECK(sum(comm, bad) == 0);
      CHECK(sum(comm, source_errors(a)) == 0);
      const index_t pushed = sum(comm, r.messages(Transport::push).first);
      CHECK(pushed == (pushing() && !t.scales() ? intra_node(comm, r) : 0));
    }
  };
  SUBCASE("tile storage source") {
    TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
    check(a);
  }
  SUBCASE("ScaLAPACK storage source") {
    TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, comm.rank());
    check(a);
  }
}

/// Random layouts, regions and transforms (triangles, scaling, transposes) into a
/// node-shared target: wrong elements over all ranks, target and source; adds the messages
/// pushed to `pushed`, and those that should be (between ranks of one node, the transform
/// only copying, the run pushing) to `pushable`.
template <class T>
index_t random_moves_into_shared_targets(const boost::mpi::communicator& comm, unsigned seed,
                                         int cases, index_t& pushed, index_t& pushable) {
  Rng g(seed);
  const std::vector<Op> ops = random_ops<T>();
  index_t bad = 0;
  for (int k = 0; k < cases; ++k) {
    const Op op = ops[static_cast<std::size_t>(k) % ops.size()];
    const Case c = random_case(g, comm.size(), op, k % 4 == 0 ? 3 : 12);
    const Transform<T> t = random_transform<T>(k, op);
    CAPTURE(k);
    bad += with_tilings(c, [&](auto src, auto dst) {
      return with_case_matrices<T, ScalapackColumnMajor<>>(
          comm, c, std::move(src), std::move(dst),
          [&](auto& a, auto& b) {
            b.for_each_element([](ElementIndex e, T& v) { v = initial_at<T>(e); });
            Redistributor r(a, b, comm, c.region, t, PlanOptions{}, every_push());
            r.redistribute();
            pushed += sum(comm, r.messages(Transport::push).first);
            pushable += pushing() && !t.scales() ? intra_node(comm, r) : 0;
            index_t wrong = 0;
            b.for_each_element(
                [&](ElementIndex e, T& v) { wrong += !(v == expected_at(c.region, t, e)); });
            return sum(comm, wrong) + sum(comm, source_errors(a));
          },
          true);
    });
  }
  return bad;
}

TEST_CASE("mpi: random layouts, regions and transforms into a node-shared target") {
  const boost::mpi::communicator comm;
  index_t pushed = 0, pushable = 0;
  CHECK(random_moves_into_shared_targets<double>(comm, 5501, 24, pushed, pushable) == 0);
  CHECK(random_moves_into_shared_targets<std::complex<float>>(comm, 5502, 9, pushed, pushable) ==
        0);
  CHECK(pushed == pushable);
  if (comm.size() > 1 && pushing() && ranks_per_node_env() != 1) CHECK(pushed > 0);
}

TEST_CASE("mpi: a pushed target is the caller's between wait() and the next start()") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(50, 60, 6, 7), BlockCyclic(1, np)};
  const Layout dst{uniform(50, 60, 9, 5), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
  auto b = node_shared_matrix<double>(dst, PackedTiles<>{}, comm);
  Redistributor r(a, b, comm, PlanOptions{}, every_push());
  const index_t bad = wrong_in_changing_rounds(r, a, b);
  CHECK(sum(comm, bad) == 0);
  CHECK(sum(comm, r.messages(Transport::push).first) == (pushing() ? intra_node(comm, r) : 0));
}

TEST_CASE("mpi: the first move into a node-shared target finds the peers' pages mapped") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(1024, 1024, 64, 64), BlockCyclic(1, np)};
  const Layout dst{uniform(1024, 1024, 64, 64), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
  auto b = node_shared_matrix<double>(dst, PackedTiles<>{}, comm);
  const Region region = Region::whole({1024, 1024});
  fill_source(a);
  fill_sentinel(b);
  const long mapped = mapped_window_bytes(b);
  Redistributor r(a, b, comm, PlanOptions{}, every_push());
  // Simulated nodes of one rank (REDIST_RANKS_PER_NODE) push nothing.
  const bool pushed = sum(comm, r.messages(Transport::push).first) > 0;
  check_first_move_faults(comm, r, a, b, region, b, mapped,
                          on_node_elements(comm, r.plan().send.messages), pushing() && pushed);
}

TEST_CASE("mpi: a receiver that does not start ends its pushers in the progress timeout") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  if (np < 2 || !pushing()) return;
  const Layout src{uniform(64, 64, 8, 8), BlockCyclic(1, np)};
  const Layout dst{uniform(64, 64, 8, 8), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, comm.rank());
  auto b = node_shared_matrix<double>(dst, ScalapackColumnMajor<>{}, comm);
  for (const ProgressPolicy progress : {ProgressPolicy::caller, ProgressPolicy::thread}) {
    CAPTURE(to_string(progress));
    fill_source(a);
    fill_sentinel(b);
    ExecutionOptions o = every_push();
    o.progress_timeout_seconds = 1.0;
    o.progress = progress;
    Redistributor r(a, b, comm, PlanOptions{}, o);
    if (sum(comm, r.messages(Transport::push).first) == 0) return;  // ranks on several nodes
    // The late rank's pushers wait for its "free" note and give up; when it comes, they
    // write nothing more, and it gives up waiting for their "written" notes.
    check_late_rank_times_out(comm, r, a, np - 1);
  }
}
