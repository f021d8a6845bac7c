// Triangles (triangle.hpp) at 1-4 ranks: only the kept elements travel. The bytes sent and
// copied, summed over ranks, are exactly the kept elements of the region; the target's
// other elements are untouched; square and trapezoid regions, both diagonals.
#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

}  // namespace

TEST_CASE("mpi: a triangle moves exactly its kept elements") {
  const boost::mpi::communicator comm;
  const auto [P, Q] = near_square_grid(comm.size());
  const Layout src{uniform(90, 80, 7, 5), BlockCyclic(P, Q)};
  const Layout dst{uniform(85, 95, 4, 9), BlockCyclic(Q, P, 1, 1, GridCoord{Q - 1, 0})};
  for (const Region region :
       {Region{{70, 70}, {5, 3}, {9, 11}}, Region{{60, 44}, {20, 30}, {2, 40}},
        Region{{31, 75}, {50, 0}, {40, 8}}})
    for (const Uplo uplo : {Uplo::lower, Uplo::upper})
      for (const Diag diag : {Diag::non_unit, Diag::unit}) {
        CAPTURE(region.extent.rows);
        CAPTURE(static_cast<int>(uplo));
        CAPTURE(static_cast<int>(diag));
        const Triangle tri{uplo, diag};
        TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, comm.rank());
        TiledMatrix<double, decltype(dst), TilePerAllocation<>> b(dst, {}, comm.rank());
        fill_source(a);
        fill_sentinel(b);
        Transform<double> t;
        t.triangle = tri;
        Redistributor r(a, b, comm, region, t);
        r.redistribute();
        index_t bad = 0;
        b.for_each_element([&](ElementIndex e, double& v) {
          const bool inside =
              in_target(region, e) &&
              tri.keeps(e.i - region.dst_origin.i, e.j - region.dst_origin.j, region.extent);
          bad += !(v == (inside ? value_at<double>(source_of(region, e)) : -1.0));
        });
        CHECK(sum(comm, bad) == 0);
        const PlanStats& s = r.plan().stats;
        const index_t kept = tri.elements(region.extent);
        CHECK(sum(comm, s.elements_received + s.elements_local) == kept);
        CHECK(sum(comm, s.elements_sent) == sum(comm, s.elements_received));
        // Roughly half of the region, as pxtrmr2d moves it.
        CHECK(kept < region.extent.rows * region.extent.cols);
      }
}
