#pragma once
/// @file triangle.hpp
/// Triangle: the part of a region that moves, exactly as ScaLAPACK's pxtrmr2d selects it.
/// In region coordinates (x, y), x the row and y the column relative to the region's
/// target rectangle of R x C elements (op(A)'s coordinates, transform.hpp):
///
///   uplo = lower:  x - y >= d - max(C - R, 0)     d = 1 for diag = unit (no diagonal),
///   uplo = upper:  y - x >= d - max(R - C, 0)         else 0
///
/// so the diagonal starts in the top-left corner, except for a lower trapezoid wider
/// than tall and an upper one taller than wide, whose diagonal ends in the bottom-right
/// corner (pxtrmr2d's rule, REDIST/SRC/p?trmr2.c):
///
///   lower 5 x 4:  x . . .    upper 4 x 5:  x x x x x    upper 5 x 3:  x x x
///                 x x . .                  . x x x x                  x x x
///                 x x x .                  . . x x x                  x x x
///                 x x x x                  . . . x x                  . x x
///                 x x x x                                             . . x
///
/// Only the kept elements travel; the plan's bytes and categories count only them
/// (plan/triangle_mask.hpp).

#include <cstdint>
#include <utility>

#include <redist/index.hpp>

namespace redist {

enum class Uplo : std::uint8_t { all, lower, upper };
enum class Diag : std::uint8_t { non_unit, unit };

struct Triangle {
  Uplo uplo = Uplo::all;  ///< all: the whole region (no mask)
  Diag diag = Diag::non_unit;

  constexpr bool masks() const { return uplo != Uplo::all; }
  /// The least x - y (lower) or y - x (upper) kept in a region of extent e (see the
  /// file comment).
  constexpr index_t bound(Extents e) const {
    const index_t d = diag == Diag::unit ? 1 : 0;
    const index_t wide = e.cols > e.rows ? e.cols - e.rows : 0;
    const index_t tall = e.rows > e.cols ? e.rows - e.cols : 0;
    return uplo == Uplo::lower ? d - wide : d - tall;
  }
  /// Whether element (x, y) of a region of extent e moves.
  constexpr bool keeps(index_t x, index_t y, Extents e) const {
    switch (uplo) {
      case Uplo::lower:
        return x - y >= bound(e);
      case Uplo::upper:
        return y - x >= bound(e);
      default:
        return true;
    }
  }
  /// The rows of a column that move, [first, end) clipped to [0, rows), for a column
  /// whose y - x is `shift` at its first row and a kept bound `b` (bound(e)).
  constexpr std::pair<index_t, index_t> rows_kept(index_t shift, index_t rows, index_t b) const {
    const auto clip = [&](index_t v) { return v < 0 ? index_t{0} : (v > rows ? rows : v); };
    switch (uplo) {
      case Uplo::lower:  // x - y >= b with x = row - shift: row >= shift + b
        return {clip(shift + b), rows};
      case Uplo::upper:  // y - x >= b: row <= shift - b
        return {0, clip(shift - b + 1)};
      default:
        return {0, rows};
    }
  }
  /// Elements of a region of extent e that move.
  constexpr index_t elements(Extents e) const {
    index_t n = 0;
    for (index_t y = 0; y < e.cols; ++y) {
      const auto [a, b] = rows_kept(y, e.rows, bound(e));
      n += b > a ? b - a : 0;
    }
    return n;
  }
  friend constexpr bool operator==(const Triangle&, const Triangle&) = default;
};

}  // namespace redist
