#pragma once
/// @file transport/push_targets.hpp
/// Which messages are pushed (transport/push.hpp), and where each of their segments lies in
/// the receiver's target: two exchanges from every receiver to its senders on the node.
/// 1. agree_pushes, when the transports are chosen and before the others
///    (transport/choose.hpp): per received message from a rank of this node, a head
///    {1, window id, receiver's node rank} when every segment of its target lies in one
///    node-shared window (node_shared.hpp) that the sender is part of and its runs there
///    are long enough (isolated_short_runs), else {0, 0, 0}. Both ends then know that the
///    message is pushed.
/// 2. describe_push_targets, once the chunks are final (pushed messages are cut like the
///    node window's, engine/wired.hpp): per pushed message, its segments' byte offsets in
///    the receiver's part of the window and their leading dimensions, in binding order
///    (chunk by chunk of the receiver's chunks, which the sender cuts alike).
/// A private target costs one look-up per message: its first segment settles it.

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>

#include <redist/engine/chunking.hpp>
#include <redist/error.hpp>
#include <redist/node_shared.hpp>
#include <redist/plan.hpp>
#include <redist/transport/describe.hpp>
#include <redist/transport/transport.hpp>

namespace redist::transport {

/// Tag of both exchanges: each completes (wait_all) before the next round of wiring.
inline constexpr int push_describe_tag = tag_base - 6;

namespace detail {

/// Whether a target segment of `rows` x `cols` elements of `element_bytes`, leading
/// dimension `ld`, is a stack of short runs that nothing continues: its rows fill its
/// target columns (ld == rows: a tile's whole column) and are fewer than `min_run_bytes`.
/// A push writes such a segment a run per source column, scattered over as many tiles as
/// the column crosses; the node window's receiver writes each tile whole. Into 32-row
/// tiles of doubles (256-byte runs) pushing measured 1.28-1.38x slower than the node
/// window's ring on the same target, into 64-row tiles 0.80x (bench/README.md,
/// "Stitched stores"). A segment that is part of a taller column (ScaLAPACK storage)
/// continues in its neighbours, and the sweep stitches them (copy/stitched_stores.hpp).
inline bool isolated_short_runs(index_t rows, index_t ld, std::size_t element_bytes,
                                index_t min_run_bytes) {
  return ld == rows && rows * static_cast<index_t>(element_bytes) < min_run_bytes;
}

/// The window of this rank's node whose part for this rank holds every target segment of
/// received message m, if its sender is part of it and at most half of the message's
/// elements lie in isolated short runs (isolated_short_runs; else null). `target(part, r,
/// c)`: a segment's address and leading dimension.
template <class T, class Target>
std::shared_ptr<redist::detail::NodeWindow> target_window(const boost::mpi::communicator& comm,
                                                          const Plan& plan,
                                                          const Chunking& received, std::size_t m,
                                                          index_t min_run_bytes,
                                                          const Target& target) {
  using redist::detail::NodeWindow;
  const auto peer = static_cast<std::size_t>(plan.recv.messages[m].peer);
  std::shared_ptr<NodeWindow> w, all;
  std::vector<int> members;
  bool one = true;
  index_t elements = 0, short_elements = 0;
  engine::for_each_message_segment(
      plan, plan.recv, received, m, [&](index_t part, const Piece& r, const Piece& col) {
        const auto [p, ld] = target(part, r, col);
        elements += r.length * col.length;
        if (isolated_short_runs(r.length, ld, sizeof(T), min_run_bytes))
          short_elements += r.length * col.length;
        const auto bytes =
            static_cast<std::size_t>((r.length - 1) + (col.length - 1) * ld + 1) * sizeof(T);
        if (!w || !w->owns(p, bytes)) {
          w = NodeWindow::find(p, bytes);
          members = w ? w->node_ranks(comm) : std::vector<int>{};
        }
        // In this rank's own part: the offsets described are from its start.
        const char* own = w ? w->base(w->node_rank()) : nullptr;
        const auto* at = reinterpret_cast<const char*>(p);
        one = w && (!all || w == all) && members[peer] >= 0 && at >= own &&
              at + bytes <= own + w->bytes(w->node_rank());
        all = w;
        return one;
      });
  return one && 2 * short_elements <= elements ? all : nullptr;
}

template <class T>
void add_push_window(TransportChoice<T>& choice, std::shared_ptr<redist::detail::NodeWindow> w) {
  auto& list = choice.push_windows;
  for (const auto& x : list)
    if (x == w) return;
  list.push_back(std::move(w));
}

}  // namespace detail

/// Step 1: marks the messages whose target lies in a node-shared window their sender maps
/// (and whose runs there are at least `min_run_bytes` long, or continue: target_window),
/// pushed at both ends (choice.send and choice.recv), and fills choice.push_part,
/// choice.own_part and choice.push_windows. `received`: the received messages' chunks; `on_node`:
/// per rank, whether it shares this node. Collective over the ranks of this node that exchange
/// messages; every rank calls it or none (an agreed choice).
/// @throws communication_error if a receiver's window is not mapped here.
template <class T, class Target>
void agree_pushes(const boost::mpi::communicator& comm, const Plan& plan, const Chunking& received,
                  const std::vector<bool>& on_node, index_t min_run_bytes, const Target& target,
                  TransportChoice<T>& choice) {
  using Head = std::array<std::int64_t, 3>;
  choice.push_part.assign(plan.send.messages.size(), {});
  choice.own_part.assign(plan.recv.messages.size(), {});
  std::vector<Head> head_in(plan.send.messages.size()), head_out(plan.recv.messages.size());
  std::vector<boost::mpi::request> requests;
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    const int peer = plan.send.messages[m].peer;
    if (on_node[static_cast<std::size_t>(peer)])
      requests.push_back(comm.irecv(peer, push_describe_tag, head_in[m].data(), 3));
  }
  for (std::size_t m = 0; m < plan.recv.messages.size(); ++m) {
    const Message& msg = plan.recv.messages[m];
    if (!on_node[static_cast<std::size_t>(msg.peer)]) continue;
    head_out[m] = {0, 0, 0};
    if (msg.count > 0 && detail::describable(detail::segments_in(plan.recv, msg)))
      if (auto w = detail::target_window<T>(comm, plan, received, m, min_run_bytes, target)) {
        head_out[m] = {1, static_cast<std::int64_t>(w->id()), w->node_rank()};
        choice.own_part[m] = {w->base(w->node_rank()), w->bytes(w->node_rank())};
        choice.recv[m] = Transport::push;
        detail::add_push_window(choice, std::move(w));
      }
    requests.push_back(comm.isend(msg.peer, push_describe_tag, head_out[m].data(), 3));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    if (head_in[m][0] != 1) continue;
    const int peer = plan.send.messages[m].peer;
    auto w = redist::detail::NodeWindow::find(static_cast<std::uint64_t>(head_in[m][1]));
    if (!w || head_in[m][2] < 0 || head_in[m][2] >= w->node_size())
      throw communication_error(redist::detail::describe(
          "node-shared target memory of a peer is not mapped here", "peer", peer));
    const int part = static_cast<int>(head_in[m][2]);
    choice.push_part[m] = {w->base(part), w->bytes(part)};
    choice.send[m] = Transport::push;
    detail::add_push_window(choice, std::move(w));
  }
}

/// Step 2: every pushed message's target segments, from its receiver to its sender, in
/// binding order: fills choice.targets. `sent` and `received`: the final chunks, cut
/// alike at both ends. Collective like agree_pushes.
/// @throws communication_error if a peer describes a segment outside its part of the window,
/// with a leading dimension below 1, or more segments than this rank binds.
template <class T, class Target>
void describe_push_targets(const boost::mpi::communicator& comm, const Plan& plan,
                           const Chunking& sent, const Chunking& received, const Target& target,
                           TransportChoice<T>& choice) {
  choice.targets.assign(plan.send.messages.size(), {});
  std::vector<std::vector<std::int64_t>> in(plan.send.messages.size()),
      out(plan.recv.messages.size());
  std::vector<boost::mpi::request> requests;
  const auto words = [](index_t segments, int peer) {
    if (segments > INT_MAX / 2)
      throw communication_error(redist::detail::describe(
          "a pushed message has too many segments to describe", "peer", peer));
    return static_cast<std::size_t>(2 * segments);
  };
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    if (choice.send[m] != Transport::push) continue;
    const int peer = plan.send.messages[m].peer;
    index_t n = 0;
    engine::for_each_message_segment(plan, plan.send, sent, m, [&n](index_t, auto&, auto&) {
      ++n;
      return true;
    });
    in[m].resize(words(n, peer));
    requests.push_back(
        comm.irecv(peer, push_describe_tag, in[m].data(), static_cast<int>(in[m].size())));
  }
  for (std::size_t m = 0; m < plan.recv.messages.size(); ++m) {
    if (choice.recv[m] != Transport::push) continue;
    const int peer = plan.recv.messages[m].peer;
    const char* base = choice.own_part[m].base;
    engine::for_each_message_segment(plan, plan.recv, received, m,
                                     [&](index_t part, const Piece& r, const Piece& col) {
                                       const auto [p, ld] = target(part, r, col);
                                       out[m].push_back(reinterpret_cast<const char*>(p) - base);
                                       out[m].push_back(ld);
                                       return true;
                                     });
    words(static_cast<index_t>(out[m].size() / 2), peer);
    requests.push_back(
        comm.isend(peer, push_describe_tag, out[m].data(), static_cast<int>(out[m].size())));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    if (choice.send[m] != Transport::push) continue;
    const int peer = plan.send.messages[m].peer;
    const auto [base, bytes] = choice.push_part[m];
    auto& list = choice.targets[m];
    list.reserve(in[m].size() / 2);
    for (std::size_t i = 0; i + 1 < in[m].size(); i += 2) {
      const std::int64_t offset = in[m][i], ld = in[m][i + 1];
      if (ld < 1 || offset < 0 || static_cast<std::size_t>(offset) >= bytes)
        throw communication_error(redist::detail::describe(
            "a peer described a target segment outside its node-shared window", "peer", peer));
      list.emplace_back(reinterpret_cast<T*>(base + offset), ld);
    }
  }
}

}  // namespace redist::transport
