#pragma once
/// @file transport/shared_window.hpp
/// SharedWindow (transport/transport.hpp), for ranks of one node: the sender packs into
/// its part of an MPI-3 shared window (node_shared.hpp) and sends an 8-byte note with the
/// chunk's offset there; the receiver unpacks straight from the sender's memory and acks.
/// No copy by MPI (Cao et al. 2021, Eq. 4 loses its M_remote / B_net term).
///
/// With rings (Link::ring, transport/ring_slots.hpp) each chunk lies in a slot of a ring
/// and is acked as soon as it is unpacked, in chunk order, which frees its slot for a later
/// chunk: pack and unpack meet in the shared cache. A ring's notes and acks are counters
/// in shared memory (transport/ring_signals.hpp), read by poll(), not MPI messages.
/// Without rings, a batch's messages lie whole in the sender's part and each is acked once
/// all its chunks are unpacked, which frees the part for the next batch.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <redist/node_shared.hpp>
#include <redist/transport/link.hpp>
#include <redist/transport/ring_signals.hpp>
#include <redist/transport/ring_slots.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
class SharedWindow {
 public:
  using value_type = T;
  static constexpr Transport kind = Transport::shared_window;

  explicit SharedWindow(const Link<T, MemorySpace>* link) : link_(link) {}

  /// The node's window of send parts, and each rank's part in it (null off the node);
  /// with rings, the counters that announce and ack their chunks.
  void attach(std::shared_ptr<redist::detail::NodeWindow> window, std::vector<const T*> peer_part,
              std::shared_ptr<RingSignals> signals = nullptr) {
    window_ = std::move(window);
    peer_part_ = std::move(peer_part);
    note_in_.assign(link_->messages.graph->recv.chunks.size(), 0);
    note_out_.assign(link_->messages.graph->send.chunks.size(), 0);
    signals_ = std::move(signals);
    if (signals_) order_ring_chunks();
  }
  const std::shared_ptr<redist::detail::NodeWindow>& window() const { return window_; }

  void begin() {
    next_note_.assign(link_->messages.graph->recv.begin.size() - 1, 0);
    if (!link_->ring) return;
    unpacked_.assign(link_->messages.graph->recv.chunks.size(), 0);
    const auto& begin = link_->messages.graph->recv.begin;
    next_ack_.assign(begin.begin(), begin.end() - 1);
    for (Peer& p : peers_) {
      p.seen_before = p.seen;
      p.in_flight.clear();
    }
  }

  /// With rings: takes what the peers' counters say (chunks shipped to us, our chunks
  /// unpacked) as events, without blocking; returns how many.
  template <class Events>
  std::size_t poll(Events& events) {
    if (!signals_) return 0;
    std::size_t n = 0;
    bool acquired = false;
    for (Peer& p : peers_) {
      // A peer that is done with this execution may already ship the next one's chunks:
      // they are seen after begin().
      const std::int64_t last = p.seen + p.to_receive();
      const std::int64_t shipped =
          p.seen == last ? p.seen : std::min(signals_->shipped_by(p.rank), last);
      for (; p.seen < shipped; ++p.seen, ++n) {
        if (!acquired) window_->acquire();
        acquired = true;
        const std::size_t c = p.expected[static_cast<std::size_t>(p.seen - p.seen_before)];
        events.arrived(c, peer_part_[static_cast<std::size_t>(p.rank)] +
                              signals_->offset_from(p.rank, p.seen));
      }
      if (p.in_flight.empty()) continue;
      // A receiver acks only what it was shipped: never more than is in flight.
      for (std::int64_t k = signals_->unpacked_by(p.rank) - p.acked();
           k > 0 && !p.in_flight.empty(); --k, ++n) {
        events.freed(p.in_flight.front());
        p.in_flight.pop_front();
      }
    }
    return n;
  }
  /// Whether a ring chunk of this execution is still to arrive or to be acked (poll()
  /// alone will report it: no MPI request stands for it).
  bool awaits_signals() const {
    for (const Peer& p : peers_)
      if (!p.in_flight.empty() || p.to_receive() > 0) return true;
    return false;
  }
  /// What the rings leave outstanding, per peer, for the progress timeout's error:
  /// "rank 3 (5 ring chunks to receive, 2 to be freed), ...".
  std::string ring_outstanding() const {
    std::ostringstream os;
    const char* sep = "";
    for (const Peer& p : peers_) {
      if (p.to_receive() == 0 && p.in_flight.empty()) continue;
      os << sep << "rank " << p.rank << " (" << p.to_receive() << " ring chunks to receive, "
         << p.in_flight.size() << " to be freed)";
      sep = ", ";
    }
    return os.str();
  }

  /// Expects one note per chunk of message m, notes_ahead at a time (with rings, the
  /// counters announce them: nothing to post).
  void post_receives(std::size_t m) {
    if (signals_) return;
    next_note_[m] = link_->messages.received_chunks(m).first;
    for (std::size_t k = 0; k < notes_ahead; ++k) post_next_note(m);
  }

  /// Chunk c is packed in our part: publish it and tell the receiver where it lies; in a
  /// ring, through the counters, and expect its ack there.
  void ship(std::size_t c) {
    const Chunk& ch = link_->messages.sent_chunk(c);
    const Message& msg = link_->messages.sent(ch.message);
    window_->publish();
    const auto offset =
        static_cast<std::int64_t>(link_->buffers->chunk_offset(ch.message, c, ch.offset));
    if (signals_) {
      Peer& p = peer(msg.peer);
      signals_->ship(msg.peer, p.shipped++, offset);
      p.in_flight.push_back(c);
      return;
    }
    note_out_[c] = offset;
    link_->requests->post_send(link_->comm.isend(msg.peer, data_tag(msg.batch), &note_out_[c], 1),
                               {msg.peer, 8});
  }
  /// Every chunk of m is out: without rings, our part is busy until the receiver acks.
  void shipped(std::size_t m) {
    if (link_->ring) return;
    const int peer = link_->messages.sent(m).peer;
    link_->requests->post({kind, Signal::ack, m}, link_->comm.irecv(peer, ack_tag), {peer, 0});
  }
  /// In a ring, we are done reading the sender's slot of chunk c: acks go in chunk order
  /// (the sender frees its chunks in the order it shipped them), so a chunk unpacked early
  /// waits for those before it.
  void unpacked(std::size_t c) {
    if (!link_->ring) return;
    link_->exec->fence();
    unpacked_[c] = 1;
    const std::size_t m = link_->messages.received_chunk(c).message;
    const int from = link_->messages.received(m).peer;
    const std::size_t end = link_->messages.received_chunks(m).second;
    Peer& p = peer(from);
    const std::int64_t before = p.unpacked;
    for (std::size_t& next = next_ack_[m]; next < end && unpacked_[next]; ++next) ++p.unpacked;
    if (p.unpacked > before) signals_->unpacked(from, p.unpacked);
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
  /// Note receives outstanding per message, without rings. Every outstanding receive
  /// costs each poll a test (one MPI_Testsome scans them all): a message of thousands of
  /// chunks posted whole made each chunk cost tens of microseconds. Notes beyond wait in
  /// MPI's unexpected queue.
  static constexpr std::size_t notes_ahead = 8;

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

  /// A peer of a ring: what it ships us, in order, and what we ship it. Counts run over
  /// every execution, as the counters do.
  struct Peer {
    int rank = 0;
    std::vector<std::size_t> expected{};  ///< received chunks from it, in shipping order
    std::int64_t seen = 0;                ///< its chunks seen
    std::int64_t seen_before = 0;         ///< ... before this execution
    std::int64_t unpacked = 0;            ///< its chunks we unpacked, in order
    std::int64_t shipped = 0;             ///< our chunks to it
    std::deque<std::size_t> in_flight{};  ///< our chunks to it not freed yet, in order

    /// Its chunks of this execution not seen yet.
    std::int64_t to_receive() const {
      return static_cast<std::int64_t>(expected.size()) - (seen - seen_before);
    }
    /// Our chunks it has unpacked (freed), all executions together.
    std::int64_t acked() const { return shipped - static_cast<std::int64_t>(in_flight.size()); }
  };

  Peer& peer(int rank) { return peers_[peer_index_[static_cast<std::size_t>(rank)]]; }

  /// The peers of the rings and the order their chunks come in: a message per peer and
  /// batch, batches in order, a message's chunks in order; the sender ships them so.
  void order_ring_chunks() {
    const Messages& msgs = link_->messages;
    const auto& graph = *msgs.graph;
    peer_index_.assign(static_cast<std::size_t>(link_->comm.size()), SIZE_MAX);
    const auto add = [&](int rank) -> Peer& {
      std::size_t& k = peer_index_[static_cast<std::size_t>(rank)];
      if (k == SIZE_MAX) {
        k = peers_.size();
        peers_.push_back(Peer{rank});
      }
      return peers_[k];
    };
    std::vector<std::size_t> received;
    for (std::size_t m = 0; m < msgs.plan->recv.messages.size(); ++m)
      if (graph.recv_transport[m] == Transport::shared_window) received.push_back(m);
    std::stable_sort(received.begin(), received.end(), [&](std::size_t a, std::size_t b) {
      return msgs.received(a).batch < msgs.received(b).batch;
    });
    for (const std::size_t m : received) {
      Peer& p = add(msgs.received(m).peer);
      for (auto [c, end] = msgs.received_chunks(m); c < end; ++c) p.expected.push_back(c);
    }
    for (std::size_t m = 0; m < msgs.plan->send.messages.size(); ++m)
      if (graph.send_transport[m] == Transport::shared_window) add(msgs.sent(m).peer);
  }

  const Link<T, MemorySpace>* link_;
  std::shared_ptr<redist::detail::NodeWindow> window_;
  std::shared_ptr<RingSignals> signals_;  ///< with rings
  std::vector<Peer> peers_;
  std::vector<std::size_t> peer_index_;  ///< per communicator rank: its Peer, or SIZE_MAX
  std::vector<const T*> peer_part_;      ///< by communicator rank
  std::vector<std::int64_t> note_in_;    ///< per received chunk: its offset in the sender's part
  std::vector<std::int64_t> note_out_;   ///< per sent chunk
  std::vector<std::uint8_t> unpacked_;   ///< per received chunk, with rings
  std::vector<std::size_t> next_ack_;    ///< per received message: its next chunk to ack
  std::vector<std::size_t> next_note_;   ///< per received message: its next note to post
};

}  // namespace redist::transport
