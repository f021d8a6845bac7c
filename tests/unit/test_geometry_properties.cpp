// Property tests of the segment geometry (include/redist/segment.hpp) over thousands of
// random configurations: for every target tile the region touches, the segments partition
// the region's part of the tile exactly once, every element comes from the right source
// element, there are k_r x k_c segments with the documented roles and order, and the
// category is 3 * (min(k_r, 3) - 1) + (min(k_c, 3) - 1).
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <redist/error.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;
using test::Rng;

/// Boundaries {0, ..., extent} with tiles of 1..max_tile elements.
IrregularAxis random_irregular(Rng& rng, index_t extent, index_t max_tile) {
  std::vector<index_t> b{0};
  while (b.back() < extent) b.push_back(std::min(extent, b.back() + rng.in(1, max_tile)));
  return IrregularAxis(std::move(b), extent);
}

/// k of the papers, computed without the library's scan: the source tiles that hold the
/// first and the last covered element, and everything between.
template <class SA, class TA>
index_t expected_pieces(const SA& src, const TA& dst, const AxisRegion& r, index_t k_t) {
  const index_t lo = std::max(dst.begin(k_t), r.dst_origin);
  const index_t hi = std::min(dst.begin(k_t + 1), r.dst_origin + r.length);
  if (lo >= hi) return 0;
  return src.tile_of(hi - 1 + r.shift()) - src.tile_of(lo + r.shift()) + 1;
}

/// Row band (0 north, 1 middle, 2 south) of piece a among k, independently of role_of.
int band(index_t a, index_t k) { return k == 1 ? 1 : a == 0 ? 0 : a == k - 1 ? 2 : 1; }

struct Stats {
  index_t tiles = 0;
  index_t segments = 0;
  index_t elements = 0;
  std::array<index_t, 9> categories{};
};

/// Checks every target tile of dst for region r; returns the first failure, empty if none.
template <class Src, class Dst>
std::string check_region(const Src& src, const Dst& dst, const Region& r, Stats& stats) {
  std::ostringstream err;
  validate_region(r, src, dst);
  const AxisRegion rr = r.axis<Axis::row>(), rc = r.axis<Axis::col>();
  const Extents n = tile_counts(dst);
  index_t covered = 0;
  std::vector<int> mark;
  for (index_t mt = 0; mt < n.rows; ++mt) {
    for (index_t nt = 0; nt < n.cols; ++nt) {
      const TileIndex t{mt, nt};
      const index_t k_r = expected_pieces(src.rows(), dst.rows(), rr, mt);
      const index_t k_c = expected_pieces(src.cols(), dst.cols(), rc, nt);
      std::vector<Segment> segs;
      const index_t got =
          for_each_segment(src, dst, r, t, [&](const Segment& s) { segs.push_back(s); });
      if (k_r == 0 || k_c == 0) {
        if (got != 0 || !segs.empty()) err << t << ": segments in an untouched tile";
        if (!err.str().empty()) return err.str();
        continue;
      }
      ++stats.tiles;
      stats.segments += got;
      if (piece_count(src.rows(), dst.rows(), rr, mt) != k_r) err << t << ": k_r != " << k_r;
      if (piece_count(src.cols(), dst.cols(), rc, nt) != k_c) err << t << ": k_c != " << k_c;
      if (got != k_r * k_c || static_cast<index_t>(segs.size()) != got)
        err << t << ": " << segs.size() << " segments, expected " << k_r * k_c;
      const int cat = 3 * static_cast<int>(std::min<index_t>(k_r, 3) - 1) +
                      static_cast<int>(std::min<index_t>(k_c, 3) - 1);
      if (category(src, dst, r, t) != cat) err << t << ": category != " << cat;
      if (!err.str().empty()) return err.str();
      ++stats.categories[static_cast<std::size_t>(cat)];

      const Extents te = tile_extents(dst, t);
      const ElementIndex to = tile_origin(dst, t);
      mark.assign(static_cast<std::size_t>(te.size()), 0);
      for (std::size_t k = 0; k < segs.size(); ++k) {
        const Segment& s = segs[k];
        // Column pieces outer, row pieces inner.
        const index_t a = static_cast<index_t>(k) % k_r, c = static_cast<index_t>(k) / k_r;
        if (s.role != static_cast<Role>(3 * band(a, k_r) + band(c, k_c)))
          err << t << " segment " << k << ": role " << static_cast<int>(s.role);
        if (s.dst_tile != t) err << t << " segment " << k << ": dst_tile " << s.dst_tile;
        if (s.extent.rows <= 0 || s.extent.cols <= 0) err << t << " segment " << k << ": empty";
        const ElementIndex so = tile_origin(src, s.src_tile);
        const Extents se = tile_extents(src, s.src_tile);
        if (s.src_offset.i + s.extent.rows > se.rows || s.src_offset.j + s.extent.cols > se.cols)
          err << t << " segment " << k << ": leaves source tile " << s.src_tile;
        if (!err.str().empty()) return err.str();
        for (index_t j = 0; j < s.extent.cols; ++j) {
          for (index_t i = 0; i < s.extent.rows; ++i) {
            const index_t li = s.dst_offset.i + i, lj = s.dst_offset.j + j;
            if (li < 0 || lj < 0 || li >= te.rows || lj >= te.cols) {
              err << t << " segment " << k << ": outside target tile";
              return err.str();
            }
            ++mark[static_cast<std::size_t>(li + lj * te.rows)];
            // Brute force: global target (I, J) -> source (I + shift_r, J + shift_c).
            const ElementIndex g_src{to.i + li + rr.shift(), to.j + lj + rc.shift()};
            if (tile_of(src, g_src) != s.src_tile ||
                ElementIndex{so.i + s.src_offset.i + i, so.j + s.src_offset.j + j} != g_src) {
              err << t << " segment " << k << ": element " << ElementIndex{li, lj}
                  << " does not come from source " << g_src;
              return err.str();
            }
          }
        }
      }
      // Exactly once inside the region, never outside it.
      for (index_t lj = 0; lj < te.cols; ++lj)
        for (index_t li = 0; li < te.rows; ++li) {
          const index_t gi = to.i + li, gj = to.j + lj;
          const bool inside = gi >= rr.dst_origin && gi < rr.dst_origin + rr.length &&
                              gj >= rc.dst_origin && gj < rc.dst_origin + rc.length;
          const int want = inside ? 1 : 0;
          const int have = mark[static_cast<std::size_t>(li + lj * te.rows)];
          if (have != want) {
            err << t << ": element " << ElementIndex{li, lj} << " covered " << have << " times";
            return err.str();
          }
          covered += have;
        }
    }
  }
  stats.elements += covered;
  if (covered != r.extent.size()) err << "covered " << covered << " of " << r.extent.size();
  return err.str();
}

/// Every (source tile, target tile) intersection, as seen from the target side.
using Key = std::tuple<index_t, index_t, index_t, index_t, index_t, index_t, index_t, index_t,
                       index_t, index_t>;
template <class Src, class Dst>
std::vector<Key> all_pieces(const Src& src, const Dst& dst, const Region& r, bool swap) {
  std::vector<Key> out;
  const Extents n = tile_counts(dst);
  for (index_t m = 0; m < n.rows; ++m)
    for (index_t k = 0; k < n.cols; ++k)
      for_each_segment(src, dst, r, {m, k}, [&](const Segment& s) {
        if (swap)
          out.emplace_back(s.dst_tile.m, s.dst_tile.n, s.src_tile.m, s.src_tile.n, s.dst_offset.i,
                           s.dst_offset.j, s.src_offset.i, s.src_offset.j, s.extent.rows,
                           s.extent.cols);
        else
          out.emplace_back(s.src_tile.m, s.src_tile.n, s.dst_tile.m, s.dst_tile.n, s.src_offset.i,
                           s.src_offset.j, s.dst_offset.i, s.dst_offset.j, s.extent.rows,
                           s.extent.cols);
      });
  std::sort(out.begin(), out.end());
  return out;
}

/// A random region that is the full or an empty extent more often than chance.
Region edgy_region(Rng& rng, Extents s, Extents d) {
  Region r;
  const index_t max_rows = std::min(s.rows, d.rows), max_cols = std::min(s.cols, d.cols);
  r.extent.rows = rng.chance(20) ? max_rows : rng.in(rng.chance(3) ? 0 : 1, max_rows);
  r.extent.cols = rng.chance(20) ? max_cols : rng.in(rng.chance(3) ? 0 : 1, max_cols);
  r.src_origin = {rng.in(0, s.rows - r.extent.rows), rng.in(0, s.cols - r.extent.cols)};
  r.dst_origin = {rng.in(0, d.rows - r.extent.rows), rng.in(0, d.cols - r.extent.cols)};
  return r;
}

std::string describe(const Region& r) {
  std::ostringstream os;
  os << "region " << r.extent << " from " << r.src_origin << " to " << r.dst_origin;
  return os.str();
}

/// Runs `count` random configurations built by `make(rng) -> (src, dst)`.
template <class Make>
Stats run_random(std::uint64_t seed, int count, Make make) {
  Rng rng(seed);
  Stats stats;
  for (int c = 0; c < count; ++c) {
    const auto [src, dst] = make(rng);
    const Region r = edgy_region(rng, element_extents(src), element_extents(dst));
    INFO("configuration ", c, ": ", describe(r), ", source ", element_extents(src), " in ",
         tile_counts(src), " tiles, target ", element_extents(dst), " in ", tile_counts(dst),
         " tiles");
    const std::string failure = check_region(src, dst, r, stats);
    CHECK_MESSAGE(failure.empty(), failure);
    if (!failure.empty()) break;  // one detailed failure is enough
    if (c % 8 == 0) {
      // src -> dst -> src: the inverse problem sees the same intersections.
      const Region back{r.extent, r.dst_origin, r.src_origin};
      CHECK(all_pieces(src, dst, r, false) == all_pieces(dst, src, back, true));
    }
  }
  return stats;
}

void check_coverage(const Stats& s, int configs) {
  // The generators must really reach every case, else the test proves little.
  CHECK(s.tiles > configs);
  CHECK(s.segments > s.tiles);
  for (std::size_t c = 0; c < 9; ++c) {
    INFO("category ", c);
    CHECK(s.categories[c] > 0);
  }
}

}  // namespace

TEST_CASE("segments: random uniform tilings (static and dynamic extents)") {
  constexpr int configs = 1500;
  const Stats s = run_random(0x5EED0001u, configs, [](Rng& rng) {
    const index_t ms = rng.in(1, 150), ns = rng.in(1, 150), mt = rng.in(1, 150),
                  nt = rng.in(1, 150);
    using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
    return std::pair{Shape{UniformAxis<>(ms, rng.in(1, 50)), UniformAxis<>(ns, rng.in(1, 50))},
                     Shape{UniformAxis<>(mt, rng.in(1, 50)), UniformAxis<>(nt, rng.in(1, 50))}};
  });
  check_coverage(s, configs);
}

TEST_CASE("segments: random irregular tilings") {
  constexpr int configs = 1500;
  const Stats s = run_random(0x5EED0002u, configs, [](Rng& rng) {
    const index_t ms = rng.in(1, 150), ns = rng.in(1, 150), mt = rng.in(1, 150),
                  nt = rng.in(1, 150);
    using Shape = Tiling<IrregularAxis, IrregularAxis>;
    return std::pair{
        Shape{random_irregular(rng, ms, rng.in(1, 50)), random_irregular(rng, ns, rng.in(1, 50))},
        Shape{random_irregular(rng, mt, rng.in(1, 50)), random_irregular(rng, nt, rng.in(1, 50))}};
  });
  check_coverage(s, configs);
}

TEST_CASE("segments: mixed static, dynamic and irregular axes") {
  constexpr int configs = 800;
  const Stats s = run_random(0x5EED0003u, configs, [](Rng& rng) {
    const index_t ms = rng.in(1, 120), ns = rng.in(1, 120), mt = rng.in(1, 120),
                  nt = rng.in(1, 120);
    return std::pair{
        Tiling{UniformAxis<7>(ms), random_irregular(rng, ns, rng.in(1, 30))},
        Tiling{random_irregular(rng, mt, rng.in(1, 30)), UniformAxis<>(nt, rng.in(1, 30))}};
  });
  check_coverage(s, configs);
}

TEST_CASE("segments: 1 x 1 tiles") {
  Stats stats;
  using Shape = Tiling<UniformAxis<1>, UniformAxis<1>>;
  const Shape ones{UniformAxis<1>(6), UniformAxis<1>(5)};
  const Tiling big{UniformAxis<4>(8), UniformAxis<3>(6)};
  const Region r{{4, 3}, {1, 2}, {2, 1}};
  CHECK(check_region(ones, ones, r, stats).empty());
  CHECK(stats.categories[0] == 12);  // one segment per 1 x 1 target tile
  CHECK(stats.segments == 12);
  // 1 x 1 source under 4 x 3 target tiles: every fully covered target tile is category 8.
  stats = {};
  CHECK(check_region(Shape{UniformAxis<1>(8), UniformAxis<1>(6)}, big, Region::whole({8, 6}), stats)
            .empty());
  CHECK(stats.categories[8] == 4);
  CHECK(stats.segments == 48);
  CHECK(category(Shape{UniformAxis<1>(8), UniformAxis<1>(6)}, big, Region::whole({8, 6}), {1, 1}) ==
        8);
}

TEST_CASE("segments: a region of one element") {
  const Tiling src{UniformAxis<>(20, 6), UniformAxis<>(20, 7)};
  const Tiling dst{UniformAxis<>(15, 4), UniformAxis<>(15, 5)};
  const Region r{{1, 1}, {13, 6}, {9, 11}};  // source tile (2, 0), target tile (2, 2)
  Stats stats;
  CHECK(check_region(src, dst, r, stats).empty());
  CHECK(stats.tiles == 1);
  const std::vector<Segment> s = segments(src, dst, r, {2, 2});
  REQUIRE(s.size() == 1);
  CHECK(s[0] == Segment{{2, 0}, {2, 2}, {1, 6}, {1, 1}, {1, 1}, Role::I});
  CHECK(category(src, dst, r, {2, 2}) == 0);
  CHECK_THROWS_AS(category(src, dst, r, {2, 1}), invalid_argument);
}

TEST_CASE("segments: an empty region has no segments") {
  const Tiling src{UniformAxis<>(20, 6), UniformAxis<>(20, 7)};
  const Tiling dst{UniformAxis<>(15, 4), UniformAxis<>(15, 5)};
  // clang-format off
  const std::vector<Region> regions = {
      //  extent     src_origin  dst_origin
      {{0, 0},   {0, 0},     {0, 0}},
      {{0, 10},  {3, 4},     {5, 5}},
      {{10, 0},  {3, 4},     {5, 5}},
      {{0, 0},   {20, 20},   {15, 15}},  // origin at the very end is legal when empty
  };
  // clang-format on
  for (const Region& r : regions) {
    INFO(describe(r));
    CHECK_NOTHROW(validate_region(r, src, dst));
    CHECK(r.empty());
    for (index_t m = 0; m < 4; ++m)
      for (index_t n = 0; n < 3; ++n) {
        CHECK(for_each_segment(src, dst, r, {m, n}, [](const Segment&) { FAIL("a segment"); }) ==
              0);
        CHECK(segments(src, dst, r, {m, n}).empty());
        CHECK_THROWS_AS(category(src, dst, r, {m, n}), invalid_argument);
      }
  }
}

TEST_CASE("segments: category() rejects tiles outside the target grid, naming the tile") {
  const Tiling src{UniformAxis<>(20, 6), UniformAxis<>(20, 7)};
  const Tiling dst{UniformAxis<>(15, 4), UniformAxis<>(15, 5)};
  const Region r = Region::whole({15, 15});
  try {
    (void)category(src, dst, r, {4, 0});
    FAIL("no exception");
  } catch (const invalid_argument& e) {
    CHECK(std::string(e.what()).find("dst_tile = tile(4, 0)") != std::string::npos);
  }
  CHECK_THROWS_AS(category(src, dst, r, {0, -1}), invalid_argument);
}

TEST_CASE("for_each_piece: the documented 1-D example") {
  // src tiles of 4, dst tiles of 6, region length 12 from src 0 to dst 0: target tile 1 =
  // [6, 12) is cut into [6, 8) in source tile 1 and [8, 12) in tile 2.
  const UniformAxis<> src(12, 4), dst(12, 6);
  const AxisRegion r{12, 0, 0};
  std::vector<Piece> p;
  CHECK(for_each_piece(src, dst, r, 1, [&](const Piece& x) { p.push_back(x); }) == 2);
  REQUIRE(p.size() == 2);
  // clang-format off
  //                  src_tile dst_tile src_offset dst_offset length
  CHECK(p[0] == Piece{1,       1,       2,         0,         2});
  CHECK(p[1] == Piece{2,       1,       0,         2,         4});
  // clang-format on
  CHECK(covered_span(dst, r, 1).length() == 6);
  CHECK(covered_span(dst, AxisRegion{3, 0, 0}, 1).length() == 0);
}
