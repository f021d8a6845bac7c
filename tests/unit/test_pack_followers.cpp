// Local parts that follow the pack reading the same source (engine/pack_followers.hpp,
// task_graph.hpp's follow_packs): the pairing by address spans, and the graph and walk
// that run each follower right after its pack.
#include <cstdint>
#include <vector>

#include <boost/graph/topological_sort.hpp>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/engine/pack_followers.hpp>
#include <redist/engine/schedule_walk.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/task_graph_boost.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using engine::AddressSpan;
using engine::pack_followers;

TEST_CASE("pack followers: the sent chunk of the batch that shares the most source") {
  // Chunks 0-2 read [0, 100), [100, 200), [200, 300) in batch 0; chunk 3 reads [0, 300)
  // in batch 1; chunk 4 packs nothing here.
  const std::vector<AddressSpan> sent{{0, 100}, {100, 200}, {200, 300}, {0, 300}, {}};
  const std::vector<index_t> sent_batch{0, 0, 0, 1, 0};
  const std::vector<AddressSpan> local{
      {10, 90},    // inside chunk 0
      {150, 260},  // 50 bytes with chunk 1, 60 with chunk 2
      {180, 220},  // 20 and 20: the first
      {500, 600},  // nothing overlaps
      {},          // reads nothing
      {120, 130},  // batch 1: chunk 3
      {250, 450},  // 50 of its 200 bytes with chunk 2: other columns, not followed
  };
  const std::vector<index_t> local_batch{0, 0, 0, 0, 0, 1, 0};
  const auto f = pack_followers(sent, sent_batch, local, local_batch);
  CHECK(f == std::vector<std::size_t>{0, 2, 1, SIZE_MAX, SIZE_MAX, 3, SIZE_MAX});
}

TEST_CASE("pack followers: many chunks over the same columns, the best among the nearest") {
  // 40 peers' chunks over the same 1000 bytes, and one that matches exactly, started last.
  std::vector<AddressSpan> sent(40, AddressSpan{0, 1000});
  sent.push_back({400, 500});
  const std::vector<index_t> batch(sent.size(), 0);
  const auto f = pack_followers(sent, batch, {{400, 500}}, {0});
  // Every chunk shares the 100 bytes: a tie goes to the first of the candidates, which
  // overlaps as much as the exact one.
  REQUIRE(f.size() == 1);
  REQUIRE(f[0] < sent.size());
  CHECK(engine::overlap(sent[f[0]], {400, 500}) == 100);
}

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
