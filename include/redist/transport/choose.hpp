#pragma once
/// @file transport/choose.hpp
/// Chooses the transport of every message (transport/transport.hpp), then lays out their
/// buffers (transport/message_buffers.hpp): two steps of wiring an engine
/// (engine/wired.hpp), collective over the communicator.
/// On host memory with node paths enabled (ExecutionOptions::node_paths(), transport
/// policy ExecutionOptions::transport):
/// 0. under `automatic` and a transform that only copies, a message is pushed when every
///    segment's target lies in one node-shared window that its sender is part of
///    (transport/push.hpp; agreed from the receiver's side: transport/push_targets.hpp);
/// 1. else a sent message goes direct when every segment's source lies in one node-shared
///    window (node_shared.hpp) that its receiver is part of;
/// 2. else, to a rank of this node, cross-memory when the kernel lets the ranks of the
///    node read each other's memory (probed once per communicator,
///    transport/cross_memory_io.hpp) and the policy asks for it: always when forced,
///    and under `automatic` when its pieces are long enough that a read per piece
///    costs less than packing (cross_memory_min_piece_bytes);
/// 3. the send part of the other messages becomes an MPI-3 shared window of the node's
///    ranks (collective); messages to ranks on the node then go through it;
/// 4. every on-node message is described to its receiver once (transport/describe.hpp):
///    a head, and for a message read in place its segments' addresses.
/// On device memory that other processes can map (transport/device_ipc.hpp), under the
/// policies `automatic` and `cross_memory`, a message to a rank of this node goes
/// device-ipc when the ranks of the node can map each other's device memory (probed once
/// per communicator) and every segment lies in an allocation that can be exported.
/// Everything else goes point to point.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/checked.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/matrix_sides.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/node_shared.hpp>
#include <redist/topology.hpp>
#include <redist/transport/cross_memory_io.hpp>
#include <redist/transport/describe.hpp>
#include <redist/transport/device_ipc.hpp>
#include <redist/transport/message_buffers.hpp>
#include <redist/transport/push_targets.hpp>
#include <redist/transport/transport.hpp>

namespace redist::transport {

/// Under TransportPolicy::automatic, a private source's message to a rank of the node
/// goes cross-memory when its pieces (the columns of its segments, each one piece of
/// the kernel's gather) average at least this many bytes: below, the kernel's cost per
/// piece exceeds packing and unpacking it (measured: bench/README.md, "Cross-memory").
inline constexpr index_t cross_memory_min_piece_bytes = index_t{16} << 10;

namespace detail {

/// The columns of every segment of msg: the pieces a cross-memory read of it gathers
/// (before merging those that continue each other).
inline index_t columns_in(const Plan& plan, const FamilyList& d, const Message& msg) {
  index_t n = 0;
  for (index_t f = msg.first; f < msg.first + msg.count; ++f) {
    const BlockFamily& fam = d.families[static_cast<std::size_t>(f)];
    n += fam.rows.count * fam.cols.count * plan.cols(fam).length;
  }
  return n;
}

/// f(part, row piece, column piece) for each segment of sent message m, in the order its
/// receiver binds them (chunk by chunk), until f returns false.
template <class F>
void for_each_sent_segment(const Plan& plan, const Chunking& sent, std::size_t m, F&& f) {
  engine::for_each_message_segment(plan, plan.send, sent, m, std::forward<F>(f));
}

/// Marks the sent messages that can go direct; returns each one's window and fills
/// its segments' addresses, in the order of the chunks `sent` (the order the receiver
/// binds them in).
template <class T, class Source>
std::vector<std::shared_ptr<redist::detail::NodeWindow>> find_direct_sends(
    const boost::mpi::communicator& comm, const Plan& plan, const Chunking& sent, bool transposed,
    const Source& source, std::vector<Transport>& how,
    std::vector<std::vector<Address<T>>>& segments) {
  using redist::detail::NodeWindow;
  std::vector<std::shared_ptr<NodeWindow>> window_of(plan.send.messages.size());
  std::shared_ptr<NodeWindow> w;  // the last window found, and its members
  std::vector<int> members;
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    const Message& msg = plan.send.messages[m];
    bool direct = how[m] == Transport::point_to_point && msg.count > 0 &&
                  describable(segments_in(plan.send, msg));
    if (direct) {  // a private source is settled by the first segment, the rest unvisited
      const BlockFamily& f = plan.send.families[static_cast<std::size_t>(msg.first)];
      const Address<T> a = source(f.part, plan.rows(f).member(0), plan.cols(f).member(0));
      direct = NodeWindow::find(a.first, sizeof(T)) != nullptr;
    }
    std::vector<Address<T>>& list = segments[m];
    if (direct)
      for_each_sent_segment(plan, sent, m, [&](index_t part, const Piece& r, const Piece& col) {
        const Address<T> a = source(part, r, col);
        // op(A)'s rows are A's columns when the source is read transposed.
        const index_t span = transposed ? (r.length - 1) * a.second + (col.length - 1) + 1
                                        : (r.length - 1) + (col.length - 1) * a.second + 1;
        const std::size_t bytes = static_cast<std::size_t>(span) * sizeof(T);
        if (!w || !w->owns(a.first, bytes)) {
          w = NodeWindow::find(a.first, bytes);
          members = w ? w->node_ranks(comm) : std::vector<int>{};
        }
        // The first segment outside a window settles it: private sources cost one
        // look-up per message.
        direct = w && (list.empty() || w == window_of[m]) &&
                 members[static_cast<std::size_t>(msg.peer)] >= 0;
        window_of[m] = w;
        list.push_back(a);
        return direct;
      });
    if (direct) {
      how[m] = Transport::direct;
    } else {
      window_of[m].reset();
      list.clear();
    }
  }
  return window_of;
}

/// Calls f(m, segments) for every sent message m that its receiver could read in place: to
/// a rank of this node, not empty, with few enough segments to describe.
template <class F>
void for_each_readable_send(const Plan& plan, const std::vector<bool>& on_node, F&& f) {
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    const Message& msg = plan.send.messages[m];
    const index_t count = segments_in(plan.send, msg);
    if (on_node[static_cast<std::size_t>(msg.peer)] && msg.count > 0 && describable(count))
      f(m, count);
  }
}

/// Marks the messages to ranks of this node that go cross-memory (not direct, under
/// `policy`) and fills their segments' addresses in binding order.
template <class T, class Source>
void find_cross_memory_sends(const Plan& plan, const Chunking& sent,
                             const std::vector<bool>& on_node, TransportPolicy policy,
                             const Source& source, std::vector<Transport>& how,
                             std::vector<std::vector<Address<T>>>& segments) {
  for_each_readable_send(plan, on_node, [&](std::size_t m, index_t count) {
    const Message& msg = plan.send.messages[m];
    if (how[m] != Transport::point_to_point ||
        (policy == TransportPolicy::automatic &&
         msg.elements * static_cast<index_t>(sizeof(T)) <
             cross_memory_min_piece_bytes * columns_in(plan, plan.send, msg)))
      return;
    how[m] = Transport::cross_memory;
    std::vector<Address<T>>& list = segments[m];
    list.reserve(static_cast<std::size_t>(count));
    for_each_sent_segment(plan, sent, m, [&](index_t part, const Piece& r, const Piece& col) {
      list.push_back(source(part, r, col));
      return true;
    });
  });
}

/// Marks the messages to ranks of this node that go device-ipc: those whose segments all
/// lie in device allocations that can be exported, which `exports` then lists.
template <class T, class Source>
void find_device_sends(const Plan& plan, const Chunking& sent, const std::vector<bool>& on_node,
                       const Source& source, std::vector<Transport>& how,
                       std::vector<ipc::Exports>& exports) {
  for_each_readable_send(plan, on_node, [&](std::size_t m, index_t) {
    if (how[m] != Transport::point_to_point) return;
    ipc::Exports e;
    bool ok = true;
    for_each_sent_segment(plan, sent, m, [&](index_t part, const Piece& r, const Piece& col) {
      const Address<T> a = source(part, r, col);
      return ok = e.add(a.first, a.second);
    });
    if (!ok) return;  // not from cudaMalloc: point to point
    how[m] = Transport::device_ipc;
    exports[m] = std::move(e);
  });
}

}  // namespace detail

/// Chooses the transport of every message. Collective over comm. `node_transports`: the
/// shared window, pushes and direct reads may be used (host memory, and
/// ExecutionOptions::node_paths(), agreed by every rank); `device_reads`: device IPC may
/// be used (device memory that can be mapped, and node paths on); `pushes`: messages may
/// be pushed (the transform only copies; agreed), `push_min_run_bytes` deciding which
/// (ExecutionOptions::push_min_run_bytes). `source(part, r, c)` and `target(part,
/// r, c)`: the address of a segment in the source and the target
/// (engine/matrix_sides.hpp); `sent`, `received`: the messages' chunks.
template <class T, class Source, class Target>
TransportChoice<T> choose_transports(const boost::mpi::communicator& comm, const Plan& plan,
                                     const Chunking& sent, const Chunking& received,
                                     bool node_transports, bool device_reads, bool pushes,
                                     index_t push_min_run_bytes, TransportPolicy policy,
                                     bool transposed, const Source& source, const Target& target) {
  TransportChoice<T> choice;
  choice.send.assign(plan.send.messages.size(), Transport::point_to_point);
  choice.recv.assign(plan.recv.messages.size(), Transport::point_to_point);
  choice.described.resize(plan.recv.messages.size());
  choice.peer_pid.assign(plan.recv.messages.size(), 0);
  const bool reads_allowed =
      policy == TransportPolicy::automatic || policy == TransportPolicy::cross_memory;
  device_reads = device_reads && reads_allowed;
  if (!node_transports && !device_reads) return choice;
  // Which peers share the node. Every rank goes on (the window that follows is
  // collective); one alone on its node just sends everything point to point.
  const std::vector<int>& node_rank = node_map(comm).rank_in_node;
  std::vector<bool> on_node(node_rank.size(), false);
  for (std::size_t r = 0; r < node_rank.size(); ++r) on_node[r] = node_rank[r] >= 0;
  if (node_transports && pushes && policy == TransportPolicy::automatic)
    agree_pushes<T>(comm, plan, received, on_node, push_min_run_bytes, target, choice);
  std::vector<std::vector<Address<T>>> segments(plan.send.messages.size());
  std::vector<std::shared_ptr<redist::detail::NodeWindow>> window_of(plan.send.messages.size());
  if (node_transports)
    window_of =
        detail::find_direct_sends<T>(comm, plan, sent, transposed, source, choice.send, segments);
  std::vector<ipc::Exports> exports(device_reads ? plan.send.messages.size() : 0);
  if (device_reads || (node_transports && reads_allowed)) {
    const Permission& reads = device_reads ? ipc::permission(comm) : cma::permission(comm);
    if (reads.allowed && device_reads)
      detail::find_device_sends<T>(plan, sent, on_node, source, choice.send, exports);
    else if (reads.allowed)
      detail::find_cross_memory_sends<T>(plan, sent, on_node, policy, source, choice.send,
                                         segments);
    else if (policy == TransportPolicy::cross_memory)
      choice.cross_memory_refused = reads.reason;
  }
  if (node_transports) {
    for (std::size_t m = 0; m < plan.send.messages.size(); ++m)
      if (on_node[static_cast<std::size_t>(plan.send.messages[m].peer)] &&
          choice.send[m] == Transport::point_to_point)
        choice.send[m] = Transport::shared_window;
    for (std::size_t m = 0; m < plan.recv.messages.size(); ++m)
      if (on_node[static_cast<std::size_t>(plan.recv.messages[m].peer)] &&
          choice.recv[m] != Transport::push)
        choice.recv[m] = Transport::shared_window;  // or read in place: see the descriptions
  }
  detail::exchange_descriptions(comm, plan, on_node, window_of, segments, exports, choice);
  return choice;
}

/// Lays out the buffers of the messages as `choice` sends them, with the node window's
/// messages in `rings` where it has slots (transport/ring_slots.hpp), and allocates them:
/// in this rank's part of a new node window when `node_transports` (collective over comm;
/// peers read its send part and rings), else privately. Fills choice.window and
/// choice.peer_part when the node has other ranks, and with rings choice.ring_signals.
template <class T, class MemorySpace>
void lay_out_buffers(const boost::mpi::communicator& comm, const Plan& plan, bool node_transports,
                     TransportChoice<T>& choice, MessageBuffers<T, MemorySpace>& buffers,
                     const RingSlots& rings = {}) {
  buffers.lay_out_sends(plan.send, choice.send, rings.slots > 0);
  buffers.lay_out_rings(rings, plan.send);
  buffers.lay_out_receives(plan.recv, choice.recv);
  if (!node_transports) {
    buffers.allocate();
    return;
  }
  // Packs write a message before its reader is told of it: nothing needs zeroing.
  auto window = redist::detail::NodeWindow::create(
      comm,
      static_cast<std::size_t>(redist::detail::checked_mul(
          buffers.elements(), static_cast<index_t>(sizeof(T)), "window bytes")),
      redist::detail::NodeWindow::Fill::fault);
  buffers.allocate(window);
  // Collective: before a rank alone on its node leaves.
  if (rings.slots > 0) choice.ring_signals = RingSignals::create(comm, rings.slots);
  if (window->node_size() < 2) return;
  choice.peer_part.assign(static_cast<std::size_t>(comm.size()), nullptr);
  const std::vector<int> window_rank = window->node_ranks(comm);
  for (std::size_t r = 0; r < window_rank.size(); ++r)
    if (window_rank[r] >= 0)
      choice.peer_part[r] = reinterpret_cast<const T*>(window->base(window_rank[r]));
  choice.window = std::move(window);
}

}  // namespace redist::transport
