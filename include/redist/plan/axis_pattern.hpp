#pragma once
/// @file plan/axis_pattern.hpp
/// What the scan of one axis (plan/axis_groups.hpp) knows in advance: each side's
/// coordinate extent, the period after which its coordinates repeat and its common tile
/// extent, where the distribution and the tiling state them; from them, the lcm period
/// of the pieces (Prylli and Tourancheau 1996, proposition 5).

#include <concepts>
#include <utility>

#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/index.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// What the scan knows of one axis: the coordinate extents on each side and, where
/// known (else 0), the period in tiles after which a side's coordinates repeat and the
/// common extent of a side's tiles (the last tile may be partial).
struct AxisPattern {
  int src_extent = 1;
  int dst_extent = 1;
  index_t src_period = 0;
  index_t dst_period = 0;
  index_t src_tile = 0;
  index_t dst_tile = 0;

  /// The period in elements of the pieces' classes, lengths and offsets:
  /// lcm(src_tile * src_period, dst_tile * dst_period) (Prylli and Tourancheau 1996,
  /// proposition 5), or 0 if a quantity is unknown or the product overflows.
  constexpr index_t elements_period() const {
    index_t es = 0, et = 0;
    if (src_tile <= 0 || src_period <= 0 || dst_tile <= 0 || dst_period <= 0 ||
        __builtin_mul_overflow(src_tile, src_period, &es) ||
        __builtin_mul_overflow(dst_tile, dst_period, &et))
      return 0;
    index_t a = es, b = et;
    while (b != 0) a = std::exchange(b, a % b);
    index_t l = 0;
    return __builtin_mul_overflow(es / a, et, &l) ? 0 : l;
  }
};

/// The period in tiles of d's coordinate along axis A, if d states one: a grid
/// distribution with `super_tile()` (BlockCyclic) repeats every super_tile * grid tiles.
/// 0 otherwise.
/// @pre a distribution with `super_tile()` repeats as said: its grid row of tile m + period
/// is that of m (the scan skips whole periods on this promise).
template <Axis A, class D>
constexpr index_t coordinate_period(const D& d) {
  if constexpr (GridDistribution<D> && requires {
                  { d.super_tile() } -> std::same_as<Extents>;
                }) {
    return d.super_tile().template get<A>() * d.grid().template get<A>();
  } else {
    return 0;
  }
}

/// The common extent of a's tiles if a states it (a static tile extent, or a `tile()`
/// member as UniformAxis has: tile k begins at k * tile), else 0.
template <TileAxis TA>
constexpr index_t uniform_tile(const TA& a) {
  if constexpr (TA::static_tile != dynamic_extent) {
    return TA::static_tile;
  } else if constexpr (requires {
                         { a.tile() } -> std::same_as<index_t>;
                       }) {
    return a.tile();
  } else {
    return 0;
  }
}

}  // namespace redist
