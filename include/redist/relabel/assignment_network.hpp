#pragma once
/// @file relabel/assignment_network.hpp
/// The unit-capacity assignment networks the relabelings solve (relabel.hpp), and the one
/// place that talks to LEMON: its network simplex, the optimal face of a first flow, and
/// the permutation a flow makes.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include <redist/error.hpp>
#include <redist/index.hpp>

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

namespace redist::detail {

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

}  // namespace redist::detail
