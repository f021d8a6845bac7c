// Grids known at run time (plan/grid_view.hpp): a tools::SpecDistribution holding a
// BlockCyclic, a Relabeled or transposed one, plans on the plan's per-axis path,
// exactly as the BlockCyclic itself plans (same groups, families, messages, batches and
// statistics), and, relabeled, moves what make_reference_plan's per-segment enumeration moves. A
// SpecDistribution that holds no grid keeps the per-segment path. Then issue 22, point 4:
// the element-cyclic pair that redist-run builds (1x1 tiles, 1x2 -> 2x1 on 2 ranks) does
// the same planning work at 2048^2, 8192^2 and 16384^2.
#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/grid_view.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tools/spec_distribution.hpp>
#include <redist/transform.hpp>

#include <doctest/doctest.h>

#include "../support/plan_checks.hpp"
#include "unit_test_support.hpp"

namespace {

using namespace redist;
using redist::test::check_stats;
using redist::tools::SpecDistribution;
using test::Rng;
using Shape = Tiling<IrregularAxis, IrregularAxis>;
using Uniform = Tiling<UniformAxis<>, UniformAxis<>>;

static_assert(HasGridView<SpecDistribution> && !GridDistribution<SpecDistribution>);
static_assert(HasGridView<Relabeled<SpecDistribution>>);
static_assert(HasGridView<Relabeled<BlockCyclic>>);
static_assert(HasGridView<TransposedDistribution<SpecDistribution>>);
static_assert(GridDistribution<RelabeledGrid<BlockCyclic>>);
static_assert(!HasGridView<RandomDistribution> && !HasGridView<Relabeled<RandomDistribution>>);

void check_same_messages(const std::vector<Message>& got, const std::vector<Message>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CHECK(got[k].peer == want[k].peer);
    CHECK(got[k].batch == want[k].batch);
    CHECK(got[k].first == want[k].first);
    CHECK(got[k].count == want[k].count);
    CHECK(got[k].elements == want[k].elements);
    CHECK(got[k].buffer_offset == want[k].buffer_offset);
  }
}

/// Two plans describe the same move the same way.
void check_same_plan(const Plan& got, const Plan& want) {
  CHECK(got.per_axis == want.per_axis);
  CHECK(got.batch == want.batch);
  CHECK(got.batches == want.batches);
  CHECK(got.batch_columns == want.batch_columns);
  CHECK(got.scanned_tiles == want.scanned_tiles);
  CHECK(got.packed_pieces == want.packed_pieces);
  CHECK(got.row_groups == want.row_groups);
  CHECK(got.col_groups == want.col_groups);
  for (const auto d : {&Plan::send, &Plan::recv, &Plan::local}) {
    CHECK((got.*d).families == (want.*d).families);
    check_same_messages((got.*d).messages, (want.*d).messages);
    CHECK((got.*d).batch_elements == (want.*d).batch_elements);
    CHECK((got.*d).elements == (want.*d).elements);
    CHECK((got.*d).segments == (want.*d).segments);
  }
  check_stats(got.stats, want.stats);
}

/// The plan moves what make_reference_plan moves: statistics, batches, and the elements of
/// every (peer, batch) message.
void check_moves_as(const Plan& got, const ReferencePlan& want) {
  CHECK(got.batches == want.batches);
  CHECK(got.batch_columns == want.batch_columns);
  check_stats(got.stats, want.stats);
  const auto sizes = [](const std::vector<Message>& ms) {
    std::map<std::tuple<int, index_t>, index_t> out;
    for (const Message& m : ms) out[{m.peer, m.batch}] += m.elements;
    return out;
  };
  CHECK(sizes(got.send.messages) == sizes(want.send.messages));
  CHECK(sizes(got.recv.messages) == sizes(want.recv.messages));
}

std::vector<int> random_permutation(Rng& g, int n) {
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  for (int k = n - 1; k > 0; --k)
    std::swap(perm[static_cast<std::size_t>(k)], perm[static_cast<std::size_t>(g.in(0, k))]);
  return perm;
}

TEST_CASE("plan: grids known at run time plan as their grids, on random layouts") {
  Rng g(0x6A1D5EE);
  constexpr test::AxisDraw axes{60, 7};
  constexpr test::BlockCyclicDraw grids{3, true, 4};
  int relabeled = 0;
  for (int k = 0; k < 150; ++k) {
    CAPTURE(k);
    const int np = static_cast<int>(g.in(1, 6));
    const index_t sm = g.in(1, 60), sn = g.in(1, 60), dm = g.in(1, 60), dn = g.in(1, 60);
    const Shape src_shape{random_axis(g, sm, axes), random_axis(g, sn, axes)};
    const Shape dst_shape{random_axis(g, dm, axes), random_axis(g, dn, axes)};
    const BlockCyclic sd = random_block_cyclic(g, np, grids);
    const BlockCyclic dd = random_block_cyclic(g, np, grids);
    const Region r = test::random_region(g, {sm, sn}, {dm, dn});
    const Region rt = test::random_region(g, {sn, sm}, {dm, dn});  // of the transposed source
    const std::vector<int> perm = random_permutation(g, np);
    relabeled += !std::is_sorted(perm.begin(), perm.end());
    PlanOptions o;
    const index_t b = g.in(0, 3);
    o.batch = b == 3 ? 0 : b;
    if (g.chance(30)) o.max_buffer_bytes = g.in(64, 2048);  // several batches, or an error

    const Layout grid_src{src_shape, sd};
    const Layout grid_dst{dst_shape, dd};
    const Layout spec_src{src_shape, SpecDistribution(sd)};
    const Layout spec_dst{dst_shape, SpecDistribution(dd)};
    const Layout relabeled_dst{dst_shape, Relabeled<SpecDistribution>(SpecDistribution(dd), perm)};
    const Layout relabeled_grid_dst{dst_shape, Relabeled<BlockCyclic>(dd, perm)};
    for (int rank = 0; rank < np; ++rank) {
      CAPTURE(rank);
      const auto plan = [&](const auto& src, const auto& dst) {
        return make_plan(src, dst, r, rank, np, o);
      };
      const std::string error =
          test::message_of<invalid_argument>([&] { plan(grid_src, grid_dst); });
      // Relabeled: the roles' owners move, so against the per-segment enumeration (a budget
      // below the minimum: the same error).
      const std::string relabeled_error = test::message_of<invalid_argument>(
          [&] { make_reference_plan(spec_src, relabeled_dst, r, rank, np, o); });
      CHECK(test::message_of<invalid_argument>([&] { plan(spec_src, relabeled_dst); }) ==
            relabeled_error);
      if (relabeled_error == "<no exception>") {
        const Plan got = plan(spec_src, relabeled_dst);
        CHECK(got.per_axis);
        check_moves_as(got, make_reference_plan(spec_src, relabeled_dst, r, rank, np, o));
        check_same_plan(plan(grid_src, relabeled_grid_dst), got);
      }
      if (error != "<no exception>") {
        CHECK(test::message_of<invalid_argument>([&] { plan(spec_src, spec_dst); }) == error);
        continue;
      }
      const Plan want = plan(grid_src, grid_dst);
      CHECK(want.per_axis);
      check_same_plan(plan(spec_src, spec_dst), want);
      check_same_plan(plan(grid_src, spec_dst), want);
      check_same_plan(plan(spec_src, grid_dst), want);
      // Transposed (what --op t plans): as the transposed BlockCyclic.
      const auto transposed_plan = [&](const auto& src, const auto& dst) {
        return make_plan(transposed(src), dst, rt, rank, np, o);
      };
      const std::string t_error =
          test::message_of<invalid_argument>([&] { transposed_plan(grid_src, grid_dst); });
      if (t_error == "<no exception>")
        check_same_plan(transposed_plan(spec_src, spec_dst), transposed_plan(grid_src, grid_dst));
      else
        CHECK(test::message_of<invalid_argument>([&] { transposed_plan(spec_src, spec_dst); }) ==
              t_error);
    }
  }
  CHECK(relabeled > 50);
}

TEST_CASE("plan: a SpecDistribution that holds no grid keeps the per-segment path") {
  const Layout src{test::uniform(40, 30, 3, 4), SpecDistribution(RandomDistribution(3, 7))};
  const Layout dst{test::uniform(40, 30, 5, 2), SpecDistribution(BlockCyclic(3, 1))};
  const Layout relabeled{
      test::uniform(40, 30, 5, 2),
      Relabeled<SpecDistribution>(SpecDistribution(RandomDistribution(3, 9)), {2, 0, 1})};
  const Region r = Region::whole({40, 30});
  for (int rank = 0; rank < 3; ++rank) {
    const Plan p = make_plan(src, dst, r, rank, 3);
    CHECK_FALSE(p.per_axis);
    check_moves_as(p, make_reference_plan(src, dst, r, rank, 3));
    const Plan q = make_plan(dst, relabeled, r, rank, 3);
    CHECK_FALSE(q.per_axis);
    check_moves_as(q, make_reference_plan(dst, relabeled, r, rank, 3));
  }
}

/// The planning work and its result's size, which must not grow with the matrix.
struct Work {
  index_t scanned, packed, row_groups, col_groups, families, messages, batches;
  std::size_t bytes;
  friend bool operator==(const Work&, const Work&) = default;
};

TEST_CASE("plan: redist-run's 1x1 element-cyclic pair, the same work at any size") {
  // The layouts as redist-run builds them for --src NxN/1x1/bc:1x2 --dst NxN/1x1/bc:2x1
  // (tile storage): run-time distributions, the target relabeled (the identity). Before
  // the grid view they took the per-segment path: 2.9 s and 420 MB at 2048^2 (bench/README.md).
  std::vector<Work> work;
  for (const index_t N : {2048, 8192, 16384}) {
    CAPTURE(N);
    const Layout src{test::uniform(N, N, 1, 1), SpecDistribution(BlockCyclic(1, 2))};
    const Layout dst{test::uniform(N, N, 1, 1),
                     Relabeled<SpecDistribution>(SpecDistribution(BlockCyclic(2, 1)), {0, 1})};
    for (int rank : {0, 1}) {
      CAPTURE(rank);
      // The default cap (1 GiB of doubles) alone: at 16384^2 the region (2 GiB) and each
      // rank's holdings (2 GiB) exceed it, its send + receive (1 GiB) does not.
      PlanOptions cap_only;
      cap_only.batch_bytes = 0;
      const Plan p = make_plan(src, dst, Region::whole({N, N}), rank, 2, cap_only);
      CHECK(p.per_axis);
      CHECK(p.batches == 1);
      // The automatic 64 MiB target: send + receive of N^2 / 2 doubles in 64 MiB batches.
      CHECK(make_plan(src, dst, Region::whole({N, N}), rank, 2).batches ==
            std::max<index_t>(1, N * N / 2 * 8 / PlanOptions::host_batch_bytes));
      const index_t q = N * N / 4;
      CHECK(p.stats.elements_sent == q);
      CHECK(p.stats.elements_received == q);
      CHECK(p.stats.elements_local == q);
      CHECK(p.stats.segments_sent == q);
      CHECK(p.stats.dst_tiles == N * N / 2);
      work.push_back(Work{p.scanned_tiles, p.packed_pieces,
                          static_cast<index_t>(p.row_groups.size()),
                          static_cast<index_t>(p.col_groups.size()),
                          static_cast<index_t>(p.send.families.size() + p.recv.families.size() +
                                               p.local.families.size()),
                          static_cast<index_t>(p.send.messages.size() + p.recv.messages.size() +
                                               p.local.messages.size()),
                          p.batches, p.memory_bytes()});
    }
  }
  // The work: two target tiles per axis period (1x1 tiles, grids of 2), no column walk.
  CHECK(work.front().scanned <= 2 * (2 * 2 + 2));
  CHECK(work.front().packed == 0);
  CHECK(work.front().families == 3);
  for (const Work& w : work) CHECK(w == work.front());
}

}  // namespace
