// Elements between nodes (plan/node_traffic.hpp): the worked example of the header, then
// random layouts on random node groupings, where every rank's count from the plan
// equals a brute force over make_reference_plan's segments, and the sum over ranks equals
// split_transfers' inter_node of the P x P volume matrix (relabel.hpp) with no relabeling;
// and after best_node_relabeling, the plans of the relabeled target send the fewest elements
// between nodes that any permutation of the roles could (brute force).
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/node_traffic.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/relabel.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

using namespace redist;

namespace {

Message message(int peer, index_t elements) {
  Message m;
  m.peer = peer;
  m.elements = elements;
  return m;
}

/// Elements of plan's segments (one direction) whose peer is on another node than rank.
index_t brute_force(const std::vector<PlannedSegment>& segments, int rank,
                    const std::vector<int>& nodes) {
  index_t sum = 0;
  for (const PlannedSegment& ps : segments)
    if (nodes[static_cast<std::size_t>(ps.peer)] != nodes[static_cast<std::size_t>(rank)])
      sum += ps.segment.extent.size();
  return sum;
}

}  // namespace

TEST_CASE("node traffic: the worked example of plan/node_traffic.hpp") {
  ReferencePlan plan;
  plan.rank = 1;
  plan.comm_size = 4;
  plan.send.messages = {message(0, 6), message(3, 5)};
  plan.recv.messages = {message(2, 7)};
  plan.stats.elements_sent = 11;
  plan.stats.elements_received = 7;
  const PlanStats s = with_node_traffic(plan, {0, 0, 1, 1});
  CHECK(s.nodes == 2);
  CHECK(s.elements_sent_inter_node == 5);
  CHECK(s.elements_received_inter_node == 7);
  CHECK(s.elements_sent == 11);  // the rest is plan.stats
  // Node names are any integers; one node moves nothing between nodes.
  CHECK(with_node_traffic(plan, {9, 9, -4, -4}).elements_sent_inter_node == 5);
  const PlanStats one = with_node_traffic(plan, {3, 3, 3, 3});
  CHECK(one.nodes == 1);
  CHECK(one.elements_sent_inter_node == 0);
  CHECK(one.elements_received_inter_node == 0);
  // One rank per node: every remote element crosses a node.
  const PlanStats each = with_node_traffic(plan, {0, 1, 2, 3});
  CHECK(each.nodes == 4);
  CHECK(each.elements_sent_inter_node == 11);
  CHECK(each.elements_received_inter_node == 7);
}

TEST_CASE("node traffic: the plan's count is a brute force over make_reference_plan's segments") {
  test::Rng g(20261126);
  for (int trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    const int np = static_cast<int>(g.in(1, 6));
    const index_t sm = g.in(1, 40), sn = g.in(1, 40), dm = g.in(1, 40), dn = g.in(1, 40);
    const Layout src{Tiling{test::random_axis(g, sm), test::random_axis(g, sn)},
                     test::random_block_cyclic(g, np)};
    const Layout dst{Tiling{test::random_axis(g, dm), test::random_axis(g, dn)},
                     RandomDistribution(np, g.engine())};
    const Region region = test::random_region(g, {sm, sn}, {dm, dn});
    std::vector<int> nodes(static_cast<std::size_t>(np));
    const index_t per_node = g.in(1, np);  // REDIST_RANKS_PER_NODE's grouping, or random
    for (int r = 0; r < np; ++r)
      nodes[static_cast<std::size_t>(r)] =
          g.chance(50) ? static_cast<int>(r / per_node) : static_cast<int>(g.in(0, 2));
    index_t sent = 0, received = 0;
    for (int r = 0; r < np; ++r) {
      CAPTURE(r);
      const ReferencePlan reference = make_reference_plan(src, dst, region, r, np);
      const Plan plan = make_plan(src, dst, region, r, np);
      const PlanStats s = with_node_traffic(plan, nodes);
      CHECK(s.elements_sent_inter_node == brute_force(reference.send.segments, r, nodes));
      CHECK(s.elements_received_inter_node == brute_force(reference.recv.segments, r, nodes));
      CHECK(with_node_traffic(reference, nodes).elements_sent_inter_node ==
            s.elements_sent_inter_node);
      CHECK(s.elements_sent_inter_node <= s.elements_sent);
      sent += s.elements_sent_inter_node;
      received += s.elements_received_inter_node;
    }
    CHECK(sent == received);
    std::vector<int> identity(static_cast<std::size_t>(np));
    std::iota(identity.begin(), identity.end(), 0);
    CHECK(sent ==
          split_transfers(transfer_volumes(src, dst, region, np), identity, nodes).inter_node);
  }
}

TEST_CASE("node traffic: node-aware relabeling of real layouts is optimal, and its plans agree") {
  test::Rng g(20261127);
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    const int np = static_cast<int>(g.in(2, 5));
    const index_t m = g.in(1, 30), n = g.in(1, 30);
    const Tiling shape{test::random_axis(g, m), test::random_axis(g, n)};
    const Layout src{shape, test::random_block_cyclic(g, np)};
    const Layout dst{shape, RandomDistribution(np, g.engine())};
    const Region region = test::random_region(g, {m, n}, {m, n});
    std::vector<int> nodes(static_cast<std::size_t>(np));
    for (auto& x : nodes) x = static_cast<int>(g.in(0, 1));
    const std::vector<index_t> volume = transfer_volumes(src, dst, region, np);
    const std::vector<int> perm = best_node_relabeling(volume, nodes);
    std::vector<int> p(static_cast<std::size_t>(np));
    std::iota(p.begin(), p.end(), 0);
    index_t fewest = std::numeric_limits<index_t>::max();
    do fewest = std::min(fewest, split_transfers(volume, p, nodes).inter_node);
    while (std::next_permutation(p.begin(), p.end()));
    CHECK(split_transfers(volume, perm, nodes).inter_node == fewest);
    // What the relabeled target's plans send between nodes is that minimum.
    const Layout moved{shape, Relabeled{dst.distribution(), perm}};
    index_t sent = 0;
    for (int r = 0; r < np; ++r)
      sent +=
          with_node_traffic(make_plan(src, moved, region, r, np), nodes).elements_sent_inter_node;
    CHECK(sent == fewest);
  }
}

TEST_CASE("node traffic: a node list of the wrong size is named") {
  ReferencePlan plan;
  plan.rank = 0;
  plan.comm_size = 2;
  plan.send.messages = {message(1, 3)};
  CHECK_THROWS_WITH_AS(with_node_traffic(plan, {0, 1, 2}),
                       doctest::Contains("node_of_rank.size() = 3"), invalid_argument);
  plan.send.messages = {message(2, 3)};
  CHECK_THROWS_WITH_AS(with_node_traffic(plan, {0, 1}), doctest::Contains("plan.send peer = 2"),
                       invalid_argument);
}
