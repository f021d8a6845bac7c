// Elements between nodes on a real communicator (plan/node_traffic.hpp over topology.hpp's
// node map): REDIST_RANKS_PER_NODE=k groups each host's ranks in simulated nodes of k, and
// a move whose every tile column goes from rank r to rank r + 1 (mod P) crosses a node
// exactly where r and r + 1 lie on different nodes (reference_nodes: hosts, then groups of
// k). Counts checked against that hand count.
#include <algorithm>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/node_traffic.hpp>
#include <redist/redist.hpp>
#include <redist/topology.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

using namespace redist;
using namespace redist::test;

TEST_CASE("node traffic: each rank's tile columns go to the next rank, counted across nodes") {
  const boost::mpi::communicator world;
  const int n = world.size(), me = world.rank();
  // 10 x (n * 2 * 3) elements in 5 x 3 tiles: every rank owns 2 tile columns of the source
  // (bc:1xn) and the target shifts them one rank on (first owner column 1).
  const index_t rows = 10, width = 3, per_rank = 2;
  const index_t moved = rows * width * per_rank;  // elements each rank sends when n > 1
  const Layout src{uniform(rows, n * per_rank * width, 5, width), BlockCyclic(1, n)};
  const Layout dst{uniform(rows, n * per_rank * width, 5, width),
                   BlockCyclic(1, n, 1, 1, GridCoord{0, 1 % n})};
  const Region region{{rows, n * per_rank * width}, {0, 0}, {0, 0}};
  for (int k = 1; k <= 4; ++k) {
    CAPTURE(k);
    const ScopedEnv per_node("REDIST_RANKS_PER_NODE", std::to_string(k).c_str());
    // A fresh communicator: its node map is computed with this k.
    const boost::mpi::communicator comm(world, boost::mpi::comm_duplicate);
    TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, me);
    TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, me);
    const std::vector<int> nodes = reference_nodes(comm, k);
    move_and_check(comm, a, b, region, [&](const auto& r, index_t) {
      const PlanStats s = with_node_traffic(r.plan(), node_map(comm).node_of_rank);
      const auto node = [&](int rank) { return nodes[static_cast<std::size_t>(rank)]; };
      const int next = (me + 1) % n, previous = (me + n - 1) % n;
      CHECK(s.nodes == *std::max_element(nodes.begin(), nodes.end()) + 1);
      CHECK(s.elements_sent == (n > 1 ? moved : 0));
      CHECK(s.elements_sent_inter_node == (node(next) != node(me) ? moved : 0));
      CHECK(s.elements_received_inter_node == (node(previous) != node(me) ? moved : 0));
      // All ranks: one link crossing per node boundary on the ring, none on one node.
      index_t crossings = 0;
      for (int q = 0; q < n; ++q) crossings += node((q + 1) % n) != node(q) ? 1 : 0;
      CHECK(sum(comm, s.elements_sent_inter_node) == crossings * moved);
      CHECK(sum(comm, s.elements_received_inter_node) == crossings * moved);
    });
  }
}
