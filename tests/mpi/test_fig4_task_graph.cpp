// The papers' Fig. 4 (papers/cao2021-*.txt section 5): 3 x 3 source tiles on a 2 x 2 grid
// gathered into one target tile on rank 0. Summed over ranks, the executed graph has exactly
// 1 Init, 9 Send, 9 Receive and 1 Finish task. Below 4 ranks the source grid is the largest
// that fits (1 x 1, 1 x 2, 1 x 3): the totals are the same.
#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

TEST_CASE("mpi: Fig. 4 task graph, 9 source tiles into one target tile") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const BlockCyclic grid = np >= 4 ? BlockCyclic(2, 2) : BlockCyclic(1, np);
  const Layout src{uniform(30, 30, 10, 10), grid};
  const Layout dst{uniform(30, 30, 30, 30), BlockCyclic(1, 1)};
  const RunReport rep = check_redistribution<double>(comm, src, PackedTiles<>{}, dst,
                                                     PackedTiles<>{}, Region::whole({30, 30}));
  CHECK(rep.ok);
  CHECK(rep.tasks[static_cast<std::size_t>(TaskKind::init)] == 1);
  CHECK(rep.tasks[static_cast<std::size_t>(TaskKind::send)] == 9);
  CHECK(rep.tasks[static_cast<std::size_t>(TaskKind::receive)] == 9);
  CHECK(rep.tasks[static_cast<std::size_t>(TaskKind::finish)] == 1);
  // The one target tile is cut 3 x 3: category 8.
  CHECK(rep.categories[8] == 1);
  if (np >= 4) {
    // Ranks 1..3 each own two or more source tiles; everything they own is sent to rank 0.
    CHECK(rep.elements_local == 4 * 100);
    CHECK(rep.elements_received == 5 * 100);
  }
}

}  // namespace
