#pragma once
/// @file engine/node_schedule.hpp
/// The schedule of the messages between nodes. Two are built:
///
/// - *all at once* (the default inside a node, and between nodes unless chosen): every
///   message of a batch may leave as soon as the batch opens; MPI and the network share the
///   links among them.
/// - *the caterpillar* of Prylli and Tourancheau 1996 (section 4.3, "Synchronous
///   communication" and "Communication pipelining", Fig. 3), at node level: at step d, node
///   i exchanges with node (P - i - d) mod P, every rank of i with every rank of its partner,
///   and each exchange is pipelined in packets, so that packing, sending both ways and
///   unpacking overlap. Messages inside a node are not ordered (all at once).
///
/// The caterpillar is a set of extra edges on a rank's task graph (task_graph.hpp), nothing
/// else: the executor walks them like any other.
///
///   window:  Send(packet j) of the message to q  <-  Arrive(packet i) of the message from q,
///            i = (j - W) x (packets from q) / (packets to q), for j >= W: a rank runs at
///            most W packets ahead of its partner in each exchange, so both directions of
///            the link carry data at once (without it, one direction's queued data delays
///            the other's rendezvous replies and the two take turns: bench/README.md,
///            "Cluster").
///   steps:   Send(packet j < W) of a step-d message  <-  Arrive(packet n - W) of every
///            message received in this rank's previous step (the last W packets of one step
///            overlap the first of the next, so the link does not idle between steps).
///
/// Every edge points from a lower (step, packet) to a higher one, on both ends of an
/// exchange, so the graph of all ranks together has no cycle: no rank waits forever.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

namespace redist {

/// The caterpillar's packets between nodes: 256 KiB (or ExecutionOptions::chunk_bytes if
/// smaller), small enough that the two directions of a link interleave finely.
inline constexpr index_t caterpillar_packet_bytes = index_t{256} << 10;
/// Under the caterpillar, MPI carries a packet in pieces of at most 60 KiB: below the eager
/// limit of Open MPI's TCP transport (64 KiB with its headers), so that no piece waits for a
/// rendezvous reply, which TCP queues behind the data already going the other way (the two
/// directions of a link would take turns: docs/transports.md).
inline constexpr index_t caterpillar_piece_bytes = index_t{60} << 10;
/// Packets a rank may run ahead of its partner in one exchange (2 MiB at 256 KiB): enough to
/// keep the link busy while a descheduled partner catches up.
inline constexpr std::size_t caterpillar_window = 8;

/// The caterpillar's pieces only while no rank receives more than this many from other nodes:
/// each piece is a request that the executor tests at every poll, so that many more cost
/// more than the turns they save (10x slower at 320 MB a rank, bench/README.md "Cluster:
/// all at once or the caterpillar"). Above it the packets travel whole.
inline constexpr index_t caterpillar_max_pieces = 1024;

/// What InterNodeSchedule::automatic means: all at once, measured faster or equal on simulated
/// nodes at 1 and 10 Gbit/s on a loaded machine (bench/README.md, "Cluster: all at once or
/// the caterpillar").
inline constexpr InterNodeSchedule automatic_inter_node_schedule = InterNodeSchedule::all_at_once;

/// Whether a communicator of `nodes` nodes runs the caterpillar under `s`. One node: no
/// message leaves it, all at once.
constexpr bool uses_caterpillar(InterNodeSchedule s, int nodes) {
  if (s == InterNodeSchedule::automatic) s = automatic_inter_node_schedule;
  return nodes > 1 && s == InterNodeSchedule::caterpillar;
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

/// Adds the caterpillar's edges (see the file comment) to rank plan.rank's task graph `tg`,
/// built on `plan` by make_task_graph: its messages to and from other nodes are ordered by
/// step and paced by `window` packets. Messages inside the node and messages not sent point
/// to point gain no edge. With one node, nothing changes.
/// @pre node_of_rank has one entry per rank of plan.comm_size, nodes its distinct values;
/// every rank calls it with the same node_of_rank and window.
inline void add_caterpillar_edges(TaskGraph& tg, const Plan& plan,
                                  const std::vector<int>& node_of_rank, int nodes,
                                  std::size_t window = caterpillar_window) {
  if (nodes <= 1) return;
  const int me = node_of_rank[static_cast<std::size_t>(plan.rank)];
  const auto edge = [&](std::size_t from, std::size_t to) {
    tg.edges.push_back(TaskEdge{static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to)});
  };
  // The step of a message between nodes, or -1 (inside the node, or not point to point).
  const auto step_of = [&](const Message& msg, Transport how) {
    const int other = node_of_rank[static_cast<std::size_t>(msg.peer)];
    return other == me || how != Transport::point_to_point ? -1
                                                           : caterpillar_step(me, other, nodes);
  };
  std::vector<std::size_t> send_vertex(tg.send.chunks.size(), SIZE_MAX);
  for (std::size_t v = 0; v < tg.tasks.size(); ++v)
    if (tg.tasks[v].kind == TaskKind::send) send_vertex[tg.tasks[v].index] = v;
  const auto packets = [](const Chunking& c, std::size_t m) { return c.begin[m + 1] - c.begin[m]; };
  const std::vector<Message>& sent = plan.send.messages;
  const std::vector<Message>& received = plan.recv.messages;
  // Both lists are sorted by (batch, peer): one merge pairs each exchange's two messages.
  std::vector<std::size_t> reverse(sent.size(), SIZE_MAX);
  for (std::size_t m = 0, r = 0; m < sent.size(); ++m) {
    const auto key = [](const Message& x) { return std::pair(x.batch, x.peer); };
    while (r < received.size() && key(received[r]) < key(sent[m])) ++r;
    if (r < received.size() && key(received[r]) == key(sent[m])) reverse[m] = r;
  }

  // Window: packet j >= W of an exchange waits for the partner's packet (j - W) x n_r / n_s.
  for (std::size_t m = 0; m < sent.size(); ++m) {
    const std::size_t r = reverse[m];
    if (r == SIZE_MAX || step_of(sent[m], tg.send_transport[m]) < 0 ||
        step_of(received[r], tg.recv_transport[r]) < 0)
      continue;
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
      if (const int d = step_of(sent[m], tg.send_transport[m]); sent[m].batch == k && d >= 0)
        sent_in[static_cast<std::size_t>(d)].push_back(m);
    for (std::size_t r = 0; r < received.size(); ++r)
      if (const int d = step_of(received[r], tg.recv_transport[r]);
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
