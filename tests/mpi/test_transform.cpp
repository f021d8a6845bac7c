// Transform while moving (transform.hpp) at 1-4 ranks: target region (or its triangle,
// triangle.hpp) = alpha * op(source region) + beta * target, against a naive reference, for every
// element type (conjugate transpose on complex), random block-cyclic layouts with uniform or
// irregular tiles (up to 300 x 300), tile or ScaLAPACK storage, displaced regions, the node window
// on and off. Every target element is checked (outside the region: its initial value), and the
// source is unchanged.
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "random_cases.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Moves one case with transform t (both tilings uniform, or both irregular) and counts
/// wrong elements over all ranks (target and source).
template <class T, class SrcShape, class DstShape>
index_t run_case(const boost::mpi::communicator& comm, const Case& c, SrcShape src_shape,
                 DstShape dst_shape, const Transform<T>& t) {
  // Packed source tiles separate where they fill their rows and columns (small tiles:
  // stacked messages, engine/matrix_sides.hpp); per-allocation target tiles do not.
  return with_case_matrices<T, PackedTiles<>>(
      comm, c, std::move(src_shape), std::move(dst_shape), [&](auto& a, auto& b) {
        b.for_each_element([](ElementIndex e, T& v) { v = initial_at<T>(e); });
        Redistributor r(a, b, comm, c.region, t);
        r.redistribute();
        index_t bad = 0;
        b.for_each_element(
            [&](ElementIndex e, T& v) { bad += !(v == expected_at(c.region, t, e)); });
        return sum(comm, bad) + sum(comm, source_errors(a));
      });
}

/// `cases` random cases of source extents up to `max_extent`, every fourth with tiles of
/// 1..3 elements, the others up to `max_tile`.
template <class T>
void check_random_transforms(const boost::mpi::communicator& comm, unsigned seed, int cases,
                             index_t max_extent = 45, index_t max_tile = 12) {
  Rng g(seed);
  const std::vector<Op> ops = random_ops<T>();
  for (int k = 0; k < cases; ++k) {
    const Op op = ops[static_cast<std::size_t>(k) % ops.size()];
    const Case c = random_case(g, comm.size(), op, k % 4 == 0 ? 3 : max_tile, max_extent);
    const Transform<T> t = random_transform<T>(k, op);
    CAPTURE(static_cast<int>(t.triangle.uplo));
    CAPTURE(static_cast<int>(t.triangle.diag));
    CAPTURE(k);
    CAPTURE(static_cast<int>(op));
    CAPTURE(c.region.extent.rows);
    CAPTURE(c.region.extent.cols);
    const index_t bad =
        with_tilings(c, [&](auto src, auto dst) { return run_case<T>(comm, c, src, dst, t); });
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE("mpi: transform while moving, random layouts, every element type") {
  const boost::mpi::communicator comm;
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    check_random_transforms<double>(comm, 11, 24);
    check_random_transforms<float>(comm, 12, 12);
    check_random_transforms<int>(comm, 13, 12);
    check_random_transforms<std::complex<double>>(comm, 14, 18);
    check_random_transforms<std::complex<float>>(comm, 15, 9);
  }
}

// Matrices of up to 300 x 300: in the small-rings legs (16 KiB slots) a message is up to tens
// of chunks around its ring, where the cases above (at most 57 a side) are a chunk or two.
TEST_CASE("mpi: transform while moving, random layouts up to 300 x 300") {
  const boost::mpi::communicator comm;
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    check_random_transforms<double>(comm, 21, 12, 300, 40);
    check_random_transforms<std::complex<double>>(comm, 22, 6, 300, 40);
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
    // Read in place, unless the run keeps every message point to point.
    if (point_to_point_only())
      CHECK(sum(comm, r.direct_messages().second) == 0);
    else if (comm.size() > 1)
      CHECK(sum(comm, r.direct_messages().second) > 0);
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
