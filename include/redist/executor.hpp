#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp) with Kokkos copies and Boost.MPI
/// point-to-point messages. The only header that talks to MPI.
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
/// The environment variable REDIST_SHARED_WINDOW=0 (same on every rank) turns it off.
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
  enum class EventKind { data, note, ack };
  struct Event {
    EventKind kind;
    std::size_t index;  ///< chunk (data, note) or sent message (ack)
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
      send_copies_.push_back({p, ld, send_buf_.data() + ps.buffer_offset, ps.segment.extent.rows,
                              ps.segment.extent.rows, ps.segment.extent.cols});
    }
    for (const auto& ps : plan_.recv.segments) {
      const auto [p, ld] = tile_at(dst, ps.segment.dst_tile, ps.segment.dst_offset);
      recv_copies_.push_back({recv_buf_.data() + ps.buffer_offset, ps.segment.extent.rows, p, ld,
                              ps.segment.extent.rows, ps.segment.extent.cols});
    }
    for (const auto& ps : plan_.local) {
      const auto [s, lds] = tile_at(src, ps.segment.src_tile, ps.segment.src_offset);
      const auto [d, ldd] = tile_at(dst, ps.segment.dst_tile, ps.segment.dst_offset);
      local_copies_.push_back({s, lds, d, ldd, ps.segment.extent.rows, ps.segment.extent.cols});
    }

    // Chunks of each message, the chunk of each segment, the receive tasks of each chunk.
    cut_chunks(plan_.send, send_chunks_, send_chunk_of_, send_chunk_begin_, nullptr);
    cut_chunks(plan_.recv, recv_chunks_, recv_chunk_of_, recv_chunk_begin_, &recv_message_of_);
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
  /// Frees the shared window, if any (collective over the node, like the communicator's
  /// own destruction).
  ~Executor() { release_window(); }

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
  bool shared_window() const { return win_ != MPI_WIN_NULL; }
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
          std::atomic_thread_fence(std::memory_order_acquire);
          MPI_Win_sync(win_);
          const Chunk& c = recv_chunks_[e.index];
          const Message& msg = plan_.recv.messages[c.message];
          const T* base = peer_base_[static_cast<std::size_t>(msg.peer)] + note_in_[e.index];
          for (index_t s = c.first; s < c.end; ++s)
            recv_copies_[static_cast<std::size_t>(s)].src =
                base + recv_rel_[static_cast<std::size_t>(s)];
          arrived(e.index);
          break;
        }
        case EventKind::ack: {
          --acks_left_;
          const index_t b = plan_.send.messages[e.index].batch;
          if (b + 1 < plan_.batches) {
            const std::size_t v = graph_.batch_vertex[static_cast<std::size_t>(b + 1)];
            if (--pending_[v] == 0) push_ready(v);
          }
          break;
        }
      }
    }
    wait_sends();
    Kokkos::fence();
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
          copy_block<MemorySpace>(send_copies_[static_cast<std::size_t>(s)]);
          const std::size_t c = send_chunk_of_[static_cast<std::size_t>(s)];
          if (--send_pending_[c] == 0) post_ready_chunks(send_chunks_[c].message);
        }
        break;
      case TaskKind::receive:
        if (!t.remote) {
          copy_block<MemorySpace>(local_copies_[static_cast<std::size_t>(t.index)]);
          break;
        }
        copy_block<MemorySpace>(recv_copies_[static_cast<std::size_t>(t.index)]);
        if (win_ != MPI_WIN_NULL) {
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
      const bool window = win_ != MPI_WIN_NULL && on_node_[static_cast<std::size_t>(msg.peer)];
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
    if (win_ != MPI_WIN_NULL && on_node_[static_cast<std::size_t>(msg.peer)]) {
      // The whole message is out: expect the receiver's ack before reusing the buffer.
      post_request(EventKind::ack, m, comm_.irecv(msg.peer, ack_tag));
      ++acks_left_;
    }
  }

  void post_chunk(std::size_t c) {
    const Chunk& ch = send_chunks_[c];
    const Message& msg = plan_.send.messages[ch.message];
    if (win_ != MPI_WIN_NULL && on_node_[static_cast<std::size_t>(msg.peer)]) {
      // Packed in our window: publish it and send the note (the message's offset).
      std::atomic_thread_fence(std::memory_order_release);
      MPI_Win_sync(win_);
      note_out_[ch.message] = static_cast<std::int64_t>(msg.buffer_offset);
      send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), &note_out_[ch.message], 1));
      return;
    }
    const index_t first = msg.buffer_offset + ch.offset;
    if constexpr (staged) {
      const std::pair<std::size_t, std::size_t> r(static_cast<std::size_t>(first),
                                                  static_cast<std::size_t>(first + ch.elements));
      Kokkos::deep_copy(Kokkos::subview(send_host_, r), Kokkos::subview(send_buf_, r));
    } else {
      Kokkos::fence();  // packing kernels must be done before MPI reads the buffer
    }
    const T* buf = win_ != MPI_WIN_NULL ? window_send_
                   : staged             ? send_host_.data()
                                        : send_buf_.data();
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
        if (chunks.size() == begin.back() || chunks.back().elements >= limit)
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

  static void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw communication_error(std::string("redist: ") + what + " failed");
  }

  /// First start(): on host memory, puts the send buffer in a shared window of the node's
  /// ranks (collective over the communicator, as every start() is).
  void setup_transport() {
    transport_ready_ = true;
    window_sends_of_batch_.assign(static_cast<std::size_t>(plan_.batches), 0);
    if constexpr (use_window) {
      const char* env = std::getenv("REDIST_SHARED_WINDOW");
      if (env != nullptr && std::strcmp(env, "0") == 0) return;
      check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, comm_.rank(), MPI_INFO_NULL, &node_),
            "MPI_Comm_split_type");
      int node_size = 1;
      MPI_Comm_size(node_, &node_size);
      if (node_size < 2) {
        MPI_Comm_free(&node_);
        return;
      }
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "alloc_shared_noncontig", "true");
      const MPI_Aint bytes = static_cast<MPI_Aint>(send_buf_.extent(0) * sizeof(T));
      T* base = nullptr;
      check(MPI_Win_allocate_shared(bytes, static_cast<int>(sizeof(T)), info, node_, &base, &win_),
            "MPI_Win_allocate_shared");
      MPI_Info_free(&info);
      MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
      // Node rank -> communicator rank, and each node rank's window.
      MPI_Group comm_group, node_group;
      MPI_Comm_group(comm_, &comm_group);
      MPI_Comm_group(node_, &node_group);
      std::vector<int> node_ranks(static_cast<std::size_t>(node_size)),
          comm_ranks(node_ranks.size());
      std::iota(node_ranks.begin(), node_ranks.end(), 0);
      MPI_Group_translate_ranks(node_group, node_size, node_ranks.data(), comm_group,
                                comm_ranks.data());
      MPI_Group_free(&comm_group);
      MPI_Group_free(&node_group);
      peer_base_.assign(static_cast<std::size_t>(comm_.size()), nullptr);
      on_node_.assign(static_cast<std::size_t>(comm_.size()), false);
      for (int r = 0; r < node_size; ++r) {
        MPI_Aint size = 0;
        int unit = 0;
        T* p = nullptr;
        MPI_Win_shared_query(win_, r, &size, &unit, &p);
        peer_base_[static_cast<std::size_t>(comm_ranks[static_cast<std::size_t>(r)])] = p;
        on_node_[static_cast<std::size_t>(comm_ranks[static_cast<std::size_t>(r)])] = true;
      }
      // Pack into the window from now on; the Kokkos send buffer is no longer needed.
      window_send_ = base;
      window_bytes_ = static_cast<index_t>(bytes);
      for (std::size_t s = 0; s < plan_.send.segments.size(); ++s)
        send_copies_[s].dst = base + plan_.send.segments[s].buffer_offset;
      send_buf_ = buffer_view();
      send_host_ = typename buffer_view::HostMirror();
      bool off_node_recv = false;
      for (const Message& msg : plan_.recv.messages)
        off_node_recv = off_node_recv || !on_node_[static_cast<std::size_t>(msg.peer)];
      if (!off_node_recv) {
        recv_buf_ = buffer_view();
        recv_host_ = typename buffer_view::HostMirror();
      }
      for (const Message& msg : plan_.send.messages)
        if (on_node_[static_cast<std::size_t>(msg.peer)])
          window_sends_of_batch_[static_cast<std::size_t>(msg.batch)] += 1;
      note_in_.assign(recv_chunks_.size(), 0);
      note_out_.assign(plan_.send.messages.size(), 0);
      recv_rel_.resize(plan_.recv.segments.size());
      for (const Message& msg : plan_.recv.messages)
        for (index_t s = msg.first; s < msg.first + msg.count; ++s)
          recv_rel_[static_cast<std::size_t>(s)] =
              plan_.recv.segments[static_cast<std::size_t>(s)].buffer_offset - msg.buffer_offset;
    }
  }

  void release_window() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (win_ != MPI_WIN_NULL) {
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  }

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

  // Shared-memory transport (set up by the first start()).
  bool transport_ready_ = false;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  T* window_send_ = nullptr;
  index_t window_bytes_ = 0;
  std::vector<const T*> peer_base_;  ///< by communicator rank; null off the node
  std::vector<bool> on_node_;
  std::vector<int> window_sends_of_batch_;
  std::vector<index_t> recv_rel_;  ///< offset of a received segment inside its message
  std::vector<std::int64_t> note_in_, note_out_;

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
