#pragma once
// The relabeling solvers redist had before LEMON (the dense P x P matrix, Boost.Graph's
// successive shortest paths, O(P^3)), kept as the reference the sparse network simplex is
// checked against at P <= 256 (test_relabel.cpp).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>

#include <redist/error.hpp>

namespace redist::test {

/// The permutation perm (perm[role] = rank) minimising sum_r cost[perm[r] * P + r], as a
/// min-cost flow. @pre cost is P x P, entries >= 0 and small enough that (2P + 2) times
/// the largest does not overflow.
inline std::vector<int> min_cost_assignment(const std::vector<index_t>& cost, std::size_t P) {
  // Network: source -> rank s -> role r -> sink, unit capacities.
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<
          boost::edge_capacity_t, index_t,
          boost::property<boost::edge_residual_capacity_t, index_t,
                          boost::property<boost::edge_reverse_t, Traits::edge_descriptor,
                                          boost::property<boost::edge_weight_t, index_t>>>>>;
  Graph g(2 * P + 2);
  const std::size_t source = 2 * P, sink = 2 * P + 1;
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  auto weight = boost::get(boost::edge_weight, g);
  const auto arc = [&](std::size_t u, std::size_t v, index_t c) {
    const auto e = boost::add_edge(u, v, g).first;
    const auto back = boost::add_edge(v, u, g).first;
    capacity[e] = 1;
    capacity[back] = 0;
    weight[e] = c;
    weight[back] = -c;
    reverse[e] = back;
    reverse[back] = e;
    return e;
  };
  std::vector<Traits::edge_descriptor> assign(P * P);
  for (std::size_t s = 0; s < P; ++s) {
    arc(source, s, 0);
    arc(P + s, sink, 0);
    for (std::size_t r = 0; r < P; ++r) assign[s * P + r] = arc(s, P + r, cost[s * P + r]);
  }
  boost::successive_shortest_path_nonnegative_weights(g, source, sink);

  auto residual = boost::get(boost::edge_residual_capacity, g);
  std::vector<int> perm(P, -1);
  for (std::size_t s = 0; s < P; ++s)
    for (std::size_t r = 0; r < P; ++r)
      if (residual[assign[s * P + r]] == 0) perm[r] = static_cast<int>(s);
  return perm;
}

/// Checks a P x P volume matrix; returns its largest entry.
inline index_t checked_volume(const std::vector<index_t>& volume, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  redist::detail::require<invalid_argument>(comm_size > 0 && volume.size() == P * P,
                                            "volume matrix must be P x P", "volume.size()",
                                            volume.size());
  index_t top = 0;
  for (std::size_t k = 0; k < volume.size(); ++k) {
    if (volume[k] < 0)
      throw invalid_argument(redist::describe("volumes must be non-negative",
                                              "volume[" + std::to_string(k) + "]", volume[k]));
    top = std::max(top, volume[k]);
  }
  return top;
}

/// The permutation perm (perm[role] = rank) maximising sum_r volume[perm[r] * P + r].
inline std::vector<int> best_relabeling_dense_ssp(const std::vector<index_t>& volume,
                                                  int comm_size) {
  const index_t top = checked_volume(volume, comm_size);
  // Cost top - volume: a min-cost assignment is a max-volume one.
  std::vector<index_t> cost(volume.size());
  for (std::size_t k = 0; k < volume.size(); ++k) cost[k] = top - volume[k];
  return min_cost_assignment(cost, static_cast<std::size_t>(comm_size));
}

/// The fewest elements between nodes, then within: exact while weight * all fits 64 bits,
/// else exact between nodes only (each node then keeps the most local among its roles).
inline std::vector<int> best_node_relabeling_dense_ssp(const std::vector<index_t>& volume,
                                                       const std::vector<int>& node_of_rank) {
  const int comm_size = static_cast<int>(node_of_rank.size());
  redist::detail::require<invalid_argument>(comm_size > 0, "one node per rank is needed",
                                            "node_of_rank.size()", node_of_rank.size());
  (void)checked_volume(volume, comm_size);
  const auto P = static_cast<std::size_t>(comm_size);
  // Nodes numbered 0..N-1; held[n * P + r]: the elements of role r on node n.
  std::vector<int> nodes(node_of_rank);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<std::size_t> node(P);
  for (std::size_t s = 0; s < P; ++s)
    node[s] = static_cast<std::size_t>(
        std::lower_bound(nodes.begin(), nodes.end(), node_of_rank[s]) - nodes.begin());
  std::vector<index_t> held(nodes.size() * P, 0), total(P, 0);
  index_t all = 0;
  for (std::size_t s = 0; s < P; ++s)
    for (std::size_t r = 0; r < P; ++r) {
      held[node[s] * P + r] += volume[s * P + r];
      total[r] += volume[s * P + r];
      all += volume[s * P + r];
    }
  // cost = weight * inter + intra with weight > any sum of intra costs; the flow's path
  // lengths reach (2P + 2) times the largest cost, weight * all + all.
  const index_t weight = all + 1;
  const index_t bound = std::numeric_limits<index_t>::max() / static_cast<index_t>(2 * P + 2);
  const bool exact = all == 0 || (all < bound && weight <= (bound - all) / all);
  std::vector<index_t> cost(P * P);
  if (exact) {
    for (std::size_t s = 0; s < P; ++s)
      for (std::size_t r = 0; r < P; ++r) {
        const index_t inter = total[r] - held[node[s] * P + r];
        const index_t intra = held[node[s] * P + r] - volume[s * P + r];
        cost[s * P + r] = weight * inter + intra;
      }
    return min_cost_assignment(cost, P);
  }
  // Roles to nodes (every rank of a node costs the same), then within each node.
  for (std::size_t s = 0; s < P; ++s)
    for (std::size_t r = 0; r < P; ++r) cost[s * P + r] = total[r] - held[node[s] * P + r];
  std::vector<int> perm = min_cost_assignment(cost, P);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    std::vector<std::size_t> ranks, roles;
    for (std::size_t s = 0; s < P; ++s)
      if (node[s] == n) ranks.push_back(s);
    for (std::size_t r = 0; r < P; ++r)
      if (node[static_cast<std::size_t>(perm[r])] == n) roles.push_back(r);
    const std::size_t k = ranks.size();
    std::vector<index_t> keep(k * k);
    index_t top = 0;
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = 0; b < k; ++b) top = std::max(top, volume[ranks[a] * P + roles[b]]);
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = 0; b < k; ++b) keep[a * k + b] = top - volume[ranks[a] * P + roles[b]];
    const std::vector<int> local = min_cost_assignment(keep, k);
    for (std::size_t b = 0; b < k; ++b)
      perm[roles[b]] = static_cast<int>(ranks[static_cast<std::size_t>(local[b])]);
  }
  return perm;
}

}  // namespace redist::test
