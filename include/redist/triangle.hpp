#pragma once
/// @file triangle.hpp
/// Triangle: the part of a region that moves, as ScaLAPACK's pxtrmr2d selects it. In
/// region coordinates (x, y), x the row and y the column relative to the region's
/// target rectangle (op(A)'s coordinates, transform.hpp):
///
///   uplo = lower:  x - y >= d        uplo = upper:  y - x >= d       d = 1 for unit
///                                                                    (no diagonal), else 0
///   lower, 5 x 4:   x . . .          upper, 4 x 5:   x x x x x
///                   x x . .                          . x x x x
///                   x x x .                          . . x x x
///                   x x x x                          . . . x x
///                   x x x x
///
/// A region that is not square moves its trapezoid, as pxtrmr2d does. Only the kept
/// elements travel; the plan's bytes and categories count only them
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
  /// Whether region element (x, y) moves.
  constexpr bool keeps(index_t x, index_t y) const {
    const index_t d = diag == Diag::unit ? 1 : 0;
    switch (uplo) {
      case Uplo::lower:
        return x - y >= d;
      case Uplo::upper:
        return y - x >= d;
      default:
        return true;
    }
  }
  /// The rows of column y that move, [first, end) clipped to [0, rows).
  constexpr std::pair<index_t, index_t> rows_of_column(index_t y, index_t rows) const {
    const index_t d = diag == Diag::unit ? 1 : 0;
    const auto clip = [&](index_t v) { return v < 0 ? index_t{0} : (v > rows ? rows : v); };
    switch (uplo) {
      case Uplo::lower:
        return {clip(y + d), rows};
      case Uplo::upper:
        return {0, clip(y - d + 1)};
      default:
        return {0, rows};
    }
  }
  /// Elements of a rows x cols region that move.
  constexpr index_t elements(index_t rows, index_t cols) const {
    index_t n = 0;
    for (index_t y = 0; y < cols; ++y) {
      const auto [a, b] = rows_of_column(y, rows);
      n += b > a ? b - a : 0;
    }
    return n;
  }
  friend constexpr bool operator==(const Triangle&, const Triangle&) = default;
};

}  // namespace redist
