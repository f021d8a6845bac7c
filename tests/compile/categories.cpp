// Static checks of the segment geometry (include/redist/segment.hpp): the nine categories of
// Cao et al. 2021 Fig. 3, and the roles, offsets and
// extents of hand-drawn target tiles, all evaluated by the compiler.
#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

namespace {

using redist::Axis;
using redist::category;
using redist::category_of;
using redist::dynamic_extent;
using redist::Extents;
using redist::index_t;
using redist::IrregularAxis;
using redist::Position;
using redist::Region;
using redist::Role;
using redist::Segment;
using redist::TileIndex;
using redist::TileOffset;
using redist::Tiling;
using redist::UniformAxis;

// --- static tile extents are constant expressions -----------------------------------------

static_assert(UniformAxis<100>::static_tile == 100);
static_assert(UniformAxis<>::static_tile == dynamic_extent);
static_assert(IrregularAxis::static_tile == dynamic_extent);
// Usable as a template argument, i.e. truly a compile-time constant.
static_assert(std::integral_constant<index_t, UniformAxis<64>::static_tile>::value == 64);
// Through a shape: the static extent survives composition.
using Shape100x70 = Tiling<UniformAxis<100>, UniformAxis<>>;
static_assert(
    std::remove_cvref_t<decltype(std::declval<const Shape100x70&>().rows())>::static_tile == 100);
static_assert(
    std::remove_cvref_t<decltype(std::declval<const Shape100x70&>().cols())>::static_tile ==
    dynamic_extent);
// The whole axis is constexpr: 1000 rows in tiles of 100, and 1000 in tiles of 70.
constexpr Shape100x70 shape100x70{UniformAxis<100>(1000), UniformAxis<>(1000, 70)};
static_assert(redist::tile_counts(shape100x70) == Extents{10, 15});
static_assert(redist::tile_extents(shape100x70, {9, 14}) == Extents{100, 20});

// --- the building blocks ------------------------------------------------------------------

static_assert(redist::position_of(0, 1) == Position::whole);
static_assert(redist::position_of(0, 2) == Position::first);
static_assert(redist::position_of(1, 2) == Position::last);
static_assert(redist::position_of(1, 3) == Position::inner);
static_assert(redist::position_of(5, 7) == Position::inner);

// clang-format off
//            row position       column position     role
static_assert(redist::role_of(Position::first, Position::first) == Role::NW);
static_assert(redist::role_of(Position::first, Position::whole) == Role::N);
static_assert(redist::role_of(Position::first, Position::inner) == Role::N);
static_assert(redist::role_of(Position::first, Position::last ) == Role::NE);
static_assert(redist::role_of(Position::whole, Position::first) == Role::W);
static_assert(redist::role_of(Position::inner, Position::first) == Role::W);
static_assert(redist::role_of(Position::whole, Position::whole) == Role::I);
static_assert(redist::role_of(Position::inner, Position::inner) == Role::I);
static_assert(redist::role_of(Position::inner, Position::last ) == Role::E);
static_assert(redist::role_of(Position::last , Position::first) == Role::SW);
static_assert(redist::role_of(Position::last , Position::whole) == Role::S);
static_assert(redist::role_of(Position::last , Position::last ) == Role::SE);
// clang-format on

// category_of(k_r, k_c) = 3 * (min(k_r, 3) - 1) + (min(k_c, 3) - 1)
// clang-format off
//                       k_r  k_c   category
static_assert(category_of(1,   1) == 0);
static_assert(category_of(1,   2) == 1);
static_assert(category_of(1,   3) == 2);
static_assert(category_of(2,   1) == 3);
static_assert(category_of(2,   2) == 4);
static_assert(category_of(2,   3) == 5);
static_assert(category_of(3,   1) == 6);
static_assert(category_of(3,   2) == 7);
static_assert(category_of(3,   3) == 8);
static_assert(category_of(17,  1) == 6);  // many inner pieces are still "three or more"
static_assert(category_of(4,  40) == 8);
// clang-format on

// --- helpers: segments of one tile, copied out of the constant evaluation -----------------

template <std::size_t N>
struct SegmentList {
  std::array<Segment, N> s{};
  index_t count = 0;  // what for_each_segment returned
  index_t seen = 0;   // how many times the callback ran
};

template <std::size_t N, class Src, class Dst>
constexpr SegmentList<N> segments_of(const Src& src, const Dst& dst, const Region& r, TileIndex t) {
  SegmentList<N> out;
  out.count = redist::for_each_segment(src, dst, r, t, [&](const Segment& g) {
    if (out.seen < static_cast<index_t>(N)) out.s[static_cast<std::size_t>(out.seen)] = g;
    ++out.seen;
  });
  return out;
}

template <std::size_t N>
constexpr bool roles_are(const SegmentList<N>& l, const std::array<Role, N>& roles) {
  if (l.count != static_cast<index_t>(N) || l.seen != static_cast<index_t>(N)) return false;
  for (std::size_t k = 0; k < N; ++k)
    if (l.s[k].role != roles[k]) return false;
  return true;
}

// --- all nine categories: the papers' Fig. 9 set-up ---------------------------------------
// Source tiles 3 x 3; target tiles MB_t = 3 * (cid / 3 + 1), NB_t = 3 * (cid % 3 + 1)
// (Cao et al. 2021 section 8.3); the whole 18 x 18 matrix.

template <index_t Cid>
constexpr int fig9_category() {
  constexpr Tiling src{UniformAxis<3>(18), UniformAxis<3>(18)};
  constexpr Tiling dst{UniformAxis<3 * (Cid / 3 + 1)>(18), UniformAxis<3 * (Cid % 3 + 1)>(18)};
  constexpr Region r = Region::whole({18, 18});
  return category(src, dst, r, {0, 0});
}
static_assert(fig9_category<0>() == 0);
static_assert(fig9_category<1>() == 1);
static_assert(fig9_category<2>() == 2);
static_assert(fig9_category<3>() == 3);
static_assert(fig9_category<4>() == 4);
static_assert(fig9_category<5>() == 5);
static_assert(fig9_category<6>() == 6);
static_assert(fig9_category<7>() == 7);
static_assert(fig9_category<8>() == 8);

// Same nine categories reached with one target tile size, only by the source tile size and
// the displacement: a 3-wide target interval meets one source tile of 3 when aligned, two
// when shifted by one element, and three source tiles of 1.
template <index_t SrcRow, index_t SrcCol>
constexpr int shifted_category(index_t shift_r, index_t shift_c) {
  const Tiling src{UniformAxis<SrcRow>(12), UniformAxis<SrcCol>(12)};
  const Tiling dst{UniformAxis<3>(9), UniformAxis<3>(9)};
  const Region r{{9, 9}, {shift_r, shift_c}, {0, 0}};
  return category(src, dst, r, {1, 1});
}
// clang-format off
//                           src tile   shift      category
static_assert(shifted_category<3, 3>(0, 0) == 0);
static_assert(shifted_category<3, 3>(0, 1) == 1);
static_assert(shifted_category<3, 1>(0, 1) == 2);
static_assert(shifted_category<3, 3>(2, 0) == 3);
static_assert(shifted_category<3, 3>(1, 2) == 4);
static_assert(shifted_category<3, 1>(1, 0) == 5);
static_assert(shifted_category<1, 3>(0, 0) == 6);
static_assert(shifted_category<1, 3>(3, 1) == 7);
static_assert(shifted_category<1, 1>(2, 3) == 8);
// clang-format on

// --- hand-drawn case 1: one 9 x 9 target tile over source tiles of 3 (category 8) ---------
//
//        cols 0-2   3-5   6-8
//      +-------+-------+-------+
// 0-2  |  NW   |   N   |  NE   |   Each cell is one source tile and one segment.
//      +-------+-------+-------+   for_each_segment emits them column piece by column
// 3-5  |   W   |   I   |   E   |   piece, row pieces inner-most:
//      +-------+-------+-------+     NW W SW | N I S | NE E SE
// 6-8  |  SW   |   S   |  SE   |
//      +-------+-------+-------+

constexpr Tiling src3{UniformAxis<3>(9), UniformAxis<3>(9)};
constexpr Tiling dst9{UniformAxis<9>(9), UniformAxis<9>(9)};
constexpr Region whole9 = Region::whole({9, 9});
constexpr auto case1 = segments_of<9>(src3, dst9, whole9, {0, 0});

static_assert(category(src3, dst9, whole9, {0, 0}) == 8);
static_assert(redist::piece_count(src3.rows(), dst9.rows(), whole9.axis<Axis::row>(), 0) == 3);
static_assert(roles_are(case1, {Role::NW, Role::W, Role::SW, Role::N, Role::I, Role::S, Role::NE,
                                Role::E, Role::SE}));
// Every role appears once: the papers' NW N NE W I E SW S SE, indexed by Role's value.
static_assert([] {
  std::array<int, 9> seen{};
  for (const Segment& s : case1.s) ++seen[static_cast<std::size_t>(s.role)];
  for (int v : seen)
    if (v != 1) return false;
  return true;
}());
// clang-format off
//                  src_tile       dst_tile     src_offset       dst_offset       extent         role
static_assert(case1.s[0] == Segment{{0, 0}, {0, 0}, TileOffset{0, 0}, TileOffset{0, 0}, Extents{3, 3}, Role::NW});
static_assert(case1.s[1] == Segment{{1, 0}, {0, 0}, TileOffset{0, 0}, TileOffset{3, 0}, Extents{3, 3}, Role::W});
static_assert(case1.s[2] == Segment{{2, 0}, {0, 0}, TileOffset{0, 0}, TileOffset{6, 0}, Extents{3, 3}, Role::SW});
static_assert(case1.s[4] == Segment{{1, 1}, {0, 0}, TileOffset{0, 0}, TileOffset{3, 3}, Extents{3, 3}, Role::I});
static_assert(case1.s[6] == Segment{{0, 2}, {0, 0}, TileOffset{0, 0}, TileOffset{0, 6}, Extents{3, 3}, Role::NE});
static_assert(case1.s[8] == Segment{{2, 2}, {0, 0}, TileOffset{0, 0}, TileOffset{6, 6}, Extents{3, 3}, Role::SE});
// clang-format on

// --- hand-drawn case 2: displacements, source tiles 4 x 4, target tiles 6 x 6 --------------
// Region 10 x 10 from source (1, 2) to target (0, 0): target row i reads source row i + 1,
// target column j reads source column j + 2.
//
// Target tile (0, 0): rows [0,6) <- source [1,7) = [1,4) in tile 0 | [4,7) in tile 1
//                     cols [0,6) <- source [2,8) = [2,4) in tile 0 | [4,8) in tile 1
//          0  1 | 2  3  4  5        (target columns)
//        +------+------------+
//   0..2 |  NW  |     NE     |
//        +------+------------+
//   3..5 |  SW  |     SE     |      category 4
//        +------+------------+
// Target tile (1, 1): rows [6,10) <- [7,11) = [7,8) in tile 1 | [8,11) in tile 2
//                     cols [6,10) <- [8,12) = all in tile 2        -> N over S, category 3

constexpr Tiling src4{UniformAxis<4>(16), UniformAxis<4>(16)};
constexpr Tiling dst6{UniformAxis<6>(12), UniformAxis<6>(12)};
constexpr Region disp{{10, 10}, {1, 2}, {0, 0}};
static_assert(disp.axis<Axis::row>().shift() == 1 && disp.axis<Axis::col>().shift() == 2);
constexpr auto case2a = segments_of<4>(src4, dst6, disp, {0, 0});
constexpr auto case2b = segments_of<2>(src4, dst6, disp, {1, 1});

static_assert(category(src4, dst6, disp, {0, 0}) == 4);
static_assert(category(src4, dst6, disp, {0, 1}) == 3);  // cols [6,10) <- [8,12): one tile
static_assert(category(src4, dst6, disp, {1, 0}) == 4);
static_assert(category(src4, dst6, disp, {1, 1}) == 3);
static_assert(roles_are(case2a, {Role::NW, Role::SW, Role::NE, Role::SE}));
static_assert(roles_are(case2b, {Role::N, Role::S}));
// clang-format off
//                   src_tile       dst_tile     src_offset       dst_offset       extent         role
static_assert(case2a.s[0] == Segment{{0, 0}, {0, 0}, TileOffset{1, 2}, TileOffset{0, 0}, Extents{3, 2}, Role::NW});
static_assert(case2a.s[1] == Segment{{1, 0}, {0, 0}, TileOffset{0, 2}, TileOffset{3, 0}, Extents{3, 2}, Role::SW});
static_assert(case2a.s[2] == Segment{{0, 1}, {0, 0}, TileOffset{1, 0}, TileOffset{0, 2}, Extents{3, 4}, Role::NE});
static_assert(case2a.s[3] == Segment{{1, 1}, {0, 0}, TileOffset{0, 0}, TileOffset{3, 2}, Extents{3, 4}, Role::SE});
static_assert(case2b.s[0] == Segment{{1, 2}, {1, 1}, TileOffset{3, 0}, TileOffset{0, 0}, Extents{1, 4}, Role::N});
static_assert(case2b.s[1] == Segment{{2, 2}, {1, 1}, TileOffset{0, 0}, TileOffset{1, 0}, Extents{3, 4}, Role::S});
// clang-format on

// --- hand-drawn case 3: rectangular tiles, displacement on both sides ---------------------
// Source tiles 2 x 5 (20 x 20), target tiles 7 x 3 (14 x 12); region 10 x 8 from source
// (3, 4) to target (2, 1): shifts +1 (rows), +3 (columns). The region starts inside target
// tile (0, 0), so only its part [2,7) x [1,3) is covered.
//
// Target tile (0, 0): rows [2,7) <- [3,8) = [3,4) t1 | [4,6) t2 | [6,8) t3    k_r = 3
//                     cols [1,3) <- [4,6) = [4,5) t0 | [5,6) t1               k_c = 2
//          col 1 | col 2
//        +-------+-------+
//   row 2|  NW   |  NE   |
//   3..4 |   W   |   E   |     category 7
//   5..6 |  SW   |  SE   |
//        +-------+-------+
// Target tile (1, 1): rows [7,12) <- [8,13), three source tiles; cols [3,6) <- [6,9), all
// in source tile 1 -> N / I / S, category 6.

constexpr Tiling src2x5{UniformAxis<2>(20), UniformAxis<5>(20)};
constexpr Tiling dst7x3{UniformAxis<7>(14), UniformAxis<3>(12)};
constexpr Region rect{{10, 8}, {3, 4}, {2, 1}};
constexpr auto case3a = segments_of<6>(src2x5, dst7x3, rect, {0, 0});
constexpr auto case3b = segments_of<3>(src2x5, dst7x3, rect, {1, 1});

static_assert(category(src2x5, dst7x3, rect, {0, 0}) == 7);
static_assert(category(src2x5, dst7x3, rect, {1, 1}) == 6);
static_assert(category(src2x5, dst7x3, rect, {1, 2}) == 7);
static_assert(roles_are(case3a, {Role::NW, Role::W, Role::SW, Role::NE, Role::E, Role::SE}));
static_assert(roles_are(case3b, {Role::N, Role::I, Role::S}));
// clang-format off
//                   src_tile       dst_tile     src_offset       dst_offset       extent         role
static_assert(case3a.s[0] == Segment{{1, 0}, {0, 0}, TileOffset{1, 4}, TileOffset{2, 1}, Extents{1, 1}, Role::NW});
static_assert(case3a.s[1] == Segment{{2, 0}, {0, 0}, TileOffset{0, 4}, TileOffset{3, 1}, Extents{2, 1}, Role::W});
static_assert(case3a.s[2] == Segment{{3, 0}, {0, 0}, TileOffset{0, 4}, TileOffset{5, 1}, Extents{2, 1}, Role::SW});
static_assert(case3a.s[3] == Segment{{1, 1}, {0, 0}, TileOffset{1, 0}, TileOffset{2, 2}, Extents{1, 1}, Role::NE});
static_assert(case3a.s[5] == Segment{{3, 1}, {0, 0}, TileOffset{0, 0}, TileOffset{5, 2}, Extents{2, 1}, Role::SE});
static_assert(case3b.s[0] == Segment{{4, 1}, {1, 1}, TileOffset{0, 1}, TileOffset{0, 0}, Extents{2, 3}, Role::N});
static_assert(case3b.s[1] == Segment{{5, 1}, {1, 1}, TileOffset{0, 1}, TileOffset{2, 0}, Extents{2, 3}, Role::I});
static_assert(case3b.s[2] == Segment{{6, 1}, {1, 1}, TileOffset{0, 1}, TileOffset{4, 0}, Extents{1, 3}, Role::S});
// clang-format on

// --- hand-drawn case 4: irregular boundaries (constexpr std::vector) ----------------------
// Source rows {0,3,4,10}, columns of 5; target rows of 10, columns {0,2,10}; whole 10 x 10.
// Target tile (0, 0): rows cut at 3 and 4 (N, I, S); cols [0,2) in source tile 0 -> cat. 6.
// Target tile (0, 1): rows as above; cols [2,10) <- [2,5) t0 | [5,10) t1 -> category 7,
// W segment = source tile (1, 0) rows [3,4) cols [2,5).

static_assert([] {
  const Tiling src{IrregularAxis{0, 3, 4, 10}, UniformAxis<>(10, 5)};
  const Tiling dst{UniformAxis<10>(10), IrregularAxis{0, 2, 10}};
  const Region r = Region::whole({10, 10});
  const std::vector<Segment> a = redist::segments(src, dst, r, {0, 0});
  const std::vector<Segment> b = redist::segments(src, dst, r, {0, 1});
  return category(src, dst, r, {0, 0}) == 6 && category(src, dst, r, {0, 1}) == 7 &&
         a.size() == 3 && a[0].role == Role::N && a[1].role == Role::I && a[2].role == Role::S &&
         a[1].extent == Extents{1, 2} && a[2].dst_offset == TileOffset{4, 0} && b.size() == 6 &&
         b[1] == Segment{{1, 0}, {0, 1}, {0, 2}, {3, 0}, {1, 3}, Role::W} &&
         b[5] == Segment{{2, 1}, {0, 1}, {0, 0}, {4, 3}, {6, 5}, Role::SE};
}());

// A region that misses a tile gives no segments (category() would throw: not constant).
static_assert(segments_of<1>(src4, dst6, Region{{3, 3}, {0, 0}, {0, 0}}, {1, 1}).count == 0);
static_assert(segments_of<1>(src4, dst6, Region{{0, 5}, {0, 0}, {0, 0}}, {0, 0}).count == 0);

}  // namespace
