#pragma once
/// @file engine/schedule_walk.hpp
/// The state of one execution's walk over a compiled Schedule (task_graph.hpp), apart from
/// what the tasks do (engine/execution_loop.hpp): how many predecessors each task still
/// waits for, which transport events came, the ready queues, and what completed in which
/// order.
/// Pure bookkeeping: no MPI, no Kokkos. The executor asks for the next ready task, runs
/// it and reports it complete; it can stop between any two tasks and go on later, which
/// is what lets start() and test() do a bounded part of the work per call.
///
/// Queues as compiled (Schedule::queue, lowest first): Init and the local parts that follow
/// a pack, unpacks from the node window, Send, local copies with Finish, other unpacks.
/// Each is FIFO, but for the sends of a batch,
/// which become ready all at once when the batch opens: they run by their chunk's position in its
/// message first (chunk 0 of every message, then chunk 1, ...), message order second, so that every
/// peer has its first chunk early and can unpack it while the rest is packed.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <redist/task_graph.hpp>

namespace redist::engine {

class ScheduleWalk {
 public:
  static constexpr std::size_t none = SIZE_MAX;

  /// A new execution of `graph` compiled as `schedule`: the tasks without predecessors
  /// become ready. Both must outlive the walk.
  void reset(const TaskGraph& graph, const Schedule& schedule) {
    graph_ = &graph;
    schedule_ = &schedule;
    remaining_ = schedule.in_degree.size();
    pending_ = schedule.in_degree;
    event_.assign(pending_.size(), 0);
    run_ = {};
    order_.clear();
    for (auto& q : ready_) q.clear();
    head_ = {};
    sends_first_ = false;
    for (std::size_t v = 0; v < pending_.size(); ++v)
      if (pending_[v] == 0) make_ready(v);
  }

  /// The next ready task (lowest queue first; a ready Send first while sends_first()), or
  /// `none`. It stays ready until pop().
  std::size_t front() const {
    if (sends_first_ && head_[send_queue] < ready_[send_queue].size())
      return ready_[send_queue][head_[send_queue]];
    for (std::size_t k = 0; k < ready_.size(); ++k)
      if (head_[k] < ready_[k].size()) return ready_[k][head_[k]];
    return none;
  }
  /// Takes front() out of its queue. @pre front() != none.
  void pop() {
    const std::size_t v = front();
    head_[schedule_->queue[v]] += 1;
  }

  /// Task v has run: its successors whose predecessors are now all done become ready.
  void complete(std::size_t v) {
    --remaining_;
    order_.push_back(static_cast<std::uint32_t>(v));
    run_[graph_->tasks[v].kind] += 1;
    for (std::uint32_t e = schedule_->succ_begin[v]; e < schedule_->succ_begin[v + 1]; ++e) {
      const std::uint32_t w = schedule_->succ[e];
      if (--pending_[w] == 0) make_ready(w);
    }
    if (graph_->tasks[v].kind == TaskKind::init) interleave_sends();
  }

  /// The transport event of task v (Arrive, Ack) happened: v completes now if its
  /// predecessors are done, else as soon as they are.
  void event(std::size_t v) {
    if (event_[v] == waiting)
      complete(v);
    else
      event_[v] = came;
  }

  /// While on, front() takes a ready Send before anything else: start() packs the first
  /// chunk of every message before it unpacks or copies locally (Executor::start).
  void sends_first(bool on) { sends_first_ = on; }

  /// Tasks not completed yet.
  std::size_t left() const { return remaining_; }
  /// Tasks completed, per kind.
  const TaskCounts& run() const { return run_; }
  /// Tasks in the order they completed.
  const std::vector<std::uint32_t>& order() const { return order_; }

 private:
  static constexpr std::uint8_t came = 1, waiting = 2;

  static bool transport_task(TaskKind k) { return k == TaskKind::arrive || k == TaskKind::ack; }

  /// A task whose predecessors are done: queue it, or for a transport task, complete it
  /// if its event came already.
  void make_ready(std::size_t v) {
    if (transport_task(graph_->tasks[v].kind)) {
      if (event_[v] == came)
        complete(v);
      else
        event_[v] = waiting;
      return;
    }
    ready_[schedule_->queue[v]].push_back(static_cast<std::uint32_t>(v));
  }

  /// The sends a batch's Init just made ready (the previous batch's are all done: Finish
  /// waits for them), ordered by their chunk's position in its message.
  void interleave_sends() {
    std::vector<std::uint32_t>& q = ready_[send_queue];
    const auto position = [&](std::uint32_t v) {
      const std::size_t c = graph_->tasks[v].index;
      return c - graph_->send.begin[graph_->send.chunks[c].message];
    };
    std::stable_sort(q.begin() + static_cast<std::ptrdiff_t>(head_[send_queue]), q.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return position(a) < position(b); });
  }

  static constexpr std::size_t send_queue = 2;  // Schedule::queue of a Send (compile())

  const TaskGraph* graph_ = nullptr;
  const Schedule* schedule_ = nullptr;
  std::size_t remaining_ = 0;
  std::vector<int> pending_;         ///< predecessors not done, per task
  std::vector<std::uint8_t> event_;  ///< transport tasks: came, or waiting for it
  std::array<std::vector<std::uint32_t>, Schedule::queues> ready_;
  std::array<std::size_t, Schedule::queues> head_{};
  bool sends_first_ = false;
  TaskCounts run_;
  std::vector<std::uint32_t> order_;
};

}  // namespace redist::engine
