#pragma once
/// @file engine/execution_loop.hpp
/// The loop that runs one execution of a wired engine (engine/wired.hpp): tasks whose
/// predecessors are done run from the ready queues that compile() gives them
/// (task_graph.hpp, engine/schedule_walk.hpp); Arrive and Ack tasks are transport events
/// and complete when their transport reports them. The graph is walked as compiled: the
/// loop adds no dependency of its own, and it never calls MPI for a message itself: it
/// tells the message's transport that a batch opened, a chunk is packed, a message is out
/// or unpacked, and hands it the completions of its requests.
///
/// It stops between any two tasks and resumes on the next call, with a budget of copying
/// per call (kick_off, advance) or none (complete). Who calls it, and on which thread, is
/// the executor's business (executor.hpp).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/host_primitives.hpp>
#include <redist/engine/schedule_walk.hpp>
#include <redist/engine/wired.hpp>
#include <redist/error.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

namespace redist::engine {

template <class T, class MemorySpace>
class ExecutionLoop {
 public:
  using execution_space = typename MemorySpace::execution_space;

  /// The loop over `wired`'s graph, copies and transports. @pre `wired` outlives it.
  explicit ExecutionLoop(Wired<T, MemorySpace>& wired) : wired_(wired) {}
  ExecutionLoop(const ExecutionLoop&) = delete;
  ExecutionLoop& operator=(const ExecutionLoop&) = delete;

  /// Resets the state for an execution about to start on `exec`.
  void begin(const execution_space& exec);
  /// What start() copies: opens batch 0 and packs the first chunk of each of its messages
  /// (at least a chunk's worth of copying, local copies where nothing is sent).
  void kick_off();
  /// Runs ready tasks without blocking until copies of about `budget` elements have run;
  /// true when the execution is complete and settled.
  bool advance(index_t budget);
  /// Runs what is left, blocking on MPI; returns once every task ran and every send is done.
  void complete();

  /// Tasks not completed yet, as last counted (readable from another thread).
  std::size_t tasks_left() const { return tasks_left_.load(std::memory_order_relaxed); }
  const TaskCounts& tasks_run() const { return walk_.run(); }
  const std::vector<std::uint32_t>& completion_order() const { return walk_.order(); }

  /// Elements in a chunk (ExecutionOptions::chunk_bytes).
  index_t chunk_elements() const {
    return std::max<index_t>(1, wired_.options().chunk_bytes / static_cast<index_t>(sizeof(T)));
  }

 private:
  /// The transports' view of this loop (transport::TransportEvents).
  struct Events {
    ExecutionLoop& x;
    void arrived(std::size_t c, const T* at) { x.arrived(c, at); }
    void acked(std::size_t m) { x.walk_.event(x.graph_.ack_vertex[m]); }
    void freed(std::size_t c) { x.walk_.event(x.graph_.slot_ack_vertex[c]); }
    void writable(std::size_t m) { x.walk_.event(x.graph_.free_vertex[m]); }
  };

  static constexpr index_t unlimited = std::numeric_limits<index_t>::max();

  void progress(index_t budget, bool block);
  std::size_t drain(index_t budget, index_t& spent, bool block);
  std::size_t poll(bool yield);
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
  void execute(std::size_t v);
  void open_batch(index_t k);
  void ship_ready_chunks(std::size_t m);
  void unpack(std::size_t c);
  /// The sends are done and every copy is visible to the thread that ran them.
  void settle() {
    requests_.wait_sends();
    exec_.fence();
    detail::streaming_fence();
  }

  Wired<T, MemorySpace>& wired_;
  // Short names for what the loop touches at every task.
  const Plan& plan_ = wired_.plan();
  const TaskGraph& graph_ = wired_.graph();
  const Schedule& schedule_ = wired_.schedule();
  const execution_space& exec_ = wired_.exec();
  BoundCopies<T, MemorySpace>& copies_ = wired_.copies();
  transport::Transports<T, MemorySpace>& transports_ = wired_.transports();
  transport::RequestPool& requests_ = wired_.requests();

  std::atomic<std::size_t> tasks_left_{0};
  ScheduleWalk walk_;
  std::vector<std::uint8_t> packed_;    ///< per sent chunk
  std::vector<std::size_t> next_post_;  ///< next chunk of each sent message to ship
  std::vector<std::size_t> recv_left_;  ///< chunks of each received message not unpacked
};

// Not inline: a program that links the compiled engine (compiled_engine.hpp) takes the
// loop from there.

template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::begin(const execution_space& exec) {
  wired_.use(exec);
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

/// Runs ready tasks, handling completed requests between them, until copies of `budget`
/// elements have run or nothing more is ready. Only when `block` may it wait (a batch's
/// Init, for the previous batch's sends to be done).
template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::progress(index_t budget, bool block) {
  index_t spent = 0;
  for (bool more = true; more && walk_.left() > 0;) {
    const std::size_t handled = poll(block);
    const std::size_t ran = drain(budget, spent, block);
    more = handled + ran > 0 && spent < budget;
    tasks_left_.store(walk_.left(), std::memory_order_relaxed);
  }
}

/// Runs ready tasks (walk_.front(): lower queues first) while the budget lasts; tasks that
/// copy nothing run whatever is left of it. Returns how many ran.
template <class T, class MemorySpace>
std::size_t ExecutionLoop<T, MemorySpace>::drain(index_t budget, index_t& spent, bool block) {
  std::size_t ran = 0;
  index_t unpolled = 0;  // elements copied since the last poll
  for (std::size_t v; (v = walk_.front()) != ScheduleWalk::none;) {
    const Task& t = graph_.tasks[v];
    const index_t cost = copied_elements(graph_, v);
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
    // and take what arrived: chunk k travels while chunk k + 1 is packed, and a rank that
    // drives its node's link alone does not leave it idle through its local copies.
    if (t.kind == TaskKind::send || (t.kind == TaskKind::receive && t.remote) ||
        unpolled >= wired_.poll_elements()) {
      poll(block);
      unpolled = 0;
    }
  }
  return ran;
}

/// Handles every request that has completed, without blocking; inside complete() (`yield`)
/// it then yields the core to what the data waits on, never inside advance()
/// (docs/transports.md, "Waiting yields").
template <class T, class MemorySpace>
std::size_t ExecutionLoop<T, MemorySpace>::poll(bool yield) {
  std::size_t n = 0;
  for (; const auto e = requests_.test(); ++n) handle(*e);
  Events events{*this};
  n += transports_.shared_window.poll(events);
  if (yield) std::this_thread::yield();
  return n;
}

template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::execute(std::size_t v) {
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

/// Init(k): the previous batch's sends must be done before their buffer is reused; then
/// the receives of batch k are posted, peers staggered from rank + 1.
template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::open_batch(index_t k) {
  requests_.wait_sends();
  std::vector<std::size_t> msgs;
  for (std::size_t m = 0; m < plan_.recv.messages.size(); ++m)
    if (plan_.recv.messages[m].batch == k) msgs.push_back(m);
  const int me = plan_.rank, p = plan_.comm_size;
  std::stable_sort(msgs.begin(), msgs.end(), [&](std::size_t a, std::size_t b) {
    return (plan_.recv.messages[a].peer - me + p) % p < (plan_.recv.messages[b].peer - me + p) % p;
  });
  for (std::size_t m : msgs)
    transports_.with(graph_.recv_transport[m], [&](auto& t) { t.post_receives(m); });
}

/// Ships the packed chunks of message m that are next in order (MPI keeps the order of
/// messages with one tag between two ranks, so chunks must leave in order).
template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::ship_ready_chunks(std::size_t m) {
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

template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::unpack(std::size_t c) {
  copies_.unpack(exec_, c);
  const std::size_t m = graph_.recv.chunks[c].message;
  transports_.with(graph_.recv_transport[m], [&](auto& t) {
    t.unpacked(c);
    if (--recv_left_[m] == 0) t.consumed(m);
  });
}

template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::kick_off() {
  // The first chunk of each message of batch 0 that is packed, with its followers.
  index_t first = 0;
  for (std::size_t m = 0; m < plan_.send.messages.size(); ++m)
    if (plan_.send.messages[m].batch == 0 && !reads_in_place(graph_.send_transport[m]) &&
        graph_.send.begin[m] < graph_.send.begin[m + 1])
      first += copied_elements(graph_, graph_.send_vertex[graph_.send.begin[m]]);
  // Every peer its first chunk before this rank unpacks what came or copies locally (the
  // local parts that follow a pack, too): sends first, within the first chunks' budget.
  walk_.sends_first(true);
  progress(std::max(first, chunk_elements()), false);
  walk_.sends_first(false);
}

template <class T, class MemorySpace>
bool ExecutionLoop<T, MemorySpace>::advance(index_t budget) {
  progress(budget, false);
  if (walk_.left() > 0 || !requests_.test_sends()) return false;
  settle();
  return true;
}

template <class T, class MemorySpace>
void ExecutionLoop<T, MemorySpace>::complete() {
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

}  // namespace redist::engine
