#pragma once
/// @file transport/point_to_point.hpp
/// PointToPoint (transport/transport.hpp): MPI copies each packed chunk from the sender's
/// send part into the receiver's receive part (transport/message_buffers.hpp), in pieces
/// an int count carries. Chunks of one message leave in order, so MPI's ordering per
/// (peer, tag) matches them to the receives posted in the same order. Device memory is
/// staged through host mirrors unless MPI is GPU-aware. A chunk described to MPI
/// (transport/chunk_datatypes.hpp) goes from the source and into the target instead, as one
/// piece: nothing is packed or unpacked for it on that side.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <boost/mpi/exception.hpp>
#include <mpi.h>

#include <redist/transport/chunk_datatypes.hpp>
#include <redist/transport/link.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
class PointToPoint {
 public:
  using value_type = T;
  static constexpr Transport kind = Transport::point_to_point;

  explicit PointToPoint(const Link<T, MemorySpace>* link) : link_(link) {}

  void begin() {
    pieces_left_.assign(link_->messages.graph->recv.chunks.size(), 0);
    staging_in_ = false;  // the last execution ended with a fence
  }

  /// The chunks described to MPI, sent and received (the others go packed).
  void describe(ChunkDatatypes sent, ChunkDatatypes received) {
    sent_ = std::move(sent);
    received_ = std::move(received);
  }
  const ChunkDatatypes& described_sends() const { return sent_; }
  const ChunkDatatypes& described_receives() const { return received_; }

  /// Posts a receive for every piece of every chunk of message m.
  void post_receives(std::size_t m) {
    // The receive part is reused batch after batch: MPI may write it only once the last
    // batch's copies to the device have read it.
    if (staging_in_) {
      link_->exec->fence();
      staging_in_ = false;
    }
    const Message& msg = link_->messages.received(m);
    const auto [first, end] = link_->messages.received_chunks(m);
    char* base = link_->buffers->wire_recv(m);
    for (std::size_t c = first; c < end; ++c) {
      const Chunk& ch = link_->messages.received_chunk(c);
      if (received_.described(c)) {  // into the target, one piece
        MPI_Request raw = MPI_REQUEST_NULL;
        BOOST_MPI_CHECK_RESULT(MPI_Irecv, (MPI_BOTTOM, 1, received_[c], msg.peer,
                                           data_tag(msg.batch), link_->comm, &raw));
        link_->requests->post({kind, Signal::data, c}, adopt_request(link_->comm, raw),
                              {msg.peer, ch.elements * static_cast<index_t>(sizeof(T))});
        ++pieces_left_[c];
        continue;
      }
      char* at = base + ch.offset * static_cast<index_t>(sizeof(T));
      link_->for_each_piece(ch.elements, [&](index_t off, int bytes) {
        link_->requests->post({kind, Signal::data, c},
                              link_->comm.irecv(msg.peer, data_tag(msg.batch), at + off, bytes),
                              {msg.peer, bytes});
        ++pieces_left_[c];
      });
    }
  }

  /// Sends packed chunk c. @pre its packing is complete.
  void ship(std::size_t c) {
    const Chunk& ch = link_->messages.sent_chunk(c);
    const Message& msg = link_->messages.sent(ch.message);
    if (sent_.described(c)) {  // from the source, one piece
      MPI_Request raw = MPI_REQUEST_NULL;
      BOOST_MPI_CHECK_RESULT(
          MPI_Isend, (MPI_BOTTOM, 1, sent_[c], msg.peer, data_tag(msg.batch), link_->comm, &raw));
      link_->requests->post_send(adopt_request(link_->comm, raw),
                                 {msg.peer, ch.elements * static_cast<index_t>(sizeof(T))});
      return;
    }
    if (link_->buffers->staged()) {
      link_->buffers->stage_out(*link_->exec, ch.message, ch.offset, ch.elements);
      link_->exec->fence();
    }
    const char* at =
        link_->buffers->wire_send(ch.message) + ch.offset * static_cast<index_t>(sizeof(T));
    link_->for_each_piece(ch.elements, [&](index_t off, int bytes) {
      link_->requests->post_send(link_->comm.isend(msg.peer, data_tag(msg.batch), at + off, bytes),
                                 {msg.peer, bytes});
    });
  }
  void shipped(std::size_t) {}
  void unpacked(std::size_t) {}
  void consumed(std::size_t) {}

  /// A piece arrived; the last one of a chunk makes it readable in the receive part.
  template <class Events>
  void complete(const Completion& e, Events& events) {
    if (--pieces_left_[e.index] > 0) return;
    if (link_->buffers->staged()) {
      const Chunk& ch = link_->messages.received_chunk(e.index);
      link_->buffers->stage_in(*link_->exec, ch.message, ch.offset, ch.elements);
      staging_in_ = true;
    }
    events.arrived(e.index, nullptr);
  }

 private:
  const Link<T, MemorySpace>* link_;
  std::vector<index_t> pieces_left_;  ///< MPI pieces of each received chunk not in yet
  ChunkDatatypes sent_, received_;
  bool staging_in_ = false;  ///< a copy from the staged receive part may be running
};

}  // namespace redist::transport
