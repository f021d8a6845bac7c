#pragma once
/// @file relabel.hpp
/// Process relabeling (beyond the papers): a target distribution says which *role* owns
/// each target tile; any permutation of ranks over roles gives an equally balanced
/// layout, and the best one keeps the most data where it already is. Choosing it is an
/// assignment problem on the P x P transfer-volume matrix, solved exactly as a min-cost
/// flow with Boost.Graph (successive shortest paths), O(P^3 log P).
///
///   auto perm = best_relabeling(transfer_volumes(src, dst, region, P), P);
///   Layout dst2{dst.shape(), Relabeled{dst.distribution(), perm}};   // moves the least
///
/// Only the target side changes; the caller's consumer must then see role r on rank
/// perm[r] (e.g. by computing on `Relabeled` layouts throughout).
///
/// On several nodes a byte that crosses a node's link costs more than one that stays on
/// the node: the two link classes of Cao et al. 2020 (Sec. 4). best_node_relabeling
/// minimises the bytes between nodes first and the bytes between ranks of one node
/// second; split_transfers says how a permutation splits the volume into the three.
///
/// Opt-in (not in redist.hpp): the min-cost flow is the most expensive code of the library
/// to compile. `Relabeled` itself is a plain distribution (distributions/relabeled.hpp).

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>

#include <redist/distribution.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/error.hpp>
#include <redist/plan/reference_plan.hpp>

namespace redist {

/// volume[s * P + r]: elements of the region that source rank s holds and target role r
/// owns. Plans every one of the P roles: O(all segments of the region), once.
template <class SrcLayout, class DstLayout>
std::vector<index_t> transfer_volumes(const SrcLayout& src, const DstLayout& dst,
                                      const Region& region, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  std::vector<index_t> volume(P * P, 0);
  for (int r = 0; r < comm_size; ++r) {
    const ReferencePlan plan = make_reference_plan(src, dst, region, r, comm_size);
    for (const PlannedSegment& ps : plan.recv.segments)
      volume[static_cast<std::size_t>(ps.peer) * P + static_cast<std::size_t>(r)] +=
          ps.segment.extent.size();
    volume[static_cast<std::size_t>(r) * P + static_cast<std::size_t>(r)] +=
        plan.stats.elements_local;
  }
  return volume;
}

namespace detail {

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
  require<invalid_argument>(comm_size > 0 && volume.size() == P * P, "volume matrix must be P x P",
                            "volume.size()", volume.size());
  index_t top = 0;
  for (std::size_t k = 0; k < volume.size(); ++k) {
    if (volume[k] < 0)
      throw invalid_argument(
          describe("volumes must be non-negative", "volume[" + std::to_string(k) + "]", volume[k]));
    top = std::max(top, volume[k]);
  }
  return top;
}

}  // namespace detail

/// The permutation perm (perm[role] = rank) maximising sum_r volume[perm[r] * P + r],
/// the elements that stay on their rank.
/// @throws invalid_argument if volume is not P x P or holds a negative entry.
inline std::vector<int> best_relabeling(const std::vector<index_t>& volume, int comm_size) {
  const index_t top = detail::checked_volume(volume, comm_size);
  // Cost top - volume: a min-cost assignment is a max-volume one.
  std::vector<index_t> cost(volume.size());
  for (std::size_t k = 0; k < volume.size(); ++k) cost[k] = top - volume[k];
  return detail::min_cost_assignment(cost, static_cast<std::size_t>(comm_size));
}

/// How a permutation splits a volume matrix: elements that cross nodes, that move between
/// two ranks of one node, and that stay on their rank.
struct TransferSplit {
  index_t inter_node = 0;
  index_t intra_node = 0;
  index_t local = 0;
  friend bool operator==(const TransferSplit&, const TransferSplit&) = default;
};

/// The split of `volume` when role r is played by rank perm[r] and rank s is on node
/// node_of_rank[s].
/// @throws invalid_argument if the sizes disagree or perm holds a rank out of range.
inline TransferSplit split_transfers(const std::vector<index_t>& volume,
                                     const std::vector<int>& perm,
                                     const std::vector<int>& node_of_rank) {
  const auto P = perm.size();
  detail::require<invalid_argument>(volume.size() == P * P, "volume matrix must be P x P",
                                    "volume.size()", volume.size());
  detail::require<invalid_argument>(node_of_rank.size() == P, "one node per rank is needed",
                                    "node_of_rank.size()", node_of_rank.size());
  TransferSplit out;
  for (std::size_t r = 0; r < P; ++r) {
    const int rank = perm[r];
    detail::require<invalid_argument>(rank >= 0 && static_cast<std::size_t>(rank) < P,
                                      "perm must hold ranks in [0, P)",
                                      "perm[" + std::to_string(r) + "]", rank);
    for (std::size_t s = 0; s < P; ++s) {
      const index_t v = volume[s * P + r];
      if (s == static_cast<std::size_t>(rank))
        out.local += v;
      else if (node_of_rank[s] == node_of_rank[static_cast<std::size_t>(rank)])
        out.intra_node += v;
      else
        out.inter_node += v;
    }
  }
  return out;
}

/// The permutation perm (perm[role] = rank) that moves the fewest elements between nodes
/// and, among those, the fewest between ranks of one node (so it keeps the most local);
/// rank s is on node node_of_rank[s] (any integers: equal means one node). With one node
/// per rank, or all ranks on one node, this is best_relabeling.
///
/// Both orders are exact as one assignment whose cost weighs an element between nodes
/// above all the elements within nodes together, while those weights fit 64 bits: regions
/// up to about 2.6 * 10^8 elements at 64 ranks, 6.7 * 10^7 at 1024. Beyond that the
/// elements between nodes stay exact (roles assigned to nodes first) and each node then
/// keeps the most local among the roles it got: a best-effort second order.
/// @throws invalid_argument if volume is not P x P, holds a negative entry, or
/// node_of_rank does not have P entries.
inline std::vector<int> best_node_relabeling(const std::vector<index_t>& volume,
                                             const std::vector<int>& node_of_rank) {
  const int comm_size = static_cast<int>(node_of_rank.size());
  detail::require<invalid_argument>(comm_size > 0, "one node per rank is needed",
                                    "node_of_rank.size()", node_of_rank.size());
  (void)detail::checked_volume(volume, comm_size);
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
    return detail::min_cost_assignment(cost, P);
  }
  // Roles to nodes (every rank of a node costs the same), then within each node.
  for (std::size_t s = 0; s < P; ++s)
    for (std::size_t r = 0; r < P; ++r) cost[s * P + r] = total[r] - held[node[s] * P + r];
  std::vector<int> perm = detail::min_cost_assignment(cost, P);
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
    const std::vector<int> local = detail::min_cost_assignment(keep, k);
    for (std::size_t b = 0; b < k; ++b)
      perm[roles[b]] = static_cast<int>(ranks[static_cast<std::size_t>(local[b])]);
  }
  return perm;
}

}  // namespace redist
