// Redistribution cases, each verified element by element on every rank: storages
// (tile per allocation, packed, ScaLAPACK), the nine categories, 1x1 and irregular tiles,
// different grids, ranks that own nothing, tiny and empty regions, round trips, element
// types, repeated and asynchronous execution, message splitting and small batches. Grids are
// chosen from the communicator size, so every case is meaningful at 1..4 ranks.
#include <complex>
#include <vector>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

using Shape = Tiling<UniformAxis<>, UniformAxis<>>;

TEST_CASE("mpi: ScaLAPACK storage on either side and both") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(57, 43, 8, 6), BlockCyclic(P, Q, 1, 2, GridCoord{0, Q - 1})};
  const Layout dst{uniform(49, 61, 5, 7), BlockCyclic(Q, P)};
  const Region region{{37, 29}, {11, 3}, {6, 20}};
  SUBCASE("scalapack -> scalapack") {
    const RunReport rep = check_redistribution<double>(comm, src, ScalapackColumnMajor<>{}, dst,
                                                       ScalapackColumnMajor<>{}, region);
    CHECK(rep.ok);
    CHECK(rep.checked == 49 * 61);
  }
  SUBCASE("tile -> scalapack with a large leading dimension") {
    const RunReport rep = check_redistribution<double>(comm, src, TilePerAllocation<>{}, dst,
                                                       ScalapackColumnMajor<>{60}, region);
    CHECK(rep.ok);
  }
  SUBCASE("scalapack -> packed tiles") {
    const RunReport rep = check_redistribution<double>(comm, src, ScalapackColumnMajor<>{}, dst,
                                                       PackedTiles<>{}, region);
    CHECK(rep.ok);
  }
}

TEST_CASE("mpi: all nine categories with irregular source tiles") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  // Target tiles of 10: [0,10) is one source tile, [10,20) two, [20,30) three, [30,40) two.
  const IrregularAxis cuts({0, 10, 15, 20, 23, 26, 30, 37, 40});
  const Layout src{Tiling{cuts, cuts}, RandomDistribution(np, 7)};
  const Layout dst{uniform(40, 40, 10, 10),
                   BlockCyclic(near_square_grid(np).first, near_square_grid(np).second)};
  const RunReport rep = check_redistribution<double>(comm, src, TilePerAllocation<>{}, dst,
                                                     PackedTiles<>{}, Region::whole({40, 40}));
  CHECK(rep.ok);
  for (int c = 0; c < 9; ++c) {
    INFO("category " << c);
    CHECK(rep.categories[static_cast<std::size_t>(c)] > 0);
  }
  // Irregular on the target side too, with displacements.
  const Layout dst2{Tiling{IrregularAxis({0, 1, 9, 20, 21, 33}), IrregularAxis({0, 17, 18, 35})},
                    RandomDistribution(np, 11)};
  const RunReport rep2 = check_redistribution<double>(
      comm, src, PackedTiles<>{}, dst2, TilePerAllocation<>{}, Region{{30, 31}, {9, 2}, {1, 4}});
  CHECK(rep2.ok);
}

TEST_CASE("mpi: 1x1 tiles on either side") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout ones{uniform(13, 11, 1, 1), RandomDistribution(np, 3)};
  const Layout big{uniform(17, 12, 4, 3), BlockCyclic(1, np)};
  CHECK(check_redistribution<double>(comm, ones, PackedTiles<>{}, big, PackedTiles<>{},
                                     Region{{12, 9}, {1, 2}, {5, 3}})
            .ok);
  CHECK(check_redistribution<double>(comm, big, PackedTiles<>{}, ones, PackedTiles<>{},
                                     Region{{13, 11}, {4, 1}, {0, 0}})
            .ok);
}

TEST_CASE("mpi: 1-D grids, source and target on different grids, ranks that own nothing") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Shape s = uniform(45, 38, 6, 5), d = uniform(41, 44, 7, 4);
  const Region region{{33, 30}, {4, 8}, {8, 2}};
  SUBCASE("1 x P -> P x 1") {
    CHECK(check_redistribution<double>(comm, Layout{s, BlockCyclic(1, np)}, PackedTiles<>{},
                                       Layout{d, BlockCyclic(np, 1)}, PackedTiles<>{}, region)
              .ok);
  }
  SUBCASE("P x 1 with a first-owner offset -> 1 x P with super-tiles") {
    CHECK(check_redistribution<double>(
              comm, Layout{s, BlockCyclic(np, 1, 1, 1, GridCoord{np - 1, 0})}, PackedTiles<>{},
              Layout{d, BlockCyclic(1, np, 1, 3)}, PackedTiles<>{}, region)
              .ok);
  }
  SUBCASE("source only on rank 0 (scatter)") {
    const RunReport rep =
        check_redistribution<double>(comm, Layout{s, BlockCyclic(1, 1)}, PackedTiles<>{},
                                     Layout{d, BlockCyclic(1, np)}, PackedTiles<>{}, region);
    CHECK(rep.ok);
    if (np > 1) CHECK(rep.elements_sent > 0);
  }
  SUBCASE("target uses fewer ranks than the communicator (gather)") {
    const int used = np > 1 ? np - 1 : 1;
    CHECK(check_redistribution<double>(comm, Layout{s, BlockCyclic(np, 1)}, PackedTiles<>{},
                                       Layout{d, BlockCyclic(1, used)}, TilePerAllocation<>{},
                                       region)
              .ok);
  }
}

TEST_CASE("mpi: a one-element region and an empty region") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(20, 20, 3, 4), RandomDistribution(np, 5)};
  const Layout dst{uniform(15, 25, 4, 6), BlockCyclic(np, 1)};
  SUBCASE("one element") {
    const RunReport rep = check_redistribution<double>(
        comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, Region{{1, 1}, {19, 7}, {3, 24}});
    CHECK(rep.ok);
    CHECK(rep.elements_received + rep.elements_local == 1);
    CHECK(rep.categories[0] == 1);
  }
  SUBCASE("empty region: nothing moves, target untouched") {
    const RunReport rep = check_redistribution<double>(
        comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, Region{{0, 5}, {2, 2}, {1, 1}});
    CHECK(rep.ok);
    CHECK(rep.messages == 0);
    CHECK(rep.elements_local == 0);
    CHECK(rep.checked == 15 * 25);
  }
}

TEST_CASE("mpi: src -> dst -> src is the identity") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout l1{uniform(50, 40, 7, 6), BlockCyclic(P, Q)};
  const Layout l2{uniform(50, 40, 9, 4), RandomDistribution(np, 99)};
  TiledMatrix<double, decltype(l1), PackedTiles<>> a(l1, {}, comm.rank());
  TiledMatrix<double, decltype(l2), TilePerAllocation<>> b(l2, {}, comm.rank());
  TiledMatrix<double, decltype(l1), PackedTiles<>> c(l1, {}, comm.rank());
  fill_source(a);
  fill_sentinel(b);
  fill_sentinel(c);
  Redistributor<decltype(a), decltype(b)> there(a, b, comm);
  Redistributor<decltype(b), decltype(c)> back(b, c, comm);
  there.redistribute();
  back.redistribute();
  REDIST_CHECK_ALL_RANKS(source_errors(c) == 0);  // c holds value_at everywhere
  REDIST_CHECK_ALL_RANKS(source_errors(a) == 0);
}

TEST_CASE("mpi: element types int, std::complex<float>, std::complex<double>") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(33, 29, 5, 4),
                   BandDistribution(1, BlockCyclic(1, np), BlockCyclic(np, 1))};
  const Layout dst{uniform(30, 35, 6, 7), RandomDistribution(np, 4)};
  const Region region{{25, 20}, {8, 9}, {2, 15}};
  CHECK(check_redistribution<int>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, region).ok);
  CHECK(check_redistribution<std::complex<float>>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{},
                                                  region)
            .ok);
  CHECK(check_redistribution<std::complex<double>>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{},
                                                   region)
            .ok);
}

TEST_CASE("mpi: one plan executed several times, blocking and start()/wait()") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(64, 48, 8, 8), BlockCyclic(P, Q)};
  const Layout dst{uniform(60, 52, 7, 9), BlockCyclic(Q, P, 2, 2)};
  const Region region{{50, 40}, {10, 8}, {3, 12}};
  RunOptions o;
  o.repeats = 3;
  CHECK(
      check_redistribution<double>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, region, o).ok);
  o.async = true;
  CHECK(
      check_redistribution<double>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, region, o).ok);
}

TEST_CASE("mpi: messages split at 64 bytes, batches of one source tile column") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(40, 45, 6, 5), RandomDistribution(np, 12)};
  const Layout dst{uniform(47, 41, 9, 4), BlockCyclic(1, np)};
  const Region region{{35, 38}, {5, 7}, {12, 3}};
  RunOptions o;
  o.execution.max_message_bytes = 64;
  o.plan.batch = 1;
  o.repeats = 2;
  const RunReport rep = check_redistribution<double>(comm, src, PackedTiles<>{}, dst,
                                                     TilePerAllocation<>{}, region, o);
  CHECK(rep.ok);
  CHECK(rep.batches == 8);  // source tile columns 1..8 of 5 columns each hold columns 7..44
  o.async = true;
  o.execution.max_message_bytes = 24;  // 3 doubles: chunk boundaries inside segments
  CHECK(check_redistribution<int>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, region, o).ok);
}

TEST_CASE("mpi: a moderately sized case") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(600, 500, 32, 24), BlockCyclic(P, Q)};
  const Layout dst{uniform(620, 480, 50, 40), RandomDistribution(np, 2021)};
  RunOptions o;
  o.plan.batch = 4;
  const RunReport rep = check_redistribution<double>(
      comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, Region{{590, 470}, {7, 30}, {20, 0}}, o);
  CHECK(rep.ok);
}

}  // namespace
