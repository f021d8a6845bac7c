// The step orders between nodes (engine/node_schedule.hpp): the caterpillar's steps pair
// every two nodes exactly once and no node twice in a step, the shift's send to one node and
// receive from one per step (P = 1..9); their edges on plans of virtual ranks point from
// lower (step, packet) to higher, only between messages of other nodes; and all ranks'
// graphs together run to the end (a simulation that matches each sent packet with its
// arrival), for several node maps, windows and packet sizes.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/node_schedule.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

TEST_CASE("caterpillar: every pair of nodes exchanges exactly once, a node once per step") {
  for (int P = 1; P <= 9; ++P) {
    CAPTURE(P);
    const auto steps = caterpillar_pairs(P);
    REQUIRE(steps.size() == static_cast<std::size_t>(P));
    std::map<std::pair<int, int>, int> met;  // pair -> times
    for (int d = 0; d < P; ++d) {
      std::set<int> busy;
      for (const auto& [a, b] : steps[static_cast<std::size_t>(d)]) {
        CHECK(a < b);
        CHECK(busy.insert(a).second);
        CHECK(busy.insert(b).second);
        met[{a, b}] += 1;
        CHECK(caterpillar_step(a, b, P) == d);
        CHECK(caterpillar_step(b, a, P) == d);
      }
      for (int i = 0; i < P; ++i) {
        const int j = caterpillar_partner(i, d, P);
        CHECK(caterpillar_partner(j, d, P) == i);  // an involution: pairs are disjoint
        CHECK((i + j + d) % P == 0);               // Prylli and Tourancheau's (P - i - d) mod P
      }
    }
    CHECK(met.size() == static_cast<std::size_t>(P * (P - 1) / 2));
    for (const auto& [pair, times] : met) CHECK(times == 1);
  }
  // P = 4: step 0 pairs 1 with 3 (0 and 2 sit out), step 1 pairs 0-3 and 1-2.
  CHECK(caterpillar_pairs(4)[0] == std::vector<std::pair<int, int>>{{1, 3}});
  CHECK(caterpillar_pairs(4)[1] == std::vector<std::pair<int, int>>{{0, 3}, {1, 2}});
}

TEST_CASE("shift: every node sends to every other once, and each step is a permutation") {
  for (int P = 1; P <= 9; ++P) {
    CAPTURE(P);
    std::set<std::pair<int, int>> sends;  // (from, to) between two nodes
    for (int d = 0; d < P; ++d) {
      std::set<int> senders, receivers;
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j) {
          const int out = send_step(InterNodeSchedule::shift, i, j, P);
          CHECK(out == receive_step(InterNodeSchedule::shift, j, i, P));  // both ends agree
          if (out != d || i == j) continue;
          CHECK(senders.insert(i).second);    // one destination a step
          CHECK(receivers.insert(j).second);  // one source a step
          CHECK(sends.insert({i, j}).second);
        }
      // From step 1 on, every node's link carries data both ways: no node sits out.
      CHECK(senders.size() == static_cast<std::size_t>(d == 0 ? 0 : P));
    }
    CHECK(sends.size() == static_cast<std::size_t>(P * (P - 1)));
  }
  // Two nodes: the shift is the caterpillar.
  for (int i = 0; i < 2; ++i)
    CHECK(send_step(InterNodeSchedule::shift, i, 1 - i, 2) ==
          send_step(InterNodeSchedule::caterpillar, i, 1 - i, 2));
}

TEST_CASE("step orders: automatic resolves by the number of nodes") {
  CHECK_FALSE(uses_steps(InterNodeSchedule::caterpillar, 1));
  CHECK_FALSE(uses_steps(InterNodeSchedule::shift, 1));
  CHECK(uses_steps(InterNodeSchedule::caterpillar, 2));
  CHECK(uses_steps(InterNodeSchedule::shift, 3));
  CHECK_FALSE(uses_steps(InterNodeSchedule::all_at_once, 3));
  CHECK(resolved_schedule(InterNodeSchedule::automatic, 1) == InterNodeSchedule::all_at_once);
  CHECK(resolved_schedule(InterNodeSchedule::automatic, 2) == automatic_inter_node_schedule);
  CHECK(resolved_schedule(InterNodeSchedule::shift, 3) == InterNodeSchedule::shift);
}

/// Runs every rank's graph together: a task runs once its predecessors have, an Arrive
/// once, besides, the sender has run the matching Send (same batch, peer pair and packet
/// number). Returns whether every task of every rank ran.
bool runs_to_the_end(const std::vector<Plan>& plans, const std::vector<TaskGraph>& graphs) {
  const std::size_t P = plans.size();
  // Arrive vertex on rank q of packet j of (batch, from r): found by the received message.
  std::map<std::tuple<int, index_t, int, std::size_t>, std::size_t> arrive_of;
  for (std::size_t q = 0; q < P; ++q)
    for (std::size_t m = 0; m < plans[q].recv.messages.size(); ++m) {
      const Message& msg = plans[q].recv.messages[m];
      for (std::size_t c = graphs[q].recv.begin[m]; c < graphs[q].recv.begin[m + 1]; ++c)
        arrive_of[{static_cast<int>(q), msg.batch, msg.peer, c - graphs[q].recv.begin[m]}] =
            graphs[q].arrive_vertex[c];
    }
  std::vector<std::vector<int>> pending(P);
  std::vector<std::vector<std::vector<std::uint32_t>>> succ(P);
  std::vector<std::vector<char>> sent(P), done(P);
  std::size_t left = 0;
  for (std::size_t r = 0; r < P; ++r) {
    const TaskGraph& tg = graphs[r];
    pending[r].assign(tg.tasks.size(), 0);
    succ[r].assign(tg.tasks.size(), {});
    sent[r].assign(tg.tasks.size(), 0);
    done[r].assign(tg.tasks.size(), 0);
    for (const TaskEdge& e : tg.edges) {
      pending[r][e.to] += 1;
      succ[r][e.from].push_back(e.to);
    }
    left += tg.tasks.size();
  }
  for (bool progress = true; progress && left > 0;) {
    progress = false;
    for (std::size_t r = 0; r < P; ++r)
      for (std::size_t v = 0; v < graphs[r].tasks.size(); ++v) {
        const Task& t = graphs[r].tasks[v];
        if (done[r][v] || pending[r][v] > 0) continue;
        if (t.kind == TaskKind::arrive && !sent[r][v]) continue;
        done[r][v] = 1;
        --left;
        progress = true;
        for (const std::uint32_t w : succ[r][v]) pending[r][w] -= 1;
        if (t.kind == TaskKind::send) {
          const Chunk& ch = graphs[r].send.chunks[t.index];
          const Message& msg = plans[r].send.messages[ch.message];
          const std::size_t j = t.index - graphs[r].send.begin[ch.message];
          const auto at = arrive_of.find({msg.peer, msg.batch, static_cast<int>(r), j});
          REQUIRE(at != arrive_of.end());
          sent[static_cast<std::size_t>(msg.peer)][at->second] = 1;
        }
      }
  }
  return left == 0;
}

TEST_CASE("step orders: edges go to inter-node sends from earlier arrivals; all ranks finish") {
  // node maps: consecutive ranks per node (1, 2, 3), and one interleaved map.
  for (const InterNodeSchedule order : {InterNodeSchedule::caterpillar, InterNodeSchedule::shift})
    for (int np = 2; np <= 6; ++np)
      for (int per_node : {1, 2, 3, 0})
        for (std::size_t window : {std::size_t{1}, std::size_t{2}, std::size_t{8}})
          for (index_t batch : {0, 2})
            for (index_t packet : {7, 64, 1 << 20}) {
              std::vector<int> node_of_rank;
              for (int r = 0; r < np; ++r)
                node_of_rank.push_back(per_node > 0 ? r / per_node : r % 2);
              const int nodes = *std::max_element(node_of_rank.begin(), node_of_rank.end()) + 1;
              const Layout src{Tiling{UniformAxis<>(57, 5), UniformAxis<>(61, 6)},
                               RandomDistribution(np, 5)};
              const Layout dst{Tiling{UniformAxis<>(60, 7), UniformAxis<>(65, 4)},
                               BlockCyclic(1, np, 1, 2)};
              const Region region{{50, 53}, {4, 7}, {9, 2}};
              PlanOptions o;
              o.batch = batch;
              CAPTURE(order);
              CAPTURE(np);
              CAPTURE(per_node);
              CAPTURE(window);
              CAPTURE(batch);
              CAPTURE(packet);
              std::vector<Plan> plans;
              std::vector<TaskGraph> graphs;
              for (int rank = 0; rank < np; ++rank) {
                plans.push_back(make_plan(src, dst, region, rank, np, o));
                const Plan& p = plans.back();
                std::vector<bool> other;
                for (int n : node_of_rank) other.push_back(n != node_of_rank[rank]);
                TaskGraph tg = make_task_graph(p, cut_chunkings(p, 1 << 20, 0, other, packet));
                // Packets between nodes, chunks (one per message here) inside.
                for (std::size_t m = 0; m < p.send.messages.size(); ++m)
                  if (!other[static_cast<std::size_t>(p.send.messages[m].peer)])
                    CHECK(tg.send.begin[m + 1] - tg.send.begin[m] == 1);
                const std::size_t before = tg.edges.size();
                const TaskGraph plain = tg;
                add_step_edges(tg, p, node_of_rank, nodes, order, window);
                CHECK(tg.tasks.size() == plain.tasks.size());
                if (nodes == 1) CHECK(tg.edges.size() == before);
                // Every edge added runs from an Arrive of a message from another node to a
                // Send of a message to another node, of one batch, at a step no earlier, and at
                // the same step only from the message's pair: the rank of the same place in
                // its node (in the caterpillar, the same rank).
                const auto place = [&](int rank_of) {
                  int k = 0;
                  for (int q = 0; q < rank_of; ++q) k += node_of_rank[q] == node_of_rank[rank_of];
                  return k;
                };
                std::size_t window_edges = 0;
                for (std::size_t e = before; e < tg.edges.size(); ++e) {
                  const Task& from = tg.tasks[tg.edges[e].from];
                  const Task& to = tg.tasks[tg.edges[e].to];
                  REQUIRE(from.kind == TaskKind::arrive);
                  REQUIRE(to.kind == TaskKind::send);
                  CHECK(from.batch == to.batch);
                  const Message& in = p.recv.messages[tg.recv.chunks[from.index].message];
                  const Message& out = p.send.messages[tg.send.chunks[to.index].message];
                  const int me = node_of_rank[rank];
                  const int a = node_of_rank[in.peer], b = node_of_rank[out.peer];
                  REQUIRE(a != me);
                  REQUIRE(b != me);
                  const int step_in = receive_step(order, me, a, nodes);
                  const int step_out = send_step(order, me, b, nodes);
                  CHECK(step_in <= step_out);
                  if (step_in == step_out) {
                    CHECK(place(in.peer) == place(out.peer));
                    if (order == InterNodeSchedule::caterpillar) CHECK(in.peer == out.peer);
                    window_edges += 1;
                  }
                }
                // One window edge per packet beyond the window of each message with a pair.
                std::size_t expected = 0;
                for (std::size_t m = 0; m < p.send.messages.size(); ++m) {
                  const Message& out = p.send.messages[m];
                  if (!other[static_cast<std::size_t>(out.peer)]) continue;
                  const int me = node_of_rank[rank];
                  const int step = send_step(order, me, node_of_rank[out.peer], nodes);
                  for (std::size_t r = 0; r < p.recv.messages.size(); ++r)
                    if (const Message& in = p.recv.messages[r];
                        other[static_cast<std::size_t>(in.peer)] && in.batch == out.batch &&
                        receive_step(order, me, node_of_rank[in.peer], nodes) == step &&
                        place(in.peer) == place(out.peer))
                      expected += tg.send.begin[m + 1] - tg.send.begin[m] > window
                                      ? tg.send.begin[m + 1] - tg.send.begin[m] - window
                                      : 0;
                }
                CHECK(window_edges == expected);
                graphs.push_back(std::move(tg));
              }
              CHECK(runs_to_the_end(plans, graphs));
            }
}

TEST_CASE("caterpillar: a window of 0 packets would deadlock, so the simulation can fail") {
  // Two nodes of one rank, each sending the other 2 packets (a packet holds at least a column
  // member: a tile column of 2 x 4 elements here): with a window of 1 both ends
  // finish; with every packet waiting for the partner's same packet (what a window of 0
  // would build), neither starts.
  const Layout src{Tiling{UniformAxis<>(8, 2), UniformAxis<>(8, 2)}, BlockCyclic(1, 2)};
  const Layout dst{Tiling{UniformAxis<>(8, 2), UniformAxis<>(8, 2)}, BlockCyclic(2, 1)};
  std::vector<Plan> plans;
  std::vector<TaskGraph> good, bad;
  for (int rank = 0; rank < 2; ++rank) {
    plans.push_back(make_plan(src, dst, Region::whole({8, 8}), rank, 2));
    const Plan& p = plans.back();
    TaskGraph tg = make_task_graph(p, cut_chunkings(p, 1 << 20, 0, {true, true}, 4));
    REQUIRE(tg.send.chunks.size() == 2);
    REQUIRE(tg.recv.chunks.size() == 2);
    bad.push_back(tg);
    add_step_edges(tg, p, {0, 1}, 2, InterNodeSchedule::caterpillar, 1);
    good.push_back(std::move(tg));
    for (std::size_t v = 0; v < bad.back().tasks.size(); ++v)
      if (bad.back().tasks[v].kind == TaskKind::send)
        bad.back().edges.push_back(TaskEdge{
            static_cast<std::uint32_t>(bad.back().arrive_vertex[bad.back().tasks[v].index]),
            static_cast<std::uint32_t>(v)});
  }
  CHECK(runs_to_the_end(plans, good));
  CHECK_FALSE(runs_to_the_end(plans, bad));
}

}  // namespace
