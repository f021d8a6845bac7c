// Binding (engine/bind_copies.hpp) of tile-stored sides: every rank of a virtual
// communicator packs its messages, unpacks its peers' and copies its local segments, all
// in one process, with the copies bind_slice makes; every target element must hold its
// source element, and every message element must be written once. Random irregular tiles,
// owners, displaced regions, batches and chunk sizes; tile storage on both sides (flat
// messages), on one side (stacked messages), one allocation per tile or packed tiles.
// Then ScaLAPACK storage on both sides, whose slices of one family share its runs and whose
// row pieces merge where they continue each other, and the worked example of the file
// comment: a source tile column piece's segments are one copy, one run each.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/engine/bind_copies.hpp>
#include <redist/engine/separated_source.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tiled_matrix.hpp>
#include <redist/transform.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::Rng;
using Shape = Tiling<IrregularAxis, IrregularAxis>;
using L = Layout<Shape, BlockCyclic>;
/// Matrices as the engine binds them (views/matrix_view.hpp), and their sides.
using View = MatrixView<double, Kokkos::HostSpace>;
using Side = engine::MatrixSide<double, Kokkos::HostSpace>;

/// An axis of `extent` elements cut in tiles of `tile` (the last one partial).
IrregularAxis uniform_axis(index_t extent, index_t tile) {
  std::vector<index_t> b;
  for (index_t x = 0; x < extent; x += tile) b.push_back(x);
  b.push_back(extent);
  return IrregularAxis(std::move(b));
}

double value_at(index_t i, index_t j) { return static_cast<double>(i * 100003 + j + 1); }
constexpr double unset = -1.0;

struct Totals {
  index_t segments = 0, copies = 0, runs = 0;
  index_t separated = 0;  ///< moves where some rank's tiles separate (StorageMap)
  index_t stacked = 0;    ///< moves whose messages are stacked (MatrixSides::lays_flat)
};

/// How random_moves cuts its matrices: random irregular tiles, or small tiles of one size
/// (1 to 4 a side) that fill the matrix, which packed tiles store as a separable matrix,
/// or tiles of 8 to 17 a side (64 to 289 elements), the last tile row and column partial.
enum class Tiles { irregular, small_whole, medium };

/// Fills every owned element of a with value_at(global i, j).
template <class M>
void fill(const L& layout, M& a) {
  a.for_each_tile([&](TileIndex t) {
    const TileRef<double> r = a.tile_ref(t);
    const index_t i0 = layout.shape().rows().begin(t.m), j0 = layout.shape().cols().begin(t.n);
    for (index_t j = 0; j < r.extent.cols; ++j)
      for (index_t i = 0; i < r.extent.rows; ++i) r.data[i + j * r.ld] = value_at(i0 + i, j0 + j);
  });
}

/// Runs every rank's packs, unpacks and local copies as bound by bind_slice, then checks
/// each target element and each message element.
/// How the receivers read their peers' messages: from the packed buffers, or in place from
/// the peers' sources (as the direct transports do), bound as the host does (segment by
/// segment) or as a device does (target order; slices whose segments separate as one copy).
enum class Reading { buffers, in_place, in_place_device };

template <class SrcP, class DstP>
void move_all(const L& src, const L& dst, const Region& region, int np, const PlanOptions& o,
              index_t chunk_elements, Totals& totals, Reading reading = Reading::buffers) {
  using SrcM = TiledMatrix<double, L, SrcP>;
  using DstM = TiledMatrix<double, L, DstP>;
  std::vector<SrcM> a;
  std::vector<DstM> b;
  std::vector<Plan> plans;
  std::vector<TaskGraph> graphs;
  for (int r = 0; r < np; ++r) {
    a.emplace_back(src, SrcP{}, r);
    b.emplace_back(dst, DstP{}, r);
    if (a.back().storage().separation() || b.back().storage().separation()) ++totals.separated;
    fill(src, a.back());
    b.back().for_each_tile([&](TileIndex t) {
      const TileRef<double> ref = b.back().tile_ref(t);
      for (index_t j = 0; j < ref.extent.cols; ++j)
        for (index_t i = 0; i < ref.extent.rows; ++i) ref.data[i + j * ref.ld] = unset;
    });
    plans.push_back(make_plan(src, dst, region, r, np, o));
    totals.segments +=
        plans.back().send.segments + plans.back().recv.segments + plans.back().local.segments;
  }
  for (int r = 0; r < np; ++r) graphs.push_back(make_task_graph(plans[r], chunk_elements));
  // As an engine does (engine/matrix_sides.hpp): messages laid flat between tile-stored
  // sides unless tiles are small and some rank's separate; then stacked, and tiles that
  // separate bind per axis.
  using Sides = engine::MatrixSides<double, Kokkos::HostSpace>;
  int bits = 0;  // the engine's all-reduce, over the simulated ranks
  for (int r = 0; r < np; ++r)
    bits |= Sides::Agreed::here(plans[r], {View(a[r])}, {View(b[r])}, false).bits();
  const bool flat = Sides::lays_flat({View(a[0])}, {View(b[0])}, Sides::Agreed::from_bits(bits));
  const bool separate = !flat;
  totals.stacked += !flat;
  const Kokkos::DefaultHostExecutionSpace exec;
  const auto run = [&](CopyPool<double>& pool) {
    run_copies(exec, pool, 0, pool.copies.size());
    exec.fence();
    totals.copies += static_cast<index_t>(pool.copies.size());
    totals.runs += static_cast<index_t>(pool.runs.size());
  };
  // Every rank packs every message: (sender, message) -> buffer.
  std::vector<std::vector<std::vector<double>>> buffers(static_cast<std::size_t>(np));
  for (int r = 0; r < np; ++r) {
    const Plan& p = plans[r];
    const TaskGraph& g = graphs[r];
    const View av(a[r]);
    const Side side(av, true, false, separate);
    auto& out = buffers[static_cast<std::size_t>(r)];
    for (const Message& m : p.send.messages)
      out.emplace_back(static_cast<std::size_t>(m.elements), unset);
    CopyPool<double> pool;
    std::vector<index_t> rel;
    engine::SharedRuns shared;
    for (const Chunk& ch : g.send.chunks)
      for (std::size_t k = ch.first; k < ch.end; ++k) {
        const std::size_t before = pool.copies.size();
        engine::bind_slice(p, p.send, g.send.slices[k], side, engine::BufferSide{}, pool, rel,
                           shared, flat);
        for (std::size_t c = before; c < pool.copies.size(); ++c)
          pool.copies[c].dst = out[ch.message].data() + rel[c];
      }
    run(pool);
    for (std::size_t m = 0; m < out.size(); ++m)
      CHECK(std::count(out[m].begin(), out[m].end(), unset) == 0);
  }
  // Every rank unpacks the message of each (batch, peer) and copies its local segments.
  for (int r = 0; r < np; ++r) {
    const Plan& p = plans[r];
    const TaskGraph& g = graphs[r];
    const View bv(b[r]);
    const Side side(bv, false, false, separate);
    CopyPool<double> pool;
    std::vector<index_t> rel;
    engine::SharedRuns shared(reading == Reading::in_place_device);
    for (const Chunk& ch : g.recv.chunks) {
      const Message& m = p.recv.messages[ch.message];
      if (reading != Reading::buffers) {
        // The sender's segments, as it describes them: in for_each_slice_segment's order.
        const View peer(a[static_cast<std::size_t>(m.peer)]);
        const Side sender(peer, true, false, separate);
        std::vector<engine::Address<double>> described;
        for (std::size_t k = ch.first; k < ch.end; ++k)
          engine::for_each_slice_segment(p, p.recv, g.recv.slices[k],
                                         [&](index_t, index_t, const Piece& row, const Piece& col) {
                                           described.push_back(sender.at(row, col));
                                         });
        const engine::DescribedSide<double> from{described.data()};
        for (std::size_t k = ch.first; k < ch.end; ++k)
          engine::bind_slice(p, p.recv, g.recv.slices[k], from, side, pool, rel, shared);
        CHECK(from.next == described.data() + described.size());
        continue;
      }
      const auto& sent = plans[static_cast<std::size_t>(m.peer)].send.messages;
      const auto it = std::find_if(sent.begin(), sent.end(), [&](const Message& x) {
        return x.peer == r && x.batch == m.batch;
      });
      REQUIRE(it != sent.end());
      REQUIRE(it->elements == m.elements);
      const std::vector<double>& message =
          buffers[static_cast<std::size_t>(m.peer)][static_cast<std::size_t>(it - sent.begin())];
      for (std::size_t k = ch.first; k < ch.end; ++k) {
        const std::size_t before = pool.copies.size();
        engine::bind_slice(p, p.recv, g.recv.slices[k], engine::BufferSide{}, side, pool, rel,
                           shared, flat);
        for (std::size_t c = before; c < pool.copies.size(); ++c)
          pool.copies[c].src = message.data() + rel[c];
      }
    }
    run(pool);
    CopyPool<double> local;
    std::vector<index_t> none;
    engine::SharedRuns local_runs;
    const View av(a[r]);
    const Side from(av, true, false, separate);
    for (const Slice& s : g.local.slices)
      engine::bind_slice(p, p.local, s, from, side, local, none, local_runs);
    CHECK(none.empty());
    run(local);
  }
  // Every target element: its source element inside the region, untouched outside.
  long bad = 0;
  for (int r = 0; r < np; ++r)
    b[r].for_each_tile([&](TileIndex t) {
      const TileRef<double> ref = b[r].tile_ref(t);
      const index_t i0 = dst.shape().rows().begin(t.m), j0 = dst.shape().cols().begin(t.n);
      for (index_t j = 0; j < ref.extent.cols; ++j)
        for (index_t i = 0; i < ref.extent.rows; ++i) {
          const index_t gi = i0 + i - region.dst_origin.i;
          const index_t gj = j0 + j - region.dst_origin.j;
          const bool inside =
              0 <= gi && gi < region.extent.rows && 0 <= gj && gj < region.extent.cols;
          const double want =
              inside ? value_at(gi + region.src_origin.i, gj + region.src_origin.j) : unset;
          bad += ref.data[i + j * ref.ld] != want;
        }
    });
  CHECK(bad == 0);
}

template <class SrcP, class DstP>
Totals random_moves(std::uint64_t seed, int count, Reading reading = Reading::buffers,
                    Tiles tiles = Tiles::irregular) {
  Rng g(seed);
  Totals totals;
  for (int k = 0; k < count; ++k) {
    const int np = static_cast<int>(g.in(1, 5));
    // An axis of about `extent` elements: random tiles, or whole tiles of 1 to 4.
    const auto axis = [&](index_t extent) {
      if (tiles == Tiles::irregular) return std::pair{extent, random_axis(g, extent)};
      if (tiles == Tiles::medium) return std::pair{extent, uniform_axis(extent, g.in(8, 17))};
      const index_t t = g.in(1, 4), n = std::max<index_t>(1, extent / t) * t;
      return std::pair{n, uniform_axis(n, t)};
    };
    const auto [sm, src_rows] = axis(g.in(1, 60));
    const auto [sn, src_cols] = axis(g.in(1, 40));
    const auto [dm, dst_rows] = axis(g.in(1, 60));
    const auto [dn, dst_cols] = axis(g.in(1, 40));
    const L src{Shape{src_rows, src_cols}, random_block_cyclic(g, np, {2, true})};
    const L dst{Shape{dst_rows, dst_cols}, random_block_cyclic(g, np, {2, true})};
    const Region region = test::random_region(g, {sm, sn}, {dm, dn});
    PlanOptions o;
    o.batch = g.in(0, 3);
    const index_t chunk = g.chance(50) ? g.in(1, 64) : index_t{1} << 20;
    CAPTURE(k);
    CAPTURE(np);
    move_all<SrcP, DstP>(src, dst, region, np, o, chunk, totals, reading);
  }
  return totals;
}

}  // namespace

TEST_CASE("bind_slice: tile storage on both sides (flat messages) moves every element") {
  const Totals t = random_moves<TilePerAllocation<>, TilePerAllocation<>>(0x7115, 150);
  const Totals p = random_moves<PackedTiles<>, TilePerAllocation<>>(0x9AC4, 100);
  const Totals q = random_moves<TilePerAllocation<>, PackedTiles<>>(0x9AC5, 100);
  MESSAGE(t.segments, " segments in ", t.copies, " copies (", p.segments, " in ", p.copies, ", ",
          q.segments, " in ", q.copies, ")");
  CHECK(t.copies < t.segments);  // a tile column's segments share copies
}

TEST_CASE("bind_slice: small whole tiles that separate bind per axis, stacked messages") {
  // Packed tiles of 1 to 4 a side that fill the matrix separate (StorageMap::separation):
  // messages between them are stacked and their slices bind as one copy, as for ScaLAPACK
  // storage; one tile per allocation does not separate and binds segment by segment into
  // the same stacked messages. Every element either way.
  using P = PackedTiles<>;
  using A = TilePerAllocation<>;
  using S = ScalapackColumnMajor<>;
  const Totals packed = random_moves<P, P>(0x5E9A, 120, Reading::buffers, Tiles::small_whole);
  const Totals apart = random_moves<A, A>(0x5E9A, 120, Reading::buffers, Tiles::small_whole);
  const Totals mixed = random_moves<A, P>(0x5E9B, 80, Reading::buffers, Tiles::small_whole);
  const Totals local = random_moves<P, S>(0x5E9C, 80, Reading::buffers, Tiles::small_whole);
  const Totals read = random_moves<P, P>(0x5E9D, 80, Reading::in_place, Tiles::small_whole);
  MESSAGE(packed.segments, " segments: ", packed.copies, " copies packed, ", apart.copies,
          " one tile per allocation");
  CHECK(packed.separated > 0);
  CHECK(apart.segments == packed.segments);
  CHECK(packed.copies * 3 < apart.copies);
  CHECK(mixed.separated > 0);
  CHECK(local.separated > 0);
  CHECK(read.separated > 0);
}

TEST_CASE("bind_slice: tiles of 64 to 289 elements whose rows cut each other are stacked") {
  // Packed tiles of 8 to 17 a side, as random as the rest: where most of a rank's message
  // rows are pieces of tiles (8 -> 9), messages are stacked and whole slices bind as one
  // copy; where the tile rows line up they stay flat. Every element either way.
  using P = PackedTiles<>;
  const Totals random = random_moves<P, P>(0xC07A, 150, Reading::buffers, Tiles::medium);
  MESSAGE(random.stacked, " of 150 moves stacked, ", random.copies, " copies for ", random.segments,
          " segments");
  CHECK(random.stacked > 0);
  CHECK(random.stacked < 150);
  // 8 -> 9 on 1 x 2 -> 2 x 1 stacks; 8 -> 8 does not. Transposed, op(A)'s rows are A's
  // columns: 8 x 9 source tiles meet 9 x 9 target tiles whole.
  using M = TiledMatrix<double, L, P>;
  using Sides = engine::MatrixSides<double, Kokkos::HostSpace>;
  const auto cut = [](index_t src_mb, index_t src_nb, index_t dst_tile, bool transposed) {
    const L src{Shape{uniform_axis(72, src_mb), uniform_axis(72, src_nb)}, BlockCyclic(1, 2)};
    const L dst{Shape{uniform_axis(72, dst_tile), uniform_axis(72, dst_tile)}, BlockCyclic(2, 1)};
    const M a(src, {}, 0);
    M b(dst, {}, 0);
    const Region whole = Region::whole({72, 72});
    const Plan p = transposed ? make_plan(redist::transposed(src), dst, whole, 0, 2)
                              : make_plan(src, dst, whole, 0, 2);
    return Sides::cuts_rows(p, {View(a)}, {View(b)}, transposed);
  };
  CHECK(cut(8, 8, 9, false));
  CHECK(cut(12, 12, 16, false));
  CHECK_FALSE(cut(8, 8, 8, false));
  CHECK(cut(8, 9, 9, false));
  CHECK_FALSE(cut(8, 9, 9, true));
  CHECK(cut(9, 8, 9, true));
  CHECK_FALSE(cut(2, 2, 3, false));     // stacked anyway (under 64 elements)
  CHECK_FALSE(cut(24, 24, 25, false));  // flat anyway (300 elements or more)
}

TEST_CASE("bind_slice: tile storage on one side (stacked messages) moves every element") {
  const Totals s = random_moves<TilePerAllocation<>, ScalapackColumnMajor<>>(0x57AC, 120);
  const Totals d = random_moves<ScalapackColumnMajor<>, PackedTiles<>>(0xD57A, 120);
  MESSAGE(s.segments, " segments in ", s.copies, " copies, ", s.runs, " runs (", d.segments, " in ",
          d.copies, ")");
  CHECK(s.copies < s.segments);
  CHECK(d.copies < d.segments);
}

namespace {

/// Rank 0's sends of the 64 x 64 move of 1 x 1 tiles, 1 x 2 -> 2 x 1 grids, ScaLAPACK
/// storage, chunks of 64 elements, bound slice by slice with one SharedRuns, as an engine
/// binds them; `messages`: how many the plan has.
CopyPool<double> bind_one_by_one_sends(const PlanOptions& o, std::size_t& messages) {
  const L src{Shape{uniform_axis(64, 1), uniform_axis(64, 1)}, BlockCyclic(1, 2)};
  const L dst{Shape{uniform_axis(64, 1), uniform_axis(64, 1)}, BlockCyclic(2, 1)};
  const Plan p = make_plan(src, dst, Region::whole({64, 64}), 0, 2, o);
  messages = p.send.messages.size();
  const TaskGraph g = make_task_graph(p, 64);
  TiledMatrix<double, L, ScalapackColumnMajor<>> a(src, {}, 0);
  const View av(a);
  const Side side(av, true);
  CopyPool<double> pool;
  std::vector<index_t> rel;
  engine::SharedRuns shared;
  for (const Slice& s : g.send.slices)
    engine::bind_slice(p, p.send, s, side, engine::BufferSide{}, pool, rel, shared);
  REQUIRE(pool.copies.size() == g.send.slices.size());
  return pool;
}

}  // namespace

TEST_CASE("bind_slice: ScaLAPACK storage on both sides; slices of one family share its runs") {
  const Totals t = random_moves<ScalapackColumnMajor<>, ScalapackColumnMajor<>>(0x5CA1, 120);
  MESSAGE(t.segments, " segments in ", t.copies, " copies, ", t.runs, " runs");
  // 1 x 1 tiles, 1 x 2 -> 2 x 1 grids, 64 x 64, chunks of 64 elements: rank 0 sends rows
  // 1, 3, ..., 63 of its columns 0, 2, ..., 62 in 32 slices of 2 columns, each slice one
  // copy of the same 32 runs. Bound once, the runs are 32, not 32 x 32.
  std::size_t messages = 0;
  const CopyPool<double> pool = bind_one_by_one_sends(PlanOptions{}, messages);
  CHECK(pool.copies.size() == 16);
  index_t listed = 0;
  for (const StridedCopy<double>& c : pool.copies) {
    CHECK(c.run_first == pool.copies.front().run_first);
    CHECK(c.runs == 32);
    listed += c.runs;
  }
  CHECK(listed == 16 * 32);
  CHECK(pool.runs.size() == 32);
}

TEST_CASE("bind_slice: batches whose families have the same rows share their runs") {
  // The move above in 16 batches of 4 source tile columns: each batch's message has its
  // own families, with the same rows. Bound once for all batches: 32 runs, not 16 x 32.
  PlanOptions o;
  o.batch = 4;
  std::size_t messages = 0;
  const CopyPool<double> pool = bind_one_by_one_sends(o, messages);
  REQUIRE(messages == 16);
  CHECK(pool.copies.size() == 16);
  for (const StridedCopy<double>& c : pool.copies) {
    CHECK(c.run_first == pool.copies.front().run_first);
    CHECK(c.runs == 32);
  }
  CHECK(pool.runs.size() == 32);
}

TEST_CASE("bind_slice: a source tile column piece's segments are one copy, one run each") {
  // Case c of redist-bench in small: 16 x 16 source tiles -> 2 x 2 target tiles on 2 x 1
  // grids. Rank 0 owns source tile row 0 and sends target tile rows 1, 3, 5, 7: rows 2, 6,
  // 10, 14 of the source tile, 2 x 2 segments. Each column piece (2 columns) of the
  // source tile is one copy of four runs, laid flat in matrix order: runs 4 elements apart.
  const L src{Shape{uniform_axis(32, 16), uniform_axis(16, 16)}, BlockCyclic(2, 1)};
  const L dst{Shape{uniform_axis(32, 2), uniform_axis(16, 2)}, BlockCyclic(2, 1)};
  const Region region = Region::whole({32, 16});
  const Plan p = make_plan(src, dst, region, 0, 2);
  const TaskGraph g = make_task_graph(p, index_t{1} << 20);
  TiledMatrix<double, L, TilePerAllocation<>> a(src, {}, 0);
  const View av(a);
  const Side side(av, true);
  CopyPool<double> pool;
  std::vector<index_t> rel;
  engine::SharedRuns shared;
  for (const Slice& s : g.send.slices)
    engine::bind_slice(p, p.send, s, side, engine::BufferSide{}, pool, rel, shared, true);
  CHECK(p.send.segments == 32);  // 4 row pieces x 8 column pieces
  REQUIRE(pool.copies.size() == 8);
  for (std::size_t c = 0; c < pool.copies.size(); ++c) {
    const StridedCopy<double>& copy = pool.copies[c];
    CHECK(copy.runs == 4);
    CHECK(copy.col_len == 2);
    CHECK(copy.lds == 16);
    CHECK(copy.ldd == 2);
    for (index_t r = 0; r < copy.runs; ++r) {
      const RowRun& run = pool.runs[static_cast<std::size_t>(copy.run_first + r)];
      CHECK(run.src == 4 * r);  // rows 2, 6, 10, 14 of the source tile
      CHECK(run.dst == 4 * r);  // segment after segment, 2 x 2 each
      CHECK(run.length == 2);
    }
  }
}

TEST_CASE("bind_slice: one row layout on both sides: in target order a column is one run") {
  // Case c of redist-bench on one rank, in small: 16-row source tiles, 2-row target tiles,
  // both sides one local array of 64 rows. Family k lists every period's k-th row piece, so
  // pieces that continue each other are not neighbours; merged in target order (as for a
  // device), a column's 32 pieces are one run on both sides. In the families' order (the
  // host's) they stay 32 runs, and both move every element.
  const L src{Shape{uniform_axis(64, 16), uniform_axis(8, 8)}, BlockCyclic(1, 1)};
  const L dst{Shape{uniform_axis(64, 2), uniform_axis(8, 2)}, BlockCyclic(1, 1)};
  const Plan p = make_plan(src, dst, Region::whole({64, 8}), 0, 1);
  const TaskGraph g = make_task_graph(p, index_t{1} << 20);
  TiledMatrix<double, L, ScalapackColumnMajor<>> a(src, {}, 0), b(dst, {}, 0);
  fill(src, a);
  const View av(a), bv(b);
  const Side from(av, true);
  const Side to(bv, false);
  for (const bool target_order : {true, false}) {
    CAPTURE(target_order);
    b.for_each_element([](ElementIndex, double& v) { v = unset; });
    CopyPool<double> pool;
    std::vector<index_t> none;
    engine::SharedRuns shared(target_order);
    for (const Slice& s : g.local.slices)
      engine::bind_slice(p, p.local, s, from, to, pool, none, shared);
    REQUIRE_FALSE(pool.copies.empty());
    index_t columns = 0;
    for (const StridedCopy<double>& c : pool.copies) {
      CHECK(c.runs == (target_order ? 1 : 32));
      if (target_order) CHECK(pool.runs[static_cast<std::size_t>(c.run_first)].length == 64);
      columns += c.columns();
    }
    CHECK(columns == 8);
    run_copies(Kokkos::DefaultHostExecutionSpace(), pool, 0, pool.copies.size());
    Kokkos::fence();
    long bad = 0;
    b.for_each_element([&](ElementIndex e, double& v) { bad += v != value_at(e.i, e.j); });
    CHECK(bad == 0);
  }
}

TEST_CASE("bind_slice: a peer's source read in place, segment by segment or separated") {
  // As the host binds it (a copy per segment, merged within a tile) and as a device does:
  // a slice whose described segments separate (ScaLAPACK storage) is one copy; tile
  // storage does not separate and stays segment by segment. Every element either way.
  using S = ScalapackColumnMajor<>;
  using P = TilePerAllocation<>;
  const Totals host = random_moves<S, S>(0x1D1, 80, Reading::in_place);
  const Totals device = random_moves<S, S>(0x1D1, 80, Reading::in_place_device);
  const Totals tiles = random_moves<P, S>(0x1D2, 80, Reading::in_place_device);
  MESSAGE(host.segments, " segments: ", host.copies, " copies bound per segment, ", device.copies,
          " separated; tile storage: ", tiles.copies, " copies");
  CHECK(device.copies < host.copies);
}

TEST_CASE("separate: a slice's described segments split into row and column parts") {
  // 3 row pieces x 2 column pieces of a local matrix of ld 10: rows at 0, 4, 7, columns
  // at 0 and 5 (x ld), listed column piece by column piece.
  std::vector<double> m(100);
  const double* o = m.data() + 1;
  std::vector<engine::Address<double>> seg;
  for (index_t b : {0, 5})
    for (index_t r : {0, 4, 7}) seg.emplace_back(o + r + b * 10, 10);
  const auto s = engine::separate(seg.data(), 3, 2, false);
  REQUIRE(s);
  CHECK(s->base() == o);
  CHECK(s->ld() == 10);
  CHECK(s->rows == std::vector<index_t>{0, 4, 7});
  CHECK(s->cols == std::vector<index_t>{0, 50});
  // A segment off the grid, another leading dimension, no segment: no separation.
  auto off = seg;
  off[4].first += 1;
  CHECK_FALSE(engine::separate(off.data(), 3, 2, false));
  auto ld = seg;
  ld[5].second = 11;
  CHECK_FALSE(engine::separate(ld.data(), 3, 2, false));
  CHECK_FALSE(engine::separate(seg.data(), 0, 2, false));
  // Rows before the first segment: negative parts.
  std::vector<engine::Address<double>> back{{o + 7, 10}, {o, 10}};
  const auto b = engine::separate(back.data(), 2, 1, false);
  REQUIRE(b);
  CHECK(b->rows == std::vector<index_t>{0, -7});
}
