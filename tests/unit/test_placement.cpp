// Tests of the Placement models (include/redist/placements/): every owned tile gets a slot,
// in column-major tile order; slots never overlap and stay inside their allocation
// (checked by marking elements); ScaLAPACK's local layout matches its numroc / indxg2l
// formulas; a too small lld throws storage_error; packed whole tiles separate into a row
// part and a column part (StorageMap::find_separation), other storage does not.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placement.hpp>
#include <redist/placements/multi_device.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;
using test::Rng;

// ScaLAPACK's TOOLS routines, transcribed from their Fortran (1-based global indices).
/// NUMROC: number of rows or columns of a block-cyclic axis stored on process iproc.
index_t numroc(index_t n, index_t nb, index_t iproc, index_t isrcproc, index_t nprocs) {
  const index_t mydist = (nprocs + iproc - isrcproc) % nprocs;
  const index_t nblocks = n / nb;
  index_t r = (nblocks / nprocs) * nb;
  const index_t extrablks = nblocks % nprocs;
  if (mydist < extrablks)
    r += nb;
  else if (mydist == extrablks)
    r += n % nb;
  return r;
}
/// INDXG2L: local index (1-based) of global index indxglob (1-based).
index_t indxg2l(index_t indxglob, index_t nb, index_t nprocs) {
  return nb * ((indxglob - 1) / (nb * nprocs)) + (indxglob - 1) % nb + 1;
}
/// INDXG2P: the process holding global index indxglob (1-based).
index_t indxg2p(index_t indxglob, index_t nb, index_t isrcproc, index_t nprocs) {
  return (isrcproc + (indxglob - 1) / nb) % nprocs;
}

/// What the allocations may hold beside the tiles: nothing; padding of at most a quarter
/// of the rank's elements (packed tiles in equal slots); anything (ScaLAPACK's lld).
enum class Holes { none, padding, any };

/// Checks map(layout, r) for every rank r.
template <class L, class P>
void check_placement(const L& layout, const P& placement, Holes allowed) {
  index_t stored = 0;
  for (int r = 0; r < layout.ranks(); ++r) {
    const index_t stored_before = stored;
    INFO("rank ", r);
    const StorageMap map = placement.map(layout, r);
    std::vector<TileIndex> owned;
    const Extents n = layout.tiles();
    for (index_t k = 0; k < n.cols; ++k)
      for (index_t m = 0; m < n.rows; ++m)
        if (layout.owner({m, k}) == r) owned.push_back({m, k});
    CHECK(map.tiles() == owned);  // every owned tile, column-major tile order, nothing else
    const auto& sizes = map.allocation_sizes();
    std::vector<std::vector<int>> marks;
    for (index_t s : sizes) marks.emplace_back(static_cast<std::size_t>(s), 0);
    index_t outside = 0;
    for (const TileIndex& t : owned) {
      REQUIRE(map.contains(t));
      const TileSlot slot = map.slot(t);
      const Extents e = tile_extents(layout.shape(), t);
      REQUIRE(slot.allocation >= 0);
      REQUIRE(slot.allocation < static_cast<index_t>(sizes.size()));
      CHECK(slot.ld >= e.rows);
      CHECK(slot.ld >= 1);
      auto& mark = marks[static_cast<std::size_t>(slot.allocation)];
      for (index_t j = 0; j < e.cols; ++j)
        for (index_t i = 0; i < e.rows; ++i) {
          const index_t at = slot.offset + i + j * slot.ld;
          if (at < 0 || at >= static_cast<index_t>(mark.size()))
            ++outside;
          else
            ++mark[static_cast<std::size_t>(at)];
        }
      stored += e.size();
    }
    CHECK(outside == 0);
    index_t overlaps = 0, holes = 0;
    for (const auto& mark : marks)
      for (int v : mark) {
        overlaps += v > 1;
        holes += v == 0;
      }
    CHECK(overlaps == 0);
    if (allowed == Holes::none) CHECK(holes == 0);
    if (allowed == Holes::padding) CHECK(4 * holes <= stored - stored_before);
    // A tile of another rank is not here.
    for (index_t k = 0; k < n.cols; ++k)
      for (index_t m = 0; m < n.rows; ++m)
        if (layout.owner({m, k}) != r) {
          CHECK(!map.contains({m, k}));
          CHECK_THROWS_AS(map.slot({m, k}), storage_error);
          k = n.cols;
          break;
        }
  }
  CHECK(stored == layout.extents().size());  // all ranks together store the matrix once
  // A rank beyond the distribution's ranks stores nothing.
  CHECK(placement.map(layout, layout.ranks()).tiles().empty());
  CHECK(placement.map(layout, layout.ranks()).element_count() == 0);
}

}  // namespace

TEST_CASE("TilePerAllocation and PackedTiles: one slot per owned tile, no overlap") {
  const Tiling uniform{UniformAxis<>(23, 5), UniformAxis<4>(18)};
  const Tiling irregular{IrregularAxis{0, 1, 7, 8, 20}, IrregularAxis{0, 3, 11, 12}};
  SUBCASE("block-cyclic") {
    const Layout l(uniform, BlockCyclic(2, 3, 1, 2, {1, 0}));
    check_placement(l, TilePerAllocation<>{}, Holes::none);
    check_placement(l, PackedTiles<>{}, Holes::padding);
    check_placement(l, PackedTiles<>{false}, Holes::none);
  }
  SUBCASE("random, irregular tiles") {
    const Layout l(irregular, RandomDistribution(3, 2024));
    check_placement(l, TilePerAllocation<>{}, Holes::none);
    check_placement(l, PackedTiles<>{}, Holes::padding);
    check_placement(l, PackedTiles<>{false}, Holes::none);
  }
  SUBCASE("owner table") {
    const Layout l(irregular, OwnerTable({4, 3}, {0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1}, 2));
    check_placement(l, TilePerAllocation<>{}, Holes::none);
    check_placement(l, PackedTiles<>{}, Holes::padding);
    check_placement(l, PackedTiles<>{false}, Holes::none);
  }
  SUBCASE("band") {
    const Layout l(uniform, BandDistribution(2, BlockCyclic(3, 1), BlockCyclic(2, 2)));
    check_placement(l, TilePerAllocation<>{}, Holes::none);
    check_placement(l, PackedTiles<>{}, Holes::padding);
    check_placement(l, PackedTiles<>{false}, Holes::none);
  }
  SUBCASE("a rank that owns nothing") {
    const Layout l(uniform, OwnerTable({5, 5}, std::vector<int>(25, 1), 3));
    CHECK(TilePerAllocation<>{}.map(l, 0).allocation_sizes().empty());
    CHECK(PackedTiles<>{}.map(l, 2).element_count() == 0);
    check_placement(l, PackedTiles<>{}, Holes::padding);
    check_placement(l, PackedTiles<>{false}, Holes::none);
  }
}

TEST_CASE("MultiDevice: every rule gives each owned tile one slot, no overlap") {
  const Tiling uniform{UniformAxis<>(23, 5), UniformAxis<4>(18)};
  const Tiling irregular{IrregularAxis{0, 1, 7, 8, 20}, IrregularAxis{0, 3, 11, 12}};
  const std::vector<MultiDevice<>> rules{
      MultiDevice<>::row_cyclic(3),
      MultiDevice<>::two_level(2, 3, 2, 2),
      MultiDevice<>::random(4, 7),
      MultiDevice<>::load_based(3, 0.0),
      MultiDevice<>::load_based(3, 0.5),
      MultiDevice<>::load_based(2, 1.0),
      MultiDevice<>::user(2, [](TileIndex t, int) { return static_cast<int>((t.m + t.n) % 2); })};
  for (const auto& rule : rules) {
    check_placement(Layout(uniform, BlockCyclic(2, 3, 1, 2, {1, 0})), rule, Holes::none);
    check_placement(Layout(irregular, RandomDistribution(3, 2024)), rule, Holes::none);
  }
}

TEST_CASE("TilePerAllocation and PackedTiles: slot layout") {
  const Layout l(Tiling{UniformAxis<>(10, 4), UniformAxis<>(10, 3)}, BlockCyclic(1, 1));
  const StorageMap per = TilePerAllocation<>{}.map(l, 0);
  const StorageMap packed = PackedTiles<>{}.map(l, 0);
  REQUIRE(per.allocation_sizes().size() == 12);
  REQUIRE(packed.allocation_sizes().size() == 1);
  CHECK(packed.allocation_sizes()[0] == 100);
  // clang-format off
  //                     tile      allocation offset ld
  CHECK(per.slot({2, 3})    == TileSlot{11,       0,     2});
  CHECK(per.allocation_sizes()[11] == 2);
  CHECK(packed.slot({0, 0}) == TileSlot{0,        0,     4});
  CHECK(packed.slot({1, 0}) == TileSlot{0,        12,    4});
  CHECK(packed.slot({2, 0}) == TileSlot{0,        24,    2});
  CHECK(packed.slot({0, 1}) == TileSlot{0,        30,    4});
  // clang-format on
  CHECK(packed.local_matrix() == nullptr);  // equal slots would add 44 %: back to back
}

TEST_CASE("PackedTiles: smaller tiles padded to equal slots while that adds at most 25 %, or not") {
  // Rank 1 owns tile rows 1, 3, 5 (4, 4 and 3 rows) and all 4 tile columns (3 wide):
  // 12 slots of 4 x 3, 144 elements for 132.
  const Layout partial(Tiling{UniformAxis<>(23, 4), UniformAxis<>(12, 3)}, BlockCyclic(2, 1));
  const StorageMap map = PackedTiles<>{}.map(partial, 1);
  REQUIRE(map.local_matrix() != nullptr);
  REQUIRE(map.allocation_sizes() == std::vector<index_t>{144});
  // clang-format off
  //                  tile      allocation offset      ld
  CHECK(map.slot({1, 0}) == TileSlot{0,          0,          4});
  CHECK(map.slot({5, 0}) == TileSlot{0,          24,         4});  // 3 rows, ld 4
  CHECK(map.slot({1, 1}) == TileSlot{0,          36,         4});
  CHECK(map.slot({5, 3}) == TileSlot{0,          132,        4});
  // clang-format on
  // An odd first and a partial last tile row on one rank: 2, 5, 5, 5, 3 rows in 5-row
  // slots, 300 elements for 240 (25 % added).
  const Layout odd(Tiling{IrregularAxis{0, 2, 7, 12, 17, 20}, UniformAxis<>(12, 4)},
                   BlockCyclic(1, 1));
  const StorageMap both = PackedTiles<>{}.map(odd, 0);
  REQUIRE(both.local_matrix() != nullptr);
  CHECK(both.allocation_sizes() == std::vector<index_t>{300});
  CHECK(both.slot({4, 2}) == TileSlot{0, 4 * 20 + 2 * 5 * 4 * 5, 5});
  // The same rows, and a 1-column last tile column: 300 for 180, so back to back (tile
  // (0, 1) after the 20 x 4 elements of the first tile column, ld 2).
  const Layout over(Tiling{IrregularAxis{0, 2, 7, 12, 17, 20}, UniformAxis<>(9, 4)},
                    BlockCyclic(1, 1));
  CHECK(PackedTiles<>{}.map(over, 0).local_matrix() == nullptr);
  CHECK(PackedTiles<>{}.map(over, 0).slot({0, 1}) == TileSlot{0, 80, 2});
  // Without equal slots: back to back whatever the tiles (rank 1's column 0 is 11 x 3).
  const StorageMap packed = PackedTiles<>{.equal_slots = false}.map(partial, 1);
  CHECK(packed.local_matrix() == nullptr);
  CHECK(packed.allocation_sizes() == std::vector<index_t>{132});
  CHECK(packed.slot({5, 0}) == TileSlot{0, 24, 3});
  CHECK(packed.slot({1, 1}) == TileSlot{0, 33, 4});
  // Tiles that need no padding are a local matrix either way.
  CHECK(PackedTiles<>{.equal_slots = false}.map(partial, 0).local_matrix() != nullptr);
}

namespace {
/// The separation of `map` gives every listed tile the slot the map gives it.
void check_separation(const StorageMap& map) {
  const LocalMatrix* l = map.separation();
  REQUIRE(l != nullptr);
  map.for_each_tile([&](TileIndex t) {
    CAPTURE(t);
    const index_t r = l->row_offset[static_cast<std::size_t>(t.m)];
    const index_t c = l->col_offset[static_cast<std::size_t>(t.n)];
    CHECK(TileSlot{l->allocation, r + c * l->ld, l->ld} == map.slot(t));
  });
}
}  // namespace

/// The same tiles and slots as `map`, listed one by one.
StorageMap listed(const StorageMap& map) {
  StorageMap copy;
  for (index_t n : map.allocation_sizes()) copy.add_allocation(n);
  map.for_each_tile([&](TileIndex t) { copy.add_tile(t, map.slot(t)); });
  return copy;
}

TEST_CASE("PackedTiles: whole tiles of one size are a local matrix; find_separation finds it") {
  // Block-cyclic packed tiles that fill the matrix: packed straight into a LocalMatrix
  // (tile (m, n) at row part + column part), and found again in the same tiles listed.
  for (const auto& [tm, tn] : {std::pair{1, 1}, std::pair{3, 2}, std::pair{4, 4}}) {
    CAPTURE(tm);
    CAPTURE(tn);
    const Layout l(Tiling{UniformAxis<>(12 * tm, tm), UniformAxis<>(10 * tn, tn)},
                   BlockCyclic(2, 3, 1, 2, {1, 0}));
    check_placement(l, PackedTiles<>{}, Holes::padding);
    check_placement(l, PackedTiles<>{false}, Holes::none);
    check_placement(l, MultiDevice<>::row_cyclic(1), Holes::padding);
    for (int r = 0; r < 6; ++r) {
      const StorageMap map = PackedTiles<>{}.map(l, r);
      REQUIRE(map.local_matrix() != nullptr);
      if (tm == 1 && tn == 1) CHECK(map.local_matrix()->ld == 1);  // a column-major matrix
      StorageMap copy = listed(map);
      CHECK(copy.separation() == nullptr);  // not looked for yet
      copy.find_separation();
      check_separation(copy);
      CHECK(copy.separation()->ld == map.local_matrix()->ld);
    }
  }
  const auto separates = [](StorageMap map) {
    map.find_separation();
    return map.separation() != nullptr;
  };
  // A partial last tile row is padded to a whole slot (below); several allocations;
  // owners not a product of tile rows and columns; irregular tiles.
  const Layout partial(Tiling{UniformAxis<>(23, 4), UniformAxis<>(12, 3)}, BlockCyclic(2, 1));
  CHECK(PackedTiles<>{}.map(partial, 0).local_matrix() != nullptr);  // rows 0, 2, 4: whole
  CHECK(PackedTiles<>{}.map(partial, 1).local_matrix() != nullptr);  // row 5 padded
  const Layout whole(Tiling{UniformAxis<>(8, 2), UniformAxis<>(8, 2)}, BlockCyclic(1, 1));
  CHECK_FALSE(separates(TilePerAllocation<>{}.map(whole, 0)));
  CHECK_FALSE(separates(MultiDevice<>::row_cyclic(2).map(whole, 0)));
  CHECK(separates(MultiDevice<>::user(1, [](TileIndex, int) { return 0; }).map(whole, 0)));
  const Layout random(Tiling{UniformAxis<>(40, 2), UniformAxis<>(40, 2)}, RandomDistribution(3, 7));
  CHECK(PackedTiles<>{}.map(random, 0).local_matrix() == nullptr);
  CHECK_FALSE(separates(PackedTiles<>{}.map(random, 0)));
  const Layout irregular(Tiling{IrregularAxis{0, 1, 7, 8, 20}, IrregularAxis{0, 3, 11, 12}},
                         BlockCyclic(1, 1));
  CHECK_FALSE(separates(PackedTiles<>{}.map(irregular, 0)));
  // A ScaLAPACK local matrix is its own separation; nothing to look for.
  const Layout bc(Tiling{UniformAxis<>(23, 4), UniformAxis<>(12, 3)}, BlockCyclic(2, 2));
  const StorageMap local = ScalapackColumnMajor<>{}.map(bc, 3);
  CHECK(local.separation() == local.local_matrix());
  // Adding a tile forgets a separation found before.
  StorageMap map = listed(PackedTiles<>{}.map(whole, 0));
  map.find_separation();
  REQUIRE(map.separation() != nullptr);
  map.add_tile({9, 9}, TileSlot{0, 1000, 2});
  CHECK(map.separation() == nullptr);
}

TEST_CASE("ScalapackColumnMajor: matches numroc / indxg2l for random block-cyclic layouts") {
  Rng rng(0x5CA1);
  for (int c = 0; c < 150; ++c) {
    const int P = static_cast<int>(rng.in(1, 4)), Q = static_cast<int>(rng.in(1, 4));
    const index_t kp = rng.in(1, 3), kq = rng.in(1, 3);
    const GridCoord first{static_cast<int>(rng.in(0, P - 1)), static_cast<int>(rng.in(0, Q - 1))};
    const index_t M = rng.in(1, 60), N = rng.in(1, 60), MB = rng.in(1, 9), NB = rng.in(1, 9);
    const Layout l(Tiling{UniformAxis<>(M, MB), UniformAxis<>(N, NB)},
                   BlockCyclic(P, Q, kp, kq, first));
    // In elements, tiles of MB grouped kp at a time are ScaLAPACK blocks of kp * MB.
    const index_t mb = kp * MB, nb = kq * NB;
    INFO("M=", M, " N=", N, " MB=", MB, " NB=", NB, " P=", P, " Q=", Q, " kp=", kp, " kq=", kq,
         " first=", first);
    check_placement(l, ScalapackColumnMajor<>{}, Holes::any);
    const index_t extra = rng.in(0, 5);
    for (int r = 0; r < P * Q; ++r) {
      const GridCoord g = l.distribution().coord_of(r);
      const index_t loc_r = numroc(M, mb, g.p, first.p, P), loc_c = numroc(N, nb, g.q, first.q, Q);
      const index_t lld = std::max<index_t>(1, loc_r) + extra;
      const StorageMap map = ScalapackColumnMajor<>{lld}.map(l, r);
      REQUIRE(map.allocation_sizes().size() == 1);
      // A rank with no local rows or columns stores nothing, whatever its lld.
      const index_t stored = loc_r == 0 || loc_c == 0 ? 0 : 1;
      CHECK(map.allocation_sizes()[0] == stored * lld * loc_c);
      CHECK(ScalapackColumnMajor<>{}.map(l, r).allocation_sizes()[0] ==
            stored * std::max<index_t>(1, loc_r) * loc_c);
      index_t wrong = 0;
      for (const TileIndex& t : map.tiles()) {
        const TileSlot s = map.slot(t);
        wrong += s.ld != lld;
        const ElementIndex o = tile_origin(l.shape(), t);
        const Extents e = tile_extents(l.shape(), t);
        for (index_t j = 0; j < e.cols; ++j)
          for (index_t i = 0; i < e.rows; ++i) {
            const index_t gi = o.i + i + 1, gj = o.j + j + 1;  // 1-based, as in ScaLAPACK
            wrong += indxg2p(gi, mb, first.p, P) != g.p || indxg2p(gj, nb, first.q, Q) != g.q;
            const index_t want = (indxg2l(gi, mb, P) - 1) + (indxg2l(gj, nb, Q) - 1) * lld;
            wrong += s.offset + i + j * s.ld != want;
          }
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("ScalapackColumnMajor: lld smaller than the local rows throws storage_error") {
  // 10 rows in tiles of 2 over P = 2: each grid row holds 3 or 2 tiles = 6 or 4 rows.
  const Layout l(Tiling{UniformAxis<>(10, 2), UniformAxis<>(6, 3)}, BlockCyclic(2, 1));
  CHECK_NOTHROW(ScalapackColumnMajor<>{6}.map(l, 0));
  CHECK_NOTHROW(ScalapackColumnMajor<>{4}.map(l, 1));
  std::string msg = "<no exception>";
  try {
    (void)ScalapackColumnMajor<>{5}.map(l, 0);
  } catch (const storage_error& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find("lld = 5") != std::string::npos);
  CHECK(msg.find("local rows = 6") != std::string::npos);
}
