// Several matrices in one exchange (plan/plan_parts.hpp) at 1-4 ranks: K parts with their
// own layouts and regions, every element of every target checked (outside its region:
// untouched); K parts of equal layouts send as many messages as one part does, K times the
// bytes; parts may transpose and mask; rebind and bad parts are handled on every rank, the
// error naming the pair a pairwise check names; thousands of parts of one layout are planned
// once and merged in work linear in the parts (issue 24, point 5).
#include <cstddef>
#include <string>
#include <vector>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
using L = Layout<Shape, BlockCyclic>;
using M = TiledMatrix<double, L, TilePerAllocation<>>;

/// Source k holds value_at + 10000 k, so a part that read another part's source fails.
void fill_part(M& a, int k) {
  a.for_each_element([&](ElementIndex e, double& v) { v = value_at<double>(e) + 10000.0 * k; });
}

index_t part_errors(const M& b, const Region& r, int k, const Transform<double>& t) {
  index_t bad = 0;
  const Extents ext = target_extent(r, t.op);
  b.for_each_element([&](ElementIndex e, double& v) {
    const index_t x = e.i - r.dst_origin.i, y = e.j - r.dst_origin.j;
    const bool inside =
        x >= 0 && y >= 0 && x < ext.rows && y < ext.cols && t.triangle.keeps(x, y, ext);
    double want = -1.0;
    if (inside) {
      const ElementIndex s = t.op == Op::none
                                 ? ElementIndex{r.src_origin.i + x, r.src_origin.j + y}
                                 : ElementIndex{r.src_origin.i + y, r.src_origin.j + x};
      want = t.alpha * (value_at<double>(s) + 10000.0 * k);
    }
    bad += !(v == want);
  });
  return bad;
}

/// 4 x 4 matrices of 2 x 2 tiles on 1 x np ranks, or np x 1 (`by_rows`).
L small_layout(int np, bool by_rows) {
  return L{uniform(4, 4, 2, 2), by_rows ? BlockCyclic(np, 1) : BlockCyclic(1, np)};
}

/// K parts, each its own source and target, the whole matrix moved.
struct ManyParts {
  std::vector<M> a, b;
  std::vector<Part<M, M>> parts;
};
ManyParts many_parts(const boost::mpi::communicator& comm, std::size_t K, const L& src,
                     const L& dst) {
  ManyParts m;
  m.a.reserve(K);  // parts point into both: no reallocation
  m.b.reserve(K);
  for (std::size_t k = 0; k < K; ++k) {
    m.a.emplace_back(src, TilePerAllocation<>{}, comm.rank());
    m.b.emplace_back(dst, TilePerAllocation<>{}, comm.rank());
    m.parts.push_back(Part{&m.a[k], &m.b[k], Region::whole({4, 4})});
  }
  return m;
}

}  // namespace

TEST_CASE("mpi: several matrices of different layouts move in one exchange") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const std::vector<L> src_layouts{L{uniform(40, 30, 4, 3), BlockCyclic(P, Q)},
                                   L{uniform(25, 50, 7, 2), BlockCyclic(1, np)},
                                   L{uniform(33, 33, 5, 5), BlockCyclic(np, 1, 1, 1, {np - 1, 0})}};
  const std::vector<L> dst_layouts{L{uniform(45, 45, 6, 6), BlockCyclic(Q, P)},
                                   L{uniform(50, 50, 3, 8), BlockCyclic(np, 1)},
                                   L{uniform(40, 40, 9, 4), BlockCyclic(P, Q, 2, 1)}};
  // Each region fits its target as it is and transposed (C x R).
  const std::vector<Region> regions{Region{{30, 20}, {5, 4}, {10, 9}},
                                    Region{{25, 40}, {0, 7}, {5, 1}},
                                    Region{{30, 28}, {2, 5}, {6, 8}}};
  for (const Transform<double> t :
       {Transform<double>{}, Transform<double>{Op::none, 2.0, 0.0, Triangle{Uplo::lower}},
        Transform<double>{Op::transpose, 1.0, 0.0}}) {
    CAPTURE(static_cast<int>(t.op));
    std::vector<M> a, b;
    for (std::size_t k = 0; k < 3; ++k) {
      a.emplace_back(src_layouts[k], TilePerAllocation<>{}, comm.rank());
      b.emplace_back(dst_layouts[k], TilePerAllocation<>{}, comm.rank());
      fill_part(a.back(), static_cast<int>(k));
      fill_sentinel(b.back());
    }
    std::vector<Part<M, M>> parts;
    for (std::size_t k = 0; k < 3; ++k) parts.push_back(Part{&a[k], &b[k], regions[k]});
    Redistributor r(parts, comm, t);
    r.start();
    r.wait();
    for (std::size_t k = 0; k < 3; ++k) {
      CAPTURE(k);
      CHECK(sum(comm, part_errors(b[k], regions[k], static_cast<int>(k), t)) == 0);
    }
    // One message per peer per batch for all parts: no more than the parts' union of peers.
    CHECK(r.plan().stats.messages_sent <= static_cast<index_t>(np - 1) * r.plan().batches);
  }
}

TEST_CASE("mpi: K parts of equal layouts send the messages of one, K times the bytes") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const L src{uniform(60, 48, 6, 4), BlockCyclic(1, np)};
  const L dst{uniform(60, 48, 5, 7), BlockCyclic(np, 1)};
  const Region region{{50, 40}, {3, 2}, {8, 5}};
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    std::vector<M> a, b;
    for (int k = 0; k < 3; ++k) {
      a.emplace_back(src, TilePerAllocation<>{}, comm.rank());
      b.emplace_back(dst, TilePerAllocation<>{}, comm.rank());
      fill_part(a.back(), k);
      fill_sentinel(b.back());
    }
    std::vector<Part<M, M>> parts;
    for (int k = 0; k < 3; ++k) parts.push_back(Part{&a[k], &b[k], region});
    PlanOptions o;
    o.batch = 3;
    Redistributor three(parts, comm, Transform<double>{}, o);
    Redistributor one(a[0], b[0], comm, region, o);
    three.redistribute();
    for (int k = 0; k < 3; ++k) CHECK(sum(comm, part_errors(b[k], region, k, {})) == 0);
    CHECK(three.plan().stats.messages_sent == one.plan().stats.messages_sent);
    CHECK(three.plan().stats.elements_sent == 3 * one.plan().stats.elements_sent);
    CHECK(three.plan().stats.elements_local == 3 * one.plan().stats.elements_local);
    // rebind the three parts to new arrays, in another order.
    std::vector<M> c;
    for (int k = 0; k < 3; ++k) {
      c.emplace_back(dst, TilePerAllocation<>{}, comm.rank());
      fill_sentinel(c.back());
    }
    std::vector<Part<M, M>> again;
    for (int k = 0; k < 3; ++k) again.push_back(Part{&a[2 - k], &c[k], region});
    three.rebind(again);
    three.redistribute();
    for (int k = 0; k < 3; ++k) CHECK(sum(comm, part_errors(c[k], region, 2 - k, {})) == 0);
  }
}

TEST_CASE("mpi: bad parts are refused on every rank") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const L src{uniform(20, 20, 4, 4), BlockCyclic(1, np)};
  M a(src, {}, comm.rank()), b(src, {}, comm.rank());
  const Region region{{20, 20}, {0, 0}, {0, 0}};
  // Two parts writing the same target.
  std::vector<Part<M, M>> twice{Part{&a, &b, region}, Part{&a, &b, region}};
  CHECK_THROWS_AS(Redistributor(twice, comm), storage_error);
  // A part whose target is another part's source.
  M c(src, {}, comm.rank());
  std::vector<Part<M, M>> chained{Part{&a, &b, region}, Part{&b, &c, region}};
  CHECK_THROWS_AS(Redistributor(chained, comm), storage_error);
  CHECK_THROWS_AS(Redistributor(std::vector<Part<M, M>>{}, comm), invalid_argument);
  // A region of one part that does not fit: the error names it, on every rank.
  std::vector<Part<M, M>> big{Part{&a, &b, region}, Part{&a, &c, Region{{21, 20}, {0, 0}, {0, 0}}}};
  CHECK_THROWS_AS(Redistributor(big, comm), region_error);
  // The messages name the pair, as comparing every pair of parts in order would.
  CHECK_THROWS_WITH_AS(Redistributor(twice, comm),
                       "redist: the targets of two parts overlap in memory: part = 0 and part 1",
                       storage_error);
  CHECK_THROWS_WITH_AS(
      Redistributor(chained, comm),
      "redist: a part's target overlaps another part's source in memory: part = 0 and part 1",
      storage_error);
}

TEST_CASE("mpi: among 2000 parts, the overlapping pair is found and named") {
  const boost::mpi::communicator comm;
  ManyParts m =
      many_parts(comm, 2000, small_layout(comm.size(), false), small_layout(comm.size(), false));
  std::vector<Part<M, M>>& parts = m.parts;
  // Sources may be shared (every part reads a[0] but its own), targets must not be.
  for (std::size_t k = 1; k < 2000; k += 2) parts[k].src = &m.a[0];
  Redistributor ok(parts, comm);
  // Part 1500 writes what part 700 reads: named by the lowest offending target's part.
  parts[1500].dst = &m.a[700];
  CHECK_THROWS_WITH_AS(
      Redistributor(parts, comm),
      "redist: a part's target overlaps another part's source in memory: part = 1500 and "
      "part 700",
      storage_error);
  // And part 900 writes part 1200's target too: now part 900 is the lowest.
  parts[900].dst = &m.b[1200];
  CHECK_THROWS_WITH_AS(
      Redistributor(parts, comm),
      "redist: the targets of two parts overlap in memory: part = 900 and part 1200",
      storage_error);
}

TEST_CASE("mpi: 3000 parts of one layout plan once, merge in linear work, move every element") {
  const boost::mpi::communicator comm;
  const std::size_t K = 3000;
  ManyParts m =
      many_parts(comm, K, small_layout(comm.size(), false), small_layout(comm.size(), true));
  // Every part's source its own values, every target the sentinel; all checked after a run.
  const auto run_and_check = [&](Redistributor<M, M>& r) {
    for (std::size_t k = 0; k < K; ++k) {
      fill_part(m.a[k], static_cast<int>(k % 100));
      fill_sentinel(m.b[k]);
    }
    r.redistribute();
    index_t bad = 0;
    for (std::size_t k = 0; k < K; ++k)
      bad += part_errors(m.b[k], m.parts[k].region, static_cast<int>(k % 100), {});
    CHECK(sum(comm, bad) == 0);
  };
  Redistributor many(m.parts, comm);
  run_and_check(many);
  Redistributor one(m.a[0], m.b[1], comm, m.parts[0].region);
  const Plan& p = many.plan();
  // Planned once: the parts share one plan's groups, and hold K times its families.
  CHECK(p.row_groups.size() == one.plan().row_groups.size());
  CHECK(p.col_groups.size() == one.plan().col_groups.size());
  CHECK(p.send.families.size() == K * one.plan().send.families.size());
  CHECK(p.stats.elements_sent == static_cast<index_t>(K) * one.plan().stats.elements_sent);
  // Linear merge (plan/plan_parts.hpp's accounting): a step per part, two counting sorts
  // and a sizing pass per direction, a step per message and per family. One merged message
  // per peer: a scan of every part per merged message would be as cheap here, the unit
  // test has the case where not.
  index_t messages = 0, families = 0;
  for (const FamilyList* d : {&one.plan().send, &one.plan().recv, &one.plan().local}) {
    messages += static_cast<index_t>(d->messages.size());
    families += static_cast<index_t>(d->families.size());
  }
  const index_t k = static_cast<index_t>(K), np = comm.size();
  CHECK(p.merge_steps <= k + 6 * k * messages + k * families + 3 * (np + p.batches));
  CHECK(p.merge_steps >= k);
  // Two plans, the parts alternating between them: each found again by its hash, not as
  // the part before's.
  const Region corner{{2, 3}, {1, 1}, {2, 0}};
  for (std::size_t j = 1; j < K; j += 2) m.parts[j].region = corner;
  Redistributor mixed(m.parts, comm);
  run_and_check(mixed);
  Redistributor other(m.a[0], m.b[1], comm, corner);
  CHECK(mixed.plan().row_groups.size() ==
        one.plan().row_groups.size() + other.plan().row_groups.size());
  CHECK(mixed.plan().col_groups.size() ==
        one.plan().col_groups.size() + other.plan().col_groups.size());
}
