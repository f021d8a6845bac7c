// Collective validation (issue "Robustness", item 1): bad input that only some ranks can
// see still makes every rank throw the same redist::error subtype with the same message,
// while planning, before any message; afterwards the communicator is still usable (no
// rank is left in a collective, nothing is in flight).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "../support/generators.hpp"
#include "mpi_test_support.hpp"

namespace {

using namespace redist;

/// Runs f (collective); returns what() of the E it throws, "" if it throws nothing.
template <class E, class F>
std::string what_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return {};
}

/// Every rank got a non-empty message, the same one, containing every fragment; then the
/// communicator still works (a collective after the error completes).
void check_collective_message(const std::string& msg,
                              std::initializer_list<std::string_view> parts) {
  boost::mpi::communicator world;
  CAPTURE(world.rank());
  CAPTURE(msg);
  CHECK(!msg.empty());
  for (std::string_view p : parts)
    CHECK_MESSAGE(msg.find(p) != std::string::npos, "lacks '", p, "'");
  // Same message everywhere: compare with rank 0's.
  std::string root = msg;
  boost::mpi::broadcast(world, root, 0);
  CHECK(root == msg);
  const int ok = !msg.empty() && root == msg;
  CHECK(boost::mpi::all_reduce(world, ok, boost::mpi::minimum<int>()) == 1);
  world.barrier();
}

using test::fill_source;
using test::target_errors;
using test::uniform;

/// A user distribution whose owner of `bad_tile` is `bad` on rank `liar` only (every
/// other rank, and every other tile, sees a valid owner): a bug only some ranks see.
struct LyingDistribution {
  int ranks_ = 1;
  int me = 0;
  int liar = 0;
  TileIndex bad_tile{0, 0};
  int bad = -1;
  int ranks() const { return ranks_; }
  int owner(TileIndex t) const {
    if (me == liar && t == bad_tile) return bad;
    return static_cast<int>((t.m + 2 * t.n) % ranks_);
  }
};

template <class T, class L, class P = PackedTiles<>>
TiledMatrix<T, L, P> matrix(const L& layout, P placement = {}) {
  return TiledMatrix<T, L, P>(layout, placement, boost::mpi::communicator{}.rank());
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("robustness: grid larger than the communicator fails on every rank") {
    boost::mpi::communicator world;
    const int n = world.size();
    const Layout too_big{uniform(20, 20, 2, 2), BlockCyclic(1, n + 1)};
    const Layout fine{uniform(20, 20, 3, 3), BlockCyclic(n, 1)};
    auto A = matrix<double>(too_big);  // building storage is local and fine
    auto B = matrix<double>(fine);
    const std::string msg = what_of<distribution_error>([&] { Redistributor R(A, B, world); });
    check_collective_message(msg, {"src.ranks() = " + std::to_string(n + 1),
                                   "communicator size = " + std::to_string(n)});
    const std::string msg2 = what_of<distribution_error>([&] { Redistributor R(B, A, world); });
    check_collective_message(msg2, {"dst.ranks() = " + std::to_string(n + 1)});
    {
      INFO("the error type on either side, and for random layouts over more ranks");
      const boost::mpi::communicator comm;
      const int np = comm.size();
      const Layout big{uniform(20, 20, 4, 4), BlockCyclic(np + 1, 1)};
      const Layout fits{uniform(20, 20, 5, 5), BlockCyclic(1, np)};
      TiledMatrix<double, decltype(big), PackedTiles<>> a(big, {}, comm.rank());
      TiledMatrix<double, decltype(fits), PackedTiles<>> b(fits, {}, comm.rank());
      using R1 = Redistributor<decltype(a), decltype(b)>;
      using R2 = Redistributor<decltype(b), decltype(a)>;
      CHECK_THROWS_AS(R1(a, b, comm), distribution_error);
      CHECK_THROWS_AS(R2(b, a, comm), distribution_error);
      // Random layouts drawn over more ranks than exist are refused too.
      const Layout rnd{uniform(20, 20, 4, 4), RandomDistribution(np + 2, 1)};
      TiledMatrix<double, decltype(rnd), PackedTiles<>> c(rnd, {}, comm.rank());
      CHECK_THROWS_AS((Redistributor<decltype(b), decltype(c)>(b, c, comm)), distribution_error);
      REDIST_CHECK_ALL_RANKS(true);  // every rank got here: nobody hangs
    }
  }

  TEST_CASE("robustness: an owner out of range seen by only some ranks fails on every rank") {
    boost::mpi::communicator world;
    const int n = world.size(), me = world.rank(), liar = n - 1;
    const auto shp = uniform(12, 12, 3, 3);  // 4 x 4 tiles
    SUBCASE("target owner out of range on every rank, seen only by the source owner") {
      // Source entirely on rank 0: only rank 0 plans sends, so only rank 0 looks up the
      // target owners of tiles it does not own.
      const Layout src{shp, BlockCyclic(1, 1)};
      const Layout dst{shp, LyingDistribution{n, me, me, TileIndex{2, 1}, n + 3}};
      auto A = matrix<double>(src);
      auto B = matrix<double>(dst);
      const std::string msg = what_of<distribution_error>([&] { Redistributor R(A, B, world); });
      check_collective_message(msg, {"dst.owner(tile(2, 1)) = " + std::to_string(n + 3),
                                     "communicator size = " + std::to_string(n)});
    }
    SUBCASE("source owner out of range on one rank only") {
      // Rank `liar` alone believes source tile (0, 0) belongs to rank -1; it owns target
      // tile column 0, so it is the one that looks the owner up.
      const Layout src{shp, LyingDistribution{n, me, liar, TileIndex{0, 0}, -1}};
      const Layout dst{shp, BlockCyclic(1, n, 1, 1, GridCoord{0, liar})};
      auto A = matrix<double>(src);
      auto B = matrix<double>(dst);
      const std::string msg = what_of<distribution_error>([&] { Redistributor R(A, B, world); });
      check_collective_message(msg, {"src.owner(tile(0, 0)) = -1"});
    }
    SUBCASE("a region avoiding the bad tile is fine") {
      const Layout src{shp, BlockCyclic(1, 1)};
      const Layout dst{shp, LyingDistribution{n, me, liar, TileIndex{2, 1}, n + 3}};
      auto A = matrix<double>(src);
      auto B = matrix<double>(dst);
      const std::string msg = what_of<error>([&] {
        Redistributor R(A, B, world, Region{{3, 12}, {0, 0}, {0, 0}});
      });
      CHECK(boost::mpi::all_reduce(world, static_cast<int>(msg.empty()),
                                   boost::mpi::minimum<int>()) == 1);
    }
  }

  TEST_CASE("robustness: source and target wrapping the same allocation fail on every rank") {
    boost::mpi::communicator world;
    const int n = world.size();
    const Layout l{uniform(16, 16, 4, 4), BlockCyclic(n, 1)};  // every rank owns a tile row
    using M = TiledMatrix<double, decltype(l), PackedTiles<>>;
    M A(l, {}, world.rank());
    SUBCASE("on every rank") {
      M B(l, {}, world.rank(), A.allocations());
      const std::string msg = what_of<storage_error>([&] { Redistributor R(A, B, world); });
      check_collective_message(msg, {"overlap", "src.allocations()[0]", "dst.allocations()[0]"});
    }
    SUBCASE("on rank 0 only, and only partly (a subview of the same allocation)") {
      const auto& a = A.allocations()[0];
      M B = world.rank() == 0
                ? M(l, {}, 0, {Kokkos::subview(a, std::make_pair(std::size_t{0}, a.extent(0)))})
                : M(l, {}, world.rank());
      const std::string msg = what_of<storage_error>([&] { Redistributor R(A, B, world); });
      check_collective_message(msg, {"overlap", "src.allocations()[0]"});
    }
  }

  TEST_CASE("robustness: a region outside the target fails on every rank") {
    boost::mpi::communicator world;
    const int n = world.size();
    const Layout src{uniform(20, 20, 3, 3), BlockCyclic(n, 1)};
    const Layout dst{uniform(10, 20, 4, 4), BlockCyclic(1, n)};
    auto A = matrix<double>(src);
    auto B = matrix<double>(dst);
    const std::string msg = what_of<region_error>([&] { Redistributor R(A, B, world); });
    check_collective_message(msg, {"region.dst_origin.i = 0", "target", "region.rows = 20"});
    const std::string msg2 = what_of<region_error>([&] {
      Redistributor R(A, B, world, Region{{5, 5}, {-1, 0}, {0, 0}});
    });
    check_collective_message(msg2, {"region.src_origin.i = -1"});
    {
      INFO("region_error for a target or source too small, then a good plan still works");
      const boost::mpi::communicator comm;
      const int np = comm.size();
      const Layout source{uniform(20, 20, 4, 4), BlockCyclic(1, np)};
      const Layout short_target{uniform(10, 12, 3, 5), BlockCyclic(np, 1)};
      TiledMatrix<double, decltype(source), PackedTiles<>> a(source, {}, comm.rank());
      TiledMatrix<double, decltype(short_target), PackedTiles<>> b(short_target, {}, comm.rank());
      using R = Redistributor<decltype(a), decltype(b)>;
      CHECK_THROWS_AS(R(a, b, comm, Region{{5, 5}, {0, 0}, {8, 0}}), region_error);
      CHECK_THROWS_AS(R(a, b, comm, Region{{11, 2}, {0, 0}, {0, 0}}), region_error);
      CHECK_THROWS_AS(R(a, b, comm, Region{{2, 2}, {19, 0}, {0, 0}}), region_error);  // source
      CHECK_THROWS_AS(R(a, b, comm), region_error);  // the whole 20x20 source does not fit
      // Still in step: a good plan afterwards works.
      b.for_each_element([](ElementIndex, double& v) { v = -1; });
      fill_source(a);
      const Region ok{{4, 4}, {1, 2}, {3, 4}};
      R r(a, b, comm, ok);
      r.redistribute();
      index_t checked = 0;
      REDIST_CHECK_ALL_RANKS(target_errors(b, ok, checked) == 0);
    }
  }

  TEST_CASE("robustness: a matrix built for another rank fails on every rank") {
    boost::mpi::communicator world;
    const int n = world.size();
    const Layout l{uniform(8, 8, 2, 2), BlockCyclic(n, 1)};
    using M = TiledMatrix<double, decltype(l), PackedTiles<>>;
    const int wrong = world.rank() == 0 ? (n > 1 ? 1 : 5) : world.rank();
    M A(l, {}, wrong);
    M B(l, {}, world.rank());
    const std::string msg = what_of<invalid_argument>([&] { Redistributor R(A, B, world); });
    check_collective_message(msg,
                             {"src.rank() = " + std::to_string(n > 1 ? 1 : 5), "this rank = 0"});
  }

  TEST_CASE("robustness: a bad split limit fails on every rank") {
    boost::mpi::communicator world;
    const Layout l{uniform(8, 8, 2, 2), BlockCyclic(1, 1)};
    auto A = matrix<double>(l);
    auto B = matrix<double>(l);
    ExecutionOptions x;
    x.max_message_bytes = world.rank() == 0 ? 0 : 64;  // a caller bug on rank 0 only
    const std::string msg = what_of<invalid_argument>([&] { Redistributor R(A, B, world, {}, x); });
    check_collective_message(msg, {"max_message_bytes = 0"});
  }
}
