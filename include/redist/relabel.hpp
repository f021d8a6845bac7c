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

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>

#include <redist/distribution.hpp>
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

/// A distribution whose roles are played by other ranks: owner(t) = perm[base.owner(t)].
/// Keeps the base's fast enumeration of owned tiles.
template <Distribution D>
class Relabeled {
 public:
  /// A permutation of in-range owners is in range.
  static constexpr bool owners_in_range = OwnersInRange<D>;

  /// @throws distribution_error unless perm is a permutation of [0, perm.size()) covering
  /// the base's roles.
  Relabeled(D base, std::vector<int> perm)
      : base_(std::move(base)), rank_of_role_(std::move(perm)) {
    role_of_rank_.assign(rank_of_role_.size(), -1);
    detail::require<distribution_error>(
        static_cast<int>(rank_of_role_.size()) >= static_cast<int>(base_.ranks()),
        "relabeling must cover every role of the base distribution", "perm.size()",
        rank_of_role_.size());
    for (std::size_t r = 0; r < rank_of_role_.size(); ++r) {
      const int k = rank_of_role_[r];
      if (k < 0 || k >= static_cast<int>(rank_of_role_.size()) ||
          role_of_rank_[static_cast<std::size_t>(k)] != -1)
        throw distribution_error(detail::describe("relabeling is not a permutation",
                                                  "perm[" + std::to_string(r) + "]", k));
      role_of_rank_[static_cast<std::size_t>(k)] = static_cast<int>(r);
    }
  }

  int ranks() const { return static_cast<int>(rank_of_role_.size()); }
  int owner(TileIndex t) const { return rank_of_role_[static_cast<std::size_t>(base_.owner(t))]; }
  /// The tiles of `rank` are those of the role it plays.
  template <class F>
  void for_each_owned(int rank, TileBox box, F&& f) const requires EnumeratesOwnedTiles<D> {
    if (rank < 0 || rank >= ranks()) return;
    const int role = role_of_rank_[static_cast<std::size_t>(rank)];
    if (role < static_cast<int>(base_.ranks())) base_.for_each_owned(role, box, f);
  }
  const D& base() const { return base_; }
  const std::vector<int>& rank_of_role() const { return rank_of_role_; }

 private:
  D base_;
  std::vector<int> rank_of_role_;
  std::vector<int> role_of_rank_;
};

}  // namespace redist
