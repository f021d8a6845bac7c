#pragma once
/// @file plan/node_traffic.hpp
/// How much of one rank's plan crosses a node's link: the elements it sends to and
/// receives from ranks on other nodes. Between nodes and within a node are the two link
/// classes of the cost model of Cao et al. 2020, section 4; a byte between nodes costs
/// more, so reports give it beside M_send and M_receive. Pure: no MPI; the nodes come in
/// as a list (topology.hpp's NodeMap::node_of_rank on a communicator).
///
///   const PlanStats s = with_node_traffic(R.plan(), node_map(comm).node_of_rank);
///   s.nodes, s.elements_sent_inter_node, s.elements_received_inter_node
///
/// Worked example: 4 ranks on nodes {0, 0, 1, 1}; rank 1 sends 6 elements to rank 0 and
/// 5 to rank 3, and receives 7 from rank 2. Then nodes = 2, elements_sent_inter_node = 5
/// (rank 0 shares its node), elements_received_inter_node = 7.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <string>
#include <vector>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/plan/plan_header.hpp>

namespace redist {

/// A plan whose send and recv directions list messages with a peer and an element count:
/// ReferencePlan (make_reference_plan) and Plan.
template <class P>
concept PlanWithMessages = requires(const P& p) {
  { p.rank } -> std::convertible_to<int>;
  { p.comm_size } -> std::convertible_to<int>;
  { p.stats } -> std::convertible_to<PlanStats>;
  { p.send.messages.front().peer } -> std::convertible_to<int>;
  { p.send.messages.front().elements } -> std::convertible_to<index_t>;
  { p.recv.messages.front().peer } -> std::convertible_to<int>;
};

/// plan.stats with the node fields filled: nodes = `nodes`, and the elements of plan.send
/// (plan.recv) messages whose peer is on another node than plan.rank. Costs O(messages):
/// nothing per rank of the communicator (a job of 65536 ranks: bench/README.md).
/// @pre node_of_rank[r] is rank r's node (any integers: equal means one node), and `nodes`
/// the number of its distinct entries (NodeMap::nodes).
/// @post elements_sent_inter_node <= elements_sent, and likewise received; both are 0
/// when nodes == 1.
/// @throws invalid_argument naming node_of_rank.size() unless it equals plan.comm_size,
/// or a message's peer if it is outside [0, comm_size).
template <PlanWithMessages P>
PlanStats with_node_traffic(const P& plan, const std::vector<int>& node_of_rank, int nodes) {
  const auto size = static_cast<std::size_t>(plan.comm_size);
  detail::require<invalid_argument>(node_of_rank.size() == size,
                                    "one node per rank of the plan's communicator is needed",
                                    "node_of_rank.size()", node_of_rank.size());
  detail::require<invalid_argument>(plan.rank >= 0 && static_cast<std::size_t>(plan.rank) < size,
                                    "the plan's rank must be in [0, comm_size)", "plan.rank",
                                    plan.rank);
  PlanStats s = plan.stats;
  s.nodes = nodes;
  const int home = node_of_rank[static_cast<std::size_t>(plan.rank)];
  const auto off_node = [&](const auto& messages, const char* direction) {
    index_t elements = 0;
    for (const auto& m : messages) {
      detail::require<invalid_argument>(m.peer >= 0 && static_cast<std::size_t>(m.peer) < size,
                                        "a message's peer must be a rank of the communicator",
                                        std::string("plan.") + direction + " peer", m.peer);
      if (node_of_rank[static_cast<std::size_t>(m.peer)] != home) elements += m.elements;
    }
    return elements;
  };
  s.elements_sent_inter_node = off_node(plan.send.messages, "send");
  s.elements_received_inter_node = off_node(plan.recv.messages, "recv");
  return s;
}

/// with_node_traffic with nodes counted from node_of_rank: O(messages + P log P).
/// @throws invalid_argument as above.
template <PlanWithMessages P>
PlanStats with_node_traffic(const P& plan, const std::vector<int>& node_of_rank) {
  std::vector<int> names(node_of_rank);
  std::sort(names.begin(), names.end());
  const auto nodes = static_cast<int>(std::unique(names.begin(), names.end()) - names.begin());
  return with_node_traffic(plan, node_of_rank, nodes);
}

}  // namespace redist
