// Task graphs built from plans of virtual ranks (no MPI): the papers' Fig. 4 counts, acyclic
// graphs (boost::topological_sort), task counts matching the plan, Graphviz output.
#include <iterator>
#include <sstream>
#include <vector>

#include <boost/graph/topological_sort.hpp>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

bool acyclic(const TaskGraph& tg) {
  std::vector<std::size_t> order;
  try {
    boost::topological_sort(tg.graph, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    return false;
  }
  return order.size() == boost::num_vertices(tg.graph);
}

TEST_CASE("task graph: Fig. 4, 3 x 3 source tiles on 2 x 2 ranks into one target tile") {
  const Layout src{Tiling{UniformAxis<>(30, 10), UniformAxis<>(30, 10)}, BlockCyclic(2, 2)};
  const Layout dst{Tiling{UniformAxis<>(30, 30), UniformAxis<>(30, 30)}, BlockCyclic(1, 1)};
  std::size_t init = 0, send = 0, receive = 0, finish = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const TaskGraph tg = make_task_graph(make_plan(src, dst, Region::whole({30, 30}), rank, 4));
    CHECK(acyclic(tg));
    init += tg.count(TaskKind::init);
    send += tg.count(TaskKind::send);
    receive += tg.count(TaskKind::receive);
    finish += tg.count(TaskKind::finish);
    if (rank == 0) {
      // Init(T) precedes and Finish(T) follows each of the 9 receives.
      for (auto v : boost::make_iterator_range(boost::vertices(tg.graph))) {
        const Task& t = tg.graph[v];
        if (t.kind == TaskKind::init) CHECK(boost::out_degree(v, tg.graph) == 9);
        if (t.kind == TaskKind::finish) CHECK(boost::in_degree(v, tg.graph) == 9);
      }
      std::ostringstream dot;
      write_graphviz(dot, tg);
      CHECK(!dot.str().empty());
      CHECK(dot.str().find("Receive") != std::string::npos);
      CHECK(dot.str().find("digraph") != std::string::npos);
    }
  }
  CHECK(init == 1);
  CHECK(send == 9);
  CHECK(receive == 9);
  CHECK(finish == 1);
}

TEST_CASE(
    "task graph: random block-cyclic and random plans give acyclic graphs matching the plan") {
  for (int np = 1; np <= 5; ++np)
    for (index_t batch : {0, 1, 2}) {
      const Layout src{Tiling{UniformAxis<>(37, 5), UniformAxis<>(41, 6)},
                       RandomDistribution(np, 3)};
      const Layout dst{Tiling{UniformAxis<>(40, 7), UniformAxis<>(45, 4)},
                       BlockCyclic(1, np, 1, 2)};
      const Region r{{30, 33}, {4, 7}, {9, 2}};
      PlanOptions o;
      o.batch = batch;
      for (int rank = 0; rank < np; ++rank) {
        const Plan p = make_plan(src, dst, r, rank, np, o);
        const TaskGraph tg = make_task_graph(p);
        CAPTURE(np);
        CAPTURE(rank);
        CHECK(acyclic(tg));
        CHECK(tg.count(TaskKind::init) == static_cast<std::size_t>(p.stats.dst_tiles));
        CHECK(tg.count(TaskKind::finish) == static_cast<std::size_t>(p.stats.dst_tiles));
        CHECK(tg.count(TaskKind::receive) == p.recv.segments.size() + p.local.size());
        CHECK(tg.count(TaskKind::batch) == static_cast<std::size_t>(p.batches));
        // Every sent segment is packed by exactly one Send task.
        std::size_t packed = 0;
        for (const auto& list : tg.send_lists) packed += list.size();
        CHECK(packed == p.send.segments.size());
      }
    }
}

}  // namespace
