#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp): copy programs (copy_program.hpp) on an
/// execution-space instance, messages through the transports (transport/transport.hpp).
///
/// The loop: tasks whose predecessors are done run from ready queues (Init, then Send,
/// then local copies, then unpacks); Arrive and Ack tasks are transport events and
/// complete when their transport reports them. The graph is walked as compiled
/// (Schedule): the executor adds no dependency of its own, and it never calls MPI for a
/// message itself: it tells the message's transport that a batch opened, a chunk is
/// packed, a message is out or unpacked, and hands it the completions of its requests.
/// start() runs all that needs no waiting, test() advances what arrived, wait()
/// completes.
///
/// connect() chooses the transports, collectively (transport/choose.hpp), and lays out
/// the message buffers once for them (transport/message_buffers.hpp); the copies that
/// touch a buffer are bound relative to their message and pointed at it then.

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>

#include <redist/copy_kernel.hpp>
#include <redist/copy_program.hpp>
#include <redist/detail/bind_copies.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan/compact_plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transform.hpp>
#include <redist/transport/choose.hpp>
#include <redist/transport/transports.hpp>

namespace redist {

template <class T, class MemorySpace>
class Executor {
 public:
  using execution_space = typename MemorySpace::execution_space;

 private:
  /// A pool's arrays in device memory (device memory spaces only).
  struct DevicePool {
    Kokkos::View<StridedCopy<T>*, MemorySpace> copies;
    Kokkos::View<RowRun*, MemorySpace> runs;
    Kokkos::View<ColumnMember*, MemorySpace> members;
  };
  using Range = std::pair<std::size_t, std::size_t>;  ///< copies [first, end) of a pool
  using Address = transport::Address<T>;              ///< a segment's start and ld
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

 public:
  /// Binds `plan` to the local tiles of src and dst. Both matrices must outlive the
  /// executor; their storage must not move. With a transposing `transform` the plan is
  /// one from the transposed view of src's layout (transform.hpp). @pre `options` and
  /// `transform` agreed by every rank.
  template <class SrcMatrix, class DstMatrix>
  Executor(CompactPlan plan, const SrcMatrix& src, DstMatrix& dst, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : Executor(std::move(plan), std::vector<const SrcMatrix*>{&src},
                 std::vector<DstMatrix*>{&dst}, std::move(comm), options, transform) {}

  /// A move of several parts (plan/plan_parts.hpp): srcs[k] and dsts[k] are part k's
  /// matrices. @pre one of each per part of the plan.
  template <class SrcMatrix, class DstMatrix>
  Executor(CompactPlan plan, const std::vector<const SrcMatrix*>& srcs,
           const std::vector<DstMatrix*>& dsts, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : plan_(std::move(plan)),
        comm_(std::move(comm)),
        options_(options),
        transform_(transform),
        buffers_(!options.gpu_aware_mpi) {
    options_.validate();
    link_.comm = comm_;
    link_.messages = {&plan_, &graph_};
    link_.buffers = &buffers_;
    link_.requests = &requests_;
    link_.exec = &exec_;
    link_.max_message_bytes = plan_.options.max_message_bytes;
    graph_ = make_task_graph(plan_, chunk_elements());

    std::vector<detail::MatrixSide<T, SrcMatrix>> src_side;
    std::vector<detail::MatrixSide<T, DstMatrix>> dst_side;
    for (const SrcMatrix* m : srcs) src_side.emplace_back(*m, true, transform_.transposes());
    for (DstMatrix* m : dsts) dst_side.emplace_back(*m, false);
    // Messages between two tile-stored sides are laid flat (detail/bind_copies.hpp).
    constexpr bool flat = !stores_local_matrix<typename SrcMatrix::placement_type> &&
                          !stores_local_matrix<typename DstMatrix::placement_type>;
    bind(plan_.send, graph_.send, src_side, detail::BufferSide{}, send_pool_, send_rel_,
         send_range_, flat);
    std::vector<index_t> no_rel;
    bind(plan_.local, graph_.local, src_side, dst_side, local_pool_, no_rel, local_range_);
    for (auto& c : local_pool_.copies) c.scale_by(transform_);
    // Receives are bound at connect(), once it is known which are read in place.
    bind_receives_ = [this, dst_side, flat](const std::vector<std::vector<Address>>& described) {
      recv_pool_ = {};
      recv_rel_.clear();
      recv_range_.clear();
      // Direct messages: each one's described segments, consumed in order, chunk after
      // chunk (binding advances the cursor).
      std::vector<detail::DescribedSide<T>> source;
      for (const auto& list : described) source.push_back({list.data(), transform_.transposes()});
      for (std::size_t c = 0; c < graph_.recv.chunks.size(); ++c) {
        const Chunk& ch = graph_.recv.chunks[c];
        const std::size_t first = recv_pool_.copies.size();
        if (graph_.recv_transport[ch.message] == Transport::direct) {
          for (std::size_t k = ch.first; k < ch.end; ++k)
            detail::bind_slice(plan_, plan_.recv, graph_.recv.slices[k], source[ch.message],
                               side_of(dst_side, part_of(plan_.recv, graph_.recv.slices[k])),
                               recv_pool_, recv_rel_);
        } else {
          for (std::size_t k = ch.first; k < ch.end; ++k)
            detail::bind_slice(plan_, plan_.recv, graph_.recv.slices[k], detail::BufferSide{},
                               side_of(dst_side, part_of(plan_.recv, graph_.recv.slices[k])),
                               recv_pool_, recv_rel_, flat);
        }
        recv_range_.emplace_back(first, recv_pool_.copies.size());
      }
      for (auto& c : recv_pool_.copies) c.scale_by(transform_);
    };
    segment_source_ = [src_side](index_t part, const Piece& r, const Piece& c) -> Address {
      return src_side[static_cast<std::size_t>(part)].at(r, c);
    };
    // Streaming stores when this rank writes more than the cache keeps (copy_kernel.hpp):
    // into its target, and into its send buffer, which the peer reads back only after
    // much more has been packed. Packing streams long runs and contiguous blocks only:
    // short runs scattered through the buffer measured slower streamed (redist-bench,
    // standard case c).
    const index_t bytes = static_cast<index_t>(sizeof(T));
    const index_t threshold = options_.streaming_threshold_bytes;
    stream_target_ =
        (plan_.stats.elements_local + plan_.stats.elements_received) * bytes >= threshold;
    bool stream_pack = plan_.stats.elements_sent * bytes >= threshold;
    if (options_.streaming != Toggle::automatic)
      stream_target_ = stream_pack = options_.streaming == Toggle::on;
    stream_target_ = stream_target_ && host_memory;
    stream_pack_ = stream_pack && host_memory;
    for (auto& c : local_pool_.copies) c.streaming = stream_target_;
    for (auto& c : send_pool_.copies) {
      index_t shortest = INT64_MAX;
      for (index_t r = c.run_first; r < c.run_first + c.runs; ++r)
        shortest = std::min(shortest, send_pool_.runs[static_cast<std::size_t>(r)].length);
      // A contiguous block (a segment laid flat) streams whatever its column length.
      const bool contiguous = c.runs == 1 && c.members == 1 && shortest == c.ldd;
      c.streaming = stream_pack_ && (contiguous || shortest * bytes >= 1024);
    }
    compile_graph();
  }

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  /// Drops its share of the node windows; the last holder of one frees it, collectively
  /// over the node (node_shared.hpp).
  ~Executor() = default;

  const CompactPlan& plan() const { return plan_; }
  const TaskGraph& graph() const { return graph_; }
  const Schedule& schedule() const { return schedule_; }
  const ExecutionOptions& options() const { return options_; }
  const Transform<T>& transform() const { return transform_; }
  /// Whether an execution started and has not completed.
  bool running() const { return running_; }
  /// Bytes of message buffers this executor holds (device + host staging + its part of
  /// the node window), known after connect(): at most the plan's
  /// PlanStats::buffer_elements elements (twice when staged).
  index_t buffer_bytes() const { return buffers_.bytes(); }
  /// Whether messages between ranks of this node go through the shared window (known
  /// after connect()).
  bool shared_window() const { return transports_.shared_window.window() != nullptr; }
  /// Messages this rank sends and receives direct, read in place from node-shared source
  /// memory (known after connect()).
  std::pair<index_t, index_t> direct_messages() const {
    const auto direct = [](const std::vector<Transport>& v) {
      return static_cast<index_t>(std::count(v.begin(), v.end(), Transport::direct));
    };
    return {direct(graph_.send_transport), direct(graph_.recv_transport)};
  }
  /// Tasks run by the last execution, per kind.
  const TaskCounts& tasks_run() const { return tasks_run_; }
  /// The tasks (graph vertices) in the order they completed in the last execution.
  const std::vector<std::uint32_t>& completion_order() const { return order_; }

  /// Chooses the transports (transport/choose.hpp), lays out and allocates the message
  /// buffers, binds the copies to them and builds the task graph for them: collective
  /// over the communicator. start() does it if nobody did. Idempotent.
  /// @throws communication_error if MPI fails while setting up (a window, a description).
  void connect() {
    if (transport_ready_) return;
    transport::TransportChoice<T> choice;
    try {
      choice = transport::choose_transports<T, MemorySpace>(
          comm_, plan_, graph_, host_memory && options_.shared_window, transform_.transposes(),
          segment_source_, buffers_);
    } catch (const boost::mpi::exception& e) {
      throw communication_error(
          detail::describe("MPI failed while setting up the transports", e.routine(), e.what()));
    }
    transport_ready_ = true;
    graph_.send_transport = choice.send;
    graph_.recv_transport = choice.recv;
    if (choice.window)
      transports_.shared_window.attach(std::move(choice.window), std::move(choice.peer_part));
    transports_.direct.attach(std::move(choice.direct_windows));
    bind_receives_(choice.described);
    // Unpacks of point-to-point messages read the receive part; those of window messages
    // are pointed at the sender's part when its note arrives.
    for (std::size_t c = 0; c < graph_.recv.chunks.size(); ++c) {
      const std::size_t m = graph_.recv.chunks[c].message;
      if (graph_.recv_transport[m] == Transport::point_to_point)
        rebase_sources(recv_pool_, recv_rel_, recv_range_[c], buffers_.recv_at(m));
    }
    for (auto& c : recv_pool_.copies) c.streaming = stream_target_;
    // Packs go to the send part, message after message.
    for (std::size_t c = 0; c < graph_.send.chunks.size(); ++c)
      rebase_targets(send_pool_, send_rel_, send_range_[c],
                     buffers_.send_at(graph_.send.chunks[c].message));
    // The chunks are the same as before (same plan, same chunk size); the transports and
    // with them the Ack tasks are new.
    graph_ = make_task_graph(plan_, chunk_elements(), graph_.send_transport, graph_.recv_transport);
    compile_graph();
  }

  /// Starts an execution on `exec`: posts receives, packs and sends, copies local
  /// segments; returns when only waiting is left. @pre no execution in progress.
  void start(const execution_space& exec = execution_space{}) {
    if (running_) throw error("redist: start() called while an execution is in progress");
    connect();
    exec_ = exec;
    running_ = true;
    remaining_ = schedule_.in_degree.size();
    pending_ = schedule_.in_degree;
    event_.assign(schedule_.in_degree.size(), 0);
    next_post_.assign(graph_.send.begin.begin(), graph_.send.begin.end() - 1);
    packed_.assign(graph_.send.chunks.size(), 0);
    recv_left_.clear();
    for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
      recv_left_.push_back(graph_.recv.begin[m + 1] - graph_.recv.begin[m]);
    requests_.clear();
    tasks_run_ = {};
    order_.clear();
    for (auto& q : ready_) q.clear();
    ready_head_ = {};
    transports_.for_each([](auto& t) { t.begin(); });
    for (std::size_t v = 0; v < pending_.size(); ++v)
      if (pending_[v] == 0) make_ready(v);
    drain();
  }

  /// Advances the execution without blocking: handles what arrived, runs what it made
  /// ready. Returns true when the execution is complete (wait() then returns at once).
  bool test() {
    if (!running_) return true;
    drain();
    for (std::size_t before = SIZE_MAX; requests_.size() != before && remaining_ > 0;) {
      before = requests_.size();
      poll();
      drain();
    }
    if (remaining_ == 0) finish();
    return !running_;
  }

  /// Completes the execution started by start().
  void wait() {
    if (!running_) return;
    drain();
    while (remaining_ > 0) {
      if (requests_.empty())
        throw communication_error("redist: task graph stalled with " + std::to_string(remaining_) +
                                  " tasks left and no message outstanding");
      handle(requests_.wait());
      drain();
    }
    finish();
  }

  /// start() then wait().
  void run(const execution_space& exec = execution_space{}) {
    start(exec);
    wait();
  }

 private:
  /// The transports' view of this executor (transport::TransportEvents).
  struct Events {
    Executor& x;
    void arrived(std::size_t c, const T* at) { x.arrived(c, at); }
    void acked(std::size_t m) { x.event(x.graph_.ack_vertex[m]); }
  };

  index_t chunk_elements() const {
    return std::max<index_t>(1, options_.chunk_bytes / static_cast<index_t>(sizeof(T)));
  }
  bool transport_task(std::size_t v) const {
    const TaskKind k = graph_.graph[v].kind;
    return k == TaskKind::arrive || k == TaskKind::ack;
  }

  void compile_graph() {
    schedule_ = compile(graph_);
    if constexpr (!host_memory) {
      mirror(send_pool_, send_device_);
      mirror(recv_pool_, recv_device_);
      mirror(local_pool_, local_device_);
    }
  }
  template <class V, class E>
  static void mirror_array(const std::vector<E>& list, V& view) {
    view = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::copies"), list.size());
    const Kokkos::View<const E*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(list.data(),
                                                                                  list.size());
    Kokkos::deep_copy(view, host);
  }
  static void mirror(const CopyPool<T>& pool, DevicePool& device) {
    mirror_array(pool.copies, device.copies);
    mirror_array(pool.runs, device.runs);
    mirror_array(pool.members, device.members);
  }
  /// Runs one task's copies (range r of a pool) as one program on the execution's
  /// instance.
  void run_program(const CopyPool<T>& pool, const DevicePool& device, Range r) {
    if constexpr (host_memory)
      run_copies(exec_, pool, r.first, r.second);
    else
      run_copies(exec_, device.copies.data(), device.runs.data(), device.members.data(), r.first,
                 r.second);
  }

  /// Binds every slice of `d` (chunk by chunk) between two sides; range[c] = chunk c's
  /// copies.
  template <class S, class D>
  void bind(const FamilyList& d, const Chunking& chunking, const S& src, const D& dst,
            CopyPool<T>& pool, std::vector<index_t>& rel, std::vector<Range>& range,
            bool flat = false) {
    for (const Chunk& ch : chunking.chunks) {
      const std::size_t first = pool.copies.size();
      for (std::size_t k = ch.first; k < ch.end; ++k) {
        const index_t part = part_of(d, chunking.slices[k]);
        detail::bind_slice(plan_, d, chunking.slices[k], side_of(src, part), side_of(dst, part),
                           pool, rel, flat);
      }
      range.emplace_back(first, pool.copies.size());
    }
  }

  /// The part (plan/plan_parts.hpp) of slice s, and a part's side: a matrix side per
  /// part, or the one buffer side.
  static index_t part_of(const FamilyList& d, const Slice& s) { return d.families[s.family].part; }
  template <class S>
  static const S& side_of(const S& side, index_t) {
    return side;
  }
  template <class S>
  static const S& side_of(const std::vector<S>& sides, index_t part) {
    return sides[static_cast<std::size_t>(part)];
  }

  /// Points the buffer side of the copies of range r at `base` (a message's start): the
  /// source of unpacks, the target of packs.
  static void rebase_sources(CopyPool<T>& pool, const std::vector<index_t>& rel, Range r,
                             const T* base) {
    for (std::size_t k = r.first; k < r.second; ++k) pool.copies[k].src = base + rel[k];
  }
  static void rebase_targets(CopyPool<T>& pool, const std::vector<index_t>& rel, Range r, T* base) {
    for (std::size_t k = r.first; k < r.second; ++k) pool.copies[k].dst = base + rel[k];
  }

  /// A task whose predecessors are done: queue it, or for a transport task, complete it
  /// if its event came already.
  void make_ready(std::size_t v) {
    if (transport_task(v)) {
      if (event_[v])
        complete(v);
      else
        event_[v] = 2;  // waiting for its event
      return;
    }
    ready_[schedule_.queue[v]].push_back(static_cast<std::uint32_t>(v));
  }
  /// The transport event of task v happened.
  void event(std::size_t v) {
    if (event_[v] == 2)
      complete(v);
    else
      event_[v] = 1;
  }
  void complete(std::size_t v) {
    --remaining_;
    order_.push_back(static_cast<std::uint32_t>(v));
    tasks_run_[graph_.graph[v].kind] += 1;
    for (std::uint32_t e = schedule_.succ_begin[v]; e < schedule_.succ_begin[v + 1]; ++e) {
      const std::uint32_t w = schedule_.succ[e];
      if (--pending_[w] == 0) make_ready(w);
    }
  }

  /// Runs ready tasks until none is left (FIFO per queue, lower queues first).
  void drain() {
    for (;;) {
      std::size_t k = 0;
      while (k < ready_.size() && ready_head_[k] == ready_[k].size()) ++k;
      if (k == ready_.size()) return;
      const std::size_t v = ready_[k][ready_head_[k]++];
      execute(v);
      complete(v);
      // Between packs, let MPI move what is posted (transports such as TCP progress only
      // inside MPI calls) and take what arrived: chunk k travels and is unpacked while
      // chunk k + 1 is packed.
      if (graph_.graph[v].kind == TaskKind::send) poll();
    }
  }

  /// Handles every request that has completed, without blocking.
  void poll() {
    while (const auto e = requests_.test()) handle(*e);
  }
  /// A request completed: its transport turns it into events.
  void handle(const transport::Completion& e) {
    Events events{*this};
    transports_.with(e.how, [&](auto& t) { t.complete(e, events); });
  }
  /// Received chunk c is readable: at `at` (its message's start), or where bound.
  void arrived(std::size_t c, const T* at) {
    if (at) rebase_sources(recv_pool_, recv_rel_, recv_range_[c], at);
    event(graph_.arrive_vertex[c]);
  }

  void execute(std::size_t v) {
    const Task& t = graph_.graph[v];
    switch (t.kind) {
      case TaskKind::init:
        open_batch(t.batch);
        break;
      case TaskKind::send:
        run_program(send_pool_, send_device_, send_range_[t.index]);
        packed_[t.index] = 1;
        ship_ready_chunks(graph_.send.chunks[t.index].message);
        break;
      case TaskKind::receive:
        if (t.remote)
          unpack(t.index);
        else
          run_program(local_pool_, local_device_, local_range_[t.index]);
        break;
      case TaskKind::arrive:
      case TaskKind::ack:
      case TaskKind::finish:
        break;
    }
  }

  /// Init(k): the previous batch's sends must be done before their buffer is reused;
  /// then the receives of batch k are posted, peers staggered from rank + 1.
  void open_batch(index_t k) {
    requests_.wait_sends();
    std::vector<std::size_t> msgs;
    for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
      if (plan_.recv.messages[m].batch == k) msgs.push_back(m);
    const int me = plan_.rank, p = plan_.comm_size;
    std::stable_sort(msgs.begin(), msgs.end(), [&](std::size_t a, std::size_t b) {
      return (plan_.recv.messages[a].peer - me + p) % p <
             (plan_.recv.messages[b].peer - me + p) % p;
    });
    for (std::size_t m : msgs)
      transports_.with(graph_.recv_transport[m], [&](auto& t) { t.post_receives(m); });
  }

  /// Ships the packed chunks of message m that are next in order (MPI keeps the order of
  /// messages with one tag between two ranks, so chunks must leave in order).
  void ship_ready_chunks(std::size_t m) {
    const std::size_t end = graph_.send.begin[m + 1];
    std::size_t& c = next_post_[m];
    if (c == end || !packed_[c]) return;
    transports_.with(graph_.send_transport[m], [&](auto& t) {
      while (c < end && packed_[c]) {
        if (stream_pack_) detail::streaming_fence();  // the packed chunk, visible to its reader
        exec_.fence();  // packing must be done before anyone reads the buffer
        t.ship(c++);
      }
      if (c == end) t.shipped(m);
    });
  }

  void unpack(std::size_t c) {
    run_program(recv_pool_, recv_device_, recv_range_[c]);
    const std::size_t m = graph_.recv.chunks[c].message;
    if (--recv_left_[m] == 0)
      transports_.with(graph_.recv_transport[m], [&](auto& t) { t.consumed(m); });
  }

  void finish() {
    requests_.wait_sends();
    exec_.fence();
    detail::streaming_fence();
    running_ = false;
  }

  CompactPlan plan_;
  boost::mpi::communicator comm_;
  ExecutionOptions options_;
  Transform<T> transform_;
  TaskGraph graph_;
  Schedule schedule_;
  execution_space exec_{};
  CopyPool<T> send_pool_, recv_pool_, local_pool_;
  DevicePool send_device_, recv_device_, local_device_;
  std::vector<index_t> send_rel_, recv_rel_;  ///< buffer offset of each copy in its message
  std::vector<Range> send_range_, recv_range_, local_range_;  ///< copies of each chunk
  std::function<void(const std::vector<std::vector<Address>>&)> bind_receives_;
  std::function<Address(index_t, const Piece&, const Piece&)> segment_source_;
  bool stream_pack_ = false;    ///< some packing uses streaming stores (copy_kernel.hpp)
  bool stream_target_ = false;  ///< writes into the target stream

  // Transports (set up by connect()).
  bool transport_ready_ = false;
  transport::MessageBuffers<T, MemorySpace> buffers_;
  transport::RequestPool requests_;
  transport::Link<T, MemorySpace> link_;
  transport::Transports<T, MemorySpace> transports_{&link_};

  // State of the execution in progress.
  bool running_ = false;
  std::size_t remaining_ = 0;
  std::vector<int> pending_;
  std::vector<std::uint8_t> event_;     ///< transport tasks: 1 event came, 2 waiting for it
  std::vector<std::uint8_t> packed_;    ///< per sent chunk
  std::vector<std::size_t> next_post_;  ///< next chunk of each sent message to ship
  std::vector<std::size_t> recv_left_;  ///< chunks of each received message not unpacked
  std::array<std::vector<std::uint32_t>, Schedule::queues> ready_;
  std::array<std::size_t, Schedule::queues> ready_head_{};
  TaskCounts tasks_run_;
  std::vector<std::uint32_t> order_;
};

}  // namespace redist
