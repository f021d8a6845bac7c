#pragma once
/// @file plan/grid_view.hpp
/// Grids known at run time. The plan's per-axis path (plan.hpp), whose cost
/// is one lcm period per axis, needs GridDistributions, a compile-time property. A
/// distribution type that holds a grid only for some values (a run-time choice among
/// distributions, as tools::SpecDistribution, which the command-line tool plans with; a
/// relabeling or a transposition of one) says so through a grid view:
///
/// | expression     | result              | returns                                   |
/// |----------------|---------------------|-------------------------------------------|
/// | `grid_view(d)` | std::optional<G>,   | a grid with d's owners, or std::nullopt:  |
/// | (found by ADL) | G a GridDistribution| grid_view(d)->owner(t) == d.owner(t) for  |
/// |                |                     | every tile t, and ranks() alike           |
///
/// Without the view such a pair took the per-segment enumeration, whose cost is one segment
/// per element with 1 x 1 tiles (2048^2 elements: 13.8 s; bench/README.md, plan-scaling).
/// Provided here for Relabeled and TransposedDistribution of anything with a view (or a
/// compile-time grid), and by tools::SpecDistribution for the BlockCyclic it may hold.

#include <concepts>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/index.hpp>
#include <redist/transform.hpp>

namespace redist {

namespace detail {
template <class T>
struct OptionalGrid : std::false_type {};
template <GridDistribution G>
struct OptionalGrid<std::optional<G>> : std::true_type {
  using grid_type = G;
};
}  // namespace detail

/// A distribution type whose values may be grids: grid_view(d) (ADL) gives the grid.
template <class D>
concept HasGridView = Distribution<D> && requires(const D& d) {
  requires detail::OptionalGrid<std::remove_cvref_t<decltype(grid_view(d))>>::value;
};

/// A grid at compile time, or maybe at run time.
template <class D>
concept MaybeGridDistribution = GridDistribution<D> || HasGridView<D>;

namespace detail {

/// The grid type that D is or views.
template <MaybeGridDistribution D>
struct GridOf {
  using type = D;
};
template <MaybeGridDistribution D>
requires(!GridDistribution<D>) struct GridOf<D> {
  using type = typename OptionalGrid<
      std::remove_cvref_t<decltype(grid_view(std::declval<const D&>()))>>::grid_type;
};

/// d as a grid if it is one: itself for a GridDistribution, else its view.
template <MaybeGridDistribution D>
std::optional<typename GridOf<D>::type> as_grid(const D& d) {
  if constexpr (GridDistribution<D>) {
    return d;
  } else {
    return grid_view(d);
  }
}

}  // namespace detail

/// A grid distribution whose roles are played by other ranks: Relabeled's owners on G's
/// grid, rank_of(g) = rank_of_role[base.rank_of(g)]. A stated period (super_tile) is kept.
template <GridDistribution G>
class RelabeledGrid {
 public:
  static constexpr bool owners_in_range = OwnersInRange<G>;

  /// @pre rank_of_role is a permutation covering the base's roles (as Relabeled checks).
  RelabeledGrid(G base, std::vector<int> rank_of_role)
      : base_(std::move(base)), rank_of_role_(std::move(rank_of_role)) {}

  int ranks() const { return static_cast<int>(rank_of_role_.size()); }
  int owner(TileIndex t) const { return role(static_cast<int>(base_.owner(t))); }
  Extents grid() const { return base_.grid(); }
  int grid_row(index_t m) const { return static_cast<int>(base_.grid_row(m)); }
  int grid_col(index_t n) const { return static_cast<int>(base_.grid_col(n)); }
  int rank_of(GridCoord g) const { return role(static_cast<int>(base_.rank_of(g))); }
  Extents super_tile() const requires requires(const G& b) {
    { b.super_tile() } -> std::same_as<Extents>;
  }
  { return base_.super_tile(); }
  const G& base() const { return base_; }

 private:
  int role(int r) const { return rank_of_role_[static_cast<std::size_t>(r)]; }
  G base_;
  std::vector<int> rank_of_role_;
};

/// A relabeled grid (at compile time or by view) is a grid.
template <MaybeGridDistribution D>
std::optional<RelabeledGrid<typename detail::GridOf<D>::type>> grid_view(const Relabeled<D>& d) {
  auto base = detail::as_grid(d.base());
  if (!base) return std::nullopt;
  return RelabeledGrid<typename detail::GridOf<D>::type>(std::move(*base), d.rank_of_role());
}

/// A transposed grid view is a grid (a transposed compile-time grid is one already).
template <HasGridView D>
requires(!GridDistribution<D>)
    std::optional<TransposedDistribution<typename detail::GridOf<D>::type>> grid_view(
        const TransposedDistribution<D>& d) {
  auto base = grid_view(d.base());
  if (!base) return std::nullopt;
  return TransposedDistribution<typename detail::GridOf<D>::type>(std::move(*base));
}

}  // namespace redist
