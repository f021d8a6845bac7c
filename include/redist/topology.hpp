#pragma once
/// @file topology.hpp
/// Which ranks of a communicator share a node. Grouped once per communicator, on first
/// use (collective then), and cached on it as an MPI attribute, so every later plan,
/// window and report on that communicator reads the same map at no cost. Node-local
/// paths (the node window, direct reads of node-shared sources) apply only between ranks
/// of one node; everything else goes through MPI point to point.
///
///   const redist::NodeMap& nodes = redist::node_map(comm);
///   if (nodes.same_node(a, b)) ...;   nodes.nodes, nodes.node_of_rank[r], nodes.node
///
/// A node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups. For tests and
/// experiments on one machine, REDIST_RANKS_PER_NODE=k cuts each such node further into
/// groups of k consecutive ranks that redist treats as separate nodes (the transports
/// between them are Open MPI's own).

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/detail/environment.hpp>
#include <redist/error.hpp>

namespace redist {

/// The nodes of one communicator (see the file comment).
struct NodeMap {
  int nodes = 1;                  ///< how many nodes the communicator spans
  std::vector<int> node_of_rank;  ///< per rank: its node, 0..nodes-1 in order of first rank
  std::vector<int> rank_in_node;  ///< per rank: its rank in `node`, or -1 on another node
  boost::mpi::communicator node;  ///< this rank's node: its ranks, in communicator order

  bool same_node(int a, int b) const {
    return node_of_rank[static_cast<std::size_t>(a)] == node_of_rank[static_cast<std::size_t>(b)];
  }
  /// Ranks on this rank's node (itself included).
  int node_size() const { return node.size(); }
};

namespace detail {

/// REDIST_RANKS_PER_NODE, or 0 when unset.
/// @throws invalid_argument naming the variable and its value if it is not a positive
/// integer below 2^31.
inline int simulated_ranks_per_node() {
  const char* v = std::getenv("REDIST_RANKS_PER_NODE");
  if (v == nullptr || *v == '\0') return 0;
  return static_cast<int>(env_bytes("REDIST_RANKS_PER_NODE", v, INT32_MAX));
}

inline NodeMap make_node_map(const boost::mpi::communicator& comm) {
  MPI_Comm shared = MPI_COMM_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &shared) !=
      MPI_SUCCESS)
    throw communication_error("redist: MPI_Comm_split_type failed");
  boost::mpi::communicator node(shared, boost::mpi::comm_take_ownership);
  if (const int k = simulated_ranks_per_node(); k > 0 && node.size() > k)
    node = node.split(node.rank() / k, node.rank());
  NodeMap map;
  // A node's name: the communicator rank of its first rank (node rank 0, by the key).
  int first = comm.rank();
  MPI_Bcast(&first, 1, MPI_INT, 0, node);
  std::vector<int> firsts;
  boost::mpi::all_gather(comm, first, firsts);
  std::vector<int> names(firsts);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  map.nodes = static_cast<int>(names.size());
  for (int f : firsts)
    map.node_of_rank.push_back(
        static_cast<int>(std::lower_bound(names.begin(), names.end(), f) - names.begin()));
  // Ranks in the node: translate comm's ranks into the node's group.
  MPI_Group g_comm, g_node;
  MPI_Comm_group(comm, &g_comm);
  MPI_Comm_group(node, &g_node);
  std::vector<int> ranks(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) ranks[static_cast<std::size_t>(r)] = r;
  map.rank_in_node.resize(ranks.size());
  MPI_Group_translate_ranks(g_comm, comm.size(), ranks.data(), g_node, map.rank_in_node.data());
  MPI_Group_free(&g_comm);
  MPI_Group_free(&g_node);
  for (int& r : map.rank_in_node)
    if (r == MPI_UNDEFINED) r = -1;
  map.node = std::move(node);
  return map;
}

/// The attribute key values of type V are cached under (one per type and process).
template <class V>
int cache_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    const auto drop = [](MPI_Comm, int, void* value, void*) -> int {
      delete static_cast<V*>(value);
      return MPI_SUCCESS;
    };
    // Not copied to a duplicate: MPI_Comm_dup makes a new communicator, looked at anew.
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop, &k, nullptr);
    return k;
  }();
  return keyval;
}

/// The value of type V cached on comm, made by `make()` on the first call (collective
/// then, if make is) and kept until comm is freed. Later calls are local.
template <class V, class Make>
const V& cached_on(const boost::mpi::communicator& comm, Make&& make) {
  const int keyval = cache_keyval<V>();
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, keyval, &value, &found);
  if (found) return *static_cast<V*>(value);
  auto* made = new V(make());
  MPI_Comm_set_attr(comm, keyval, made);
  return *made;
}

}  // namespace detail

/// The nodes of comm: computed on the first call on comm (collective over comm then) and
/// cached on it until it is freed. Later calls are local.
/// @throws communication_error if MPI cannot group the ranks.
/// @throws invalid_argument for a malformed REDIST_RANKS_PER_NODE.
inline const NodeMap& node_map(const boost::mpi::communicator& comm) {
  return detail::cached_on<NodeMap>(comm, [&] { return detail::make_node_map(comm); });
}

}  // namespace redist
