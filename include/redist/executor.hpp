#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp): copy programs (copy/run_copies.hpp) on an
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
/// What it runs is wired once, collectively, when it is constructed (engine/wired.hpp):
/// transports, buffers, task graph, copies and schedule. The executor keeps the loop and
/// the state of the execution in progress.

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>

#include <redist/copy/host_primitives.hpp>
#include <redist/engine/wired.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan/compact_plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transform.hpp>

namespace redist {

template <class T, class MemorySpace>
class Executor {
 public:
  using execution_space = typename MemorySpace::execution_space;

 private:
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

 public:
  /// Wires `plan` to the local tiles of src and dst (engine/wired.hpp). Collective. Both
  /// matrices must outlive the executor; their storage must not move. With a transposing
  /// `transform` the plan is one from the transposed view of src's layout (transform.hpp).
  /// @pre `options` and `transform` agreed by every rank.
  /// @throws on every rank, what one rank's binding threw; communication_error if MPI
  /// fails while setting up the transports (a window, a description).
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
      : wired_(std::move(plan), srcs, dsts, std::move(comm), options, transform) {}

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  /// Drops its share of the node windows; the last holder of one frees it, collectively
  /// over the node (node_shared.hpp).
  ~Executor() = default;

  const CompactPlan& plan() const { return wired_.plan(); }
  const TaskGraph& graph() const { return wired_.graph(); }
  const Schedule& schedule() const { return wired_.schedule(); }
  const ExecutionOptions& options() const { return wired_.options(); }
  const Transform<T>& transform() const { return wired_.transform(); }
  /// Whether an execution started and has not completed.
  bool running() const { return running_; }
  /// Bytes of message buffers this executor holds (device + host staging + its part of
  /// the node window): at most the plan's PlanStats::buffer_elements elements (twice
  /// when staged).
  index_t buffer_bytes() const { return wired_.buffers().bytes(); }
  /// Whether messages between ranks of this node go through the shared window.
  bool shared_window() const { return wired_.transports().shared_window.window() != nullptr; }
  /// Messages this rank sends and receives that travel as `how`.
  std::pair<index_t, index_t> messages(Transport how) const {
    const auto count = [how](const std::vector<Transport>& v) {
      return static_cast<index_t>(std::count(v.begin(), v.end(), how));
    };
    return {count(graph().send_transport), count(graph().recv_transport)};
  }
  /// Why no message goes cross-memory although ExecutionOptions::transport asked for it;
  /// empty otherwise.
  const std::string& cross_memory_refused() const { return wired_.cross_memory_refused(); }
  /// Tasks run by the last execution, per kind.
  const TaskCounts& tasks_run() const { return tasks_run_; }
  /// The tasks (graph vertices) in the order they completed in the last execution.
  const std::vector<std::uint32_t>& completion_order() const { return order_; }

  /// Starts an execution on `exec`: posts receives, packs and sends, copies local
  /// segments; returns when only waiting is left. @pre no execution in progress.
  void start(const execution_space& exec = execution_space{}) {
    if (running_) throw error("redist: start() called while an execution is in progress");
    wired_.use(exec);
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

  bool transport_task(std::size_t v) const {
    const TaskKind k = graph_.tasks[v].kind;
    return k == TaskKind::arrive || k == TaskKind::ack;
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
    tasks_run_[graph_.tasks[v].kind] += 1;
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
      if (graph_.tasks[v].kind == TaskKind::send) poll();
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
    if (at) copies_.point_unpacks(c, at);
    event(graph_.arrive_vertex[c]);
  }

  void execute(std::size_t v) {
    const Task& t = graph_.tasks[v];
    switch (t.kind) {
      case TaskKind::init:
        open_batch(t.batch);
        break;
      case TaskKind::send:
        copies_.pack(exec_, t.index);
        packed_[t.index] = 1;
        ship_ready_chunks(graph_.send.chunks[t.index].message);
        break;
      case TaskKind::receive:
        if (t.remote)
          unpack(t.index);
        else
          copies_.copy_local(exec_, t.index);
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
        if (copies_.streaming_packs())
          detail::streaming_fence();  // the packed chunk, visible to its reader
        exec_.fence();                // packing must be done before anyone reads the buffer
        t.ship(c++);
      }
      if (c == end) t.shipped(m);
    });
  }

  void unpack(std::size_t c) {
    copies_.unpack(exec_, c);
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

  engine::Wired<T, MemorySpace> wired_;
  // Short names for what the loop touches at every task.
  const CompactPlan& plan_ = wired_.plan();
  const TaskGraph& graph_ = wired_.graph();
  const Schedule& schedule_ = wired_.schedule();
  const execution_space& exec_ = wired_.exec();
  engine::BoundCopies<T, MemorySpace>& copies_ = wired_.copies();
  transport::Transports<T, MemorySpace>& transports_ = wired_.transports();
  transport::RequestPool& requests_ = wired_.requests();

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
