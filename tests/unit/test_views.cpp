// The run-time views (views/): each answers exactly as what it views, and make_plan, which
// plans through them, makes the plan the layouts' own types make.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/plan.hpp>
#include <redist/plan/plan_layouts.hpp>  // plan_layouts on the layouts' own types
#include <redist/plan/triangle_mask.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>
#include <redist/transform.hpp>
#include <redist/views/layout_view.hpp>
#include <redist/views/matrix_view.hpp>

#include <doctest/doctest.h>

#include "../support/generators.hpp"

namespace {

using namespace redist;
using test::Rng;

/// A user axis with neither a common extent nor boundaries: the view calls its functions.
struct SquaresAxis {  // tiles of 1, 2, 3, ... elements, the last one cut at the extent
  static constexpr index_t static_tile = dynamic_extent;
  index_t n;
  index_t extent() const { return n; }
  index_t count() const {
    index_t k = 0;
    while (begin_of(k) < n) ++k;
    return k;
  }
  index_t begin(index_t k) const { return std::min(begin_of(k), n); }
  index_t size(index_t k) const { return begin(k + 1) - begin(k); }
  index_t tile_of(index_t i) const {
    index_t k = 0;
    while (begin_of(k + 1) <= i) ++k;
    return k;
  }
  static index_t begin_of(index_t k) { return k * (k + 1) / 2; }
};
static_assert(TileAxis<SquaresAxis>);

/// A shape that returns its axes by value: the view keeps copies.
struct ByValueShape {
  index_t rows_, cols_;
  UniformAxis<> rows() const { return UniformAxis<>(rows_, 3); }
  IrregularAxis cols() const { return IrregularAxis({0, 1, 4, cols_}); }
};
static_assert(TileShape<ByValueShape>);

/// A user grid without a stated period, owners unchecked (not OwnersInRange).
struct UserGrid {
  int P, Q, n;
  int ranks() const { return n; }
  Extents grid() const { return {P, Q}; }
  int grid_row(index_t m) const { return static_cast<int>((m * m + 1) % P); }
  int grid_col(index_t k) const { return static_cast<int>((3 * k + 2) % Q); }
  int rank_of(GridCoord g) const { return (g.p * Q + g.q) % n; }
  int owner(TileIndex t) const { return rank_of({grid_row(t.m), grid_col(t.n)}); }
};
static_assert(GridDistribution<UserGrid> && !OwnersInRange<UserGrid>);

/// Every question of the TileAxis table, asked of the view and of the axis.
template <class A>
void check_axis(const A& a, const AxisView& v) {
  REQUIRE(v.extent() == a.extent());
  REQUIRE(v.count() == a.count());
  for (index_t k = 0; k <= a.count(); ++k) CHECK(v.begin(k) == a.begin(k));
  for (index_t k = 0; k < a.count(); ++k) CHECK(v.size(k) == a.size(k));
  for (index_t i = 0; i < a.extent(); ++i) CHECK(v.tile_of(i) == a.tile_of(i));
}

/// Owners, enumeration, range and grid, asked of the view and of the distribution.
template <class D>
void check_distribution(const D& d, const DistributionView& v, Extents tiles, int ranks) {
  REQUIRE(v.ranks() == static_cast<int>(d.ranks()));
  CHECK(v.owners_known_in_range() == OwnersInRange<D>);
  for (index_t n = 0; n < tiles.cols; ++n)
    for (index_t m = 0; m < tiles.rows; ++m) CHECK(v.owner({m, n}) == d.owner(TileIndex{m, n}));
  const TileBox box{{1, 0}, {tiles.rows, tiles.cols}};
  for (int r = 0; r < ranks; ++r) {
    std::vector<TileIndex> want, got;
    for_each_owned_tile(d, r, box, [&](TileIndex t) { want.push_back(t); });
    for_each_owned_tile(v, r, box, [&](TileIndex t) { got.push_back(t); });
    CHECK(got == want);
  }
  const std::optional<GridDistributionView> g = grid_view(v);
  CHECK(g.has_value() == MaybeGridDistribution<D>);
  if constexpr (MaybeGridDistribution<D>) {
    const auto grid = detail::as_grid(d);
    REQUIRE(grid.has_value());
    REQUIRE(g.has_value());
    CHECK(g->grid() == grid->grid());
    for (index_t m = 0; m < tiles.rows; ++m) CHECK(g->grid_row(m) == grid->grid_row(m));
    for (index_t n = 0; n < tiles.cols; ++n) CHECK(g->grid_col(n) == grid->grid_col(n));
    for (int p = 0; p < static_cast<int>(g->grid().rows); ++p)
      for (int q = 0; q < static_cast<int>(g->grid().cols); ++q)
        CHECK(g->rank_of({p, q}) == grid->rank_of(GridCoord{p, q}));
    CHECK(coordinate_period<Axis::row>(*g) == coordinate_period<Axis::row>(*grid));
    CHECK(coordinate_period<Axis::col>(*g) == coordinate_period<Axis::col>(*grid));
  }
}

void check_same(const FamilyList& a, const FamilyList& b) {
  CHECK(a.families == b.families);
  REQUIRE(a.messages.size() == b.messages.size());
  for (std::size_t m = 0; m < a.messages.size(); ++m) {
    CHECK(a.messages[m].peer == b.messages[m].peer);
    CHECK(a.messages[m].batch == b.messages[m].batch);
    CHECK(a.messages[m].first == b.messages[m].first);
    CHECK(a.messages[m].count == b.messages[m].count);
    CHECK(a.messages[m].elements == b.messages[m].elements);
    CHECK(a.messages[m].buffer_offset == b.messages[m].buffer_offset);
  }
  CHECK(a.batch_elements == b.batch_elements);
  CHECK(a.elements == b.elements);
  CHECK(a.segments == b.segments);
}

/// The plan make_plan makes (through views) is the one of the layouts' own types, field
/// by field; errors alike too.
template <class S, class D>
void check_plans(const S& src, const D& dst, const Region& r, int np, const PlanOptions& o = {},
                 const Triangle& tri = {}) {
  for (int rank = 0; rank < np; ++rank) {
    CAPTURE(rank);
    std::optional<Plan> own, viewed;
    std::string own_error, viewed_error;
    try {
      own = detail::plan_layouts(src, dst, r, rank, np, o);
      if (tri.masks()) detail::mask_plan(*own, src, dst, r, tri);
    } catch (const error& e) {
      own_error = e.what();
    }
    try {
      viewed = make_plan(src, dst, r, rank, np, o, tri);
    } catch (const error& e) {
      viewed_error = e.what();
    }
    REQUIRE(viewed_error == own_error);
    if (!own) continue;
    CHECK(viewed->per_axis == own->per_axis);
    CHECK(viewed->scanned_tiles == own->scanned_tiles);
    CHECK(viewed->packed_pieces == own->packed_pieces);
    CHECK(viewed->batch == own->batch);
    CHECK(viewed->batches == own->batches);
    CHECK(viewed->batch_columns == own->batch_columns);
    CHECK(viewed->row_groups == own->row_groups);
    CHECK(viewed->col_groups == own->col_groups);
    check_same(viewed->send, own->send);
    check_same(viewed->recv, own->recv);
    check_same(viewed->local, own->local);
    CHECK(viewed->stats.categories == own->stats.categories);
    CHECK(viewed->stats.dst_tiles == own->stats.dst_tiles);
    CHECK(viewed->stats.buffer_elements == own->stats.buffer_elements);
  }
}

}  // namespace

TEST_CASE("AxisView answers every TileAxis question as the axis it views") {
  check_axis(UniformAxis<7>(50), AxisView(UniformAxis<7>(50)));
  const UniformAxis<> u(50, 8), empty(0, 3);
  const IrregularAxis irregular({0, 1, 5, 6, 20, 21});
  const SquaresAxis squares{40};
  check_axis(u, AxisView(u));
  check_axis(empty, AxisView(empty));
  check_axis(irregular, AxisView(irregular));
  check_axis(squares, AxisView(squares));
  // The common extent that the planner's lcm periods read (plan/axis_pattern.hpp).
  CHECK(AxisView(u).tile() == 8);
  CHECK(AxisView(UniformAxis<7>(50)).tile() == 7);
  CHECK(AxisView(irregular).tile() == 0);
  CHECK(AxisView(squares).tile() == 0);
  CHECK(uniform_tile(AxisView(u)) == uniform_tile(u));
  CHECK(uniform_tile(AxisView(squares)) == 0);
  // Axes returned by value are kept by the view.
  const ByValueShape s{20, 9};
  const ShapeView v = shape_view(s);
  check_axis(s.rows(), v.rows());
  check_axis(s.cols(), v.cols());
  Rng g(0xA715);
  for (int k = 0; k < 50; ++k) {
    const IrregularAxis a = test::random_axis(g, g.in(0, 60), {50, 7});
    check_axis(a, AxisView(a));
  }
}

TEST_CASE("DistributionView answers as the distribution it views, grid or not") {
  const Extents tiles{9, 7};
  const BlockCyclic bc(2, 3, 2, 1, GridCoord{1, 2}, GridOrder::column_major);
  check_distribution(bc, DistributionView(bc), tiles, 6);
  const RandomDistribution random(5, 0x5EED);
  check_distribution(random, DistributionView(random), tiles, 5);
  std::vector<int> owners(static_cast<std::size_t>(tiles.size()));
  for (std::size_t k = 0; k < owners.size(); ++k) owners[k] = static_cast<int>(k * 7 % 4);
  const OwnerTable table(tiles, owners, 4);
  check_distribution(table, DistributionView(table), tiles, 4);
  const Relabeled<BlockCyclic> relabeled(bc, {5, 4, 3, 2, 1, 0});
  check_distribution(relabeled, DistributionView(relabeled), tiles, 6);
  const TransposedDistribution<BlockCyclic> transposed(bc);
  check_distribution(transposed, DistributionView(transposed), tiles, 6);
  const UserGrid user{3, 2, 5};
  check_distribution(user, DistributionView(user), tiles, 5);
  // No stated period: the view says {0, 0}, which the planner reads as none.
  CHECK(grid_view(DistributionView(user))->super_tile() == Extents{0, 0});
  CHECK(grid_view(DistributionView(bc))->super_tile() == bc.super_tile());
  // The run-time form of OwnersInRange (distribution.hpp).
  CHECK(owners_in_range(DistributionView(bc)));
  CHECK_FALSE(owners_in_range(DistributionView(user)));
}

TEST_CASE("make_plan through views makes the layouts' own plan, on random layouts") {
  Rng g(0x71E5);
  const test::AxisDraw axes{60, 7};
  const test::BlockCyclicDraw grids{3, true, 4};
  using Shape = Tiling<IrregularAxis, IrregularAxis>;
  for (int k = 0; k < 150; ++k) {
    CAPTURE(k);
    const int np = static_cast<int>(g.in(1, 4));
    const Extents se{g.in(0, 40), g.in(0, 40)}, de{g.in(0, 40), g.in(0, 40)};
    const Shape ss(test::random_axis(g, se.rows, axes), test::random_axis(g, se.cols, axes));
    const Shape ds(test::random_axis(g, de.rows, axes), test::random_axis(g, de.cols, axes));
    const Region r = test::random_region(g, se, de);
    PlanOptions o;
    if (g.chance(30)) o.max_buffer_bytes = 8 * g.in(40, 400);  // several batches
    const Layout src(ss, test::random_block_cyclic(g, np, grids));
    const Layout dst(ds, test::random_block_cyclic(g, np, grids));
    check_plans(src, dst, r, np, o);  // the per-axis path
    const Layout scattered(ss,
                           RandomDistribution(np, static_cast<std::uint64_t>(g.in(1, 1 << 30))));
    check_plans(scattered, dst, r, np, o);  // one side not a grid: per segment
    // op(A)'s layout, as a transposing move plans it (where it does not fit, the same
    // error both ways).
    check_plans(transposed(src), dst, transposed(r), np, o);
    if (g.chance(30))
      check_plans(src, dst, r, np, o,
                  Triangle{g.chance(50) ? Uplo::lower : Uplo::upper, Diag::non_unit});
  }
}

TEST_CASE("make_plan through views: uniform, user and unchecked layouts, and their errors") {
  const Layout a(Tiling{UniformAxis<16>(200), UniformAxis<>(150, 10)}, BlockCyclic(2, 2, 2, 1));
  const Layout b(Tiling{UniformAxis<>(200, 7), UniformAxis<>(150, 9)}, BlockCyclic(1, 4));
  check_plans(a, b, Region::whole({150, 150}), 4);
  PlanOptions narrow;
  narrow.max_buffer_bytes = 8 * 2000;
  check_plans(a, b, Region{{120, 100}, {3, 5}, {40, 11}}, 4, narrow);
  const Layout squares(Tiling{SquaresAxis{60}, SquaresAxis{50}}, UserGrid{2, 2, 3});
  const Layout plain(Tiling{UniformAxis<>(60, 5), UniformAxis<>(50, 5)},
                     BandDistribution(2, BlockCyclic(1, 3), BlockCyclic(3, 1)));
  check_plans(squares, plain, Region::whole({60, 50}), 3);
  check_plans(plain, squares, Region{{30, 20}, {10, 4}, {0, 7}}, 3);
  // Owners out of range are found alike (a user grid's rank 7 in a 3-rank job).
  const Layout bad(Tiling{UniformAxis<>(60, 5), UniformAxis<>(50, 5)}, UserGrid{2, 2, 8});
  check_plans(bad, plain, Region::whole({60, 50}), 3);
  check_plans(plain, bad, Region::whole({60, 50}), 3);
}

TEST_CASE("MatrixView: a matrix's tiling, storage, allocations and placement kind") {
  using L = Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>;
  const L l{Tiling{UniformAxis<>(30, 4), UniformAxis<>(20, 6)}, BlockCyclic(2, 2)};
  const TiledMatrix<double, L, ScalapackColumnMajor<>> local(l, {}, 3);
  const TiledMatrix<double, L, TilePerAllocation<>> tiles(l, {}, 3);
  const MatrixView<double, Kokkos::HostSpace> lv(local), tv(tiles);
  CHECK(lv.placement_stores_local_matrix());
  CHECK_FALSE(tv.placement_stores_local_matrix());
  CHECK(&lv.storage() == &local.storage());
  check_axis(l.shape().rows(), lv.shape().rows());
  check_axis(l.shape().cols(), tv.shape().cols());
  REQUIRE(tv.has_allocations());
  for (std::size_t a = 0; a < tiles.allocations().size(); ++a)
    CHECK(tv.allocation(static_cast<index_t>(a)) == tiles.allocations()[a].data());
}
