// Process relabeling: the min-cost-flow assignment is optimal (checked against every
// permutation, and against the dense Boost.Graph solver it replaced at P <= 256, sparse and
// dense), relabeling a shifted copy of the source grid makes the move all-local, the
// node-aware one moves the fewest elements between nodes, then within them, and each
// rank's own row (volume_row) is its row of the volume matrix, of op(source) and the kept
// triangle when the move has them.
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/relabel.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/transform_op.hpp>
#include <redist/triangle.hpp>

#include <doctest/doctest.h>

#include "relabel_dense_ssp.hpp"
#include "unit_test_support.hpp"

using namespace redist;

namespace {
index_t kept(const std::vector<index_t>& volume, const std::vector<int>& perm) {
  const auto P = perm.size();
  index_t sum = 0;
  for (std::size_t r = 0; r < P; ++r) sum += volume[static_cast<std::size_t>(perm[r]) * P + r];
  return sum;
}

/// Whether perm holds each of 0..P-1 once.
bool is_permutation_of(std::vector<int> perm, int P) {
  std::sort(perm.begin(), perm.end());
  for (std::size_t r = 0; r < perm.size(); ++r)
    if (perm[r] != static_cast<int>(r)) return false;
  return perm.size() == static_cast<std::size_t>(P);
}
}  // namespace

TEST_CASE("best_relabeling is optimal: it matches a brute force over all permutations") {
  test::Rng rng(20261122);
  for (int trial = 0; trial < 300; ++trial) {
    const int P = static_cast<int>(rng.in(1, 6));
    std::vector<index_t> volume(static_cast<std::size_t>(P * P));
    for (auto& v : volume) v = rng.chance(30) ? 0 : rng.in(0, 1000);
    const std::vector<int> perm = best_relabeling(volume, P);
    REQUIRE(is_permutation_of(perm, P));
    std::vector<int> identity(static_cast<std::size_t>(P));
    std::iota(identity.begin(), identity.end(), 0);

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
    const ReferencePlan plan = make_reference_plan(src, moved, region, r, P);
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

namespace {
/// The best split over every permutation: fewest between nodes, then fewest within.
TransferSplit brute_force_split(const std::vector<index_t>& volume, const std::vector<int>& nodes) {
  std::vector<int> p(nodes.size());
  std::iota(p.begin(), p.end(), 0);
  TransferSplit best{std::numeric_limits<index_t>::max(), 0, 0};
  do {
    const TransferSplit t = split_transfers(volume, p, nodes);
    if (t.inter_node < best.inter_node ||
        (t.inter_node == best.inter_node && t.intra_node < best.intra_node))
      best = t;
  } while (std::next_permutation(p.begin(), p.end()));
  return best;
}
}  // namespace

TEST_CASE("best_node_relabeling: fewest elements between nodes, then within, by brute force") {
  test::Rng rng(20261125);
  for (int trial = 0; trial < 400; ++trial) {
    const int P = static_cast<int>(rng.in(1, 6));
    const int N = static_cast<int>(rng.in(1, P));
    std::vector<int> nodes(static_cast<std::size_t>(P));
    for (auto& n : nodes) n = 10 * static_cast<int>(rng.in(0, N - 1));  // any integers
    // Huge volumes too: both orders exact (no weights).
    const bool huge = trial % 4 == 3;
    std::vector<index_t> volume(static_cast<std::size_t>(P * P));
    for (auto& v : volume)
      v = rng.chance(30) ? 0 : huge ? rng.in(1, index_t{1} << 40) : rng.in(0, 1000);
    CAPTURE(trial);
    const std::vector<int> perm = best_node_relabeling(volume, nodes);
    REQUIRE(is_permutation_of(perm, P));
    const TransferSplit got = split_transfers(volume, perm, nodes);
    const TransferSplit best = brute_force_split(volume, nodes);
    CHECK(got.inter_node == best.inter_node);
    CHECK(got.intra_node == best.intra_node);
    CHECK(got.inter_node + got.intra_node + got.local ==
          std::accumulate(volume.begin(), volume.end(), index_t{0}));
  }
}

TEST_CASE("best_node_relabeling removes inter-node elements that best_relabeling leaves") {
  // Ranks 0, 1 on node A, ranks 2, 3 on node B. Role 0's data: 6 on rank 0, 5 on each of
  // ranks 2 and 3; role 1's: 10 on rank 1; roles 2 and 3: 1 on every rank. Keeping the
  // most local puts role 0 on rank 0 (6 stay, 10 cross); node-aware puts it on node B.
  // clang-format off
  const std::vector<index_t> volume = {
  //  role 0   1  2  3        (volume[s * P + r])
      6,       0, 1, 1,   // rank 0
      0,      10, 1, 1,   // rank 1
      5,       0, 1, 1,   // rank 2
      5,       0, 1, 1,   // rank 3
  };
  // clang-format on
  const std::vector<int> nodes = {0, 0, 1, 1};
  const TransferSplit flat = split_transfers(volume, best_relabeling(volume, 4), nodes);
  const TransferSplit aware = split_transfers(volume, best_node_relabeling(volume, nodes), nodes);
  CHECK(flat == TransferSplit{14, 2, 18});
  CHECK(aware == TransferSplit{10, 7, 17});
  // One node, or one rank per node: the same as keeping the most local.
  CHECK(split_transfers(volume, best_node_relabeling(volume, {7, 7, 7, 7}), nodes).local == 18);
  CHECK(split_transfers(volume, best_node_relabeling(volume, {0, 1, 2, 3}), nodes).local == 18);
}

TEST_CASE("node relabeling rejects bad input by name") {
  CHECK_THROWS_WITH_AS(best_node_relabeling({1, 2, 3, 4}, {0, 0, 1}),
                       doctest::Contains("volume.size() = 4"), invalid_argument);
  CHECK_THROWS_WITH_AS(best_node_relabeling({1, 2, 3, 4}, {}),
                       doctest::Contains("node_of_rank.size() = 0"), invalid_argument);
  CHECK_THROWS_WITH_AS(split_transfers({1, 2, 3, 4}, {0, 2}, {0, 0}),
                       doctest::Contains("perm[1] = 2"), invalid_argument);
  CHECK_THROWS_WITH_AS(split_transfers({1, 2, 3, 4}, {0, 1}, {0}),
                       doctest::Contains("node_of_rank.size() = 1"), invalid_argument);
}

namespace {
/// A random P x P volume matrix: `per_row` non-zero roles a rank (P: dense), values in
/// [1, top], the diagonal more likely kept.
std::vector<index_t> random_volumes(test::Rng& rng, int P, int per_row, index_t top) {
  const auto n = static_cast<std::size_t>(P);
  std::vector<index_t> volume(n * n, 0);
  for (std::size_t s = 0; s < n; ++s) {
    if (per_row >= P) {
      for (std::size_t r = 0; r < n; ++r) volume[s * n + r] = rng.in(1, top);
      continue;
    }
    if (rng.chance(50)) volume[s * n + s] = rng.in(1, top);
    for (int k = 0; k < per_row; ++k)
      volume[s * n + static_cast<std::size_t>(rng.in(0, P - 1))] = rng.in(1, top);
  }
  return volume;
}

std::vector<int> random_nodes(test::Rng& rng, int P) {
  std::vector<int> nodes(static_cast<std::size_t>(P));
  if (rng.chance(50)) {  // blocks of k consecutive ranks, as mpirun places them
    const index_t k = rng.pick(std::vector<index_t>{2, 4, 8, 16});
    for (std::size_t s = 0; s < nodes.size(); ++s) nodes[s] = static_cast<int>(s / k);
  } else {  // any ranks together
    const index_t N = rng.in(2, std::max(2, P / 3));
    for (auto& x : nodes) x = static_cast<int>(rng.in(0, N - 1));
  }
  return nodes;
}
}  // namespace

TEST_CASE("best_relabeling keeps what the dense successive-shortest-path solver keeps") {
  test::Rng rng(20261201);
  for (int trial = 0; trial < 40; ++trial) {
    const int P = static_cast<int>(trial < 4 ? 256 : rng.in(2, 120));
    const int per_row = rng.chance(25) ? P : static_cast<int>(rng.in(1, 8));
    const index_t top = rng.chance(50) ? 1000 : index_t{1} << 30;
    const std::vector<index_t> volume = random_volumes(rng, P, per_row, top);
    CAPTURE(trial);
    const std::vector<int> perm = best_relabeling(volume, P);
    REQUIRE(is_permutation_of(perm, P));
    CHECK(kept(volume, perm) == kept(volume, test::best_relabeling_dense_ssp(volume, P)));
  }
}

TEST_CASE("best_node_relabeling splits as the dense successive-shortest-path solver does") {
  test::Rng rng(20261202);
  for (int trial = 0; trial < 40; ++trial) {
    const int P = static_cast<int>(trial < 4 ? 256 : rng.in(2, 120));
    const int per_row = rng.chance(25) ? P : static_cast<int>(rng.in(1, 8));
    // Small values: the old solver is exact in both orders (its weights fit 64 bits).
    const std::vector<index_t> volume = random_volumes(rng, P, per_row, 1000);
    const std::vector<int> nodes = random_nodes(rng, P);
    CAPTURE(trial);
    const std::vector<int> perm = best_node_relabeling(volume, nodes);
    REQUIRE(is_permutation_of(perm, P));
    CHECK(split_transfers(volume, perm, nodes) ==
          split_transfers(volume, test::best_node_relabeling_dense_ssp(volume, nodes), nodes));
  }
}

TEST_CASE("sparse volumes: rows in any order, roles repeated, give the dense answer") {
  test::Rng rng(20261203);
  for (int trial = 0; trial < 50; ++trial) {
    const int P = static_cast<int>(rng.in(1, 40));
    const auto n = static_cast<std::size_t>(P);
    const std::vector<index_t> volume = random_volumes(rng, P, static_cast<int>(rng.in(1, 4)), 99);
    const std::vector<int> nodes = random_nodes(rng, P);
    SparseVolumes sparse;
    for (std::size_t s = 0; s < n; ++s) {
      std::vector<VolumeEntry> row;
      for (std::size_t r = 0; r < n; ++r) {
        index_t v = volume[s * n + r];
        if (v > 1 && rng.chance(50)) {  // split in two entries
          const index_t part = rng.in(1, v - 1);
          row.push_back({static_cast<int>(r), part});
          v -= part;
        }
        if (v > 0 || rng.chance(10)) row.push_back({static_cast<int>(r), v});
      }
      std::shuffle(row.begin(), row.end(), rng.engine);
      sparse.add_row(row);
    }
    CAPTURE(trial);
    CHECK(kept(volume, best_relabeling(sparse)) == kept(volume, best_relabeling(volume, P)));
    CHECK(split_transfers(sparse, best_node_relabeling(sparse, nodes), nodes) ==
          split_transfers(volume, best_node_relabeling(volume, nodes), nodes));
    CHECK(sparse_volumes(volume, P).entries.size() ==
          static_cast<std::size_t>(
              std::count_if(volume.begin(), volume.end(), [](index_t v) { return v > 0; })));
  }
}

TEST_CASE("transfer_volumes: a transposed or triangular move counted element by element") {
  // Source 1 x 3 grid, target 3 x 1 grid, different tilings: under op t a target row of
  // tiles comes from a source column of tiles, so the volumes differ from op n's. The
  // reference walks the target rectangle and asks both distributions whose each element is.
  const int P = 3;
  const Layout src{Tiling{UniformAxis<>(40, 6), UniformAxis<>(50, 7)}, BlockCyclic(1, 3)};
  const Layout dst{Tiling{UniformAxis<>(60, 5), UniformAxis<>(45, 4)}, BlockCyclic(3, 1)};
  const Region region{{27, 33}, {4, 9}, {11, 6}};  // the source's 27 x 33
  const auto n = static_cast<std::size_t>(P);
  for (const Op op : {Op::none, Op::transpose, Op::conj_transpose})
    for (const Triangle triangle :
         {Triangle{}, Triangle{Uplo::lower, Diag::unit}, Triangle{Uplo::upper, Diag::non_unit}}) {
      CAPTURE(static_cast<int>(op));
      CAPTURE(static_cast<int>(triangle.uplo));
      const Extents ext = target_extent(region, op);
      std::vector<index_t> expected(n * n, 0);
      for (index_t x = 0; x < ext.rows; ++x)
        for (index_t y = 0; y < ext.cols; ++y) {
          if (!triangle.keeps(x, y, ext)) continue;
          const index_t i = region.src_origin.i + (op == Op::none ? x : y);
          const index_t j = region.src_origin.j + (op == Op::none ? y : x);
          const int from =
              src.owner({src.shape().rows().tile_of(i), src.shape().cols().tile_of(j)});
          const int role = dst.owner({dst.shape().rows().tile_of(region.dst_origin.i + x),
                                      dst.shape().cols().tile_of(region.dst_origin.j + y)});
          expected[static_cast<std::size_t>(from) * n + static_cast<std::size_t>(role)] += 1;
        }
      CHECK(transfer_volumes(src, dst, region, P, op, triangle) == expected);
    }
  // The target is 60 x 45: op t's 33 x 27 fits at (11, 6), op n's 27 x 33 does not reach
  // past column 39; a region whose op does not fit is refused, naming it.
  const Region wide{{20, 44}, {0, 0}, {0, 0}};  // op n: 44 columns of 45; op t: 44 rows
  CHECK_NOTHROW(transfer_volumes(src, dst, wide, P));
  CHECK_NOTHROW(transfer_volumes(src, dst, wide, P, Op::transpose));
  const Region tall{{30, 46}, {0, 0}, {0, 0}};  // op t: 46 rows of 60, 30 columns of 45
  CHECK_THROWS_AS(transfer_volumes(src, dst, tall, P), region_error);
  CHECK_NOTHROW(transfer_volumes(src, dst, tall, P, Op::transpose));
}

TEST_CASE("volume_row: each rank's row of transfer_volumes, from its own plan") {
  const Tiling shape{UniformAxis<>(90, 7), UniformAxis<>(80, 9)};
  const Region region{{70, 60}, {5, 10}, {5, 10}};
  const int P = 6;
  const Layout src{shape, BlockCyclic(2, 3)};
  const Layout grid{shape, BlockCyclic(3, 2, 2, 1, GridCoord{1, 0})};
  const Layout scattered{shape, RandomDistribution(P, 7)};
  const auto check = [&](const auto& dst) {
    // The matrix as the receivers see it: role r's reference plan, segment by segment.
    const auto n = static_cast<std::size_t>(P);
    std::vector<index_t> expected(n * n, 0);
    for (int r = 0; r < P; ++r) {
      const ReferencePlan plan = make_reference_plan(src, dst, region, r, P);
      const auto role = static_cast<std::size_t>(r);
      for (const PlannedSegment& ps : plan.recv.segments)
        expected[static_cast<std::size_t>(ps.peer) * n + role] += ps.segment.extent.size();
      expected[role * n + role] += plan.stats.elements_local;
    }
    CHECK(transfer_volumes(src, dst, region, P) == expected);
    for (int s = 0; s < P; ++s) {
      const std::vector<VolumeEntry> row = volume_row(src, dst, region, s, P);
      std::vector<index_t> dense(n, 0);
      for (std::size_t k = 0; k < row.size(); ++k) {
        CHECK(row[k].elements > 0);
        if (k > 0) CHECK(row[k - 1].role < row[k].role);
        dense[static_cast<std::size_t>(row[k].role)] = row[k].elements;
      }
      const auto first =
          expected.begin() + static_cast<std::ptrdiff_t>(n * static_cast<std::size_t>(s));
      CHECK(dense == std::vector<index_t>(first, first + P));
    }
  };
  check(grid);
  check(scattered);
}

TEST_CASE("sparse relabeling rejects bad input by name") {
  SparseVolumes bad_role;
  bad_role.add_row(std::vector<VolumeEntry>{{0, 1}, {2, 5}});
  bad_role.add_row(std::vector<VolumeEntry>{});
  CHECK_THROWS_WITH_AS(best_relabeling(bad_role), doctest::Contains("volumes.row(0)[1].role = 2"),
                       invalid_argument);
  SparseVolumes negative;
  negative.add_row(std::vector<VolumeEntry>{{0, -3}});
  CHECK_THROWS_WITH_AS(best_node_relabeling(negative, {0}),
                       doctest::Contains("volumes.row(0)[0].elements = -3"), invalid_argument);
  CHECK_THROWS_WITH_AS(best_relabeling(SparseVolumes{}),
                       doctest::Contains("volumes.row_begin.size() = 1"), invalid_argument);
  SparseVolumes two;
  two.add_row(std::vector<VolumeEntry>{{1, 1}});
  two.add_row(std::vector<VolumeEntry>{{0, index_t{1} << 59}});
  CHECK_THROWS_WITH_AS(best_relabeling(two), doctest::Contains("largest volume = "),
                       invalid_argument);
  CHECK_THROWS_WITH_AS(best_node_relabeling(two, {0, 0, 1}),
                       doctest::Contains("volumes.ranks() = 2"), invalid_argument);
  CHECK_THROWS_WITH_AS(split_transfers(two, {0}, {0}), doctest::Contains("volumes.ranks() = 2"),
                       invalid_argument);
}
