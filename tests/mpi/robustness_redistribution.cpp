// No hang, nothing lost (issue "Robustness", items 2 and 3). Every test fills the source
// with a function of the global index and the whole target storage (padding included)
// with a sentinel, redistributes, then checks on every rank that
//   - every target element inside the region holds the value of its source element,
//   - every other target storage entry (outside the region, ScaLAPACK padding) still
//     holds the sentinel,
//   - the source storage is bit for bit what it was,
//   - the region's elements were all delivered (sum over ranks).
// The matrices are small: a hang is caught by the ctest timeout, not by waiting long. The
// blocks that check through check_redistribution (mpi_test_support.hpp: every element, not
// the padding) came from test_redistribute_cases.cpp, where they repeated these cases.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using redist::test::check_redistribution;
using redist::test::near_square_grid;
using redist::test::RunOptions;
using redist::test::RunReport;
using redist::test::ScopedEnv;
using redist::test::window_settings;

constexpr double sentinel = -7.5;

double value_at(ElementIndex e, double generation = 0) {
  return static_cast<double>(e.i) * 4096.0 + static_cast<double>(e.j) + 0.25 + generation * 1e9;
}

bool all_ranks(const boost::mpi::communicator& comm, bool ok) {
  return boost::mpi::all_reduce(comm, ok, std::logical_and<bool>());
}
index_t sum(const boost::mpi::communicator& comm, index_t v) {
  return boost::mpi::all_reduce(comm, v, std::plus<index_t>());
}

/// P x Q with P * Q == n, P <= Q, as square as possible.
using test::uniform;

/// Host copy of every allocation of a matrix.
template <class M>
std::vector<std::vector<typename M::value_type>> snapshot(const M& m) {
  std::vector<std::vector<typename M::value_type>> out;
  for (const auto& a : m.allocations()) {
    out.emplace_back(a.extent(0));
    if (a.extent(0) > 0)
      std::memcpy(out.back().data(), a.data(), a.extent(0) * sizeof(typename M::value_type));
  }
  return out;
}

/// Outcome of one checked redistribution on this rank.
struct Outcome {
  index_t wrong_target = 0;     ///< region elements with the wrong value
  index_t touched_outside = 0;  ///< storage entries outside the region not holding the sentinel
  bool source_intact = true;
  index_t delivered = 0;  ///< region elements this rank holds
};

/// Fills A with value_at(e, generation), B's whole storage with the sentinel.
template <class SrcM, class DstM>
void fill(SrcM& A, DstM& B, double generation = 0) {
  for (const auto& a : A.allocations()) Kokkos::deep_copy(a, -1.0);  // padding, never read
  A.for_each_element([&](ElementIndex e, double& v) { v = value_at(e, generation); });
  for (const auto& b : B.allocations()) Kokkos::deep_copy(b, sentinel);
}

template <class SrcM, class DstM>
Outcome check(const SrcM& A, const DstM& B, const Region& r,
              const std::vector<std::vector<double>>& before, double generation = 0) {
  Outcome o;
  o.source_intact = snapshot(A) == before;
  B.for_each_element([&](ElementIndex e, double& v) {
    const bool in = e.i >= r.dst_origin.i && e.i < r.dst_origin.i + r.extent.rows &&
                    e.j >= r.dst_origin.j && e.j < r.dst_origin.j + r.extent.cols;
    if (!in) return;
    ++o.delivered;
    const ElementIndex s{e.i - r.dst_origin.i + r.src_origin.i,
                         e.j - r.dst_origin.j + r.src_origin.j};
    if (v != value_at(s, generation)) ++o.wrong_target;
  });
  // Everything in B's storage that is not a delivered element must still be the sentinel
  // (elements outside the region, and padding between ScaLAPACK columns).
  index_t changed = 0;
  for (const auto& b : B.allocations())
    for (std::size_t k = 0; k < b.extent(0); ++k) changed += b(k) != sentinel;
  // A delivered value is never the sentinel (value_at is never negative).
  o.touched_outside = changed - o.delivered;
  return o;
}

/// Moves `r` from A to B `repeats` times, then checks every element on every rank.
template <class SrcM, class DstM>
void move_and_check(SrcM& A, DstM& B, const Region& r, PlanOptions options = {}, int repeats = 1,
                    ExecutionOptions execution = {}) {
  boost::mpi::communicator world;
  fill(A, B);
  const auto before = snapshot(A);
  Redistributor R(A, B, world, r, options, execution);
  for (int k = 0; k < repeats; ++k) R.redistribute();
  const Outcome o = check(A, B, r, before);
  CAPTURE(world.rank());
  CHECK(o.wrong_target == 0);
  CHECK(o.touched_outside == 0);
  CHECK(o.source_intact);
  CHECK(all_ranks(world, o.wrong_target == 0 && o.touched_outside == 0 && o.source_intact));
  CHECK(sum(world, o.delivered) == r.extent.size());
}

template <class T, class L, class P = PackedTiles<>>
TiledMatrix<T, L, P> matrix(const L& layout, P placement = {}) {
  return TiledMatrix<T, L, P>(layout, placement, boost::mpi::communicator{}.rank());
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("robustness: gather to one rank and scatter from one rank") {
    boost::mpi::communicator world;
    const auto [P, Q] = test::near_square_grid(world.size());
    const Layout one{uniform(37, 41, 5, 6), BlockCyclic(1, 1)};
    const Layout all{uniform(37, 41, 4, 7), BlockCyclic(P, Q)};
    const std::vector<Region> regions{Region::whole({37, 41}), Region{{20, 33}, {17, 3}, {9, 8}}};
    SUBCASE("gather, PackedTiles -> PackedTiles") {
      for (const Region& r : regions) {
        auto A = matrix<double>(all);
        auto B = matrix<double>(one);
        move_and_check(A, B, r);
      }
    }
    SUBCASE("scatter, PackedTiles -> ScaLAPACK with padding") {
      for (const Region& r : regions) {
        auto A = matrix<double>(one);
        auto B = matrix<double>(all, ScalapackColumnMajor<>{40});  // lld 40 > any local rows
        move_and_check(A, B, r);
      }
    }
    SUBCASE("scatter, one tile per allocation, super-tiles") {
      const Layout super{uniform(37, 41, 3, 2), BlockCyclic(Q, P, 2, 3, GridCoord{Q - 1, 0})};
      for (const Region& r : regions) {
        auto A = matrix<double>(one, TilePerAllocation<>{});
        auto B = matrix<double>(super, TilePerAllocation<>{});
        move_and_check(A, B, r);
      }
    }
  }

  TEST_CASE("robustness: ranks that own no tile on either side") {
    boost::mpi::communicator world;
    const int n = world.size(), last = n - 1;
    const auto shp_s = uniform(30, 26, 4, 5);
    const auto shp_d = uniform(30, 26, 7, 3);
    // Source on ranks {0, last}, target on {last, 0}: ranks 1 .. n-2 own nothing at all.
    const auto table = [&](Extents tiles, bool flip) {
      std::vector<int> owners;
      for (index_t k = 0; k < tiles.size(); ++k) owners.push_back((k % 2 == 0) != flip ? 0 : last);
      return OwnerTable(tiles, owners, n);
    };
    const Layout src{shp_s, table(tile_counts(shp_s), false)};
    const Layout dst{shp_d, table(tile_counts(shp_d), true)};
    auto A = matrix<double>(src);
    auto B = matrix<double>(dst);
    const Region r{{25, 20}, {3, 4}, {2, 1}};
    move_and_check(A, B, r);
    Redistributor R(A, B, world, r);
    if (world.rank() != 0 && world.rank() != last) {
      CHECK(A.storage().tiles().empty());
      CHECK(B.storage().tiles().empty());
      CHECK(R.plan().stats.elements_sent + R.plan().stats.elements_received +
                R.plan().stats.elements_local ==
            0);
    }
    // Fewer ranks in the distributions than in the communicator: the last ranks own nothing.
    const int used = n > 1 ? n - 1 : 1;
    const Layout narrow_s{shp_s, BlockCyclic(1, used)};
    const Layout narrow_d{shp_d, BlockCyclic(used, 1, 1, 1, GridCoord{used - 1, 0})};
    auto C = matrix<double>(narrow_s);
    auto D = matrix<double>(narrow_d, ScalapackColumnMajor<>{});
    move_and_check(C, D, Region::whole({30, 26}));
    {
      INFO("1-D grids: a source on rank 0 alone (scatter), a target on fewer ranks (gather)");
      const boost::mpi::communicator comm;
      const int np = comm.size();
      const auto s = uniform(45, 38, 6, 5), d = uniform(41, 44, 7, 4);
      const Region region{{33, 30}, {4, 8}, {8, 2}};
      const RunReport rep =
          check_redistribution<double>(comm, Layout{s, BlockCyclic(1, 1)}, PackedTiles<>{},
                                       Layout{d, BlockCyclic(1, np)}, PackedTiles<>{}, region);
      CHECK(rep.ok);
      if (np > 1) CHECK(rep.elements_sent > 0);
      const int target_ranks = np > 1 ? np - 1 : 1;
      CHECK(check_redistribution<double>(comm, Layout{s, BlockCyclic(np, 1)}, PackedTiles<>{},
                                         Layout{d, BlockCyclic(1, target_ranks)},
                                         TilePerAllocation<>{}, region)
                .ok);
    }
  }

  TEST_CASE("robustness: an empty region is a no-op on every rank") {
    boost::mpi::communicator world;
    const auto [P, Q] = test::near_square_grid(world.size());
    const Layout src{uniform(20, 24, 3, 5), BlockCyclic(P, Q)};
    const Layout dst{uniform(22, 18, 4, 4), BlockCyclic(Q, P)};
    auto A = matrix<double>(src);
    auto B = matrix<double>(dst);
    // clang-format off
    for (const Region& r : {Region{{0, 10}, {3, 3}, {4, 4}},   // no rows
                            Region{{10, 0}, {3, 3}, {4, 4}},   // no columns
                            Region{{0, 0}, {0, 0}, {0, 0}},
                            Region{{0, 5}, {20, 0}, {22, 0}},  // at the very end of both
                            Region{{5, 0}, {0, 24}, {0, 18}}}) {
      // clang-format on
      fill(A, B);
      const auto before = snapshot(A);
      Redistributor R(A, B, world, r);
      const PlanStats& s = R.plan().stats;
      CHECK(s.elements_sent + s.elements_received + s.elements_local == 0);
      CHECK(s.messages_sent + s.messages_received == 0);
      R.redistribute();
      R.redistribute();
      const Outcome o = check(A, B, r, before);
      CHECK(all_ranks(world, o.delivered == 0 && o.touched_outside == 0 && o.source_intact));
    }
    {
      INFO("with another layout: nothing moves, the target untouched");
      const boost::mpi::communicator comm;
      const int np = comm.size();
      const Layout random_src{uniform(20, 20, 3, 4), RandomDistribution(np, 5)};
      const Layout rows_dst{uniform(15, 25, 4, 6), BlockCyclic(np, 1)};
      const RunReport rep =
          check_redistribution<double>(comm, random_src, PackedTiles<>{}, rows_dst, PackedTiles<>{},
                                       Region{{0, 5}, {2, 2}, {1, 1}});
      CHECK(rep.ok);
      CHECK(rep.messages == 0);
      CHECK(rep.elements_local == 0);
      CHECK(rep.checked == 15 * 25);
    }
  }

  TEST_CASE("robustness: one plan executed 100 times") {
    boost::mpi::communicator world;
    const auto [P, Q] = test::near_square_grid(world.size());
    const Layout src{Tiling{IrregularAxis({0, 2, 7, 8, 15, 19}), UniformAxis<>(17, 4)},
                     BlockCyclic(P, Q)};
    const Layout dst{uniform(21, 16, 3, 5), RandomDistribution(world.size(), 11)};
    auto A = matrix<double>(src);
    auto B = matrix<double>(dst, TilePerAllocation<>{});
    const Region r{{16, 13}, {3, 2}, {4, 1}};
    PlanOptions o;
    o.batch = 1;  // several batches, so buffers are reused inside a run too
    ExecutionOptions x;
    x.max_message_bytes = 40;  // and messages are split
    fill(A, B);
    Redistributor R(A, B, world, r, o, x);
    std::vector<std::vector<double>> before;
    for (int k = 0; k < 100; ++k) {
      // A new generation of source values each time: a stale or skipped element shows.
      A.for_each_element([&](ElementIndex e, double& v) { v = value_at(e, k); });
      before = snapshot(A);
      if (k % 2 == 0) {
        R.redistribute();
      } else {
        R.start();
        R.wait();
      }
    }
    const Outcome out = check(A, B, r, before, 99);
    CHECK(out.wrong_target == 0);
    CHECK(all_ranks(world, out.wrong_target == 0 && out.touched_outside == 0 && out.source_intact));
    CHECK(sum(world, out.delivered) == r.extent.size());
    {
      INFO("another layout: 3 executions, blocking, then start()/wait()");
      const boost::mpi::communicator comm;
      const int np = comm.size();
      const auto [P, Q] = near_square_grid(np);
      const Layout grid_src{uniform(64, 48, 8, 8), BlockCyclic(P, Q)};
      const Layout grid_dst{uniform(60, 52, 7, 9), BlockCyclic(Q, P, 2, 2)};
      const Region region{{50, 40}, {10, 8}, {3, 12}};
      RunOptions runs;
      runs.repeats = 3;
      CHECK(check_redistribution<double>(comm, grid_src, PackedTiles<>{}, grid_dst, PackedTiles<>{},
                                         region, runs)
                .ok);
      runs.async = true;
      CHECK(check_redistribution<double>(comm, grid_src, PackedTiles<>{}, grid_dst, PackedTiles<>{},
                                         region, runs)
                .ok);
    }
  }

  TEST_CASE("robustness: random owner maps, several seeds") {
    boost::mpi::communicator world;
    const int n = world.size();
    const auto shp_s = Tiling{IrregularAxis({0, 1, 5, 6, 13, 20, 29, 31}), UniformAxis<>(33, 4)};
    const auto shp_d = Tiling{UniformAxis<>(35, 6), IrregularAxis({0, 3, 4, 11, 12, 25, 30})};
    for (std::uint64_t seed : {1u, 2u, 3u, 42u, 2024u}) {
      CAPTURE(seed);
      const auto k = static_cast<index_t>(seed);
      const Layout src{shp_s, RandomDistribution(n, seed)};
      const Layout dst{shp_d, RandomDistribution(n, seed * 7 + 1)};
      auto A = matrix<double>(src, TilePerAllocation<>{});
      auto B = matrix<double>(dst);
      move_and_check(A, B, Region::whole({31, 30}));
      move_and_check(A, B, Region{{17, 19}, {k % 14, 3 + k % 11}, {1 + k % 18, k % 11}});
    }
  }

  /// The source and target of the message-split cases: 23 x 19 doubles on transposed grids.
  auto split_source(const boost::mpi::communicator& world) {
    const auto [P, Q] = test::near_square_grid(world.size());
    return matrix<double>(Layout{uniform(23, 19, 5, 4), BlockCyclic(P, Q)});
  }
  auto split_target(const boost::mpi::communicator& world) {
    const auto [P, Q] = test::near_square_grid(world.size());
    return matrix<double>(
        Layout{uniform(23, 19, 3, 6), BlockCyclic(Q, P, 1, 1, GridCoord{Q - 1, P - 1})},
        ScalapackColumnMajor<>{});
  }

  TEST_CASE("robustness: messages split at 1, 7 and 64 bytes") {
    boost::mpi::communicator world;
    auto A = split_source(world);
    auto B = split_target(world);
    // Between ranks of one node the executor may bypass MPI messages through a shared
    // window; REDIST_SHARED_WINDOW=0 forces real (split) MPI messages. Both must work.
    for (const char* window : window_settings())
      for (index_t limit : {index_t{1}, index_t{7}, index_t{64}, index_t{8 * 23 * 19 + 1}}) {
        const ScopedEnv env("REDIST_SHARED_WINDOW", window);
        CAPTURE(window);
        CAPTURE(limit);
        ExecutionOptions x;
        x.max_message_bytes = limit;
        const Region r{{21, 18}, {2, 1}, {1, 0}};
        move_and_check(A, B, r, {}, 1, x);
        Redistributor R(A, B, world, r, {}, x);
        CHECK(R.execution_options().max_message_bytes == limit);
        // With more than one rank some message is longer than the limit, so the split runs.
        index_t longest = 0;
        for (const Message& m : R.plan().send.messages) longest = std::max(longest, m.elements * 8);
        longest = boost::mpi::all_reduce(world, longest, boost::mpi::maximum<index_t>());
        if (world.size() > 1 && limit < 64) CHECK(longest > limit);
      }
    {
      INFO("messages split at 64 and 24 bytes, batches of one source tile column");
      const boost::mpi::communicator comm;
      const int np = comm.size();
      const Layout src{uniform(40, 45, 6, 5), RandomDistribution(np, 12)};
      const Layout dst{uniform(47, 41, 9, 4), BlockCyclic(1, np)};
      const Region region{{35, 38}, {5, 7}, {12, 3}};
      RunOptions o;
      o.execution.max_message_bytes = 64;
      o.plan.batch = 1;
      o.repeats = 2;
      const RunReport rep = check_redistribution<double>(comm, src, PackedTiles<>{}, dst,
                                                         TilePerAllocation<>{}, region, o);
      CHECK(rep.ok);
      CHECK(rep.batches == 8);  // source tile columns 1..8 of 5 columns each hold columns 7..44
      o.async = true;
      o.execution.max_message_bytes = 24;  // 3 doubles: chunk boundaries inside segments
      CHECK(check_redistribution<int>(comm, src, PackedTiles<>{}, dst, PackedTiles<>{}, region, o)
                .ok);
    }
  }

  TEST_CASE("robustness: REDIST_MAX_MESSAGE_BYTES caps the split limit, on every rank alike") {
    boost::mpi::communicator world;
    auto A = split_source(world);
    auto B = split_target(world);
    const Region r{{21, 18}, {2, 1}, {1, 0}};
    const ScopedEnv window("REDIST_SHARED_WINDOW", "0");  // real, split MPI messages
    {
      const ScopedEnv cap("REDIST_MAX_MESSAGE_BYTES", "5");
      move_and_check(A, B, r);  // split at 5 bytes, inside elements
      ExecutionOptions x;
      CHECK(Redistributor(A, B, world, r, {}, x).execution_options().max_message_bytes == 5);
      x.max_message_bytes = 3;  // a smaller limit in code is kept
      CHECK(Redistributor(A, B, world, r, {}, x).execution_options().max_message_bytes == 3);
    }
    if (world.size() < 2) return;  // nothing to disagree with
    const auto what = [&](const char* mine, const char* others) {
      const ScopedEnv cap("REDIST_MAX_MESSAGE_BYTES", world.rank() == 1 ? mine : others);
      std::string msg;
      try {
        Redistributor R(A, B, world, r);
      } catch (const invalid_argument& e) {
        msg = e.what();
      }
      // Every rank threw, the same message, and the communicator still works.
      CHECK(boost::mpi::all_reduce(world, static_cast<int>(msg.empty()),
                                   boost::mpi::maximum<int>()) == 0);
      return msg;
    };
    const std::string above = what("2147483648", "4096");
    CHECK(above.find("REDIST_MAX_MESSAGE_BYTES = 2147483648") != std::string::npos);
    CHECK(above.find("2147483647") != std::string::npos);
    const std::string differ = what("64", "4096");
    CHECK(differ.find("ExecutionOptions::max_message_bytes") != std::string::npos);
  }
}
