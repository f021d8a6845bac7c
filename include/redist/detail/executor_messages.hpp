#pragma once
/// @file detail/executor_messages.hpp
/// The Executor's messages during an execution (executor.hpp): posting a batch's
/// receives, sending packed chunks in order (point to point or as notes for the shared
/// window), and turning completed requests into transport events (Arrive, Ack). Included
/// by executor.hpp after the class; not a header to include on its own.

#include <redist/executor.hpp>

namespace redist {

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::open_batch(index_t k) {
  wait_sends();
  std::vector<std::size_t> msgs;
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
    if (plan_.recv.messages[m].batch == k) msgs.push_back(m);
  const int me = plan_.rank, p = plan_.comm_size;
  std::stable_sort(msgs.begin(), msgs.end(), [&](std::size_t a, std::size_t b) {
    return (plan_.recv.messages[a].peer - me + p) % p < (plan_.recv.messages[b].peer - me + p) % p;
  });
  for (std::size_t m : msgs) {
    const Message& msg = plan_.recv.messages[m];
    const Transport how = graph_.recv_transport[m];
    const std::size_t first = graph_.recv.begin[m], end = graph_.recv.begin[m + 1];
    if (how == Transport::direct) {
      post_request(EventKind::direct, m,
                   comm_.irecv(msg.peer, tag(msg.batch), &note_in_[first], 1));
      continue;
    }
    for (std::size_t c = first; c < end; ++c) {
      if (how == Transport::shared_window) {
        post_request(EventKind::note, c, comm_.irecv(msg.peer, tag(msg.batch), &note_in_[c], 1));
        continue;
      }
      const Chunk& ch = graph_.recv.chunks[c];
      char* base = reinterpret_cast<char*>((staged() ? recv_host_.data() : recv_buf_.data()) +
                                           msg.buffer_offset + ch.offset);
      for_each_piece(ch.elements, [&](index_t off, int bytes) {
        post_request(EventKind::data, c, comm_.irecv(msg.peer, tag(msg.batch), base + off, bytes));
        ++pieces_left_[c];
      });
    }
  }
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::post_ready_chunks(std::size_t m) {
  const std::size_t end = graph_.send.begin[m + 1];
  std::size_t& c = next_post_[m];
  while (c < end && packed_[c]) post_chunk(c++);
  if (c == end && graph_.send_transport[m] == Transport::shared_window)
    post_request(EventKind::ack, m, comm_.irecv(plan_.send.messages[m].peer, ack_tag));
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::post_chunk(std::size_t c) {
  if (stream_pack_) detail::streaming_fence();  // the packed chunk, visible to its reader
  const Chunk& ch = graph_.send.chunks[c];
  const Message& msg = plan_.send.messages[ch.message];
  exec_.fence();  // packing must be done before anyone reads the buffer
  if (graph_.send_transport[ch.message] == Transport::shared_window) {
    // Packed in our window: publish it and send the note (the message's offset).
    window_->publish();
    note_out_[ch.message] = static_cast<std::int64_t>(send_offset(ch.message));
    send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), &note_out_[ch.message], 1));
    return;
  }
  const index_t first = send_offset(ch.message) + ch.offset;
  if (staged()) {
    const std::pair<std::size_t, std::size_t> r(static_cast<std::size_t>(first),
                                                static_cast<std::size_t>(first + ch.elements));
    Kokkos::deep_copy(exec_, Kokkos::subview(send_host_, r), Kokkos::subview(send_buf_, r));
    exec_.fence();
  }
  const T* buf = window_ ? window_send_ : staged() ? send_host_.data() : send_buf_.data();
  const char* base = reinterpret_cast<const char*>(buf + first);
  for_each_piece(ch.elements, [&](index_t off, int bytes) {
    send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), base + off, bytes));
  });
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::handle(std::size_t k) {
  const Event e = events_[k];
  requests_[k] = std::move(requests_.back());
  requests_.pop_back();
  events_[k] = events_.back();
  events_.pop_back();
  switch (e.kind) {
    case EventKind::data:
      if (--pieces_left_[e.index] == 0) arrived(e.index);
      break;
    case EventKind::note: {
      // The sender's window holds the message at offset note_in_[c]: read it in place.
      window_->acquire();
      const Chunk& c = graph_.recv.chunks[e.index];
      const Message& msg = plan_.recv.messages[c.message];
      const T* base = peer_base_[static_cast<std::size_t>(msg.peer)] + note_in_[e.index];
      for (std::size_t k = recv_range_[e.index].first; k < recv_range_[e.index].second; ++k)
        recv_pool_.copies[k].src = base + recv_rel_[k];
      arrived(e.index);
      break;
    }
    case EventKind::direct:
      // The sender's source is ready: its segments are read in place.
      for (const auto& w : direct_windows_) w->acquire();
      for (std::size_t c = graph_.recv.begin[e.index]; c < graph_.recv.begin[e.index + 1]; ++c)
        arrived(c);
      break;
    case EventKind::ack:
      event(graph_.ack_vertex[e.index]);
      break;
  }
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::arrived(std::size_t c) {
  if (staged()) {
    const Chunk& ch = graph_.recv.chunks[c];
    const index_t first = plan_.recv.messages[ch.message].buffer_offset + ch.offset;
    const std::pair<std::size_t, std::size_t> r(static_cast<std::size_t>(first),
                                                static_cast<std::size_t>(first + ch.elements));
    Kokkos::deep_copy(exec_, Kokkos::subview(recv_buf_, r), Kokkos::subview(recv_host_, r));
  }
  event(graph_.arrive_vertex[c]);
}
}  // namespace redist
