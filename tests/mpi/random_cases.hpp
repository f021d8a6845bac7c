// Random redistribution cases for the MPI tests, drawn alike on every rank (same seed), and
// the reference a transformed move is checked against: target = alpha * op(source region) +
// beta * initial target, in the triangle if any, the initial value elsewhere.
#pragma once

#include <algorithm>
#include <vector>

#include <redist/redist.hpp>

#include "mpi_test_support.hpp"

namespace redist::test {

/// The target's value before the move: a function of the index, unlike value_at.
template <class T>
T initial_at(ElementIndex e) {
  if constexpr (detail::is_complex<T>::value) {
    using R = typename T::value_type;
    return T(-static_cast<R>(e.i), static_cast<R>(e.j) + R(0.25));
  } else {
    return static_cast<T>(-(e.i * 3 + e.j * 7 + 1));
  }
}

/// alpha * op(source) + beta * initial at target element e; `inside` false: initial.
template <class T>
T expected_at(const Region& r, const Transform<T>& t, ElementIndex e) {
  const Extents ext = target_extent(r, t.op);
  const index_t a = e.i - r.dst_origin.i, b = e.j - r.dst_origin.j;
  if (a < 0 || b < 0 || a >= ext.rows || b >= ext.cols) return initial_at<T>(e);
  if (!t.triangle.keeps(a, b, ext)) return initial_at<T>(e);
  const ElementIndex s = t.op == Op::none ? ElementIndex{r.src_origin.i + a, r.src_origin.j + b}
                                          : ElementIndex{r.src_origin.i + b, r.src_origin.j + a};
  T x = value_at<T>(s);
  if constexpr (detail::is_complex<T>::value)
    if (t.op == Op::conj_transpose) x = std::conj(x);
  return t.beta == T(0) ? T(t.alpha * x) : T(t.alpha * x + t.beta * initial_at<T>(e));
}

/// A random axis of `n` elements: uniform tiles of 1..max, or irregular ones.
struct AxisSpec {
  bool irregular = false;
  index_t tile = 1;
  std::vector<index_t> bounds;
};

inline AxisSpec random_axis_spec(Rng& g, index_t n, index_t max_tile) {
  AxisSpec a;
  a.irregular = g.chance(33);
  a.tile = g.in(1, max_tile);
  a.bounds = random_bounds(g, n, {0, max_tile});
  return a;
}

/// One random case, drawn alike on every rank (same seed).
struct Case {
  Extents src_size, dst_size;
  AxisSpec src_rows, src_cols, dst_rows, dst_cols;
  int sp, sq, dp, dq;  ///< grids (may use fewer ranks than the communicator)
  GridCoord src_first, dst_first;
  Region region;
  bool scalapack_target = false;
};

/// Source extents of 1..max_extent a side; the target up to 12 larger than the region.
inline Case random_case(Rng& g, int np, Op op, index_t max_tile, index_t max_extent = 45) {
  Case c;
  const auto dim = [&](index_t lo, index_t hi) { return g.in(lo, hi); };
  const auto grid = [&](int& p, int& q) {
    const int used = static_cast<int>(g.in(1, np));
    std::vector<int> divisors;
    for (int d = 1; d <= used; ++d)
      if (used % d == 0) divisors.push_back(d);
    p = g.pick(divisors);
    q = used / p;
  };
  c.src_size = {dim(1, max_extent), dim(1, max_extent)};
  const index_t R = dim(0, c.src_size.rows), C = dim(0, c.src_size.cols);
  const Extents target = op == Op::none ? Extents{R, C} : Extents{C, R};
  c.dst_size = {target.rows + dim(0, 12), target.cols + dim(0, 12)};
  c.region = Region{{R, C},
                    {dim(0, c.src_size.rows - R), dim(0, c.src_size.cols - C)},
                    {dim(0, c.dst_size.rows - target.rows), dim(0, c.dst_size.cols - target.cols)}};
  c.src_rows = random_axis_spec(g, c.src_size.rows, max_tile);
  c.src_cols = random_axis_spec(g, c.src_size.cols, max_tile);
  c.dst_rows = random_axis_spec(g, c.dst_size.rows, max_tile);
  c.dst_cols = random_axis_spec(g, c.dst_size.cols, max_tile);
  grid(c.sp, c.sq);
  grid(c.dp, c.dq);
  c.src_first = {static_cast<int>(g.in(0, c.sp - 1)), static_cast<int>(g.in(0, c.sq - 1))};
  c.dst_first = {static_cast<int>(g.in(0, c.dp - 1)), static_cast<int>(g.in(0, c.dq - 1))};
  c.scalapack_target = g.chance(50);
  return c;
}

/// The ops a type's random cases cycle through: none and transpose, and for complex types
/// the conjugate transpose.
template <class T>
std::vector<Op> random_ops() {
  std::vector<Op> ops{Op::none, Op::transpose};
  if constexpr (detail::is_complex<T>::value) ops.push_back(Op::conj_transpose);
  return ops;
}

/// Case k's transform with op: alpha, beta cycling through (1, 0), (2, 0), (-1, 3); every
/// other case a triangle (a trapezoid when not square), both uplos and both diagonals.
template <class T>
Transform<T> random_transform(int k, Op op) {
  Transform<T> t{op, T(1), T(0)};
  if (k % 3 == 1) t = {op, T(2), T(0)};
  if (k % 3 == 2) t = {op, T(-1), T(3)};
  if (k % 2 == 1)
    t.triangle =
        Triangle{k % 4 == 1 ? Uplo::lower : Uplo::upper, k % 8 < 4 ? Diag::non_unit : Diag::unit};
  return t;
}

/// f(source tiling, target tiling) for case c: both irregular, or both uniform.
template <class F>
auto with_tilings(const Case& c, F&& f) {
  if (c.src_rows.irregular)
    return f(Tiling{IrregularAxis(c.src_rows.bounds), IrregularAxis(c.src_cols.bounds)},
             Tiling{IrregularAxis(c.dst_rows.bounds), IrregularAxis(c.dst_cols.bounds)});
  return f(uniform(c.src_size.rows, c.src_size.cols, c.src_rows.tile, c.src_cols.tile),
           uniform(c.dst_size.rows, c.dst_size.cols, c.dst_rows.tile, c.dst_cols.tile));
}

/// Case c's matrices on this rank: the source stored as SrcPlacement, filled with value_at,
/// and the target in ScaLAPACK storage or a tile per allocation, as c says, in node-shared
/// memory when `shared_target` (pushed into, transport/push.hpp); returns move(a, b).
template <class T, class SrcPlacement, class SrcShape, class DstShape, class Move>
auto with_case_matrices(const boost::mpi::communicator& comm, const Case& c, SrcShape src_shape,
                        DstShape dst_shape, Move&& move, bool shared_target = false) {
  Layout src{std::move(src_shape), BlockCyclic(c.sp, c.sq, 1, 1, c.src_first)};
  Layout dst{std::move(dst_shape), BlockCyclic(c.dp, c.dq, 1, 1, c.dst_first)};
  TiledMatrix<T, decltype(src), SrcPlacement> a(src, {}, comm.rank());
  a.for_each_element([](ElementIndex e, T& v) { v = value_at<T>(e); });
  const auto target = [&](auto placement) {
    using P = decltype(placement);
    return shared_target ? node_shared_matrix<T>(dst, placement, comm)
                         : TiledMatrix<T, decltype(dst), P>(dst, placement, comm.rank());
  };
  if (c.scalapack_target) {
    auto b = target(ScalapackColumnMajor<>{});
    return move(a, b);
  }
  auto b = target(TilePerAllocation<>{});
  return move(a, b);
}

}  // namespace redist::test
