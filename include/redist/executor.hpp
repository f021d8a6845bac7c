#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp) with Kokkos copies and Boost.MPI
/// point-to-point messages. The only header that talks to MPI.
///
/// Order of work (papers/cao2021-*.txt section 6): Batch(k) waits for the previous
/// batch's sends and posts all of batch k's receives first; then Send tasks pack their
/// segments, and a message leaves (non-blocking) as soon as its last segment is packed;
/// local Receives copy tile to tile while messages are in flight; remote Receives
/// unpack as their message arrives. start() does everything that needs no waiting,
/// wait() finishes. Buffers are allocated once per executor and reused by every run
/// (no page faults per call); with device memory and no GPU-aware MPI, messages are
/// staged through host mirrors.

#include <algorithm>
#include <cstddef>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>

#include <redist/copy_kernel.hpp>
#include <redist/error.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

#ifndef REDIST_GPU_AWARE_MPI
/// Set to 1 when MPI can read and write device memory directly.
#define REDIST_GPU_AWARE_MPI 0
#endif

namespace redist {

template <class T, class MemorySpace>
class Executor {
  using buffer_view = Kokkos::View<T*, MemorySpace>;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  static constexpr bool staged = !host_memory && !REDIST_GPU_AWARE_MPI;
  static constexpr int tag_base = 7100;

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

    // Which message each sent segment belongs to, and the receive tasks of each message.
    send_message_of_.resize(plan_.send.segments.size());
    for (std::size_t m = 0; m < plan_.send.messages.size(); ++m) {
      const Message& msg = plan_.send.messages[m];
      for (index_t s = msg.first; s < msg.first + msg.count; ++s)
        send_message_of_[static_cast<std::size_t>(s)] = m;
    }
    std::vector<std::size_t> recv_message_of(plan_.recv.segments.size());
    for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m) {
      const Message& msg = plan_.recv.messages[m];
      for (index_t s = msg.first; s < msg.first + msg.count; ++s)
        recv_message_of[static_cast<std::size_t>(s)] = m;
    }
    receives_of_message_.resize(plan_.recv.messages.size());
    const auto& g = graph_.graph;
    in_degree_.assign(boost::num_vertices(g), 0);
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
      in_degree_[v] = static_cast<int>(boost::in_degree(v, g));
      const Task& t = g[v];
      if (t.kind == TaskKind::receive && t.remote) {
        receives_of_message_[recv_message_of[static_cast<std::size_t>(t.index)]].push_back(v);
        in_degree_[v] += 1;  // the message's arrival is one more dependency
      }
    }
  }

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const Plan& plan() const { return plan_; }
  const TaskGraph& graph() const { return graph_; }
  /// Bytes of message buffers this executor holds (device + host staging).
  index_t buffer_bytes() const {
    const index_t n = static_cast<index_t>(send_buf_.extent(0) + recv_buf_.extent(0));
    return n * static_cast<index_t>(sizeof(T)) * (staged ? 2 : 1);
  }
  /// Tasks run by the last execution, per kind (Init, Send, Receive, Finish, Batch).
  const std::array<std::size_t, 5>& tasks_run() const { return tasks_run_; }

  /// Starts an execution: posts receives, packs and sends, copies local segments; returns
  /// when only waiting is left. @pre no execution in progress.
  void start() {
    if (running_) throw error("redist: start() called while an execution is in progress");
    running_ = true;
    remaining_ = boost::num_vertices(graph_.graph);
    pending_ = in_degree_;
    send_pending_.clear();
    for (const Message& m : plan_.send.messages) send_pending_.push_back(m.count);
    chunks_pending_.assign(plan_.recv.messages.size(), 0);
    tasks_run_ = {};
    for (auto& q : ready_) q.clear();
    for (auto v : boost::make_iterator_range(boost::vertices(graph_.graph)))
      if (pending_[v] == 0) push_ready(v);
    drain();
  }

  /// Completes the execution started by start().
  void wait() {
    if (!running_) return;
    while (remaining_ > 0) {
      drain();
      if (remaining_ == 0) break;
      if (recv_requests_.empty())
        throw communication_error("redist: task graph stalled with " + std::to_string(remaining_) +
                                  " tasks left and no message outstanding");
      auto [status, it] = boost::mpi::wait_any(recv_requests_.begin(), recv_requests_.end());
      (void)status;
      const std::size_t k = static_cast<std::size_t>(it - recv_requests_.begin());
      const std::size_t msg = recv_request_message_[k];
      recv_requests_.erase(it);
      recv_request_message_.erase(recv_request_message_.begin() + static_cast<std::ptrdiff_t>(k));
      if (--chunks_pending_[msg] == 0) arrived(msg);
    }
    boost::mpi::wait_all(send_requests_.begin(), send_requests_.end());
    send_requests_.clear();
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
  void push_ready(std::size_t v) {
    ready_[static_cast<std::size_t>(priority(graph_.graph[v]))].push_back(v);
  }

  /// Runs ready tasks until none is left.
  void drain() {
    for (;;) {
      std::size_t v = 0;
      bool found = false;
      for (auto& q : ready_)
        if (!q.empty()) {
          v = q.front();
          q.pop_front();
          found = true;
          break;
        }
      if (!found) return;
      execute(v);
      --remaining_;
      for (auto e : boost::make_iterator_range(boost::out_edges(v, graph_.graph))) {
        const std::size_t w = boost::target(e, graph_.graph);
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
          const std::size_t m = send_message_of_[static_cast<std::size_t>(s)];
          if (--send_pending_[m] == 0) post_send(plan_.send.messages[m]);
        }
        break;
      case TaskKind::receive:
        copy_block<MemorySpace>(t.remote ? recv_copies_[static_cast<std::size_t>(t.index)]
                                         : local_copies_[static_cast<std::size_t>(t.index)]);
        break;
      case TaskKind::init:
      case TaskKind::finish:
        break;
    }
  }

  /// Batch(k): the previous batch's sends must be done before their buffer is reused;
  /// then all receives of batch k are posted, peers staggered from rank + 1.
  void open_batch(index_t k) {
    boost::mpi::wait_all(send_requests_.begin(), send_requests_.end());
    send_requests_.clear();
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
      char* base = reinterpret_cast<char*>((staged ? recv_host_.data() : recv_buf_.data()) +
                                           msg.buffer_offset);
      for_each_chunk(msg, [&](index_t off, int bytes) {
        recv_requests_.push_back(comm_.irecv(msg.peer, tag(msg.batch), base + off, bytes));
        recv_request_message_.push_back(m);
        ++chunks_pending_[m];
      });
    }
  }

  void post_send(const Message& msg) {
    if constexpr (staged) {
      const std::pair<std::size_t, std::size_t> r(
          static_cast<std::size_t>(msg.buffer_offset),
          static_cast<std::size_t>(msg.buffer_offset + msg.elements));
      Kokkos::deep_copy(Kokkos::subview(send_host_, r), Kokkos::subview(send_buf_, r));
    } else {
      Kokkos::fence();  // packing kernels must be done before MPI reads the buffer
    }
    const char* base = reinterpret_cast<const char*>(
        (staged ? send_host_.data() : send_buf_.data()) + msg.buffer_offset);
    for_each_chunk(msg, [&](index_t off, int bytes) {
      send_requests_.push_back(comm_.isend(msg.peer, tag(msg.batch), base + off, bytes));
    });
  }

  void arrived(std::size_t m) {
    if constexpr (staged) {
      const Message& msg = plan_.recv.messages[m];
      const std::pair<std::size_t, std::size_t> r(
          static_cast<std::size_t>(msg.buffer_offset),
          static_cast<std::size_t>(msg.buffer_offset + msg.elements));
      Kokkos::deep_copy(Kokkos::subview(recv_buf_, r), Kokkos::subview(recv_host_, r));
    }
    for (std::size_t v : receives_of_message_[m])
      if (--pending_[v] == 0) push_ready(v);
  }

  /// Splits a message into pieces an MPI int count can carry (PlanOptions::max_message_bytes).
  template <class F>
  void for_each_chunk(const Message& msg, F&& f) const {
    const index_t total = msg.elements * static_cast<index_t>(sizeof(T));
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
  std::vector<std::size_t> send_message_of_;
  std::vector<std::vector<std::size_t>> receives_of_message_;
  std::vector<int> in_degree_;

  // State of the execution in progress.
  bool running_ = false;
  std::size_t remaining_ = 0;
  std::vector<int> pending_;
  std::vector<index_t> send_pending_;
  std::vector<int> chunks_pending_;
  std::array<std::deque<std::size_t>, 4> ready_;
  std::vector<boost::mpi::request> send_requests_;
  std::vector<boost::mpi::request> recv_requests_;
  std::vector<std::size_t> recv_request_message_;
  std::array<std::size_t, 5> tasks_run_{};
};

}  // namespace redist
