#pragma once
/// @file task_counts.hpp
/// The task graph's vocabulary that its users name without the graph (task_graph.hpp):
/// the kinds of task, a task, and counts per kind. Apart, so that the Redistributor's
/// header can report tasks_run() without parsing the graph and the engine.

#include <array>
#include <cstddef>

#include <redist/config.hpp>

namespace redist {

enum class TaskKind { init, send, arrive, receive, ack, finish };
inline constexpr std::size_t task_kinds = 6;

/// A vertex of the task graph. `index`: the chunk (send, arrive, remote receive), the
/// local part (local receive) or the sent message (ack).
struct Task {
  TaskKind kind = TaskKind::init;
  index_t batch = 0;
  bool remote = false;  ///< a receive from a message (else a local part)
  std::size_t index = 0;
};

/// Tasks per kind (of a graph, or run by an execution).
struct TaskCounts {
  std::size_t init = 0, send = 0, arrive = 0, receive = 0, ack = 0, finish = 0;
  std::size_t& operator[](TaskKind k) {
    std::array<std::size_t*, task_kinds> f{&init, &send, &arrive, &receive, &ack, &finish};
    return *f[static_cast<std::size_t>(k)];
  }
  std::size_t operator[](TaskKind k) const { return TaskCounts(*this)[k]; }
  std::size_t total() const { return init + send + arrive + receive + ack + finish; }
  friend bool operator==(const TaskCounts&, const TaskCounts&) = default;
};

}  // namespace redist
