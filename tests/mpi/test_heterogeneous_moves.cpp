// Redistributions to and from the heterogeneous layouts of issue 13, verified element by
// element at any communicator size (fill the source with a function of the global index,
// check every target element inside the region and the sentinel outside it, and that the
// source is unchanged): 1-D and 1D-1D heterogeneous (with the constrained tail), the
// Algorithm 2 generation layout against its factorization layout (moving exactly the lower
// bound), and the multi-device placement with every rule on either side.
#include <string>
#include <vector>

#include <redist/distributions/heterogeneous.hpp>
#include <redist/placements/multi_device.hpp>
#include <redist/redist.hpp>
#include <redist/synthesize.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Deterministic, uneven powers for np ranks (one idle rank from 3 ranks on).
std::vector<double> powers(int np) {
  std::vector<double> w;
  for (int r = 0; r < np; ++r) w.push_back(r == 1 && np >= 3 ? 0.0 : 1.0 + (r * 7) % 5);
  return w;
}

void check(const RunReport& rep, index_t target_elements, index_t region_elements) {
  CHECK(rep.ok);
  CHECK(rep.bad_target == 0);
  CHECK(rep.bad_source == 0);
  CHECK(rep.checked == target_elements);
  CHECK(rep.elements_sent == rep.elements_received);
  CHECK(rep.elements_received + rep.elements_local == region_elements);
}

}  // namespace

TEST_CASE("mpi: heterogeneous 1-D and 1D-1D layouts, verified element by element") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const auto src_shape = uniform(61, 47, 7, 5);  // 9 x 10 tiles, partial edges
  const auto dst_shape = uniform(53, 66, 6, 9);  // 9 x 8 tiles
  const Region region{{40, 33}, {13, 9}, {5, 27}};
  std::vector<double> grid_powers;
  for (int r = 0; r < np; ++r) grid_powers.push_back(1.0 + r);

  SUBCASE("1-D rows -> 1D-1D") {
    const Layout src{src_shape, Heterogeneous1D(Axis::row, powers(np), tile_counts(src_shape))};
    const Layout dst{dst_shape, HeterogeneousGrid(P, Q, grid_powers, tile_counts(dst_shape))};
    check(check_redistribution<double>(comm, src, PackedTiles<>{}, dst, TilePerAllocation<>{},
                                       region),
          53 * 66, 40 * 33);
  }
  SUBCASE("1D-1D constrained -> 1-D columns, ScaLAPACK storage") {
    // The last 3 tile rows and columns on the strongest rank only.
    const Layout src{src_shape, HeterogeneousGrid(P, Q, grid_powers, tile_counts(src_shape),
                                                  TailConstraint{3, {np - 1}})};
    const Layout dst{dst_shape, Heterogeneous1D(Axis::col, powers(np), tile_counts(dst_shape))};
    check(check_redistribution<float>(comm, src, PackedTiles<>{}, dst, ScalapackColumnMajor<>{},
                                      region),
          53 * 66, 40 * 33);
  }
  SUBCASE("block-cyclic -> 1D-1D column-major grid, whole matrix") {
    const auto shape = uniform(50, 50, 5, 5);
    const Layout src{shape, BlockCyclic(P, Q)};
    const Layout dst{shape, HeterogeneousGrid(P, Q, grid_powers, tile_counts(shape), {},
                                              GridOrder::column_major)};
    check(check_redistribution<double>(comm, src, TilePerAllocation<>{}, dst, PackedTiles<>{},
                                       Region{{50, 50}, {0, 0}, {0, 0}}),
          50 * 50, 50 * 50);
  }
}

TEST_CASE("mpi: Algorithm 2 generation -> factorization moves exactly the lower bound") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  // 12 x 12 tiles of 4 x 4 elements; the factorization favours the last ranks.
  const auto shape = uniform(48, 48, 4, 4);
  std::vector<double> w;
  for (int r = 0; r < np; ++r) w.push_back(r < np / 2 ? 1.0 : 8.0);
  const Layout fact{shape, HeterogeneousGrid(P, Q, w, {12, 12})};
  const TileMask lower{fact.all_tiles(), TileTriangle::lower};
  // Generation: as even as possible over the ranks.
  const std::vector<index_t> counts =
      apportion(lower.size(), std::vector<double>(static_cast<std::size_t>(np), 1.0));
  const Layout gen{shape, synthesize(fact, counts, lower)};
  const index_t bound = moves_lower_bound(tiles_per_rank(fact.distribution(), lower, np), counts);
  REQUIRE(tiles_moved(gen.distribution(), fact.distribution(), lower) == bound);
  const RunReport rep = check_redistribution<double>(
      comm, gen, PackedTiles<>{}, fact, PackedTiles<>{}, Region{{48, 48}, {0, 0}, {0, 0}});
  check(rep, 48 * 48, 48 * 48);
  // Whole tiles move: exactly the bound's tiles cross ranks, 16 elements each.
  CHECK(rep.elements_sent == bound * 16);
}

TEST_CASE("mpi: multi-device placement, every rule, received straight into its device") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const auto src_shape = uniform(61, 47, 7, 5);
  const auto dst_shape = uniform(53, 66, 6, 9);
  const Region region{{40, 33}, {13, 9}, {5, 27}};
  const Layout src{src_shape, BlockCyclic(P, Q)};
  const Layout dst{dst_shape,
                   HeterogeneousGrid(P, Q, std::vector<double>(static_cast<std::size_t>(np), 1.0),
                                     tile_counts(dst_shape))};
  const std::vector<MultiDevice<>> rules{
      MultiDevice<>::row_cyclic(3), MultiDevice<>::two_level(P, Q, 2, 2),
      MultiDevice<>::random(4, 99), MultiDevice<>::load_based(3, 1 / 1.2),
      MultiDevice<>::user(
          2, [](TileIndex t, int rank) { return static_cast<int>((t.m + t.n + rank) % 2); })};
  for (std::size_t k = 0; k < rules.size(); ++k) {
    INFO("rule ", k);
    // As target: received segments are unpacked into the slot of the tile's device.
    check(check_redistribution<double>(comm, src, PackedTiles<>{}, dst, rules[k], region), 53 * 66,
          40 * 33);
    // As source, to a multi-device target with another rule.
    check(check_redistribution<double>(comm, dst, rules[k], src, rules[(k + 1) % rules.size()],
                                       Region{{40, 33}, {5, 27}, {13, 9}}),
          61 * 47, 40 * 33);
  }
  // The devices really hold the tiles: every device of the target gets some on every rank
  // that owns more than a few (two-level rule, 2 x 2 devices).
  TiledMatrix<double, decltype(dst), MultiDevice<>> b(dst, MultiDevice<>::two_level(P, Q, 2, 2),
                                                      comm.rank());
  index_t empty = 0;
  if (b.storage().tiles().size() >= 16)
    for (index_t n : b.storage().allocation_sizes()) empty += n == 0;
  REDIST_CHECK_ALL_RANKS(empty == 0);
  REDIST_CHECK_ALL_RANKS(b.allocations().size() == 4);
}
