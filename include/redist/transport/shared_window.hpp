#pragma once
/// @file transport/shared_window.hpp
/// SharedWindow (transport/transport.hpp), for ranks of one node: the sender packs into
/// its part of an MPI-3 shared window (node_shared.hpp) and sends an 8-byte note with the
/// chunk's offset there; the receiver unpacks straight from the sender's memory and acks.
/// No copy by MPI (Cao et al. 2021, Eq. 4 loses its M_remote / B_net term).
///
/// With rings (Link::ring, transport/ring_slots.hpp) each chunk lies in a slot of a ring
/// and is acked as soon as it is unpacked, in chunk order, which frees its slot for a later
/// chunk: pack and unpack meet in the shared cache. Without, a batch's messages lie whole
/// in the sender's part and each is acked once all its chunks are unpacked, which frees
/// the part for the next batch.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <redist/node_shared.hpp>
#include <redist/transport/link.hpp>
#include <redist/transport/ring_slots.hpp>

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
    note_out_.assign(link_->messages.graph->send.chunks.size(), 0);
  }
  const std::shared_ptr<redist::detail::NodeWindow>& window() const { return window_; }

  void begin() {
    next_note_.assign(link_->messages.graph->recv.begin.size() - 1, 0);
    if (!link_->ring) return;
    unpacked_.assign(link_->messages.graph->recv.chunks.size(), 0);
    const auto& begin = link_->messages.graph->recv.begin;
    next_ack_.assign(begin.begin(), begin.end() - 1);
  }

  /// Expects one note per chunk of message m, notes_ahead at a time.
  void post_receives(std::size_t m) {
    next_note_[m] = link_->messages.received_chunks(m).first;
    for (std::size_t k = 0; k < notes_ahead; ++k) post_next_note(m);
  }

  /// Chunk c is packed in our part: publish it and tell the receiver where it lies; in a
  /// ring, expect its ack.
  void ship(std::size_t c) {
    const Chunk& ch = link_->messages.sent_chunk(c);
    const Message& msg = link_->messages.sent(ch.message);
    window_->publish();
    note_out_[c] =
        static_cast<std::int64_t>(link_->buffers->chunk_offset(ch.message, c, ch.offset));
    link_->requests->post_send(link_->comm.isend(msg.peer, data_tag(msg.batch), &note_out_[c], 1),
                               {msg.peer, 8});
    if (link_->ring)
      link_->requests->post({kind, Signal::ack, c}, link_->comm.irecv(msg.peer, ack_tag),
                            {msg.peer, 0});
  }
  /// Every chunk of m is out: without rings, our part is busy until the receiver acks.
  void shipped(std::size_t m) {
    if (link_->ring) return;
    const int peer = link_->messages.sent(m).peer;
    link_->requests->post({kind, Signal::ack, m}, link_->comm.irecv(peer, ack_tag), {peer, 0});
  }
  /// In a ring, we are done reading the sender's slot of chunk c: acks go in chunk order
  /// (the sender matches them to its chunks in the order it shipped them), so a chunk
  /// unpacked early waits for those before it.
  void unpacked(std::size_t c) {
    if (!link_->ring) return;
    link_->exec->fence();
    unpacked_[c] = 1;
    const std::size_t m = link_->messages.received_chunk(c).message;
    const int peer = link_->messages.received(m).peer;
    const std::size_t end = link_->messages.received_chunks(m).second;
    for (std::size_t& next = next_ack_[m]; next < end && unpacked_[next]; ++next)
      link_->requests->post_send(link_->comm.isend(peer, ack_tag), {peer, 0});
  }
  /// Without rings, we are done reading the sender's part.
  void consumed(std::size_t m) {
    if (link_->ring) return;
    link_->exec->fence();
    const int peer = link_->messages.received(m).peer;
    link_->requests->post_send(link_->comm.isend(peer, ack_tag), {peer, 0});
  }

  template <class Events>
  void complete(const Completion& e, Events& events) {
    if (e.signal == Signal::ack) {
      if (link_->ring)
        events.freed(e.index);
      else
        events.acked(e.index);
      return;
    }
    window_->acquire();
    const std::size_t m = link_->messages.received_chunk(e.index).message;
    post_next_note(m);
    const Message& msg = link_->messages.received(m);
    events.arrived(e.index, peer_part_[static_cast<std::size_t>(msg.peer)] + note_in_[e.index]);
  }

 private:
  /// Note receives outstanding per message. Every outstanding receive costs each poll a
  /// test (one MPI_Testsome scans them all): a message of thousands of ring chunks posted
  /// whole made each chunk cost tens of microseconds. A sender has at most its ring's
  /// slots of a message in flight; notes beyond wait in MPI's unexpected queue.
  static constexpr std::size_t notes_ahead = 2 * default_ring_slots;

  /// Posts the receive of message m's next note, if any is left.
  void post_next_note(std::size_t m) {
    std::size_t& c = next_note_[m];
    if (c >= link_->messages.received_chunks(m).second) return;
    const Message& msg = link_->messages.received(m);
    link_->requests->post({kind, Signal::note, c},
                          link_->comm.irecv(msg.peer, data_tag(msg.batch), &note_in_[c], 1),
                          {msg.peer, 8});
    ++c;
  }

  const Link<T, MemorySpace>* link_;
  std::shared_ptr<redist::detail::NodeWindow> window_;
  std::vector<const T*> peer_part_;     ///< by communicator rank
  std::vector<std::int64_t> note_in_;   ///< per received chunk: its offset in the sender's part
  std::vector<std::int64_t> note_out_;  ///< per sent chunk
  std::vector<std::uint8_t> unpacked_;  ///< per received chunk, with rings
  std::vector<std::size_t> next_ack_;   ///< per received message: its next chunk to ack
  std::vector<std::size_t> next_note_;  ///< per received message: its next note to post
};

}  // namespace redist::transport
