#pragma once
/// @file detail/executor_transport.hpp
/// The Executor's set-up at connect() (executor.hpp), collective over its communicator:
/// the buffer layout each pair of ranks agrees on per message, the node's shared send
/// window, and the direct messages read in place from a node-shared source
/// (node_shared.hpp). Included by executor.hpp after the class; not a header to include
/// on its own.

#include <redist/executor.hpp>

namespace redist {

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::setup_transport() {
  transport_ready_ = true;
  choose_buffer_layouts();
  if constexpr (host_memory)
    if (options_.shared_window) connect_node();
  fuse_buffer_copies();
  // The chunks are the same as before (same plan, same chunk size); the transports and
  // with them the Ack tasks are new.
  graph_ = make_task_graph(plan_, chunk_elements(), graph_.send_transport, graph_.recv_transport);
  compile_graph();
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::connect_node() {
  const auto source_window = find_direct_sends();
  // The send buffer holds only the messages that are still packed, compacted per batch.
  index_t need = 0, used = 0;
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    const Message& msg = plan_.send.messages[m];
    if (m == 0 || msg.batch != plan_.send.messages[m - 1].batch) used = 0;
    if (graph_.send_transport[m] == Transport::direct) continue;
    send_offset_[m] = used;
    used += msg.elements;
    need = std::max(need, used);
  }
  window_ = detail::NodeWindow::create(comm_, static_cast<std::size_t>(need) * sizeof(T));
  if (window_->node_size() < 2) {
    window_.reset();  // alone on the node: plain MPI messages
    return;
  }
  const std::vector<int> node_rank = window_->node_ranks(comm_);
  peer_base_.assign(static_cast<std::size_t>(comm_.size()), nullptr);
  on_node_.assign(static_cast<std::size_t>(comm_.size()), false);
  for (std::size_t r = 0; r < node_rank.size(); ++r) {
    if (node_rank[r] < 0) continue;
    peer_base_[r] = reinterpret_cast<const T*>(window_->base(node_rank[r]));
    on_node_[r] = true;
  }
  // Pack into the window from now on; the Kokkos send buffer is no longer needed.
  window_send_ = reinterpret_cast<T*>(window_->base(window_->node_rank()));
  window_bytes_ = need * static_cast<index_t>(sizeof(T));
  for (std::size_t s = 0; s < plan_.send.segments.size(); ++s)
    send_copies_[s].dst = window_send_ + send_offset_[graph_.send.message_of[s]] + send_rel_[s];
  send_buf_ = buffer_view();
  send_host_ = typename buffer_view::HostMirror();
  bool off_node_recv = false;
  for (const Message& msg : plan_.recv.messages)
    off_node_recv = off_node_recv || !on_node_[static_cast<std::size_t>(msg.peer)];
  if (!off_node_recv) {
    recv_buf_ = buffer_view();
    recv_host_ = typename buffer_view::HostMirror();
  }
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m)
    if (on_node_[static_cast<std::size_t>(plan_.send.messages[m].peer)] &&
        graph_.send_transport[m] != Transport::direct)
      graph_.send_transport[m] = Transport::shared_window;
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
    if (on_node_[static_cast<std::size_t>(plan_.recv.messages[m].peer)])
      graph_.recv_transport[m] = Transport::shared_window;  // direct ones: see below
  note_in_.assign(graph_.recv.chunks.size(), 0);
  note_out_.assign(plan_.send.messages.size(), 0);
  exchange_descriptions(source_window);
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::fuse_buffer_copies() {
  // Buffer positions are relative to the message, so fusing holds wherever the buffer
  // ends up (the node's shared window, say). Direct messages have no buffer side.
  for (const Chunk& c : graph_.send.chunks)
    if (graph_.send_transport[c.message] != Transport::direct)
      fuse_adjacent(send_copies_, static_cast<std::size_t>(c.first),
                    static_cast<std::size_t>(c.end));
  for (const Chunk& c : graph_.recv.chunks)
    if (graph_.recv_transport[c.message] != Transport::direct)
      fuse_adjacent(recv_copies_, static_cast<std::size_t>(c.first),
                    static_cast<std::size_t>(c.end));
  const index_t bytes = static_cast<index_t>(sizeof(T));
  for (auto& c : send_copies_)
    c.streaming = stream_pack_ && (c.rows == c.ldd || c.rows * bytes >= 1024);
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::choose_buffer_layouts() {
  constexpr int sender_tag = tag_base - 3, receiver_tag = tag_base - 4;
  const auto fusible = [&](const Direction& d, const std::vector<BlockCopy<T>>& copies,
                           const Message& msg, bool source_side) {
    index_t n = 0;
    for (index_t s = msg.first + 1; s < msg.first + msg.count; ++s) {
      const auto k = static_cast<std::size_t>(s);
      const BlockCopy<T>&a = copies[k - 1], &b = copies[k];
      if (d.segments[k - 1].col_piece != d.segments[k].col_piece) continue;
      n += source_side ? b.src == a.src + a.rows && b.lds == a.lds
                       : b.dst == a.dst + a.rows && b.ldd == a.ldd;
    }
    return n;
  };
  const std::size_t ns = plan_.send.messages.size(), nr = plan_.recv.messages.size();
  std::vector<index_t> mine(ns + nr), theirs(ns + nr);
  std::vector<boost::mpi::request> requests;
  for (std::size_t m = 0; m < ns + nr; ++m) {
    const bool sending = m < ns;
    const Message& msg = sending ? plan_.send.messages[m] : plan_.recv.messages[m - ns];
    mine[m] = sending ? fusible(plan_.send, send_copies_, msg, true)
                      : fusible(plan_.recv, recv_copies_, msg, false);
    requests.push_back(comm_.isend(msg.peer, sending ? sender_tag : receiver_tag, mine[m]));
    requests.push_back(comm_.irecv(msg.peer, sending ? receiver_tag : sender_tag, theirs[m]));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  for (std::size_t m = 0; m < ns + nr; ++m) {
    const bool sending = m < ns;
    const Direction& d = sending ? plan_.send : plan_.recv;
    const Message& msg = d.messages[sending ? m : m - ns];
    if (4 * (mine[m] + theirs[m]) >= msg.count - 1) {  // stacked, as planned
      if (msg.count > 1) (sending ? stacked_.first : stacked_.second) += 1;
      continue;
    }
    auto& rel = sending ? send_rel_ : recv_rel_;
    auto& copies = sending ? send_copies_ : recv_copies_;
    T* buffer = (sending ? send_buf_ : recv_buf_).data() + msg.buffer_offset;
    index_t at = 0;
    for (index_t s = msg.first; s < msg.first + msg.count; ++s) {
      const auto k = static_cast<std::size_t>(s);
      BlockCopy<T>& c = copies[k];
      rel[k] = at;
      if (sending) {
        c.dst = buffer + at;
        c.ldd = c.rows;
      } else {
        c.src = buffer + at;
        c.lds = c.rows;
      }
      at += c.rows * c.cols;
    }
  }
}

template <class T, class MemorySpace>
std::vector<std::shared_ptr<detail::NodeWindow>> Executor<T, MemorySpace>::find_direct_sends() {
  std::vector<std::shared_ptr<detail::NodeWindow>> window_of(plan_.send.messages.size());
  std::shared_ptr<detail::NodeWindow> w;  // the last window found, and its members
  std::vector<int> members;
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    const Message& msg = plan_.send.messages[m];
    bool direct = msg.count > 0 && describable(msg.count);
    for (index_t s = msg.first; direct && s < msg.first + msg.count; ++s) {
      const BlockCopy<T>& c = send_copies_[static_cast<std::size_t>(s)];
      const index_t span = c.rows > 0 && c.cols > 0 ? (c.rows - 1) + (c.cols - 1) * c.lds + 1 : 0;
      const std::size_t bytes = static_cast<std::size_t>(span) * sizeof(T);
      if (!w || !w->owns(c.src, bytes)) {
        w = detail::NodeWindow::find(c.src, bytes);
        members = w ? w->node_ranks(comm_) : std::vector<int>{};
      }
      direct = w && (s == msg.first || w == window_of[m]) &&
               members[static_cast<std::size_t>(msg.peer)] >= 0;
      window_of[m] = w;
    }
    if (direct)
      graph_.send_transport[m] = Transport::direct;
    else
      window_of[m].reset();
  }
  return window_of;
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::exchange_descriptions(
    const std::vector<std::shared_ptr<detail::NodeWindow>>& window_of) {
  const auto size_of = [](const Message& msg) {
    return describable(msg.count) ? static_cast<std::size_t>(3 + 2 * msg.count) : std::size_t{1};
  };
  std::vector<std::vector<std::int64_t>> in(plan_.recv.messages.size()),
      out(plan_.send.messages.size());
  std::vector<boost::mpi::request> requests;
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m) {
    const Message& msg = plan_.recv.messages[m];
    if (!on_node_[static_cast<std::size_t>(msg.peer)]) continue;
    in[m].assign(size_of(msg), 0);
    requests.push_back(
        comm_.irecv(msg.peer, describe_tag, in[m].data(), static_cast<int>(in[m].size())));
  }
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    const Message& msg = plan_.send.messages[m];
    if (!on_node_[static_cast<std::size_t>(msg.peer)]) continue;
    out[m].assign(size_of(msg), 0);
    if (graph_.send_transport[m] == Transport::direct) {
      const detail::NodeWindow& w = *window_of[m];
      const char* base = w.base(w.node_rank());
      out[m][0] = 1;
      out[m][1] = static_cast<std::int64_t>(w.id());
      out[m][2] = w.node_rank();
      for (index_t i = 0; i < msg.count; ++i) {
        const BlockCopy<T>& c = send_copies_[static_cast<std::size_t>(msg.first + i)];
        out[m][static_cast<std::size_t>(3 + 2 * i)] = reinterpret_cast<const char*>(c.src) - base;
        out[m][static_cast<std::size_t>(4 + 2 * i)] = c.lds;
      }
      add_direct_window(window_of[m]);
    }
    requests.push_back(
        comm_.isend(msg.peer, describe_tag, out[m].data(), static_cast<int>(out[m].size())));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m) {
    if (in[m].empty() || in[m][0] != 1) continue;
    const Message& msg = plan_.recv.messages[m];
    auto w = detail::NodeWindow::find(static_cast<std::uint64_t>(in[m][1]));
    if (!w)
      throw communication_error(detail::describe(
          "node-shared source memory of a peer is not mapped here", "peer", msg.peer));
    const char* base = w->base(static_cast<int>(in[m][2]));
    for (index_t i = 0; i < msg.count; ++i) {
      const std::size_t s = static_cast<std::size_t>(msg.first + i);
      BlockCopy<T>& c = recv_copies_[s];
      c.src = reinterpret_cast<const T*>(base + in[m][static_cast<std::size_t>(3 + 2 * i)]);
      c.lds = in[m][static_cast<std::size_t>(4 + 2 * i)];
    }
    fuse_adjacent(recv_copies_, static_cast<std::size_t>(msg.first),
                  static_cast<std::size_t>(msg.first + msg.count));
    graph_.recv_transport[m] = Transport::direct;
    add_direct_window(std::move(w));
  }
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::announce_direct_sends() {
  if (direct_windows_.empty()) return;
  for (const auto& w : direct_windows_) w->publish();
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    if (graph_.send_transport[m] != Transport::direct) continue;
    const Message& msg = plan_.send.messages[m];
    post_request(EventKind::ack, m, comm_.irecv(msg.peer, ack_tag));
    send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), &note_out_[m], 1));
  }
}

}  // namespace redist
