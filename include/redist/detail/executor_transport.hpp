#pragma once
/// @file detail/executor_transport.hpp
/// The Executor's set-up at connect() (executor.hpp), collective over its communicator:
/// the node's shared send window, the direct messages read in place from a node-shared
/// source (node_shared.hpp), the receive copies bound for the chosen transports, and the
/// task graph for them. Included by executor.hpp after the class; not a header to
/// include on its own.

#include <redist/executor.hpp>

namespace redist {

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::setup_transport() {
  transport_ready_ = true;
  std::vector<std::vector<Address>> described(plan_.recv.messages.size());
  if constexpr (host_memory)
    if (options_.shared_window) described = connect_node();
  bind_receives_(described);
  // Unpacks read the receive buffer; those of window messages are pointed at the
  // sender's window when its note arrives.
  for (std::size_t c = 0; c < graph_.recv.chunks.size(); ++c) {
    const std::size_t m = graph_.recv.chunks[c].message;
    if (graph_.recv_transport[m] == Transport::point_to_point)
      rebase_sources(recv_pool_, recv_rel_, recv_range_[c],
                     recv_buf_.data() + plan_.recv.messages[m].buffer_offset);
  }
  for (auto& c : recv_pool_.copies) c.streaming = stream_target_;
  rebase_sends();
  // The chunks are the same as before (same plan, same chunk size); the transports and
  // with them the Ack tasks are new.
  graph_ = make_task_graph(plan_, chunk_elements(), graph_.send_transport, graph_.recv_transport);
  compile_graph();
}

template <class T, class MemorySpace>
auto Executor<T, MemorySpace>::connect_node() -> std::vector<std::vector<Address>> {
  std::vector<std::vector<Address>> segments(plan_.send.messages.size());
  const auto source_window = find_direct_sends(segments);
  // The send buffer holds only the messages that are still packed, compacted per batch.
  index_t need = 0, used = 0;
  window_offset_.assign(plan_.send.messages.size(), 0);
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    const Message& msg = plan_.send.messages[m];
    if (m == 0 || msg.batch != plan_.send.messages[m - 1].batch) used = 0;
    if (graph_.send_transport[m] == Transport::direct) continue;
    window_offset_[m] = used;
    used += msg.elements;
    need = std::max(need, used);
  }
  window_ = detail::NodeWindow::create(comm_, static_cast<std::size_t>(need) * sizeof(T));
  if (window_->node_size() < 2) {
    window_.reset();  // alone on the node: plain MPI messages
    std::fill(graph_.send_transport.begin(), graph_.send_transport.end(),
              Transport::point_to_point);
    return std::vector<std::vector<Address>>(plan_.recv.messages.size());
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
  return exchange_descriptions(source_window, segments);
}

template <class T, class MemorySpace>
std::vector<std::shared_ptr<detail::NodeWindow>> Executor<T, MemorySpace>::find_direct_sends(
    std::vector<std::vector<Address>>& segments) {
  std::vector<std::shared_ptr<detail::NodeWindow>> window_of(plan_.send.messages.size());
  std::shared_ptr<detail::NodeWindow> w;  // the last window found, and its members
  std::vector<int> members;
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    const Message& msg = plan_.send.messages[m];
    bool direct = msg.count > 0 && describable(segments_in(plan_.send, msg));
    std::vector<Address>& list = segments[m];
    for (std::size_t c = graph_.send.begin[m]; direct && c < graph_.send.begin[m + 1]; ++c)
      for (std::size_t k = graph_.send.chunks[c].first; direct && k < graph_.send.chunks[c].end;
           ++k)
        detail::for_each_slice_segment(
            plan_, plan_.send, graph_.send.slices[k],
            [&](index_t, index_t, const Piece& r, const Piece& col) {
              if (!direct) return;
              const Address a = segment_source_(part_of(plan_.send, graph_.send.slices[k]), r, col);
              // op(A)'s rows are A's columns when the source is read transposed.
              const index_t span = transform_.transposes()
                                       ? (r.length - 1) * a.second + (col.length - 1) + 1
                                       : (r.length - 1) + (col.length - 1) * a.second + 1;
              const std::size_t bytes = static_cast<std::size_t>(span) * sizeof(T);
              if (!w || !w->owns(a.first, bytes)) {
                w = detail::NodeWindow::find(a.first, bytes);
                members = w ? w->node_ranks(comm_) : std::vector<int>{};
              }
              // The first segment outside a window settles it: private sources cost
              // one look-up per message.
              direct = w && (list.empty() || w == window_of[m]) &&
                       members[static_cast<std::size_t>(msg.peer)] >= 0;
              window_of[m] = w;
              list.push_back(a);
            });
    if (direct) {
      graph_.send_transport[m] = Transport::direct;
    } else {
      window_of[m].reset();
      list.clear();
    }
  }
  return window_of;
}

template <class T, class MemorySpace>
auto Executor<T, MemorySpace>::exchange_descriptions(
    const std::vector<std::shared_ptr<detail::NodeWindow>>& window_of,
    const std::vector<std::vector<Address>>& segments) -> std::vector<std::vector<Address>> {
  const auto size_of = [&](index_t count) {
    return describable(count) ? static_cast<std::size_t>(3 + 2 * count) : std::size_t{1};
  };
  std::vector<std::vector<std::int64_t>> in(plan_.recv.messages.size()),
      out(plan_.send.messages.size());
  std::vector<boost::mpi::request> requests;
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m) {
    const Message& msg = plan_.recv.messages[m];
    if (!on_node_[static_cast<std::size_t>(msg.peer)]) continue;
    in[m].assign(size_of(segments_in(plan_.recv, msg)), 0);
    requests.push_back(
        comm_.irecv(msg.peer, describe_tag, in[m].data(), static_cast<int>(in[m].size())));
  }
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
    const Message& msg = plan_.send.messages[m];
    if (!on_node_[static_cast<std::size_t>(msg.peer)]) continue;
    out[m].assign(size_of(segments_in(plan_.send, msg)), 0);
    if (graph_.send_transport[m] == Transport::direct) {
      const detail::NodeWindow& w = *window_of[m];
      const char* base = w.base(w.node_rank());
      out[m][0] = 1;
      out[m][1] = static_cast<std::int64_t>(w.id());
      out[m][2] = w.node_rank();
      for (std::size_t i = 0; i < segments[m].size(); ++i) {
        out[m][3 + 2 * i] = reinterpret_cast<const char*>(segments[m][i].first) - base;
        out[m][4 + 2 * i] = segments[m][i].second;
      }
      add_direct_window(window_of[m]);
    }
    requests.push_back(
        comm_.isend(msg.peer, describe_tag, out[m].data(), static_cast<int>(out[m].size())));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  std::vector<std::vector<Address>> described(plan_.recv.messages.size());
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m) {
    if (in[m].empty() || in[m][0] != 1) continue;
    const Message& msg = plan_.recv.messages[m];
    auto w = detail::NodeWindow::find(static_cast<std::uint64_t>(in[m][1]));
    if (!w)
      throw communication_error(detail::describe(
          "node-shared source memory of a peer is not mapped here", "peer", msg.peer));
    const char* base = w->base(static_cast<int>(in[m][2]));
    for (std::size_t i = 3; i + 1 < in[m].size(); i += 2)
      described[m].emplace_back(reinterpret_cast<const T*>(base + in[m][i]), in[m][i + 1]);
    graph_.recv_transport[m] = Transport::direct;
    add_direct_window(std::move(w));
  }
  return described;
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
