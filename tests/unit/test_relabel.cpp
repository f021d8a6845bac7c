// Process relabeling: the min-cost-flow assignment is optimal (checked against every
// permutation), and relabeling a shifted copy of the source grid makes the move all-local.
#include <algorithm>
#include <numeric>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/relabel.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

using namespace redist;

namespace {
index_t kept(const std::vector<index_t>& volume, const std::vector<int>& perm) {
  const auto P = perm.size();
  index_t sum = 0;
  for (std::size_t r = 0; r < P; ++r) sum += volume[static_cast<std::size_t>(perm[r]) * P + r];
  return sum;
}
}  // namespace

TEST_CASE("best_relabeling is optimal: it matches a brute force over all permutations") {
  test::Rng rng(20261122);
  for (int trial = 0; trial < 300; ++trial) {
    const int P = static_cast<int>(rng.in(1, 6));
    std::vector<index_t> volume(static_cast<std::size_t>(P * P));
    for (auto& v : volume) v = rng.chance(30) ? 0 : rng.in(0, 1000);
    const std::vector<int> perm = best_relabeling(volume, P);
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(static_cast<std::size_t>(P));
    std::iota(identity.begin(), identity.end(), 0);
    REQUIRE(sorted == identity);  // a permutation

    index_t best = 0;
    std::vector<int> p = identity;
    do best = std::max(best, kept(volume, p));
    while (std::next_permutation(p.begin(), p.end()));
    CAPTURE(trial);
    CHECK(kept(volume, perm) == best);
  }
}

TEST_CASE("relabeling a shifted grid makes every element stay local") {
  const Tiling shape{UniformAxis<>(90, 7), UniformAxis<>(80, 9)};
  const Layout src{shape, BlockCyclic(2, 3)};
  const Layout dst{shape, BlockCyclic(2, 3, 1, 1, GridCoord{1, 2})};  // same grid, shifted
  const Region region{{70, 60}, {5, 10}, {5, 10}};
  const int P = 6;
  const auto volume = transfer_volumes(src, dst, region, P);
  CHECK(std::accumulate(volume.begin(), volume.end(), index_t{0}) == region.extent.size());

  const std::vector<int> perm = best_relabeling(volume, P);
  const Layout moved{shape, Relabeled{dst.distribution(), perm}};
  index_t local = 0, remote = 0;
  for (int r = 0; r < P; ++r) {
    const Plan plan = make_plan(src, moved, region, r, P);
    local += plan.stats.elements_local;
    remote += plan.stats.elements_received;
  }
  CHECK(local == region.extent.size());
  CHECK(remote == 0);
}

TEST_CASE("Relabeled keeps owners and fast enumeration consistent") {
  const BlockCyclic base(2, 2, 2, 1);
  const Relabeled d{base, {2, 0, 3, 1}};
  static_assert(EnumeratesOwnedTiles<Relabeled<BlockCyclic>>);
  static_assert(OwnersInRange<Relabeled<BlockCyclic>>);
  const TileBox box{{1, 2}, {11, 9}};
  std::vector<int> seen(static_cast<std::size_t>(box.size()), 0);
  for (int r = 0; r < d.ranks(); ++r)
    for_each_owned_tile(d, r, box, [&](TileIndex t) {
      CHECK(d.owner(t) == r);
      ++seen[static_cast<std::size_t>((t.n - box.begin.n) * 10 + (t.m - box.begin.m))];
    });
  CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  for (index_t m = 0; m < 6; ++m)
    for (index_t n = 0; n < 6; ++n)
      CHECK(d.owner({m, n}) == std::vector{2, 0, 3, 1}[base.owner({m, n})]);
}

TEST_CASE("Relabeled and best_relabeling reject bad input by name") {
  CHECK_THROWS_WITH_AS(Relabeled(BlockCyclic(1, 3), {0, 0, 1}), doctest::Contains("perm[1] = 0"),
                       distribution_error);
  CHECK_THROWS_WITH_AS(Relabeled(BlockCyclic(1, 3), {0, 1}), doctest::Contains("perm.size() = 2"),
                       distribution_error);
  CHECK_THROWS_WITH_AS(best_relabeling({1, 2, 3}, 2), doctest::Contains("volume.size() = 3"),
                       invalid_argument);
  CHECK_THROWS_WITH_AS(best_relabeling({1, -2, 3, 4}, 2), doctest::Contains("volume[1] = -2"),
                       invalid_argument);
}
