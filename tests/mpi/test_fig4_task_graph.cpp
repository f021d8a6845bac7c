// The papers' Fig. 4 (Cao et al. 2021, section 5): 3 x 3 source tiles on a 2 x 2 grid
// gathered into one target tile on rank 0: 9 segments. The executed graph runs at message
// granularity: per rank one Init and one Finish (one batch), one Send per message (each is
// one chunk here), an Arrive and a Receive for each, a Receive for the target rank's local
// part, and an Ack per message read in place. Below 4 ranks the source grid is the largest
// that fits (1 x 1, 1 x 2, 1 x 3).
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
  const auto n = static_cast<std::size_t>(np);
  const auto messages = static_cast<std::size_t>(rep.messages);
  CHECK(rep.segments == 9);
  CHECK(messages == n - 1);  // every other rank sends its tiles in one message
  CHECK(rep.tasks.init == n);
  CHECK(rep.tasks.finish == n);
  // Packed and sent, but for the messages the receiver reads in place (cross-memory, where
  // the kernel permits it): those have no Send task.
  CHECK(rep.tasks.send == messages - static_cast<std::size_t>(rep.in_place_sends));
  CHECK(rep.tasks.arrive == messages);
  CHECK(rep.tasks.receive == messages + 1);  // + rank 0's local part
  CHECK(rep.tasks.ack <= messages);
  // The one target tile is cut 3 x 3: category 8.
  CHECK(rep.categories[8] == 1);
  if (np >= 4) {
    // Ranks 1..3 each own two or more source tiles; everything they own is sent to rank 0.
    CHECK(rep.elements_local == 4 * 100);
    CHECK(rep.elements_received == 5 * 100);
  }
}

}  // namespace
