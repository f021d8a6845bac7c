// The per-segment reference plan (plan/reference_plan.hpp), on every rank of a virtual
// communicator (no MPI) for many random configurations: sender and receiver agree segment by
// segment, in order, with the same batch; received and local segments partition the region
// exactly; statistics add up; and a block-cyclic plan costs O(own tiles) even for a huge
// matrix on 16384 ranks.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;

/// A run-time choice between block-cyclic and random, for random configurations.
struct AnyDistribution {
  bool random = false;
  BlockCyclic bc{1, 1};
  RandomDistribution rnd{1, 0};
  int ranks() const { return random ? rnd.ranks() : bc.ranks(); }
  int owner(TileIndex t) const { return random ? rnd.owner(t) : bc.owner(t); }
};

using Shape = Tiling<IrregularAxis, IrregularAxis>;
using AnyLayout = Layout<Shape, AnyDistribution>;

using test::Rng;
/// Uniform tiles (the last partial) a third of the time, else irregular with 1x1 tiles.
constexpr test::AxisDraw axes{33, 9};

AnyDistribution random_distribution(Rng& g, int np) {
  AnyDistribution d;
  if (g.chance(33)) {
    d.random = true;
    const int ranks = static_cast<int>(g.in(1, np));
    d.rnd = RandomDistribution(ranks, g.engine());
  } else {
    d.bc = test::random_block_cyclic(g, np, {3});
  }
  return d;
}

struct Config {
  AnyLayout src, dst;
  Region region;
  int np;
  PlanOptions options;
};

Config random_config(Rng& g) {
  const int np = static_cast<int>(g.in(1, 6));
  const index_t sm = g.in(1, 40), sn = g.in(1, 40), dm = g.in(1, 40), dn = g.in(1, 40);
  AnyLayout src{Shape{random_axis(g, sm, axes), random_axis(g, sn, axes)},
                random_distribution(g, np)};
  AnyLayout dst{Shape{random_axis(g, dm, axes), random_axis(g, dn, axes)},
                random_distribution(g, np)};
  const Region r = test::random_region(g, {sm, sn}, {dm, dn});
  PlanOptions o;
  const index_t b = g.in(0, 3);
  o.batch = b == 3 ? 0 : b;
  if (g.chance(25)) o.max_buffer_bytes = 256;  // automatic batches
  return {std::move(src), std::move(dst), r, np, o};
}

std::vector<PlannedSegment> with_peer(const std::vector<PlannedSegment>& v, int peer) {
  std::vector<PlannedSegment> out;
  for (const auto& s : v)
    if (s.peer == peer) out.push_back(s);
  return out;
}

void check_config(const Config& c) {
  std::vector<ReferencePlan> plans;
  for (int r = 0; r < c.np; ++r)
    plans.push_back(make_reference_plan(c.src, c.dst, c.region, r, c.np, c.options));

  // Sender and receiver: same segments, same order, same batch, same pieces.
  for (int a = 0; a < c.np; ++a)
    for (int b = 0; b < c.np; ++b) {
      if (a == b) {
        CHECK(with_peer(plans[a].send.segments, b).empty());
        CHECK(with_peer(plans[a].recv.segments, a).empty());
        continue;
      }
      const auto sent = with_peer(plans[a].send.segments, b);
      const auto recv = with_peer(plans[b].recv.segments, a);
      REQUIRE(sent.size() == recv.size());
      for (std::size_t k = 0; k < sent.size(); ++k) {
        CHECK(sent[k].segment == recv[k].segment);
        CHECK(sent[k].batch == recv[k].batch);
        CHECK(sent[k].col_piece == recv[k].col_piece);
        CHECK(sent[k].row_piece == recv[k].row_piece);
      }
      // Messages: one per (peer, batch), same element counts on both sides.
      std::vector<std::pair<index_t, index_t>> ms, mr;
      for (const Message& m : plans[a].send.messages)
        if (m.peer == b) ms.push_back({m.batch, m.elements});
      for (const Message& m : plans[b].recv.messages)
        if (m.peer == a) mr.push_back({m.batch, m.elements});
      CHECK(ms == mr);
    }

  // Received and local segments partition the region; every segment maps source to target
  // by the region's shift, lies inside its tiles, and is owned by the right ranks.
  const Region& r = c.region;
  std::vector<int> cover(static_cast<std::size_t>(r.extent.size()), 0);
  PlanStats total;
  for (int rank = 0; rank < c.np; ++rank) {
    const ReferencePlan& p = plans[rank];
    const auto visit = [&](const PlannedSegment& ps, int src_owner) {
      const Segment& s = ps.segment;
      CHECK(c.dst.owner(s.dst_tile) == rank);
      CHECK(c.src.owner(s.src_tile) == src_owner);
      CHECK(ps.batch >= 0);
      CHECK(ps.batch < p.batches);
      const ElementIndex so = tile_origin(c.src.shape(), s.src_tile);
      const ElementIndex dO = tile_origin(c.dst.shape(), s.dst_tile);
      CHECK(s.src_offset.i + s.extent.rows <= tile_extents(c.src.shape(), s.src_tile).rows);
      CHECK(s.src_offset.j + s.extent.cols <= tile_extents(c.src.shape(), s.src_tile).cols);
      CHECK(s.dst_offset.i + s.extent.rows <= tile_extents(c.dst.shape(), s.dst_tile).rows);
      CHECK(s.dst_offset.j + s.extent.cols <= tile_extents(c.dst.shape(), s.dst_tile).cols);
      const index_t di = dO.i + s.dst_offset.i, dj = dO.j + s.dst_offset.j;
      CHECK(so.i + s.src_offset.i - di == r.src_origin.i - r.dst_origin.i);
      CHECK(so.j + s.src_offset.j - dj == r.src_origin.j - r.dst_origin.j);
      for (index_t j = 0; j < s.extent.cols; ++j)
        for (index_t i = 0; i < s.extent.rows; ++i) {
          const index_t li = di + i - r.dst_origin.i, lj = dj + j - r.dst_origin.j;
          REQUIRE(li >= 0);
          REQUIRE(li < r.extent.rows);
          REQUIRE(lj >= 0);
          REQUIRE(lj < r.extent.cols);
          cover[static_cast<std::size_t>(li + lj * r.extent.rows)] += 1;
        }
    };
    for (const auto& ps : p.recv.segments) visit(ps, ps.peer);
    for (const auto& ps : p.local) visit(ps, rank);
    for (const auto& ps : p.send.segments) {
      CHECK(c.src.owner(ps.segment.src_tile) == rank);
      CHECK(c.dst.owner(ps.segment.dst_tile) == ps.peer);
    }
    // Buffer layout: messages of a batch back to back; in a message, every element of every
    // segment (at buffer_offset + i + j * buffer_ld) has its own place, and together they
    // fill the message's range exactly.
    for (const Direction* d : {&p.send, &p.recv}) {
      index_t elements = 0;
      for (const Message& m : d->messages) {
        std::vector<int> hit(static_cast<std::size_t>(m.elements), 0);
        for (index_t s = m.first; s < m.first + m.count; ++s) {
          const auto& ps = d->segments[static_cast<std::size_t>(s)];
          CHECK(ps.peer == m.peer);
          CHECK(ps.batch == m.batch);
          CHECK(ps.buffer_ld >= ps.segment.extent.rows);
          for (index_t j = 0; j < ps.segment.extent.cols; ++j)
            for (index_t i = 0; i < ps.segment.extent.rows; ++i) {
              const index_t at = ps.buffer_offset - m.buffer_offset + i + j * ps.buffer_ld;
              REQUIRE(at >= 0);
              REQUIRE(at < m.elements);
              hit[static_cast<std::size_t>(at)] += 1;
            }
        }
        CHECK(std::count(hit.begin(), hit.end(), 1) == m.elements);
        CHECK(m.buffer_offset + m.elements <= d->batch_elements[static_cast<std::size_t>(m.batch)]);
        elements += m.elements;
      }
      CHECK(elements == d->elements);
    }
    const PlanStats& s = p.stats;
    total.elements_sent += s.elements_sent;
    total.elements_received += s.elements_received;
    total.elements_local += s.elements_local;
    total.messages_sent += s.messages_sent;
    total.messages_received += s.messages_received;
    total.segments_sent += s.segments_sent;
    total.segments_received += s.segments_received;
    total.dst_tiles += s.dst_tiles;
    index_t cats = 0;
    for (std::size_t k = 0; k < 9; ++k) {
      total.categories[k] += s.categories[k];
      cats += s.categories[k];
    }
    CHECK(cats == s.dst_tiles);
    CHECK(s.segments_received == static_cast<index_t>(p.recv.segments.size()));
    CHECK(s.segments_local == static_cast<index_t>(p.local.size()));
    // All ranks agree on the batching.
    CHECK(p.batch == plans[0].batch);
    CHECK(p.batches == plans[0].batches);
  }
  for (int v : cover) CHECK(v == 1);
  CHECK(total.elements_sent == total.elements_received);
  CHECK(total.elements_received + total.elements_local == r.extent.size());
  CHECK(total.messages_sent == total.messages_received);
  CHECK(total.segments_sent == total.segments_received);

  // The categories agree with the pure geometry, tile by tile.
  std::array<index_t, 9> want{};
  index_t touched = 0;
  if (!r.empty())
    for (index_t n = 0; n < c.dst.tiles().cols; ++n)
      for (index_t m = 0; m < c.dst.tiles().rows; ++m) {
        const index_t kr =
            piece_count(c.src.shape().rows(), c.dst.shape().rows(), r.axis<Axis::row>(), m);
        const index_t kc =
            piece_count(c.src.shape().cols(), c.dst.shape().cols(), r.axis<Axis::col>(), n);
        if (kr == 0 || kc == 0) continue;
        ++touched;
        want[static_cast<std::size_t>(category_of(kr, kc))] += 1;
      }
  CHECK(total.dst_tiles == touched);
  CHECK(total.categories == want);
}

TEST_CASE("reference plan: random configurations on virtual communicators") {
  Rng g(0x5eed);
  for (int k = 0; k < 300; ++k) {
    const Config c = random_config(g);
    CAPTURE(k);
    CAPTURE(c.np);
    CAPTURE(c.region.extent);
    check_config(c);
  }
}

TEST_CASE(
    "reference plan: batch = 1 gives one batch per touched source tile column, both sides agree") {
  const Layout src{Tiling{UniformAxis<>(30, 4), UniformAxis<>(30, 3)}, BlockCyclic(2, 2)};
  const Layout dst{Tiling{UniformAxis<>(30, 7), UniformAxis<>(30, 7)}, BlockCyclic(1, 4)};
  const Region r{{20, 20}, {5, 4}, {1, 2}};  // source columns 4..23: tiles 1..7
  PlanOptions o;
  o.batch = 1;
  for (int rank = 0; rank < 4; ++rank) {
    const ReferencePlan p = make_reference_plan(src, dst, r, rank, 4, o);
    CHECK(p.batches == 7);
    for (const auto& ps : p.recv.segments) CHECK(ps.batch == ps.segment.src_tile.n - 1);
    for (const auto& ps : p.send.segments) CHECK(ps.batch == ps.segment.src_tile.n - 1);
  }
}

/// BlockCyclic that counts what the planner asks of it: owner() calls and the tiles its
/// for_each_owned lists. The planner takes the same paths as with BlockCyclic itself.
class CountingBlockCyclic : public BlockCyclic {
 public:
  struct Counts {
    index_t owner = 0;   ///< owner() calls
    index_t listed = 0;  ///< tiles for_each_owned handed out
  };
  CountingBlockCyclic(const BlockCyclic& d, Counts* counts) : BlockCyclic(d), counts_(counts) {}
  int owner(TileIndex t) const {
    ++counts_->owner;
    return BlockCyclic::owner(t);
  }
  template <class F>
  void for_each_owned(int rank, TileBox box, F&& f) const {
    BlockCyclic::for_each_owned(rank, box, [&](TileIndex t) {
      ++counts_->listed;
      f(t);
    });
  }

 private:
  Counts* counts_;
};

TEST_CASE(
    "reference plan: block-cyclic planning is O(own tiles): 10^6 x 10^6, 64 x 64 tiles, 16384 "
    "ranks") {
  const index_t N = 1000000;
  const BlockCyclic src_grid(128, 128), dst_grid(64, 256);
  CountingBlockCyclic::Counts src_asked, dst_asked;
  const Layout src{Tiling{UniformAxis<>(N, 64), UniformAxis<>(N, 64)},
                   CountingBlockCyclic(src_grid, &src_asked)};
  const Layout dst{Tiling{UniformAxis<>(N, 100), UniformAxis<>(N, 80)},
                   CountingBlockCyclic(dst_grid, &dst_asked)};
  static_assert(EnumeratesOwnedTiles<CountingBlockCyclic> && OwnersInRange<CountingBlockCyclic>);
  const index_t global_tiles = src.tiles().size();  // 15625^2, about 2.4e8
  for (int rank : {0, 12345, 16383}) {
    src_asked = dst_asked = {};
    const auto t0 = std::chrono::steady_clock::now();
    const ReferencePlan p = make_reference_plan(src, dst, Region::whole({N, N}), rank, 16384);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CAPTURE(rank);
    CAPTURE(seconds);  // context only: the work is asserted below
    // Own tiles: about 15625^2 / 16384 source tiles and 10^4 x 12500 / 16384 target tiles.
    index_t own_src = 0;
    for_each_owned_tile(src_grid, rank, src.all_tiles(), [&](TileIndex) { ++own_src; });
    const index_t own_dst = p.stats.dst_tiles;
    CHECK(own_src > 14000);
    CHECK(own_dst > 7000);
    // A 100 x 80 target tile meets at most 3 x 3 source tiles of 64 x 64; a source tile
    // meets at most 2 x 2 target tiles.
    CHECK(p.stats.segments_received + p.stats.segments_local <= 9 * own_dst);
    CHECK(p.stats.segments_sent <= 4 * own_src);
    CHECK(p.stats.segments_received + p.stats.segments_local >= own_dst);
    // The work: the planner lists this rank's tiles and nothing else, and asks for an
    // owner once per own tile and once per segment of it (<= 9 per target tile, <= 4 per
    // source tile); a scan of the tile box would ask about 2.4e8 times.
    CHECK(dst_asked.listed == own_dst);
    CHECK(src_asked.listed == own_src);
    CHECK(src_asked.owner + dst_asked.owner <= 10 * own_dst + 5 * own_src);
    // Memory far below anything proportional to the global tile count.
    CHECK(p.memory_bytes() < static_cast<std::size_t>(global_tiles) / 4);  // < 1/4 byte per tile
  }
}

}  // namespace
