#pragma once
/// @file task_graph.hpp
/// The task graph of one rank (Cao et al. 2021, section 5 and Fig. 4; section 6.2.1 for
/// the batch control) at the granularity that runs: message chunks and parts of a batch's
/// local copies. It holds every dependency the executor obeys; the executor adds none
/// (engine/execution_loop.hpp walks it in CSR form). Plain data: tasks and edges in the
/// order they were made. Boost.Graph views of it, for analysis and drawing, are opt-in
/// (task_graph_boost.hpp, task_graph_graphviz.hpp): they cost more to compile than the
/// rest of the engine together.
///
/// | task          | one per                          | does                                 |
/// |---------------|----------------------------------|--------------------------------------|
/// | Init(k)       | batch k                          | frees batch k-1's send buffers and   |
/// |               |                                  | posts batch k's receives             |
/// | Send(c)       | chunk c of a sent message        | packs c (one copy program) and hands |
/// |               | (none read in place, direct or   | it to the transport                  |
/// |               | cross-memory)                    |                                      |
/// | Arrive(c)     | chunk c of a received message    | transport event: c is readable       |
/// | Receive(c)    | received chunk c, or a part of   | unpacks c, or copies the part tile   |
/// |               | batch k's local copies           | to tile (one copy program)           |
/// | Ack(m)        | sent message m that the receiver | transport event: the receiver is     |
/// |               | reads in place (window, direct)  | done with our memory                 |
/// | Ack(c)        | sent chunk c in a ring slot of   | transport event: the receiver        |
/// |               | the node window                  | unpacked c, its slot is free         |
/// | Free(m)       | sent message m that we write     | transport event: the receiver's      |
/// |               | into the receiver's target       | target may be written (its start())  |
/// |               | (push; an Ack task)              |                                      |
/// | Finish(k)     | batch k                          | batch k's data is in and out         |
///
/// Edges: Init(k) -> Send(c), Arrive(c), Ack(m), Receive(local part) of batch k, and
/// Init(k) -> Finish(k); Arrive(c) ->
/// Receive(c); Send(c) -> Ack(m) for every chunk c of m; Send, Receive and the Acks of
/// shared-window messages of batch k -> Finish(k); Finish(k) -> Init(k + 1), the control
/// dependency that bounds what is in flight to one batch (section 6.2.1: the paper draws
/// it per tile; per batch it also covers the send buffer, which batch k + 1 reuses).
/// Acks of direct messages gate only the end of the execution (the caller may change the
/// source after wait()), not the next batch. A chunk through a ring of the node window
/// (transport/ring_slots.hpp) has an Ack of its own: Send(c) -> Ack(c) -> Finish(k), and
/// Ack(c') -> Send(c) where c takes over the slot of c'; its message has no Ack(m).
/// A pushed message (transport/push.hpp) has Init(k) -> Free(m) -> Send(c) for each of its
/// chunks and no Ack: its Sends write the receiver's target, which the receiver frees at
/// its start(); the receiver's Receives of it copy nothing (the sender's note completes
/// its Arrives).
///
/// Chunks and local parts: engine/chunking.hpp. The graph is built once, after the
/// transports are chosen (engine/wired.hpp), and not changed after.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <redist/engine/chunking.hpp>
#include <redist/plan.hpp>
#include <redist/task_counts.hpp>
#include <redist/transport_kind.hpp>

namespace redist {

/// An edge of the task graph: `to` may start only after `from` has completed.
struct TaskEdge {
  std::uint32_t from = 0, to = 0;
  friend bool operator==(const TaskEdge&, const TaskEdge&) = default;
};

/// Sent chunks that travel through a ring of slots in the node window
/// (transport/ring_slots.hpp): each is acked on its own once unpacked, and is packed only
/// once the chunk that held its slot before is acked. Empty: no ring.
struct SlotReuse {
  std::vector<std::uint8_t> in_ring;  ///< per sent chunk
  std::vector<std::size_t> after;     ///< per sent chunk: the chunk it waits for, or SIZE_MAX
};

struct TaskGraph {
  std::vector<Task> tasks;      ///< the vertices; a task's index is its vertex number
  std::vector<TaskEdge> edges;  ///< in the order they were added
  Chunking send, recv, local;   ///< local: the parts of each batch's local copies
  std::vector<Transport> send_transport, recv_transport;  ///< per message
  std::vector<std::size_t> init_vertex, finish_vertex;    ///< per batch
  std::vector<std::size_t> arrive_vertex;                 ///< per received chunk
  std::vector<std::size_t> ack_vertex;  ///< per sent message; SIZE_MAX when not acked
  /// per sent chunk: the Ack of its ring slot (SlotReuse); SIZE_MAX when not in a ring
  std::vector<std::size_t> slot_ack_vertex;
  /// per sent message: its Free (pushed messages); SIZE_MAX when not pushed
  std::vector<std::size_t> free_vertex;
  /// per sent chunk: its Send; SIZE_MAX when its message is read in place
  std::vector<std::size_t> send_vertex;
  std::vector<std::size_t> local_vertex;  ///< per local part: its Receive
  /// per local part: the sent chunk whose pack it follows at once (follow_packs);
  /// SIZE_MAX, or empty, when it runs from its own queue
  std::vector<std::size_t> follows;
  /// per sent chunk: elements of the local parts that follow it (empty when none do)
  std::vector<index_t> follower_elements;

  /// Heap bytes: capacity x element size of every container.
  std::size_t memory_bytes() const {
    std::size_t bytes = tasks.capacity() * sizeof(Task) + edges.capacity() * sizeof(TaskEdge) +
                        (send_transport.capacity() + recv_transport.capacity()) * sizeof(Transport);
    for (const Chunking* c : {&send, &recv, &local})
      bytes += c->slices.capacity() * sizeof(Slice) + c->chunks.capacity() * sizeof(Chunk) +
               c->begin.capacity() * sizeof(std::size_t);
    for (const auto* v : {&init_vertex, &finish_vertex, &arrive_vertex, &ack_vertex,
                          &slot_ack_vertex, &free_vertex, &send_vertex, &local_vertex, &follows})
      bytes += v->capacity() * sizeof(std::size_t);
    bytes += follower_elements.capacity() * sizeof(index_t);
    return bytes;
  }

  TaskCounts counts() const {
    TaskCounts c;
    for (const Task& t : tasks) c[t.kind] += 1;
    return c;
  }
  std::size_t count(TaskKind k) const { return counts()[k]; }
};

inline const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::init:
      return "Init";
    case TaskKind::send:
      return "Send";
    case TaskKind::arrive:
      return "Arrive";
    case TaskKind::receive:
      return "Receive";
    case TaskKind::ack:
      return "Ack";
    case TaskKind::finish:
      return "Finish";
  }
  return "?";
}

/// Builds rank plan.rank's task graph on the plan's chunks, with the transport of every
/// message (all point-to-point when empty) and the sent chunks that go through a ring
/// (`ring`: Ack(c) per such chunk, Send(c) -> Ack(c) -> Finish, and Ack(after[c]) ->
/// Send(c), in place of the message's Ack). O(chunks + local parts).
/// @pre send_transport / recv_transport are empty or have one entry per message; `ring`
/// empty or one entry per sent chunk, only for shared-window messages, `after` in its batch.
inline TaskGraph make_task_graph(const Plan& plan, Chunkings chunks,
                                 std::vector<Transport> send_transport = {},
                                 std::vector<Transport> recv_transport = {},
                                 const SlotReuse& ring = {}) {
  TaskGraph tg;
  tg.send = std::move(chunks.send);
  tg.recv = std::move(chunks.recv);
  tg.local = std::move(chunks.local);
  tg.send_transport = std::move(send_transport);
  tg.recv_transport = std::move(recv_transport);
  tg.send_transport.resize(plan.send.messages.size(), Transport::point_to_point);
  tg.recv_transport.resize(plan.recv.messages.size(), Transport::point_to_point);
  // Room for every task and edge below (bounds: at most two tasks and six edges a sent
  // chunk, and so on): grown by doubling, they were copied and touched twice over
  // (thousands of chunks a rank at 16384^2 with small tiles).
  const std::size_t batches = static_cast<std::size_t>(std::max<index_t>(plan.batches, 0));
  const std::size_t sent = tg.send.chunks.size(), received = tg.recv.chunks.size();
  const std::size_t messages = plan.send.messages.size(), parts = tg.local.chunks.size();
  tg.tasks.reserve(2 * batches + 2 * sent + 2 * messages + 2 * received + parts);
  tg.edges.reserve(2 * batches + 6 * sent + 3 * messages + 3 * received + 2 * parts);
  tg.local_vertex.reserve(parts);
  const auto add = [&](TaskKind kind, index_t batch, std::size_t index, bool remote = false) {
    tg.tasks.push_back(Task{kind, batch, remote, index});
    return tg.tasks.size() - 1;
  };
  const auto edge = [&](std::size_t from, std::size_t to) {
    tg.edges.push_back(TaskEdge{static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to)});
  };
  for (index_t k = 0; k < plan.batches; ++k) {
    tg.init_vertex.push_back(add(TaskKind::init, k, static_cast<std::size_t>(k)));
    tg.finish_vertex.push_back(add(TaskKind::finish, k, static_cast<std::size_t>(k)));
    edge(tg.init_vertex.back(), tg.finish_vertex.back());
    if (k > 0) edge(tg.finish_vertex[static_cast<std::size_t>(k - 1)], tg.init_vertex.back());
  }
  const auto init_of = [&](index_t k) { return tg.init_vertex[static_cast<std::size_t>(k)]; };
  const auto finish_of = [&](index_t k) { return tg.finish_vertex[static_cast<std::size_t>(k)]; };

  const auto in_ring = [&](std::size_t c) { return c < ring.in_ring.size() && ring.in_ring[c]; };
  tg.slot_ack_vertex.assign(tg.send.chunks.size(), SIZE_MAX);
  for (std::size_t c = 0; c < tg.send.chunks.size(); ++c)
    if (in_ring(c)) {
      const index_t batch = plan.send.messages[tg.send.chunks[c].message].batch;
      tg.slot_ack_vertex[c] = add(TaskKind::ack, batch, c);
      edge(tg.slot_ack_vertex[c], finish_of(batch));
    }
  tg.ack_vertex.assign(plan.send.messages.size(), SIZE_MAX);
  tg.free_vertex.assign(plan.send.messages.size(), SIZE_MAX);
  tg.send_vertex.assign(tg.send.chunks.size(), SIZE_MAX);
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    const index_t batch = plan.send.messages[m].batch;
    const Transport how = tg.send_transport[m];
    const bool ringed = tg.send.begin[m] < tg.send.begin[m + 1] && in_ring(tg.send.begin[m]);
    if (how != Transport::point_to_point && how != Transport::push && !ringed) {
      tg.ack_vertex[m] = add(TaskKind::ack, batch, m);
      edge(init_of(batch), tg.ack_vertex[m]);
      if (how == Transport::shared_window) edge(tg.ack_vertex[m], finish_of(batch));
    }
    if (how == Transport::push) {
      tg.free_vertex[m] = add(TaskKind::ack, batch, m);
      edge(init_of(batch), tg.free_vertex[m]);
    }
    if (reads_in_place(how)) continue;  // nothing to pack
    for (std::size_t c = tg.send.begin[m]; c < tg.send.begin[m + 1]; ++c) {
      const std::size_t v = add(TaskKind::send, batch, c);
      tg.send_vertex[c] = v;
      edge(init_of(batch), v);
      if (tg.free_vertex[m] != SIZE_MAX) edge(tg.free_vertex[m], v);
      edge(v, finish_of(batch));
      if (tg.ack_vertex[m] != SIZE_MAX) edge(v, tg.ack_vertex[m]);
      if (tg.slot_ack_vertex[c] != SIZE_MAX) edge(v, tg.slot_ack_vertex[c]);
      if (in_ring(c) && ring.after[c] != SIZE_MAX) edge(tg.slot_ack_vertex[ring.after[c]], v);
    }
  }
  tg.arrive_vertex.resize(tg.recv.chunks.size());
  for (std::size_t c = 0; c < tg.recv.chunks.size(); ++c) {
    const index_t batch = plan.recv.messages[tg.recv.chunks[c].message].batch;
    tg.arrive_vertex[c] = add(TaskKind::arrive, batch, c);
    const std::size_t v = add(TaskKind::receive, batch, c, true);
    edge(init_of(batch), tg.arrive_vertex[c]);
    edge(tg.arrive_vertex[c], v);
    edge(v, finish_of(batch));
  }
  for (std::size_t p = 0; p < tg.local.chunks.size(); ++p) {
    const index_t batch = plan.local.messages[tg.local.chunks[p].message].batch;
    const std::size_t v = add(TaskKind::receive, batch, p);
    tg.local_vertex.push_back(v);
    edge(init_of(batch), v);
    edge(v, finish_of(batch));
  }
  return tg;
}

/// Local part p runs at once after the pack of sent chunk follows[p] (SIZE_MAX: from its
/// own queue, as before): an edge Send(follows[p]) -> Receive(p), and compile() queues
/// the part first. The pack copies the part too, in one sweep over the source columns
/// both read (engine/fused_sweeps.hpp, engine/pack_followers.hpp); Receive(p) then marks
/// it done (copied_elements). Adds no cycle: a Send waits for no local part.
/// @pre follows[p] is a packed chunk of p's batch, or SIZE_MAX; one entry per local part.
inline void follow_packs(TaskGraph& tg, std::vector<std::size_t> follows) {
  tg.follower_elements.assign(tg.send.chunks.size(), 0);
  for (std::size_t p = 0; p < follows.size(); ++p)
    if (follows[p] != SIZE_MAX) {
      tg.edges.push_back(TaskEdge{static_cast<std::uint32_t>(tg.send_vertex[follows[p]]),
                                  static_cast<std::uint32_t>(tg.local_vertex[p])});
      tg.follower_elements[follows[p]] += tg.local.chunks[p].elements;
    }
  tg.follows = std::move(follows);
}

/// Elements task v copies: a pack with the local parts that follow it, an unpack, a local
/// part that follows no pack; 0 for the others (a follower's Receive, a pushed chunk's
/// Receive too). What a call's
/// budget of copying counts (engine/execution_loop.hpp).
inline index_t copied_elements(const TaskGraph& tg, std::size_t v) {
  const Task& t = tg.tasks[v];
  if (t.kind == TaskKind::send)
    return tg.send.chunks[t.index].elements +
           (t.index < tg.follower_elements.size() ? tg.follower_elements[t.index] : 0);
  if (t.kind != TaskKind::receive) return 0;
  if (t.remote)  // a pushed chunk was written by its sender
    return tg.recv_transport[tg.recv.chunks[t.index].message] == Transport::push
               ? 0
               : tg.recv.chunks[t.index].elements;
  const bool follows = t.index < tg.follows.size() && tg.follows[t.index] != SIZE_MAX;
  return follows ? 0 : tg.local.chunks[t.index].elements;
}

/// make_task_graph on chunks of about `chunk_elements` (local parts alike, or of about
/// `local_part_elements`).
inline TaskGraph make_task_graph(const Plan& plan, index_t chunk_elements,
                                 std::vector<Transport> send_transport = {},
                                 std::vector<Transport> recv_transport = {},
                                 index_t local_part_elements = 0) {
  return make_task_graph(plan, cut_chunkings(plan, chunk_elements, local_part_elements),
                         std::move(send_transport), std::move(recv_transport));
}

/// A task graph compiled for walking: successors in CSR form, the number of predecessors
/// of each task, and its ready queue (Init and the local parts that follow a pack first,
/// then unpacks from the node window, then Send, then local copies with Arrive, Ack and
/// Finish, then the other unpacks: a peer's ring slot is freed before this rank packs
/// more, messages leave early, and local copies overlap them).
/// @post succ[succ_begin[v], succ_begin[v + 1]) are exactly v's out-edges in tg.edges, in
/// the order they were added, and in_degree[v] is v's in-degree: the schedule is the
/// graph, nothing added.
struct Schedule {
  std::vector<std::uint32_t> succ_begin, succ;
  std::vector<int> in_degree;
  std::vector<std::uint8_t> queue;
  static constexpr std::size_t queues = 5;
  /// Heap bytes: capacity x element size of every container.
  std::size_t memory_bytes() const {
    return (succ_begin.capacity() + succ.capacity()) * sizeof(std::uint32_t) +
           in_degree.capacity() * sizeof(int) + queue.capacity() * sizeof(std::uint8_t);
  }
};

inline Schedule compile(const TaskGraph& tg) {
  const std::size_t n = tg.tasks.size();
  Schedule s;
  // CSR by a stable counting sort of the edges on their source.
  s.succ_begin.assign(n + 1, 0);
  s.in_degree.assign(n, 0);
  for (const TaskEdge& e : tg.edges) {
    s.succ_begin[e.from + 1] += 1;
    s.in_degree[e.to] += 1;
  }
  for (std::size_t v = 0; v < n; ++v) s.succ_begin[v + 1] += s.succ_begin[v];
  s.succ.resize(tg.edges.size());
  std::vector<std::uint32_t> next(s.succ_begin.begin(), s.succ_begin.end() - 1);
  for (const TaskEdge& e : tg.edges) s.succ[next[e.from]++] = e.to;
  s.queue.reserve(n);
  // Unpacks from the node window before packs and local copies: each frees its sender's
  // ring slot (transport/ring_slots.hpp), and a sender whose ring is full waits for it.
  // Packing first let both ranks of a pair fill their rings and then wait on each other
  // (case a, 2 ranks: 12 % of the move idle; bench/README.md, "Unpacks first, and local
  // parts that follow their pack"). Local copies fill the waits that remain.
  const auto window = [&](const Task& t) {
    return tg.recv_transport[tg.recv.chunks[t.index].message] == Transport::shared_window;
  };
  // A local part that follows a pack runs before anything else that is ready.
  const auto follower = [&](const Task& t) {
    return t.index < tg.follows.size() && tg.follows[t.index] != SIZE_MAX;
  };
  for (const Task& t : tg.tasks)
    s.queue.push_back(t.kind == TaskKind::init      ? 0
                      : t.kind == TaskKind::send    ? 2
                      : t.kind == TaskKind::receive ? (!t.remote   ? (follower(t) ? 0 : 3)
                                                       : window(t) ? 1
                                                                   : 4)
                                                    : 3);
  return s;
}

}  // namespace redist
