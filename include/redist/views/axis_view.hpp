#pragma once
/// @file views/axis_view.hpp
/// AxisView: any TileAxis seen through one run-time type, so that the planner is
/// compiled once for every tiling (docs/build-speed.md). It answers the TileAxis
/// requirements (tile_shape.hpp) exactly as the axis it views:
///
/// | the viewed axis                       | begin / size / tile_of                   |
/// |---------------------------------------|------------------------------------------|
/// | states a common tile extent (a static | arithmetic here (k * tile, i / tile)     |
/// | extent, or `tile()` as UniformAxis)   |                                          |
/// | lists its boundaries (`boundaries()`, | a lookup in those boundaries             |
/// | as IrregularAxis)                     |                                          |
/// | anything else                         | the axis's own functions, through one    |
/// |                                       | function pointer                         |
///
/// `tile()` is the common extent, or 0 where none is stated, which is what
/// uniform_tile (plan/axis_pattern.hpp) reads: the planner finds the same lcm periods
/// through the view as on the axis itself, so it makes the same plan.
///
/// A view refers to its axis (or keeps a copy, for an axis a shape returns by value): the
/// axis must outlive it.

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include <redist/config.hpp>
#include <redist/index.hpp>
#include <redist/plan/axis_pattern.hpp>
#include <redist/tile_shape.hpp>
#include <redist/views/view_kept.hpp>

namespace redist {

class AxisView {
 public:
  static constexpr index_t static_tile = dynamic_extent;

  /// Views `a`, which must outlive the view; `keep`, if given, is held as long as the view
  /// (a copy of an axis that was returned by value).
  template <class A>
  requires(!std::is_same_v<A, AxisView> &&
           TileAxis<A>) explicit AxisView(const A& a, std::shared_ptr<const void> keep = {})
      : extent_(a.extent()),
        count_(a.count()),
        tile_(uniform_tile(a)),
        axis_(&a),
        calls_(&calls_of<A>),
        keep_(std::move(keep)) {
    if constexpr (requires {
                    { a.boundaries() } -> std::same_as<const std::vector<index_t>&>;
                  }) {
      if (tile_ <= 0) bounds_ = a.boundaries().data();
    }
  }

  index_t extent() const { return extent_; }
  index_t count() const { return count_; }
  /// The common tile extent (the last tile may be partial), or 0 where none is stated.
  index_t tile() const { return tile_; }
  index_t begin(index_t k) const {
    REDIST_EXPECTS(0 <= k && k <= count_);
    if (tile_ > 0) return k == count_ ? extent_ : k * tile_;
    if (bounds_) return bounds_[k];
    return calls_->begin(axis_, k);
  }
  index_t size(index_t k) const {
    REDIST_EXPECTS(0 <= k && k < count_);
    if (tile_ > 0) {
      const index_t b = k * tile_;
      return extent_ - b < tile_ ? extent_ - b : tile_;
    }
    if (bounds_) return bounds_[k + 1] - bounds_[k];
    return calls_->size(axis_, k);
  }
  index_t tile_of(index_t i) const {
    REDIST_EXPECTS(0 <= i && i < extent_);
    if (tile_ > 0) return i / tile_;
    if (bounds_)
      return static_cast<index_t>(std::upper_bound(bounds_, bounds_ + count_ + 1, i) - bounds_) - 1;
    return calls_->tile_of(axis_, i);
  }

 private:
  struct Calls {
    index_t (*begin)(const void*, index_t);
    index_t (*size)(const void*, index_t);
    index_t (*tile_of)(const void*, index_t);
  };
  template <class A>
  static constexpr Calls calls_of{
      [](const void* a, index_t k) -> index_t { return static_cast<const A*>(a)->begin(k); },
      [](const void* a, index_t k) -> index_t { return static_cast<const A*>(a)->size(k); },
      [](const void* a, index_t i) -> index_t { return static_cast<const A*>(a)->tile_of(i); }};

  index_t extent_, count_, tile_;
  const index_t* bounds_ = nullptr;
  const void* axis_;
  const Calls* calls_;
  std::shared_ptr<const void> keep_;
};

/// A view of the axis an expression gives (Tiling::rows(): itself; a shape that returns
/// its axes by value: a copy the view keeps).
template <class A>
AxisView axis_view(A&& a) {
  return detail::view_kept<AxisView>(std::forward<A>(a));
}

/// The tiling of both axes as views.
using ShapeView = Tiling<AxisView, AxisView>;

/// The view of shape s's two axes. @pre s outlives the view.
template <TileShape S>
ShapeView shape_view(const S& s) {
  return ShapeView(axis_view(s.rows()), axis_view(s.cols()));
}

}  // namespace redist
