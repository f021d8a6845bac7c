// start(), test() and wait() as a resumable walk of the schedule (executor.hpp, issue 24
// point 7) at 1-4 ranks: start() opens the first batch and copies no more than the first
// chunk of each of its messages (or one chunk's worth); each test() call copies no more than
// its budget, the last copy begun aside; a loop of test() alone completes the move, and every
// target element is checked against the source's function of the global index (outside the
// region: untouched). Whatever carries the messages: point to point, the node window, direct
// reads of a node-shared source, and cross-memory in that ctest leg; one batch and several;
// several parts with a transform.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <vector>

#include <redist/redist.hpp>
#include <redist/topology.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "steps_between_nodes.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Copies run by the tasks completed from position `from` of the completion order on:
/// their elements, less the last one's (the copy begun when the budget was not yet spent).
index_t copied_before_last(const TaskGraph& g, const std::vector<std::uint32_t>& order,
                           std::size_t from) {
  index_t total = 0, last = 0;
  for (std::size_t k = from; k < order.size(); ++k)
    if (const index_t n = copied_elements(g, order[k]); n > 0) {
      total += n;
      last = n;
    }
  return total - last;
}

/// What driving one execution by test() alone showed on this rank.
struct Driven {
  index_t over_budget = 0;          ///< calls (start() included) that copied past their budget
  index_t first_chunks_missed = 0;  ///< first chunks of batch 0's messages start() did not send
  bool left_after_start = false;    ///< start() left copies to do although it had more than
                                    ///< its budget (plus one task) to copy
  index_t copies_in_test0 = 0;      ///< elements test(0) copied
  index_t calls = 0;
  bool complete = false;  ///< every task ran once, wait() had nothing left
};

/// start(), test(0) once, then test(chunks) until true, then wait(); checks the budget of
/// every call against the completion order.
template <class R>
Driven drive(R& r, std::size_t chunks) {
  using T = typename R::value_type;
  const TaskGraph& g = r.task_graph();
  const Plan& plan = r.plan();
  const auto& order = r.completion_order();
  const index_t chunk =
      std::max<index_t>(1, r.execution_options().chunk_bytes / static_cast<index_t>(sizeof(T)));
  Driven d;
  // start()'s budget: the first chunk of each message of batch 0 that is packed, with the
  // local parts swept along with it. A first chunk that takes over a ring slot (a later
  // round of the node window's lane) waits for that slot's ack, so start() may leave it.
  std::set<std::size_t> waits_for_slot;
  for (const TaskEdge& e : g.edges)
    if (g.tasks[e.from].kind == TaskKind::ack && g.tasks[e.to].kind == TaskKind::send)
      waits_for_slot.insert(g.tasks[e.to].index);
  index_t first = 0;
  std::set<std::uint32_t> first_sends;
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m)
    if (plan.send.messages[m].batch == 0 && !reads_in_place(g.send_transport[m]) &&
        g.send.begin[m] < g.send.begin[m + 1]) {
      first += copied_elements(g, g.send_vertex[g.send.begin[m]]);
      if (!waits_for_slot.count(g.send.begin[m]))
        first_sends.insert(static_cast<std::uint32_t>(g.send.begin[m]));
    }
  const index_t start_budget = std::max(first, chunk);
  index_t all = 0, largest = 0;
  for (std::uint32_t v = 0; v < g.tasks.size(); ++v) {
    all += copied_elements(g, v);
    largest = std::max(largest, copied_elements(g, v));
  }

  r.start();
  d.over_budget += copied_before_last(g, order, 0) >= start_budget;
  for (const std::uint32_t v : order)
    if (g.tasks[v].kind == TaskKind::send)
      first_sends.erase(static_cast<std::uint32_t>(g.tasks[v].index));
  d.first_chunks_missed = static_cast<index_t>(first_sends.size());
  index_t done = 0;
  for (const std::uint32_t v : order) done += copied_elements(g, v);
  d.left_after_start = all <= start_budget + largest || (done < all && r.tasks_left() > 0);

  std::size_t from = order.size();
  const bool finished_by_0 = r.test(0);
  for (std::size_t k = from; k < order.size(); ++k)
    d.copies_in_test0 += copied_elements(g, order[k]);
  bool finished = finished_by_0;
  const index_t budget = static_cast<index_t>(chunks) * chunk;
  while (!finished) {
    from = order.size();
    finished = r.test(chunks);
    d.over_budget += copied_before_last(g, order, from) >= budget;
    ++d.calls;
    REQUIRE(d.calls < 5000000);
  }
  const std::size_t ran = order.size();
  r.wait();  // test() said done: nothing is left
  d.complete = ran == g.tasks.size() && order.size() == ran && r.tasks_left() == 0 &&
               r.tasks_run() == g.counts();
  return d;
}

/// Sums of Driven over ranks, so that every rank asserts the same.
struct DrivenSum {
  index_t over_budget = 0, first_chunks_missed = 0, not_left = 0, copies_in_test0 = 0,
          incomplete = 0;
};
DrivenSum all_ranks(const boost::mpi::communicator& comm, const Driven& d) {
  return {sum(comm, d.over_budget), sum(comm, d.first_chunks_missed),
          sum(comm, d.left_after_start ? 0 : 1), sum(comm, d.copies_in_test0),
          sum(comm, d.complete ? 0 : 1)};
}

void check(const boost::mpi::communicator& comm, const DrivenSum& s) {
  CHECK(s.over_budget == 0);
  // In steps, first chunks between nodes wait for their step instead of leaving in start().
  if (!test::steps_between_nodes(comm)) CHECK(s.first_chunks_missed == 0);
  CHECK(s.not_left == 0);
  CHECK(s.copies_in_test0 == 0);
  CHECK(s.incomplete == 0);
}

}  // namespace

TEST_CASE(
    "mpi: start() leaves work to test(); test() alone completes the move, every call in budget") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  Layout src{uniform(150, 130, 16, 10), BlockCyclic(P, Q)};  // not const: node_shared_matrix's
  Layout dst{uniform(150, 130, 9, 13), BlockCyclic(Q, P)};   // type is TiledMatrix's
  const Region region{{120, 100}, {7, 5}, {20, 11}};         // displaced: the target has an outside
  for (const char* window : window_settings())
    for (const bool shared_source : {false, true})
      for (const index_t batch : {index_t{0}, index_t{2}})
        for (const std::size_t chunks : {std::size_t{1}, std::size_t{3}}) {
          const ScopedEnv w("REDIST_SHARED_WINDOW", window);
          CAPTURE(window);
          CAPTURE(shared_source);
          CAPTURE(batch);
          CAPTURE(chunks);
          auto a = shared_source ? node_shared_matrix<double>(src, TilePerAllocation<>{}, comm)
                                 : TiledMatrix<double, decltype(src), TilePerAllocation<>>(
                                       src, {}, comm.rank());
          TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
          fill_source(a);
          PlanOptions o;
          o.batch = batch;
          ExecutionOptions x;
          x.chunk_bytes = 512;  // 64 elements: many chunks per message and local parts
          Redistributor r(a, b, comm, region, o, x);
          // Read in place between ranks of one node (simulated nodes may leave none).
          if (np > 1 && shared_source && window[0] == '1' && node_map(comm).nodes == 1)
            CHECK(sum(comm, r.messages(Transport::direct).second) > 0);
          if (batch > 0) CHECK(r.plan().batches > 1);
          for (int round = 0; round < 2; ++round) {  // the walk starts afresh every time
            CAPTURE(round);
            fill_sentinel(b);
            const Driven d = drive(r, chunks);
            check(comm, all_ranks(comm, d));
            index_t checked = 0;
            CHECK(sum(comm, target_errors(b, region, checked)) == 0);
            CHECK(sum(comm, checked) == 150 * 130);
            CHECK(sum(comm, source_errors(a)) == 0);
          }
        }
}

TEST_CASE("mpi: several parts, transposed and scaled, moved by test() alone") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  using L = Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>;
  using M = TiledMatrix<double, L, TilePerAllocation<>>;
  const L src{uniform(60, 48, 6, 4), BlockCyclic(1, np)};
  const L dst{uniform(60, 60, 5, 7), BlockCyclic(np, 1)};
  // Each region fits the target transposed (cols x rows).
  const std::vector<Region> regions{Region{{40, 30}, {3, 2}, {8, 5}},
                                    Region{{50, 40}, {10, 8}, {0, 10}}};
  const Transform<double> t{Op::transpose, 2.0, 0.0};
  for (const char* window : window_settings()) {
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    CAPTURE(window);
    std::vector<M> a, b;
    a.reserve(regions.size());  // parts point into both: no reallocation
    b.reserve(regions.size());
    for (std::size_t k = 0; k < regions.size(); ++k) {
      a.emplace_back(src, TilePerAllocation<>{}, comm.rank());
      b.emplace_back(dst, TilePerAllocation<>{}, comm.rank());
      // Part k's source is value_at + 10000 k: reading another part's source fails.
      a.back().for_each_element(
          [&](ElementIndex e, double& v) { v = value_at<double>(e) + 10000.0 * double(k); });
      fill_sentinel(b.back());
    }
    std::vector<Part<M, M>> parts;
    for (std::size_t k = 0; k < regions.size(); ++k)
      parts.push_back(Part{&a[k], &b[k], regions[k]});
    PlanOptions o;
    o.batch = 3;
    ExecutionOptions x;
    x.chunk_bytes = 256;
    Redistributor r(parts, comm, t, o, x);
    check(comm, all_ranks(comm, drive(r, 2)));
    index_t bad = 0;
    for (std::size_t k = 0; k < regions.size(); ++k) {
      const Region& g = regions[k];
      b[k].for_each_element([&](ElementIndex e, double& v) {
        const index_t i = e.i - g.dst_origin.i, j = e.j - g.dst_origin.j;
        const bool inside = i >= 0 && j >= 0 && i < g.extent.cols && j < g.extent.rows;
        const double want =
            inside ? 2.0 * (value_at<double>({g.src_origin.i + j, g.src_origin.j + i}) +
                            10000.0 * double(k))
                   : -1.0;
        bad += !(v == want);
      });
    }
    CHECK(sum(comm, bad) == 0);
  }
}
