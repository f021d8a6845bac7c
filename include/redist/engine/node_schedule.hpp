#pragma once
/// @file engine/node_schedule.hpp
/// The schedule of the messages between nodes. Three are built:
///
/// - *all at once* (always inside a node, and between nodes when chosen): every message of
///   a batch may leave as soon as the batch opens; MPI and the network share the links
///   among them.
/// - *the caterpillar* of Prylli and Tourancheau 1996 (section 4.3, "Synchronous
///   communication" and "Communication pipelining", Fig. 3), at node level: at step d, node
///   i exchanges with node (P - i - d) mod P, every rank of i with every rank of its partner,
///   and each exchange is pipelined in packets, so that packing, sending both ways and
///   unpacking overlap. With P odd one node sits each step out, and its link idles then.
/// - *the shift*: the same steps and packets, but at step d node i sends to node
///   (i + d) mod P and receives from node (i - d) mod P (the pairwise order of all-to-all
///   exchanges), so that every node's link carries data both ways at every step for any P.
///   With two nodes it is the caterpillar.
///
/// A step order is a set of extra edges on a rank's task graph (task_graph.hpp), nothing
/// else: the executor walks them like any other. A message sent at step d is paired with
/// the one received at step d from the rank of the same place in its node (in the
/// caterpillar: the same rank).
///
///   window:  Send(packet j) of a message  <-  Arrive(packet i) of its pair,
///            i = (j - W) x (packets received) / (packets sent), for j >= W: a rank runs at
///            most W packets ahead of the rank it receives from, so both directions of the
///            link carry data at once (without it, one direction's queued data delays
///            the other's rendezvous replies and the two take turns: bench/README.md,
///            "Cluster").
///   steps:   Send(packet j < W) of a step-d message  <-  Arrive(packet n - W) of every
///            message received in this rank's previous step (the last W packets of one step
///            overlap the first of the next, so the link does not idle between steps).
///
/// The engine wires W = step_window, unpaced: no window edge, and a step's packets wait
/// only for the first packet of the previous step's messages. The steps then start in
/// order and run interleaved, each rank's sends by packet position first
/// (engine/schedule_walk.hpp); on the links measured a tighter W stalled senders.
///
/// Every edge points from a lower (step, packet) to a higher one, and a packet's sender
/// runs it at the same (step, packet) as its receiver's pair, so the graph of all ranks
/// together has no cycle: no rank waits forever.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

namespace redist {

/// A step order's packets between nodes: 256 KiB (or ExecutionOptions::chunk_bytes if
/// smaller), small enough that the two directions of a link interleave finely.
inline constexpr index_t step_packet_bytes = index_t{256} << 10;
/// Under a step order, MPI carries a packet in pieces of at most 60 KiB: below the eager
/// limit of Open MPI's TCP transport (64 KiB with its headers), so that no piece waits for a
/// rendezvous reply, which TCP queues behind the data already going the other way (the two
/// directions of a link would take turns: docs/transports.md).
inline constexpr index_t step_piece_bytes = index_t{60} << 10;
/// A window that never holds a rank back: no packet waits for its partner's, and a step's
/// packets wait only for the first packet of the previous step's messages.
inline constexpr std::size_t step_unpaced = std::numeric_limits<std::size_t>::max();
/// Packets a rank may run ahead of the rank it receives from (add_step_edges): unpaced.
/// A window of 8 packets (2 MiB) held 3 nodes of one rank at 1 Gbit/s to 86-97 % of the
/// link bound, unpaced 95-99 %; 2 x 1, 2 x 2 and 4 x 1 nodes ran as fast, 3 x 1 at 2.5
/// Gbit/s 2-3 points slower (bench/README.md, "Cluster: polling, MTU and pacing"). A link
/// holds more in flight (socket buffers, its queue) than such a window: it stalled senders.
inline constexpr std::size_t step_window = step_unpaced;

/// A step order's pieces only while no rank receives more than this many from other nodes
/// (1 GB at 60 KiB): each piece is a request outstanding from its batch's start, and every
/// poll scans them all (one MPI_Testsome, transport/request_pool.hpp). Above it the packets
/// travel whole.
inline constexpr index_t step_max_pieces = index_t{1} << 14;

/// What InterNodeSchedule::automatic means: the shift, faster than all at once on simulated
/// nodes at 1, 2.5 and 10 Gbit/s on 2x1, 2x2 and 3x1 nodes, and than the caterpillar on 3
/// nodes (bench/README.md, "Cluster: all at once, the caterpillar or the shift").
inline constexpr InterNodeSchedule automatic_inter_node_schedule = InterNodeSchedule::shift;

/// The schedule a communicator of `nodes` nodes runs under `s`: never `automatic`, and all
/// at once on one node (no message leaves it).
constexpr InterNodeSchedule resolved_schedule(InterNodeSchedule s, int nodes) {
  if (s == InterNodeSchedule::automatic) s = automatic_inter_node_schedule;
  return nodes > 1 ? s : InterNodeSchedule::all_at_once;
}

/// Whether a communicator of `nodes` nodes orders its messages between nodes by steps
/// (the caterpillar or the shift) under `s`.
constexpr bool uses_steps(InterNodeSchedule s, int nodes) {
  return resolved_schedule(s, nodes) != InterNodeSchedule::all_at_once;
}

/// The node that `node` exchanges with at step `step` of the caterpillar over `nodes`
/// nodes: (nodes - node - step) mod nodes; itself when it sits the step out.
/// @pre 0 <= node < nodes, 0 <= step < nodes.
/// @post caterpillar_partner(caterpillar_partner(i, d, P), d, P) == i: the pairs of a step
/// are disjoint. Example, P = 4, d = 1: 0 <-> 3, 1 <-> 2.
constexpr int caterpillar_partner(int node, int step, int nodes) {
  REDIST_EXPECTS(nodes >= 1 && node >= 0 && node < nodes && step >= 0 && step < nodes);
  return ((nodes - node - step) % nodes + nodes) % nodes;
}

/// The step at which nodes a and b exchange: the d in [0, nodes) with a + b + d = 0 mod
/// nodes. Symmetric in a and b, so both ends of an exchange derive it alone.
/// @pre 0 <= a, b < nodes.
/// @post caterpillar_partner(a, caterpillar_step(a, b, P), P) == b.
constexpr int caterpillar_step(int a, int b, int nodes) {
  REDIST_EXPECTS(nodes >= 1 && a >= 0 && a < nodes && b >= 0 && b < nodes);
  return (nodes - (a + b) % nodes) % nodes;
}

/// The step at which node `me` sends to node `to` under a step order (caterpillar or shift).
/// @pre 0 <= me, to < nodes.
constexpr int send_step(InterNodeSchedule order, int me, int to, int nodes) {
  return order == InterNodeSchedule::shift ? ((to - me) % nodes + nodes) % nodes
                                           : caterpillar_step(me, to, nodes);
}
/// The step at which node `me` receives from node `from` under a step order.
/// @post send_step(order, from, me, P) == receive_step(order, me, from, P): both ends of a
/// message put it in the same step.
constexpr int receive_step(InterNodeSchedule order, int me, int from, int nodes) {
  return order == InterNodeSchedule::shift ? ((me - from) % nodes + nodes) % nodes
                                           : caterpillar_step(me, from, nodes);
}

/// The caterpillar's steps over `nodes` nodes: steps[d] holds the pairs (a, b), a < b, that
/// exchange at step d (a node that is its own partner is left out).
/// @post every pair a < b appears in exactly one step, and no node twice in one step.
inline std::vector<std::vector<std::pair<int, int>>> caterpillar_pairs(int nodes) {
  std::vector<std::vector<std::pair<int, int>>> steps(static_cast<std::size_t>(std::max(nodes, 0)));
  for (int d = 0; d < nodes; ++d)
    for (int a = 0; a < nodes; ++a)
      if (const int b = caterpillar_partner(a, d, nodes); a < b)
        steps[static_cast<std::size_t>(d)].emplace_back(a, b);
  return steps;
}

/// Adds the edges of step order `order` (caterpillar or shift; see the file comment) to rank
/// plan.rank's task graph `tg`, built on `plan` by make_task_graph: its messages to and
/// from other nodes are ordered by step and paced by `window` packets. Messages inside the
/// node and messages not sent point to point gain no edge. With one node, nothing changes.
/// @pre node_of_rank has one entry per rank of plan.comm_size, nodes its distinct values;
/// every rank calls it with the same node_of_rank, order and window.
inline void add_step_edges(TaskGraph& tg, const Plan& plan, const std::vector<int>& node_of_rank,
                           int nodes, InterNodeSchedule order, std::size_t window = step_window) {
  REDIST_EXPECTS(order == InterNodeSchedule::caterpillar || order == InterNodeSchedule::shift);
  if (nodes <= 1) return;
  const int me = node_of_rank[static_cast<std::size_t>(plan.rank)];
  const auto edge = [&](std::size_t from, std::size_t to) {
    tg.edges.push_back(TaskEdge{static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to)});
  };
  // The step of a message between nodes, or -1 (inside the node, or not point to point).
  const auto step_of = [&](const Message& msg, Transport how, bool sent) {
    const int other = node_of_rank[static_cast<std::size_t>(msg.peer)];
    if (other == me || how != Transport::point_to_point) return -1;
    return sent ? send_step(order, me, other, nodes) : receive_step(order, me, other, nodes);
  };
  // Each rank's place among the ranks of its node.
  std::vector<int> place(node_of_rank.size()), seen(static_cast<std::size_t>(nodes), 0);
  for (std::size_t r = 0; r < node_of_rank.size(); ++r)
    place[r] = seen[static_cast<std::size_t>(node_of_rank[r])]++;
  std::vector<std::size_t> send_vertex(tg.send.chunks.size(), SIZE_MAX);
  for (std::size_t v = 0; v < tg.tasks.size(); ++v)
    if (tg.tasks[v].kind == TaskKind::send) send_vertex[tg.tasks[v].index] = v;
  const auto packets = [](const Chunking& c, std::size_t m) { return c.begin[m + 1] - c.begin[m]; };
  const std::vector<Message>& sent = plan.send.messages;
  const std::vector<Message>& received = plan.recv.messages;
  const auto place_of = [&](const Message& msg) {
    return place[static_cast<std::size_t>(msg.peer)];
  };

  // Window: packet j >= W of a message waits for its pair's packet (j - W) x n_r / n_s.
  std::map<std::tuple<index_t, int, int>, std::size_t> received_at;  // (batch, step, place)
  for (std::size_t r = 0; r < received.size(); ++r)
    if (const int d = step_of(received[r], tg.recv_transport[r], false); d >= 0)
      received_at[{received[r].batch, d, place_of(received[r])}] = r;
  for (std::size_t m = 0; m < sent.size(); ++m) {
    const int d = step_of(sent[m], tg.send_transport[m], true);
    const auto pair = received_at.find({sent[m].batch, d, place_of(sent[m])});
    if (d < 0 || pair == received_at.end()) continue;
    const std::size_t r = pair->second;
    const std::size_t n_s = packets(tg.send, m), n_r = packets(tg.recv, r);
    for (std::size_t j = window; j < n_s && n_r > 0; ++j)
      edge(tg.arrive_vertex[tg.recv.begin[r] + (j - window) * n_r / n_s],
           send_vertex[tg.send.begin[m] + j]);
  }

  // Steps: a batch's first W packets of step d wait for the messages received in the
  // rank's latest earlier step of that batch, all but their last W packets.
  std::vector<std::vector<std::size_t>> sent_in(static_cast<std::size_t>(nodes)),
      received_in(static_cast<std::size_t>(nodes));
  for (index_t k = 0; k < plan.batches; ++k) {
    for (auto& v : sent_in) v.clear();
    for (auto& v : received_in) v.clear();
    for (std::size_t m = 0; m < sent.size(); ++m)
      if (const int d = step_of(sent[m], tg.send_transport[m], true); sent[m].batch == k && d >= 0)
        sent_in[static_cast<std::size_t>(d)].push_back(m);
    for (std::size_t r = 0; r < received.size(); ++r)
      if (const int d = step_of(received[r], tg.recv_transport[r], false);
          received[r].batch == k && d >= 0 && packets(tg.recv, r) > 0)
        received_in[static_cast<std::size_t>(d)].push_back(r);
    std::size_t previous = SIZE_MAX;  // the latest step with messages received, so far
    for (std::size_t d = 0; d < static_cast<std::size_t>(nodes); ++d) {
      if (previous != SIZE_MAX)
        for (const std::size_t m : sent_in[d])
          for (std::size_t j = 0; j < std::min(window, packets(tg.send, m)); ++j)
            for (const std::size_t r : received_in[previous]) {
              const std::size_t n_r = packets(tg.recv, r);
              edge(tg.arrive_vertex[tg.recv.begin[r] + (n_r > window ? n_r - window : 0)],
                   send_vertex[tg.send.begin[m] + j]);
            }
      if (!received_in[d].empty()) previous = d;
    }
  }
}

}  // namespace redist
