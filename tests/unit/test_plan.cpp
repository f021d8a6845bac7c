// The plan that runs (plan.hpp) against the per-segment reference (plan/reference_plan.hpp),
// on every rank of virtual communicators: expanding every family moves exactly what
// make_reference_plan moves (every region element once, from the right source owner to the
// right target owner), message sizes per (sender, receiver, batch) agree, both ends list the
// same families in the same order at the same buffer offsets, statistics are equal, and errors
// are the same. Then the per-axis compression (the worked example of plan/axis_groups.hpp, the
// lcm period) and the scale cases of issue 9 (2000^2 and 10^6^2 with 1x1 tiles, 4000^2 4x4 ->
// 5x5).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include <redist/axis_cut.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/axis_groups.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "../support/plan_checks.hpp"
#include "unit_test_support.hpp"

namespace {

using namespace redist;
using redist::test::check_stats;
using test::Rng;

std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A user grid distribution: scattered grid rows and columns, no period, several grid
/// coordinates per rank, and (when `bad` >= 0) coordinate `bad` mapped outside the ranks.
/// Not OwnersInRange, so every owner check runs.
struct ScatteredGrid {
  int P = 1, Q = 1, nranks = 1;
  std::uint64_t seed = 0;
  int bad = -1;
  int ranks() const { return nranks; }
  Extents grid() const { return {P, Q}; }
  int grid_row(index_t m) const {
    return static_cast<int>(mix(seed ^ static_cast<std::uint64_t>(m)) % static_cast<unsigned>(P));
  }
  int grid_col(index_t n) const {
    return static_cast<int>(mix(~seed ^ static_cast<std::uint64_t>(n)) % static_cast<unsigned>(Q));
  }
  int rank_of(GridCoord g) const {
    const int k = g.p * Q + g.q;
    return k == bad ? (k % 2 ? -1 : 1 << 20) : k % nranks;
  }
  int owner(TileIndex t) const { return rank_of({grid_row(t.m), grid_col(t.n)}); }
};
static_assert(GridDistribution<ScatteredGrid> && !OwnersInRange<ScatteredGrid>);

/// Block-cyclic owners behind a type that hides the grid: takes the fallback.
struct OpaqueBlockCyclic {
  BlockCyclic bc{1, 1};
  static constexpr bool owners_in_range = true;
  int ranks() const { return bc.ranks(); }
  int owner(TileIndex t) const { return bc.owner(t); }
};
static_assert(!GridDistribution<OpaqueBlockCyclic>);

using Shape = Tiling<IrregularAxis, IrregularAxis>;
/// Uniform tiles (the last partial) 60 % of the time, else irregular with 1x1 tiles.
constexpr test::AxisDraw axes{60, 7};
/// Grids of sides up to 4, super-tiles up to 3, both grid orders.
constexpr test::BlockCyclicDraw grids{3, true, 4};

ScatteredGrid random_scattered(Rng& g, int np) {
  const auto [P, Q] = random_grid(g, np, grids.max_side);
  return ScatteredGrid{P, Q, static_cast<int>(g.in(1, std::min(np, P * Q))), g.engine(), -1};
}

template <class D>
D random_distribution(Rng& g, int np);
template <>
BlockCyclic random_distribution<BlockCyclic>(Rng& g, int np) {
  return random_block_cyclic(g, np, grids);
}
template <>
ScatteredGrid random_distribution<ScatteredGrid>(Rng& g, int np) {
  return random_scattered(g, np);
}
template <>
RandomDistribution random_distribution<RandomDistribution>(Rng& g, int np) {
  const int ranks = static_cast<int>(g.in(1, np));
  return RandomDistribution(ranks, g.engine());
}
template <>
OpaqueBlockCyclic random_distribution<OpaqueBlockCyclic>(Rng& g, int np) {
  return OpaqueBlockCyclic{random_block_cyclic(g, np, grids)};
}

template <class SD, class DD, class S = Shape>
struct Config {
  Layout<S, SD> src;
  Layout<S, DD> dst;
  Region region;
  int np;
  PlanOptions options;
};

template <class SD, class DD>
Config<SD, DD> random_config(Rng& g) {
  const int np = g.chance(85) ? static_cast<int>(g.in(1, 6)) : static_cast<int>(g.in(7, 16));
  const index_t sm = g.in(1, 48), sn = g.in(1, 48), dm = g.in(1, 48), dn = g.in(1, 48);
  Layout<Shape, SD> src{Shape{random_axis(g, sm, axes), random_axis(g, sn, axes)},
                        random_distribution<SD>(g, np)};
  Layout<Shape, DD> dst{Shape{random_axis(g, dm, axes), random_axis(g, dn, axes)},
                        random_distribution<DD>(g, np)};
  const Region r = test::random_region(g, {sm, sn}, {dm, dn});
  PlanOptions o;
  const index_t b = g.in(0, 3);
  o.batch = b == 3 ? 0 : b;
  if (g.chance(25)) o.max_buffer_bytes = 256;  // several automatic batches
  // Budgets that cut inside source tile columns, or fall below the minimum (an error).
  if (g.chance(20)) o.max_buffer_bytes = g.in(0, 600);
  return {std::move(src), std::move(dst), r, np, o};
}

using Uniform = Tiling<UniformAxis<>, UniformAxis<>>;

/// Uniform tiles and longer axes: the axis scans skip whole lcm periods.
Config<BlockCyclic, BlockCyclic, Uniform> random_uniform_config(Rng& g) {
  const int np = static_cast<int>(g.in(1, 9));
  const index_t m = g.in(60, 160), n = g.in(60, 160);
  const auto uniform = [&](index_t extent) {
    const index_t e = extent + g.in(0, 9), tile = g.in(1, 5);
    return UniformAxis<>(e, tile);
  };
  Layout<Uniform, BlockCyclic> src{Uniform{uniform(m), uniform(n)},
                                   random_block_cyclic(g, np, grids)};
  Layout<Uniform, BlockCyclic> dst{Uniform{uniform(m), uniform(n)},
                                   random_block_cyclic(g, np, grids)};
  const index_t rows = m - g.in(0, 9), cols = n - g.in(0, 9);
  const Region r{{rows, cols},
                 {g.in(0, src.extents().rows - rows), g.in(0, src.extents().cols - cols)},
                 {g.in(0, dst.extents().rows - rows), g.in(0, dst.extents().cols - cols)}};
  PlanOptions o;
  o.batch = g.in(0, 12);
  return {std::move(src), std::move(dst), r, np, o};
}

/// Every member of g is the AxisCut piece it claims to be, at the global elements it claims;
/// on the column axis (`batch_columns` given) it may be the part of that piece between
/// batch boundaries, a single member whose ends are a boundary or the piece's.
template <class SA, class TA>
void check_group(const PieceGroup& g, const AxisCut& cut, const SA& src, const TA& dst,
                 const AxisRegion& r, const std::vector<index_t>* batch_columns = nullptr) {
  REQUIRE(g.count >= 1);
  CHECK(g.src_start - g.dst_start == r.shift());
  for (index_t t = 0; t < g.count; ++t) {
    const index_t k = g.first_piece + t * g.piece_step;
    REQUIRE(k >= 0);
    REQUIRE(k < static_cast<index_t>(cut.pieces().size()));
    const Piece p = g.member(t);
    const Piece& whole = cut.piece(k);
    if (batch_columns && !(whole == p)) {
      CHECK(g.count == 1);
      CHECK(p.src_tile == whole.src_tile);
      CHECK(p.dst_tile == whole.dst_tile);
      CHECK(p.src_offset - whole.src_offset == p.dst_offset - whole.dst_offset);
      CHECK(p.src_offset >= whole.src_offset);
      CHECK(p.src_offset + p.length <= whole.src_offset + whole.length);
      const index_t j0 = dst.begin(p.dst_tile) + p.dst_offset - r.dst_origin;
      const auto boundary = [&](index_t j) {
        return std::binary_search(batch_columns->begin(), batch_columns->end(), j);
      };
      CHECK((p.dst_offset == whole.dst_offset || boundary(j0)));
      CHECK(
          (p.dst_offset + p.length == whole.dst_offset + whole.length || boundary(j0 + p.length)));
    } else {
      CHECK(whole == p);
    }
    CHECK(g.src_start + t * g.stride == src.begin(p.src_tile) + p.src_offset);
    CHECK(g.dst_start + t * g.stride == dst.begin(p.dst_tile) + p.dst_offset);
  }
}

/// A family as both ends must see it: members and offset inside its message.
struct FamilyView {
  PieceGroup rows, cols;
  index_t offset;
  friend bool operator==(const FamilyView&, const FamilyView&) = default;
};
using MessageKey = std::tuple<int, int, index_t>;  // sender, receiver, batch

struct Totals {
  index_t groups = 0, compressed = 0, families = 0, segments = 0, budget_errors = 0;
};

template <class SD, class DD, class S>
void check_config(const Config<SD, DD, S>& c, Totals& totals) {
  const Region& r = c.region;
  const auto &sr = c.src.shape().rows(), &sc = c.src.shape().cols();
  const auto &dr = c.dst.shape().rows(), &dc = c.dst.shape().cols();
  const AxisCut row_cut(sr, dr, r.axis<Axis::row>()), col_cut(sc, dc, r.axis<Axis::col>());
  std::vector<int> received(static_cast<std::size_t>(r.extent.size()), 0);
  std::vector<int> sent(received.size(), 0);
  std::map<MessageKey, index_t> want, got_sent, got_received;
  std::map<MessageKey, std::vector<FamilyView>> sent_lists, received_lists;

  // A budget below the feasible minimum: the same error on every rank from both planners.
  const std::string budget_error = test::message_of<invalid_argument>(
      [&] { make_reference_plan(c.src, c.dst, r, 0, c.np, c.options); });
  if (budget_error != "<no exception>") {
    CHECK(budget_error.find("max_buffer_bytes is below the feasible minimum") != std::string::npos);
    for (int rank = 0; rank < c.np; ++rank) {
      CHECK(test::message_of<invalid_argument>([&] {
              make_reference_plan(c.src, c.dst, r, rank, c.np, c.options);
            }) == budget_error);
      CHECK(test::message_of<invalid_argument>(
                [&] { make_plan(c.src, c.dst, r, rank, c.np, c.options); }) == budget_error);
    }
    totals.budget_errors += 1;
    return;
  }
  const std::vector<index_t> batch_columns =
      make_reference_plan(c.src, c.dst, r, 0, c.np, c.options).batch_columns;

  for (int rank = 0; rank < c.np; ++rank) {
    CAPTURE(rank);
    const ReferencePlan p = make_reference_plan(c.src, c.dst, r, rank, c.np, c.options);
    const Plan cp = make_plan(c.src, c.dst, r, rank, c.np, c.options);
    CHECK(cp.per_axis == (GridDistribution<SD> && GridDistribution<DD>));
    CHECK(cp.batch == p.batch);
    CHECK(cp.batches == p.batches);
    CHECK(cp.batch_columns == p.batch_columns);
    CHECK(p.batch_columns == batch_columns);  // every rank's
    if (c.options.batch == 0)
      CHECK(p.stats.buffer_elements * c.options.element_bytes <= c.options.max_buffer_bytes);
    check_stats(cp.stats, p.stats);
    for (const Message& m : p.send.messages) want[{rank, m.peer, m.batch}] += m.elements;

    for (const PieceGroup& g : cp.row_groups) check_group(g, row_cut, sr, dr, r.axis<Axis::row>());
    for (const PieceGroup& g : cp.col_groups)
      check_group(g, col_cut, sc, dc, r.axis<Axis::col>(), &cp.batch_columns);
    totals.groups += static_cast<index_t>(cp.row_groups.size() + cp.col_groups.size());
    for (const auto* gs : {&cp.row_groups, &cp.col_groups})
      for (const PieceGroup& g : *gs) totals.compressed += g.count > 1;

    enum class Kind { send, recv, local };
    const auto check_direction = [&](const FamilyList& d, Kind kind) {
      REQUIRE(d.batch_elements.size() == static_cast<std::size_t>(cp.batches));
      std::vector<index_t> batch_fill(d.batch_elements.size(), 0);
      index_t next_family = 0, elements = 0, segments = 0;
      for (std::size_t k = 0; k < d.messages.size(); ++k) {
        const Message& m = d.messages[k];
        if (k > 0) {
          const Message& prev = d.messages[k - 1];
          CHECK((prev.batch < m.batch || (prev.batch == m.batch && prev.peer < m.peer)));
        }
        REQUIRE(m.batch >= 0);
        REQUIRE(m.batch < cp.batches);
        CHECK(m.count >= 1);
        CHECK((kind == Kind::local) == (m.peer == rank));
        // Messages of a batch back to back; in a message, families with the same column
        // members stacked into one dense column block, blocks back to back.
        CHECK(m.first == next_family);
        CHECK(m.buffer_offset == batch_fill[static_cast<std::size_t>(m.batch)]);
        const int sender = kind == Kind::send ? rank : m.peer;
        const int receiver = kind == Kind::send ? m.peer : rank;
        std::vector<FamilyView> views;
        index_t offset = 0;  // start of the current column block in the message
        index_t row = 0;     // rows of the block taken by its earlier families
        index_t block_ld = 0, block_width = 0;
        for (index_t f = m.first; f < m.first + m.count; ++f) {
          const BlockFamily& fam = d.families[static_cast<std::size_t>(f)];
          const PieceGroup rows = cp.rows(fam), cols = cp.cols(fam);
          if (f > m.first)
            CHECK(detail::family_order(d.families[static_cast<std::size_t>(f - 1)], fam));
          if (f == m.first || !(d.families[static_cast<std::size_t>(f - 1)].cols == fam.cols)) {
            offset += block_ld * block_width;  // the previous block is complete
            row = 0;
            block_ld = 0;
            for (index_t g = f;
                 g < m.first + m.count && d.families[static_cast<std::size_t>(g)].cols == fam.cols;
                 ++g)
              block_ld += cp.rows(d.families[static_cast<std::size_t>(g)]).elements();
            block_width = cols.elements();
          }
          CHECK(fam.buffer_ld == block_ld);
          CHECK(fam.buffer_offset == m.buffer_offset + offset + row);
          views.push_back({rows, cols, offset + row});
          const index_t ld = fam.buffer_ld;
          const index_t at0 = row;
          row += rows.elements();
          segments += rows.count * cols.count;
          for_each_segment(rows, cols, ld, [&](const Piece& pr, const Piece& pc, index_t at) {
            CHECK(at0 + at >= 0);
            CHECK(at0 + at + (pc.length - 1) * ld + pr.length <= block_ld * block_width);
            const TileIndex y{pr.src_tile, pc.src_tile}, t{pr.dst_tile, pc.dst_tile};
            CHECK(c.src.owner(y) == sender);
            CHECK(c.dst.owner(t) == receiver);
            const index_t j = dc.begin(pc.dst_tile) + pc.dst_offset - r.dst_origin.j;
            CHECK(cp.batch_columns[static_cast<std::size_t>(m.batch)] <= j);
            CHECK(j + pc.length <= cp.batch_columns[static_cast<std::size_t>(m.batch) + 1]);
            if (c.options.batch > 0)
              CHECK((pc.src_tile - col_cut.src_begin()) / cp.batch == m.batch);
            CHECK(pr.src_offset + pr.length <= sr.size(pr.src_tile));
            CHECK(pc.src_offset + pc.length <= sc.size(pc.src_tile));
            CHECK(pr.dst_offset + pr.length <= dr.size(pr.dst_tile));
            CHECK(pc.dst_offset + pc.length <= dc.size(pc.dst_tile));
            const index_t i0 = dr.begin(pr.dst_tile) + pr.dst_offset - r.dst_origin.i;
            const index_t j0 = dc.begin(pc.dst_tile) + pc.dst_offset - r.dst_origin.j;
            for (index_t j = j0; j < j0 + pc.length; ++j)
              for (index_t i = i0; i < i0 + pr.length; ++i) {
                REQUIRE(i >= 0);
                REQUIRE(i < r.extent.rows);
                REQUIRE(j >= 0);
                REQUIRE(j < r.extent.cols);
                auto& cell = (kind == Kind::send
                                  ? sent
                                  : received)[static_cast<std::size_t>(i + j * r.extent.rows)];
                cell += 1;
              }
          });
        }
        offset += block_ld * block_width;
        CHECK(m.elements == offset);
        batch_fill[static_cast<std::size_t>(m.batch)] += m.elements;
        elements += m.elements;
        next_family += m.count;
        if (kind == Kind::send) {
          got_sent[{sender, receiver, m.batch}] += m.elements;
          sent_lists[{sender, receiver, m.batch}] = std::move(views);
        } else if (kind == Kind::recv) {
          got_received[{sender, receiver, m.batch}] += m.elements;
          received_lists[{sender, receiver, m.batch}] = std::move(views);
        }
      }
      CHECK(next_family == static_cast<index_t>(d.families.size()));
      CHECK(batch_fill == d.batch_elements);
      CHECK(elements == d.elements);
      CHECK(segments == d.segments);
      totals.families += static_cast<index_t>(d.families.size());
      totals.segments += segments;
    };
    check_direction(cp.send, Kind::send);
    check_direction(cp.recv, Kind::recv);
    check_direction(cp.local, Kind::local);
  }
  // Every element received or copied exactly once; sent at most once, and exactly the
  // received ones: both ends list the same families in the same order and offsets.
  for (const int v : received) CHECK(v == 1);
  for (const int v : sent) CHECK(v <= 1);
  CHECK(got_sent == want);
  CHECK(got_received == want);
  CHECK(sent_lists.size() == received_lists.size());
  for (const auto& [key, list] : sent_lists) {
    const auto it = received_lists.find(key);
    REQUIRE(it != received_lists.end());
    CHECK(it->second == list);
  }
}

template <class SD, class DD>
void run_random_configs(std::uint64_t seed, int count, bool expect_compression) {
  Rng g(seed);
  Totals totals;
  for (int k = 0; k < count; ++k) {
    const Config<SD, DD> c = random_config<SD, DD>(g);
    CAPTURE(k);
    CAPTURE(c.np);
    CAPTURE(c.region.extent);
    check_config(c, totals);
  }
  MESSAGE(totals.groups, " groups (", totals.compressed, " with several pieces), ", totals.families,
          " families for ", totals.segments, " segments; ", totals.budget_errors,
          " budgets below the minimum");
  if (expect_compression) CHECK(totals.families < totals.segments);
}

TEST_CASE("plan: block-cyclic to block-cyclic moves exactly make_reference_plan's segments") {
  run_random_configs<BlockCyclic, BlockCyclic>(0xC0FFEE, 300, true);
}

TEST_CASE("plan: uniform block-cyclic layouts, periods skipped, move the same") {
  Rng g(0x5CA1E);
  Totals totals;
  for (int k = 0; k < 60; ++k) {
    const auto c = random_uniform_config(g);
    CAPTURE(k);
    CAPTURE(c.np);
    CAPTURE(c.region.extent);
    check_config(c, totals);
  }
  MESSAGE(totals.groups, " groups (", totals.compressed, " with several pieces), ", totals.families,
          " families for ", totals.segments, " segments");
  CHECK(totals.families * 4 < totals.segments);
}

TEST_CASE("plan: user grids (scattered, several coordinates per rank)") {
  run_random_configs<ScatteredGrid, BlockCyclic>(0xBEEF, 80, false);
  run_random_configs<BlockCyclic, ScatteredGrid>(0xFEED, 80, false);
  run_random_configs<ScatteredGrid, ScatteredGrid>(0xD00D, 80, false);
}

TEST_CASE("plan: fallback for random owners and mixed pairs") {
  run_random_configs<RandomDistribution, RandomDistribution>(0xAB, 80, true);
  run_random_configs<BlockCyclic, RandomDistribution>(0xAC, 80, true);
  run_random_configs<RandomDistribution, BlockCyclic>(0xAD, 80, true);
  run_random_configs<OpaqueBlockCyclic, BlockCyclic>(0xAE, 80, true);
}

TEST_CASE("plan: the worked example of axis_groups.hpp") {
  // 24 rows; source tiles of 2 on grid rows 0 1 0 1 ..., target tiles of 3 on 0 1 0 1 ...
  const Layout src{Tiling{UniformAxis<>(24, 2), UniformAxis<>(1, 1)}, BlockCyclic(2, 1)};
  const Layout dst{Tiling{UniformAxis<>(24, 3), UniformAxis<>(1, 1)}, BlockCyclic(2, 1)};
  const AxisGroups rows =
      make_axis_groups<Axis::row>(src, dst, Region::whole({24, 1}), [](int, int) { return true; });
  CHECK(rows.pieces() == 16);
  const auto [g0, g1] = rows.groups_of(0, 0);
  REQUIRE(g1 - g0 == 2);
  CHECK(rows.groups()[static_cast<std::size_t>(g0)] ==
        PieceGroup{0, 8, 2, 2, 0, 0, 12, 0, 6, 0, 4, 0, 0});
  CHECK(rows.groups()[static_cast<std::size_t>(g0 + 1)] ==
        PieceGroup{5, 8, 2, 1, 8, 8, 12, 4, 6, 2, 4, 0, 2});
  // One period holds 8 pieces: every piece recurs once, so 8 groups of 2 in all.
  CHECK(rows.groups().size() == 8);
  for (const PieceGroup& g : rows.groups()) CHECK(g.count == 2);
  // Target tiles: coordinate 0 holds tiles 0, 2, 4, 6, each cut in two.
  CHECK(rows.dst_tiles_by_pieces(0) == std::array<index_t, 3>{0, 4, 0});
}

TEST_CASE("plan: uniform block-cyclic classes hold one group per piece of a period") {
  // 4000 rows, 4 -> 5 tiles, 2 -> 3 grid rows: period lcm(4*2, 5*3) = 120 elements, 48 pieces
  // (30 source + 24 target boundaries, 6 shared), shifted region: a few extra at the ends.
  const index_t M = 4000;
  const Layout src{Tiling{UniformAxis<>(M, 4), UniformAxis<>(1, 1)}, BlockCyclic(2, 1)};
  const Layout dst{Tiling{UniformAxis<>(M, 5), UniformAxis<>(1, 1)}, BlockCyclic(3, 1, 2, 1)};
  const Region r{{3900, 1}, {37, 0}, {11, 0}};
  const AxisGroups rows = make_axis_groups<Axis::row>(src, dst, r, [](int, int) { return true; });
  const index_t period_pieces = 120 / 4 + (120 * 2) / (5 * 2) - 120 / 20;  // kp = 2 on dst
  CAPTURE(period_pieces);
  CHECK(rows.groups().size() <= static_cast<std::size_t>(period_pieces + 4));
  index_t pieces = 0;
  for (const PieceGroup& g : rows.groups()) pieces += g.count;
  CHECK(pieces == rows.pieces());
}

TEST_CASE("plan: skipping whole periods gives the groups of a full scan") {
  Rng g(0x9E21);
  int skipped = 0;
  for (int k = 0; k < 500; ++k) {
    CAPTURE(k);
    const BlockCyclic sd = random_block_cyclic(g, 16, grids),
                      dd = random_block_cyclic(g, 16, grids);
    const index_t length = g.in(0, 600);
    const index_t se = length + g.in(0, 20), st = g.in(1, 7);
    const index_t te = length + g.in(0, 20), tt = g.in(1, 7);
    const UniformAxis<> sa(se, st), ta(te, tt);
    const AxisRegion r{length, g.in(0, sa.extent() - length), g.in(0, ta.extent() - length)};
    const auto cs = [&](index_t m) { return sd.grid_row(m); };
    const auto ct = [&](index_t m) { return dd.grid_row(m); };
    const std::uint64_t mask = g.chance(50) ? ~std::uint64_t{0} : g.engine();
    const auto keep = [&](int a, int b) { return (mask >> ((a * 4 + b) % 64)) & 1; };
    AxisPattern pattern{static_cast<int>(sd.grid().rows),
                        static_cast<int>(dd.grid().rows),
                        coordinate_period<Axis::row>(sd),
                        coordinate_period<Axis::row>(dd),
                        sa.tile(),
                        ta.tile()};
    const AxisGroups fast(sa, ta, r, pattern, cs, ct, keep);
    const index_t period = pattern.elements_period();
    if (period > 0 && length > 0 &&
        fast.dst_begin() + 2 + 2 * (period / ta.tile()) < fast.dst_end())
      ++skipped;
    pattern.src_tile = pattern.dst_tile = 0;  // no period known: scans every piece
    const AxisGroups full(sa, ta, r, pattern, cs, ct, keep);
    CHECK(fast.groups() == full.groups());
    CHECK(fast.pieces() == full.pieces());
    for (int c = 0; c < pattern.src_extent; ++c)
      CHECK(fast.first_src_tile(c) == full.first_src_tile(c));
    for (int c = 0; c < pattern.dst_extent; ++c) {
      CHECK(fast.first_dst_tile(c) == full.first_dst_tile(c));
      CHECK(fast.dst_tiles_by_pieces(c) == full.dst_tiles_by_pieces(c));
    }
    for (int a = 0; a < pattern.src_extent; ++a)
      for (int b = 0; b < pattern.dst_extent; ++b)
        CHECK(fast.groups_of(a, b) == full.groups_of(a, b));
  }
  MESSAGE(skipped, " of 500 axes skipped whole periods");
  CHECK(skipped > 100);
}

TEST_CASE("plan: same errors as make_reference_plan") {
  using S = Tiling<UniformAxis<>, UniformAxis<>>;
  const Layout l{S{UniformAxis<>(10, 3), UniformAxis<>(10, 3)}, BlockCyclic(2, 1)};
  const Layout big{S{UniformAxis<>(10, 3), UniformAxis<>(10, 3)}, BlockCyclic(2, 3)};
  const Region r = Region::whole({10, 10});
  const auto same = [](auto&& a, auto&& b) {
    const std::string wa = test::message_of<error>(a), wb = test::message_of<error>(b);
    CHECK(wa != "<no exception>");
    CHECK(wa == wb);
  };
  PlanOptions o;
  o.batch = -1;
  same([&] { make_reference_plan(l, l, r, 0, 2, o); }, [&] { make_plan(l, l, r, 0, 2, o); });
  same([&] { make_reference_plan(l, l, r, 2, 2); }, [&] { make_plan(l, l, r, 2, 2); });
  same([&] { make_reference_plan(l, l, r, 0, 0); }, [&] { make_plan(l, l, r, 0, 0); });
  same([&] { make_reference_plan(big, l, r, 0, 4); }, [&] { make_plan(big, l, r, 0, 4); });
  same(
      [&] {
        make_reference_plan(l, big, Region{{0, 0}, {0, 0}, {0, 0}}, 0, 4);
      },
      [&] {
        make_plan(l, big, Region{{0, 0}, {0, 0}, {0, 0}}, 0, 4);
      });
  same(
      [&] {
        make_reference_plan(l, l, Region{{5, 5}, {6, 0}, {0, 0}}, 0, 2);
      },
      [&] {
        make_plan(l, l, Region{{5, 5}, {6, 0}, {0, 0}}, 0, 2);
      });
}

TEST_CASE("plan: a grid owner outside the communicator fails on the same ranks") {
  // Each rank throws (a distribution_error naming the same side) exactly when make_reference_plan
  // does.
  Rng g(0xBAD);
  int thrown = 0;
  for (int k = 0; k < 120; ++k) {
    auto c = random_config<ScatteredGrid, ScatteredGrid>(g);
    const bool on_source = g.chance(50);
    ScatteredGrid bad = on_source ? c.src.distribution() : c.dst.distribution();
    bad.bad = static_cast<int>(g.in(0, bad.P * bad.Q - 1));
    if (on_source)
      c.src = Layout<Shape, ScatteredGrid>(c.src.shape(), bad);
    else
      c.dst = Layout<Shape, ScatteredGrid>(c.dst.shape(), bad);
    for (int rank = 0; rank < c.np; ++rank) {
      CAPTURE(k);
      CAPTURE(rank);
      // invalid_argument: a budget below the minimum comes first, the same on both.
      const std::string want = test::message_of<invalid_argument>(
          [&] { make_reference_plan(c.src, c.dst, c.region, rank, c.np, c.options); });
      const std::string got = test::message_of<invalid_argument>(
          [&] { make_plan(c.src, c.dst, c.region, rank, c.np, c.options); });
      CHECK((want == "<no exception>") == (got == "<no exception>"));
      CHECK(want.substr(0, want.find(".owner(")) == got.substr(0, got.find(".owner(")));
      thrown += want != "<no exception>";
    }
  }
  CHECK(thrown > 0);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The most target tiles the scan of one axis may visit with uniform tiles and block-cyclic
/// owners: the first tile, one lcm period, and what is left after the last whole period
/// (under one more), whatever the axis's length. The period in target tiles is
/// lcm(src tile * src grid, dst tile * dst grid) / dst tile (Prylli and Tourancheau 1996,
/// proposition 5). A scan that stopped skipping periods would visit every touched tile.
index_t scan_bound(index_t src_tile, index_t src_grid, index_t dst_tile, index_t dst_grid) {
  return 2 * (std::lcm(src_tile * src_grid, dst_tile * dst_grid) / dst_tile) + 2;
}

TEST_CASE("plan: 2000^2, 1x1 tiles, grids 1x2 -> 2x1 (issue 9)") {
  const index_t N = 2000;
  const Layout src{Uniform{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(1, 2)};
  const Layout dst{Uniform{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(2, 1)};
  for (int rank : {0, 1}) {
    CAPTURE(rank);
    const auto t0 = std::chrono::steady_clock::now();
    const Plan p = make_plan(src, dst, Region::whole({N, N}), rank, 2);
    const double s = seconds_since(t0);
    MESSAGE("2000^2 1x1 rank ", rank, ": ", s * 1e3, " ms, ", p.memory_bytes(), " bytes, ",
            p.row_groups.size() + p.col_groups.size(), " groups, ",
            p.send.families.size() + p.recv.families.size() + p.local.families.size(), " families");
    // The work: a period per axis (2 tiles), not the 2000 tiles of each axis.
    CHECK(p.per_axis);
    CHECK(p.scanned_tiles <= scan_bound(1, 1, 1, 2) + scan_bound(1, 2, 1, 1));
    CHECK(p.memory_bytes() < 1024 * 1024);
    // Rank r: source columns = r mod 2, target rows = r mod 2; a quarter of the matrix each.
    const index_t q = N * N / 4;
    CHECK(p.stats.elements_sent == q);
    CHECK(p.stats.elements_received == q);
    CHECK(p.stats.elements_local == q);
    CHECK(p.stats.segments_sent == q);
    CHECK(p.stats.segments_received == q);
    CHECK(p.stats.segments_local == q);
    CHECK(p.stats.messages_sent == 1);
    CHECK(p.stats.messages_received == 1);
    CHECK(p.stats.dst_tiles == N * N / 2);
    CHECK(p.stats.categories[0] == N * N / 2);
    CHECK(p.stats.buffer_elements == 2 * q);
    // One family per message: every other row x every other column.
    CHECK(p.send.families.size() == 1);
    CHECK(p.recv.families.size() == 1);
    CHECK(p.local.families.size() == 1);
  }
}

TEST_CASE(
    "plan: equals make_reference_plan at 300^2 with 1x1 tiles, with a fraction of its "
    "work") {
  const index_t N = 300;
  const Layout src{Uniform{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(1, 2)};
  const Layout dst{Uniform{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(2, 1)};
  for (int rank : {0, 1}) {
    auto t0 = std::chrono::steady_clock::now();
    const ReferencePlan p = make_reference_plan(src, dst, Region::whole({N, N}), rank, 2);
    const double segment_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const Plan cp = make_plan(src, dst, Region::whole({N, N}), rank, 2);
    const double plan_s = seconds_since(t0);
    MESSAGE("300^2 1x1 rank ", rank, ": make_reference_plan ", segment_s * 1e3, " ms (",
            p.memory_bytes(), " bytes), make_plan ", plan_s * 1e3, " ms (", cp.memory_bytes(),
            " bytes)");
    check_stats(cp.stats, p.stats);
    // make_reference_plan visits each of the rank's 45000 target tiles; the plan scans a
    // period per axis.
    CHECK(cp.scanned_tiles <= scan_bound(1, 1, 1, 2) + scan_bound(1, 2, 1, 1));
    CHECK(cp.scanned_tiles * 1000 < p.stats.dst_tiles);
  }
}

TEST_CASE("plan: 4000^2, 4x4 -> 5x5 tiles, grids 2x2 -> 3x3 (issue 9)") {
  const index_t N = 4000;
  const Layout src{Uniform{UniformAxis<>(N, 4), UniformAxis<>(N, 4)}, BlockCyclic(2, 2)};
  const Layout dst{Uniform{UniformAxis<>(N, 5), UniformAxis<>(N, 5)}, BlockCyclic(3, 3)};
  index_t sent = 0, received = 0, local = 0, tiles = 0;
  for (int rank = 0; rank < 9; ++rank) {
    const auto t0 = std::chrono::steady_clock::now();
    const Plan p = make_plan(src, dst, Region::whole({N, N}), rank, 9);
    const double s = seconds_since(t0);
    if (rank == 0 || rank == 8)
      MESSAGE("4000^2 4->5 rank ", rank, ": ", s * 1e3, " ms, ", p.memory_bytes(), " bytes, ",
              p.row_groups.size() + p.col_groups.size(), " groups, ",
              p.send.families.size() + p.recv.families.size() + p.local.families.size(),
              " families, ", p.stats.segments_sent + p.stats.segments_received, " segments");
    // The work: two periods of 24 target tiles per axis at most, of the 800 per axis.
    CHECK(p.per_axis);
    CHECK(p.scanned_tiles <= 2 * scan_bound(4, 2, 5, 3));
    CHECK(p.memory_bytes() < 1024 * 1024);
    sent += p.stats.elements_sent;
    received += p.stats.elements_received;
    local += p.stats.elements_local;
    tiles += p.stats.dst_tiles;
  }
  CHECK(sent == received);
  CHECK(received + local == N * N);
  CHECK(tiles == (N / 5) * (N / 5));
  // Rank 0 against the per-segment plan.
  const auto t0 = std::chrono::steady_clock::now();
  const ReferencePlan p = make_reference_plan(src, dst, Region::whole({N, N}), 0, 9);
  MESSAGE("4000^2 4->5 rank 0: make_reference_plan ", seconds_since(t0) * 1e3, " ms, ",
          p.memory_bytes(), " bytes");
  check_stats(make_plan(src, dst, Region::whole({N, N}), 0, 9).stats, p.stats);
}

TEST_CASE("plan: 10^6 x 10^6, 64 x 64 -> 100 x 80 tiles, 16384 ranks, as make_reference_plan") {
  const index_t N = 1000000;
  const Layout src{Uniform{UniformAxis<>(N, 64), UniformAxis<>(N, 64)}, BlockCyclic(128, 128)};
  const Layout dst{Uniform{UniformAxis<>(N, 100), UniformAxis<>(N, 80)}, BlockCyclic(64, 256)};
  for (int rank : {0, 12345, 16383}) {
    CAPTURE(rank);
    auto t0 = std::chrono::steady_clock::now();
    const ReferencePlan p = make_reference_plan(src, dst, Region::whole({N, N}), rank, 16384);
    const double segment_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const Plan cp = make_plan(src, dst, Region::whole({N, N}), rank, 16384);
    const double plan_s = seconds_since(t0);
    MESSAGE("10^6^2 64->100x80 rank ", rank, ": make_reference_plan ", segment_s * 1e3, " ms (",
            p.memory_bytes(), " bytes), make_plan ", plan_s * 1e3, " ms (", cp.memory_bytes(),
            " bytes, ", cp.batches, " batches)");
    CHECK(cp.batches == p.batches);
    check_stats(cp.stats, p.stats);
    // The work: periods of 2048 row and 512 column target tiles, of 10^4 and 12500.
    CHECK(cp.per_axis);
    CHECK(cp.scanned_tiles <= scan_bound(64, 128, 100, 64) + scan_bound(64, 128, 80, 256));
  }
}

TEST_CASE("plan: 10^6 x 10^6, 1x1 tiles, grids 1x2 -> 2x1") {
  const index_t N = 1000000;
  const Layout src{Uniform{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(1, 2)};
  const Layout dst{Uniform{UniformAxis<>(N, 1), UniformAxis<>(N, 1)}, BlockCyclic(2, 1)};
  // The same layouts at 2000^2: the scans do not grow with the matrix.
  const index_t small = 2000;
  const Layout src_small{Uniform{UniformAxis<>(small, 1), UniformAxis<>(small, 1)},
                         BlockCyclic(1, 2)};
  const Layout dst_small{Uniform{UniformAxis<>(small, 1), UniformAxis<>(small, 1)},
                         BlockCyclic(2, 1)};
  const index_t small_scan =
      make_plan(src_small, dst_small, Region::whole({small, small}), 0, 2).scanned_tiles;
  for (index_t batch : {index_t{0}, N}) {
    PlanOptions o;
    o.batch = batch;
    const auto t0 = std::chrono::steady_clock::now();
    const Plan p = make_plan(src, dst, Region::whole({N, N}), 0, 2, o);
    const double s = seconds_since(t0);
    MESSAGE("10^6^2 1x1 rank 0, ", p.batches, " batches: ", s * 1e3, " ms, ", p.memory_bytes(),
            " bytes, ", p.send.families.size() + p.recv.families.size() + p.local.families.size(),
            " families");
    CHECK(p.per_axis);
    CHECK(p.scanned_tiles == small_scan);
    CHECK(p.scanned_tiles <= scan_bound(1, 1, 1, 2) + scan_bound(1, 2, 1, 1));
    const index_t q = N / 2 * (N / 2);
    CHECK(p.stats.elements_sent == q);
    CHECK(p.stats.elements_received == q);
    CHECK(p.stats.elements_local == q);
    CHECK(p.stats.segments_sent == q);
    CHECK(p.stats.dst_tiles == N / 2 * N);
    CHECK(p.stats.messages_sent == p.batches);
  }
}

}  // namespace
