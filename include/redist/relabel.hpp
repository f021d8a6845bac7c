#pragma once
/// @file relabel.hpp
/// Process relabeling (beyond the papers): a target distribution says which *role* owns
/// each target tile; any permutation of ranks over roles gives an equally balanced
/// layout, and the best one keeps the most data where it already is. Choosing it is an
/// assignment problem on the P x P transfer-volume matrix, solved exactly as a min-cost
/// flow on the matrix's non-zero entries only (LEMON's NetworkSimplex):
///
///   rank s --(-volume[s][r])--> role r        one arc per non-zero entry
///   rank s --(0)--> hub --(0)--> role r       2P arcs that admit every permutation
///
/// Every permutation is a flow of cost minus the elements it keeps (a pair with no volume
/// goes through the hub at cost 0), and every flow pairs ranks with roles keeping at
/// least minus its cost, so a min-cost flow is a best permutation. Cost: the network has
/// nnz + 2P arcs, about 100 bytes each; on one core 1024 ranks with 8 roles a rank take
/// 2 ms, 65536 with 64 6 s (node-aware 14 s) and the dense 4096 x 4096 matrix 7 s
/// (bench/README.md, "Relabeling at scale"; the dense Boost.Graph solver before took 18 s
/// at 1024).
///
///   auto perm = best_relabeling(transfer_volumes(src, dst, region, P), P);
///   Layout dst2{dst.shape(), Relabeled{dst.distribution(), perm}};   // moves the least
///
/// At scale each rank computes its own row (volume_row: one plan, its own), the rows are
/// gathered and the assignment solved once (collective/relabel.hpp does both).
///
/// Only the target side changes; the caller's consumer must then see role r on rank
/// perm[r] (e.g. by computing on `Relabeled` layouts throughout).
///
/// On several nodes a byte that crosses a node's link costs more than one that stays on
/// the node: the two link classes of Cao et al. 2020 (Sec. 4). best_node_relabeling
/// minimises the elements between nodes first and the elements between ranks of one node
/// second, exactly, in two min-cost flows on one network (see there); split_transfers
/// says how a permutation splits the volume into the three.
///
/// Opt-in (not in redist.hpp): it needs LEMON (header-only in this use; Debian
/// liblemon-dev). `Relabeled` itself is a plain distribution (distributions/relabeled.hpp).

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/error.hpp>
#include <redist/plan.hpp>
#include <redist/relabel/assignment_network.hpp>
#include <redist/relabel/volumes.hpp>

namespace redist {

namespace detail {

/// The flat assignment: rank -> role arcs of cost -volume, rank -> hub -> role at cost 0.
inline std::vector<int> flat_assignment(const SparseVolumes& v) {
  const auto P = static_cast<std::size_t>(v.ranks());
  AssignmentNetwork net(P, 1, v.entries.size() + 2 * P);
  const std::size_t hub = 2 * P;
  std::vector<index_t> cost(v.entries.size() + 2 * P, 0);
  index_t largest = 0;
  for (std::size_t s = 0; s < P; ++s)
    for (const VolumeEntry& e : v.row(static_cast<int>(s))) {
      cost[net.add_arc(s, P + static_cast<std::size_t>(e.role), 1)] = -e.elements;
      largest = std::max(largest, e.elements);
    }
  require<invalid_argument>(largest <= cost_limit(net.nodes()),
                            "volumes too large for the assignment's 64-bit potentials",
                            "largest volume", largest);
  for (std::size_t s = 0; s < P; ++s) net.add_arc(s, hub, 1);
  for (std::size_t r = 0; r < P; ++r) net.add_arc(hub, P + r, 1);
  return assignment_of(net, min_cost_flow(net, cost).flow);
}

}  // namespace detail

/// The permutation perm (perm[role] = rank) maximising sum_r volume(perm[r], r), the
/// elements that stay on their rank. Exact; O(nnz + P) memory, time that of a network
/// simplex on nnz + 2P arcs (bench/README.md, "Relabeling at scale").
/// @throws invalid_argument for no rank, a role outside [0, P), a negative entry, or an
/// entry above 2^60 / (2P + 3) elements.
inline std::vector<int> best_relabeling(const SparseVolumes& volumes) {
  SparseVolumes copy;
  return detail::flat_assignment(detail::normalized(volumes, copy));
}

/// best_relabeling on a dense matrix: volume[s * P + r], its non-zero entries.
/// @throws invalid_argument if volume is not P x P or holds a negative entry.
inline std::vector<int> best_relabeling(const std::vector<index_t>& volume, int comm_size) {
  return best_relabeling(sparse_volumes(volume, comm_size));
}

/// How a permutation splits a volume matrix: elements that cross nodes, that move between
/// two ranks of one node, and that stay on their rank.
struct TransferSplit {
  index_t inter_node = 0;
  index_t intra_node = 0;
  index_t local = 0;
  friend bool operator==(const TransferSplit&, const TransferSplit&) = default;
};

/// The split of `volumes` when role r is played by rank perm[r] and rank s is on node
/// node_of_rank[s].
/// @throws invalid_argument if the sizes disagree, perm holds a rank out of range, or the
/// volumes are bad (as best_relabeling).
inline TransferSplit split_transfers(const SparseVolumes& volumes, const std::vector<int>& perm,
                                     const std::vector<int>& node_of_rank) {
  const auto P = perm.size();
  detail::require<invalid_argument>(static_cast<std::size_t>(volumes.ranks()) == P,
                                    "volume matrix must be P x P", "volumes.ranks()",
                                    volumes.ranks());
  detail::require<invalid_argument>(node_of_rank.size() == P, "one node per rank is needed",
                                    "node_of_rank.size()", node_of_rank.size());
  std::vector<int> rank_of_role(P);
  for (std::size_t r = 0; r < P; ++r) {
    const int rank = perm[r];
    detail::require<invalid_argument>(rank >= 0 && static_cast<std::size_t>(rank) < P,
                                      "perm must hold ranks in [0, P)",
                                      "perm[" + std::to_string(r) + "]", rank);
    rank_of_role[r] = rank;
  }
  SparseVolumes copy;
  const SparseVolumes& v = detail::normalized(volumes, copy);
  TransferSplit out;
  for (std::size_t s = 0; s < P; ++s)
    for (const VolumeEntry& e : v.row(static_cast<int>(s))) {
      const auto rank = static_cast<std::size_t>(rank_of_role[static_cast<std::size_t>(e.role)]);
      if (s == rank)
        out.local += e.elements;
      else if (node_of_rank[s] == node_of_rank[rank])
        out.intra_node += e.elements;
      else
        out.inter_node += e.elements;
    }
  return out;
}

/// split_transfers on a dense matrix: volume[s * P + r], with P = perm.size().
inline TransferSplit split_transfers(const std::vector<index_t>& volume,
                                     const std::vector<int>& perm,
                                     const std::vector<int>& node_of_rank) {
  const auto P = perm.size();
  detail::require<invalid_argument>(volume.size() == P * P, "volume matrix must be P x P",
                                    "volume.size()", volume.size());
  return split_transfers(sparse_volumes(volume, static_cast<int>(P)), perm, node_of_rank);
}

namespace detail {

/// The node-aware assignment (best_node_relabeling). Network, with held(n, r) the
/// elements of role r on node n's ranks and a transit node per node:
///
///   rank s --> role r         cost (-held(node(s), r), -volume(s, r))  per non-zero volume
///   rank s --> node(s)        0                                        one per rank
///   node n --> role r         (-held(n, r), 0)                         per non-zero held
///   node n --> hub --> role   0
///
/// A permutation is a flow whose first cost is minus the elements kept on their node and
/// whose second is minus those kept on their rank (pairs with volume use their arc, pairs
/// with only held use their node's, the rest the hub); any flow pairs ranks with roles
/// keeping at least that much of each. The lexicographic minimum: the first flow gives
/// potentials, arcs are fixed where its reduced cost says every optimum agrees
/// (optimal_face), and the second cost is minimised on what is left. Costs stay
/// within one role's elements: no weights, no overflow.
inline std::vector<int> node_assignment(const SparseVolumes& v,
                                        const std::vector<std::size_t>& node, std::size_t nodes) {
  const auto P = static_cast<std::size_t>(v.ranks());
  // Entries below the limit first, so that no sum of P of them overflows.
  const std::size_t graph_nodes = 2 * P + nodes + 1;
  for (const VolumeEntry& e : v.entries)
    require<invalid_argument>(e.elements <= cost_limit(graph_nodes),
                              "volumes too large for the assignment's 64-bit potentials",
                              "largest volume", e.elements);
  // held(n, r) for each node: its ranks' entries merged by role.
  std::vector<std::vector<std::size_t>> ranks_of(nodes);
  for (std::size_t s = 0; s < P; ++s) ranks_of[node[s]].push_back(s);
  std::vector<std::vector<VolumeEntry>> held(nodes);
  std::vector<VolumeEntry> all;
  for (std::size_t n = 0; n < nodes; ++n) {
    all.clear();
    for (const std::size_t s : ranks_of[n]) {
      const auto row = v.row(static_cast<int>(s));
      all.insert(all.end(), row.begin(), row.end());
    }
    std::sort(all.begin(), all.end(),
              [](const VolumeEntry& a, const VolumeEntry& b) { return a.role < b.role; });
    for (const VolumeEntry& e : all)
      if (!held[n].empty() && held[n].back().role == e.role)
        held[n].back().elements += e.elements;
      else
        held[n].push_back(e);
  }
  index_t largest = 0;
  std::size_t held_entries = 0;
  for (const auto& h : held) {
    held_entries += h.size();
    for (const VolumeEntry& e : h) largest = std::max(largest, e.elements);
  }

  const std::size_t arcs = v.entries.size() + P + held_entries + nodes + P;
  AssignmentNetwork net(P, nodes + 1, arcs);
  // Transit nodes: node n is 2P + n, the hub 2P + nodes (after the nodes that feed it).
  const auto transit = [&](std::size_t n) { return 2 * P + n; };
  const std::size_t hub = 2 * P + nodes;
  require<invalid_argument>(largest <= cost_limit(graph_nodes),
                            "volumes too large for the assignment's 64-bit potentials",
                            "largest elements of one role on one node", largest);
  std::vector<index_t> first(arcs, 0), second(arcs, 0);
  // held(n, r) of rank s's node for each of its entries: a walk along both sorted lists.
  for (std::size_t s = 0; s < P; ++s) {
    const auto& h = held[node[s]];
    auto it = h.begin();
    for (const VolumeEntry& e : v.row(static_cast<int>(s))) {
      while (it->role < e.role) ++it;
      const std::size_t a = net.add_arc(s, P + static_cast<std::size_t>(e.role), 1);
      first[a] = -it->elements;
      second[a] = -e.elements;
    }
  }
  for (std::size_t s = 0; s < P; ++s) net.add_arc(s, transit(node[s]), 1);
  for (std::size_t n = 0; n < nodes; ++n) {
    for (const VolumeEntry& e : held[n]) {
      const std::size_t a = net.add_arc(transit(n), P + static_cast<std::size_t>(e.role), 1);
      first[a] = -e.elements;
    }
    net.add_arc(transit(n), hub, static_cast<int>(ranks_of[n].size()));
  }
  for (std::size_t r = 0; r < P; ++r) net.add_arc(hub, P + r, 1);

  std::vector<index_t> face_cost;
  const AssignmentNetwork face =
      optimal_face(net, first, min_cost_flow(net, first), second, face_cost);
  return assignment_of(face, min_cost_flow(face, face_cost).flow);
}

}  // namespace detail

/// The permutation perm (perm[role] = rank) that moves the fewest elements between nodes
/// and, among those, the fewest between ranks of one node (so it keeps the most local);
/// rank s is on node node_of_rank[s] (any integers: equal means one node). With one node
/// per rank, or all ranks on one node, this is best_relabeling. Exact in both orders;
/// two network simplex runs on nnz + (non-zero (node, role) pairs) + 3P arcs.
/// @throws invalid_argument for bad volumes (as best_relabeling), or if node_of_rank does
/// not have P entries.
inline std::vector<int> best_node_relabeling(const SparseVolumes& volumes,
                                             const std::vector<int>& node_of_rank) {
  const auto P = node_of_rank.size();
  detail::require<invalid_argument>(P > 0, "one node per rank is needed", "node_of_rank.size()", P);
  detail::require<invalid_argument>(static_cast<std::size_t>(volumes.ranks()) == P,
                                    "volumes and node_of_rank must have one row per rank",
                                    "volumes.ranks()", volumes.ranks());
  SparseVolumes copy;
  const SparseVolumes& v = detail::normalized(volumes, copy);
  // Nodes numbered 0..N-1.
  std::vector<int> names(node_of_rank);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.size() == 1 || names.size() == P) return detail::flat_assignment(v);
  std::vector<std::size_t> node(P);
  for (std::size_t s = 0; s < P; ++s)
    node[s] = static_cast<std::size_t>(
        std::lower_bound(names.begin(), names.end(), node_of_rank[s]) - names.begin());
  return detail::node_assignment(v, node, names.size());
}

/// best_node_relabeling on a dense matrix: volume[s * P + r], its non-zero entries.
/// @throws invalid_argument if volume is not P x P, holds a negative entry, or
/// node_of_rank does not have P entries.
inline std::vector<int> best_node_relabeling(const std::vector<index_t>& volume,
                                             const std::vector<int>& node_of_rank) {
  const auto P = node_of_rank.size();
  detail::require<invalid_argument>(P > 0, "one node per rank is needed", "node_of_rank.size()", P);
  return best_node_relabeling(sparse_volumes(volume, static_cast<int>(P)), node_of_rank);
}

}  // namespace redist
