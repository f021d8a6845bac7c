#pragma once
/// @file plan/axis_groups.hpp
/// (Over 350 lines: the scan below is one class, AxisGroups, kept beside its worked example.)
/// The 1-D half of the plan: the pieces of one axis (see axis_cut.hpp), grouped
/// by owner coordinates and compressed into strided runs, so that a block-cyclic to
/// block-cyclic move is described by a few groups per axis however long the axis is.
///
/// Every piece lies in one source tile and one target tile. With grid distributions
/// (distribution.hpp, GridDistribution) the owner of a tile is a function of its grid
/// row and grid column, so along one axis a piece has a source coordinate and a target
/// coordinate; the pair is the piece's *class*. Rank pairs exchange exactly the
/// Cartesian products of a row class and a column class, so the 2-D plan is built from
/// per-axis classes (plan.hpp).
///
/// Within a class, pieces are compressed into PieceGroups: `count` pieces of equal
/// length at equal offsets inside their tiles, whose start, piece index and both tile
/// indices advance by constant steps. Prylli and Tourancheau (1996, "Efficient
/// block-cyclic data redistribution", section 4.3 and propositions 4-5) show that the
/// intersection of two block-cyclic patterns is periodic with period
/// lcm(r P, r' P') elements: with uniform tiles every piece recurs one period later
/// with the same class, length and offsets, so each class holds one group per piece of
/// a period (at most r x r' of them, proposition 6) plus a few at the region's ends.
/// Irregular tiles break the pattern and give groups of one piece: still exact.
///
/// Worked example: 24 elements, source tiles of 2 on grid coordinates 0 1 0 1 ...,
/// target tiles of 3 on coordinates 0 1 0 1 ..., region [0, 24) to [0, 24):
///
///   element   0     3     6     9     12    15    18    21    24
///   source    |0 |1 |0 |1 |0 |1 |0 |1 |0 |1 |0 |1 |           tile 2, coordinate
///   target    |0    |1    |0    |1    |0    |1    |0    |1    tile 3, coordinate
///   pieces    0:[0,2) 1:[2,3) 2:[3,4) 3:[4,6) 4:[6,8) 5:[8,9) 6:[9,10) 7:[10,12)
///             8:[12,14) ... 13:[20,21) ... 15:[22,24)
///
/// The period is lcm(2 * 2, 3 * 2) = 12 elements = 8 pieces. Class (source 0, target 0)
/// holds pieces 0, 5, 8 and 13, compressed into two groups:
///
///   first_piece piece_step count length src_start stride src_tile(step) dst_tile(step) offsets
///        0          8        2     2        0       12       0 (6)          0 (4)      0 / 0
///        5          8        2     1        8       12       4 (6)          2 (4)      0 / 2
///
/// Cost: one scan of the axis's pieces, O(pieces per axis) time, or O(pieces per period)
/// when the tiles are uniform and the coordinate periods known (whole periods are
/// skipped); the kept groups are O(distinct runs) memory (the scan keeps one open group
/// per recurring piece shape).
///
/// PieceGroup is in plan/piece_group.hpp, what the scan knows of an axis's periods in
/// plan/axis_pattern.hpp.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/index.hpp>
#include <redist/plan/axis_pattern.hpp>
#include <redist/plan/piece_group.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// The pieces of one axis, grouped by class (source coordinate, target coordinate) and
/// compressed into PieceGroups (see the file comment).
class AxisGroups {
 public:
  /// Scans the pieces of region `r` on one axis in AxisCut order. `src_coord(k)` and
  /// `dst_coord(k)` give the coordinate of source / target tile k, in
  /// [0, pattern.src_extent) / [0, pattern.dst_extent); groups are kept only for classes
  /// with `keep(source coordinate, target coordinate)`, the counts below cover every
  /// class.
  ///
  /// When the pattern's period is known, the scan covers the first target tile, one
  /// period, and what is left after the last whole period: the periods in between hold
  /// the same pieces shifted (Prylli and Tourancheau 1996, propositions 5 and 7), so
  /// every group that ends in the scanned period grows by their number at once. The
  /// groups are the same as a full scan's; the time is O(pieces per period).
  /// @pre the region fits both axes (validate_region); periods and tiles, where given,
  /// are true of the axes and coordinate functions.
  /// @post groups_of(c_s, c_t) are sorted by first_piece; together the groups of a kept
  /// class hold each of its pieces exactly once.
  template <TileAxis SA, TileAxis TA, class SrcCoord, class DstCoord, class Keep>
  AxisGroups(const SA& src, const TA& dst, const AxisRegion& r, const AxisPattern& pattern,
             SrcCoord&& src_coord, DstCoord&& dst_coord, Keep&& keep)
      : pattern_(pattern) {
    REDIST_EXPECTS(pattern.src_extent >= 1 && pattern.dst_extent >= 1);
    const auto classes =
        static_cast<std::size_t>(pattern.src_extent) * static_cast<std::size_t>(pattern.dst_extent);
    class_first_.assign(classes + 1, 0);
    dst_pieces_.assign(static_cast<std::size_t>(pattern.dst_extent), {});
    first_src_tile_.assign(static_cast<std::size_t>(pattern.src_extent), -1);
    first_dst_tile_.assign(static_cast<std::size_t>(pattern.dst_extent), -1);
    if (r.length == 0) return;
    dst_begin_ = dst.tile_of(r.dst_origin);
    dst_end_ = dst.tile_of(r.dst_origin + r.length - 1) + 1;
    src_begin_ = src.tile_of(r.src_origin);
    src_end_ = src.tile_of(r.src_origin + r.length - 1) + 1;

    ScanState state;
    state.shift = r.shift();
    state.kept.resize(classes);
    for (int cs = 0; cs < pattern.src_extent; ++cs)
      for (int ct = 0; ct < pattern.dst_extent; ++ct)
        state.kept[class_of(cs, ct)] = keep(cs, ct) ? 1 : 0;

    // Tiles after the first and before the last are not clipped by the region: there
    // the pattern repeats every `period` elements = `per_tiles` target tiles.
    index_t k = dst_begin_;
    const index_t period = pattern.elements_period();
    const index_t per_tiles = period > 0 ? period / pattern.dst_tile : 0;
    if (per_tiles > 0 && dst_begin_ + 1 + 2 * per_tiles <= dst_end_ - 1) {
      const index_t w_begin = dst_begin_ + 1, w_end = w_begin + per_tiles;
      scan(src, dst, r, src_coord, dst_coord, state, dst_begin_, w_begin);
      const auto tiles_before = dst_pieces_;
      const index_t piece_before = state.piece;
      scan(src, dst, r, src_coord, dst_coord, state, w_begin, w_end);
      k = skip_periods(state, tiles_before, piece_before, w_end, period, per_tiles);
    }
    scan(src, dst, r, src_coord, dst_coord, state, k, dst_end_);
    finish(state, classes);
  }

  /// Every kept group, sorted by (class, first_piece).
  const std::vector<PieceGroup>& groups() const { return groups_; }
  /// Moves the groups out (the plan keeps them; this object keeps its counts).
  std::vector<PieceGroup> take_groups() { return std::move(groups_); }
  /// Group indices [first, last) of class (source coordinate c_s, target coordinate
  /// c_t); empty for a class that is not kept. @pre both coordinates in range.
  std::pair<index_t, index_t> groups_of(int c_s, int c_t) const {
    const std::size_t c = class_of(c_s, c_t);
    return {class_first_[c], class_first_[c + 1]};
  }
  /// Touched target tiles with coordinate c cut into 1, 2 and 3 or more pieces (the
  /// per-axis factor of the nine categories).
  const std::array<index_t, 3>& dst_tiles_by_pieces(int c) const {
    return dst_pieces_[static_cast<std::size_t>(c)];
  }
  /// The first touched source (target) tile with coordinate c, or -1 if none.
  index_t first_src_tile(int c) const { return first_src_tile_[static_cast<std::size_t>(c)]; }
  index_t first_dst_tile(int c) const { return first_dst_tile_[static_cast<std::size_t>(c)]; }
  /// Number of pieces on the axis (kept or not).
  index_t pieces() const { return pieces_; }
  /// Target tiles the scan visited: the planning work, at most two periods and the two
  /// end tiles when the period is known, every touched tile otherwise.
  index_t scanned_tiles() const { return scanned_tiles_; }
  /// Touched target tiles [dst_begin, dst_end) and source tiles [src_begin, src_end).
  index_t dst_begin() const { return dst_begin_; }
  index_t dst_end() const { return dst_end_; }
  index_t src_begin() const { return src_begin_; }
  index_t src_end() const { return src_end_; }
  const AxisPattern& pattern() const { return pattern_; }
  /// Heap bytes held.
  std::size_t memory_bytes() const {
    return groups_.capacity() * sizeof(PieceGroup) +
           (class_first_.capacity() + first_src_tile_.capacity() + first_dst_tile_.capacity()) *
               sizeof(index_t) +
           dst_pieces_.capacity() * sizeof(std::array<index_t, 3>);
  }

 private:
  // What a piece must share with the previous member of its group besides the steps:
  // class, tile phases within the coordinate periods, offsets and length. With uniform
  // tiles and known periods, pieces with one key are exactly one lcm period apart.
  struct Key {
    std::size_t cls;
    index_t src_phase, dst_phase, src_offset, dst_offset, length;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      std::uint64_t h = 0x9E3779B97F4A7C15ull;
      for (const std::uint64_t v :
           {static_cast<std::uint64_t>(k.cls), static_cast<std::uint64_t>(k.src_phase),
            static_cast<std::uint64_t>(k.dst_phase), static_cast<std::uint64_t>(k.src_offset),
            static_cast<std::uint64_t>(k.dst_offset), static_cast<std::uint64_t>(k.length)}) {
        h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9ull;
      }
      return static_cast<std::size_t>(h ^ (h >> 31));
    }
  };
  static constexpr index_t phase(index_t k, index_t period) { return period > 0 ? k % period : 0; }
  std::size_t class_of(int c_s, int c_t) const {
    return static_cast<std::size_t>(c_s) * static_cast<std::size_t>(pattern_.dst_extent) +
           static_cast<std::size_t>(c_t);
  }

  // The scan's working state: which classes are kept, the groups in order of their first
  // piece with their class, one open group per key, and the next piece's AxisCut index.
  struct ScanState {
    index_t shift = 0;
    index_t piece = 0;
    std::vector<char> kept;
    std::vector<PieceGroup> open_groups;
    std::vector<std::size_t> open_class;
    std::unordered_map<Key, std::size_t, KeyHash> open;
  };

  // The per-piece callback of scan(): a named function object, not a lambda. nvcc 13's
  // front end (EDG) stops with an internal error (i_copy_expr_tree) on a capturing lambda
  // passed to the constexpr for_each_piece inside a template when the result initialises
  // a const local that std::min then reads; keep this a plain struct.
  template <class SrcCoord>
  struct PieceVisitor {
    AxisGroups* self;
    ScanState* state;
    SrcCoord* src_coord;
    int ct;
    index_t tile_begin;
    void operator()(const Piece& p) const {
      self->add_piece(*state, static_cast<int>((*src_coord)(p.src_tile)), ct, tile_begin, p);
    }
  };

  // Scans target tiles [k_begin, k_end): their pieces go to add_piece, their piece counts
  // to dst_pieces_ and first_dst_tile_.
  template <TileAxis SA, TileAxis TA, class SrcCoord, class DstCoord>
  void scan(const SA& src, const TA& dst, const AxisRegion& r, SrcCoord& src_coord,
            DstCoord& dst_coord, ScanState& state, index_t k_begin, index_t k_end) {
    scanned_tiles_ += std::max<index_t>(0, k_end - k_begin);
    for (index_t k = k_begin; k < k_end; ++k) {
      const index_t tile_begin = dst.begin(k);
      const int ct = static_cast<int>(dst_coord(k));
      REDIST_EXPECTS(0 <= ct && ct < pattern_.dst_extent);
      const PieceVisitor<SrcCoord> visit{this, &state, &src_coord, ct, tile_begin};
      const index_t n = for_each_piece(src, dst, r, k, visit);
      dst_pieces_[static_cast<std::size_t>(ct)]
                 [static_cast<std::size_t>(std::min<index_t>(n, 3) - 1)] += 1;
      index_t& first_dst = first_dst_tile_[static_cast<std::size_t>(ct)];
      if (first_dst < 0) first_dst = k;
    }
  }

  // Piece p of a target tile with coordinate ct beginning at global target element
  // tile_begin, its source tile having coordinate cs: opens or extends its group if its
  // class is kept, and counts it.
  void add_piece(ScanState& state, int cs, int ct, index_t tile_begin, const Piece& p) {
    REDIST_EXPECTS(0 <= cs && cs < pattern_.src_extent);
    index_t& first_src = first_src_tile_[static_cast<std::size_t>(cs)];
    if (first_src < 0) first_src = p.src_tile;
    const std::size_t c = class_of(cs, ct);
    if (state.kept[c]) {
      const index_t dst_start = tile_begin + p.dst_offset, src_start = dst_start + state.shift;
      const Key key{c,
                    phase(p.src_tile, pattern_.src_period),
                    phase(p.dst_tile, pattern_.dst_period),
                    p.src_offset,
                    p.dst_offset,
                    p.length};
      const auto [it, inserted] = state.open.try_emplace(key, state.open_groups.size());
      if (inserted || !extend_group(state.open_groups[it->second], p, state.piece, src_start)) {
        it->second = state.open_groups.size();
        state.open_groups.push_back(single_group(p, state.piece, src_start, dst_start));
        state.open_class.push_back(c);
      }
    }
    ++state.piece;
  }

  // After the scan of one period [w_end - per_tiles, w_end), whose first piece is
  // piece_before and before which the tile counts were tiles_before: grows every group
  // that ends in the period by the number of whole periods left before the last target
  // tile, if they all repeat. Returns the target tile at which the scan resumes.
  index_t skip_periods(ScanState& state, const std::vector<std::array<index_t, 3>>& tiles_before,
                       index_t piece_before, index_t w_end, index_t period, index_t per_tiles) {
    const index_t per_pieces = state.piece - piece_before;
    const index_t jumps = (dst_end_ - 1 - w_end) / per_tiles;
    const index_t src_step = period / pattern_.src_tile, dst_step = per_tiles;
    // Every key seen in the period is open and ends there; one period earlier it had
    // the same piece or none (its first member). Checked before anything changes.
    const auto ends_in_period = [&](const PieceGroup& g) {
      return g.first_piece + (g.count - 1) * g.piece_step >= piece_before;
    };
    bool repeats = true;
    for (const auto& [key, g] : state.open) {
      const PieceGroup& grp = state.open_groups[g];
      if (ends_in_period(grp) && grp.count > 1)
        repeats = repeats && grp.stride == period && grp.piece_step == per_pieces &&
                  grp.src_tile_step == src_step && grp.dst_tile_step == dst_step;
    }
    if (!repeats || jumps <= 0) return w_end;
    for (const auto& [key, g] : state.open) {
      PieceGroup& grp = state.open_groups[g];
      if (!ends_in_period(grp)) continue;
      grp.piece_step = per_pieces;
      grp.stride = period;
      grp.src_tile_step = src_step;
      grp.dst_tile_step = dst_step;
      grp.count += jumps;
    }
    state.piece += jumps * per_pieces;
    for (std::size_t c = 0; c < dst_pieces_.size(); ++c)
      for (std::size_t a = 0; a < 3; ++a)
        dst_pieces_[c][a] += jumps * (dst_pieces_[c][a] - tiles_before[c][a]);
    return w_end + jumps * per_tiles;
  }

  // Sorts the scanned groups into groups_ by class, stably: (class, first_piece) order.
  void finish(ScanState& state, std::size_t classes) {
    pieces_ = state.piece;
    for (const std::size_t c : state.open_class) class_first_[c + 1] += 1;
    for (std::size_t c = 0; c < classes; ++c) class_first_[c + 1] += class_first_[c];
    groups_.resize(state.open_groups.size());
    std::vector<index_t> next(class_first_.begin(), class_first_.end() - 1);
    for (std::size_t g = 0; g < state.open_groups.size(); ++g)
      groups_[static_cast<std::size_t>(next[state.open_class[g]]++)] = state.open_groups[g];
  }

  AxisPattern pattern_;
  std::vector<PieceGroup> groups_;
  std::vector<index_t> class_first_;
  std::vector<std::array<index_t, 3>> dst_pieces_;
  std::vector<index_t> first_src_tile_;
  std::vector<index_t> first_dst_tile_;
  index_t pieces_ = 0;
  index_t scanned_tiles_ = 0;
  index_t dst_begin_ = 0, dst_end_ = 0, src_begin_ = 0, src_end_ = 0;
};

/// The AxisGroups of axis A of two layouts with grid distributions, keeping the classes
/// for which `keep(source coordinate, target coordinate)` holds.
/// @pre the region fits both layouts (validate_region).
template <Axis A, class SrcLayout, class DstLayout, class Keep>
AxisGroups make_axis_groups(const SrcLayout& src, const DstLayout& dst, const Region& r,
                            Keep&& keep) {
  static_assert(GridDistribution<typename SrcLayout::distribution_type> &&
                    GridDistribution<typename DstLayout::distribution_type>,
                "redist: per-axis groups need grid distributions on both sides");
  const auto& sd = src.distribution();
  const auto& dd = dst.distribution();
  const auto& sa = axis<A>(src.shape());
  const auto& ta = axis<A>(dst.shape());
  const AxisPattern pattern{static_cast<int>(sd.grid().template get<A>()),
                            static_cast<int>(dd.grid().template get<A>()),
                            coordinate_period<A>(sd),
                            coordinate_period<A>(dd),
                            uniform_tile(sa),
                            uniform_tile(ta)};
  const auto src_coord = [&](index_t k) {
    if constexpr (A == Axis::row) {
      return static_cast<int>(sd.grid_row(k));
    } else {
      return static_cast<int>(sd.grid_col(k));
    }
  };
  const auto dst_coord = [&](index_t k) {
    if constexpr (A == Axis::row) {
      return static_cast<int>(dd.grid_row(k));
    } else {
      return static_cast<int>(dd.grid_col(k));
    }
  };
  return AxisGroups(sa, ta, r.axis<A>(), pattern, src_coord, dst_coord, keep);
}

}  // namespace redist
