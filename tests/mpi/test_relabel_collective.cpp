// Relabeling on a communicator (collective/relabel.hpp): every rank passes only its own row
// (volume_row, its own plan), and every rank gets the permutation that best_relabeling and
// best_node_relabeling give on the whole matrix of one process; a bad row on one rank
// makes every rank throw.
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/collective/relabel.hpp>
#include <redist/redist.hpp>
#include <redist/relabel.hpp>

#include <doctest/doctest.h>

using namespace redist;

TEST_CASE("collective relabeling: rows gathered, one solve, the same permutation everywhere") {
  const boost::mpi::communicator world;
  const int P = world.size(), me = world.rank();
  const Tiling shape{UniformAxis<>(90, 7), UniformAxis<>(80, 9)};
  const Layout src{shape, BlockCyclic(1, P)};
  // The same grid shifted by one column: relabeling makes everything local.
  const Layout dst{shape, BlockCyclic(1, P, 1, 1, GridCoord{0, 1 % P})};
  const Region region{{70, 60}, {5, 10}, {5, 10}};
  const std::vector<VolumeEntry> row = volume_row(src, dst, region, me, P);
  const std::vector<index_t> volume = transfer_volumes(src, dst, region, P);

  const std::vector<int> perm = best_relabeling(world, row);
  CHECK(perm == best_relabeling(volume, P));
  std::vector<int> nodes(static_cast<std::size_t>(P));
  for (int s = 0; s < P; ++s) nodes[static_cast<std::size_t>(s)] = s / 2;
  const std::vector<int> node_perm = best_node_relabeling(world, row, me / 2);
  CHECK(split_transfers(volume, node_perm, nodes) ==
        split_transfers(volume, best_node_relabeling(volume, nodes), nodes));
  CHECK(split_transfers(volume, perm, nodes).local == region.extent.size());
}

TEST_CASE("collective relabeling: a bad row on the last rank throws on every rank") {
  const boost::mpi::communicator world;
  const int P = world.size(), me = world.rank();
  std::vector<VolumeEntry> row{{me, 10}};
  if (me == P - 1) row.push_back({P, 1});  // no such role
  const std::string expected = "volumes.row(" + std::to_string(P - 1) + ")[1].role";
  CHECK_THROWS_WITH_AS(best_relabeling(world, row), doctest::Contains(expected.c_str()),
                       invalid_argument);
  CHECK_THROWS_AS(best_node_relabeling(world, row, 0), invalid_argument);
}
