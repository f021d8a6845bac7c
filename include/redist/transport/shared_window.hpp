#pragma once
/// @file transport/shared_window.hpp
/// SharedWindow (transport/transport.hpp), for ranks of one node: the sender packs into
/// its part of an MPI-3 shared window (node_shared.hpp) and sends an 8-byte note with
/// the message's offset there; the receiver unpacks straight from the sender's memory
/// and acks when done, which frees the sender's part for the next batch. No copy by MPI
/// (Cao et al. 2021, Eq. 4 loses its M_remote / B_net term).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <redist/node_shared.hpp>
#include <redist/transport/link.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
class SharedWindow {
 public:
  using value_type = T;
  static constexpr Transport kind = Transport::shared_window;

  explicit SharedWindow(const Link<T, MemorySpace>* link) : link_(link) {}

  /// The node's window of send parts, and each rank's part in it (null off the node).
  void attach(std::shared_ptr<redist::detail::NodeWindow> window, std::vector<const T*> peer_part) {
    window_ = std::move(window);
    peer_part_ = std::move(peer_part);
    note_in_.assign(link_->messages.graph->recv.chunks.size(), 0);
    note_out_.assign(link_->messages.plan->send.messages.size(), 0);
  }
  const std::shared_ptr<redist::detail::NodeWindow>& window() const { return window_; }

  void begin() {}

  /// Expects one note per chunk of message m.
  void post_receives(std::size_t m) {
    const Message& msg = link_->messages.received(m);
    const auto [first, end] = link_->messages.received_chunks(m);
    for (std::size_t c = first; c < end; ++c)
      link_->requests->post({kind, Signal::note, c},
                            link_->comm.irecv(msg.peer, data_tag(msg.batch), &note_in_[c], 1),
                            {msg.peer, 8});
  }

  /// Chunk c is packed in our part: publish it and tell the receiver where its message is.
  void ship(std::size_t c) {
    const std::size_t m = link_->messages.sent_chunk(c).message;
    const Message& msg = link_->messages.sent(m);
    window_->publish();
    note_out_[m] = static_cast<std::int64_t>(link_->buffers->send_offset(m));
    link_->requests->post_send(link_->comm.isend(msg.peer, data_tag(msg.batch), &note_out_[m], 1),
                               {msg.peer, 8});
  }
  /// Every chunk of m is out: our part is busy until the receiver acks.
  void shipped(std::size_t m) {
    const int peer = link_->messages.sent(m).peer;
    link_->requests->post({kind, Signal::ack, m}, link_->comm.irecv(peer, ack_tag), {peer, 0});
  }
  /// We are done reading the sender's part.
  void consumed(std::size_t m) {
    link_->exec->fence();
    const int peer = link_->messages.received(m).peer;
    link_->requests->post_send(link_->comm.isend(peer, ack_tag), {peer, 0});
  }

  template <class Events>
  void complete(const Completion& e, Events& events) {
    if (e.signal == Signal::ack) {
      events.acked(e.index);
      return;
    }
    window_->acquire();
    const Message& msg = link_->messages.received(link_->messages.received_chunk(e.index).message);
    events.arrived(e.index, peer_part_[static_cast<std::size_t>(msg.peer)] + note_in_[e.index]);
  }

 private:
  const Link<T, MemorySpace>* link_;
  std::shared_ptr<redist::detail::NodeWindow> window_;
  std::vector<const T*> peer_part_;     ///< by communicator rank
  std::vector<std::int64_t> note_in_;   ///< per received chunk: its message's offset
  std::vector<std::int64_t> note_out_;  ///< per sent message
};

}  // namespace redist::transport
