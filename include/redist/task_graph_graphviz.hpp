#pragma once
/// @file task_graph_graphviz.hpp
/// Graphviz output of a task graph. Opt-in (not in redist.hpp): Boost's Graphviz writer
/// is heavy to compile, and only tools that draw graphs need it.

#include <cstddef>
#include <ostream>

#include <boost/graph/graphviz.hpp>

#include <redist/task_graph.hpp>
#include <redist/task_graph_boost.hpp>

namespace redist {

/// Writes the graph in Graphviz dot format, one node per task labelled like the paper
/// ("Send(c3)", "Init(0)"; a pushed message's Free as "Free(m2)").
inline void write_graphviz(std::ostream& os, const TaskGraph& tg) {
  const TaskGraphView g = boost_graph(tg);
  const auto label = [&](std::ostream& out, std::size_t v) {
    const Task& t = g[v];
    const auto is = [&](const std::vector<std::size_t>& vertices) {
      return t.index < vertices.size() && vertices[t.index] == v;
    };
    const bool free = t.kind == TaskKind::ack && is(tg.free_vertex);
    out << "[label=\"" << (free ? "Free" : to_string(t.kind)) << "(";
    if (t.kind == TaskKind::init || t.kind == TaskKind::finish)
      out << t.batch;
    else if (t.kind == TaskKind::ack && is(tg.slot_ack_vertex))
      out << "c" << t.index;  // a ring slot's
    else if (t.kind == TaskKind::ack)
      out << "m" << t.index;
    else if (t.kind == TaskKind::receive && !t.remote)
      out << "local " << t.index;
    else
      out << "c" << t.index;
    out << ")\"]";
  };
  boost::write_graphviz(os, g, label);
}

}  // namespace redist
