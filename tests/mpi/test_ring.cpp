// The node window's rings (transport/ring_slots.hpp): chunks packed into a few slots that
// the receiver frees one by one. With 2 slots of 4 KiB a message of many chunks wraps
// around its ring many times, a receiver that comes late holds its senders at a full ring,
// and a small move sends messages of one chunk; every target element is checked, and the
// rest of the target left alone. A rank's buffers stay within its rings whatever the
// matrix, and a peer that stops consuming its ring ends every rank in the progress
// timeout's error. Only where the ranks share one node and keep node-local paths (the TCP
// and small-message legs send everything point to point; simulated nodes send between them
// point to point). The stalled ring ends the same way when a progress thread drives it.
// Local parts whose columns a pack reads too follow that pack at once
// (engine/pack_followers.hpp), or, told not to, run from their own queue; both move alike.
// Between tile-stored matrices (flat messages) members are cut between whole segments, through
// the window and pushed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>
#include <redist/transport/ring_slots.hpp>

#include <doctest/doctest.h>

#include "late_rank.hpp"
#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Whether the rings can run here: several ranks, one node, node-local paths allowed, and
/// the rings not turned off by REDIST_RING_SLOTS=0 (the variable wins over code).
bool rings_run_here(const boost::mpi::communicator& comm) {
  const char* slots = std::getenv("REDIST_RING_SLOTS");
  return comm.size() > 1 && node_map(comm).nodes == 1 && !point_to_point_only() &&
         !(slots != nullptr && std::string(slots) == "0");
}

/// This rank's sent chunks that go through a ring, and the largest of them.
std::pair<index_t, index_t> ring_chunks(const TaskGraph& g) {
  index_t n = 0, largest = 0;
  for (std::size_t c = 0; c < g.slot_ack_vertex.size(); ++c)
    if (g.slot_ack_vertex[c] != SIZE_MAX) {
      ++n;
      largest = std::max(largest, g.send.chunks[c].elements);
    }
  return {n, largest};
}

/// The 300 x 260 matrices of the ring tests, ScaLAPACK storage on both sides: 32 x 24 source
/// tiles on 1 x np ranks, 20 x 26 target tiles on np x 1; a message's columns have about
/// 300 / np rows (1.2 KiB at 2 ranks), so a 4 KiB slot holds a few, and a member cut
/// between its columns keeps 8 of them together (engine/chunking.hpp).
using Small = TiledMatrix<double, Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>,
                          ScalapackColumnMajor<>>;
Small small_source(const boost::mpi::communicator& comm) {
  return Small({uniform(300, 260, 32, 24), BlockCyclic(1, comm.size())}, {}, comm.rank());
}
Small small_target(const boost::mpi::communicator& comm) {
  return Small({uniform(300, 260, 20, 26), BlockCyclic(comm.size(), 1)}, {}, comm.rank());
}

/// The rings of small_rings(), whatever a ctest leg sets (the variables win over code).
struct SmallRingsEnv {
  ScopedEnv slots{"REDIST_RING_SLOTS", "2"}, bytes{"REDIST_RING_SLOT_BYTES", "4096"};
};

ExecutionOptions small_rings() {
  ExecutionOptions o;
  o.transport = TransportPolicy::node_window;
  o.ring_slots = 2;
  o.ring_slot_bytes = 4096;
  return o;
}

/// What the small-ring tests start from, once rings_run_here: the node window and the small
/// rings forced through the environment, and the 300 x 260 matrices, source filled.
struct SmallRingsMove {
  boost::mpi::communicator comm;
  ScopedEnv transport{"REDIST_TRANSPORT", "node-window"};
  SmallRingsEnv rings;
  int np = comm.size();
  Small a = small_source(comm), b = small_target(comm);
};

}  // namespace

TEST_CASE("mpi: rings of 2 slots of 4 KiB wrap around, wait for a late receiver, carry one chunk") {
  if (!rings_run_here(boost::mpi::communicator{})) return;
  SmallRingsMove m;
  const boost::mpi::communicator& comm = m.comm;
  const int np = m.np;
  Small &a = m.a, &b = m.b;
  // The whole matrix in one batch, and in batches of 2 source tile columns (each batch's
  // rings start empty); a 7 x 9 region that leaves the rank of its source tile a message of
  // one chunk.
  const Region whole = Region::whole({300, 260}), small{{7, 9}, {40, 30}, {3, 200}};
  for (const auto& [region, batch] :
       {std::pair{whole, 0}, std::pair{whole, 2}, std::pair{small, 0}}) {
    CAPTURE(region.extent.rows);
    CAPTURE(batch);
    fill_source(a);
    fill_sentinel(b);
    PlanOptions p;
    p.batch = batch;
    Redistributor r(a, b, comm, region, p, small_rings());
    CHECK(sum(comm, r.plan().stats.messages_sent) > 0);
    if (batch > 0) CHECK(r.plan().batches > 1);
    const auto [chunks, largest] = ring_chunks(r.task_graph());
    const index_t sent = static_cast<index_t>(r.task_graph().send.chunks.size());
    CHECK(chunks == sent);  // every message of the node through a ring
    // A slot (4 KiB of doubles), or cut_columns columns of at most 300 rows where a slot
    // holds fewer (engine/chunking.hpp).
    const index_t slot = std::max<index_t>(512, cut_columns * 300);
    CHECK(largest <= slot);
    // Rings of at most 2 lanes x 2 such slots: nothing else is buffered on one node.
    CHECK(r.buffer_bytes() <= 2 * 2 * slot * index_t{sizeof(double)});
    for (int run = 0; run < 2; ++run) {
      fill_sentinel(b);
      // The last rank comes late: its senders fill their rings and wait for its acks.
      if (comm.rank() == np - 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      r.redistribute();
      index_t checked = 0;
      CHECK(sum(comm, target_errors(b, region, checked)) == 0);
      CHECK(sum(comm, checked) == 300 * 260);  // the region, and the rest left alone
      CHECK(sum(comm, source_errors(a)) == 0);
      CHECK(static_cast<index_t>(r.tasks_run().ack) >= chunks);  // one ack per ring chunk
    }
    if (region.extent.rows == 300)
      CHECK(sum(comm, chunks) > 2 * sum(comm, r.plan().stats.messages_sent));  // wraps around
    else
      CHECK(sum(comm, chunks) == sum(comm, r.plan().stats.messages_sent));  // one chunk each
  }
}

TEST_CASE("mpi: local parts follow the pack of their columns, or fill the waits when told not to") {
  if (!rings_run_here(boost::mpi::communicator{})) return;
  SmallRingsMove m;
  const boost::mpi::communicator& comm = m.comm;
  Small &a = m.a, &b = m.b;
  // Every source column goes partly to each rank (1 x np tiles -> np x 1): each rank's local
  // parts read the columns that its packs read too.
  for (const bool follow : {true, false}) {
    CAPTURE(follow);
    const ScopedEnv env("REDIST_FOLLOW_PACKS", follow ? "1" : "0");  // wins over a ctest leg's
    fill_source(a);
    fill_sentinel(b);
    // start() copies a chunk's worth at least: 4 KiB, not the whole of this small move.
    ExecutionOptions o = small_rings();
    o.chunk_bytes = 4096;
    Redistributor r(a, b, comm, PlanOptions{}, o);
    CHECK(r.execution_options().follow_packs == follow);
    const TaskGraph& g = r.task_graph();
    const auto followers = static_cast<std::size_t>(std::count_if(
        g.follows.begin(), g.follows.end(), [](std::size_t c) { return c != SIZE_MAX; }));
    if (follow)
      CHECK(followers > g.local.chunks.size() / 2);  // most parts, on every rank
    else
      CHECK(followers == 0);
    // start() packs the first chunks to every peer before anything else (the followers of
    // those come later); from there on, among the tasks that copy, a pack's followers come
    // right after it, in part order.
    r.start();
    const std::size_t started = r.completion_order().size();
    r.wait();
    index_t checked = 0;
    CHECK(sum(comm, target_errors(b, Region::whole({300, 260}), checked)) == 0);
    CHECK(sum(comm, checked) == 300 * 260);
    const auto& order = r.completion_order();
    std::vector<std::uint32_t> copies;
    for (std::size_t k = started; k < order.size(); ++k)
      if (g.tasks[order[k]].kind == TaskKind::send || g.tasks[order[k]].kind == TaskKind::receive)
        copies.push_back(order[k]);
    std::size_t checked_packs = 0;
    for (std::size_t c = 0; follow && c < g.send_vertex.size(); ++c) {
      auto at = std::find(copies.begin(), copies.end(), g.send_vertex[c]);
      if (at == copies.end()) continue;  // read in place, or packed by start()
      ++checked_packs;
      for (std::size_t p = 0; p < g.follows.size(); ++p)
        if (g.follows[p] == c) {
          REQUIRE(++at != copies.end());
          CHECK(*at == g.local_vertex[p]);
        }
    }
    if (follow) CHECK(checked_packs > g.send.chunks.size() / 2);
  }
}

TEST_CASE("mpi: flat messages cut between segments, through the window and pushed") {
  if (!rings_run_here(boost::mpi::communicator{})) return;
  boost::mpi::communicator comm;
  const int np = comm.size();
  const SmallRingsEnv rings;
  const ScopedEnv follow("REDIST_FOLLOW_PACKS", "1");
  // Tile storage on both sides (redist-run's): messages laid flat, a segment a copy
  // (engine/matrix_sides.hpp). A message's column pieces (20 to 24 columns) exceed a 4 KiB
  // slot, and are cut between their segments. Target tile columns dealt (1 x np): a member
  // holds every row of its columns. Target tile rows dealt (np x 1): a member holds every
  // np-th 20 rows, pieces of the 32-row source tiles whose other rows another rank or this
  // one takes, and the local parts follow the packs that read the same tiles. Into a private
  // target through the window, and into a node-shared one pushed.
  using Tiles =
      TiledMatrix<double, Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>, PackedTiles<>>;
  const Region region{{250, 200}, {30, 40}, {20, 50}};
  const auto move = [&](const auto& a, auto& b, bool whole_columns, const ExecutionOptions& o) {
    Redistributor r(a, b, comm, region, PlanOptions{}, o);
    const TaskGraph& g = r.task_graph();
    index_t cut = 0, over = 0;
    for (const Chunk& ch : g.send.chunks) {
      index_t places = 0;
      for (std::size_t s = ch.first; s < ch.end; ++s) {
        cut += g.send.slices[s].rows_cut ? 1 : 0;
        places += engine::slice_row_pieces(r.plan(), r.plan().send, g.send.slices[s]);
      }
      // Within a slot (512 doubles) but for a segment alone, cut between its columns.
      if (ch.elements > 512 && places > 1) ++over;
    }
    CHECK(over == 0);
    CHECK(sum(comm, cut) > 0);
    if (!whole_columns) {
      const auto followers = static_cast<std::size_t>(std::count_if(
          g.follows.begin(), g.follows.end(), [](std::size_t c) { return c != SIZE_MAX; }));
      CHECK(followers > g.local.chunks.size() / 2);
    }
    for (int run = 0; run < 2; ++run) {
      fill_sentinel(b);
      r.redistribute();
      index_t checked = 0;
      CHECK(sum(comm, target_errors(b, region, checked)) == 0);
      CHECK(sum(comm, checked) == 300 * 260);
      CHECK(sum(comm, source_errors(a)) == 0);
    }
    return sum(comm, r.messages(Transport::push).first);
  };
  for (const bool whole_columns : {true, false}) {
    CAPTURE(whole_columns);
    Tiles a({uniform(300, 260, 32, 24), BlockCyclic(1, np)}, {}, comm.rank());
    fill_source(a);
    const Layout dst{uniform(300, 260, 20, 26),
                     whole_columns ? BlockCyclic(1, np) : BlockCyclic(np, 1)};
    {
      const ScopedEnv transport("REDIST_TRANSPORT", "node-window");
      Tiles b(dst, {}, comm.rank());
      CHECK(move(a, b, whole_columns, small_rings()) == 0);
    }
    // The variable wins over code: a leg that forces another transport is overridden here.
    const ScopedEnv transport("REDIST_TRANSPORT", "auto");
    ExecutionOptions o = small_rings();
    o.transport = TransportPolicy::automatic;
    o.push_min_run_bytes = 0;
    auto b = node_shared_matrix<double>(dst, PackedTiles<>{}, comm);
    const index_t pushed = move(a, b, whole_columns, o);
    CHECK(pushed > 0);
  }
}

TEST_CASE("mpi: a rank's buffers are its rings, whatever the matrix") {
  const boost::mpi::communicator comm;
  if (!rings_run_here(comm)) return;
  const ScopedEnv transport("REDIST_TRANSPORT", "node-window");
  const int np = comm.size();
  // 64 MiB of doubles: each rank sends 8-16 MiB, which the window held whole before rings.
  const index_t m = 4096, n = 2048;
  const Layout src{uniform(m, n, 256, 256), BlockCyclic(1, np)};
  const Layout dst{uniform(m, n, 100, 100), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
  fill_source(a);
  fill_sentinel(b);
  ExecutionOptions o;
  o.transport = TransportPolicy::node_window;
  o.ring_slots = -1;  // 4 slots, sized from the caches
  Redistributor r(a, b, comm, Region::whole({m, n}), PlanOptions{}, o);
  const index_t rings = transport::ring_lanes * transport::default_ring_slots * (index_t{1} << 20);
  CHECK(r.buffer_bytes() <= rings);  // slots of at most 1 MiB (automatic), or fewer, smaller
  CHECK(r.plan().stats.buffer_elements * 8 > rings);
  r.redistribute();
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, Region::whole({m, n}), checked)) == 0);
  CHECK(sum(comm, checked) == m * n);
}

TEST_CASE("mpi: a peer that stops consuming its ring ends every rank in the progress timeout") {
  if (!rings_run_here(boost::mpi::communicator{})) return;
  SmallRingsMove m;
  const boost::mpi::communicator& comm = m.comm;
  const int np = m.np;
  Small &a = m.a, &b = m.b;
  // Driven by the caller's wait(), and by a progress thread whose error wait() rethrows.
  for (const ProgressPolicy progress : {ProgressPolicy::caller, ProgressPolicy::thread}) {
    CAPTURE(to_string(progress));
    fill_source(a);
    fill_sentinel(b);
    ExecutionOptions o = small_rings();
    o.progress_timeout_seconds = 1.0;
    o.progress = progress;
    Redistributor r(a, b, comm, PlanOptions{}, o);
    // The late rank consumes nothing until its peers have given up: their rings fill.
    check_late_rank_times_out(comm, r, a, np - 1);
  }
}
