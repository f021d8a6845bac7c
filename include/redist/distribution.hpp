#pragma once
/// @file distribution.hpp
/// The Distribution policy: which rank owns tile (m, n).
///
/// Required (`d` a const distribution, `t` a TileIndex):
///
/// | expression     | result | returns                                  | preconditions |
/// |----------------|--------|------------------------------------------|---------------|
/// | `d.ranks()`    | int    | number of ranks the owners are drawn from|               |
/// | `d.owner(t)`   | int    | the rank that owns tile t, in [0,ranks())| t >= (0, 0)   |
///
/// Optional, detected by concept:
///
/// | concept                 | expression                   | meaning                        |
/// |-------------------------|------------------------------|--------------------------------|
/// | EnumeratesOwnedTiles    | `d.for_each_owned(r, box, f)`| calls f(TileIndex) for every   |
/// |                         |                              | tile of `box` owned by rank r, |
/// |                         |                              | column by column, in O(owned)  |
/// | OwnersInRange           | `D::owners_in_range == true` | owner(t) is in [0, ranks()) by |
/// |                         |                              | construction: planning skips   |
/// |                         |                              | its per-tile owner range check |
/// | (run-time form)         | `d.owners_known_in_range()`  | the same, known per value      |
/// |                         |                              | (owners_in_range(d))           |
/// | GridDistribution        | `d.grid()`, `d.grid_row(m)`, | owner(m,n) is a function of    |
/// |                         | `d.grid_col(n)`,             | (grid_row(m), grid_col(n)):    |
/// |                         | `d.rank_of(GridCoord)`       | ScaLAPACK storage needs it     |
///
/// Ranks are ranks of the communicator given to the Redistributor; ranks() may be
/// smaller than its size (ranks beyond own nothing) but never larger (checked when
/// planning). Models live in distributions/.

#include <concepts>

#include <redist/index.hpp>

namespace redist {

/// A half-open box of tiles [begin.m, end.m) x [begin.n, end.n).
struct TileBox {
  TileIndex begin;
  TileIndex end;
  constexpr bool empty() const { return begin.m >= end.m || begin.n >= end.n; }
  constexpr index_t size() const { return empty() ? 0 : (end.m - begin.m) * (end.n - begin.n); }
  constexpr bool contains(TileIndex t) const {
    return begin.m <= t.m && t.m < end.m && begin.n <= t.n && t.n < end.n;
  }
  friend constexpr bool operator==(const TileBox&, const TileBox&) = default;
};

/// Maps every tile index to an owning rank.
template <class D>
concept Distribution = std::copy_constructible<D> && requires(const D& d, TileIndex t) {
  { d.ranks() } -> std::convertible_to<int>;
  { d.owner(t) } -> std::convertible_to<int>;
};

namespace detail {
struct TileVisitorArchetype {
  void operator()(TileIndex) const {}
};
}  // namespace detail

/// A distribution that can list one rank's tiles without scanning the whole box.
template <class D>
concept EnumeratesOwnedTiles = Distribution<D> &&
    requires(const D& d, int r, TileBox box, detail::TileVisitorArchetype f) {
  d.for_each_owned(r, box, f);
};

/// A distribution that guarantees owner(t) in [0, ranks()) for every tile (the built-in
/// models validate at construction). Others get every touched tile's owner checked.
template <class D>
concept OwnersInRange = Distribution<D> && requires {
  requires D::owners_in_range;
};

/// Whether every owner of d is in [0, ranks()): OwnersInRange, or, for a distribution that
/// knows it only at run time (a view of any distribution, views/distribution_view.hpp),
/// what its `owners_known_in_range()` says. The planner skips its per-tile owner checks
/// where it is true.
template <Distribution D>
constexpr bool owners_in_range(const D& d) {
  if constexpr (OwnersInRange<D>) {
    return true;
  } else if constexpr (requires {
                         { d.owners_known_in_range() } -> std::same_as<bool>;
                       }) {
    return d.owners_known_in_range();
  } else {
    return false;
  }
}

/// A distribution whose owner depends on a grid row chosen by m and a grid column
/// chosen by n: owner(m, n) == rank_of({grid_row(m), grid_col(n)}).
template <class D>
concept GridDistribution = Distribution<D> && requires(const D& d, index_t k, GridCoord g) {
  { d.grid() } -> std::same_as<Extents>;
  { d.grid_row(k) } -> std::convertible_to<int>;
  { d.grid_col(k) } -> std::convertible_to<int>;
  { d.rank_of(g) } -> std::convertible_to<int>;
};

/// Calls f(t) for every tile t of `box` owned by `rank`, column by column; uses the
/// distribution's own enumeration when it has one, else scans the box.
/// @post visits exactly {t in box : d.owner(t) == rank}.
template <Distribution D, class F>
constexpr void for_each_owned_tile(const D& d, int rank, TileBox box, F&& f) {
  if (box.empty()) return;
  if constexpr (EnumeratesOwnedTiles<D>) {
    d.for_each_owned(rank, box, f);
  } else {
    for (index_t n = box.begin.n; n < box.end.n; ++n)
      for (index_t m = box.begin.m; m < box.end.m; ++m)
        if (static_cast<int>(d.owner(TileIndex{m, n})) == rank) f(TileIndex{m, n});
  }
}

}  // namespace redist
