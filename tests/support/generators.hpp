#pragma once
// Test inputs shared by the unit, MPI and device suites: one reproducible generator, the
// tilings, grids and block-cyclic distributions drawn with it, and element values. A case
// drawn from one seed is the same on every rank and every standard library.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

namespace redist::test {

/// Reproducible integers: mt19937_64's output is specified by the standard, and so is this
/// mapping (std::uniform_int_distribution's is not).
struct Rng {
  std::mt19937_64 engine;
  explicit Rng(std::uint64_t seed) : engine(seed) {}
  /// Uniform-ish in [lo, hi] (modulo bias is irrelevant here).
  index_t in(index_t lo, index_t hi) {
    return lo + static_cast<index_t>(engine() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return in(0, 99) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(in(0, static_cast<index_t>(v.size()) - 1))];
  }
};

/// How random_bounds draws an axis.
struct AxisDraw {
  int uniform_percent = 50;  ///< chance of equal tiles (the last partial) over irregular ones
  index_t max_tile = 9;      ///< tiles of 1..max_tile elements (1x1 tiles included)
};

/// Tile boundaries 0 = b0 < b1 < ... < bn = extent of an axis of `extent` elements ({0}
/// when it is empty).
inline std::vector<index_t> random_bounds(Rng& g, index_t extent, AxisDraw d = {}) {
  std::vector<index_t> b{0};
  if (g.chance(d.uniform_percent)) {
    const index_t t = g.in(1, d.max_tile);
    for (index_t x = t; x < extent; x += t) b.push_back(x);
  } else {
    for (index_t x = g.in(1, d.max_tile); x < extent; x += g.in(1, d.max_tile)) b.push_back(x);
  }
  if (b.back() < extent) b.push_back(extent);  // an empty axis has no tile: {0}
  return b;
}

inline IrregularAxis random_axis(Rng& g, index_t extent, AxisDraw d = {}) {
  return IrregularAxis(random_bounds(g, extent, d));
}

/// A region of a random extent that fits both matrices, at random origins in each.
inline Region random_region(Rng& g, Extents src, Extents dst) {
  const index_t rows = g.in(0, std::min(src.rows, dst.rows));
  const index_t cols = g.in(0, std::min(src.cols, dst.cols));
  // One draw per statement: argument evaluation order is unspecified.
  const index_t si = g.in(0, src.rows - rows), sj = g.in(0, src.cols - cols);
  const index_t di = g.in(0, dst.rows - rows), dj = g.in(0, dst.cols - cols);
  return Region{{rows, cols}, {si, sj}, {di, dj}};
}

/// A P x Q grid with P * Q <= np and P, Q <= max_side (0: np), every such grid equally
/// likely.
inline std::pair<int, int> random_grid(Rng& g, int np, int max_side = 0) {
  const int side = max_side > 0 ? max_side : np;
  std::vector<std::pair<int, int>> grids;
  for (int p = 1; p <= std::min(np, side); ++p)
    for (int q = 1; q <= side && p * q <= np; ++q) grids.push_back({p, q});
  return g.pick(grids);
}

/// How random_block_cyclic draws.
struct BlockCyclicDraw {
  index_t max_super = 2;   ///< super-tiles of 1..max_super tiles per side
  bool any_order = false;  ///< a random grid order (else row-major)
  int max_side = 0;        ///< grid sides up to this (0: the rank count)
};

/// Block-cyclic on a random_grid with a random first process.
inline BlockCyclic random_block_cyclic(Rng& g, int np, BlockCyclicDraw d = {}) {
  const auto [P, Q] = random_grid(g, np, d.max_side);
  const index_t kp = g.in(1, d.max_super), kq = g.in(1, d.max_super);
  const GridCoord first{static_cast<int>(g.in(0, P - 1)), static_cast<int>(g.in(0, Q - 1))};
  const GridOrder order =
      d.any_order && g.chance(50) ? GridOrder::column_major : GridOrder::row_major;
  return BlockCyclic(P, Q, kp, kq, first, order);
}

/// A dynamic uniform tiling of rows x cols elements in mb x nb tiles.
inline Tiling<UniformAxis<>, UniformAxis<>> uniform(index_t rows, index_t cols, index_t mb,
                                                    index_t nb) {
  return {UniformAxis<>(rows, mb), UniformAxis<>(cols, nb)};
}

/// Value of element e: distinct per element and exact in every tested type for matrices of
/// fewer than 4096 columns and 4096 rows (i * 4096 + j + 1 < 2^24).
template <class T>
T value_at(ElementIndex e) {
  const index_t k = e.i * 4096 + e.j + 1;
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    return T(static_cast<R>(e.i) + R(0.5), static_cast<R>(e.j));
  } else {
    return static_cast<T>(k);
  }
}

/// A near-square P x Q grid with P * Q == n and P <= Q.
inline std::pair<int, int> near_square_grid(int n) {
  int p = static_cast<int>(std::sqrt(static_cast<double>(n)));
  while (p > 1 && n % p != 0) --p;
  return {p, n / p};
}

}  // namespace redist::test
