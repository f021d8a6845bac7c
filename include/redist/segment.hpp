#pragma once
/// @file segment.hpp
/// Segment geometry (Cao et al. 2021, section 3, Fig. 2 and Fig. 3): how a target
/// tile is cut into segments, each lying in exactly one source tile. Pure and constexpr.
///
/// 1-D: target tile k_t covers the region's target interval [a, b) on one axis; those
/// elements come from source interval [a + shift, b + shift). Cutting it by the source
/// tile boundaries gives k >= 1 pieces: one (whole), two (first, last) or more
/// (first, inner..., last). This is a merge of two sorted boundary lists (Prylli's scan,
/// Prylli and Tourancheau 1996), so it costs O(pieces), never O(elements).
///
/// 2-D: the segments of a target tile are (row pieces) x (column pieces); its category
/// is 3 * (min(k_r, 3) - 1) + (min(k_c, 3) - 1), the nine cases of Fig. 3:
///
///   category:  0       1         2              3        4           5
///            +---+   +--+--+   +--+---+--+    +---+   +--+--+   +--+---+--+
///            | I |   |W |E |   |W | I |E |    | N |   |NW|NE|   |NW| N |NE|
///            +---+   +--+--+   +--+---+--+    +---+   +--+--+   +--+---+--+
///                                             | S |   |SW|SE|   |SW| S |SE|
///                                             +---+   +--+--+   +--+---+--+
///   category 6: N / I... / S stacked; 7: NW NE / W E... / SW SE; 8: all nine roles.
///
/// Roles: a piece's position on each axis picks a row band (first -> north, last ->
/// south, whole or inner -> middle) and a column band (first -> west, last -> east,
/// whole or inner -> middle); Role = 3 * row band + column band.

#include <vector>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// Where a 1-D piece sits among the pieces of its target tile.
enum class Position { whole, first, inner, last };

/// The nine segment roles of Fig. 3 (I is the middle one).
enum class Role { NW = 0, N, NE, W, I, E, SW, S, SE };

/// One 1-D piece: `length` elements starting at `src_offset` inside source tile
/// `src_tile` and at `dst_offset` inside target tile `dst_tile`.
struct Piece {
  index_t src_tile = 0;
  index_t dst_tile = 0;
  index_t src_offset = 0;
  index_t dst_offset = 0;
  index_t length = 0;
  friend constexpr bool operator==(const Piece&, const Piece&) = default;
};

/// One 2-D segment: the rectangle `extent` at `src_offset` in `src_tile`, landing at
/// `dst_offset` in `dst_tile`.
struct Segment {
  TileIndex src_tile;
  TileIndex dst_tile;
  TileOffset src_offset;
  TileOffset dst_offset;
  Extents extent;
  Role role = Role::I;
  friend constexpr bool operator==(const Segment&, const Segment&) = default;
};

/// @post position_of(k, count) is whole if count == 1, first for k == 0, last for
/// k == count - 1, inner otherwise.
constexpr Position position_of(index_t k, index_t count) {
  if (count == 1) return Position::whole;
  if (k == 0) return Position::first;
  if (k == count - 1) return Position::last;
  return Position::inner;
}

/// @post role_of(first, last) == Role::NE; role_of(whole, whole) == Role::I.
constexpr Role role_of(Position row, Position col) {
  constexpr auto band = [](Position p) {
    return p == Position::first ? 0 : p == Position::last ? 2 : 1;
  };
  return static_cast<Role>(3 * band(row) + band(col));
}

/// The category 0..8 of a tile cut into k_r row pieces and k_c column pieces.
/// @pre k_r >= 1 and k_c >= 1.
constexpr int category_of(index_t k_r, index_t k_c) {
  REDIST_EXPECTS(k_r >= 1 && k_c >= 1);
  const index_t r = k_r < 3 ? k_r : 3, c = k_c < 3 ? k_c : 3;
  return static_cast<int>(3 * (r - 1) + (c - 1));
}

/// The part [begin, end) of target tile k_t that the region covers on one axis (empty
/// when begin >= end).
struct Span {
  index_t begin = 0;
  index_t end = 0;
  constexpr index_t length() const { return end > begin ? end - begin : 0; }
};

template <TileAxis TA>
constexpr Span covered_span(const TA& dst, const AxisRegion& r, index_t k_t) {
  const index_t lo = dst.begin(k_t), hi = dst.begin(k_t + 1);
  return {lo > r.dst_origin ? lo : r.dst_origin,
          hi < r.dst_origin + r.length ? hi : r.dst_origin + r.length};
}

/// Calls f(Piece) for every piece of target tile k_t on one axis, in increasing order,
/// and returns their number (0 if the region misses the tile).
/// @pre 0 <= k_t < dst.count(); the region fits both axes.
/// @post the pieces' lengths add up to the covered length; consecutive pieces lie in
/// consecutive source tiles.
/// Example: src tiles of 4, dst tiles of 6, region length 12 from src 0 to dst 0;
/// target tile 1 = [6, 12) is cut into [6, 8) in source tile 1 and [8, 12) in tile 2.
template <TileAxis SA, TileAxis TA, class F>
constexpr index_t for_each_piece(const SA& src, const TA& dst, const AxisRegion& r, index_t k_t,
                                 F&& f) {
  const Span span = covered_span(dst, r, k_t);
  if (span.length() == 0) return 0;
  const index_t shift = r.shift(), tile_begin = dst.begin(k_t);
  index_t s = span.begin + shift;
  const index_t s_end = span.end + shift;
  index_t k_s = src.tile_of(s);
  index_t count = 0;
  while (s < s_end) {
    const index_t src_begin = src.begin(k_s), src_end = src.begin(k_s + 1);
    const index_t e = src_end < s_end ? src_end : s_end;
    f(Piece{k_s, k_t, s - src_begin, s - shift - tile_begin, e - s});
    ++count;
    s = e;
    ++k_s;
  }
  return count;
}

/// Number of pieces of target tile k_t on one axis (k_r or k_c of the papers).
template <TileAxis SA, TileAxis TA>
constexpr index_t piece_count(const SA& src, const TA& dst, const AxisRegion& r, index_t k_t) {
  return for_each_piece(src, dst, r, k_t, [](const Piece&) {});
}

namespace detail {
template <TileShape Src, TileShape Dst>
constexpr void check_tile_touched(const Src& src, const Dst& dst, const Region& r, TileIndex t) {
  const Extents n = tile_counts(dst);
  if (t.m < 0 || t.m >= n.rows || t.n < 0 || t.n >= n.cols)
    throw invalid_argument(describe("target tile outside the tile grid", "dst_tile", t));
  if (piece_count(src.rows(), dst.rows(), r.axis<Axis::row>(), t.m) == 0 ||
      piece_count(src.cols(), dst.cols(), r.axis<Axis::col>(), t.n) == 0)
    throw invalid_argument(describe("target tile does not intersect the region", "dst_tile", t));
}
}  // namespace detail

/// Category 0..8 of target tile t for region r (papers' Fig. 3).
/// @throws invalid_argument if t is outside the target or does not meet the region.
/// Example: `static_assert(category(src, dst, r, {0, 0}) == 4);`
template <TileShape Src, TileShape Dst>
constexpr int category(const Src& src, const Dst& dst, const Region& r, TileIndex t) {
  detail::check_tile_touched(src, dst, r, t);
  return category_of(piece_count(src.rows(), dst.rows(), r.axis<Axis::row>(), t.m),
                     piece_count(src.cols(), dst.cols(), r.axis<Axis::col>(), t.n));
}

/// The 2-D segment formed by a row piece and a column piece.
constexpr Segment make_segment(const Piece& row, const Piece& col, Role role) {
  return Segment{{row.src_tile, col.src_tile},     {row.dst_tile, col.dst_tile},
                 {row.src_offset, col.src_offset}, {row.dst_offset, col.dst_offset},
                 {row.length, col.length},         role};
}

/// Calls f(Segment) for every segment of target tile t, column piece by column piece,
/// row pieces inner-most (the order messages use). Returns the segment count, 0 if t
/// does not meet the region.
/// @post the segments partition the region's part of tile t; each lies in one source tile.
template <TileShape Src, TileShape Dst, class F>
constexpr index_t for_each_segment(const Src& src, const Dst& dst, const Region& r, TileIndex t,
                                   F&& f) {
  const AxisRegion rr = r.axis<Axis::row>(), rc = r.axis<Axis::col>();
  const index_t k_r = piece_count(src.rows(), dst.rows(), rr, t.m);
  const index_t k_c = piece_count(src.cols(), dst.cols(), rc, t.n);
  if (k_r == 0 || k_c == 0) return 0;
  index_t c = 0;
  for_each_piece(src.cols(), dst.cols(), rc, t.n, [&](const Piece& col) {
    index_t a = 0;
    for_each_piece(src.rows(), dst.rows(), rr, t.m, [&](const Piece& row) {
      f(make_segment(row, col, role_of(position_of(a, k_r), position_of(c, k_c))));
      ++a;
    });
    ++c;
  });
  return k_r * k_c;
}

/// All segments of target tile t (see for_each_segment).
template <TileShape Src, TileShape Dst>
constexpr std::vector<Segment> segments(const Src& src, const Dst& dst, const Region& r,
                                        TileIndex t) {
  std::vector<Segment> out;
  for_each_segment(src, dst, r, t, [&](const Segment& s) { out.push_back(s); });
  return out;
}

}  // namespace redist
