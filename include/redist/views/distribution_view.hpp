#pragma once
/// @file views/distribution_view.hpp
/// DistributionView: any Distribution seen through one run-time type, so that the planner
/// is compiled once for every distribution (docs/build-speed.md). It answers exactly as
/// the distribution it views, each question through one function pointer:
///
/// | expression                   | returns                                              |
/// |------------------------------|------------------------------------------------------|
/// | `v.ranks()`, `v.owner(t)`    | the viewed distribution's                            |
/// | `v.for_each_owned(r, box, f)`| for_each_owned_tile of the viewed distribution: its  |
/// |                              | own enumeration where it has one, else the scan      |
/// | `v.owners_known_in_range()`  | OwnersInRange of the viewed type (distribution.hpp)  |
/// | `grid_view(v)`               | a GridDistributionView where the viewed distribution |
/// |                              | is a grid, at compile time or by its value           |
/// |                              | (plan/grid_view.hpp); else std::nullopt              |
///
/// So the planner takes the same path through a view as on the distribution itself (the
/// per-axis path for grids, the per-segment one otherwise) and makes the same plan. A
/// grid view states the viewed grid's period (super_tile()) where it has one and {0, 0}
/// where it has none, which coordinate_period (plan/axis_pattern.hpp) reads as unknown.
///
/// A view refers to its distribution (or keeps a copy, for a grid that a grid_view
/// returned): the distribution must outlive it.

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include <redist/detail/function_ref.hpp>
#include <redist/distribution.hpp>
#include <redist/index.hpp>
#include <redist/plan/grid_view.hpp>

namespace redist {

namespace detail {

/// What every view calls: owner and enumeration of the viewed type.
struct OwnerCalls {
  int (*owner)(const void*, TileIndex);
  void (*for_each_owned)(const void*, int, TileBox, FunctionRef<void(TileIndex)>);
};
template <class D>
inline constexpr OwnerCalls owner_calls_of{
    [](const void* d, TileIndex t) { return static_cast<int>(static_cast<const D*>(d)->owner(t)); },
    [](const void* d, int r, TileBox box, FunctionRef<void(TileIndex)> f) {
      for_each_owned_tile(*static_cast<const D*>(d), r, box, f);
    }};

/// The questions a grid answers besides its owners.
struct GridCalls {
  int (*grid_row)(const void*, index_t);
  int (*grid_col)(const void*, index_t);
  int (*rank_of)(const void*, GridCoord);
};
template <class G>
inline constexpr GridCalls grid_calls_of{
    [](const void* g, index_t m) {
      return static_cast<int>(static_cast<const G*>(g)->grid_row(m));
    },
    [](const void* g, index_t n) {
      return static_cast<int>(static_cast<const G*>(g)->grid_col(n));
    },
    [](const void* g, GridCoord c) {
      return static_cast<int>(static_cast<const G*>(g)->rank_of(c));
    }};

}  // namespace detail

/// Any GridDistribution as one run-time type (see the file comment).
class GridDistributionView {
 public:
  /// Views grid g, which must outlive the view; `keep`, if given, is held as long as the
  /// view (a grid that a grid_view returned).
  template <class G>
  requires(!std::is_same_v<G, GridDistributionView> &&
           GridDistribution<G>) explicit GridDistributionView(const G& g,
                                                              std::shared_ptr<const void> keep = {})
      : ranks_(static_cast<int>(g.ranks())),
        in_range_(redist::owners_in_range(g)),
        grid_(g.grid()),
        grid_of_(&g),
        owners_(&detail::owner_calls_of<G>),
        grid_calls_(&detail::grid_calls_of<G>),
        keep_(std::move(keep)) {
    if constexpr (requires {
                    { g.super_tile() } -> std::same_as<Extents>;
                  })
      super_tile_ = g.super_tile();
  }

  int ranks() const { return ranks_; }
  int owner(TileIndex t) const { return owners_->owner(grid_of_, t); }
  template <class F>
  void for_each_owned(int r, TileBox box, F&& f) const {
    owners_->for_each_owned(grid_of_, r, box, detail::FunctionRef<void(TileIndex)>(f));
  }
  bool owners_known_in_range() const { return in_range_; }
  Extents grid() const { return grid_; }
  int grid_row(index_t m) const { return grid_calls_->grid_row(grid_of_, m); }
  int grid_col(index_t n) const { return grid_calls_->grid_col(grid_of_, n); }
  int rank_of(GridCoord g) const { return grid_calls_->rank_of(grid_of_, g); }
  /// The viewed grid's period in tiles per grid coordinate, {0, 0} where it states none.
  Extents super_tile() const { return super_tile_; }

 private:
  int ranks_;
  bool in_range_;
  Extents grid_;
  Extents super_tile_{0, 0};
  const void* grid_of_;
  const detail::OwnerCalls* owners_;
  const detail::GridCalls* grid_calls_;
  std::shared_ptr<const void> keep_;
};

/// Any Distribution as one run-time type (see the file comment).
class DistributionView {
 public:
  /// Views d, which must outlive the view; `keep`, if given, is held as long as the view.
  template <class D>
  requires(!std::is_same_v<D, DistributionView> &&
           Distribution<D>) explicit DistributionView(const D& d,
                                                      std::shared_ptr<const void> keep = {})
      : ranks_(static_cast<int>(d.ranks())),
        in_range_(redist::owners_in_range(d)),
        of_(&d),
        owners_(&detail::owner_calls_of<D>),
        keep_(std::move(keep)) {
    if constexpr (GridDistribution<D>) {
      grid_.emplace(d);
    } else if constexpr (HasGridView<D>) {
      if (auto g = grid_view(d)) {
        using G = typename std::remove_cvref_t<decltype(g)>::value_type;
        auto kept = std::make_shared<const G>(std::move(*g));
        grid_.emplace(*kept, kept);
      }
    }
  }

  int ranks() const { return ranks_; }
  int owner(TileIndex t) const { return owners_->owner(of_, t); }
  template <class F>
  void for_each_owned(int r, TileBox box, F&& f) const {
    owners_->for_each_owned(of_, r, box, detail::FunctionRef<void(TileIndex)>(f));
  }
  bool owners_known_in_range() const { return in_range_; }
  /// The grid that owns what this distribution owns, if it is one (plan/grid_view.hpp).
  friend std::optional<GridDistributionView> grid_view(const DistributionView& v) {
    return v.grid_;
  }

 private:
  int ranks_;
  bool in_range_;
  const void* of_;
  const detail::OwnerCalls* owners_;
  std::optional<GridDistributionView> grid_;
  std::shared_ptr<const void> keep_;
};

/// A view of the distribution an expression gives: of the distribution itself when it is
/// a reference (Layout::distribution()), else of a copy the view keeps.
template <class D>
DistributionView distribution_view(D&& d) {
  if constexpr (std::is_lvalue_reference_v<D>) {
    return DistributionView(d);
  } else {
    auto kept = std::make_shared<const std::remove_cvref_t<D>>(std::forward<D>(d));
    return DistributionView(*kept, kept);
  }
}

}  // namespace redist
