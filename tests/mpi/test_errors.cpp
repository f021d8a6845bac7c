// Bad input raises the same redist::error on every rank, before any message is sent, so no
// rank hangs.
#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

TEST_CASE("mpi: a region outside the target throws region_error on every rank") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(20, 20, 4, 4), BlockCyclic(1, np)};
  const Layout dst{uniform(10, 12, 3, 5), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
  using R = Redistributor<decltype(a), decltype(b)>;
  CHECK_THROWS_AS(R(a, b, comm, Region{{5, 5}, {0, 0}, {8, 0}}), region_error);
  CHECK_THROWS_AS(R(a, b, comm, Region{{11, 2}, {0, 0}, {0, 0}}), region_error);
  CHECK_THROWS_AS(R(a, b, comm, Region{{2, 2}, {19, 0}, {0, 0}}), region_error);  // source
  CHECK_THROWS_AS(R(a, b, comm), region_error);  // the whole 20x20 source does not fit
  // Still in step: a good plan afterwards works.
  b.for_each_element([](ElementIndex, double& v) { v = -1; });
  fill_source(a);
  const Region ok{{4, 4}, {1, 2}, {3, 4}};
  R r(a, b, comm, ok);
  r.redistribute();
  index_t checked = 0;
  REDIST_CHECK_ALL_RANKS(target_errors(b, ok, checked) == 0);
}

TEST_CASE("mpi: a grid larger than the communicator throws distribution_error on every rank") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout big{uniform(20, 20, 4, 4), BlockCyclic(np + 1, 1)};
  const Layout fits{uniform(20, 20, 5, 5), BlockCyclic(1, np)};
  TiledMatrix<double, decltype(big), PackedTiles<>> a(big, {}, comm.rank());
  TiledMatrix<double, decltype(fits), PackedTiles<>> b(fits, {}, comm.rank());
  using R1 = Redistributor<decltype(a), decltype(b)>;
  using R2 = Redistributor<decltype(b), decltype(a)>;
  CHECK_THROWS_AS(R1(a, b, comm), distribution_error);
  CHECK_THROWS_AS(R2(b, a, comm), distribution_error);
  // Random layouts drawn over more ranks than exist are refused too.
  const Layout rnd{uniform(20, 20, 4, 4), RandomDistribution(np + 2, 1)};
  TiledMatrix<double, decltype(rnd), PackedTiles<>> c(rnd, {}, comm.rank());
  CHECK_THROWS_AS((Redistributor<decltype(b), decltype(c)>(b, c, comm)), distribution_error);
  REDIST_CHECK_ALL_RANKS(true);  // every rank got here: nobody hangs
}

}  // namespace
