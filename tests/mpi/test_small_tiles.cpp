// Small tiles in tile storage (engine/matrix_sides.hpp): messages between two tile-stored
// sides of tiles under 64 elements are stacked, and packed tiles that fill the matrix
// separate (StorageMap::find_separation) and bind whole slices. Random small uniform tiles,
// grids, first processes and regions, with packed or per-allocation tiles on either side;
// sizes that are whole tiles and sizes with a partial last tile (packed tiles pad it and
// still separate; one tile per allocation never does, and ranks must still lay messages
// alike).
// Every target element is checked, and the elements outside the region are untouched; the
// source too. Then 1 x 1 tiles, and 2 x 2 and 3 x 3 tiles with a partial last tile row
// and column, element-cyclic 1 x P -> P x 1, whose copy programs must stay a quarter of a
// copy per element or less (under two thirds where messages are read cross-memory,
// segment by segment). Tiles of 8 to 17 a side too, and 8 x 8 -> 9 x 9, whose tile rows
// cut each other: their messages are stacked, not bound a copy per segment.
#include <string>
#include <utility>

#include <redist/redist.hpp>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// One random move between small-tiled matrices; returns wrong elements over all ranks.
template <class SP, class DP>
index_t random_small_move(const boost::mpi::communicator& comm, Rng& g, bool whole,
                          std::pair<index_t, index_t> tiles) {
  const auto axis = [&](index_t& extent, index_t& tile) {
    tile = g.in(tiles.first, tiles.second);
    extent = whole ? tile * g.in(1, 9) : g.in(1, 60);
  };
  index_t sm, sn, dm, dn, smb, snb, dmb, dnb;
  axis(sm, smb);
  axis(sn, snb);
  axis(dm, dmb);
  axis(dn, dnb);
  const auto grid = [&](int& p, int& q) {
    const int used = static_cast<int>(g.in(1, comm.size()));
    p = static_cast<int>(g.in(1, used));
    while (used % p != 0) --p;
    q = used / p;
  };
  int sp, sq, dp, dq;
  grid(sp, sq);
  grid(dp, dq);
  const GridCoord sf{static_cast<int>(g.in(0, sp - 1)), static_cast<int>(g.in(0, sq - 1))};
  const GridCoord df{static_cast<int>(g.in(0, dp - 1)), static_cast<int>(g.in(0, dq - 1))};
  const Layout src{uniform(sm, sn, smb, snb), BlockCyclic(sp, sq, 1, 1, sf)};
  const Layout dst{uniform(dm, dn, dmb, dnb), BlockCyclic(dp, dq, 1, 1, df)};
  const Region region = random_region(g, {sm, sn}, {dm, dn});
  CAPTURE(src.extents());
  CAPTURE(dst.extents());
  CAPTURE(smb);
  CAPTURE(dmb);
  RunOptions o;
  o.plan.batch = g.in(0, 2);
  o.repeats = 2;
  const RunReport rep = check_redistribution<double>(comm, src, SP{}, dst, DP{}, region, o);
  return rep.bad_target + rep.bad_source;
}

/// `count` random moves of tiles `tiles.first` to `tiles.second` a side.
template <class SP, class DP>
void random_small_moves(const boost::mpi::communicator& comm, unsigned seed, int count,
                        std::pair<index_t, index_t> tiles = {1, 8}) {
  Rng g(seed);
  for (int k = 0; k < count; ++k) {
    CAPTURE(k);
    CHECK(random_small_move<SP, DP>(comm, g, k % 2 == 0, tiles) == 0);
  }
}

}  // namespace

TEST_CASE("mpi: small tiles in tile storage, packed or one per allocation, every element") {
  const boost::mpi::communicator comm;
  using P = PackedTiles<>;
  using A = TilePerAllocation<>;
  using S = ScalapackColumnMajor<>;
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    random_small_moves<P, P>(comm, 71, 16);
    random_small_moves<A, A>(comm, 76, 8);
    random_small_moves<A, P>(comm, 72, 8);
    random_small_moves<P, A>(comm, 73, 8);
    random_small_moves<P, S>(comm, 74, 8);
    random_small_moves<S, P>(comm, 75, 8);
    // 64 to 289 elements: stacked where the tile rows cut each other, else flat.
    random_small_moves<P, P>(comm, 77, 8, {8, 17});
    random_small_moves<A, P>(comm, 78, 4, {8, 17});
  }
}

TEST_CASE("mpi: small packed tiles, 1 x P -> P x 1: copy programs well below one per element") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  // 1 x 1 tiles, and tiles whose last tile row and column are partial: packed tiles take
  // padded slots (placements/tile_allocations.hpp), so that every rank still separates.
  for (const auto& [tile, n] : {std::pair<index_t, index_t>{1, 96}, {2, 95}, {3, 97}}) {
    CAPTURE(tile);
    const Layout src{uniform(n, n, tile, tile), BlockCyclic(1, np)};
    const Layout dst{uniform(n, n, tile, tile), BlockCyclic(np, 1)};
    for (const Region& region : {Region::whole({n, n}), Region{{70, 50}, {3, 11}, {20, 5}}}) {
      TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
      TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
      REQUIRE(a.storage().local_matrix() != nullptr);
      REQUIRE(b.storage().local_matrix() != nullptr);
      move_and_check(comm, a, b, region, [&](const auto& r, index_t) {
        CHECK(sum(comm, source_errors(a)) == 0);
        // A StridedCopy is 64 bytes: a copy per element would be 64 bytes an element
        // moved, and the graph and schedule add a little per message. Messages read
        // cross-memory are described segment by segment (an address and an iovec each,
        // engine/cross_memory_reads.hpp): about 22 bytes an element of 1 x 1 tiles.
        const index_t elements = region.extent.rows * region.extent.cols;
        const bool described = sum(comm, r.messages(Transport::cross_memory).second) > 0;
        CHECK(sum(comm, r.plan().stats.schedule_bytes) < (described ? 40 : 16) * elements);
      });
    }
  }
}

TEST_CASE("mpi: ranks that pack partial tiles differently still move every element") {
  // Storage is each rank's own: odd ranks keep their tiles back to back (no local
  // matrix where they own a partial tile), even ranks pad them. The ranks agree on how
  // messages are laid out (one all-reduce), not on how each stores its tiles.
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const PackedTiles<> mine{.equal_slots = comm.rank() % 2 == 0};
  for (const auto& [tile, n] : {std::pair<index_t, index_t>{2, 95}, {9, 100}}) {
    CAPTURE(tile);
    const Layout src{uniform(n, n, tile, tile), BlockCyclic(1, np)};
    const Layout dst{uniform(n, n, tile + 1, tile + 1), BlockCyclic(np, 1)};
    for (const Region& region : {Region::whole({n, n}), Region{{70, 50}, {3, 11}, {20, 5}}}) {
      TiledMatrix<double, decltype(src), PackedTiles<>> a(src, mine, comm.rank());
      TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, mine, comm.rank());
      move_and_check(comm, a, b, region,
                     [&](const auto&, index_t) { CHECK(sum(comm, source_errors(a)) == 0); });
    }
  }
}

TEST_CASE("mpi: 8 x 8 -> 9 x 9 packed tiles, 1 x P -> P x 1: stacked, programs not per segment") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const index_t n = 720;  // 90 x 80 tiles: about 29,000 segments, flat a copy each
  const Layout src{uniform(n, n, 8, 8), BlockCyclic(1, np)};
  const Layout dst{uniform(n, n, 9, 9), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
  move_and_check(comm, a, b, Region::whole({n, n}), [&](const auto& r, index_t) {
    CHECK(sum(comm, source_errors(a)) == 0);
    // Flat, a 64-byte copy per segment: 8 to 14 bytes an element over the ranks at 2 to
    // 4 ranks; stacked 0.4 to 1.6. Messages read cross-memory are described segment by
    // segment either way (the test above).
    const bool described = sum(comm, r.messages(Transport::cross_memory).second) > 0;
    if (np > 1 && !described) CHECK(sum(comm, r.plan().stats.schedule_bytes) < 2 * n * n);
  });
}
