#pragma once
/// @file task_graph_boost.hpp
/// A Boost.Graph view of a task graph (task_graph.hpp), for analysis: topological order,
/// degrees, edge queries, Graphviz output (task_graph_graphviz.hpp). Opt-in (not in
/// redist.hpp): boost::adjacency_list costs more to compile than the rest of the engine,
/// and running a redistribution needs none of it.

#include <cstddef>

#include <boost/graph/adjacency_list.hpp>

#include <redist/task_graph.hpp>

namespace redist {

/// Bidirectional, so that in-degrees and in-edges can be asked too.
using TaskGraphView = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task>;

/// The graph of `tg` as a boost::adjacency_list.
/// @post vertex v is tg.tasks[v], and the out-edges of every vertex are its edges of
/// tg.edges in the order they were added.
inline TaskGraphView boost_graph(const TaskGraph& tg) {
  TaskGraphView g(tg.tasks.size());
  for (std::size_t v = 0; v < tg.tasks.size(); ++v) g[v] = tg.tasks[v];
  for (const TaskEdge& e : tg.edges) boost::add_edge(e.from, e.to, g);
  return g;
}

}  // namespace redist
