#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp): copy programs (copy/run_copies.hpp) on an
/// execution-space instance, messages through the transports (transport/transport.hpp).
///
/// The loop: tasks whose predecessors are done run from the ready queues that compile()
/// gives them (task_graph.hpp, engine/schedule_walk.hpp); Arrive and Ack tasks are transport
/// events and complete when their transport reports them. The graph is walked as compiled
/// (Schedule): the executor adds no dependency of its own, and it never calls MPI for a message
/// itself: it tells the message's transport that a batch opened, a chunk is packed, a message is
/// out or unpacked, and hands it the completions of its requests.
///
/// The loop stops between any two tasks and resumes on the next call, with a budget of
/// copying per call: start() opens the first batch and packs the first chunk of each of
/// its messages; each test() copies about test_chunks chunks (packs, unpacks, local
/// copies) and never blocks; wait() runs the rest, blocking on MPI. So a caller that
/// computes and calls test() now and then keeps the move going without being held long.
/// With ExecutionOptions::progress = thread, start() hands the whole loop to the rank's
/// progress thread (engine/progress_thread.hpp) instead: test() only asks whether it is
/// done, wait() blocks until it is.
///
/// What it runs is wired once, collectively, when it is constructed (engine/wired.hpp):
/// transports, buffers, task graph, copies and schedule. The executor keeps the loop and
/// the state of the execution in progress.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>

#include <redist/compiled_engine.hpp>
#include <redist/copy/host_primitives.hpp>
#include <redist/engine/progress_thread.hpp>
#include <redist/engine/schedule_walk.hpp>
#include <redist/engine/wired.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transform.hpp>
#include <redist/views/matrix_view.hpp>

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
  Executor(Plan plan, const SrcMatrix& src, DstMatrix& dst, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : Executor(std::move(plan), std::vector<const SrcMatrix*>{&src},
                 std::vector<DstMatrix*>{&dst}, std::move(comm), options, transform) {}

  /// A move of several parts (plan/plan_parts.hpp): srcs[k] and dsts[k] are part k's
  /// matrices. @pre one of each per part of the plan.
  template <class SrcMatrix, class DstMatrix>
  Executor(Plan plan, const std::vector<const SrcMatrix*>& srcs,
           const std::vector<DstMatrix*>& dsts, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : Executor(std::move(plan), matrix_views<T, MemorySpace>(srcs),
                 matrix_views<T, MemorySpace>(dsts), std::move(comm), options, transform) {}

  /// The same, on the matrices' views (views/matrix_view.hpp): what the constructors above
  /// call, so the engine is compiled once per element type and memory space.
  Executor(Plan plan, const std::vector<MatrixView<T, MemorySpace>>& srcs,
           const std::vector<MatrixView<T, MemorySpace>>& dsts, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : wired_(std::move(plan), srcs, dsts, std::move(comm), options, transform) {}

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  /// Drops its share of the node windows; the last holder of one frees it, collectively
  /// over the node (node_shared.hpp).
  ~Executor() = default;

  const Plan& plan() const { return wired_.plan(); }
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
  /// Seconds this rank took to allocate them and make their pages present.
  double buffer_seconds() const { return wired_.buffer_seconds(); }
  /// Messages this rank sends and receives that travel as `how`.
  std::pair<index_t, index_t> messages(Transport how) const {
    const auto count = [how](const std::vector<Transport>& v) {
      return static_cast<index_t>(std::count(v.begin(), v.end(), how));
    };
    return {count(graph().send_transport), count(graph().recv_transport)};
  }
  /// Chunks this rank sends and receives as MPI derived datatypes (ExecutionOptions::
  /// mpi_datatypes, engine/mpi_described_chunks.hpp).
  std::pair<index_t, index_t> described_chunks() const {
    const auto& p = transports_.point_to_point;
    return {static_cast<index_t>(p.described_sends().count()),
            static_cast<index_t>(p.described_receives().count())};
  }
  /// Why no message goes cross-memory although ExecutionOptions::transport asked for it;
  /// empty otherwise.
  const std::string& cross_memory_refused() const { return wired_.cross_memory_refused(); }
  /// Tasks run by the execution in progress so far, or by the last one, per kind.
  const TaskCounts& tasks_run() const { return walk_.run(); }
  /// The tasks (graph vertices) in the order they completed in the execution in progress
  /// so far, or in the last one.
  const std::vector<std::uint32_t>& completion_order() const { return walk_.order(); }

  /// Chunks' worth of copying (ExecutionOptions::chunk_bytes each) that one test() call
  /// does when not told otherwise.
  static constexpr std::size_t test_chunks = test_chunks_default;

  /// Starts an execution on `exec`: opens the first batch (posts its receives; messages
  /// read in place are announced) and packs and sends the first chunk of each of its
  /// messages (at least a chunk's worth of copying, local copies where nothing is sent);
  /// returns. The rest is done by test() and wait(). @pre no execution in progress.
  void start(const execution_space& exec = execution_space{});

  /// Advances the execution without blocking: hands MPI what it needs to progress,
  /// handles what arrived, and runs ready tasks (packs, unpacks, local copies) until
  /// about `chunks` chunks' worth has been copied (the last copy begun may go over; 0:
  /// no copying, only messages). The next batch opens only once the sends of the last one
  /// are done. Returns true when the execution is complete (wait() then returns at once).
  bool test(std::size_t chunks = test_chunks);

  /// Completes the execution started by start(): runs what is left, blocking on MPI.
  void wait();

  /// Tasks of the execution in progress not completed yet (0 when none is in progress):
  /// after start(), what test() and wait() still have to do (with a progress thread: as
  /// it last counted them).
  std::size_t tasks_left() const {
    return running_ ? tasks_left_.load(std::memory_order_relaxed) : 0;
  }

  /// start() then wait(), on the calling thread whatever ExecutionOptions::progress says
  /// (nothing to overlap with).
  void run(const execution_space& exec = execution_space{});

 private:
  /// The transports' view of this executor (transport::TransportEvents).
  struct Events {
    Executor& x;
    void arrived(std::size_t c, const T* at) { x.arrived(c, at); }
    void acked(std::size_t m) { x.walk_.event(x.graph_.ack_vertex[m]); }
    void freed(std::size_t c) { x.walk_.event(x.graph_.slot_ack_vertex[c]); }
  };

  static constexpr index_t unlimited = std::numeric_limits<index_t>::max();

  index_t chunk_elements() const {
    return std::max<index_t>(1, options().chunk_bytes / static_cast<index_t>(sizeof(T)));
  }
  /// Elements task t copies (packs, unpacks, local copies); 0 for the others.
  index_t copies_of(const Task& t) const {
    if (t.kind == TaskKind::send) return graph_.send.chunks[t.index].elements;
    if (t.kind != TaskKind::receive) return 0;
    return (t.remote ? graph_.recv.chunks : graph_.local.chunks)[t.index].elements;
  }

  /// Runs ready tasks, handling completed requests between them, until copies of
  /// `budget` elements have run or nothing more is ready. Only when `block` may it wait
  /// (a batch's Init, for the previous batch's sends to be done).
  void progress(index_t budget, bool block) {
    index_t spent = 0;
    for (bool more = true; more && walk_.left() > 0;) {
      const std::size_t handled = poll(block);
      const std::size_t ran = drain(budget, spent, block);
      more = handled + ran > 0 && spent < budget;
      tasks_left_.store(walk_.left(), std::memory_order_relaxed);
    }
  }

  /// Runs ready tasks (walk_.front(): lower queues first) while the budget lasts; tasks
  /// that copy nothing run whatever is left of it. Returns how many ran.
  std::size_t drain(index_t budget, index_t& spent, bool block) {
    std::size_t ran = 0;
    index_t unpolled = 0;  // elements copied since the last poll
    for (std::size_t v; (v = walk_.front()) != engine::ScheduleWalk::none;) {
      const Task& t = graph_.tasks[v];
      const index_t cost = copies_of(t);
      if (cost > 0 && spent >= budget) break;
      // Init reuses the send buffer: without blocking, it waits for a later call.
      if (t.kind == TaskKind::init && !block && !requests_.test_sends()) break;
      walk_.pop();
      execute(v);
      walk_.complete(v);
      spent += cost;
      unpolled += cost;
      ++ran;
      // After every pack and unpack, and after every poll_elements() of local copies, let
      // MPI move what is posted (transports such as TCP progress only inside MPI calls)
      // and take what arrived: chunk k travels while chunk k + 1 is packed, and a rank
      // that drives its node's link alone does not leave it idle through its local copies.
      if (t.kind == TaskKind::send || (t.kind == TaskKind::receive && t.remote) ||
          unpolled >= wired_.poll_elements()) {
        poll(block);
        unpolled = 0;
      }
    }
    return ran;
  }

  /// Handles every request that has completed, without blocking; inside wait() (`yield`)
  /// it then yields the core to what the data waits on, never inside test()
  /// (docs/transports.md, "Waiting yields").
  std::size_t poll(bool yield) {
    std::size_t n = 0;
    for (; const auto e = requests_.test(); ++n) handle(*e);
    Events events{*this};
    n += transports_.shared_window.poll(events);
    if (yield) std::this_thread::yield();
    return n;
  }
  /// A request completed: its transport turns it into events.
  void handle(const transport::Completion& e) {
    Events events{*this};
    transports_.with(e.how, [&](auto& t) { t.complete(e, events); });
  }
  /// Received chunk c is readable: at `at` (where it starts), or where bound.
  void arrived(std::size_t c, const T* at) {
    if (at) copies_.point_unpacks(c, at, graph_.recv.chunks[c].offset);
    walk_.event(graph_.arrive_vertex[c]);
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
    transports_.with(graph_.recv_transport[m], [&](auto& t) {
      t.unpacked(c);
      if (--recv_left_[m] == 0) t.consumed(m);
    });
  }

  /// Resets the state of the execution about to start on `exec`.
  void begin(const execution_space& exec);
  /// What start() copies: the first chunk of each message of batch 0, posting its receives.
  void kick_off();
  /// Runs what is left, blocking on MPI; returns once every task ran and every send is done.
  void complete();

  /// The sends are done and every copy is visible to the thread that ran them.
  void settle() {
    requests_.wait_sends();
    exec_.fence();
    detail::streaming_fence();
  }

  engine::Wired<T, MemorySpace> wired_;
  // Short names for what the loop touches at every task.
  const Plan& plan_ = wired_.plan();
  const TaskGraph& graph_ = wired_.graph();
  const Schedule& schedule_ = wired_.schedule();
  const execution_space& exec_ = wired_.exec();
  engine::BoundCopies<T, MemorySpace>& copies_ = wired_.copies();
  transport::Transports<T, MemorySpace>& transports_ = wired_.transports();
  transport::RequestPool& requests_ = wired_.requests();

  // State of the execution in progress.
  bool running_ = false;  ///< the caller's side only
  std::atomic<std::size_t> tasks_left_{0};
  engine::ScheduleWalk walk_;
  std::vector<std::uint8_t> packed_;    ///< per sent chunk
  std::vector<std::size_t> next_post_;  ///< next chunk of each sent message to ship
  std::vector<std::size_t> recv_left_;  ///< chunks of each received message not unpacked
  /// Last, so that it ends (a job in progress finishing first) before the state above goes.
  engine::ProgressThread progress_thread_;
};

// Not inline: a program that links the compiled engine (compiled_engine.hpp) takes the
// loop from there.

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::begin(const execution_space& exec) {
  if (running_) throw error("redist: start() called while an execution is in progress");
  wired_.use(exec);
  running_ = true;
  next_post_.assign(graph_.send.begin.begin(), graph_.send.begin.end() - 1);
  packed_.assign(graph_.send.chunks.size(), 0);
  recv_left_.clear();
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
    recv_left_.push_back(graph_.recv.begin[m + 1] - graph_.recv.begin[m]);
  requests_.clear();
  walk_.reset(graph_, schedule_);
  tasks_left_.store(walk_.left(), std::memory_order_relaxed);
  transports_.for_each([](auto& t) { t.begin(); });
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::kick_off() {
  index_t first = 0;  // the first chunk of each message of batch 0 that is packed
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m)
    if (plan_.send.messages[m].batch == 0 && !reads_in_place(graph_.send_transport[m]) &&
        graph_.send.begin[m] < graph_.send.begin[m + 1])
      first += graph_.send.chunks[graph_.send.begin[m]].elements;
  // Every peer its first chunk before this rank unpacks what came or copies locally (the
  // local parts that follow a pack, too): sends first, within the first chunks' budget.
  walk_.sends_first(true);
  progress(std::max(first, chunk_elements()), false);
  walk_.sends_first(false);
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::complete() {
  progress(unlimited, true);
  // Completed requests and the rings' counters (which no request stands for) are both
  // taken by poll(); the wait gives up after the progress timeout without either.
  auto since = std::chrono::steady_clock::now();
  while (walk_.left() > 0) {
    const bool rings = transports_.shared_window.awaits_signals();
    if (requests_.empty() && !rings)
      throw communication_error("redist: task graph stalled with " + std::to_string(walk_.left()) +
                                " tasks left and no message outstanding");
    if (poll(false) > 0) {
      since = std::chrono::steady_clock::now();
      progress(unlimited, true);
    } else if (requests_.timed_out(since)) {
      requests_.stalled(rings ? "a ring of the node window" : "a transfer",
                        transports_.shared_window.ring_outstanding());
    } else {
      std::this_thread::yield();
    }
  }
  settle();
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::start(const execution_space& exec) {
  begin(exec);
  if (options().progress == ProgressPolicy::thread) {
    progress_thread_.launch([this] {
      kick_off();
      complete();
    });
    return;
  }
  kick_off();
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::run(const execution_space& exec) {
  begin(exec);
  kick_off();
  wait();
}

template <class T, class MemorySpace>
bool Executor<T, MemorySpace>::test(std::size_t chunks) {
  if (!running_) return true;
  if (progress_thread_.launched()) {
    if (!progress_thread_.done()) return false;
    progress_thread_.join();  // rethrows what the thread threw
    running_ = false;
    return true;
  }
  const index_t budget = static_cast<index_t>(chunks) * chunk_elements();
  progress(budget, false);
  if (walk_.left() == 0 && requests_.test_sends()) {
    settle();
    running_ = false;
  }
  return !running_;
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::wait() {
  if (!running_) return;
  if (progress_thread_.launched())
    progress_thread_.join();  // rethrows what the thread threw
  else
    complete();
  running_ = false;
}

}  // namespace redist

#if defined(REDIST_COMPILED_ENGINE)
// Compiled once, in redist::engine (compiled_engine.hpp).
namespace redist {
#define REDIST_EXTERN_ENGINE(T) REDIST_ENGINE_INSTANCES(extern, T)
REDIST_COMPILED_ELEMENT_TYPES(REDIST_EXTERN_ENGINE)
#undef REDIST_EXTERN_ENGINE
}  // namespace redist
#endif
