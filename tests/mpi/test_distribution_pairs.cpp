// Every pair of distribution kinds (block-cyclic with super-tiles and a first-owner offset,
// random, band, explicit owner table, a user-defined type), each verified element by element
// with displacements on both sides and partial edge tiles, at any communicator size.
#include <string>
#include <utility>
#include <vector>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// A distribution written in the test: diagonal stripes over `r` ranks. Models
/// redist::Distribution with nothing but ranks() and owner().
struct DiagonalStripes {
  int r = 1;
  int ranks() const { return r; }
  int owner(TileIndex t) const { return static_cast<int>((t.m + 2 * t.n) % r); }
};
static_assert(Distribution<DiagonalStripes>);
static_assert(!EnumeratesOwnedTiles<DiagonalStripes>);

constexpr int kinds = 5;
const char* const kind_names[kinds] = {"block-cyclic", "random", "band", "owner table",
                                       "user type"};

/// Distribution kind K over the np ranks of the communicator, for a grid of `tiles`.
template <int K>
auto make_distribution(Extents tiles, int np) {
  const auto [P, Q] = near_square_grid(np);
  if constexpr (K == 0) {
    return BlockCyclic(P, Q, 2, 1, GridCoord{P - 1, Q > 1 ? 1 : 0});
  } else if constexpr (K == 1) {
    return RandomDistribution(np, 20240601u);
  } else if constexpr (K == 2) {
    return BandDistribution(2, BlockCyclic(1, np), BlockCyclic(P, Q));
  } else if constexpr (K == 3) {
    std::vector<int> owners;
    for (index_t n = 0; n < tiles.cols; ++n)
      for (index_t m = 0; m < tiles.rows; ++m)
        owners.push_back(static_cast<int>((3 * m + 5 * n + 1) % np));
    return OwnerTable(tiles, std::move(owners), np);
  } else {
    return DiagonalStripes{np};
  }
}

template <int S, int D>
void check_pair(const boost::mpi::communicator& comm) {
  const int np = comm.size();
  // Partial edge tiles on every axis; displacements on both sides.
  const auto src_shape = uniform(61, 47, 7, 5);
  const auto dst_shape = uniform(53, 66, 6, 9);
  const Region region{{40, 33}, {13, 9}, {5, 27}};
  const Layout src{src_shape, make_distribution<S>(tile_counts(src_shape), np)};
  const Layout dst{dst_shape, make_distribution<D>(tile_counts(dst_shape), np)};
  const RunReport rep =
      check_redistribution<double>(comm, src, PackedTiles<>{}, dst, TilePerAllocation<>{}, region);
  INFO("src = " << kind_names[S] << ", dst = " << kind_names[D]);
  CHECK(rep.ok);
  CHECK(rep.bad_target == 0);
  CHECK(rep.bad_source == 0);
  CHECK(rep.checked == 53 * 66);
  CHECK(rep.elements_sent == rep.elements_received);
  CHECK(rep.elements_received + rep.elements_local == 40 * 33);
}

template <int S, int... D>
void check_row(const boost::mpi::communicator& comm, std::integer_sequence<int, D...>) {
  (check_pair<S, D>(comm), ...);
}

template <int... S>
void check_all(const boost::mpi::communicator& comm, std::integer_sequence<int, S...>) {
  (check_row<S>(comm, std::make_integer_sequence<int, kinds>{}), ...);
}

TEST_CASE("mpi: every pair of distribution kinds, verified element by element") {
  const boost::mpi::communicator comm;
  check_all(comm, std::make_integer_sequence<int, kinds>{});
}

}  // namespace
