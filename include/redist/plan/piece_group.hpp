#pragma once
/// @file plan/piece_group.hpp
/// PieceGroup: a strided run of pieces of one axis (axis_cut.hpp) that share a class,
/// length and tile offsets; the unit the axis groups (plan/axis_groups.hpp) and the block
/// families (plan/block_family.hpp) are made of.

#include <cstddef>

#include <redist/config.hpp>
#include <redist/index.hpp>
#include <redist/segment.hpp>

namespace redist {

/// `count` pieces of one axis, each `length` elements long. Member t (0 <= t < count):
///
/// | quantity                    | value                                 |
/// |-----------------------------|---------------------------------------|
/// | piece index (AxisCut order) | first_piece + t * piece_step          |
/// | global source element       | src_start + t * stride (first element)|
/// | global target element       | dst_start + t * stride                |
/// | source tile                 | src_tile + t * src_tile_step          |
/// | target tile                 | dst_tile + t * dst_tile_step          |
/// | offset in its source tile   | src_offset (every member)             |
/// | offset in its target tile   | dst_offset (every member)             |
///
/// The stride is the same on both sides because the region maps source to target by a
/// shift. Steps and stride are positive when count >= 2 and meaningless when count == 1.
struct PieceGroup {
  index_t first_piece = 0;
  index_t piece_step = 0;
  index_t count = 0;
  index_t length = 0;
  index_t src_start = 0;
  index_t dst_start = 0;
  index_t stride = 0;
  index_t src_tile = 0;
  index_t src_tile_step = 0;
  index_t dst_tile = 0;
  index_t dst_tile_step = 0;
  index_t src_offset = 0;
  index_t dst_offset = 0;

  /// Elements of all members together.
  constexpr index_t elements() const { return count * length; }
  /// Member t as a Piece. @pre 0 <= t < count.
  /// @post member(t).src_tile == src_tile + t * src_tile_step, offsets and length as above.
  constexpr Piece member(index_t t) const {
    REDIST_EXPECTS(0 <= t && t < count);
    return Piece{src_tile + t * src_tile_step, dst_tile + t * dst_tile_step, src_offset, dst_offset,
                 length};
  }
  /// Members [first, first + n) as a group of their own. @pre 0 <= first, n >= 1,
  /// first + n <= count. @post slice(f, n).member(t) == member(f + t).
  constexpr PieceGroup slice(index_t first, index_t n) const {
    REDIST_EXPECTS(0 <= first && n >= 1 && first + n <= count);
    PieceGroup g = *this;
    g.first_piece += first * piece_step;
    g.count = n;
    g.src_start += first * stride;
    g.dst_start += first * stride;
    g.src_tile += first * src_tile_step;
    g.dst_tile += first * dst_tile_step;
    return g;
  }
  friend constexpr bool operator==(const PieceGroup&, const PieceGroup&) = default;
};

/// The one-member group of piece `p`, AxisCut index `piece`, starting at global source
/// element `src_start` and global target element `dst_start`.
constexpr PieceGroup single_group(const Piece& p, index_t piece, index_t src_start,
                                  index_t dst_start) {
  return PieceGroup{piece,      0, 1,          p.length, src_start,    dst_start,   0,
                    p.src_tile, 0, p.dst_tile, 0,        p.src_offset, p.dst_offset};
}

/// Appends piece `p` (AxisCut index `piece`, first element at global source element
/// `src_start`) to `g` if it continues the run: same length and tile offsets, and piece
/// index, start and both tiles advance by the group's steps (the second member sets
/// them). Returns false, with g unchanged, otherwise.
/// @pre piece > every member's piece index and src_start > every member's start.
/// @post on true, g.member(g.count - 1) == p.
constexpr bool extend_group(PieceGroup& g, const Piece& p, index_t piece, index_t src_start) {
  if (p.length != g.length || p.src_offset != g.src_offset || p.dst_offset != g.dst_offset)
    return false;
  if (g.count == 1) {
    REDIST_EXPECTS(piece > g.first_piece && src_start > g.src_start);
    g.piece_step = piece - g.first_piece;
    g.stride = src_start - g.src_start;
    g.src_tile_step = p.src_tile - g.src_tile;
    g.dst_tile_step = p.dst_tile - g.dst_tile;
  } else if (piece != g.first_piece + g.count * g.piece_step ||
             src_start != g.src_start + g.count * g.stride ||
             p.src_tile != g.src_tile + g.count * g.src_tile_step ||
             p.dst_tile != g.dst_tile + g.count * g.dst_tile_step) {
    return false;
  }
  ++g.count;
  return true;
}

}  // namespace redist
