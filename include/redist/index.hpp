#pragma once
/// @file index.hpp
/// Strong index types. A tile index, a local tile index, an element index, an offset
/// inside a tile, a grid coordinate and 2-D extents are distinct types: none converts
/// into another silently, so a tile index can never be passed where an element index
/// is meant. Element quantities are 64-bit (index_t).
///
/// | type             | fields   | meaning                                            |
/// |------------------|----------|----------------------------------------------------|
/// | TileIndex        | m, n     | global tile row / column                           |
/// | LocalTileIndex   | m, n     | tile row / column among the tiles a rank stores    |
/// | ElementIndex     | i, j     | global element row / column                        |
/// | TileOffset       | i, j     | element row / column relative to a tile's origin   |
/// | GridCoord        | p, q     | process-grid row / column                          |
/// | Extents          | rows,cols| a 2-D size, in elements or in tiles                |

#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>

#include <redist/config.hpp>

namespace redist {

/// The two axes. 1-D math is written once as `template <Axis A>` and used for both.
enum class Axis { row = 0, col = 1 };

/// Global tile index (m = tile row, n = tile column).
struct TileIndex {
  index_t m = 0;
  index_t n = 0;
  constexpr TileIndex() = default;
  constexpr TileIndex(index_t m_, index_t n_) : m(m_), n(n_) {}
  /// The component along axis A (m for rows, n for columns).
  template <Axis A>
  constexpr index_t get() const {
    return A == Axis::row ? m : n;
  }
  friend constexpr auto operator<=>(const TileIndex&, const TileIndex&) = default;
  // Declared too, not only implied by <=>: nvcc emits no implied operator==.
  friend constexpr bool operator==(const TileIndex&, const TileIndex&) = default;
};

/// Index of a tile among the tiles one rank stores (ScaLAPACK's local tile index).
struct LocalTileIndex {
  index_t m = 0;
  index_t n = 0;
  constexpr LocalTileIndex() = default;
  constexpr LocalTileIndex(index_t m_, index_t n_) : m(m_), n(n_) {}
  template <Axis A>
  constexpr index_t get() const {
    return A == Axis::row ? m : n;
  }
  friend constexpr auto operator<=>(const LocalTileIndex&, const LocalTileIndex&) = default;
  friend constexpr bool operator==(const LocalTileIndex&, const LocalTileIndex&) = default;
};

/// Global element index (i = row, j = column), 64-bit.
struct ElementIndex {
  index_t i = 0;
  index_t j = 0;
  constexpr ElementIndex() = default;
  constexpr ElementIndex(index_t i_, index_t j_) : i(i_), j(j_) {}
  template <Axis A>
  constexpr index_t get() const {
    return A == Axis::row ? i : j;
  }
  friend constexpr auto operator<=>(const ElementIndex&, const ElementIndex&) = default;
  friend constexpr bool operator==(const ElementIndex&, const ElementIndex&) = default;
};

/// Element position relative to the first element of a tile.
struct TileOffset {
  index_t i = 0;
  index_t j = 0;
  constexpr TileOffset() = default;
  constexpr TileOffset(index_t i_, index_t j_) : i(i_), j(j_) {}
  template <Axis A>
  constexpr index_t get() const {
    return A == Axis::row ? i : j;
  }
  friend constexpr auto operator<=>(const TileOffset&, const TileOffset&) = default;
  friend constexpr bool operator==(const TileOffset&, const TileOffset&) = default;
};

/// Coordinate in a P x Q process grid.
struct GridCoord {
  int p = 0;
  int q = 0;
  constexpr GridCoord() = default;
  constexpr GridCoord(int p_, int q_) : p(p_), q(q_) {}
  friend constexpr auto operator<=>(const GridCoord&, const GridCoord&) = default;
  friend constexpr bool operator==(const GridCoord&, const GridCoord&) = default;
};

/// A 2-D size (rows x cols), of elements or of tiles depending on context.
struct Extents {
  index_t rows = 0;
  index_t cols = 0;
  constexpr Extents() = default;
  constexpr Extents(index_t rows_, index_t cols_) : rows(rows_), cols(cols_) {}
  template <Axis A>
  constexpr index_t get() const {
    return A == Axis::row ? rows : cols;
  }
  constexpr index_t size() const { return rows * cols; }
  friend constexpr auto operator<=>(const Extents&, const Extents&) = default;
  friend constexpr bool operator==(const Extents&, const Extents&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const TileIndex& t) {
  return os << "tile(" << t.m << ", " << t.n << ")";
}
inline std::ostream& operator<<(std::ostream& os, const LocalTileIndex& t) {
  return os << "local_tile(" << t.m << ", " << t.n << ")";
}
inline std::ostream& operator<<(std::ostream& os, const ElementIndex& e) {
  return os << "(" << e.i << ", " << e.j << ")";
}
inline std::ostream& operator<<(std::ostream& os, const TileOffset& o) {
  return os << "+(" << o.i << ", " << o.j << ")";
}
inline std::ostream& operator<<(std::ostream& os, const GridCoord& g) {
  return os << "grid(" << g.p << ", " << g.q << ")";
}
inline std::ostream& operator<<(std::ostream& os, const Extents& e) {
  return os << e.rows << "x" << e.cols;
}

}  // namespace redist

template <>
struct std::hash<redist::TileIndex> {
  std::size_t operator()(const redist::TileIndex& t) const noexcept {
    // Mix two 64-bit values (splitmix-style) so tiles of one row do not collide.
    auto h = static_cast<std::uint64_t>(t.m) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<std::uint64_t>(t.n) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};
