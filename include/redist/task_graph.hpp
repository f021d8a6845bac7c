#pragma once
/// @file task_graph.hpp
/// The task graph of one rank (papers/cao2021-*.txt section 5, Fig. 4, and section
/// 6.2.1), as a boost::adjacency_list. It is what the executor runs.
///
/// | task             | one per                         | does                             |
/// |------------------|---------------------------------|----------------------------------|
/// | Init(T)          | target tile T of this rank      | opens T for its receives         |
/// | Send(Y)          | source tile Y of this rank with | packs Y's remote segments into   |
/// |                  | segments                        | their messages                   |
/// | Receive(Y, T)    | segment of a target tile here   | copies it in: from the message   |
/// |                  |                                 | (remote) or from Y (local)       |
/// | Finish(T)        | target tile T of this rank      | closes T: all its segments in    |
/// | Batch(k)         | batch k (control)               | frees batch k-1's buffers, posts |
/// |                  |                                 | batch k's receives               |
///
/// Edges: Init(T) -> Receive(*, T) -> Finish(T); Send(Y) -> Receive(Y, T) when Y is
/// local; Batch(k) -> Send(Y in batch k) and -> Receive(remote, batch k); and the control
/// dependency of section 6.2.1, Receive(batch k-1) -> Batch(k), which bounds what is in
/// flight to one batch, and Send(batch k-1) -> Batch(k), since batch k reuses the send
/// buffer. (The paper draws it from Finish; a target tile can take
/// segments from two batches, so here it leaves the receives, which cannot deadlock.)
/// Receives into one target tile have no edges between them: they are independent.

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>

#include <redist/plan.hpp>

namespace redist {

enum class TaskKind { init, send, receive, finish, batch };

/// A vertex of the task graph. `index` selects the work: for send, an entry of
/// TaskGraph::send_lists; for receive, a segment of plan.recv (remote) or plan.local.
struct Task {
  TaskKind kind = TaskKind::init;
  TileIndex tile;      ///< T for init/finish/receive, Y for send
  TileIndex src_tile;  ///< Y for receive
  index_t batch = 0;
  bool remote = false;  ///< receive from a message
  index_t index = 0;
};

using TaskGraphBase = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task>;

/// The graph plus, for each Send, the plan.send segments it packs.
struct TaskGraph {
  TaskGraphBase graph;
  std::vector<std::vector<index_t>> send_lists;
  std::vector<std::size_t> batch_vertex;  ///< Batch(k) vertex

  std::size_t count(TaskKind k) const {
    std::size_t c = 0;
    for (auto v : boost::make_iterator_range(boost::vertices(graph))) c += graph[v].kind == k;
    return c;
  }
};

inline const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::init:
      return "Init";
    case TaskKind::send:
      return "Send";
    case TaskKind::receive:
      return "Receive";
    case TaskKind::finish:
      return "Finish";
    case TaskKind::batch:
      return "Batch";
  }
  return "?";
}

/// Builds rank plan.rank's task graph. O(segments of this rank).
inline TaskGraph make_task_graph(const Plan& plan) {
  TaskGraph tg;
  auto& g = tg.graph;
  for (index_t k = 0; k < plan.batches; ++k) {
    Task t;
    t.kind = TaskKind::batch;
    t.batch = k;
    tg.batch_vertex.push_back(boost::add_vertex(t, g));
  }
  std::map<TileIndex, std::pair<std::size_t, std::size_t>> dst_tiles;  // T -> (Init, Finish)
  std::map<TileIndex, std::size_t> src_tiles;                          // Y -> Send
  const auto init_finish = [&](TileIndex t) {
    auto it = dst_tiles.find(t);
    if (it != dst_tiles.end()) return it->second;
    Task init;
    init.kind = TaskKind::init;
    init.tile = t;
    Task fin = init;
    fin.kind = TaskKind::finish;
    const auto pair = std::make_pair(boost::add_vertex(init, g), boost::add_vertex(fin, g));
    return dst_tiles.emplace(t, pair).first->second;
  };
  const auto send_of = [&](TileIndex y, index_t batch) {
    auto it = src_tiles.find(y);
    if (it != src_tiles.end()) return it->second;
    Task s;
    s.kind = TaskKind::send;
    s.tile = y;
    s.batch = batch;
    s.index = static_cast<index_t>(tg.send_lists.size());
    tg.send_lists.emplace_back();
    const std::size_t v = boost::add_vertex(s, g);
    boost::add_edge(tg.batch_vertex[static_cast<std::size_t>(batch)], v, g);
    // Batch k+1 reuses this batch's send buffer: it opens only after the packing.
    if (batch + 1 < plan.batches)
      boost::add_edge(v, tg.batch_vertex[static_cast<std::size_t>(batch + 1)], g);
    return src_tiles.emplace(y, v).first->second;
  };
  const auto add_receive = [&](const PlannedSegment& ps, bool remote, index_t index) {
    Task r;
    r.kind = TaskKind::receive;
    r.tile = ps.segment.dst_tile;
    r.src_tile = ps.segment.src_tile;
    r.batch = ps.batch;
    r.remote = remote;
    r.index = index;
    const std::size_t v = boost::add_vertex(r, g);
    const auto [init, fin] = init_finish(ps.segment.dst_tile);
    boost::add_edge(init, v, g);
    boost::add_edge(v, fin, g);
    if (remote) boost::add_edge(tg.batch_vertex[static_cast<std::size_t>(ps.batch)], v, g);
    if (ps.batch + 1 < plan.batches)
      boost::add_edge(v, tg.batch_vertex[static_cast<std::size_t>(ps.batch + 1)], g);
    return v;
  };

  for (index_t s = 0; s < static_cast<index_t>(plan.send.segments.size()); ++s) {
    const PlannedSegment& ps = plan.send.segments[static_cast<std::size_t>(s)];
    const std::size_t v = send_of(ps.segment.src_tile, ps.batch);
    tg.send_lists[static_cast<std::size_t>(g[v].index)].push_back(s);
  }
  for (index_t s = 0; s < static_cast<index_t>(plan.recv.segments.size()); ++s)
    add_receive(plan.recv.segments[static_cast<std::size_t>(s)], true, s);
  for (index_t s = 0; s < static_cast<index_t>(plan.local.size()); ++s) {
    const PlannedSegment& ps = plan.local[static_cast<std::size_t>(s)];
    const std::size_t v = add_receive(ps, false, s);
    boost::add_edge(send_of(ps.segment.src_tile, ps.batch), v, g);
  }
  return tg;
}

/// Writes the graph in Graphviz dot format, one node per task labelled like the paper.
inline void write_graphviz(std::ostream& os, const TaskGraph& tg) {
  const auto& g = tg.graph;
  const auto label = [&](std::ostream& out, std::size_t v) {
    const Task& t = g[v];
    out << "[label=\"" << to_string(t.kind);
    if (t.kind == TaskKind::batch)
      out << "(" << t.batch << ")";
    else if (t.kind == TaskKind::receive)
      out << "(" << t.src_tile.m << "," << t.src_tile.n << " -> " << t.tile.m << "," << t.tile.n
          << ")";
    else
      out << "(" << t.tile.m << "," << t.tile.n << ")";
    out << "\"]";
  };
  boost::write_graphviz(os, g, label);
}

}  // namespace redist
