// Buffer memory is known before the first run and bounded by the batch: the
// Redistributor's buffer_bytes() does not change when it runs, never exceeds the plan's
// send + receive figure for the largest batch, and shrinks with smaller batches. With
// batch = 0, PlanOptions::max_buffer_bytes caps that figure on every rank, also where
// irregular source tile columns must be cut inside (issue 10). The plan's own memory
// (PlanStats::plan_bytes, schedule_bytes) is reported beside the buffers, is not bounded by
// that cap, and grows with the segments (issue 24, point 6).
#include <algorithm>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/serialization/vector.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {
using namespace redist;
using namespace redist::test;

TEST_CASE("mpi: buffer memory is exact before the first run and bounded by the batch") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(240, 300, 16, 12), BlockCyclic(1, np)};
  const Layout dst{uniform(240, 300, 20, 25), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());

  index_t largest = 0;
  for (index_t batch : {index_t{0}, index_t{5}, index_t{1}}) {
    PlanOptions o;
    o.batch = batch;
    Redistributor r(a, b, comm, o);
    const index_t before = r.buffer_bytes();
    r.redistribute();
    CHECK(r.buffer_bytes() == before);
    const index_t bound = r.plan().stats.buffer_elements * static_cast<index_t>(sizeof(double));
    CHECK(before <= bound);
    const index_t worst = boost::mpi::all_reduce(comm, before, boost::mpi::maximum<index_t>());
    // Messages read in place (cross-memory, when a run forces it) need no buffer at all.
    const index_t packed =
        sum(comm, r.plan().stats.messages_sent - r.messages(Transport::cross_memory).first -
                      r.direct_messages().first);
    if (batch == 0) largest = worst;
    // The node window's rings (transport/ring_slots.hpp) are as large whatever the batch.
    index_t ringed = 0;
    for (const std::size_t v : r.task_graph().slot_ack_vertex) ringed += v != SIZE_MAX;
    if (np > 1 && batch == 1 && packed > 0 && sum(comm, ringed) == 0)
      CHECK(worst < largest);  // 1 of 25 source tile columns at a time
    if (batch == 1) CHECK(worst <= largest);
    if (packed == 0) CHECK(worst == 0);
    if (np == 1) CHECK(before == 0);  // everything is local
  }
}

TEST_CASE("mpi: the plan's own bytes are reported beside the buffers, outside their cap") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  PlanOptions o;
  o.max_buffer_bytes = 4096;
  index_t last = 0;
  for (const index_t n : {40, 120}) {
    CAPTURE(n);
    // 2 x 2 tiles, one allocation per tile: a copy per segment.
    using Tiles = TiledMatrix<double, Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>,
                              TilePerAllocation<>>;
    Tiles a({uniform(n, n, 2, 2), BlockCyclic(1, np)}, {}, comm.rank());
    Tiles b({uniform(n, n, 3, 3), BlockCyclic(np, 1)}, {}, comm.rank());
    fill_source(a);
    fill_sentinel(b);
    Redistributor r(a, b, comm, o);
    const PlanStats& s = r.plan().stats;
    CHECK(s.plan_bytes == static_cast<index_t>(r.plan().memory_bytes()));
    CHECK(s.schedule_bytes >= static_cast<index_t>(r.task_graph().memory_bytes()));
    // At least one copy program entry per segment this rank packs, unpacks or copies (a
    // run that forces cross-memory reads received segments with the kernel's pieces, which
    // merge across segments, and packs nothing).
    const bool read_in_place =
        r.messages(Transport::cross_memory).first + r.messages(Transport::cross_memory).second > 0;
    const index_t segments =
        s.segments_local + (read_in_place ? 0 : s.segments_sent + s.segments_received);
    CHECK(s.schedule_bytes >= segments * static_cast<index_t>(sizeof(StridedCopy<double>)));
    r.redistribute();
    index_t checked = 0;
    CHECK(sum(comm, target_errors(b, Region::whole({n, n}), checked)) == 0);
    CHECK(r.plan().stats.schedule_bytes == s.schedule_bytes);  // known before the run
    // The cap holds for the buffers; the plan and its copies are beyond it.
    CHECK(r.buffer_bytes() <= o.max_buffer_bytes);
    const index_t own = boost::mpi::all_reduce(comm, s.plan_bytes + s.schedule_bytes,
                                               boost::mpi::maximum<index_t>());
    CHECK(own > o.max_buffer_bytes);
    CHECK(own > last);  // 9 times the segments
    last = own;
  }
}

/// Moves a displaced region from irregular source tile columns (some far wider than the
/// budget allows) under `budget` bytes, as the cap (max_buffer_bytes) or, `as_target`, as
/// the batches' target (batch_bytes) under the default cap; checks every target element,
/// the untouched rest, the budget on every rank, and that some batch boundary falls inside
/// a source tile column.
template <class T>
void check_budget_run(const boost::mpi::communicator& comm, index_t budget,
                      bool as_target = false) {
  const int np = comm.size();
  const IrregularAxis src_cols({0, 3, 52, 53, 60, 114, 118, 150});
  const Layout src{Tiling{UniformAxis<>(120, 8), src_cols}, BlockCyclic(1, np)};
  const Layout dst{uniform(110, 150, 10, 9), BlockCyclic(np, 1)};
  const Region region{{100, 140}, {3, 2}, {5, 7}};
  TiledMatrix<T, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
  TiledMatrix<T, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
  fill_source(a);
  fill_sentinel(b);
  PlanOptions o;
  (as_target ? o.batch_bytes : o.max_buffer_bytes) = budget;
  Redistributor r(a, b, comm, region, o);
  r.redistribute();
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, region, checked)) == 0);
  CHECK(sum(comm, checked) == 110 * 150);
  CHECK(sum(comm, source_errors(a)) == 0);
  const index_t used = r.plan().stats.buffer_elements * static_cast<index_t>(sizeof(T));
  const index_t worst = boost::mpi::all_reduce(comm, used, boost::mpi::maximum<index_t>());
  CHECK(worst <= budget);
  // What the executor holds (its part of the node window included) stays within it too.
  CHECK(r.buffer_bytes() <= budget);
  // Every rank the same boundaries; with several ranks, one inside a source tile column.
  const std::vector<index_t>& columns = r.plan().batch_columns;
  std::vector<index_t> first = columns;
  boost::mpi::broadcast(comm, first, 0);
  CHECK(columns == first);
  bool inside = false;
  for (const index_t c : columns)
    inside |= c < region.extent.cols &&
              src_cols.begin(src_cols.tile_of(region.src_origin.j + c)) != region.src_origin.j + c;
  if (np > 1) {
    CHECK(r.plan().batches > 1);
    CHECK(inside);
  } else {
    CHECK(worst == 0);  // everything is local
  }
}

/// Three parts in one exchange under one budget: the parts' batches are merged by index,
/// so together they must fit; every element of every part checked.
/// Returns whether the parts planned alone, merged, would have exceeded the budget.
bool check_parts_budget(const boost::mpi::communicator& comm, index_t budget) {
  const int np = comm.size();
  const IrregularAxis src_cols({0, 3, 52, 53, 60, 114, 118, 150});
  const Layout src{Tiling{UniformAxis<>(120, 8), src_cols}, BlockCyclic(1, np)};
  const Layout dst{uniform(110, 150, 10, 9), BlockCyclic(np, 1)};
  using A = TiledMatrix<double, decltype(src), PackedTiles<>>;
  using B = TiledMatrix<double, decltype(dst), PackedTiles<>>;
  std::vector<A> a;
  std::vector<B> b;
  for (int k = 0; k < 3; ++k) {
    a.emplace_back(src, PackedTiles<>{}, comm.rank());
    b.emplace_back(dst, PackedTiles<>{}, comm.rank());
  }
  const std::vector<Region> regions{Region{{100, 140}, {3, 2}, {5, 7}},
                                    Region{{60, 150}, {0, 0}, {50, 0}},
                                    Region{{100, 30}, {20, 100}, {10, 110}}};
  std::vector<Part<A, B>> parts;
  for (int k = 0; k < 3; ++k) {
    fill_source(a[static_cast<std::size_t>(k)]);
    fill_sentinel(b[static_cast<std::size_t>(k)]);
    parts.push_back({&a[static_cast<std::size_t>(k)], &b[static_cast<std::size_t>(k)],
                     regions[static_cast<std::size_t>(k)]});
  }
  PlanOptions o;
  o.max_buffer_bytes = budget;
  o.element_bytes = sizeof(double);
  // Each part planned alone under the whole budget, merged by index: over it?
  std::vector<Plan> alone;
  for (const Region& region : regions)
    alone.push_back(make_plan(src, dst, region, comm.rank(), np, o));
  const index_t naive = merge_parts(std::move(alone)).stats.buffer_elements * 8;
  const bool binds = boost::mpi::all_reduce(comm, naive, boost::mpi::maximum<index_t>()) > budget;
  Redistributor<A, B> r(parts, comm, Transform<double>{}, o);
  r.redistribute();
  for (int k = 0; k < 3; ++k) {
    const Region& region = regions[static_cast<std::size_t>(k)];
    index_t checked = 0;
    CHECK(sum(comm, target_errors(b[static_cast<std::size_t>(k)], region, checked)) == 0);
    CHECK(sum(comm, checked) == 110 * 150);
    CHECK(sum(comm, source_errors(a[static_cast<std::size_t>(k)])) == 0);
  }
  const index_t used = r.plan().stats.buffer_elements * static_cast<index_t>(sizeof(double));
  CHECK(boost::mpi::all_reduce(comm, used, boost::mpi::maximum<index_t>()) <= budget);
  CHECK(r.buffer_bytes() <= budget);
  return binds;
}

TEST_CASE("mpi: max_buffer_bytes caps several parts moved together") {
  const boost::mpi::communicator comm;
  SUBCASE("a budget the parts fit only when each gets a share") {
    const bool binds = check_parts_budget(comm, 40 * 1024);
    if (comm.size() > 1) CHECK(binds);  // the merged plans alone would exceed it
  }
  SUBCASE("a generous budget: one batch") { CHECK(!check_parts_budget(comm, index_t{1} << 30)); }
}

TEST_CASE("mpi: max_buffer_bytes caps every rank's buffers, cutting inside source columns") {
  const boost::mpi::communicator comm;
  // A column carries at most 100 elements on a rank; 12 columns' worth forces cuts inside
  // the 49- and 54-column source tiles.
  SUBCASE("double") { check_budget_run<double>(comm, 12 * 100 * 8); }
  SUBCASE("float, a budget that is no multiple of the column") {
    check_budget_run<float>(comm, 12 * 100 * 4 + 3);
  }
}

/// Moves `region` of a 40 x 30 matrix (4 x 3 -> 5 x 5 tiles, 1 x np -> np x 1 grids)
/// under `o`, every element checked; returns the plan's batches.
index_t move_small(const boost::mpi::communicator& comm, const Region& region,
                   const PlanOptions& o) {
  const int np = comm.size();
  const RunReport rep = check_redistribution<double>(
      comm, Layout{uniform(40, 30, 4, 3), BlockCyclic(1, np)}, PackedTiles<>{},
      Layout{uniform(40, 30, 5, 5), BlockCyclic(np, 1)}, PackedTiles<>{}, region, {o});
  CHECK(rep.ok);
  CHECK(rep.checked == 40 * 30);
  return rep.batches;
}

TEST_CASE("mpi: batch_bytes cuts batches below the cap; host matrices aim at 64 MiB") {
  const boost::mpi::communicator comm;
  SUBCASE("a target of 12 columns cuts as that cap would") {
    check_budget_run<double>(comm, 12 * 100 * 8, true);
  }
  SUBCASE("automatic: 64 MiB in host memory where messages lie whole, kept by the plan") {
    const Layout l{uniform(40, 30, 4, 3), BlockCyclic(1, comm.size())};
    TiledMatrix<double, decltype(l), PackedTiles<>> a(l, {}, comm.rank()), b(l, {}, comm.rank());
    // What this leg's environment makes of the options (message_buffering.hpp).
    const int nodes = node_map(comm).nodes;
    const auto expected = [&](ExecutionOptions e) {
      return whole_messages_buffered(e.with_environment(), nodes) ? PlanOptions::host_batch_bytes
                                                                  : index_t{0};
    };
    const Redistributor r(a, b, comm, Region::whole({40, 30}));
    CHECK(r.plan().options.batch_bytes == expected({}));
    ExecutionOptions p2p;
    p2p.transport = TransportPolicy::point_to_point;
    const Redistributor whole(a, b, comm, Region::whole({40, 30}), PlanOptions{}, p2p);
    CHECK(whole.plan().options.batch_bytes == expected(p2p));
    ExecutionOptions no_rings;
    no_rings.ring_slots = 0;
    const Redistributor windowed(a, b, comm, Region::whole({40, 30}), PlanOptions{}, no_rings);
    CHECK(windowed.plan().options.batch_bytes == expected(no_rings));
    CHECK(move_small(comm, Region::whole({40, 30}), {}) == 1);
  }
  SUBCASE("a target below one column is dropped, not refused: the cap's one batch") {
    PlanOptions o;
    o.batch_bytes = 8;
    CHECK(move_small(comm, Region{{30, 20}, {5, 4}, {6, 7}}, o) == 1);
  }
}
}  // namespace
