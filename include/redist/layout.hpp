#pragma once
/// @file layout.hpp
/// Layout<TileShape, Distribution>: the pure index map of a distributed tiled matrix,
/// element -> tile -> owning rank. No storage, no MPI.

#include <string>
#include <utility>

#include <redist/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// A distribution that covers only a fixed box of tiles (e.g. OwnerTable) says so.
template <class D>
concept BoundedDistribution = Distribution<D> && requires(const D& d) {
  { d.tiles() } -> std::same_as<Extents>;
};

template <TileShape S, Distribution D>
class Layout {
 public:
  using shape_type = S;
  using distribution_type = D;

  /// @throws invalid_argument if the matrix's element count overflows 64 bits (so every
  /// element or tile count derived from a layout fits index_t); distribution_error if a
  /// bounded distribution (owner table) does not cover exactly the shape's tiles.
  constexpr Layout(S shape, D distribution)
      : shape_(std::move(shape)), dist_(std::move(distribution)) {
    // Tiles are never empty, so the tile count fits whenever the element count does.
    const Extents e = element_extents(shape_);
    (void)detail::checked_mul(e.rows, e.cols, "matrix elements");
    if constexpr (BoundedDistribution<D>) {
      if (dist_.tiles() != tile_counts(shape_)) {
        std::string got =
            std::to_string(dist_.tiles().rows) + "x" + std::to_string(dist_.tiles().cols);
        throw distribution_error(
            detail::describe("owner table must match the tile grid", "distribution.tiles()", got) +
            " (tile grid = " + std::to_string(tile_counts(shape_).rows) + "x" +
            std::to_string(tile_counts(shape_).cols) + ")");
      }
    }
  }

  constexpr const S& shape() const { return shape_; }
  constexpr const D& distribution() const { return dist_; }
  constexpr int owner(TileIndex t) const { return static_cast<int>(dist_.owner(t)); }
  constexpr int ranks() const { return static_cast<int>(dist_.ranks()); }
  constexpr Extents extents() const { return element_extents(shape_); }
  constexpr Extents tiles() const { return tile_counts(shape_); }
  constexpr TileBox all_tiles() const { return {{0, 0}, {tiles().rows, tiles().cols}}; }

 private:
  S shape_;
  D dist_;
};

}  // namespace redist
