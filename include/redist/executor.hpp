#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp) with Kokkos copies and Boost.MPI
/// point-to-point messages. With node_shared.hpp and detail/executor_transport.hpp (its
/// set-up at connect()), the only code that talks to MPI besides the collective error guard.
///
/// Order of work (papers/cao2021-*.txt section 6): Batch(k) waits for the previous
/// batch's sends and posts all of batch k's receives first; then Send tasks pack their
/// segments, and a message leaves (non-blocking) in chunks of about REDIST_PIPELINE_BYTES,
/// each as soon as it and the chunks before it are packed; local Receives copy tile to
/// tile while messages are in flight; remote Receives unpack as their chunk arrives.
/// Batches open strictly in order (Batch(k - 1) -> Batch(k) is added here to the graph's
/// edges: a rank with no task in batch k - 1 must still not reuse the buffers of batch
/// k - 2 early). The graph is run from flat arrays (successors in CSR form, priorities
/// precomputed, FIFO ready queues as vectors), which keeps the per-task overhead small
/// with thousands of segments. start() does everything that needs no waiting,
/// wait() finishes. Buffers are allocated once per executor and reused by every run
/// (no page faults per call); with device memory and no GPU-aware MPI, messages are
/// staged through host mirrors.
///
/// Shared-memory transport (host memory, REDIST_SHARED_WINDOW): on the first start() the
/// ranks of a node put their send buffers in one MPI-3 shared window
/// (MPI_Win_allocate_shared). A message to a rank of the same node is then not copied
/// through MPI: the sender packs it into its window and sends an 8-byte note (the
/// message's offset there); the receiver unpacks straight from the sender's window and
/// answers with an empty ack. Remote data is copied twice (pack, unpack) instead of three
/// times (pack, MPI/CMA, unpack): the papers' Eq. (4) loses its M_remote / B_net term
/// on a node. The ack gates the reuse of the send buffer: Batch(k + 1) waits for the acks
/// of batch k, and wait() returns only when every note was acknowledged, so the caller
/// may change the source right after wait(). Messages to other nodes use MPI as before.
///
/// Direct messages (node_shared.hpp): when the sender's source tiles lie in node-shared
/// memory that the receiver can map too, nothing is packed at all. At connect() the
/// sender tells the receiver where each segment of the message sits in that memory; at
/// every start() it sends a note (its source is ready) and the receiver copies each
/// segment straight from the sender's tile into its own, then acks. One copy per remote
/// element, like a local one; no buffer.
///
/// The environment variable REDIST_SHARED_WINDOW=0 (same on every rank) turns both off.
/// All point-to-point traffic goes through Boost.MPI; only the window itself uses the
/// MPI-3 C API, which Boost.MPI does not wrap.

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>
#include <mpi.h>

#include <redist/copy_kernel.hpp>
#include <redist/error.hpp>
#include <redist/node_shared.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

#ifndef REDIST_GPU_AWARE_MPI
/// Set to 1 when MPI can read and write device memory directly.
#define REDIST_GPU_AWARE_MPI 0
#endif

#ifndef REDIST_PIPELINE_BYTES
/// Messages leave in chunks of about this many bytes (see Executor).
#define REDIST_PIPELINE_BYTES (std::int64_t{1} << 21)
#endif

#ifndef REDIST_STREAMING_BYTES
/// A rank writes its target with streaming stores when it writes at least this many bytes
/// per execution (see copy_kernel.hpp); the environment variable REDIST_STREAMING=0 or 1
/// overrides.
#define REDIST_STREAMING_BYTES (std::int64_t{16} << 20)
#endif

#ifndef REDIST_SHARED_WINDOW
/// Set to 0 to never use MPI-3 shared-memory windows between the ranks of a node.
#define REDIST_SHARED_WINDOW 1
#endif

namespace redist {

template <class T, class MemorySpace>
class Executor {
  using buffer_view = Kokkos::View<T*, MemorySpace>;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  static constexpr bool staged = !host_memory && !REDIST_GPU_AWARE_MPI;
  static constexpr bool use_window = host_memory && REDIST_SHARED_WINDOW;
  static constexpr int tag_base = 7100;
  static constexpr int ack_tag = tag_base - 1;
  static constexpr int describe_tag = tag_base - 2;
  /// Messages leave in chunks of about this many bytes (whole segments), in order, as soon
  /// as a chunk is packed: the receiver unpacks chunk k while the sender packs chunk k + 1.
  static constexpr index_t pipeline_bytes = REDIST_PIPELINE_BYTES;

  /// Consecutive segments [first, end) of message `message`, at element `offset` from the
  /// message's start. Sender and receiver cut a message identically.
  struct Chunk {
    std::size_t message;
    index_t first, end;
    index_t offset, elements;
  };

  /// What a completed request means: a chunk of a message, a note (the message waits in
  /// the sender's window), or an ack (the receiver is done with our window).
  enum class EventKind { data, note, direct, ack };
  struct Event {
    EventKind kind;
    std::size_t index;  ///< chunk (data, note), received message (direct), sent message (ack)
  };

 public:
  /// Binds `plan` to the local tiles of src and dst. Both matrices must outlive the
  /// executor; their storage must not move.
  template <class SrcMatrix, class DstMatrix>
  Executor(Plan plan, const SrcMatrix& src, DstMatrix& dst, boost::mpi::communicator comm)
      : plan_(std::move(plan)), comm_(std::move(comm)), graph_(make_task_graph(plan_)) {
    index_t send_max = 0, recv_max = 0;
    for (index_t e : plan_.send.batch_elements) send_max = std::max(send_max, e);
    for (index_t e : plan_.recv.batch_elements) recv_max = std::max(recv_max, e);
    send_buf_ = buffer_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::send"),
                            static_cast<std::size_t>(send_max));
    recv_buf_ = buffer_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::recv"),
                            static_cast<std::size_t>(recv_max));
    send_host_ = Kokkos::create_mirror_view(send_buf_);
    recv_host_ = Kokkos::create_mirror_view(recv_buf_);

    const auto tile_at = [](const auto& matrix, TileIndex t, TileOffset o) {
      const auto ref = matrix.tile_ref(t);
      return std::make_pair(ref.data + o.i + o.j * ref.ld, ref.ld);
    };
    for (const auto& ps : plan_.send.segments) {
      const auto [p, ld] = tile_at(src, ps.segment.src_tile, ps.segment.src_offset);
      send_copies_.push_back({p, ld, send_buf_.data() + ps.buffer_offset, ps.buffer_ld,
                              ps.segment.extent.rows, ps.segment.extent.cols});
    }
    for (const auto& ps : plan_.recv.segments) {
      const auto [p, ld] = tile_at(dst, ps.segment.dst_tile, ps.segment.dst_offset);
      recv_copies_.push_back({recv_buf_.data() + ps.buffer_offset, ps.buffer_ld, p, ld,
                              ps.segment.extent.rows, ps.segment.extent.cols});
    }
    for (const auto& ps : plan_.local) {
      const auto [s, lds] = tile_at(src, ps.segment.src_tile, ps.segment.src_offset);
      const auto [d, ldd] = tile_at(dst, ps.segment.dst_tile, ps.segment.dst_offset);
      local_copies_.push_back({s, lds, d, ldd, ps.segment.extent.rows, ps.segment.extent.cols});
    }
    fuse_adjacent(local_copies_, 0, local_copies_.size());

    // Chunks of each message, the chunk of each segment, the receive tasks of each chunk.
    for (const Message& m : plan_.send.messages) send_offset_.push_back(m.buffer_offset);
    cut_chunks(plan_.send, send_chunks_, send_chunk_of_, send_chunk_begin_, nullptr);
    cut_chunks(plan_.recv, recv_chunks_, recv_chunk_of_, recv_chunk_begin_, &recv_message_of_);
    for (const Direction* d : {&plan_.send, &plan_.recv}) {
      auto& rel = d == &plan_.send ? send_rel_ : recv_rel_;
      for (const Message& msg : d->messages)
        for (index_t s = msg.first; s < msg.first + msg.count; ++s)
          rel.push_back(d->segments[static_cast<std::size_t>(s)].buffer_offset - msg.buffer_offset);
    }
    // Streaming stores when this rank writes more than the cache keeps (copy_kernel.hpp):
    // into its target, and into its send buffer, which the peer reads back only after
    // much more has been packed, so from memory anyway. Packing streams long runs only:
    // short ones, scattered through the buffer, measured slower streamed (redist-bench,
    // standard case c), decided once packs are fused (connect()). REDIST_STREAMING=0 or 1
    // overrides.
    const index_t bytes = static_cast<index_t>(sizeof(T));
    bool stream_target = (plan_.stats.elements_local + plan_.stats.elements_received) * bytes >=
                         REDIST_STREAMING_BYTES;
    stream_pack_ = plan_.stats.elements_sent * bytes >= REDIST_STREAMING_BYTES;
    if (const char* e = std::getenv("REDIST_STREAMING"))
      stream_target = stream_pack_ = std::strcmp(e, "0") != 0;
    stream_target = stream_target && host_memory;
    stream_pack_ = stream_pack_ && host_memory;
    for (auto& c : local_copies_) c.streaming = stream_target;
    for (auto& c : recv_copies_) c.streaming = stream_target;
    receives_of_chunk_.resize(recv_chunks_.size());
    const auto& g = graph_.graph;
    in_degree_.assign(boost::num_vertices(g), 0);
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
      in_degree_[v] = static_cast<int>(boost::in_degree(v, g));
      const Task& t = g[v];
      if (t.kind == TaskKind::receive && t.remote) {
        receives_of_chunk_[recv_chunk_of_[static_cast<std::size_t>(t.index)]].push_back(v);
        in_degree_[v] += 1;  // the chunk's arrival is one more dependency
      }
    }
    // Batches open in order: Batch(k) also waits for Batch(k - 1). The graph's edges
    // gate Batch(k) on batch k - 1's own tasks only; when this rank has none in batch
    // k - 1, Batch(k) could otherwise open before Batch(k - 1) and reuse the buffers of a
    // batch still in flight.
    std::vector<std::size_t> next_batch(boost::num_vertices(g), SIZE_MAX);
    for (std::size_t k = 1; k < graph_.batch_vertex.size(); ++k) {
      next_batch[graph_.batch_vertex[k - 1]] = graph_.batch_vertex[k];
      in_degree_[graph_.batch_vertex[k]] += 1;
    }
    prio_.resize(boost::num_vertices(g));
    succ_begin_.assign(1, 0);
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
      prio_[v] = static_cast<std::uint8_t>(priority(g[v]));
      for (auto e : boost::make_iterator_range(boost::out_edges(v, g)))
        succ_.push_back(static_cast<std::uint32_t>(boost::target(e, g)));
      if (next_batch[v] != SIZE_MAX) succ_.push_back(static_cast<std::uint32_t>(next_batch[v]));
      succ_begin_.push_back(static_cast<std::uint32_t>(succ_.size()));
    }
  }

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  /// Drops its share of the node windows; the last holder of one frees it, collectively
  /// over the node (node_shared.hpp).
  ~Executor() = default;

  const Plan& plan() const { return plan_; }
  const TaskGraph& graph() const { return graph_; }
  /// Bytes of message buffers this executor holds (device + host staging). Before the
  /// first run: send + receive buffers of the largest batch (PlanStats::buffer_elements).
  /// After it, with the shared window: the window's send buffer, plus a receive buffer
  /// only for messages from other nodes.
  index_t buffer_bytes() const {
    const index_t n = static_cast<index_t>(send_buf_.extent(0) + recv_buf_.extent(0));
    return n * static_cast<index_t>(sizeof(T)) * (staged ? 2 : 1) + window_bytes_;
  }
  /// Whether messages between ranks of this node go through the shared window (known
  /// after the first start()).
  bool shared_window() const { return window_ != nullptr; }
  /// Messages (of more than one segment) this rank sends and receives with each column
  /// piece stacked into one buffer block, because a side fuses copies there (known after
  /// connect(); the others are laid flat).
  std::pair<index_t, index_t> stacked_messages() const { return stacked_; }
  /// Messages this rank sends and receives direct, read in place from node-shared source
  /// memory (known after connect()).
  std::pair<index_t, index_t> direct_messages() const {
    return {std::count(direct_send_.begin(), direct_send_.end(), 1),
            std::count(direct_recv_.begin(), direct_recv_.end(), 1)};
  }
  /// Tasks run by the last execution, per kind (Init, Send, Receive, Finish, Batch).
  const std::array<std::size_t, 5>& tasks_run() const { return tasks_run_; }

  /// Sets up the transport (on host memory, the node's shared window): collective over
  /// the communicator. start() does it if nobody did; calling it first makes
  /// buffer_bytes() exact before the first run. Idempotent.
  void connect() {
    if (!transport_ready_) setup_transport();
  }

  /// Starts an execution: posts receives, packs and sends, copies local segments; returns
  /// when only waiting is left. @pre no execution in progress.
  void start() {
    if (running_) throw error("redist: start() called while an execution is in progress");
    connect();
    running_ = true;
    remaining_ = boost::num_vertices(graph_.graph);
    pending_ = in_degree_;
    // Batch(k) also waits for the acks of batch k - 1's shared-window messages.
    for (index_t k = 1; k < plan_.batches; ++k)
      pending_[graph_.batch_vertex[static_cast<std::size_t>(k)]] +=
          window_sends_of_batch_[static_cast<std::size_t>(k - 1)];
    send_pending_.clear();
    for (const Chunk& c : send_chunks_) send_pending_.push_back(c.end - c.first);
    next_post_.assign(send_chunk_begin_.begin(), send_chunk_begin_.end() - 1);
    chunks_pending_.assign(recv_chunks_.size(), 0);
    recv_left_.clear();
    for (const Message& m : plan_.recv.messages) recv_left_.push_back(m.count);
    requests_.clear();
    events_.clear();
    acks_left_ = 0;
    tasks_run_ = {};
    for (auto& q : ready_) q.clear();
    ready_head_ = {};
    announce_direct_sends();
    for (auto v : boost::make_iterator_range(boost::vertices(graph_.graph)))
      if (pending_[v] == 0) push_ready(v);
    drain();
  }

  /// Completes the execution started by start().
  void wait() {
    if (!running_) return;
    while (remaining_ > 0 || acks_left_ > 0) {
      drain();
      if (remaining_ == 0 && acks_left_ == 0) break;
      if (requests_.empty())
        throw communication_error("redist: task graph stalled with " + std::to_string(remaining_) +
                                  " tasks left and no message outstanding");
      const auto done = boost::mpi::wait_any(requests_.begin(), requests_.end()).second;
      const auto k = static_cast<std::size_t>(done - requests_.begin());
      const Event e = events_[k];
      // Completed requests leave the list, so waiting costs O(outstanding requests).
      requests_[k] = std::move(requests_.back());
      requests_.pop_back();
      events_[k] = events_.back();
      events_.pop_back();
      switch (e.kind) {
        case EventKind::data:
          if (--chunks_pending_[e.index] == 0) arrived(e.index);
          break;
        case EventKind::note: {
          // The sender's window holds the message at offset note_in_[c]: read it in place.
          window_->acquire();
          const Chunk& c = recv_chunks_[e.index];
          const Message& msg = plan_.recv.messages[c.message];
          const T* base = peer_base_[static_cast<std::size_t>(msg.peer)] + note_in_[e.index];
          for (index_t s = c.first; s < c.end; ++s)
            recv_copies_[static_cast<std::size_t>(s)].src =
                base + recv_rel_[static_cast<std::size_t>(s)];
          arrived(e.index);
          break;
        }
        case EventKind::direct:
          // The sender's source is ready: its segments are read in place.
          for (const auto& w : direct_windows_) w->acquire();
          for (std::size_t c = recv_chunk_begin_[e.index]; c < recv_chunk_begin_[e.index + 1]; ++c)
            arrived(c);
          break;
        case EventKind::ack: {
          --acks_left_;
          const index_t b = plan_.send.messages[e.index].batch;
          if (!direct_send_[e.index] && b + 1 < plan_.batches) {
            const std::size_t v = graph_.batch_vertex[static_cast<std::size_t>(b + 1)];
            if (--pending_[v] == 0) push_ready(v);
          }
          break;
        }
      }
    }
    wait_sends();
    Kokkos::fence();
    detail::streaming_fence();
    running_ = false;
  }

  /// start() then wait().
  void run() {
    start();
    wait();
  }

 private:
  // Ready queues by priority: batch gates, sends, local work, remote unpacks.
  static constexpr int priority(const Task& t) {
    switch (t.kind) {
      case TaskKind::batch:
        return 0;
      case TaskKind::send:
        return 1;
      case TaskKind::receive:
        return t.remote ? 3 : 2;
      default:
        return 2;
    }
  }
  void push_ready(std::size_t v) { ready_[prio_[v]].push_back(static_cast<std::uint32_t>(v)); }

  /// Runs ready tasks until none is left. The graph is walked through flat arrays
  /// (successors in CSR form, priorities precomputed) and FIFO queues that are plain
  /// vectors with a read position: with thousands of small segments per rank, this loop
  /// is the executor's own overhead (papers' T_runtime).
  void drain() {
    for (;;) {
      std::size_t k = 0;
      while (k < ready_.size() && ready_head_[k] == ready_[k].size()) ++k;
      if (k == ready_.size()) return;
      const std::size_t v = ready_[k][ready_head_[k]++];
      execute(v);
      --remaining_;
      for (std::uint32_t e = succ_begin_[v]; e < succ_begin_[v + 1]; ++e) {
        const std::uint32_t w = succ_[e];
        if (--pending_[w] == 0) push_ready(w);
      }
    }
  }

  void execute(std::size_t v) {
    const Task& t = graph_.graph[v];
    tasks_run_[static_cast<std::size_t>(t.kind)] += 1;
    switch (t.kind) {
      case TaskKind::batch:
        open_batch(t.batch);
        break;
      case TaskKind::send:
        for (index_t s : graph_.send_lists[static_cast<std::size_t>(t.index)]) {
          const std::size_t c = send_chunk_of_[static_cast<std::size_t>(s)];
          if (direct_send_[send_chunks_[c].message]) continue;  // read in place by the peer
          copy_block<MemorySpace>(send_copies_[static_cast<std::size_t>(s)]);
          if (--send_pending_[c] == 0) post_ready_chunks(send_chunks_[c].message);
        }
        break;
      case TaskKind::receive:
        if (!t.remote) {
          copy_block<MemorySpace>(local_copies_[static_cast<std::size_t>(t.index)]);
          break;
        }
        copy_block<MemorySpace>(recv_copies_[static_cast<std::size_t>(t.index)]);
        if (window_) {
          const std::size_t m = recv_message_of_[static_cast<std::size_t>(t.index)];
          const Message& msg = plan_.recv.messages[m];
          // Last segment read from the sender's window: tell it the buffer is free.
          if (--recv_left_[m] == 0 && on_node_[static_cast<std::size_t>(msg.peer)]) {
            send_requests_.push_back(comm_.isend(msg.peer, ack_tag));
          }
        }
        break;
      case TaskKind::init:
      case TaskKind::finish:
        break;
    }
  }

  /// Batch(k): the previous batch's sends must be done before their buffer is reused;
  /// then all receives of batch k are posted, peers staggered from rank + 1.
  void open_batch(index_t k) {
    wait_sends();
    std::vector<std::size_t> msgs;
    for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
      if (plan_.recv.messages[m].batch == k) msgs.push_back(m);
    const int me = plan_.rank, p = plan_.comm_size;
    std::stable_sort(msgs.begin(), msgs.end(), [&](std::size_t a, std::size_t b) {
      return (plan_.recv.messages[a].peer - me + p) % p <
             (plan_.recv.messages[b].peer - me + p) % p;
    });
    for (std::size_t m : msgs) {
      const Message& msg = plan_.recv.messages[m];
      if (direct_recv_[m]) {
        post_request(EventKind::direct, m,
                     comm_.irecv(msg.peer, tag(msg.batch), &note_in_[recv_chunk_begin_[m]], 1));
        continue;
      }
      const bool window = window_ && on_node_[static_cast<std::size_t>(msg.peer)];
      for (std::size_t c = recv_chunk_begin_[m]; c < recv_chunk_begin_[m + 1]; ++c) {
        if (window) {
          post_request(EventKind::note, c, comm_.irecv(msg.peer, tag(msg.batch), &note_in_[c], 1));
          chunks_pending_[c] = 1;
          continue;
        }
        const Chunk& ch = recv_chunks_[c];
        char* base = reinterpret_cast<char*>((staged ? recv_host_.data() : recv_buf_.data()) +
                                             msg.buffer_offset + ch.offset);
        for_each_piece(ch.elements, [&](index_t off, int bytes) {
          post_request(EventKind::data, c,
                       comm_.irecv(msg.peer, tag(msg.batch), base + off, bytes));
          ++chunks_pending_[c];
        });
      }
    }
  }

  /// Sends the packed chunks of message m that are next in order (MPI keeps the order of
  /// messages with one tag between two ranks, so chunks must leave in order).
  void post_ready_chunks(std::size_t m) {
    const std::size_t end = send_chunk_begin_[m + 1];
    std::size_t& c = next_post_[m];
    while (c < end && send_pending_[c] == 0) post_chunk(c++);
    if (c < end) return;
    const Message& msg = plan_.send.messages[m];
    if (window_ && on_node_[static_cast<std::size_t>(msg.peer)]) {
      // The whole message is out: expect the receiver's ack before reusing the buffer.
      post_request(EventKind::ack, m, comm_.irecv(msg.peer, ack_tag));
      ++acks_left_;
    }
  }

  void post_chunk(std::size_t c) {
    if (stream_pack_) detail::streaming_fence();  // the packed chunk, visible to its reader
    const Chunk& ch = send_chunks_[c];
    const Message& msg = plan_.send.messages[ch.message];
    if (window_ && on_node_[static_cast<std::size_t>(msg.peer)]) {
      // Packed in our window: publish it and send the note (the message's offset).
      window_->publish();
      note_out_[ch.message] = static_cast<std::int64_t>(send_offset_[ch.message]);
      send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), &note_out_[ch.message], 1));
      return;
    }
    const index_t first = send_offset_[ch.message] + ch.offset;
    if constexpr (staged) {
      const std::pair<std::size_t, std::size_t> r(static_cast<std::size_t>(first),
                                                  static_cast<std::size_t>(first + ch.elements));
      Kokkos::deep_copy(Kokkos::subview(send_host_, r), Kokkos::subview(send_buf_, r));
    } else {
      Kokkos::fence();  // packing kernels must be done before MPI reads the buffer
    }
    const T* buf = window_ ? window_send_ : staged ? send_host_.data() : send_buf_.data();
    const char* base = reinterpret_cast<const char*>(buf + first);
    for_each_piece(ch.elements, [&](index_t off, int bytes) {
      send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), base + off, bytes));
    });
  }

  /// Cuts every message of d into chunks of about pipeline_bytes (whole segments).
  static void cut_chunks(const Direction& d, std::vector<Chunk>& chunks,
                         std::vector<std::size_t>& chunk_of, std::vector<std::size_t>& begin,
                         std::vector<std::size_t>* message_of) {
    const index_t limit = std::max<index_t>(1, pipeline_bytes / static_cast<index_t>(sizeof(T)));
    chunk_of.resize(d.segments.size());
    if (message_of) message_of->resize(d.segments.size());
    for (std::size_t m = 0; m < d.messages.size(); ++m) {
      const Message& msg = d.messages[m];
      begin.push_back(chunks.size());
      index_t offset = 0;
      for (index_t s = msg.first; s < msg.first + msg.count; ++s) {
        // A chunk ends only between column groups (plan.hpp): a group's segments are
        // interleaved column by column in the buffer.
        const bool group_starts =
            s == msg.first || d.segments[static_cast<std::size_t>(s)].col_piece !=
                                  d.segments[static_cast<std::size_t>(s - 1)].col_piece;
        if (chunks.size() == begin.back() || (chunks.back().elements >= limit && group_starts))
          chunks.push_back(Chunk{m, s, s, offset, 0});
        const index_t n = d.segments[static_cast<std::size_t>(s)].segment.extent.size();
        chunks.back().end = s + 1;
        chunks.back().elements += n;
        offset += n;
        chunk_of[static_cast<std::size_t>(s)] = chunks.size() - 1;
        if (message_of) (*message_of)[static_cast<std::size_t>(s)] = m;
      }
    }
    begin.push_back(chunks.size());
  }

  void post_request(EventKind kind, std::size_t index, boost::mpi::request r) {
    requests_.push_back(std::move(r));
    events_.push_back({kind, index});
  }

  void wait_sends() {
    boost::mpi::wait_all(send_requests_.begin(), send_requests_.end());
    send_requests_.clear();
  }

  /// connect(): agrees on the buffer layouts, sets up the node's transport (host memory),
  /// then fuses the copies on the buffer side. Collective over the communicator.
  void setup_transport();

  /// Finds the direct messages, puts the send buffer of the others in a shared window of
  /// the node's ranks, and tells every receiver on the node how to read each message.
  void connect_node();

  /// Fuses packs and unpacks that continue each other within a chunk, and picks which
  /// packs stream (long runs only).
  void fuse_buffer_copies();

  /// The plan stacks the segments of a message's column piece into one block (plan.hpp).
  /// That pays off when a side can then copy several of them at once; where neither can,
  /// segments one after the other, each contiguous, are faster to gather into and scatter
  /// from (measured: redist-bench standard case c). Each side counts the neighbours it
  /// could fuse in every message and tells the peer, and both pick the same layout.
  void choose_buffer_layouts();

  /// A message can go direct when every segment's source lies in one node-shared window
  /// that the receiver is part of. Marks direct_send_; returns each message's window.
  std::vector<std::shared_ptr<detail::NodeWindow>> find_direct_sends();

  /// Whether a message of `count` segments fits one description (an MPI int count).
  static bool describable(index_t count) { return count <= (INT_MAX - 3) / 2; }

  /// Each on-node message is described to its receiver once: {0} when it is packed, or
  /// {1, window id, sender's node rank, then per segment: byte offset in the sender's
  /// part of the window, leading dimension} when the receiver reads it in place.
  void exchange_descriptions(const std::vector<std::shared_ptr<detail::NodeWindow>>& window_of);

  void add_direct_window(std::shared_ptr<detail::NodeWindow> w) {
    if (std::find(direct_windows_.begin(), direct_windows_.end(), w) == direct_windows_.end())
      direct_windows_.push_back(std::move(w));
  }

  /// start(): our source is ready; every direct receiver may read it now, and acks when
  /// done (wait() returns only then, so the caller may change the source after it).
  void announce_direct_sends();

  /// Chunk c is in (in the receive buffer, or readable in the sender's window).
  void arrived(std::size_t c) {
    if constexpr (staged) {
      const Chunk& ch = recv_chunks_[c];
      const index_t first = plan_.recv.messages[ch.message].buffer_offset + ch.offset;
      const std::pair<std::size_t, std::size_t> r(static_cast<std::size_t>(first),
                                                  static_cast<std::size_t>(first + ch.elements));
      Kokkos::deep_copy(Kokkos::subview(recv_buf_, r), Kokkos::subview(recv_host_, r));
    }
    for (std::size_t v : receives_of_chunk_[c])
      if (--pending_[v] == 0) push_ready(v);
  }

  /// Splits `elements` elements into pieces an MPI int count can carry
  /// (PlanOptions::max_message_bytes); f(byte offset, bytes).
  template <class F>
  void for_each_piece(index_t elements, F&& f) const {
    const index_t total = elements * static_cast<index_t>(sizeof(T));
    const index_t limit = plan_.options.max_message_bytes;
    for (index_t off = 0; off < total; off += limit)
      f(off, static_cast<int>(std::min(limit, total - off)));
  }

  static int tag(index_t batch) { return tag_base + static_cast<int>(batch % 16384); }

  Plan plan_;
  boost::mpi::communicator comm_;
  TaskGraph graph_;
  buffer_view send_buf_, recv_buf_;
  typename buffer_view::HostMirror send_host_, recv_host_;
  std::vector<BlockCopy<T>> send_copies_, recv_copies_, local_copies_;
  std::vector<Chunk> send_chunks_, recv_chunks_;
  std::vector<std::size_t> send_chunk_of_, recv_chunk_of_;        ///< chunk of each segment
  std::vector<std::size_t> send_chunk_begin_, recv_chunk_begin_;  ///< first chunk of a message
  std::vector<std::size_t> recv_message_of_;
  std::vector<std::vector<std::size_t>> receives_of_chunk_;
  std::vector<int> in_degree_;
  std::vector<std::uint8_t> prio_;                ///< ready queue of each task
  std::vector<std::uint32_t> succ_begin_, succ_;  ///< successors of each task (CSR)

  bool stream_pack_ = false;  ///< some packing uses streaming stores (copy_kernel.hpp)

  // Shared-memory transport (set up by connect()).
  bool transport_ready_ = false;
  std::shared_ptr<detail::NodeWindow> window_;  ///< the send buffer, shared on the node
  T* window_send_ = nullptr;
  index_t window_bytes_ = 0;
  std::vector<const T*> peer_base_;  ///< by communicator rank; null off the node
  std::vector<bool> on_node_;
  std::vector<int> window_sends_of_batch_;
  std::vector<index_t> send_offset_;           ///< buffer offset of each sent message
  std::pair<index_t, index_t> stacked_{0, 0};  ///< sent, received messages laid stacked
  std::vector<index_t> send_rel_, recv_rel_;   ///< offset of each segment inside its message
  std::vector<std::int64_t> note_in_, note_out_;
  std::vector<char> direct_send_, direct_recv_;                      ///< per message: read in place
  std::vector<std::shared_ptr<detail::NodeWindow>> direct_windows_;  ///< node-shared sources

  // State of the execution in progress.
  bool running_ = false;
  std::size_t remaining_ = 0;
  std::vector<int> pending_;
  std::vector<index_t> send_pending_;   ///< segments of each send chunk not packed yet
  std::vector<std::size_t> next_post_;  ///< next chunk of each sent message to post
  std::vector<int> chunks_pending_;
  std::vector<index_t> recv_left_;  ///< segments of each received message not yet unpacked
  std::array<std::vector<std::uint32_t>, 4> ready_;
  std::array<std::size_t, 4> ready_head_{};
  std::vector<boost::mpi::request> send_requests_;
  std::vector<boost::mpi::request> requests_;  ///< receives, notes and acks, with their events
  std::vector<Event> events_;
  int acks_left_ = 0;
  std::array<std::size_t, 5> tasks_run_{};
};

}  // namespace redist

// The on-node transport set-up, defined out of class to keep this file about execution.
#include <redist/detail/executor_transport.hpp>
