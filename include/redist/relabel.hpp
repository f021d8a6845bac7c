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
/// Opt-in (not in redist.hpp): the min-cost flow is the most expensive code of the library
/// to compile. `Relabeled` itself is a plain distribution (distributions/relabeled.hpp).

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>

#include <redist/distribution.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/error.hpp>
#include <redist/plan.hpp>

namespace redist {

/// volume[s * P + r]: elements of the region that source rank s holds and target role r
/// owns. Plans every one of the P roles: O(all segments of the region), once.
template <class SrcLayout, class DstLayout>
std::vector<index_t> transfer_volumes(const SrcLayout& src, const DstLayout& dst,
                                      const Region& region, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  std::vector<index_t> volume(P * P, 0);
  for (int r = 0; r < comm_size; ++r) {
    const Plan plan = make_plan(src, dst, region, r, comm_size);
    for (const PlannedSegment& ps : plan.recv.segments)
      volume[static_cast<std::size_t>(ps.peer) * P + static_cast<std::size_t>(r)] +=
          ps.segment.extent.size();
    volume[static_cast<std::size_t>(r) * P + static_cast<std::size_t>(r)] +=
        plan.stats.elements_local;
  }
  return volume;
}

/// The permutation perm (perm[role] = rank) maximising sum_r volume[perm[r] * P + r],
/// the elements that stay on their rank.
/// @throws invalid_argument if volume is not P x P or holds a negative entry.
inline std::vector<int> best_relabeling(const std::vector<index_t>& volume, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  detail::require<invalid_argument>(comm_size > 0 && volume.size() == P * P,
                                    "volume matrix must be P x P", "volume.size()", volume.size());
  index_t top = 0;
  for (std::size_t k = 0; k < volume.size(); ++k) {
    if (volume[k] < 0)
      throw invalid_argument(detail::describe("volumes must be non-negative",
                                              "volume[" + std::to_string(k) + "]", volume[k]));
    top = std::max(top, volume[k]);
  }

  // Network: source -> rank s -> role r -> sink, unit capacities; the rank -> role arc
  // costs top - volume, so a min-cost perfect flow is a max-volume assignment.
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
  const auto arc = [&](std::size_t u, std::size_t v, index_t cost) {
    const auto e = boost::add_edge(u, v, g).first;
    const auto back = boost::add_edge(v, u, g).first;
    capacity[e] = 1;
    capacity[back] = 0;
    weight[e] = cost;
    weight[back] = -cost;
    reverse[e] = back;
    reverse[back] = e;
    return e;
  };
  std::vector<Traits::edge_descriptor> assign(P * P);
  for (std::size_t s = 0; s < P; ++s) {
    arc(source, s, 0);
    arc(P + s, sink, 0);
    for (std::size_t r = 0; r < P; ++r) assign[s * P + r] = arc(s, P + r, top - volume[s * P + r]);
  }
  boost::successive_shortest_path_nonnegative_weights(g, source, sink);

  auto residual = boost::get(boost::edge_residual_capacity, g);
  std::vector<int> perm(P, -1);
  for (std::size_t s = 0; s < P; ++s)
    for (std::size_t r = 0; r < P; ++r)
      if (residual[assign[s * P + r]] == 0) perm[r] = static_cast<int>(s);
  return perm;
}

}  // namespace redist
