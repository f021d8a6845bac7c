// Task graphs built from plans of virtual ranks (no MPI): the Fig. 4 shape at message
// granularity, acyclic graphs (boost::topological_sort), chunks that cut every message the
// same way on both ends, the edges each transport adds, the compiled schedule equal to the
// graph, local parts that follow a pack (follow_packs), and Graphviz output.
#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include <boost/graph/topological_sort.hpp>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/engine/schedule_walk.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/task_graph_boost.hpp>
#include <redist/task_graph_graphviz.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

bool acyclic(const TaskGraph& tg) {
  const TaskGraphView g = boost_graph(tg);
  std::vector<std::size_t> order;
  try {
    boost::topological_sort(g, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    return false;
  }
  return order.size() == boost::num_vertices(g);
}

bool has_edge(const TaskGraphView& g, std::size_t a, std::size_t b) {
  return boost::edge(a, b, g).second;
}

TEST_CASE("task graph: Fig. 4, 3 x 3 source tiles on 2 x 2 ranks into one target tile") {
  const Layout src{Tiling{UniformAxis<>(30, 10), UniformAxis<>(30, 10)}, BlockCyclic(2, 2)};
  const Layout dst{Tiling{UniformAxis<>(30, 30), UniformAxis<>(30, 30)}, BlockCyclic(1, 1)};
  TaskCounts total;
  for (int rank = 0; rank < 4; ++rank) {
    const Plan plan = make_plan(src, dst, Region::whole({30, 30}), rank, 4);
    const TaskGraph tg = make_task_graph(plan, 1 << 18);
    const TaskGraphView g = boost_graph(tg);
    CHECK(acyclic(tg));
    const TaskCounts c = tg.counts();
    for (std::size_t k = 0; k < task_kinds; ++k)
      total[static_cast<TaskKind>(k)] += c[static_cast<TaskKind>(k)];
    if (rank == 0) {
      // Init(0) opens the three arrivals and the local part; each arrival gates its
      // unpack; Finish(0) waits for all four receives.
      REQUIRE(tg.arrive_vertex.size() == 3);
      for (std::size_t v : tg.arrive_vertex) {
        CHECK(has_edge(g, tg.init_vertex[0], v));
        CHECK(boost::out_degree(v, g) == 1);
      }
      CHECK(boost::in_degree(tg.finish_vertex[0], g) == 5);  // 4 receives + Init
      std::ostringstream dot;
      write_graphviz(dot, tg);
      CHECK(dot.str().find("digraph") != std::string::npos);
      CHECK(dot.str().find("Arrive(c0)") != std::string::npos);
      CHECK(dot.str().find("Receive(local 0)") != std::string::npos);
    } else {
      CHECK(c.send == 1);  // all its tiles to rank 0 in one chunk
      CHECK(c.receive == 0);
    }
  }
  CHECK(total.init == 4);
  CHECK(total.finish == 4);
  CHECK(total.send == 3);
  CHECK(total.arrive == 3);
  CHECK(total.receive == 4);
  CHECK(total.ack == 0);  // point to point: nothing read in place
}

// Chunk boundaries of every message, by (sender, receiver, batch), as each end sees them.
using Cuts = std::map<std::tuple<int, int, index_t>, std::vector<std::pair<index_t, index_t>>>;

void record(Cuts& cuts, const Plan& p, const FamilyList& d, const Chunking& c, bool sending) {
  for (std::size_t m = 0; m < d.messages.size(); ++m) {
    const Message& msg = d.messages[m];
    const auto key = sending ? std::make_tuple(p.rank, msg.peer, msg.batch)
                             : std::make_tuple(msg.peer, p.rank, msg.batch);
    auto& v = cuts[key];
    for (std::size_t k = c.begin[m]; k < c.begin[m + 1]; ++k)
      v.emplace_back(c.chunks[k].offset, c.chunks[k].elements);
  }
}

TEST_CASE("task graph: random plans give acyclic graphs, chunks agree on both ends") {
  for (int np = 1; np <= 5; ++np)
    for (index_t batch : {0, 1, 2})
      for (index_t chunk : {1, 50, 1 << 20}) {
        const Layout src{Tiling{UniformAxis<>(37, 5), UniformAxis<>(41, 6)},
                         RandomDistribution(np, 3)};
        const Layout dst{Tiling{UniformAxis<>(40, 7), UniformAxis<>(45, 4)},
                         BlockCyclic(1, np, 1, 2)};
        const Region r{{30, 33}, {4, 7}, {9, 2}};
        PlanOptions o;
        o.batch = batch;
        Cuts sent, received;
        for (int rank = 0; rank < np; ++rank) {
          const Plan p = make_plan(src, dst, r, rank, np, o);
          const TaskGraph tg = make_task_graph(p, chunk);
          CAPTURE(np);
          CAPTURE(rank);
          CAPTURE(chunk);
          CHECK(acyclic(tg));
          const TaskCounts c = tg.counts();
          CHECK(c.init == static_cast<std::size_t>(p.batches));
          CHECK(c.finish == static_cast<std::size_t>(p.batches));
          CHECK(c.send == tg.send.chunks.size());
          CHECK(c.arrive == tg.recv.chunks.size());
          CHECK(c.receive == tg.recv.chunks.size() + tg.local.chunks.size());
          // Every column member of every family is in exactly one slice, in order; chunks
          // and slices lie back to back in a message.
          for (const auto* cut : {&tg.send, &tg.recv, &tg.local}) {
            const FamilyList& d = cut == &tg.send ? p.send : cut == &tg.recv ? p.recv : p.local;
            std::vector<index_t> next(d.families.size(), 0);
            for (std::size_t m = 0; m < d.messages.size(); ++m) {
              index_t offset = 0;
              for (std::size_t k = cut->begin[m]; k < cut->begin[m + 1]; ++k) {
                const Chunk& ch = cut->chunks[k];
                CHECK(ch.offset == offset);
                index_t slice_offset = offset;
                for (std::size_t sl = ch.first; sl < ch.end; ++sl) {
                  const Slice& s = cut->slices[sl];
                  CHECK(s.offset == slice_offset);
                  for (std::size_t f = s.family; f < s.family_end; ++f) {
                    CHECK(s.col_first == next[f]);
                    next[f] += s.col_count;
                  }
                  slice_offset += s.elements;
                }
                CHECK(slice_offset == offset + ch.elements);
                offset += ch.elements;
              }
              CHECK(offset == d.messages[m].elements);
            }
            for (std::size_t f = 0; f < d.families.size(); ++f)
              CHECK(next[f] == d.families[f].cols.count);
          }
          record(sent, p, p.send, tg.send, true);
          record(received, p, p.recv, tg.recv, false);
        }
        CHECK(sent == received);
      }
}

TEST_CASE("task graph: acks of messages read in place, and no packing for direct ones") {
  const Layout src{Tiling{UniformAxis<>(40, 10), UniformAxis<>(40, 10)}, BlockCyclic(1, 3)};
  const Layout dst{Tiling{UniformAxis<>(40, 8), UniformAxis<>(40, 8)}, BlockCyclic(3, 1)};
  PlanOptions o;
  o.batch = 2;
  const Plan p = make_plan(src, dst, Region::whole({40, 40}), 1, 3, o);
  REQUIRE(p.send.messages.size() >= 2);
  std::vector<Transport> how(p.send.messages.size(), Transport::shared_window);
  how[0] = Transport::direct;
  const TaskGraph tg = make_task_graph(p, 64, how);
  const TaskGraphView g = boost_graph(tg);
  CHECK(acyclic(tg));
  CHECK(tg.count(TaskKind::ack) == p.send.messages.size());
  std::size_t packed = 0;
  for (std::size_t m = 1; m < p.send.messages.size(); ++m)
    packed += tg.send.begin[m + 1] - tg.send.begin[m];
  CHECK(tg.count(TaskKind::send) == packed);  // message 0 is read in place
  const auto finish = tg.finish_vertex[static_cast<std::size_t>(p.send.messages[0].batch)];
  CHECK(!has_edge(g, tg.ack_vertex[0], finish));  // direct: gates only the end
  for (std::size_t m = 1; m < p.send.messages.size(); ++m) {
    const auto k = static_cast<std::size_t>(p.send.messages[m].batch);
    CHECK(has_edge(g, tg.ack_vertex[m], tg.finish_vertex[k]));
    CHECK(boost::in_degree(tg.ack_vertex[m], g) ==
          1 + tg.send.begin[m + 1] - tg.send.begin[m]);  // Init + every chunk's Send
  }
  // Batches run in order: Finish(k) -> Init(k + 1).
  for (std::size_t k = 1; k < tg.init_vertex.size(); ++k)
    CHECK(has_edge(g, tg.finish_vertex[k - 1], tg.init_vertex[k]));
}

TEST_CASE("task graph: pushed messages wait for the receiver's Free, and are not unpacked") {
  const Layout src{Tiling{UniformAxis<>(40, 10), UniformAxis<>(40, 10)}, BlockCyclic(1, 3)};
  const Layout dst{Tiling{UniformAxis<>(40, 8), UniformAxis<>(40, 8)}, BlockCyclic(3, 1)};
  PlanOptions o;
  o.batch = 2;
  const Plan p = make_plan(src, dst, Region::whole({40, 40}), 1, 3, o);
  REQUIRE(p.send.messages.size() >= 2);
  REQUIRE(!p.recv.messages.empty());
  std::vector<Transport> how(p.send.messages.size(), Transport::shared_window);
  how[0] = Transport::push;
  std::vector<Transport> recv_how(p.recv.messages.size(), Transport::push);
  const TaskGraph tg = make_task_graph(p, 64, how, recv_how);
  const TaskGraphView g = boost_graph(tg);
  CHECK(acyclic(tg));
  // A pushed message has a Free and no Ack; the others an Ack and no Free.
  CHECK(tg.ack_vertex[0] == SIZE_MAX);
  REQUIRE(tg.free_vertex[0] != SIZE_MAX);
  for (std::size_t m = 1; m < p.send.messages.size(); ++m) {
    CHECK(tg.free_vertex[m] == SIZE_MAX);
    CHECK(tg.ack_vertex[m] != SIZE_MAX);
  }
  REQUIRE(p.send.messages[0].batch == 0);
  CHECK(has_edge(g, tg.init_vertex[0], tg.free_vertex[0]));
  REQUIRE(tg.send.begin[1] > tg.send.begin[0]);
  for (std::size_t c = tg.send.begin[0]; c < tg.send.begin[1]; ++c) {
    CHECK(has_edge(g, tg.free_vertex[0], tg.send_vertex[c]));
    CHECK(boost::in_degree(tg.send_vertex[c], g) == 2);  // Init and Free
    CHECK(copied_elements(tg, tg.send_vertex[c]) == tg.send.chunks[c].elements);
  }
  std::ostringstream dot;
  write_graphviz(dot, tg);
  CHECK(dot.str().find("Free(m0)") != std::string::npos);
  CHECK(dot.str().find("Ack(m1)") != std::string::npos);
  // The receiver copies nothing for a pushed chunk: its Receive counts no elements.
  for (std::size_t v = 0; v < tg.tasks.size(); ++v)
    if (tg.tasks[v].kind == TaskKind::receive && tg.tasks[v].remote)
      CHECK(copied_elements(tg, v) == 0);
  // Walked: the pushed message's Sends become ready only once the Free event came.
  const Schedule s = compile(tg);
  engine::ScheduleWalk walk;
  walk.reset(tg, s);
  const auto ready_sends = [&] {
    std::vector<std::size_t> out;
    for (std::size_t v; (v = walk.front()) != engine::ScheduleWalk::none;) {
      walk.pop();
      if (tg.tasks[v].kind == TaskKind::send) out.push_back(tg.tasks[v].index);
      walk.complete(v);
    }
    return out;
  };
  const auto pushed = [&](const std::vector<std::size_t>& sends) {
    return std::count_if(sends.begin(), sends.end(),
                         [&](std::size_t c) { return tg.send.chunks[c].message == 0; });
  };
  const std::vector<std::size_t> before = ready_sends();
  CHECK(pushed(before) == 0);
  walk.event(tg.free_vertex[0]);
  const std::vector<std::size_t> after = ready_sends();
  CHECK(pushed(after) == static_cast<std::ptrdiff_t>(tg.send.begin[1] - tg.send.begin[0]));
}

TEST_CASE("schedule: the compiled graph is the graph, nothing added") {
  const Layout src{Tiling{UniformAxis<>(50, 7), UniformAxis<>(50, 9)}, BlockCyclic(2, 2)};
  const Layout dst{Tiling{UniformAxis<>(50, 5), UniformAxis<>(50, 6)}, BlockCyclic(1, 4)};
  PlanOptions o;
  o.batch = 1;
  for (int rank = 0; rank < 4; ++rank) {
    const Plan p = make_plan(src, dst, Region::whole({50, 50}), rank, 4, o);
    const TaskGraph tg = make_task_graph(
        p, 30, std::vector<Transport>(p.send.messages.size(), Transport::shared_window),
        std::vector<Transport>(p.recv.messages.size(), Transport::shared_window));
    const TaskGraphView g = boost_graph(tg);
    const Schedule s = compile(tg);
    const auto n = boost::num_vertices(g);
    REQUIRE(s.in_degree.size() == n);
    std::size_t edges = 0;
    for (std::size_t v = 0; v < n; ++v) {
      CHECK(s.in_degree[v] == static_cast<int>(boost::in_degree(v, g)));
      for (auto e = s.succ_begin[v]; e < s.succ_begin[v + 1]; ++e) CHECK(has_edge(g, v, s.succ[e]));
      CHECK(s.succ_begin[v + 1] - s.succ_begin[v] == boost::out_degree(v, g));
      edges += boost::out_degree(v, g);
    }
    CHECK(s.succ.size() == edges);
    // Each task's successors in the order its edges were added (the ready order follows).
    std::vector<std::size_t> next(s.succ_begin.begin(), s.succ_begin.end() - 1);
    for (const TaskEdge& e : tg.edges) CHECK(s.succ[next[e.from]++] == e.to);
  }
}

TEST_CASE("follow packs: each follower runs right after its pack, the graph stays acyclic") {
  const Layout src{Tiling{UniformAxis<>(64, 16), UniformAxis<>(64, 16)}, BlockCyclic(1, 2)};
  const Layout dst{Tiling{UniformAxis<>(64, 10), UniformAxis<>(64, 10)}, BlockCyclic(2, 1)};
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    const Plan p = make_plan(src, dst, Region::whole({64, 64}), rank, 2, PlanOptions{});
    const auto window = [](std::size_t n) {
      return std::vector<Transport>(n, Transport::shared_window);
    };
    TaskGraph tg = make_task_graph(p, cut_chunkings(p, 40, 40), window(p.send.messages.size()),
                                   window(p.recv.messages.size()));
    REQUIRE(tg.send.chunks.size() >= 2);
    REQUIRE(tg.local.chunks.size() >= 2);
    // Part p follows sent chunk p mod C (of its batch: one batch here).
    REQUIRE(p.batches == 1);
    std::vector<std::size_t> follows;
    for (std::size_t q = 0; q < tg.local.chunks.size(); ++q)
      follows.push_back(q % 3 == 2 ? SIZE_MAX : q % tg.send.chunks.size());
    const std::size_t edges = tg.edges.size();
    follow_packs(tg, follows);
    CHECK(tg.edges.size() == edges + tg.local.chunks.size() - tg.local.chunks.size() / 3);
    CHECK(acyclic(tg));
    const Schedule s = compile(tg);
    engine::ScheduleWalk walk;
    walk.reset(tg, s);
    // Every transport event comes at once: Arrive and Ack complete as soon as they may.
    for (std::size_t v = 0; v < tg.tasks.size(); ++v)
      if (tg.tasks[v].kind == TaskKind::arrive || tg.tasks[v].kind == TaskKind::ack) walk.event(v);
    std::vector<std::size_t> ran;  // tasks that copy, in the order they ran
    for (std::size_t v; (v = walk.front()) != engine::ScheduleWalk::none;) {
      walk.pop();
      walk.complete(v);
      if (tg.tasks[v].kind == TaskKind::send || tg.tasks[v].kind == TaskKind::receive)
        ran.push_back(v);
    }
    CHECK(walk.left() == 0);
    // After Send(c): exactly its followers, in part order, then something else.
    for (std::size_t c = 0; c < tg.send.chunks.size(); ++c) {
      auto at = std::find(ran.begin(), ran.end(), tg.send_vertex[c]);
      REQUIRE(at != ran.end());
      for (std::size_t q = 0; q < follows.size(); ++q)
        if (follows[q] == c) {
          REQUIRE(++at != ran.end());
          CHECK(*at == tg.local_vertex[q]);
        }
    }
  }
}

}  // namespace
