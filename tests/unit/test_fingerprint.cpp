// Fingerprints (issue 10, agreement before work): equal values give equal fingerprints, a
// change in any field of a built-in model changes it, user types without a fingerprint()
// hook are sampled as documented, and disagreement messages name the item and the ranks.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <redist/detail/agreement.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/execution_options.hpp>
#include <redist/fingerprint.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tools/layout_spec.hpp>

#include <doctest/doctest.h>

using namespace redist;

namespace {

/// A user distribution without a hook: owner(t) from a function (so a test can change one
/// tile's owner).
struct FunctionDistribution {
  int ranks_ = 4;
  std::function<int(TileIndex)> f;
  int ranks() const { return ranks_; }
  int owner(TileIndex t) const { return f(t); }
};

/// A user distribution with a hook.
struct Hooked {
  std::uint64_t id = 0;
  int ranks() const { return 2; }
  int owner(TileIndex) const { return 0; }
  std::uint64_t fingerprint() const { return id; }
};

/// A user axis without a hook: tiles of 3, except tile `odd` of 4.
struct OddAxis {
  static constexpr index_t static_tile = dynamic_extent;
  index_t tiles = 10;
  index_t odd = -1;
  index_t extent() const { return begin(tiles); }
  index_t count() const { return tiles; }
  index_t begin(index_t k) const { return 3 * k + (odd >= 0 && k > odd ? 1 : 0); }
  index_t size(index_t k) const { return begin(k + 1) - begin(k); }
  index_t tile_of(index_t i) const {
    index_t k = 0;
    while (begin(k + 1) <= i) ++k;
    return k;
  }
};

int base_owner(TileIndex t) { return static_cast<int>((t.m * 7 + t.n * 3) % 4); }

}  // namespace

TEST_SUITE("fingerprint") {
  TEST_CASE("Hasher is deterministic and order-sensitive") {
    static_assert(detail::Hasher().add(std::uint64_t{1}).add(std::uint64_t{2}).value() ==
                  detail::Hasher().add(std::uint64_t{1}).add(std::uint64_t{2}).value());
    CHECK(detail::Hasher().add(std::uint64_t{1}).add(std::uint64_t{2}).value() !=
          detail::Hasher().add(std::uint64_t{2}).add(std::uint64_t{1}).value());
    CHECK(detail::Hasher().add(std::string_view("ab")).value() !=
          detail::Hasher().add(std::string_view("ba")).value());
    CHECK(detail::Hasher().add(std::string_view("")).value() !=
          detail::Hasher().add(std::string_view("\0", 1)).value());
    CHECK(detail::Hasher().add(std::string_view("abcdefgh")).value() !=
          detail::Hasher().add(std::string_view("abcdefgi")).value());
  }

  TEST_CASE("tilings: equal when equal, different when any extent or boundary differs") {
    using S = Tiling<UniformAxis<>, UniformAxis<>>;
    const auto f = [](index_t m, index_t n, index_t mb, index_t nb) {
      return tiling_fingerprint(S{UniformAxis<>(m, mb), UniformAxis<>(n, nb)});
    };
    static_assert(tiling_fingerprint(Tiling{UniformAxis<4>(10), UniformAxis<4>(12)}) ==
                  tiling_fingerprint(Tiling{UniformAxis<4>(10), UniformAxis<4>(12)}));
    CHECK(f(100, 80, 10, 8) == f(100, 80, 10, 8));
    const std::set<std::uint64_t> all{f(100, 80, 10, 8), f(101, 80, 10, 8), f(100, 81, 10, 8),
                                      f(100, 80, 11, 8), f(100, 80, 10, 9), f(80, 100, 8, 10)};
    CHECK(all.size() == 6);
    const auto g = [](std::vector<index_t> b) {
      return tiling_fingerprint(Tiling{IrregularAxis(b), UniformAxis<>(5, 5)});
    };
    CHECK(g({0, 3, 4, 10}) == g({0, 3, 4, 10}));
    CHECK(g({0, 3, 4, 10}) != g({0, 3, 5, 10}));
    CHECK(g({0, 3, 4, 10}) != g({0, 3, 4, 10, 11}));
  }

  TEST_CASE("a user axis without a hook: every boundary up to 4096 tiles") {
    const auto f = [](index_t tiles, index_t odd) {
      return tiling_fingerprint(Tiling{OddAxis{tiles, odd}, UniformAxis<>(5, 5)});
    };
    CHECK(f(10, -1) == f(10, -1));
    std::set<std::uint64_t> seen{f(10, -1)};
    for (index_t k = 0; k < 9; ++k) seen.insert(f(10, k));  // tile k one longer
    CHECK(seen.size() == 10);
    CHECK(f(4096, 2000) != f(4096, 2001));
  }

  TEST_CASE("built-in distributions: every parameter is part of the fingerprint") {
    const TileBox tiles{{0, 0}, {10, 10}};
    const auto bc = [&](const BlockCyclic& d) { return distribution_fingerprint(d, tiles); };
    const std::set<std::uint64_t> grids{
        bc(BlockCyclic(2, 3)),
        bc(BlockCyclic(3, 2)),
        bc(BlockCyclic(2, 3, 2, 1)),
        bc(BlockCyclic(2, 3, 1, 2)),
        bc(BlockCyclic(2, 3, 1, 1, GridCoord{1, 0})),
        bc(BlockCyclic(2, 3, 1, 1, GridCoord{0, 1})),
        bc(BlockCyclic(2, 3, 1, 1, GridCoord{0, 0}, GridOrder::column_major)),
    };
    CHECK(grids.size() == 7);
    CHECK(bc(BlockCyclic(2, 3)) == bc(BlockCyclic(2, 3)));
    // The built-in hook ignores the grid it is asked about: exact, O(1).
    CHECK(distribution_fingerprint(BlockCyclic(2, 3), TileBox{{3, 4}, {5, 5}}) ==
          bc(BlockCyclic(2, 3)));

    CHECK(distribution_fingerprint(RandomDistribution(4, 7), tiles) ==
          distribution_fingerprint(RandomDistribution(4, 7), tiles));
    CHECK(distribution_fingerprint(RandomDistribution(4, 7), tiles) !=
          distribution_fingerprint(RandomDistribution(4, 8), tiles));
    CHECK(distribution_fingerprint(RandomDistribution(4, 7), tiles) !=
          distribution_fingerprint(RandomDistribution(5, 7), tiles));

    const auto band = [&](index_t w, int p) {
      return distribution_fingerprint(BandDistribution(w, BlockCyclic(1, 4), BlockCyclic(p, 2)),
                                      tiles);
    };
    CHECK(band(2, 2) == band(2, 2));
    CHECK(band(2, 2) != band(3, 2));
    CHECK(band(2, 2) != band(2, 1));

    std::vector<int> owners(100);
    for (std::size_t k = 0; k < owners.size(); ++k) owners[k] = static_cast<int>(k % 3);
    const auto table = [&](const std::vector<int>& o) {
      return distribution_fingerprint(OwnerTable({10, 10}, o, 3), tiles);
    };
    const std::uint64_t t0 = table(owners);
    CHECK(table(owners) == t0);
    owners[77] = (owners[77] + 1) % 3;
    CHECK(table(owners) != t0);

    // redist-run's run-time distribution: the kind and its parameters.
    using tools::SpecDistribution;
    const auto spec = [&](SpecDistribution::variant_type v) {
      return distribution_fingerprint(SpecDistribution(std::move(v)), tiles);
    };
    CHECK(spec(BlockCyclic(1, 2)) == spec(BlockCyclic(1, 2)));
    CHECK(spec(BlockCyclic(1, 2)) != spec(BlockCyclic(2, 1)));
    CHECK(spec(RandomDistribution(2, 1)) != spec(RandomDistribution(2, 2)));
  }

  TEST_CASE("a user distribution without a hook: exact up to 4096 tiles, sampled beyond") {
    // Every single-tile change of a 50 x 80 grid (4000 tiles) is seen.
    const TileBox small{{0, 0}, {50, 80}};
    const FunctionDistribution base{4, base_owner};
    const std::uint64_t f0 = distribution_fingerprint(base, small);
    CHECK(distribution_fingerprint(base, small) == f0);
    CHECK(distribution_fingerprint(FunctionDistribution{5, base_owner}, small) != f0);
    // The same owners elsewhere (a shifted box) are another sample.
    CHECK(distribution_fingerprint(base, TileBox{{1, 0}, {51, 80}}) != f0);
    index_t missed = 0;
    for (index_t m = 0; m < 50; ++m)
      for (index_t n = 0; n < 80; ++n) {
        const FunctionDistribution changed{
            4, [=](TileIndex t) {
              return t == TileIndex{m, n} ? (base_owner(t) + 1) % 4 : base_owner(t);
            }};
        missed += distribution_fingerprint(changed, small) == f0;
      }
    CHECK(missed == 0);
    // Thin grids are sampled whole too.
    for (const TileBox thin : {TileBox{{0, 0}, {2, 2000}}, TileBox{{0, 0}, {2000, 2}}}) {
      const FunctionDistribution changed{4, [=](TileIndex t) {
                                           return t == TileIndex{thin.end.m - 2, thin.end.n - 2}
                                                      ? (base_owner(t) + 1) % 4
                                                      : base_owner(t);
                                         }};
      CHECK(distribution_fingerprint(changed, thin) != distribution_fingerprint(base, thin));
    }
    // Beyond 4096 tiles: corners and a 64 x 64 lattice are seen, tiles in between are not
    // (docs/custom-distribution.md says so; a fingerprint() hook makes it exact).
    const TileBox large{{0, 0}, {1000, 1000}};
    const std::uint64_t l0 = distribution_fingerprint(base, large);
    const auto changed_at = [&](TileIndex at) {
      const FunctionDistribution d{
          4, [=](TileIndex t) { return t == at ? (base_owner(t) + 1) % 4 : base_owner(t); }};
      return distribution_fingerprint(d, large);
    };
    CHECK(changed_at({0, 0}) != l0);
    CHECK(changed_at({999, 999}) != l0);
    CHECK(changed_at({0, 999}) != l0);
    CHECK(changed_at({999, 0}) != l0);
    CHECK(changed_at({1, 1}) == l0);  // between lattice points: undetected, as documented
    // Only the box is sampled: tiles outside it are never asked for their owner.
    const TileBox part{{10, 20}, {30, 50}};
    const FunctionDistribution outside{4, [&](TileIndex t) {
                                         REQUIRE(part.contains(t));
                                         return t == TileIndex{40, 40} ? 9 : base_owner(t);
                                       }};
    CHECK(distribution_fingerprint(outside, part) == distribution_fingerprint(base, part));
    CHECK(distribution_fingerprint(base, part) != distribution_fingerprint(base, large));
    CHECK(distribution_fingerprint(base, TileBox{}) == distribution_fingerprint(base, TileBox{}));
  }

  TEST_CASE("touched_tiles: the tiles a rectangle of elements meets") {
    const Tiling s{UniformAxis<>(100, 10), IrregularAxis({0, 3, 4, 10})};
    CHECK(detail::touched_tiles(s, {0, 0}, {100, 10}) == TileBox{{0, 0}, {10, 3}});
    CHECK(detail::touched_tiles(s, {15, 3}, {10, 1}) == TileBox{{1, 1}, {3, 2}});
    CHECK(detail::touched_tiles(s, {9, 2}, {2, 2}) == TileBox{{0, 0}, {2, 2}});
    CHECK(detail::touched_tiles(s, {5, 5}, {0, 3}).empty());
  }

  TEST_CASE("a fingerprint() hook is used as is") {
    CHECK(distribution_fingerprint(Hooked{42}, TileBox{{0, 0}, {3, 3}}) == 42);
    CHECK(distribution_fingerprint(Hooked{43}, TileBox{{0, 0}, {3, 3}}) == 43);
  }

  TEST_CASE("placements: the storage kind counts, a ScaLAPACK leading dimension does not") {
    CHECK(placement_fingerprint(PackedTiles<>{}) == placement_fingerprint(PackedTiles<>{}));
    CHECK(placement_fingerprint(PackedTiles<>{}) != placement_fingerprint(TilePerAllocation<>{}));
    CHECK(placement_fingerprint(PackedTiles<>{}) !=
          placement_fingerprint(ScalapackColumnMajor<>{}));
    CHECK(placement_fingerprint(ScalapackColumnMajor<>{5}) ==
          placement_fingerprint(ScalapackColumnMajor<>{7}));
  }

  TEST_CASE("regions: every field counts") {
    const Region r{{4, 5}, {1, 2}, {3, 0}};
    static_assert(region_fingerprint(Region{{4, 5}, {1, 2}, {3, 0}}) ==
                  region_fingerprint(Region{{4, 5}, {1, 2}, {3, 0}}));
    const std::set<std::uint64_t> all{
        region_fingerprint(r),
        region_fingerprint({{5, 5}, {1, 2}, {3, 0}}),
        region_fingerprint({{4, 6}, {1, 2}, {3, 0}}),
        region_fingerprint({{4, 5}, {2, 2}, {3, 0}}),
        region_fingerprint({{4, 5}, {1, 3}, {3, 0}}),
        region_fingerprint({{4, 5}, {1, 2}, {4, 0}}),
        region_fingerprint({{4, 5}, {1, 2}, {3, 1}}),
        region_fingerprint({{5, 4}, {1, 2}, {3, 0}}),
        region_fingerprint({{0, 5}, {1, 2}, {3, 0}}),
    };
    CHECK(all.size() == 9);
  }

  TEST_CASE("option_items lists every ExecutionOptions member with its value") {
    ExecutionOptions o;
    o.chunk_bytes = 1 << 21;
    o.transport = TransportPolicy::cross_memory;
    o.gpu_aware_mpi = false;
    o.inter_node_schedule = InterNodeSchedule::caterpillar;
    o.progress_timeout_seconds = 2.5;
    const auto items = detail::option_items(o);
    REQUIRE(items.size() == detail::option_count<ExecutionOptions>);
    REQUIRE(items.size() >= 9);
    CHECK(items[0].name == "ExecutionOptions::chunk_bytes");
    CHECK(items[0].value == (1u << 21));
    CHECK(items[0].shows_value);
    CHECK(static_cast<std::int64_t>(items[1].value) == -1);  // Toggle::automatic
    CHECK(items[3].value == 1);
    CHECK(items[4].name == "ExecutionOptions::transport");
    CHECK(items[4].value == 3);
    CHECK(items[5].value == 0);
    CHECK(items[6].name == "ExecutionOptions::inter_node_schedule");
    CHECK(items[6].value == 2);
    CHECK(items[7].name == "ExecutionOptions::progress_timeout_seconds (us)");
    CHECK(items[7].value == 2500000);
    CHECK(items[8].name == "ExecutionOptions::max_message_bytes");
    for (const AgreementItem& it : items) CHECK(it.scope == AgreementScope::option);
  }

  TEST_CASE("disagreement messages name the item and the ranks that differ") {
    using detail::disagreement_message;
    CHECK(disagreement_message("the region", {7, 9}, false) ==
          "redist: ranks disagree on the region: rank 1 differs from rank 0");
    CHECK(disagreement_message("the region", {9, 7, 9}, false) ==
          "redist: ranks disagree on the region: rank 1 differs from ranks 0,2");
    CHECK(disagreement_message("the region", {1, 2, 1, 1}, false) ==
          "redist: ranks disagree on the region: rank 1 differs from ranks 0,2,3");
    CHECK(disagreement_message("the target tiling", {5, 5, 6, 6, 6}, false) ==
          "redist: ranks disagree on the target tiling: ranks 0,1 differ from ranks 2,3,4");
    CHECK(disagreement_message("PlanOptions::batch", {4, 0, 4, 0, 0}, true) ==
          "redist: ranks disagree on PlanOptions::batch: ranks 0,2 differ from ranks 1,3,4 "
          "(PlanOptions::batch = 4 on ranks 0,2, 0 on ranks 1,3,4)");
    CHECK(
        disagreement_message("PlanOptions::batch", {0, static_cast<std::uint64_t>(-1), 3}, true) ==
        "redist: ranks disagree on PlanOptions::batch: ranks 1,2 differ from rank 0 "
        "(PlanOptions::batch = -1 on rank 1, 3 on rank 2, 0 on rank 0)");
    std::vector<std::uint64_t> many(20, 1);
    for (std::size_t r = 8; r < 20; ++r) many[r] = 2;
    CHECK(disagreement_message("x", many, false) ==
          "redist: ranks disagree on x: ranks 0,1,2,3,4,5,6,7 differ from "
          "ranks 8,9,10,11,12,13,14,15,... (12 ranks)");
    CHECK(detail::rank_list({3}) == "rank 3");
    CHECK(detail::rank_list({0, 1, 2, 3, 4, 5, 6, 7, 8}) == "ranks 0,1,2,3,4,5,6,7,... (9 ranks)");
  }
}
