// PlanOptions::max_buffer_bytes as a hard cap (plan/batch_budget.hpp, issue 10): on random
// layouts (irregular tiles, block-cyclic and random owners, displaced regions, 1..4 ranks,
// several element sizes) every rank's send + receive buffer of every batch fits the budget,
// checked against an element-by-element count independent of the planner; every rank and
// both planners agree on the batches; the plan moves exactly what the unbudgeted plan moves;
// batches are as wide as the budget allows (whole source tile columns where possible, cut
// inside one only when it alone exceeds the budget); a budget below one column of the
// busiest rank throws, naming that minimum, and the minimum itself works; a rank whose exact
// send + receive fits the budget settles one batch without a walk over the columns; with
// uniform tiles and block-cyclic grids the packer takes whole lcm periods at once and cuts
// exactly where the walk piece by piece does.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/batch_budget.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::Rng;
using Shape = Tiling<IrregularAxis, IrregularAxis>;
constexpr index_t unlimited = std::numeric_limits<index_t>::max();

template <class SD, class DD>
struct Config {
  Layout<Shape, SD> src;
  Layout<Shape, DD> dst;
  Region region;
  int np;
  index_t element_bytes;
};

template <class D>
D random_distribution(Rng& g, int np);
template <>
BlockCyclic random_distribution<BlockCyclic>(Rng& g, int np) {
  return random_block_cyclic(g, np);
}
template <>
RandomDistribution random_distribution<RandomDistribution>(Rng& g, int np) {
  return RandomDistribution(static_cast<int>(g.in(1, np)), g.engine());
}

template <class SD, class DD>
Config<SD, DD> random_config(Rng& g) {
  const int np = static_cast<int>(g.in(1, 4));
  const index_t sm = g.in(1, 40), sn = g.in(1, 40), dm = g.in(1, 40), dn = g.in(1, 40);
  const index_t wide = g.chance(30) ? 20 : 6;
  Layout<Shape, SD> src{Shape{random_axis(g, sm, {0, 6}), random_axis(g, sn, {0, wide})},
                        random_distribution<SD>(g, np)};
  Layout<Shape, DD> dst{Shape{random_axis(g, dm, {0, 6}), random_axis(g, dn, {0, 6})},
                        random_distribution<DD>(g, np)};
  const index_t rows = g.in(1, std::min(sm, dm)), cols = g.in(1, std::min(sn, dn));
  const Region r{{rows, cols},
                 {g.in(0, sm - rows), g.in(0, sn - cols)},
                 {g.in(0, dm - rows), g.in(0, dn - cols)}};
  const index_t sizes[] = {1, 4, 8, 16};
  return {std::move(src), std::move(dst), r, np, sizes[g.in(0, 3)]};
}

/// loads[j][rank]: send + receive elements of `rank` in region column j, element by element.
template <class SD, class DD>
std::vector<std::vector<index_t>> column_loads(const Config<SD, DD>& c) {
  const Region& r = c.region;
  std::vector<std::vector<index_t>> loads(static_cast<std::size_t>(r.extent.cols),
                                          std::vector<index_t>(static_cast<std::size_t>(c.np), 0));
  for (index_t j = 0; j < r.extent.cols; ++j)
    for (index_t i = 0; i < r.extent.rows; ++i) {
      const TileIndex y{c.src.shape().rows().tile_of(r.src_origin.i + i),
                        c.src.shape().cols().tile_of(r.src_origin.j + j)};
      const TileIndex t{c.dst.shape().rows().tile_of(r.dst_origin.i + i),
                        c.dst.shape().cols().tile_of(r.dst_origin.j + j)};
      const int s = c.src.owner(y), d = c.dst.owner(t);
      if (s == d) continue;
      loads[static_cast<std::size_t>(j)][static_cast<std::size_t>(s)] += 1;
      loads[static_cast<std::size_t>(j)][static_cast<std::size_t>(d)] += 1;
    }
  return loads;
}

/// The busiest rank's elements over region columns [begin, end).
index_t busiest(const std::vector<std::vector<index_t>>& loads, index_t begin, index_t end) {
  index_t most = 0;
  for (std::size_t rank = 0; rank < (loads.empty() ? 0 : loads[0].size()); ++rank) {
    index_t n = 0;
    for (index_t j = begin; j < end; ++j) n += loads[static_cast<std::size_t>(j)][rank];
    most = std::max(most, n);
  }
  return most;
}

struct Moved {
  std::map<std::pair<int, int>, index_t> between;  // (sender, receiver) -> elements
  std::vector<index_t> local;
  bool operator==(const Moved&) const = default;
};

template <class SD, class DD>
Moved moved_by(const Config<SD, DD>& c, const PlanOptions& o) {
  Moved m;
  for (int rank = 0; rank < c.np; ++rank) {
    const ReferencePlan p = make_reference_plan(c.src, c.dst, c.region, rank, c.np, o);
    for (const Message& msg : p.send.messages) m.between[{rank, msg.peer}] += msg.elements;
    m.local.push_back(p.stats.elements_local);
  }
  return m;
}

/// Everything this file asserts of one configuration and budget.
template <class SD, class DD>
void check_budget(const Config<SD, DD>& c, const std::vector<std::vector<index_t>>& loads,
                  index_t budget, const Moved& unbudgeted) {
  const Region& r = c.region;
  PlanOptions o;
  o.element_bytes = c.element_bytes;
  o.max_buffer_bytes = budget;
  CAPTURE(budget);
  std::vector<index_t> columns;
  index_t batch = -1;
  std::vector<int> covered(static_cast<std::size_t>(r.extent.size()), 0);
  for (int rank = 0; rank < c.np; ++rank) {
    CAPTURE(rank);
    const ReferencePlan p = make_reference_plan(c.src, c.dst, r, rank, c.np, o);
    const Plan cp = make_plan(c.src, c.dst, r, rank, c.np, o);
    // The cap, on this rank's plan from both planners.
    CHECK(p.stats.buffer_elements * c.element_bytes <= budget);
    CHECK(cp.stats.buffer_elements == p.stats.buffer_elements);
    // Every rank and both planners: the same batches.
    if (rank == 0) {
      columns = p.batch_columns;
      batch = p.batch;
    }
    CHECK(p.batch_columns == columns);
    CHECK(cp.batch_columns == columns);
    CHECK(p.batch == batch);
    CHECK(cp.batch == batch);
    CHECK(cp.batches == p.batches);
    CHECK(cp.stats.segments_sent == p.stats.segments_sent);
    CHECK(cp.stats.segments_received == p.stats.segments_received);
    CHECK(cp.stats.segments_local == p.stats.segments_local);
    CHECK(cp.stats.messages_sent == p.stats.messages_sent);
    // Every segment lies in its batch's columns; received and local ones cover the region.
    const auto in_batch = [&](const PlannedSegment& ps) {
      const index_t j = c.dst.shape().cols().begin(ps.segment.dst_tile.n) +
                        ps.segment.dst_offset.j - r.dst_origin.j;
      REQUIRE(ps.batch >= 0);
      REQUIRE(ps.batch < p.batches);
      CHECK(p.batch_columns[static_cast<std::size_t>(ps.batch)] <= j);
      CHECK(j + ps.segment.extent.cols <= p.batch_columns[static_cast<std::size_t>(ps.batch) + 1]);
      const index_t i = c.dst.shape().rows().begin(ps.segment.dst_tile.m) +
                        ps.segment.dst_offset.i - r.dst_origin.i;
      for (index_t b = 0; b < ps.segment.extent.cols; ++b)
        for (index_t a = 0; a < ps.segment.extent.rows; ++a)
          covered[static_cast<std::size_t>(i + a + (j + b) * r.extent.rows)] += 1;
    };
    for (const PlannedSegment& ps : p.recv.segments) in_batch(ps);
    for (const PlannedSegment& ps : p.local) in_batch(ps);
    // The plan's column members too.
    for (const FamilyList* d : {&cp.send, &cp.recv, &cp.local})
      for (const Message& m : d->messages)
        for (index_t f = m.first; f < m.first + m.count; ++f) {
          const PieceGroup cols = cp.cols(d->families[static_cast<std::size_t>(f)]);
          for (index_t t = 0; t < cols.count; ++t) {
            const index_t j = cols.dst_start + t * cols.stride - r.dst_origin.j;
            CHECK(cp.batch_columns[static_cast<std::size_t>(m.batch)] <= j);
            CHECK(j + cols.length <= cp.batch_columns[static_cast<std::size_t>(m.batch) + 1]);
          }
        }
  }
  for (const int v : covered) CHECK(v == 1);
  CHECK(moved_by(c, o) == unbudgeted);

  // The batches against the element-by-element loads.
  REQUIRE(columns.size() >= 2);
  CHECK(columns.front() == 0);
  CHECK(columns.back() == r.extent.cols);
  const auto& sc = c.src.shape().cols();
  const auto tile_columns = [&](index_t j) {  // region columns of j's source tile column
    const index_t n = sc.tile_of(r.src_origin.j + j);
    return std::pair<index_t, index_t>{std::max<index_t>(sc.begin(n) - r.src_origin.j, 0),
                                       std::min(sc.begin(n + 1) - r.src_origin.j, r.extent.cols)};
  };
  for (std::size_t k = 0; k + 1 < columns.size(); ++k) {
    CAPTURE(k);
    CHECK(columns[k] < columns[k + 1]);
    CHECK(busiest(loads, columns[k], columns[k + 1]) * c.element_bytes <= budget);
    if (k + 2 == columns.size()) break;
    // As wide as fits: one more source tile column (one more element column where the cut
    // is inside a tile) would exceed the budget.
    const index_t cut = columns[k + 1];
    const auto [t0, t1] = tile_columns(cut);
    const index_t more = t0 == cut ? t1 : cut + 1;
    CHECK(busiest(loads, columns[k], more) * c.element_bytes > budget);
    // A cut inside a source tile column only where that column alone exceeds the budget.
    if (t0 != cut) CHECK(busiest(loads, t0, t1) * c.element_bytes > budget);
  }
}

template <class SD, class DD>
void run_random(std::uint64_t seed, int count) {
  Rng g(seed);
  int split = 0, several = 0, thrown = 0;
  for (int k = 0; k < count; ++k) {
    const Config<SD, DD> c = random_config<SD, DD>(g);
    CAPTURE(k);
    CAPTURE(c.np);
    CAPTURE(c.region.extent);
    CAPTURE(c.element_bytes);
    const auto loads = column_loads(c);
    index_t minimum = 0;  // one region column of the busiest rank, in bytes
    for (index_t j = 0; j < c.region.extent.cols; ++j)
      minimum = std::max(minimum, busiest(loads, j, j + 1) * c.element_bytes);
    PlanOptions o;
    o.element_bytes = c.element_bytes;
    o.max_buffer_bytes = unlimited;
    const Moved unbudgeted = moved_by(c, o);
    const index_t whole = busiest(loads, 0, c.region.extent.cols) * c.element_bytes;
    for (const index_t budget : {minimum, minimum + g.in(0, 3 * c.element_bytes),
                                 minimum + (whole - minimum) / 2, whole}) {
      check_budget(c, loads, budget, unbudgeted);
      o.max_buffer_bytes = budget;
      const ReferencePlan p = make_reference_plan(c.src, c.dst, c.region, 0, c.np, o);
      several += p.batches > 1;
      const auto& sc = c.src.shape().cols();
      for (const index_t col : p.batch_columns)
        split += col < c.region.extent.cols &&
                 sc.begin(sc.tile_of(c.region.src_origin.j + col)) != c.region.src_origin.j + col;
    }
    // The whole load of the busiest rank fits: one batch.
    if (whole > 0) {
      o.max_buffer_bytes = whole;
      CHECK(make_reference_plan(c.src, c.dst, c.region, 0, c.np, o).batches == 1);
    }
    // Below the minimum: every rank, both planners, the same error naming the minimum.
    if (minimum > 0) {
      o.max_buffer_bytes = minimum - 1;
      const std::string want = "redist: max_buffer_bytes is below the feasible minimum of " +
                               std::to_string(minimum) +
                               " bytes (send + receive of one region column on the busiest "
                               "rank): max_buffer_bytes = " +
                               std::to_string(minimum - 1);
      for (int rank = 0; rank < c.np; ++rank) {
        CHECK(test::message_of<invalid_argument>(
                  [&] { make_reference_plan(c.src, c.dst, c.region, rank, c.np, o); }) == want);
        CHECK(test::message_of<invalid_argument>(
                  [&] { make_plan(c.src, c.dst, c.region, rank, c.np, o); }) == want);
      }
      ++thrown;
    }
  }
  MESSAGE(several, " budgets gave several batches, ", split, " cuts inside a source tile column, ",
          thrown, " configurations with a minimum to undercut");
  CHECK(several > count / 2);
  CHECK(split > count / 10);
  CHECK(thrown > count / 2);
}

TEST_CASE("batch budget: block-cyclic both sides (per-class loads), random layouts") {
  run_random<BlockCyclic, BlockCyclic>(0xB0D6E7, 150);
}

TEST_CASE("batch budget: random owners and mixed pairs (per-tile loads)") {
  run_random<RandomDistribution, RandomDistribution>(0xB0D6E8, 100);
  run_random<BlockCyclic, RandomDistribution>(0xB0D6E9, 60);
  run_random<RandomDistribution, BlockCyclic>(0xB0D6EA, 60);
}

TEST_CASE("batch budget: the worked example of plan/batch_budget.hpp") {
  // 4 x 4, 1 x 1 tiles, 1 x 2 -> 2 x 1 grids: 2 elements per column on both ranks.
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const Layout src{U{UniformAxis<>(4, 1), UniformAxis<>(4, 1)}, BlockCyclic(1, 2)};
  const Layout dst{U{UniformAxis<>(4, 1), UniformAxis<>(4, 1)}, BlockCyclic(2, 1)};
  const Region r = Region::whole({4, 4});
  PlanOptions o;
  o.max_buffer_bytes = 48;
  for (int rank : {0, 1}) {
    const Plan p = make_plan(src, dst, r, rank, 2, o);
    CHECK(p.batch_columns == std::vector<index_t>{0, 3, 4});
    CHECK(p.batch == 0);  // widths vary
    CHECK(p.stats.buffer_elements == 6);
  }
  o.max_buffer_bytes = 8;
  CHECK(test::message_of<invalid_argument>([&] { make_reference_plan(src, dst, r, 1, 2, o); }) ==
        "redist: max_buffer_bytes is below the feasible minimum of 16 bytes (send + receive "
        "of one region column on the busiest rank): max_buffer_bytes = 8");
}

TEST_CASE("batch budget: batch_bytes is a target below the cap, never refused") {
  // The worked example's layouts: every column puts 2 elements (16 bytes) on both ranks.
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const Layout src{U{UniformAxis<>(4, 1), UniformAxis<>(4, 1)}, BlockCyclic(1, 2)};
  const Layout dst{U{UniformAxis<>(4, 1), UniformAxis<>(4, 1)}, BlockCyclic(2, 1)};
  const Region r = Region::whole({4, 4});
  const auto columns = [&](const PlanOptions& o) {
    const std::vector<index_t> c = make_plan(src, dst, r, 1, 2, o).batch_columns;
    CHECK(make_reference_plan(src, dst, r, 0, 2, o).batch_columns == c);
    return c;
  };
  PlanOptions o;
  CHECK(o.batch_bytes == PlanOptions::automatic);
  CHECK(columns(o) == std::vector<index_t>{0, 4});  // 64 MiB: the 128 bytes fit
  o.batch_bytes = 48;
  CHECK(columns(o) == std::vector<index_t>{0, 3, 4});  // as a cap of 48 would cut
  CHECK(make_plan(src, dst, r, 0, 2, o).stats.buffer_elements == 6);
  o.batch_bytes = 8;  // below one column: not used, and not refused
  CHECK(columns(o) == std::vector<index_t>{0, 4});
  o.max_buffer_bytes = 48;  // then the cap cuts as before
  CHECK(columns(o) == std::vector<index_t>{0, 3, 4});
  o.batch_bytes = 1 << 20;  // above the cap: the cap
  CHECK(columns(o) == std::vector<index_t>{0, 3, 4});
  o.max_buffer_bytes = PlanOptions{}.max_buffer_bytes;
  o.batch_bytes = 0;  // off
  CHECK(columns(o) == std::vector<index_t>{0, 4});
  o.batch_bytes = 32;
  o.batch = 1;  // an explicit batch ignores both
  CHECK(columns(o) == std::vector<index_t>{0, 1, 2, 3, 4});
}

TEST_CASE("batch budget: automatic batches of 64 MiB at 8192^2, 1 x 1 tiles") {
  // Every rank sends and receives 256 MiB over the region: 4 batches of 64 MiB, where the
  // 1 GiB cap alone makes one.
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const index_t n = 8192;
  const Layout src{U{UniformAxis<>(n, 1), UniformAxis<>(n, 1)}, BlockCyclic(1, 2)};
  const Layout dst{U{UniformAxis<>(n, 1), UniformAxis<>(n, 1)}, BlockCyclic(2, 1)};
  const Region r = Region::whole({n, n});
  PlanOptions o;
  for (int rank : {0, 1}) {
    const Plan p = make_plan(src, dst, r, rank, 2, o);
    CHECK(p.batches == 4);
    CHECK(p.stats.buffer_elements * 8 <= PlanOptions::host_batch_bytes);
    CHECK(p.stats.buffer_elements * 8 > PlanOptions::host_batch_bytes / 2);
  }
  o.batch_bytes = 0;
  CHECK(make_plan(src, dst, r, 0, 2, o).batches == 1);
  // A target that would make 64 batches is scaled to make 16: 16 MiB each.
  o.batch_bytes = 4 << 20;
  const Plan scaled = make_plan(src, dst, r, 1, 2, o);
  CHECK(scaled.batches == detail::target_batches);
  CHECK(scaled.stats.buffer_elements * 8 <= 16 << 20);
}

TEST_CASE("batch budget: an explicit batch keeps its meaning and ignores the budget") {
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const Layout src{U{UniformAxis<>(30, 4), UniformAxis<>(30, 3)}, BlockCyclic(2, 2)};
  const Layout dst{U{UniformAxis<>(30, 7), UniformAxis<>(30, 7)}, BlockCyclic(1, 4)};
  const Region r{{20, 20}, {5, 4}, {1, 2}};  // source columns 4..23: tiles 1..7
  PlanOptions o;
  o.batch = 3;
  o.max_buffer_bytes = 1;  // far below any column: not used
  for (int rank = 0; rank < 4; ++rank) {
    const ReferencePlan p = make_reference_plan(src, dst, r, rank, 4, o);
    CHECK(p.batch == 3);
    CHECK(p.batches == 3);
    // Tiles 1-3, 4-6, 7: source columns 3, 12, 21 begin them.
    CHECK(p.batch_columns == std::vector<index_t>{0, 12 - 4, 21 - 4, 20});
    CHECK(make_plan(src, dst, r, rank, 4, o).batch_columns == p.batch_columns);
  }
}

TEST_CASE("batch budget: the whole region within the budget is one batch") {
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const Layout src{U{UniformAxis<>(50, 4), UniformAxis<>(60, 3)}, BlockCyclic(2, 2)};
  const Layout dst{U{UniformAxis<>(50, 7), UniformAxis<>(60, 5)}, BlockCyclic(1, 4)};
  const Region r{{40, 50}, {5, 4}, {1, 2}};
  PlanOptions o;
  o.max_buffer_bytes = 40 * 50 * 8;  // the region's bytes
  for (int rank = 0; rank < 4; ++rank) {
    const Plan p = make_plan(src, dst, r, rank, 4, o);
    CHECK(p.batches == 1);
    CHECK(p.batch_columns == std::vector<index_t>{0, 50});
    CHECK(p.batch == 17);  // source tile columns 1..17
  }
}

TEST_CASE("batch budget: one wide source tile column cut into batches, groups kept compact") {
  // One source tile column of 600 columns over 4 ranks; target 2 x 2 with 10 x 10 tiles.
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const index_t N = 600;
  const Layout src{U{UniformAxis<>(N, 50), UniformAxis<>(N, N)}, BlockCyclic(4, 1)};
  const Layout dst{U{UniformAxis<>(N, 10), UniformAxis<>(N, 10)}, BlockCyclic(2, 2)};
  const Region r = Region::whole({N, N});
  PlanOptions o;
  o.max_buffer_bytes = 1 << 20;
  index_t sent = 0, received = 0;
  for (int rank = 0; rank < 4; ++rank) {
    CAPTURE(rank);
    const auto t0 = std::chrono::steady_clock::now();
    const Plan cp = make_plan(src, dst, r, rank, 4, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const ReferencePlan p = make_reference_plan(src, dst, r, rank, 4, o);
    MESSAGE("600^2, one source tile column, rank ", rank, ": ", s * 1e3, " ms, ", cp.batches,
            " batches, ", cp.col_groups.size(), " column groups, buffer ",
            cp.stats.buffer_elements * 8, " bytes, ", cp.scanned_tiles, " tiles scanned");
    // The work, not the time: each axis's target tiles scanned once (60 + 60), not once
    // per batch.
    CHECK(cp.scanned_tiles <= 2 * (60 + 60));
    CHECK(cp.batches > 1);
    CHECK(cp.stats.buffer_elements * 8 <= o.max_buffer_bytes);
    CHECK(cp.stats.buffer_elements == p.stats.buffer_elements);
    CHECK(cp.stats.segments_sent == p.stats.segments_sent);
    CHECK(cp.stats.segments_received == p.stats.segments_received);
    CHECK(cp.batch_columns == p.batch_columns);
    // Only pieces that a cut falls into add column groups: two parts each.
    const Plan whole = make_plan(src, dst, r, rank, 4);
    CHECK(whole.batches == 1);
    CHECK(cp.col_groups.size() <=
          whole.col_groups.size() + 2 * static_cast<std::size_t>(cp.batches - 1));
    CHECK(cp.row_groups.size() == whole.row_groups.size());
    sent += cp.stats.elements_sent;
    received += cp.stats.elements_received;
  }
  CHECK(sent == received);
}

TEST_CASE("batch budget: 2000^2, 1x1 tiles, small budget: cheap and within the cap") {
  using U = Tiling<UniformAxis<>, UniformAxis<>>;
  const index_t N = 2000;
  const Layout src{U{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(1, 2)};
  const Layout dst{U{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(2, 1)};
  PlanOptions o;
  o.max_buffer_bytes = 1 << 20;
  for (int rank : {0, 1}) {
    const auto t0 = std::chrono::steady_clock::now();
    const Plan p = make_plan(src, dst, Region::whole({N, N}), rank, 2, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("2000^2 1x1 budget 1 MiB rank ", rank, ": ", s * 1e3, " ms, ", p.batches, " batches, ",
            p.scanned_tiles, " tiles scanned");
    // The work, not the time: the lcm period of each axis, not its 2000 tiles.
    CHECK(p.scanned_tiles <= 2 * (2 * 2 + 2));
    // 1000 elements per column on each rank: 131 columns per batch.
    CHECK(p.stats.buffer_elements * 8 <= o.max_buffer_bytes);
    CHECK(p.batches == (N + 130) / 131);
  }
}

TEST_CASE("batch budget: a rank's exact send + receive within the budget settles one batch") {
  // 1x1 tiles, 1x2 -> 2x1 on 2 ranks, 64^2 doubles: each rank holds 2 x 2048 elements and
  // sends + receives 2 x 1024. Budgets from that load up need no walk over the columns;
  // one element below it, the packer walks the 64 column pieces and cuts two batches.
  const index_t N = 64;
  const Layout src{test::uniform(N, N, 1, 1), BlockCyclic(1, 2)};
  const Layout dst{test::uniform(N, N, 1, 1), BlockCyclic(2, 1)};
  PlanOptions o;
  o.element_bytes = 8;
  o.max_buffer_bytes = 2 * 1024 * 8;
  const Plan p = make_plan(src, dst, Region::whole({N, N}), 0, 2, o);
  CHECK(p.batches == 1);
  CHECK(p.packed_pieces == 0);
  CHECK(p.stats.buffer_elements == 2 * 1024);
  o.max_buffer_bytes -= 8;
  const Plan cut = make_plan(src, dst, Region::whole({N, N}), 0, 2, o);
  CHECK(cut.batches == 2);
  // The first target tile, one period of 2 columns, then 30 periods at once; the last tile.
  CHECK(cut.packed_pieces == 4);
  CHECK(make_reference_plan(src, dst, Region::whole({N, N}), 0, 2, o).batch_columns ==
        cut.batch_columns);
}

TEST_CASE("batch budget: whole lcm periods at once cut where the walk piece by piece cuts") {
  // The grid path (GridLoads::pack, which takes whole periods) against the per-tile path
  // (pack_tiles, which walks every piece) on the same uniform block-cyclic layouts.
  Rng g(20261128);
  index_t walked_pieces = 0, jumped_pieces = 0, took_periods = 0;
  for (int trial = 0; trial < 600; ++trial) {
    CAPTURE(trial);
    const int np = static_cast<int>(g.in(1, 4));
    const index_t m = g.in(1, 12), n = g.in(1, 1500);
    const test::BlockCyclicDraw draw{3, true, 0};
    const Layout src{test::uniform(m, n, g.in(1, 4), g.in(1, 6)),
                     test::random_block_cyclic(g, np, draw)};
    const Layout dst{test::uniform(m, n, g.in(1, 4), g.in(1, 6)),
                     test::random_block_cyclic(g, np, draw)};
    const index_t rows = g.in(1, m), cols = g.in(1, n);
    const Region r{{rows, cols},
                   {g.in(0, m - rows), g.in(0, n - cols)},
                   {g.in(0, m - rows), g.in(0, n - cols)}};
    CAPTURE(r.extent.cols);
    detail::BatchPacker probe(unlimited, np);
    detail::pack_tiles(src, dst, r, np, probe);
    const index_t busiest = probe.busiest();
    if (busiest == 0) continue;  // nothing moves between ranks
    // Narrow batches (a few columns) or wide ones (up to the whole region).
    const index_t cap = g.in(busiest, busiest * (g.chance(50) ? 40 : r.extent.cols));
    detail::BatchPacker walked(cap, np), jumped(cap, np);
    detail::pack_tiles(src, dst, r, np, walked);
    detail::GridLoads<decltype(src), decltype(dst)>(src, dst, r, np).pack(jumped);
    CHECK(jumped.busiest() == busiest);
    walked_pieces += walked.added();
    jumped_pieces += jumped.added();
    took_periods += jumped.added() < walked.added();
    CHECK(jumped.finish(r.extent.cols) == walked.finish(r.extent.cols));
  }
  MESSAGE("pieces walked one by one: ", jumped_pieces, " of ", walked_pieces, "; ", took_periods,
          " configurations took whole periods");
  CHECK(took_periods >= 100);  // the comparison covers the periods taken whole

  // 1 x 1 tiles, 1x2 -> 2x1, 16384 columns in 16 batches: a few pieces around each cut,
  // not 16384 of them (the sweep above checks such cuts against the walk).
  const index_t N = 16384;
  const Layout s1{test::uniform(N, N, 1, 1), BlockCyclic(1, 2)};
  const Layout d1{test::uniform(N, N, 1, 1), BlockCyclic(2, 1)};
  PlanOptions o;
  o.element_bytes = 8;
  o.batch_bytes = 0;
  o.max_buffer_bytes = N * N / 32 * 8;  // a sixteenth of a rank's N^2 / 2 send + receive
  const Plan p = make_plan(s1, d1, Region::whole({N, N}), 0, 2, o);
  CHECK(p.batches == 16);
  CHECK(p.packed_pieces <= 16 * 4 + 2);
  CHECK(p.stats.buffer_elements * 8 <= o.max_buffer_bytes);
}

}  // namespace
