#pragma once
/// @file transport/push.hpp
/// Push (transport/transport.hpp), for ranks of one node whose receiver's target lies in
/// node-shared memory (node_shared.hpp): the sender's Send tasks copy the message from its
/// source straight into the receiver's target, one copy per element, read in the sender's
/// own source order (swept with its local copies, engine/fused_sweeps.hpp). Nothing is
/// staged and nothing is unpacked. Where each segment lies in the receiver's target is
/// described once, when the engine is wired (transport/push_targets.hpp).
///
/// Per execution and pushed message: the receiver's start() sends a "free" note (its target
/// may be written from now on: the caller is done with it); the sender's Sends of the
/// message wait for it (task_graph.hpp, Free(m)); once every chunk is written, the sender
/// sends a "written" note carrying the message's ordinal among the pushed messages between
/// the two ranks, and the receiver's Arrives of that message complete. The notes of one
/// pair share a tag: "free" notes all mean the same thing, and "written" notes say by
/// their ordinal which message they close, whatever order the sender finished in.
///
/// Why: through the node window each byte is written to a slot and read back (two passes
/// more than the floor); reading a node-shared source in place makes both ranks read every
/// line of both sources. Writing into the peer's target reads each source once, in order
/// (bench/README.md, "Pushing into the peer's target").

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <redist/copy/host_primitives.hpp>
#include <redist/error.hpp>
#include <redist/node_shared.hpp>
#include <redist/transport/link.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
class Push {
 public:
  using value_type = T;
  static constexpr Transport kind = Transport::push;

  explicit Push(const Link<T, MemorySpace>* link) : link_(link) {}

  /// The node-shared windows of the targets written here (ours, and the receivers'), once
  /// the graph is built.
  void attach(std::vector<std::shared_ptr<redist::detail::NodeWindow>> windows) {
    windows_ = std::move(windows);
    const auto& send_how = link_->messages.graph->send_transport;
    const auto& recv_how = link_->messages.graph->recv_transport;
    std::map<int, std::int64_t> count;  // pushed messages per peer so far
    sent_.clear();
    ordinal_out_.assign(send_how.size(), 0);
    for (std::size_t m = 0; m < send_how.size(); ++m)
      if (send_how[m] == Transport::push) {
        sent_.push_back(m);
        ordinal_out_[m] = count[link_->messages.sent(m).peer]++;
      }
    count.clear();
    received_.clear();
    by_ordinal_.clear();
    for (std::size_t m = 0; m < recv_how.size(); ++m)
      if (recv_how[m] == Transport::push) {
        const int peer = link_->messages.received(m).peer;
        received_.push_back(m);
        by_ordinal_[{peer, count[peer]++}] = m;
      }
    free_in_.assign(send_how.size(), 0);
    written_in_.assign(received_.size(), 0);
    free_out_.assign(received_.size(), 0);
  }

  /// Our target is ours no more until wait(): every sender may write it. The notes that
  /// answer are awaited from now on.
  void begin() {
    for (std::size_t i = 0; i < received_.size(); ++i) {
      const int peer = link_->messages.received(received_[i]).peer;
      link_->requests->post({kind, Signal::written, i},
                            link_->comm.irecv(peer, push_written_tag, &written_in_[i], 1),
                            {peer, 8});
      link_->requests->post_send(link_->comm.isend(peer, push_free_tag, &free_out_[i], 1),
                                 {peer, 8});
    }
    for (const std::size_t m : sent_) {
      const int peer = link_->messages.sent(m).peer;
      link_->requests->post({kind, Signal::free, m},
                            link_->comm.irecv(peer, push_free_tag, &free_in_[m], 1), {peer, 8});
    }
  }

  void post_receives(std::size_t) {}  // posted for the whole execution at begin()
  void ship(std::size_t) {}           // a Send wrote its chunk where it belongs
  /// Every chunk of sent message m is in the receiver's target: it may read it. The Sends'
  /// streamed stores are fenced first: a pushed copy streams where the target does, which
  /// the loop's fence before ship() does not follow (it fences the packs' choice).
  void shipped(std::size_t m) {
    redist::detail::streaming_fence();
    for (const auto& w : windows_) w->publish();
    const int peer = link_->messages.sent(m).peer;
    link_->requests->post_send(link_->comm.isend(peer, push_written_tag, &ordinal_out_[m], 1),
                               {peer, 8});
  }
  void unpacked(std::size_t) {}
  void consumed(std::size_t) {}

  /// A "free" note: sent message m may be written. A "written" note: the received message
  /// of that ordinal is in our target, each of its chunks done.
  /// @throws communication_error if a peer's note names no pushed message of ours.
  template <class Events>
  void complete(const Completion& e, Events& events) {
    if (e.signal == Signal::free) {
      events.writable(e.index);
      return;
    }
    const int peer = link_->messages.received(received_[e.index]).peer;
    const auto it = by_ordinal_.find({peer, written_in_[e.index]});
    if (it == by_ordinal_.end())
      throw communication_error(redist::detail::describe(
          "a peer's note names a pushed message this rank does not receive", "peer", peer));
    for (const auto& w : windows_) w->acquire();
    const auto [first, end] = link_->messages.received_chunks(it->second);
    for (std::size_t c = first; c < end; ++c) events.arrived(c, nullptr);
  }

 private:
  const Link<T, MemorySpace>* link_;
  std::vector<std::shared_ptr<redist::detail::NodeWindow>> windows_;
  std::vector<std::size_t> sent_, received_;  ///< the pushed messages, by index
  std::vector<std::int64_t> ordinal_out_;     ///< per sent message: its note's content
  std::map<std::pair<int, std::int64_t>, std::size_t> by_ordinal_;  ///< (peer, ordinal) -> m
  std::vector<std::int64_t> free_in_, free_out_, written_in_;       ///< the notes' room
};

}  // namespace redist::transport
