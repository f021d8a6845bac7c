// Nodes of a communicator (topology.hpp): grouped once and cached; REDIST_RANKS_PER_NODE
// cuts the machine into simulated nodes, and then no node-local path crosses them: every
// message between two simulated nodes goes point to point, and the data arrive.
#include <algorithm>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>
#include <redist/topology.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// A fresh communicator over the same ranks: its node map is computed anew.
boost::mpi::communicator fresh(const boost::mpi::communicator& comm) {
  return boost::mpi::communicator(comm, boost::mpi::comm_duplicate);
}

/// The node map against reference_nodes (mpi_test_support.hpp): one node per host, cut
/// into groups of k ranks when k > 0.
void check_against_reference(const boost::mpi::communicator& comm, const NodeMap& map, int k) {
  const std::vector<int> want = reference_nodes(comm, k);
  const int n = comm.size(), me = comm.rank();
  const auto node = [&](int r) { return want[static_cast<std::size_t>(r)]; };
  CHECK(map.nodes == *std::max_element(want.begin(), want.end()) + 1);
  CHECK(map.node_of_rank == want);
  int mine = 0;  // ranks of my node so far
  for (int r = 0; r < n; ++r) {
    CHECK(map.rank_in_node[static_cast<std::size_t>(r)] == (node(r) == node(me) ? mine : -1));
    CHECK(map.same_node(me, r) == (node(r) == node(me)));
    mine += node(r) == node(me) ? 1 : 0;
  }
  CHECK(map.node_size() == mine);
}

}  // namespace

TEST_CASE("topology: the ranks of one host are one node, and the map is computed once") {
  const boost::mpi::communicator world;
  const ScopedEnv unset("REDIST_RANKS_PER_NODE", nullptr);
  const boost::mpi::communicator comm = fresh(world);
  const NodeMap& map = node_map(comm);
  check_against_reference(comm, map, 0);
  CHECK(&node_map(comm) == &map);  // cached on the communicator
}

TEST_CASE("topology: REDIST_RANKS_PER_NODE cuts each host into nodes of k consecutive ranks") {
  const boost::mpi::communicator world;
  for (int k = 1; k <= 3; ++k) {
    CAPTURE(k);
    const ScopedEnv per_node("REDIST_RANKS_PER_NODE", std::to_string(k).c_str());
    const boost::mpi::communicator comm = fresh(world);
    check_against_reference(comm, node_map(comm), k);
  }
  const ScopedEnv bad("REDIST_RANKS_PER_NODE", "two");
  const boost::mpi::communicator comm = fresh(world);
  CHECK_THROWS_WITH_AS(node_map(comm), doctest::Contains("REDIST_RANKS_PER_NODE"),
                       invalid_argument);
}

TEST_CASE("topology: between simulated nodes every message goes point to point") {
  const boost::mpi::communicator world;
  const int n = world.size();
  const ScopedEnv per_node("REDIST_RANKS_PER_NODE", "1");
  const boost::mpi::communicator comm = fresh(world);
  const Layout src{uniform(90, 70, 8, 6), BlockCyclic(1, n)};
  const Layout dst{uniform(80, 75, 5, 7), BlockCyclic(n, 1, 1, 1, GridCoord{n - 1, 0})};
  const Region region{{60, 50}, {7, 3}, {11, 20}};
  const auto check = [&](auto& a, auto& b) {
    move_and_check(comm, a, b, region, [&](const auto& r, index_t checked) {
      CHECK(sum(comm, checked) == index_t{80} * 75);  // every target element, inside or not
      CHECK(sum(comm, not_point_to_point(r.task_graph())) == 0);
      CHECK(sum(comm, r.direct_messages().first + r.direct_messages().second) == 0);
      if (n > 1) CHECK(sum(comm, r.plan().stats.messages_sent) > 0);
    });
  };
  {
    INFO("private source: the shared window would carry it on one node");
    TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
    TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
    check(a, b);
  }
  {
    INFO("node-shared source: read in place on one node, not across simulated nodes");
    auto a = node_shared_matrix<double>(src, PackedTiles<>{}, comm);
    TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
    check(a, b);
  }
}
