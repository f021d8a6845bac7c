#pragma once
/// @file tile_shapes/irregular_axis.hpp
/// Irregular 1-D tiling from explicit boundaries {0 = b_0 < b_1 < ... < b_K = extent}.
/// Tile k is [b_k, b_{k+1}). Usable in constant expressions (C++20 constexpr vector).
/// Models TileAxis.

#include <algorithm>
#include <initializer_list>
#include <vector>

#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// Tiles of arbitrary positive extents given by their boundaries.
/// Example: IrregularAxis({0, 3, 4, 10}) has tiles [0,3) [3,4) [4,10).
class IrregularAxis {
 public:
  static constexpr index_t static_tile = dynamic_extent;

  /// @throws invalid_argument unless boundaries start at 0 and strictly increase.
  constexpr explicit IrregularAxis(std::vector<index_t> boundaries)
      : bounds_(std::move(boundaries)) {
    check();
  }
  constexpr IrregularAxis(std::initializer_list<index_t> boundaries) : bounds_(boundaries) {
    check();
  }
  /// Boundaries {0, ..., extent} ending at `extent`. @throws invalid_argument otherwise.
  constexpr IrregularAxis(std::vector<index_t> boundaries, index_t extent)
      : bounds_(std::move(boundaries)) {
    check();
    if (bounds_.back() != extent) {
      throw invalid_argument(detail::describe("tile boundaries must end at the extent",
                                              "boundaries.back()", bounds_.back()) +
                             " (extent = " + std::to_string(extent) + ")");
    }
  }

  constexpr index_t extent() const { return bounds_.back(); }
  constexpr index_t count() const { return static_cast<index_t>(bounds_.size()) - 1; }
  constexpr index_t begin(index_t k) const {
    REDIST_EXPECTS(0 <= k && k <= count());
    return bounds_[static_cast<std::size_t>(k)];
  }
  constexpr index_t size(index_t k) const {
    REDIST_EXPECTS(0 <= k && k < count());
    return bounds_[static_cast<std::size_t>(k) + 1] - bounds_[static_cast<std::size_t>(k)];
  }
  constexpr index_t tile_of(index_t i) const {
    REDIST_EXPECTS(0 <= i && i < extent());
    return static_cast<index_t>(std::upper_bound(bounds_.begin(), bounds_.end(), i) -
                                bounds_.begin()) -
           1;
  }
  constexpr const std::vector<index_t>& boundaries() const { return bounds_; }
  /// Exact: every boundary, O(count()) (fingerprint.hpp).
  constexpr std::uint64_t fingerprint() const {
    detail::Hasher h(0x495252ull);  // "IRR"
    h.add(static_cast<index_t>(bounds_.size()));
    for (index_t b : bounds_) h.add(b);
    return h.value();
  }
  friend constexpr bool operator==(const IrregularAxis&, const IrregularAxis&) = default;

 private:
  constexpr void check() const {
    if (bounds_.empty()) {
      throw invalid_argument(
          detail::describe("tile boundaries must not be empty", "boundaries.size()", 0));
    }
    if (bounds_.front() != 0) {
      throw invalid_argument(
          detail::describe("tile boundaries must start at 0", "boundaries[0]", bounds_.front()));
    }
    for (std::size_t k = 1; k < bounds_.size(); ++k) {
      if (bounds_[k] <= bounds_[k - 1]) {
        throw invalid_argument(detail::describe("tile boundaries must strictly increase",
                                                "boundaries[" + std::to_string(k) + "]",
                                                bounds_[k]) +
                               " (previous = " + std::to_string(bounds_[k - 1]) + ")");
      }
    }
  }
  std::vector<index_t> bounds_;
};

}  // namespace redist
