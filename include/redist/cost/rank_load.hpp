#pragma once
/// @file cost/rank_load.hpp
/// RankLoad: one rank's share of a move in bytes, messages and contiguous runs, what the
/// cost model (cost_model.hpp) reads; from a plan alone, or from a wired move's plan with
/// the transport of each message (its bytes within the node then split by route).

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/plan.hpp>
#include <redist/plan/copy_runs.hpp>
#include <redist/plan/node_traffic.hpp>
#include <redist/transport_kind.hpp>

namespace redist {

/// Bytes a rank sends to (or receives from) ranks of its own node, by how its transports
/// (transport_kind.hpp) carry them.
struct NodeBytes {
  index_t point_to_point = 0;  ///< MPI: packed, copied by MPI (the shm term), unpacked
  index_t window = 0;          ///< the node window: packed, unpacked from the sender's buffer
  index_t in_place = 0;        ///< read from the sender's source (direct, cross-memory):
                               ///< nothing packed, one copy by the receiver
  index_t pushed = 0;          ///< written into the receiver's target (push): one copy by
                               ///< the sender, nothing unpacked
  index_t total() const { return point_to_point + window + in_place + pushed; }
};

/// One rank's share of a move, in bytes and messages: what predict reads.
struct RankLoad {
  int rank = 0;
  int node = 0;        ///< any integer: equal means one node
  int node_ranks = 1;  ///< ranks on that node (they share its link)
  index_t sent = 0, received = 0, local = 0;
  index_t sent_inter_node = 0, received_inter_node = 0;
  index_t messages_sent = 0, messages_received = 0;
  index_t messages_sent_inter_node = 0, messages_received_inter_node = 0;
  /// Contiguous runs packed, unpacked and copied locally (contiguous_runs).
  index_t runs_sent = 0, runs_received = 0, runs_local = 0;
  /// Of `sent` (`received`), the bytes packed (unpacked) by copies that walk their tiles'
  /// columns with gaps on the side in memory (CopyRuns::sent_in_pieces).
  index_t sent_in_pieces = 0, received_in_pieces = 0;
  /// How the bytes within the node travel, when the move's transports are known (a wired
  /// move: rank_load with its transports); else (false) as the machine says: MPI when
  /// Machine::shm_bytes_per_s > 0, the node window otherwise.
  bool routes_known = false;
  NodeBytes sent_in_node, received_in_node;  ///< with routes_known: sum to the bytes within
  /// Whether the node window's bytes go through its rings (ExecutionOptions::ring_slots != 0):
  /// then at Machine::ring_bytes_per_s, where it is known.
  bool rings = true;
};

/// Rank plan.rank's load with its peers on nodes node_of_rank (one entry per rank of
/// plan.comm_size), for elements of `element_bytes`; `node_ranks`: the ranks on its node,
/// counted from node_of_rank when 0. O(messages), plus O(P) when it counts.
/// @throws invalid_argument as with_node_traffic (plan/node_traffic.hpp) does.
inline RankLoad rank_load(const Plan& plan, const std::vector<int>& node_of_rank,
                          index_t element_bytes, int node_ranks = 0) {
  // The node count is not needed here: 0 stands for it.
  const PlanStats s = with_node_traffic(plan, node_of_rank, 0);
  RankLoad l;
  l.rank = plan.rank;
  l.node = node_of_rank[static_cast<std::size_t>(plan.rank)];
  l.node_ranks =
      node_ranks > 0
          ? node_ranks
          : static_cast<int>(std::count(node_of_rank.begin(), node_of_rank.end(), l.node));
  l.sent = s.elements_sent * element_bytes;
  l.received = s.elements_received * element_bytes;
  l.local = s.elements_local * element_bytes;
  l.sent_inter_node = s.elements_sent_inter_node * element_bytes;
  l.received_inter_node = s.elements_received_inter_node * element_bytes;
  l.messages_sent = s.messages_sent;
  l.messages_received = s.messages_received;
  const auto off_node = [&](const std::vector<Message>& messages) {
    index_t n = 0;
    for (const Message& m : messages)
      n += node_of_rank[static_cast<std::size_t>(m.peer)] != l.node ? 1 : 0;
    return n;
  };
  l.messages_sent_inter_node = off_node(plan.send.messages);
  l.messages_received_inter_node = off_node(plan.recv.messages);
  const CopyRuns runs = contiguous_runs(plan);
  l.runs_sent = runs.sent;
  l.runs_received = runs.received;
  l.runs_local = runs.local;
  l.sent_in_pieces = runs.sent_in_pieces * element_bytes;
  l.received_in_pieces = runs.received_in_pieces * element_bytes;
  return l;
}

/// rank_load of a wired move, whose bytes within the node are split by the transport of
/// each message: `send_transport[m]` carries plan.send.messages[m], `recv_transport[m]`
/// plan.recv.messages[m] (a TaskGraph's lists: Redistributor::task_graph()); `rings`:
/// whether the node window runs its rings (ExecutionOptions::ring_slots != 0).
/// @throws invalid_argument when a list's length is not its side's message count, or as
/// rank_load above.
inline RankLoad rank_load(const Plan& plan, const std::vector<int>& node_of_rank,
                          index_t element_bytes, std::span<const Transport> send_transport,
                          std::span<const Transport> recv_transport, bool rings,
                          int node_ranks = 0) {
  detail::require<invalid_argument>(send_transport.size() == plan.send.messages.size(),
                                    "must hold one transport per sent message of the plan",
                                    "send_transport.size()", send_transport.size());
  detail::require<invalid_argument>(recv_transport.size() == plan.recv.messages.size(),
                                    "must hold one transport per received message of the plan",
                                    "recv_transport.size()", recv_transport.size());
  RankLoad l = rank_load(plan, node_of_rank, element_bytes, node_ranks);
  const auto split = [&](const std::vector<Message>& messages, std::span<const Transport> how) {
    NodeBytes b;
    for (std::size_t m = 0; m < messages.size(); ++m) {
      if (node_of_rank[static_cast<std::size_t>(messages[m].peer)] != l.node) continue;
      const index_t bytes = messages[m].elements * element_bytes;
      if (reads_in_place(how[m]))
        b.in_place += bytes;
      else if (how[m] == Transport::push)
        b.pushed += bytes;
      else if (how[m] == Transport::shared_window)
        b.window += bytes;
      else
        b.point_to_point += bytes;
    }
    return b;
  };
  l.routes_known = true;
  l.sent_in_node = split(plan.send.messages, send_transport);
  l.received_in_node = split(plan.recv.messages, recv_transport);
  l.rings = rings;
  return l;
}

}  // namespace redist
