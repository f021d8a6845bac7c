// One real message above 2^31 bytes (issue "Robustness", item 2). It needs about 4 x 2 GiB of
// memory (source + send buffer on rank 0, receive buffer + target on rank 1) and 10-30 s, so
// it runs only with REDIST_TEST_LARGE=1, at 2 or more ranks, on a node with the memory;
// ctest runs it once, as mpi-large-np2:
//   REDIST_TEST_LARGE=1 mpiexec -np 2 redist-mpi-tests -ts=large
// Anywhere else it is reported as skipped, with the reason (runtime_skip.hpp).
// Everything on rank 0 moves to rank 1 in one batch: one plan message of 16384 x 16400
// doubles = 2,149,580,800 bytes > 2^31 (INT_MAX = 2,147,483,647), sent as one chunk, which
// the transport must split into MPI messages an int count can carry. REDIST_SHARED_WINDOW=0
// makes it go through MPI even between ranks of one node.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "runtime_skip.hpp"

namespace {

using namespace redist;

constexpr index_t rows = 16384, cols = 16400;
constexpr index_t message_bytes = rows * cols * 8;
static_assert(message_bytes > INT_MAX);
// At worst ranks 0 and 1 share a node: both matrices and both buffers, plus 2 GiB for MPI,
// the other ranks and the system.
constexpr index_t need_bytes = 4 * message_bytes + (index_t{2} << 30);

/// MemAvailable of /proc/meminfo in bytes, or -1 if it cannot be read.
index_t available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, rest;
  index_t kib = 0;
  while (in >> key >> kib) {
    std::getline(in, rest);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

std::string gib(index_t bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  return s;
}

/// Why this rank cannot run the case; empty if it can.
std::string why_not_large() {
  const char* large = std::getenv("REDIST_TEST_LARGE");
  if (large == nullptr || std::string(large) != "1")
    return "opt-in: set REDIST_TEST_LARGE=1 (ctest mpi-large-np2 does)";
  if (boost::mpi::communicator{}.size() < 2) return "needs 2 or more ranks";
  const index_t have = available_bytes();
  if (have < 0) return "cannot read MemAvailable from /proc/meminfo";
  if (have < need_bytes)
    return "needs " + gib(need_bytes) + " of available memory on the node, has " + gib(have) +
           " (MemAvailable)";
  return "";
}

constexpr const char* large_case = "robustness: one message above 2^31 bytes (REDIST_TEST_LARGE=1)";
[[maybe_unused]] const bool large_registered = redist::test::skip_when(large_case, why_not_large);

}  // namespace

TEST_SUITE("large") {
  TEST_CASE(large_case) {
    boost::mpi::communicator world;
    const redist::test::ScopedEnv window("REDIST_SHARED_WINDOW", "0");
    // The whole message in one chunk, and no lower split limit from the environment: the
    // transport itself must cut the 2^31+ bytes into int counts.
    const redist::test::ScopedEnv chunk("REDIST_CHUNK_BYTES",
                                        std::to_string(message_bytes).c_str());
    const redist::test::ScopedEnv limit("REDIST_MAX_MESSAGE_BYTES",
                                        std::to_string(INT_MAX).c_str());
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
      CHECK(R.execution_options().max_message_bytes == INT_MAX);
      // No REQUIRE before redistribute(): a rank leaving early would hang the other.
      const TaskGraph& g = R.task_graph();
      if (world.rank() == 0) {
        CHECK(R.plan().send.messages.size() == 1);
        CHECK(g.send.chunks.size() == 1);
        if (g.send.chunks.size() == 1) {
          CHECK(g.send.chunks[0].elements * 8 == message_bytes);
          CHECK(g.send_transport[0] == Transport::point_to_point);
        }
      }
      if (world.rank() == 1) {
        CHECK(g.recv.chunks.size() == 1);
        if (g.recv.chunks.size() == 1) CHECK(g.recv_transport[0] == Transport::point_to_point);
      }
      R.redistribute();
      B.for_each_element([&](ElementIndex e, double& v) { bad += v != value(e); });
      A.for_each_element([&](ElementIndex e, double& v) { bad += v != value(e); });
    }
    CHECK(bad == 0);
    CHECK(boost::mpi::all_reduce(world, bad, std::plus<index_t>()) == 0);
  }
}
