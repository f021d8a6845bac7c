// rebind(): one plan, other arrays of the same layouts, at 1-4 ranks. Every target element
// is checked after each move (inside the region: the source value; outside: untouched), for
// tile storage and ScaLAPACK storage of another leading dimension, with the node window on
// and off; layouts that differ from the plan's are refused on every rank, and the plan
// still works after the refusal. The set-up times split the construction into planning and
// wiring (with its buffers inside it); a rebind reports a wiring and no planning.
#include <string>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Adds `shift` to every source element (so each rebind moves different values).
template <class M>
void fill_shifted(M& a, double shift) {
  a.for_each_element([&](ElementIndex e, double& v) { v = value_at<double>(e) + shift; });
}

template <class M>
index_t shifted_errors(const M& b, const Region& r, double shift) {
  index_t bad = 0;
  b.for_each_element([&](ElementIndex e, double& v) {
    const double want = in_target(r, e) ? value_at<double>(source_of(r, e)) + shift : -1.0;
    bad += !(v == want);
  });
  return bad;
}

}  // namespace

TEST_CASE("mpi: rebind moves other arrays of the same layouts with the same plan") {
  const boost::mpi::communicator comm;
  const auto [P, Q] = near_square_grid(comm.size());
  const Layout src{uniform(57, 43, 5, 4), BlockCyclic(P, Q, 1, 1, GridCoord{0, Q - 1})};
  const Layout dst{uniform(50, 61, 3, 7), BlockCyclic(Q, P)};
  const Region region{{33, 29}, {6, 9}, {11, 20}};
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    using A = TiledMatrix<double, decltype(src), TilePerAllocation<>>;
    using B = TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>>;
    A a0(src, {}, comm.rank());
    B b0(dst, {}, comm.rank());
    fill_shifted(a0, 0);
    fill_sentinel(b0);
    Redistributor r(a0, b0, comm, region);
    r.redistribute();
    CHECK(sum(comm, shifted_errors(b0, region, 0)) == 0);
    const index_t segments = r.plan().stats.segments_received + r.plan().stats.segments_local;
    for (int k = 1; k <= 3; ++k) {
      CAPTURE(k);
      // Another leading dimension each time: the storage may differ, the layouts not.
      const index_t lld = 50 + 3 * k;  // >= the 50 global rows
      A a(src, {}, comm.rank());
      B b(dst, ScalapackColumnMajor<>{lld}, comm.rank());
      fill_shifted(a, 1000.0 * k);
      fill_sentinel(b);
      fill_sentinel(b0);
      r.rebind(a, b);
      if (k % 2) {
        r.start();
        r.wait();
      } else {
        r.redistribute();
      }
      CHECK(sum(comm, shifted_errors(b, region, 1000.0 * k)) == 0);
      CHECK(sum(comm, shifted_errors(b0, Region{{0, 0}, {0, 0}, {0, 0}}, 0)) == 0);
      CHECK(sum(comm, source_errors(a0)) == 0);
      // The plan is the one made at construction.
      CHECK(r.plan().stats.segments_received + r.plan().stats.segments_local == segments);
    }
  }
}

TEST_CASE("mpi: rebind refuses other layouts on every rank and keeps the plan") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(40, 40, 4, 4), BlockCyclic(1, np)};
  const Layout dst{uniform(40, 40, 5, 5), BlockCyclic(np, 1)};
  const Region region{{40, 40}, {0, 0}, {0, 0}};
  using A = TiledMatrix<double, decltype(src), TilePerAllocation<>>;
  using B = TiledMatrix<double, decltype(dst), TilePerAllocation<>>;
  A a(src, {}, comm.rank());
  B b(dst, {}, comm.rank());
  fill_source(a);
  Redistributor r(a, b, comm, region);
  // The last rank only passes a target of another tiling: every rank throws.
  const Layout other_tiles{uniform(40, 40, comm.rank() == np - 1 ? 8 : 5, 5), BlockCyclic(np, 1)};
  B b2(other_tiles, {}, comm.rank());
  CHECK_THROWS_AS(r.rebind(a, b2), invalid_argument);
  // Another distribution of the source, on every rank.
  const Layout other_owner{uniform(40, 40, 4, 4), BlockCyclic(np, 1)};
  A a2(other_owner, {}, comm.rank());
  fill_source(a2);
  if (np > 1) {
    try {
      r.rebind(a2, b);
      FAIL("rebind accepted another source distribution");
    } catch (const invalid_argument& e) {
      CHECK(std::string(e.what()).find("the source distribution") != std::string::npos);
    }
  }
  // Refused rebinds left the plan bound to a and b.
  fill_sentinel(b);
  r.redistribute();
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, region, checked)) == 0);
}

TEST_CASE("mpi: set-up times: planning, then wiring with its buffers; a rebind only wires") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(200, 160, 8, 8), BlockCyclic(1, np)};
  const Layout dst{uniform(200, 160, 10, 10), BlockCyclic(np, 1)};
  const Region region{{150, 120}, {30, 20}, {10, 40}};
  using A = TiledMatrix<double, decltype(src), ScalapackColumnMajor<>>;
  using B = TiledMatrix<double, decltype(dst), TilePerAllocation<>>;
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    A a(src, {}, comm.rank());
    B b(dst, {}, comm.rank());
    fill_shifted(a, 0);
    fill_sentinel(b);
    const redist::detail::Stopwatch construction;
    Redistributor r(a, b, comm, region);
    const double constructed = construction.seconds();
    const SetUpTimes made = r.set_up_times();
    CHECK(made.plan > 0);
    CHECK(made.buffers > 0);  // timed even when empty: the window is made collectively
    CHECK(made.buffers <= made.wiring);
    CHECK(made.plan + made.wiring <= constructed);  // parts of it, none counted twice
    r.redistribute();
    CHECK(sum(comm, shifted_errors(b, region, 0)) == 0);

    A a2(src, {}, comm.rank());
    B b2(dst, {}, comm.rank());
    fill_shifted(a2, 500);
    fill_sentinel(b2);
    const redist::detail::Stopwatch rebinding;
    r.rebind(a2, b2);
    const double rebound = rebinding.seconds();
    const SetUpTimes wired = r.set_up_times();
    CHECK(wired.plan == 0);  // the plan is kept
    CHECK(wired.buffers > 0);
    CHECK(wired.buffers <= wired.wiring);
    CHECK(wired.wiring <= rebound);
    r.redistribute();
    CHECK(sum(comm, shifted_errors(b2, region, 500)) == 0);
  }
}
