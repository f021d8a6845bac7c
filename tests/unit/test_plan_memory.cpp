// What the plan itself holds (issue 24, point 6): PlanStats::plan_bytes is the plan's own
// memory, capacity x element size of every container it holds, so at least the sum of their
// sizes, and it grows with what the plan lists (segments on the per-segment path, families
// on the grid path); the task graph and schedule compiled from a plan report theirs the same
// way (the Executor adds them up as PlanStats::schedule_bytes). None of it is bounded by
// PlanOptions::max_buffer_bytes.
#include <cstddef>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using Uniform = Tiling<UniformAxis<>, UniformAxis<>>;

/// Bytes of the elements a plan's containers hold (their sizes, not capacities).
std::size_t held_bytes(const Plan& p) {
  std::size_t bytes = (p.row_groups.size() + p.col_groups.size()) * sizeof(PieceGroup) +
                      p.batch_columns.size() * sizeof(index_t);
  for (const FamilyList* d : {&p.send, &p.recv, &p.local})
    bytes += d->families.size() * sizeof(BlockFamily) + d->messages.size() * sizeof(Message) +
             d->batch_elements.size() * sizeof(index_t);
  return bytes;
}

std::size_t held_bytes(const ReferencePlan& p) {
  return (p.send.segments.size() + p.recv.segments.size() + p.local.size()) *
             sizeof(PlannedSegment) +
         (p.send.messages.size() + p.recv.messages.size()) * sizeof(Message) +
         (p.send.batch_elements.size() + p.recv.batch_elements.size() + p.batch_columns.size()) *
             sizeof(index_t);
}

index_t segments(const PlanStats& s) {
  return s.segments_sent + s.segments_received + s.segments_local;
}

/// An n x n matrix of `tile` x `tile` tiles, random owners on one side (the per-segment
/// path) or block-cyclic on both (the grid path), rank 0 of 3.
template <bool grid>
auto plans_of(index_t n, index_t tile) {
  const Uniform shape{UniformAxis<>(n, tile), UniformAxis<>(n, tile)};
  const Uniform other{UniformAxis<>(n, tile + 1), UniformAxis<>(n, tile + 2)};
  const Layout<Uniform, BlockCyclic> dst{other, BlockCyclic(3, 1)};
  PlanOptions o;
  o.batch = 2;
  if constexpr (grid) {
    const Layout<Uniform, BlockCyclic> src{shape, BlockCyclic(1, 3, 1, 2)};
    return std::pair{make_plan(src, dst, Region::whole({n, n}), 0, 3, o),
                     make_reference_plan(src, dst, Region::whole({n, n}), 0, 3, o)};
  } else {
    const Layout<Uniform, RandomDistribution> src{shape, RandomDistribution(3, 24)};
    return std::pair{make_plan(src, dst, Region::whole({n, n}), 0, 3, o),
                     make_reference_plan(src, dst, Region::whole({n, n}), 0, 3, o)};
  }
}

}  // namespace

TEST_CASE("plan memory: plan_bytes is the plans' containers and grows with their segments") {
  index_t last_segments = 0;
  index_t last_plan = 0, last_reference = 0;
  for (const index_t n : {20, 60, 180}) {
    CAPTURE(n);
    const auto [plan, reference] = plans_of<false>(n, 3);
    // The per-segment path: one family per strided run of segments, so both grow.
    REQUIRE(segments(plan.stats) == segments(reference.stats));
    CHECK(segments(reference.stats) > last_segments);
    CHECK(plan.stats.plan_bytes == static_cast<index_t>(plan.memory_bytes()));
    CHECK(plan.stats.plan_bytes >= static_cast<index_t>(held_bytes(plan)));
    CHECK(reference.stats.plan_bytes == static_cast<index_t>(reference.memory_bytes()));
    CHECK(reference.stats.plan_bytes >= static_cast<index_t>(held_bytes(reference)));
    CHECK(reference.stats.plan_bytes >=
          segments(reference.stats) * static_cast<index_t>(sizeof(PlannedSegment)));
    CHECK(plan.stats.plan_bytes > last_plan);
    CHECK(reference.stats.plan_bytes > last_reference);
    CHECK(plan.stats.schedule_bytes == 0);  // no Executor holds it
    last_segments = segments(reference.stats);
    last_plan = plan.stats.plan_bytes;
    last_reference = reference.stats.plan_bytes;
  }
}

TEST_CASE("plan memory: the grid path holds families, not segments, and reports them") {
  const auto [small, small_segments] = plans_of<true>(60, 3);
  const auto [large, large_segments] = plans_of<true>(600, 3);
  CHECK(segments(large.stats) > 50 * segments(small.stats));
  for (const Plan* p : {&small, &large}) {
    CHECK(p->stats.plan_bytes == static_cast<index_t>(p->memory_bytes()));
    CHECK(p->stats.plan_bytes >= static_cast<index_t>(held_bytes(*p)));
  }
  // More families (one per batch and group pair) hold more bytes, but far fewer than the
  // per-segment plan's segments.
  CHECK(large.send.families.size() > small.send.families.size());
  CHECK(large.stats.plan_bytes > small.stats.plan_bytes);
  CHECK(large.stats.plan_bytes < large_segments.stats.plan_bytes / 10);
}

TEST_CASE("plan memory: task graph and schedule report their containers") {
  std::size_t last = 0;
  for (const index_t n : {20, 60, 180}) {
    CAPTURE(n);
    const Plan p = plans_of<false>(n, 3).first;
    const TaskGraph tg = make_task_graph(p, 64);
    const Schedule s = compile(tg);
    std::size_t held = tg.tasks.size() * sizeof(Task) + tg.edges.size() * sizeof(TaskEdge);
    for (const Chunking* c : {&tg.send, &tg.recv, &tg.local})
      held += c->slices.size() * sizeof(Slice) + c->chunks.size() * sizeof(Chunk) +
              c->begin.size() * sizeof(std::size_t);
    CHECK(tg.memory_bytes() >= held);
    CHECK(s.memory_bytes() >= (s.succ_begin.size() + s.succ.size()) * sizeof(std::uint32_t) +
                                  s.in_degree.size() * sizeof(int) + s.queue.size());
    CHECK(tg.memory_bytes() + s.memory_bytes() > last);
    last = tg.memory_bytes() + s.memory_bytes();
  }
}
