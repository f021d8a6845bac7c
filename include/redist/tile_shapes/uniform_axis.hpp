#pragma once
/// @file tile_shapes/uniform_axis.hpp
/// Uniform 1-D tiling: tiles of one extent B, the last one partial when B does not
/// divide the axis extent. B is a compile-time constant (UniformAxis<100>) or a run-time
/// value (UniformAxis<>). Models TileAxis.

#include <string>

#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// Tiles of extent B (or a run-time extent when B == dynamic_extent).
/// Example: UniformAxis<4>(10) has tiles [0,4) [4,8) [8,10).
template <index_t B = dynamic_extent>
class UniformAxis {
  static_assert(B == dynamic_extent || B > 0, "redist: a static tile extent must be positive");

 public:
  static constexpr index_t static_tile = B;

  /// @throws invalid_argument if extent < 0.
  constexpr explicit UniformAxis(index_t extent) requires(B != dynamic_extent)
      : extent_(extent), tile_(B) {
    check();
  }
  /// @throws invalid_argument if extent < 0 or tile <= 0.
  constexpr UniformAxis(index_t extent, index_t tile) requires(B == dynamic_extent)
      : extent_(extent), tile_(tile) {
    check();
  }

  constexpr index_t extent() const { return extent_; }
  constexpr index_t tile() const { return tile_; }
  // Not (extent + tile - 1) / tile: that sum overflows for extents near 2^63.
  constexpr index_t count() const { return extent_ / tile_ + (extent_ % tile_ != 0); }
  constexpr index_t begin(index_t k) const {
    REDIST_EXPECTS(0 <= k && k <= count());
    return k == count() ? extent_ : k * tile_;
  }
  constexpr index_t size(index_t k) const {
    REDIST_EXPECTS(0 <= k && k < count());
    const index_t b = k * tile_;
    return extent_ - b < tile_ ? extent_ - b : tile_;
  }
  constexpr index_t tile_of(index_t i) const {
    REDIST_EXPECTS(0 <= i && i < extent_);
    return i / tile_;
  }
  /// Exact: extent and tile extent (fingerprint.hpp).
  constexpr std::uint64_t fingerprint() const {
    return detail::Hasher(0x554E49ull).add(extent_).add(tile_).value();  // "UNI"
  }
  friend constexpr bool operator==(const UniformAxis&, const UniformAxis&) = default;

 private:
  constexpr void check() const {
    if (extent_ < 0)
      throw invalid_argument(detail::describe("negative matrix extent", "extent", extent_));
    if (tile_ <= 0)
      throw invalid_argument(detail::describe("tile extent must be positive", "tile", tile_));
  }
  index_t extent_;
  index_t tile_;
};

}  // namespace redist
