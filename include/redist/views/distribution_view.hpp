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
#include <redist/views/view_kept.hpp>

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

/// What both views answer alike, for the distribution they point at: ranks, owners,
/// enumeration, whether owners are in range; and what keeps a copy alive.
class OwnerView {
 public:
  int ranks() const { return ranks_; }
  int owner(TileIndex t) const { return calls_->owner(of_, t); }
  template <class F>
  void for_each_owned(int r, TileBox box, F&& f) const {
    calls_->for_each_owned(of_, r, box, FunctionRef<void(TileIndex)>(f));
  }
  bool owners_known_in_range() const { return in_range_; }

 protected:
  template <class D>
  OwnerView(const D& d, std::shared_ptr<const void> keep)
      : ranks_(static_cast<int>(d.ranks())),
        in_range_(redist::owners_in_range(d)),
        of_(&d),
        calls_(&owner_calls_of<D>),
        keep_(std::move(keep)) {}
  const void* of() const { return of_; }

 private:
  int ranks_;
  bool in_range_;
  const void* of_;
  const OwnerCalls* calls_;
  std::shared_ptr<const void> keep_;
};

}  // namespace detail

/// Any GridDistribution as one run-time type (see the file comment).
class GridDistributionView : public detail::OwnerView {
 public:
  /// Views grid g, which must outlive the view; `keep`, if given, is held as long as the
  /// view (a grid that a grid_view returned).
  template <class G>
  requires(!std::is_same_v<G, GridDistributionView> &&
           GridDistribution<G>) explicit GridDistributionView(const G& g,
                                                              std::shared_ptr<const void> keep = {})
      : OwnerView(g, std::move(keep)), grid_(g.grid()), grid_calls_(&detail::grid_calls_of<G>) {
    if constexpr (requires {
                    { g.super_tile() } -> std::same_as<Extents>;
                  })
      super_tile_ = g.super_tile();
  }

  Extents grid() const { return grid_; }
  int grid_row(index_t m) const { return grid_calls_->grid_row(of(), m); }
  int grid_col(index_t n) const { return grid_calls_->grid_col(of(), n); }
  int rank_of(GridCoord g) const { return grid_calls_->rank_of(of(), g); }
  /// The viewed grid's period in tiles per grid coordinate, {0, 0} where it states none.
  Extents super_tile() const { return super_tile_; }

 private:
  Extents grid_;
  Extents super_tile_{0, 0};
  const detail::GridCalls* grid_calls_;
};

/// Any Distribution as one run-time type (see the file comment).
class DistributionView : public detail::OwnerView {
 public:
  /// Views d, which must outlive the view; `keep`, if given, is held as long as the view.
  template <class D>
  requires(!std::is_same_v<D, DistributionView> &&
           Distribution<D>) explicit DistributionView(const D& d,
                                                      std::shared_ptr<const void> keep = {})
      : OwnerView(d, std::move(keep)) {
    if constexpr (GridDistribution<D>) {
      grid_.emplace(d);
    } else if constexpr (HasGridView<D>) {
      if (auto g = grid_view(d)) grid_ = detail::view_kept<GridDistributionView>(std::move(*g));
    }
  }

  /// The grid that owns what this distribution owns, if it is one (plan/grid_view.hpp).
  friend std::optional<GridDistributionView> grid_view(const DistributionView& v) {
    return v.grid_;
  }

 private:
  std::optional<GridDistributionView> grid_;
};

/// A view of the distribution an expression gives (Layout::distribution(): itself).
template <class D>
DistributionView distribution_view(D&& d) {
  return detail::view_kept<DistributionView>(std::forward<D>(d));
}

}  // namespace redist
