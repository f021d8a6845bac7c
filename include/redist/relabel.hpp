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

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

namespace redist {

/// `elements` of the region that a source rank holds and target role `role` owns: one
/// entry of that rank's row of the volume matrix.
struct VolumeEntry {
  int role = 0;
  index_t elements = 0;
  friend bool operator==(const VolumeEntry&, const VolumeEntry&) = default;
};

/// The P x P volume matrix by source rank, non-zero entries only (compressed rows):
/// row(s) is what rank s holds of each target role. Rows may list a role twice (the
/// solvers add them up) and in any order.
struct SparseVolumes {
  std::vector<std::size_t> row_begin{0};  ///< ranks() + 1 offsets into entries
  std::vector<VolumeEntry> entries;

  int ranks() const { return static_cast<int>(row_begin.size()) - 1; }
  std::span<const VolumeEntry> row(int s) const {
    const auto k = static_cast<std::size_t>(s);
    return {entries.data() + row_begin[k], row_begin[k + 1] - row_begin[k]};
  }
  /// Appends the row of rank ranks().
  void add_row(std::span<const VolumeEntry> row) {
    entries.insert(entries.end(), row.begin(), row.end());
    row_begin.push_back(entries.size());
  }
};

/// The row of the volume matrix of the rank whose plan is `plan`: the elements of the
/// region it holds of each target role, sorted by role, zeros left out. O(messages log
/// messages).
/// @post row[k].role < row[k + 1].role and row[k].elements > 0
inline std::vector<VolumeEntry> volume_row(const Plan& plan) {
  std::vector<VolumeEntry> row;
  row.reserve(plan.send.messages.size() + 1);
  for (const Message& m : plan.send.messages) row.push_back({m.peer, m.elements});
  row.push_back({plan.rank, plan.stats.elements_local});
  std::sort(row.begin(), row.end(),
            [](const VolumeEntry& a, const VolumeEntry& b) { return a.role < b.role; });
  std::vector<VolumeEntry> merged;  // one entry per role (a message per batch before)
  for (const VolumeEntry& e : row) {
    if (e.elements == 0) continue;
    if (!merged.empty() && merged.back().role == e.role)
      merged.back().elements += e.elements;
    else
      merged.push_back(e);
  }
  return merged;
}

/// Rank `rank`'s row of the volume matrix (volume_row of its plan). Plans this rank only
/// (make_plan).
/// @throws what make_plan throws.
template <class SrcLayout, class DstLayout>
std::vector<VolumeEntry> volume_row(const SrcLayout& src, const DstLayout& dst,
                                    const Region& region, int rank, int comm_size) {
  return volume_row(make_plan(src, dst, region, rank, comm_size));
}

/// volume[s * P + r]: elements of the region that source rank s holds and target role r
/// owns; row s is volume_row(src, dst, region, s, P). Plans all P ranks: O(P) plans and
/// P^2 memory, for one process; at scale use volume_row on each rank.
template <class SrcLayout, class DstLayout>
std::vector<index_t> transfer_volumes(const SrcLayout& src, const DstLayout& dst,
                                      const Region& region, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  std::vector<index_t> volume(P * P, 0);
  for (int s = 0; s < comm_size; ++s)
    for (const VolumeEntry& e : volume_row(src, dst, region, s, comm_size))
      volume[static_cast<std::size_t>(s) * P + static_cast<std::size_t>(e.role)] = e.elements;
  return volume;
}

/// The non-zero entries of a dense P x P volume matrix (volume[s * P + r]).
/// @throws invalid_argument if volume is not P x P or holds a negative entry.
inline SparseVolumes sparse_volumes(const std::vector<index_t>& volume, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  detail::require<invalid_argument>(comm_size > 0 && volume.size() == P * P,
                                    "volume matrix must be P x P", "volume.size()", volume.size());
  SparseVolumes out;
  out.row_begin.reserve(P + 1);
  for (std::size_t s = 0; s < P; ++s) {
    for (std::size_t r = 0; r < P; ++r) {
      const index_t v = volume[s * P + r];
      if (v < 0)
        throw invalid_argument(describe("volumes must be non-negative",
                                        "volume[" + std::to_string(s * P + r) + "]", v));
      if (v > 0) out.entries.push_back({static_cast<int>(r), v});
    }
    out.row_begin.push_back(out.entries.size());
  }
  return out;
}

namespace detail {

/// The largest volume entry the solvers take; sums of a few such entries fit 64 bits.
inline constexpr index_t most_elements = index_t{1} << 60;

/// Checks sparse volumes; returns them as given when each row is sorted by role with one
/// entry per role and no zeros (volume_row's and sparse_volumes' rows), else such a copy,
/// made in `copy`.
/// @throws invalid_argument for no rank, a role outside [0, P), or an entry (or the sum of
/// one role's entries in a row) outside [0, 2^60].
inline const SparseVolumes& normalized(const SparseVolumes& volumes, SparseVolumes& copy) {
  const int P = volumes.ranks();
  require<invalid_argument>(
      P > 0 && volumes.row_begin.front() == 0 && volumes.row_begin.back() == volumes.entries.size(),
      "sparse volumes need at least one row and row_begin ending at entries.size()",
      "volumes.row_begin.size()", volumes.row_begin.size());
  bool ready = true;
  for (int s = 0; s < P; ++s) {
    const auto row = volumes.row(s);
    for (std::size_t k = 0; k < row.size(); ++k) {
      const VolumeEntry& e = row[k];
      if (e.role < 0 || e.role >= P || e.elements < 0 || e.elements > most_elements) {
        const std::string name =
            "volumes.row(" + std::to_string(s) + ")[" + std::to_string(k) + "]";
        require<invalid_argument>(e.role >= 0 && e.role < P, "roles must be in [0, P)",
                                  name + ".role", e.role);
        throw invalid_argument(
            describe("volumes must be in [0, 2^60]", name + ".elements", e.elements));
      }
      ready = ready && e.elements > 0 && (k == 0 || row[k - 1].role < e.role);
    }
  }
  if (ready) return volumes;
  copy = SparseVolumes{};
  copy.row_begin.reserve(volumes.row_begin.size());
  copy.entries.reserve(volumes.entries.size());
  std::vector<VolumeEntry> row;
  for (int s = 0; s < P; ++s) {
    const auto given = volumes.row(s);
    row.assign(given.begin(), given.end());
    std::sort(row.begin(), row.end(),
              [](const VolumeEntry& a, const VolumeEntry& b) { return a.role < b.role; });
    for (const VolumeEntry& e : row) {
      if (e.elements == 0) continue;
      if (copy.entries.size() == copy.row_begin.back() || copy.entries.back().role != e.role) {
        copy.entries.push_back(e);
        continue;
      }
      index_t& sum = copy.entries.back().elements;
      require<invalid_argument>(
          e.elements <= most_elements - sum, "volumes must be in [0, 2^60]",
          "volumes.row(" + std::to_string(s) + ") sum for role " + std::to_string(e.role),
          static_cast<double>(sum) + static_cast<double>(e.elements));
      sum += e.elements;
    }
    copy.row_begin.push_back(copy.entries.size());
  }
  return copy;
}

/// The largest cost magnitude NetworkSimplex can take on a network of `nodes` nodes: its
/// potentials are path costs of at most `nodes` arcs beside an artificial cost of
/// 2^62, and reduced costs are differences of two of them.
inline index_t cost_limit(std::size_t nodes) {
  return (index_t{1} << 60) / static_cast<index_t>(nodes + 2);
}

/// A unit-capacity assignment network for LEMON: nodes 0..P-1 are ranks (supply 1),
/// P..2P-1 roles (demand 1), any further node is a transit node. Arcs are numbered in the
/// order they are added (SmartDigraph ids).
struct AssignmentNetwork {
  explicit AssignmentNetwork(std::size_t ranks, std::size_t transit, std::size_t arcs)
      : P(ranks), graph(std::make_unique<lemon::SmartDigraph>()) {
    graph->reserveNode(static_cast<int>(2 * P + transit));
    graph->reserveArc(static_cast<int>(arcs));
    for (std::size_t k = 0; k < 2 * P + transit; ++k) graph->addNode();
    upper.reserve(arcs);
  }
  std::size_t add_arc(std::size_t u, std::size_t v, int capacity) {
    graph->addArc(graph->nodeFromId(static_cast<int>(u)), graph->nodeFromId(static_cast<int>(v)));
    upper.push_back(capacity);
    return upper.size() - 1;
  }
  std::size_t arcs() const { return upper.size(); }
  std::size_t tail(std::size_t a) const { return end(a, true); }
  std::size_t head(std::size_t a) const { return end(a, false); }
  std::size_t nodes() const { return static_cast<std::size_t>(graph->nodeNum()); }

  std::size_t P;
  std::unique_ptr<lemon::SmartDigraph> graph;  ///< held by pointer: SmartDigraph cannot move
  std::vector<int> upper;
  std::vector<int> lower;  ///< empty: all 0

 private:
  std::size_t end(std::size_t a, bool source) const {
    const auto arc = graph->arcFromId(static_cast<int>(a));
    return static_cast<std::size_t>(graph->id(source ? graph->source(arc) : graph->target(arc)));
  }
};

/// The flow per arc and the potential per node of a min-cost flow on `net` under `cost`
/// (per arc id); reduced cost of arc a: cost[a] + potential[tail] - potential[head].
struct AssignmentFlow {
  std::vector<int> flow;
  std::vector<index_t> potential;
};

/// @pre |cost| <= cost_limit(net.nodes()); every permutation is a feasible flow.
inline AssignmentFlow min_cost_flow(const AssignmentNetwork& net,
                                    const std::vector<index_t>& cost) {
  using Graph = lemon::SmartDigraph;
  const Graph& g = *net.graph;
  Graph::ArcMap<index_t> c(g);
  Graph::ArcMap<int> up(g), lo(g, 0);
  for (std::size_t a = 0; a < net.arcs(); ++a) {
    const Graph::Arc arc = g.arcFromId(static_cast<int>(a));
    c[arc] = cost[a];
    up[arc] = net.upper[a];
    if (!net.lower.empty()) lo[arc] = net.lower[a];
  }
  Graph::NodeMap<int> supply(g, 0);
  for (std::size_t k = 0; k < net.P; ++k) {
    supply[g.nodeFromId(static_cast<int>(k))] = 1;
    supply[g.nodeFromId(static_cast<int>(net.P + k))] = -1;
  }
  lemon::NetworkSimplex<Graph, int, index_t> simplex(g);
  simplex.costMap(c).upperMap(up).supplyMap(supply);
  if (!net.lower.empty()) simplex.lowerMap(lo);
  if (simplex.run() != lemon::NetworkSimplex<Graph, int, index_t>::OPTIMAL)
    throw error("redist: relabeling: the assignment flow has no optimum (a bug in redist)");
  AssignmentFlow out;
  out.flow.resize(net.arcs());
  for (std::size_t a = 0; a < net.arcs(); ++a)
    out.flow[a] = simplex.flow(g.arcFromId(static_cast<int>(a)));
  out.potential.resize(net.nodes());
  for (std::size_t u = 0; u < net.nodes(); ++u)
    out.potential[u] = simplex.potential(g.nodeFromId(static_cast<int>(u)));
  return out;
}

/// The network of the flows of `net` that are optimal under `cost`, given an optimal
/// `flow` and its potentials, with costs `next` per arc of `net` moved to `next_cost`. By
/// complementary slackness an arc of positive reduced cost carries its lower bound (0) in
/// every optimal flow: it is left out; one of negative reduced cost carries its upper
/// bound: its lower bound is set to it. Most arcs are left out, which a network simplex
/// scans at every pivot otherwise.
inline AssignmentNetwork optimal_face(const AssignmentNetwork& net,
                                      const std::vector<index_t>& cost, const AssignmentFlow& flow,
                                      const std::vector<index_t>& next,
                                      std::vector<index_t>& next_cost) {
  std::vector<index_t> reduced(net.arcs());
  std::size_t kept = 0;
  for (std::size_t a = 0; a < net.arcs(); ++a) {
    reduced[a] = cost[a] + flow.potential[net.tail(a)] - flow.potential[net.head(a)];
    kept += reduced[a] <= 0 && net.upper[a] > 0;
  }
  AssignmentNetwork out(net.P, net.nodes() - 2 * net.P, kept);
  out.lower.reserve(kept);
  next_cost.clear();
  next_cost.reserve(kept);
  for (std::size_t a = 0; a < net.arcs(); ++a) {
    if (reduced[a] > 0 || net.upper[a] == 0) continue;
    out.add_arc(net.tail(a), net.head(a), net.upper[a]);
    out.lower.push_back(reduced[a] < 0 ? net.upper[a] : 0);
    next_cost.push_back(next[a]);
  }
  return out;
}

/// perm (perm[role] = rank) from a flow: a rank and a role joined by an arc of flow 1 pair
/// up; the rest of the ranks that enter each transit node pair with the roles that leave
/// it, those that leave to another transit node move on with it (transit nodes in
/// order, each feeding only later ones).
inline std::vector<int> assignment_of(const AssignmentNetwork& net, const std::vector<int>& flow) {
  const std::size_t P = net.P, transit = net.nodes() - 2 * P;
  std::vector<int> perm(P, -1);
  std::vector<std::vector<int>> waiting(transit);           // ranks that entered transit node t
  std::vector<std::vector<std::size_t>> leaving(transit);   // roles that leave it
  std::vector<std::pair<std::size_t, std::size_t>> onward;  // (from, to) transit, per unit
  for (std::size_t a = 0; a < net.arcs(); ++a)
    for (int unit = 0; unit < flow[a]; ++unit) {
      const std::size_t u = net.tail(a), v = net.head(a);
      if (u < P && v < 2 * P)
        perm[v - P] = static_cast<int>(u);
      else if (u < P)
        waiting[v - 2 * P].push_back(static_cast<int>(u));
      else if (v < 2 * P)
        leaving[u - 2 * P].push_back(v - P);
      else
        onward.emplace_back(u - 2 * P, v - 2 * P);
    }
  std::sort(onward.begin(), onward.end());
  auto next = onward.begin();
  for (std::size_t t = 0; t < transit; ++t) {
    auto& ranks = waiting[t];
    for (std::size_t k = 0; k < leaving[t].size(); ++k) perm[leaving[t][k]] = ranks[k];
    std::size_t k = leaving[t].size();
    for (; next != onward.end() && next->first == t; ++next)
      waiting[next->second].push_back(ranks[k++]);
  }
  return perm;
}

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
