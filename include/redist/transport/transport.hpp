#pragma once
/// @file transport/transport.hpp
/// The transport seam of the executor (executor.hpp): how a message's bytes get from the
/// sender to where the receiver's unpack reads them. The executor's loop only posts,
/// tests and completes through a MessageTransport; it never calls MPI for a message.
///
/// | model        | header                       | the receiver's unpack reads            |
/// |--------------|------------------------------|----------------------------------------|
/// | PointToPoint | transport/point_to_point.hpp | its receive buffer, filled by MPI (host |
/// |              |                              | staged for device memory without        |
/// |              |                              | GPU-aware MPI)                          |
/// | SharedWindow | transport/shared_window.hpp  | the sender's send buffer, in the node's |
/// |              |                              | shared window                           |
/// | Direct       | transport/direct.hpp         | the sender's node-shared source tiles   |
/// | Push         | transport/push.hpp           | nothing: the sender wrote the message   |
/// |              |                              | into the receiver's node-shared target  |
///
/// Which model carries each message is chosen collectively at connect()
/// (transport/choose.hpp); where each message lies in the buffers is computed once, after
/// that, by MessageBuffers (transport/message_buffers.hpp).

#include <concepts>
#include <cstddef>
#include <cstdint>

#include <boost/mpi/communicator.hpp>

#include <redist/index.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

namespace redist::transport {

/// What a completed request meant to the transport that posted it.
enum class Signal : std::uint8_t {
  data,    ///< a piece of a chunk's bytes arrived (index: received chunk)
  note,    ///< the sender says a chunk or message is readable in its memory (index: chunk
           ///< for the window, received message for direct)
  ack,     ///< the receiver is done reading our memory (index: sent message; sent chunk for
           ///< a ring slot of the window)
  free,    ///< the receiver's target may be written (push; index: sent message)
  written  ///< the sender wrote a pushed message (index: the note's slot, transport/push.hpp)
};

/// A completed request: which transport posted it, and what it meant.
struct Completion {
  Transport how = Transport::point_to_point;
  Signal signal = Signal::data;
  std::size_t index = 0;
};

/// MPI tags: messages of batch k use data_tag(k); notes travel with them (in order).
inline constexpr int tag_base = 7100;
inline constexpr int ack_tag = tag_base - 1;
inline constexpr int describe_tag = tag_base - 2;
/// Acks of messages read in place (transport/direct.hpp), apart from the window's: both are
/// posted between the same two ranks, the window's per batch, these for the whole run,
/// and one kind must never complete the other's request (a window ack taken as a later
/// batch's read ack held that batch's Finish forever).
inline constexpr int read_ack_tag = tag_base - 3;
/// Pushed messages (transport/push.hpp): the receiver's "target free" notes, and the
/// sender's "written" notes, each a tag of its own for the whole run.
inline constexpr int push_free_tag = tag_base - 4;
inline constexpr int push_written_tag = tag_base - 5;
inline int data_tag(index_t batch) { return tag_base + static_cast<int>(batch % 16384); }

/// What a transport reports to the executor: received chunk c is readable (at `at`, where
/// the chunk starts, or, when null, where the copies were bound); sent message m is
/// acknowledged; sent chunk c's ring slot is free again (transport/ring_slots.hpp); the
/// receiver's target of sent message m may be written (transport/push.hpp).
template <class S, class T>
concept TransportEvents = requires(S& s, std::size_t i, const T* at) {
  s.arrived(i, at);
  s.acked(i);
  s.freed(i);
  s.writable(i);
};

namespace detail {
/// The least a TransportEvents sink must do, to state the concept with.
template <class T>
struct EventsArchetype {
  void arrived(std::size_t, const T*) {}
  void acked(std::size_t) {}
  void freed(std::size_t) {}
  void writable(std::size_t) {}
};
}  // namespace detail

/// A transport: the executor tells it when a batch opens (post_receives, per received
/// message), when a sent chunk is packed (ship), when a sent message is out (shipped),
/// when a received chunk and then a whole message are unpacked (unpacked, consumed), and
/// hands it the completions of the requests it posted (complete), which it turns into
/// events.
template <class X>
concept MessageTransport = requires(X& x, std::size_t i, const Completion& e,
                                    detail::EventsArchetype<typename X::value_type>& sink) {
  typename X::value_type;
  { X::kind } -> std::convertible_to<Transport>;
  x.begin();            // an execution starts
  x.post_receives(i);   // received message i: its batch opened
  x.ship(i);            // sent chunk i is packed
  x.shipped(i);         // sent message i: every chunk shipped
  x.unpacked(i);        // received chunk i: unpacked
  x.consumed(i);        // received message i: every chunk unpacked
  x.complete(e, sink);  // a request it posted completed
};

/// The messages of one execution as the transports see them: the plan, its chunks and
/// the chosen transport of each message.
struct Messages {
  const Plan* plan = nullptr;
  const TaskGraph* graph = nullptr;

  const Message& sent(std::size_t m) const { return plan->send.messages[m]; }
  const Message& received(std::size_t m) const { return plan->recv.messages[m]; }
  const Chunk& sent_chunk(std::size_t c) const { return graph->send.chunks[c]; }
  const Chunk& received_chunk(std::size_t c) const { return graph->recv.chunks[c]; }
  /// Chunks [first, end) of received message m.
  std::pair<std::size_t, std::size_t> received_chunks(std::size_t m) const {
    return {graph->recv.begin[m], graph->recv.begin[m + 1]};
  }
};

}  // namespace redist::transport
