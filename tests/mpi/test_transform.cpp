// Transform while moving (transform.hpp) at 1-4 ranks: target region (or its triangle,
// triangle.hpp) = alpha * op(source region) + beta * target, against a naive reference, for every
// element type (conjugate transpose on complex), random block-cyclic layouts with uniform or
// irregular tiles, tile or ScaLAPACK storage, displaced regions, the node window on and off. Every
// target element is checked (outside the region: its initial value), and the source is unchanged.
#include <algorithm>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

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

AxisSpec random_axis(std::mt19937& g, index_t n, index_t max_tile) {
  AxisSpec a;
  a.irregular = g() % 3 == 0;
  a.tile = 1 + static_cast<index_t>(g() % static_cast<unsigned>(max_tile));
  a.bounds = {0};
  while (a.bounds.back() < n)
    a.bounds.push_back(std::min(
        n, a.bounds.back() + 1 + static_cast<index_t>(g() % static_cast<unsigned>(max_tile))));
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

Case random_case(std::mt19937& g, int np, Op op, index_t max_tile) {
  Case c;
  const auto dim = [&](index_t lo, index_t hi) {
    return lo + static_cast<index_t>(g() % static_cast<unsigned>(hi - lo + 1));
  };
  const auto grid = [&](int& p, int& q) {
    const int used = 1 + static_cast<int>(g() % static_cast<unsigned>(np));
    std::vector<int> divisors;
    for (int d = 1; d <= used; ++d)
      if (used % d == 0) divisors.push_back(d);
    p = divisors[g() % divisors.size()];
    q = used / p;
  };
  c.src_size = {dim(1, 45), dim(1, 45)};
  const index_t R = dim(0, c.src_size.rows), C = dim(0, c.src_size.cols);
  const Extents target = op == Op::none ? Extents{R, C} : Extents{C, R};
  c.dst_size = {target.rows + dim(0, 12), target.cols + dim(0, 12)};
  c.region = Region{{R, C},
                    {dim(0, c.src_size.rows - R), dim(0, c.src_size.cols - C)},
                    {dim(0, c.dst_size.rows - target.rows), dim(0, c.dst_size.cols - target.cols)}};
  c.src_rows = random_axis(g, c.src_size.rows, max_tile);
  c.src_cols = random_axis(g, c.src_size.cols, max_tile);
  c.dst_rows = random_axis(g, c.dst_size.rows, max_tile);
  c.dst_cols = random_axis(g, c.dst_size.cols, max_tile);
  grid(c.sp, c.sq);
  grid(c.dp, c.dq);
  c.src_first = {static_cast<int>(g() % static_cast<unsigned>(c.sp)),
                 static_cast<int>(g() % static_cast<unsigned>(c.sq))};
  c.dst_first = {static_cast<int>(g() % static_cast<unsigned>(c.dp)),
                 static_cast<int>(g() % static_cast<unsigned>(c.dq))};
  c.scalapack_target = g() % 2 == 0;
  return c;
}

/// Moves one case with transform t (both tilings uniform, or both irregular) and counts
/// wrong elements over all ranks (target and source).
template <class T, class SrcShape, class DstShape>
index_t run_case(const boost::mpi::communicator& comm, const Case& c, SrcShape src_shape,
                 DstShape dst_shape, const Transform<T>& t) {
  const Layout src{std::move(src_shape), BlockCyclic(c.sp, c.sq, 1, 1, c.src_first)};
  const Layout dst{std::move(dst_shape), BlockCyclic(c.dp, c.dq, 1, 1, c.dst_first)};
  TiledMatrix<T, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
  a.for_each_element([](ElementIndex e, T& v) { v = value_at<T>(e); });
  const auto move = [&](auto& b) {
    b.for_each_element([](ElementIndex e, T& v) { v = initial_at<T>(e); });
    Redistributor r(a, b, comm, c.region, t);
    r.redistribute();
    index_t bad = 0;
    b.for_each_element([&](ElementIndex e, T& v) { bad += !(v == expected_at(c.region, t, e)); });
    return sum(comm, bad) + sum(comm, source_errors(a));
  };
  if (c.scalapack_target) {
    TiledMatrix<T, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
    return move(b);
  }
  TiledMatrix<T, decltype(dst), TilePerAllocation<>> b(dst, {}, comm.rank());
  return move(b);
}

template <class T>
void check_random_transforms(const boost::mpi::communicator& comm, unsigned seed, int cases) {
  std::mt19937 g(seed);
  std::vector<Op> ops{Op::none, Op::transpose};
  if constexpr (detail::is_complex<T>::value) ops.push_back(Op::conj_transpose);
  for (int k = 0; k < cases; ++k) {
    const Op op = ops[static_cast<std::size_t>(k) % ops.size()];
    const Case c = random_case(g, comm.size(), op, k % 4 == 0 ? 3 : 12);
    Transform<T> t{op, T(1), T(0)};
    if (k % 3 == 1) t = {op, T(2), T(0)};
    if (k % 3 == 2) t = {op, T(-1), T(3)};
    // Every other case a triangle (trapezoid when not square), both diagonals.
    if (k % 2 == 1)
      t.triangle =
          Triangle{k % 4 == 1 ? Uplo::lower : Uplo::upper, k % 8 < 4 ? Diag::non_unit : Diag::unit};
    CAPTURE(static_cast<int>(t.triangle.uplo));
    CAPTURE(static_cast<int>(t.triangle.diag));
    CAPTURE(k);
    CAPTURE(static_cast<int>(op));
    CAPTURE(c.region.extent.rows);
    CAPTURE(c.region.extent.cols);
    index_t bad = 0;
    if (c.src_rows.irregular)
      bad = run_case<T>(
          comm, c, Tiling{IrregularAxis(c.src_rows.bounds), IrregularAxis(c.src_cols.bounds)},
          Tiling{IrregularAxis(c.dst_rows.bounds), IrregularAxis(c.dst_cols.bounds)}, t);
    else
      bad = run_case<T>(
          comm, c, uniform(c.src_size.rows, c.src_size.cols, c.src_rows.tile, c.src_cols.tile),
          uniform(c.dst_size.rows, c.dst_size.cols, c.dst_rows.tile, c.dst_cols.tile), t);
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE("mpi: transform while moving, random layouts, every element type") {
  const boost::mpi::communicator comm;
  for (const char* window : {"0", "1"}) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    check_random_transforms<double>(comm, 11, 24);
    check_random_transforms<float>(comm, 12, 12);
    check_random_transforms<int>(comm, 13, 12);
    check_random_transforms<std::complex<double>>(comm, 14, 18);
    check_random_transforms<std::complex<float>>(comm, 15, 9);
  }
}

TEST_CASE("mpi: transposed moves read a node-shared source in place") {
  const boost::mpi::communicator comm;
  const auto [P, Q] = near_square_grid(comm.size());
  const Layout src{uniform(64, 48, 8, 6), BlockCyclic(P, Q)};
  const Layout dst{uniform(50, 70, 5, 7), BlockCyclic(Q, P)};
  const Region region{{40, 30}, {10, 6}, {7, 12}};
  auto a = node_shared_matrix<double>(src, TilePerAllocation<>{}, comm);
  a.for_each_element([](ElementIndex e, double& v) { v = value_at<double>(e); });
  TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
  for (const Transform<double> t :
       {Transform<double>{Op::transpose, 1.0, 0.0}, Transform<double>{Op::transpose, -2.0, 0.5}}) {
    b.for_each_element([](ElementIndex e, double& v) { v = initial_at<double>(e); });
    Redistributor r(a, b, comm, region, t);
    r.redistribute();
    index_t bad = 0;
    b.for_each_element(
        [&](ElementIndex e, double& v) { bad += !(v == expected_at(region, t, e)); });
    CHECK(sum(comm, bad) == 0);
    CHECK(sum(comm, source_errors(a)) == 0);
    if (comm.size() > 1) CHECK(sum(comm, r.direct_messages().second) > 0);
  }
}

TEST_CASE("mpi: a transposed region that does not fit the target is refused on every rank") {
  const boost::mpi::communicator comm;
  const Layout src{uniform(30, 10, 4, 4), BlockCyclic(1, comm.size())};
  const Layout dst{uniform(30, 10, 4, 4), BlockCyclic(comm.size(), 1)};
  TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), TilePerAllocation<>> b(dst, {}, comm.rank());
  // 30 x 10 fits as it is, not transposed (10 x 30 in a 30 x 10 target).
  const Region region{{30, 10}, {0, 0}, {0, 0}};
  CHECK_NOTHROW(Redistributor(a, b, comm, region).redistribute());
  try {
    Redistributor r(a, b, comm, region, Transform<double>{Op::transpose});
    FAIL("a transposed region wider than the target was accepted");
  } catch (const region_error& e) {
    CHECK(std::string(e.what()).find("region.rows") != std::string::npos);
  }
}
