// One real message above 2^31 bytes (issue "Robustness", item 2). Opt-in: it needs about
// 4 x 2 GiB of memory (source + send buffer on rank 0, receive buffer + target on rank 1)
// and ~10-30 s, so it runs only with REDIST_TEST_LARGE=1 and at least 2 ranks:
//   REDIST_TEST_LARGE=1 mpiexec -np 2 redist-mpi-tests -tc='*2^31 bytes*'
// Everything on rank 0 moves to rank 1 in one batch: one plan message of 16384 x 16400
// doubles = 2,149,580,800 bytes > 2^31 (INT_MAX = 2,147,483,647), which the executor must
// split into MPI messages an int count can carry. REDIST_SHARED_WINDOW=0 makes it go
// through MPI even between ranks of one node.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

TEST_CASE("robustness: one message above 2^31 bytes (REDIST_TEST_LARGE=1)") {
  using namespace redist;
  boost::mpi::communicator world;
  const char* large = std::getenv("REDIST_TEST_LARGE");
  if (large == nullptr || std::strcmp(large, "1") != 0 || world.size() < 2) {
    MESSAGE("skipped: set REDIST_TEST_LARGE=1 and run at 2 or more ranks");
    return;
  }
  const char* old = std::getenv("REDIST_SHARED_WINDOW");
  ::setenv("REDIST_SHARED_WINDOW", "0", 1);
  const index_t rows = 16384, cols = 16400;
  const Tiling shape{UniformAxis<>(rows, rows), UniformAxis<>(cols, cols)};  // one tile
  const Layout src{shape, BlockCyclic(1, 1)};                                // rank 0
  const Layout dst{shape, BlockCyclic(1, 2, 1, 1, GridCoord{0, 1})};         // rank 1
  using SrcM = TiledMatrix<double, decltype(src), PackedTiles<>>;
  using DstM = TiledMatrix<double, decltype(dst), PackedTiles<>>;
  index_t bad = 0;
  {
    SrcM A(src, {}, world.rank());
    DstM B(dst, {}, world.rank());
    const auto value = [](ElementIndex e) { return static_cast<double>(e.i) + 65536.0 * e.j; };
    A.for_each_element([&](ElementIndex e, double& v) { v = value(e); });
    B.for_each_element([&](ElementIndex, double& v) { v = -1; });
    PlanOptions o;
    o.batch = 1;
    Redistributor R(A, B, world, o);
    if (world.rank() == 0) {
      REQUIRE(R.plan().send.messages.size() == 1);
      CHECK(R.plan().send.messages[0].elements * 8 > index_t{INT32_MAX});
    }
    R.redistribute();
    B.for_each_element([&](ElementIndex e, double& v) { bad += v != value(e); });
    A.for_each_element([&](ElementIndex e, double& v) { bad += v != value(e); });
  }
  if (old != nullptr)
    ::setenv("REDIST_SHARED_WINDOW", old, 1);
  else
    ::unsetenv("REDIST_SHARED_WINDOW");
  CHECK(bad == 0);
  CHECK(boost::mpi::all_reduce(world, bad, std::plus<index_t>()) == 0);
}
