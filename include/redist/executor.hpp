#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp): copy programs (copy_program.hpp) on an
/// execution-space instance, messages through Boost.MPI. With node_shared.hpp and
/// detail/executor_transport.hpp (its set-up at connect()), the only code that sends
/// point-to-point messages; collectives live in detail/collectively.hpp and
/// detail/agreement.hpp.
///
/// The loop: tasks whose predecessors are done run from ready queues (Init, then Send,
/// then local copies, then unpacks); Arrive and Ack tasks are transport events and
/// complete when their message part arrives or is acknowledged. The graph is walked as
/// compiled (Schedule): the executor adds no dependency of its own. start() runs all
/// that needs no waiting, test() advances what arrived, wait() completes.
///
/// Transports, chosen per message at connect() (Transport in task_graph.hpp):
/// - point to point: MPI copies the packed chunk from the send buffer into the receive
///   buffer (host buffers staged through host mirrors for device memory without
///   GPU-aware MPI);
/// - shared window (host memory, ranks of one node): the send buffer is an MPI-3 shared
///   window; the sender packs into it and sends an 8-byte note; the receiver unpacks
///   straight from it and acks (Cao et al. 2021, Eq. 4 loses its M_remote / B_net term);
/// - direct (node_shared.hpp): the sender's source tiles are node-shared; the receiver
///   copies from them in place, one copy per element, and acks.
/// Buffers are allocated once and reused by every run (no page faults per call).

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>
#include <mpi.h>

#include <redist/copy_kernel.hpp>
#include <redist/copy_program.hpp>
#include <redist/detail/bind_copies.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/node_shared.hpp>
#include <redist/plan/compact_plan.hpp>
#include <redist/task_graph.hpp>

namespace redist {

template <class T, class MemorySpace>
class Executor {
 public:
  using execution_space = typename MemorySpace::execution_space;

 private:
  using buffer_view = Kokkos::View<T*, MemorySpace>;
  /// A pool's arrays in device memory (device memory spaces only).
  struct DevicePool {
    Kokkos::View<StridedCopy<T>*, MemorySpace> copies;
    Kokkos::View<RowRun*, MemorySpace> runs;
    Kokkos::View<ColumnMember*, MemorySpace> members;
  };
  using Range = std::pair<std::size_t, std::size_t>;  ///< copies [first, end) of a pool
  using Address = std::pair<const T*, index_t>;       ///< a segment's start and ld
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  static constexpr int tag_base = 7100;
  static constexpr int ack_tag = tag_base - 1;
  static constexpr int describe_tag = tag_base - 2;

  /// What a completed request means: a piece of a chunk, a note (the chunk waits in the
  /// sender's window), a direct note (the sender's source is ready), or an ack.
  enum class EventKind { data, note, direct, ack };
  struct Event {
    EventKind kind;
    std::size_t index;  ///< chunk (data, note), received message (direct), sent message (ack)
  };

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
      : plan_(std::move(plan)), comm_(std::move(comm)), options_(options), transform_(transform) {
    options_.validate();
    index_t send_max = 0, recv_max = 0;
    for (index_t e : plan_.send.batch_elements) send_max = std::max(send_max, e);
    for (index_t e : plan_.recv.batch_elements) recv_max = std::max(recv_max, e);
    send_buf_ = buffer_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::send"),
                            static_cast<std::size_t>(send_max));
    recv_buf_ = buffer_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::recv"),
                            static_cast<std::size_t>(recv_max));
    send_host_ = Kokkos::create_mirror_view(send_buf_);
    recv_host_ = Kokkos::create_mirror_view(recv_buf_);
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
    rebase_sends();
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
  /// Bytes of message buffers this executor holds (device + host staging). Before
  /// connect(): the largest batch's send buffer plus the largest batch's receive buffer
  /// (at least PlanStats::buffer_elements, more when the two peak in different batches).
  /// After it, with the shared window: the window's send buffer, plus a receive buffer
  /// only for messages from other nodes.
  index_t buffer_bytes() const {
    const index_t n = static_cast<index_t>(send_buf_.extent(0) + recv_buf_.extent(0));
    return n * static_cast<index_t>(sizeof(T)) * (staged() ? 2 : 1) + window_bytes_;
  }
  /// Whether messages between ranks of this node go through the shared window (known
  /// after connect()).
  bool shared_window() const { return window_ != nullptr; }
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

  /// Sets up the transports (on host memory, the node's shared window and direct reads)
  /// and builds the task graph for them: collective over the communicator. start() does
  /// it if nobody did; calling it first makes buffer_bytes() exact before the first run.
  /// Idempotent.
  /// @throws communication_error if MPI fails while setting up (a window, a description).
  void connect() {
    if (transport_ready_) return;
    try {
      setup_transport();
    } catch (const boost::mpi::exception& e) {
      throw communication_error(
          detail::describe("MPI failed while setting up the transports", e.routine(), e.what()));
    }
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
    pieces_left_.assign(graph_.recv.chunks.size(), 0);
    recv_left_.clear();
    for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
      recv_left_.push_back(graph_.recv.begin[m + 1] - graph_.recv.begin[m]);
    requests_.clear();
    events_.clear();
    tasks_run_ = {};
    order_.clear();
    for (auto& q : ready_) q.clear();
    ready_head_ = {};
    announce_direct_sends();
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
      const auto done = boost::mpi::wait_any(requests_.begin(), requests_.end()).second;
      handle(static_cast<std::size_t>(done - requests_.begin()));
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
  bool staged() const { return !host_memory && !options_.gpu_aware_mpi; }
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

  static index_t segments_in(const FamilyList& d, const Message& msg) {
    index_t n = 0;
    for (index_t f = msg.first; f < msg.first + msg.count; ++f)
      n += d.families[static_cast<std::size_t>(f)].rows.count *
           d.families[static_cast<std::size_t>(f)].cols.count;
    return n;
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
  /// Packs go to the send buffer (or the node window), message after message.
  void rebase_sends() {
    T* buffer = window_ ? window_send_ : send_buf_.data();
    for (std::size_t c = 0; c < graph_.send.chunks.size(); ++c)
      rebase_targets(send_pool_, send_rel_, send_range_[c],
                     buffer + send_offset(graph_.send.chunks[c].message));
  }
  index_t send_offset(std::size_t m) const {
    return window_ ? window_offset_[m] : plan_.send.messages[m].buffer_offset;
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
    while (!requests_.empty()) {
      const auto done = boost::mpi::test_any(requests_.begin(), requests_.end());
      if (!done) return;
      handle(static_cast<std::size_t>(done->second - requests_.begin()));
    }
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
        post_ready_chunks(graph_.send.chunks[t.index].message);
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

  void unpack(std::size_t c) {
    const Chunk& ch = graph_.recv.chunks[c];
    run_program(recv_pool_, recv_device_, recv_range_[c]);
    const Transport how = graph_.recv_transport[ch.message];
    if (how != Transport::point_to_point && --recv_left_[ch.message] == 0) {
      // Last chunk read from the peer's memory: tell it the memory is free.
      exec_.fence();
      send_requests_.push_back(comm_.isend(plan_.recv.messages[ch.message].peer, ack_tag));
    }
  }

  /// Init(k): the previous batch's sends must be done before their buffer is reused;
  /// then all receives of batch k are posted, peers staggered from rank + 1.
  void open_batch(index_t k);

  /// Sends the packed chunks of message m that are next in order (MPI keeps the order of
  /// messages with one tag between two ranks, so chunks must leave in order); once all
  /// are out, a message read in place expects its ack.
  void post_ready_chunks(std::size_t m);

  void post_chunk(std::size_t c);

  void post_request(EventKind kind, std::size_t index, boost::mpi::request r) {
    requests_.push_back(std::move(r));
    events_.push_back({kind, index});
  }

  /// Request k completed: drop it (O(outstanding) waiting) and deliver its event.
  void handle(std::size_t k);

  /// Chunk c is in (in the receive buffer, or readable in the sender's memory).
  void arrived(std::size_t c);

  void wait_sends() {
    boost::mpi::wait_all(send_requests_.begin(), send_requests_.end());
    send_requests_.clear();
  }

  void finish() {
    wait_sends();
    exec_.fence();
    detail::streaming_fence();
    running_ = false;
  }

  /// connect(): sets up the node's transports (host memory), binds the receives for
  /// them, then builds the task graph for the chosen transports. Collective over the
  /// communicator.
  void setup_transport();

  /// Finds the direct messages, puts the send buffer of the others in a shared window of
  /// the node's ranks, and tells every receiver on the node how to read each message;
  /// returns, per received message, the described segment addresses (direct ones).
  std::vector<std::vector<Address>> connect_node();

  /// A message can go direct when every segment's source lies in one node-shared window
  /// that the receiver is part of. Marks send_transport; returns each message's window
  /// and its segments' addresses.
  std::vector<std::shared_ptr<detail::NodeWindow>> find_direct_sends(
      std::vector<std::vector<Address>>& segments);

  /// Whether a message of `count` segments fits one description (an MPI int count).
  static bool describable(index_t count) { return count <= (INT_MAX - 3) / 2; }

  /// Each on-node message is described to its receiver once: {0} when it is packed, or
  /// {1, window id, sender's node rank, then per segment: byte offset in the sender's
  /// part of the window, leading dimension} when the receiver reads it in place.
  std::vector<std::vector<Address>> exchange_descriptions(
      const std::vector<std::shared_ptr<detail::NodeWindow>>& window_of,
      const std::vector<std::vector<Address>>& segments);

  void add_direct_window(std::shared_ptr<detail::NodeWindow> w) {
    if (std::find(direct_windows_.begin(), direct_windows_.end(), w) == direct_windows_.end())
      direct_windows_.push_back(std::move(w));
  }

  /// start(): our source is ready; every direct receiver may read it now, and acks when
  /// done (wait() returns only then, so the caller may change the source after it).
  void announce_direct_sends();

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

  CompactPlan plan_;
  boost::mpi::communicator comm_;
  ExecutionOptions options_;
  Transform<T> transform_;
  TaskGraph graph_;
  Schedule schedule_;
  execution_space exec_{};
  buffer_view send_buf_, recv_buf_;
  typename buffer_view::HostMirror send_host_, recv_host_;
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
  std::shared_ptr<detail::NodeWindow> window_;  ///< the send buffer, shared on the node
  T* window_send_ = nullptr;
  index_t window_bytes_ = 0;
  std::vector<const T*> peer_base_;  ///< by communicator rank; null off the node
  std::vector<bool> on_node_;
  std::vector<index_t> window_offset_;  ///< window offset of each sent message
  std::vector<std::int64_t> note_in_, note_out_;
  std::vector<std::shared_ptr<detail::NodeWindow>> direct_windows_;  ///< node-shared sources

  // State of the execution in progress.
  bool running_ = false;
  std::size_t remaining_ = 0;
  std::vector<int> pending_;
  std::vector<std::uint8_t> event_;     ///< transport tasks: 1 event came, 2 waiting for it
  std::vector<std::uint8_t> packed_;    ///< per sent chunk
  std::vector<std::size_t> next_post_;  ///< next chunk of each sent message to post
  std::vector<int> pieces_left_;        ///< MPI pieces of each received chunk not in yet
  std::vector<std::size_t> recv_left_;  ///< chunks of each received message not unpacked
  std::array<std::vector<std::uint32_t>, Schedule::queues> ready_;
  std::array<std::size_t, Schedule::queues> ready_head_{};
  std::vector<boost::mpi::request> send_requests_;
  std::vector<boost::mpi::request> requests_;  ///< receives, notes and acks, with their events
  std::vector<Event> events_;
  TaskCounts tasks_run_;
  std::vector<std::uint32_t> order_;
};

}  // namespace redist

// Out of class, to keep this file about the schedule: the transport set-up at connect(),
// and the messages of each execution.
#include <redist/detail/executor_messages.hpp>
#include <redist/detail/executor_transport.hpp>
