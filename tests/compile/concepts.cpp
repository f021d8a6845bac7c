// Static checks of the three policy concepts (tile_shape.hpp, distribution.hpp,
// placement.hpp) and of the strong index types. One generic checker per concept runs every
// model, built-in and test-only, through the requirement table of its header; negative
// static_asserts list types that must not satisfy a concept.
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/distribution.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/placement.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

namespace {

using namespace redist;

// ===========================================================================================
// TileAxis / TileShape
// ===========================================================================================

/// Test-only user axis: two tiles, the first `head` elements and the rest.
struct HeadTailAxis {
  static constexpr index_t static_tile = dynamic_extent;
  index_t n;
  index_t head;
  constexpr index_t extent() const { return n; }
  constexpr index_t count() const { return 2; }
  constexpr index_t begin(index_t k) const { return k == 0 ? 0 : k == 1 ? head : n; }
  constexpr index_t size(index_t k) const { return begin(k + 1) - begin(k); }
  constexpr index_t tile_of(index_t i) const { return i < head ? 0 : 1; }
};

/// Test-only user shape: a square matrix of square tiles of a static extent.
template <index_t B>
struct SquareShape {
  UniformAxis<B> axis;
  constexpr UniformAxis<B> rows() const { return axis; }  // by value is allowed
  constexpr const UniformAxis<B>& cols() const { return axis; }
};

/// The TileAxis requirement table, checked for one object over its whole domain.
template <class A>
constexpr bool check_tile_axis(const A& a) {
  static_assert(TileAxis<A>);
  static_assert(std::same_as<decltype(A::static_tile), const index_t>);
  static_assert(std::same_as<decltype(a.extent()), index_t>);
  static_assert(std::same_as<decltype(a.count()), index_t>);
  static_assert(std::same_as<decltype(a.begin(index_t{0})), index_t>);
  static_assert(std::same_as<decltype(a.size(index_t{0})), index_t>);
  static_assert(std::same_as<decltype(a.tile_of(index_t{0})), index_t>);
  constexpr index_t st = A::static_tile;  // must be a constant expression
  if (a.begin(0) != 0 || a.begin(a.count()) != a.extent()) return false;
  for (index_t k = 0; k < a.count(); ++k) {
    if (a.size(k) <= 0 || a.begin(k + 1) - a.begin(k) != a.size(k)) return false;
    if (st != dynamic_extent && k + 1 < a.count() && a.size(k) != st) return false;
    for (index_t i = a.begin(k); i < a.begin(k + 1); ++i)
      if (a.tile_of(i) != k) return false;
  }
  return true;
}

static_assert(check_tile_axis(UniformAxis<4>(10)));
static_assert(check_tile_axis(UniformAxis<4>(12)));
static_assert(check_tile_axis(UniformAxis<4>(0)));
static_assert(check_tile_axis(UniformAxis<1>(7)));
static_assert(check_tile_axis(UniformAxis<100>(1000)));
static_assert(check_tile_axis(UniformAxis<>(10, 3)));
static_assert(check_tile_axis(UniformAxis<>(3, 10)));
static_assert(check_tile_axis(IrregularAxis{0}));
static_assert(check_tile_axis(IrregularAxis{0, 3, 4, 10}));
static_assert(check_tile_axis(IrregularAxis(std::vector<index_t>{0, 1, 2, 7}, 7)));
static_assert(check_tile_axis(HeadTailAxis{10, 3}));
static_assert(TileAxis<const UniformAxis<8>&>);  // what a shape's rows() may return

/// The TileShape requirement table plus the derived free functions.
template <class S>
constexpr bool check_tile_shape(const S& s) {
  static_assert(TileShape<S>);
  const Extents e = element_extents(s), n = tile_counts(s);
  if (e != Extents{s.rows().extent(), s.cols().extent()}) return false;
  if (n != Extents{s.rows().count(), s.cols().count()}) return false;
  for (index_t m = 0; m < n.rows; ++m)
    for (index_t k = 0; k < n.cols; ++k) {
      const ElementIndex o = tile_origin(s, {m, k});
      const Extents x = tile_extents(s, {m, k});
      if (tile_of(s, o) != TileIndex{m, k}) return false;
      if (tile_of(s, {o.i + x.rows - 1, o.j + x.cols - 1}) != TileIndex{m, k}) return false;
    }
  return true;
}

static_assert(check_tile_shape(Tiling{UniformAxis<4>(10), UniformAxis<>(9, 2)}));
static_assert(check_tile_shape(Tiling{IrregularAxis{0, 5, 6}, HeadTailAxis{8, 1}}));
static_assert(check_tile_shape(SquareShape<3>{UniformAxis<3>(8)}));

// --- types that must not be a TileAxis / TileShape ---

struct AxisWithoutTileOf {
  static constexpr index_t static_tile = 4;
  index_t extent() const;
  index_t count() const;
  index_t begin(index_t) const;
  index_t size(index_t) const;
};
struct AxisWithIntExtent {  // wrong result type: int is not index_t
  static constexpr index_t static_tile = 4;
  int extent() const;
  index_t count() const;
  index_t begin(index_t) const;
  index_t size(index_t) const;
  index_t tile_of(index_t) const;
};
struct AxisWithRuntimeStaticTile {  // static_tile is not a constant expression
  static inline index_t static_tile = 4;
  index_t extent() const;
  index_t count() const;
  index_t begin(index_t) const;
  index_t size(index_t) const;
  index_t tile_of(index_t) const;
};
struct AxisWithoutStaticTile {
  index_t extent() const;
  index_t count() const;
  index_t begin(index_t) const;
  index_t size(index_t) const;
  index_t tile_of(index_t) const;
};
struct AxisWithMutableCount {  // count() must be callable on a const axis
  static constexpr index_t static_tile = 4;
  index_t extent() const;
  index_t count();
  index_t begin(index_t) const;
  index_t size(index_t) const;
  index_t tile_of(index_t) const;
};
static_assert(!TileAxis<AxisWithoutTileOf>);
static_assert(!TileAxis<AxisWithIntExtent>);
static_assert(!TileAxis<AxisWithRuntimeStaticTile>);
static_assert(!TileAxis<AxisWithoutStaticTile>);
static_assert(!TileAxis<AxisWithMutableCount>);
static_assert(!TileAxis<int>);
static_assert(!TileAxis<Tiling<UniformAxis<2>, UniformAxis<2>>>);  // a shape is not an axis

struct ShapeWithIntRows {
  int rows() const;
  UniformAxis<2> cols() const;
};
struct ShapeWithoutCols {
  UniformAxis<2> rows() const;
};
static_assert(!TileShape<ShapeWithIntRows>);
static_assert(!TileShape<ShapeWithoutCols>);
static_assert(!TileShape<UniformAxis<2>>);  // an axis is not a shape
static_assert(!TileShape<Tiling<UniformAxis<2>, UniformAxis<2>>*>);

// ===========================================================================================
// Distribution, EnumeratesOwnedTiles, GridDistribution
// ===========================================================================================

/// Test-only user distribution: tile (m, n) belongs to rank min(m, n) mod R ("L-shapes").
struct LShapes {
  int r;
  constexpr int ranks() const { return r; }
  constexpr int owner(TileIndex t) const { return static_cast<int>((t.m < t.n ? t.m : t.n) % r); }
};

/// Test-only user distribution that enumerates its tiles (1-D by tile columns).
struct ColumnCyclic {
  int r;
  constexpr int ranks() const { return r; }
  constexpr int owner(TileIndex t) const { return static_cast<int>(t.n % r); }
  template <class F>
  constexpr void for_each_owned(int rank, TileBox box, F&& f) const {
    for (index_t n = box.begin.n; n < box.end.n; ++n)
      if (n % r == rank)
        for (index_t m = box.begin.m; m < box.end.m; ++m) f(TileIndex{m, n});
  }
};

/// The Distribution requirement table over a box: owners in range; the optional
/// enumeration (native or fallback) visits exactly the owned tiles, column by column; a grid
/// distribution's owner factors through (grid_row, grid_col).
template <class D>
constexpr bool check_distribution(const D& d, TileBox box) {
  static_assert(Distribution<D>);
  const int R = static_cast<int>(d.ranks());
  if (R <= 0) return false;
  for (index_t n = box.begin.n; n < box.end.n; ++n)
    for (index_t m = box.begin.m; m < box.end.m; ++m) {
      const int o = static_cast<int>(d.owner({m, n}));
      if (o < 0 || o >= R) return false;
      if constexpr (GridDistribution<D>) {
        if (o != static_cast<int>(
                     d.rank_of({static_cast<int>(d.grid_row(m)), static_cast<int>(d.grid_col(n))})))
          return false;
      }
    }
  index_t visited = 0;
  for (int r = 0; r < R; ++r) {
    TileIndex prev{-1, -1};
    bool ok = true;
    for_each_owned_tile(d, r, box, [&](TileIndex t) {
      ++visited;
      if (!box.contains(t) || static_cast<int>(d.owner(t)) != r) ok = false;
      if (t.n < prev.n || (t.n == prev.n && t.m <= prev.m)) ok = false;  // column by column
      prev = t;
    });
    if (!ok) return false;
  }
  return visited == box.size();
}

constexpr TileBox box{{1, 2}, {9, 11}};
static_assert(check_distribution(BlockCyclic(2, 3), box));
static_assert(check_distribution(BlockCyclic(3, 2, 2, 3, {2, 1}), box));
static_assert(check_distribution(BlockCyclic(1, 4), box));
static_assert(check_distribution(RandomDistribution(5, 42), box));
static_assert(check_distribution(BandDistribution(2, BlockCyclic(3, 1), BlockCyclic(2, 2)), box));
static_assert(check_distribution(LShapes{3}, box));
static_assert(check_distribution(ColumnCyclic{4}, box));
static_assert(Distribution<OwnerTable>);  // not constexpr: checked at run time in unit tests

// clang-format off
//             model                 Distribution  EnumeratesOwnedTiles  GridDistribution
static_assert( Distribution<BlockCyclic>        &&  EnumeratesOwnedTiles<BlockCyclic>        &&  GridDistribution<BlockCyclic>);
static_assert( Distribution<RandomDistribution> && !EnumeratesOwnedTiles<RandomDistribution> && !GridDistribution<RandomDistribution>);
static_assert( Distribution<BandDistribution>   && !EnumeratesOwnedTiles<BandDistribution>   && !GridDistribution<BandDistribution>);
static_assert( Distribution<OwnerTable>         && !EnumeratesOwnedTiles<OwnerTable>         && !GridDistribution<OwnerTable>);
static_assert( Distribution<LShapes>            && !EnumeratesOwnedTiles<LShapes>            && !GridDistribution<LShapes>);
static_assert( Distribution<ColumnCyclic>       &&  EnumeratesOwnedTiles<ColumnCyclic>       && !GridDistribution<ColumnCyclic>);
// clang-format on
static_assert(BoundedDistribution<OwnerTable> && !BoundedDistribution<BlockCyclic>);

// --- types that must not be a Distribution (or its refinements) ---

struct WithoutOwner {
  int ranks() const;
};
struct WithoutRanks {
  int owner(TileIndex) const;
};
struct OwnerReturnsString {
  int ranks() const;
  std::string owner(TileIndex) const;
};
struct OwnerTakesElementIndex {  // the strong types keep this out
  int ranks() const;
  int owner(ElementIndex) const;
};
struct NonCopyable {
  NonCopyable() = default;
  NonCopyable(const NonCopyable&) = delete;
  int ranks() const;
  int owner(TileIndex) const;
};
struct GridReturnsPair : LShapes {  // grid() must return Extents
  std::pair<int, int> grid() const;
  int grid_row(index_t) const;
  int grid_col(index_t) const;
  int rank_of(GridCoord) const;
};
struct GridWithoutRankOf : LShapes {
  Extents grid() const;
  int grid_row(index_t) const;
  int grid_col(index_t) const;
};
struct ForEachOwnedWithoutVisitor : LShapes {  // f must be a callable template parameter
  void for_each_owned(int, TileBox, void (*)(int)) const;
};
static_assert(!Distribution<WithoutOwner>);
static_assert(!Distribution<WithoutRanks>);
static_assert(!Distribution<OwnerReturnsString>);
static_assert(!Distribution<OwnerTakesElementIndex>);
static_assert(!Distribution<NonCopyable>);
static_assert(!Distribution<int>);
static_assert(Distribution<GridReturnsPair> && !GridDistribution<GridReturnsPair>);
static_assert(Distribution<GridWithoutRankOf> && !GridDistribution<GridWithoutRankOf>);
static_assert(!EnumeratesOwnedTiles<ForEachOwnedWithoutVisitor>);
static_assert(!EnumeratesOwnedTiles<WithoutOwner>);  // refinement needs the base concept

// ===========================================================================================
// Layout and Placement
// ===========================================================================================

using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
using CyclicLayout = Layout<Shape, BlockCyclic>;
using RandomLayout = Layout<Shape, RandomDistribution>;
using TableLayout = Layout<Tiling<IrregularAxis, UniformAxis<8>>, OwnerTable>;
using UserLayout = Layout<Shape, LShapes>;

static_assert(std::same_as<CyclicLayout::shape_type, Shape>);
static_assert(std::same_as<CyclicLayout::distribution_type, BlockCyclic>);
constexpr CyclicLayout cyclic{Shape{UniformAxis<>(10, 3), UniformAxis<>(7, 2)}, BlockCyclic(2, 2)};
static_assert(cyclic.tiles() == Extents{4, 4} && cyclic.extents() == Extents{10, 7});
static_assert(cyclic.all_tiles() == TileBox{{0, 0}, {4, 4}} && cyclic.owner({1, 3}) == 3);

template <class P, class L>
constexpr bool check_placement() {
  static_assert(Placement<P, L>);
  static_assert(Kokkos::is_memory_space<typename P::memory_space>::value);
  static_assert(std::same_as<decltype(std::declval<const P&>().map(std::declval<const L&>(), 0)),
                             StorageMap>);
  return true;
}
// clang-format off
//                          placement                        layout
static_assert(check_placement<TilePerAllocation<>,             CyclicLayout>());
static_assert(check_placement<TilePerAllocation<>,             RandomLayout>());
static_assert(check_placement<TilePerAllocation<>,             TableLayout>());
static_assert(check_placement<TilePerAllocation<>,             UserLayout>());
static_assert(check_placement<PackedTiles<>,                   CyclicLayout>());
static_assert(check_placement<PackedTiles<>,                   RandomLayout>());
static_assert(check_placement<PackedTiles<Kokkos::HostSpace>,  UserLayout>());
static_assert(check_placement<ScalapackColumnMajor<>,          CyclicLayout>());
// clang-format on
static_assert(std::same_as<TilePerAllocation<>::memory_space, Kokkos::HostSpace>);

struct PlacementWithoutSpace {
  template <class L>
  StorageMap map(const L&, int) const;
};
struct PlacementWithBadSpace {
  using memory_space = int;
  template <class L>
  StorageMap map(const L&, int) const;
};
struct PlacementReturningSlots {
  using memory_space = Kokkos::HostSpace;
  template <class L>
  std::vector<TileSlot> map(const L&, int) const;
};
struct PlacementWithExecutionSpace {  // an execution space is not a memory space
  using memory_space = Kokkos::DefaultHostExecutionSpace;
  template <class L>
  StorageMap map(const L&, int) const;
};
static_assert(!Placement<PlacementWithoutSpace, CyclicLayout>);
static_assert(!Placement<PlacementWithBadSpace, CyclicLayout>);
static_assert(!Placement<PlacementReturningSlots, CyclicLayout>);
static_assert(!Placement<PlacementWithExecutionSpace, CyclicLayout>);
static_assert(!Placement<BlockCyclic, CyclicLayout>);

// TiledMatrix accepts trivially copyable element types and Placement models only.
template <class T, class L, class P>
concept MakesTiledMatrix = requires {
  typename TiledMatrix<T, L, P>::value_type;
};
static_assert(MakesTiledMatrix<double, CyclicLayout, PackedTiles<>>);
static_assert(MakesTiledMatrix<std::int64_t, CyclicLayout, ScalapackColumnMajor<>>);
static_assert(!MakesTiledMatrix<std::string, CyclicLayout, PackedTiles<>>);
static_assert(!MakesTiledMatrix<std::vector<double>, CyclicLayout, PackedTiles<>>);
static_assert(!MakesTiledMatrix<double, CyclicLayout, PlacementReturningSlots>);
static_assert(std::same_as<TiledMatrix<float, CyclicLayout, PackedTiles<>>::tile_view::array_layout,
                           Kokkos::LayoutStride>);

// Layout's parameters are constrained too.
template <class S, class D>
concept MakesLayout = requires {
  typename Layout<S, D>::shape_type;
};
static_assert(MakesLayout<Shape, LShapes>);
static_assert(!MakesLayout<Shape, WithoutOwner>);
static_assert(!MakesLayout<ShapeWithIntRows, BlockCyclic>);

// ===========================================================================================
// Strong index types: no silent conversion between them
// ===========================================================================================

template <class A, class B>
constexpr bool distinct_v = !std::is_convertible_v<A, B> && !std::is_convertible_v<B, A> &&
                            !std::is_constructible_v<A, B> && !std::is_constructible_v<B, A> &&
                            !std::is_assignable_v<A&, B> && !std::is_assignable_v<B&, A>;

static_assert(!std::is_convertible_v<TileIndex, ElementIndex>);
static_assert(!std::is_convertible_v<ElementIndex, TileIndex>);
// clang-format off
static_assert(distinct_v<TileIndex,      ElementIndex>);
static_assert(distinct_v<TileIndex,      LocalTileIndex>);
static_assert(distinct_v<TileIndex,      TileOffset>);
static_assert(distinct_v<TileIndex,      GridCoord>);
static_assert(distinct_v<TileIndex,      Extents>);
static_assert(distinct_v<LocalTileIndex, ElementIndex>);
static_assert(distinct_v<ElementIndex,   TileOffset>);
static_assert(distinct_v<ElementIndex,   Extents>);
static_assert(distinct_v<ElementIndex,   GridCoord>);
static_assert(distinct_v<TileOffset,     Extents>);
// clang-format on
static_assert(!std::is_convertible_v<index_t, TileIndex>);
static_assert(!std::is_convertible_v<index_t, ElementIndex>);
static_assert(std::same_as<decltype(ElementIndex{}.i), index_t> && sizeof(index_t) == 8);
static_assert(TileIndex{2, 5}.get<Axis::row>() == 2 && TileIndex{2, 5}.get<Axis::col>() == 5);
static_assert(Extents{3, 4}.size() == 12 && Extents{3, 4}.get<Axis::col>() == 4);
static_assert(TileIndex{1, 9} < TileIndex{2, 0});  // lexicographic (m, n)

}  // namespace
