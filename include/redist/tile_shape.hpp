#pragma once
/// @file tile_shape.hpp
/// The TileShape policy: how an M x N index space is cut into tiles. A shape is two
/// independent 1-D tilings (TileAxis), one per axis, so every 1-D rule is written once.
///
/// TileAxis requirements (`a` a const axis, `k` a tile index, `i` an element index):
///
/// | expression       | result  | returns                          | preconditions        |
/// |------------------|---------|----------------------------------|----------------------|
/// | `A::static_tile` | index_t | the tile extent if it is a       |                      |
/// |                  |         | compile-time constant, else      |                      |
/// |                  |         | `dynamic_extent` (constant expr) |                      |
/// | `a.extent()`     | index_t | number of elements on the axis   |                      |
/// | `a.count()`      | index_t | number of tiles                  |                      |
/// | `a.begin(k)`     | index_t | first element of tile k;         | 0 <= k <= count()    |
/// |                  |         | begin(count()) == extent()       |                      |
/// | `a.size(k)`      | index_t | extent of tile k (> 0)           | 0 <= k < count()     |
/// | `a.tile_of(i)`   | index_t | k with begin(k) <= i < begin(k+1)| 0 <= i < extent()    |
///
/// TileShape requirements (`s` a const shape):
///
/// | expression   | result                   | returns                          |
/// |--------------|--------------------------|----------------------------------|
/// | `s.rows()`   | a TileAxis (by ref/value)| the tiling of rows (M, MB)       |
/// | `s.cols()`   | a TileAxis (by ref/value)| the tiling of columns (N, NB)    |
///
/// Everything else (extents, tile counts, tile of an element) is derived by the free
/// functions below, so a user model needs only the two axes. Models:
/// tile_shapes/uniform_axis.hpp (static or dynamic tile extent, partial last tile) and
/// tile_shapes/irregular_axis.hpp (explicit boundaries), composed by `Tiling`.

#include <concepts>
#include <limits>
#include <type_traits>
#include <utility>

#include <redist/index.hpp>

namespace redist {

/// Marks a tile extent known only at run time (as std::dynamic_extent does for spans).
inline constexpr index_t dynamic_extent = -1;

namespace detail {
template <index_t V>
struct constant_index {};
}  // namespace detail

/// A 1-D tiling of an axis. `static_tile` must be a constant expression.
template <class A>
concept TileAxis = requires(const A& a, index_t k) {
  { a.extent() } -> std::same_as<index_t>;
  { a.count() } -> std::same_as<index_t>;
  { a.begin(k) } -> std::same_as<index_t>;
  { a.size(k) } -> std::same_as<index_t>;
  { a.tile_of(k) } -> std::same_as<index_t>;
  typename detail::constant_index<std::remove_cvref_t<A>::static_tile>;
};

/// A 2-D tiling: one TileAxis for rows and one for columns.
template <class S>
concept TileShape = requires(const S& s) {
  { s.rows() } -> TileAxis;
  { s.cols() } -> TileAxis;
};

/// The tiling of axis A of shape s.
template <Axis A, TileShape S>
constexpr decltype(auto) axis(const S& s) {
  if constexpr (A == Axis::row) {
    return s.rows();
  } else {
    return s.cols();
  }
}

/// Global extents M x N in elements.
template <TileShape S>
constexpr Extents element_extents(const S& s) {
  return {s.rows().extent(), s.cols().extent()};
}

/// Number of tile rows x tile columns.
template <TileShape S>
constexpr Extents tile_counts(const S& s) {
  return {s.rows().count(), s.cols().count()};
}

/// Extents of tile t (the last tile of an axis may be partial).
/// @pre t is a tile of s.
template <TileShape S>
constexpr Extents tile_extents(const S& s, TileIndex t) {
  return {s.rows().size(t.m), s.cols().size(t.n)};
}

/// Global index of the first element of tile t.
template <TileShape S>
constexpr ElementIndex tile_origin(const S& s, TileIndex t) {
  return {s.rows().begin(t.m), s.cols().begin(t.n)};
}

/// The tile that holds element e. @pre e is inside the shape.
template <TileShape S>
constexpr TileIndex tile_of(const S& s, ElementIndex e) {
  return {s.rows().tile_of(e.i), s.cols().tile_of(e.j)};
}

/// A TileShape composed of a row tiling and a column tiling.
/// Example: `Tiling{UniformAxis<100>(1000), UniformAxis<>(1000, 70)}` is a 1000 x 1000
/// matrix of 100 x 70 tiles whose last tile column is 20 wide.
template <TileAxis RowAxis, TileAxis ColAxis>
class Tiling {
 public:
  constexpr Tiling(RowAxis rows, ColAxis cols) : rows_(std::move(rows)), cols_(std::move(cols)) {}
  constexpr const RowAxis& rows() const { return rows_; }
  constexpr const ColAxis& cols() const { return cols_; }
  friend constexpr bool operator==(const Tiling&, const Tiling&) = default;

 private:
  RowAxis rows_;
  ColAxis cols_;
};

}  // namespace redist
