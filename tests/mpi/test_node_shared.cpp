// Node-shared source memory (node_shared.hpp): between ranks of a node every message is
// read in place from the sender's tiles ("direct"), one copy per element. Each case checks
// every target element on every rank, that the direct path was really taken between ranks
// of one node (all ranks, unless the run spans nodes: tests/cluster), and that the source
// may change right after wait(). Where the run keeps every message point to point
// (REDIST_TEST_EXPECT_TRANSPORT), none is direct.
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>
#include <redist/scalapack.hpp>

#include <doctest/doctest.h>

#include "first_move_faults.hpp"
#include "mpi_test_support.hpp"
#include "node_shared_moves.hpp"

namespace {

using namespace redist;
using namespace redist::test;

RunOptions shared_source(RunOptions o = {}) {
  o.node_shared_source = true;
  return o;
}

/// Every message between ranks of one node went direct (all of them where the test's ranks
/// share one node), or none where the run keeps every message point to point (the TCP and
/// small-message legs).
void check_all_direct(const RunReport& rep) {
  const index_t want = point_to_point_only() ? 0 : rep.intra_node_messages;
  CHECK(rep.direct_sends == want);
  CHECK(rep.direct_receives == want);
}

}  // namespace

TEST_CASE("mpi: node-shared source, every message read in place") {
  node_shared_moves(boost::mpi::communicator{}, shared_source(), check_all_direct);
}

TEST_CASE("mpi: the first move out of a node-shared source finds the peers' pages mapped") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(1024, 1024, 64, 64), BlockCyclic(1, np)};
  const Layout dst{uniform(1024, 1024, 64, 64), BlockCyclic(np, 1)};
  auto a = node_shared_matrix<double>(src, PackedTiles<>{}, comm);
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
  const Region region = Region::whole({1024, 1024});
  fill_source(a);
  fill_sentinel(b);
  const long mapped = mapped_window_bytes(a);
  Redistributor r(a, b, comm);
  const bool direct = sum(comm, r.messages(Transport::direct).second) > 0;
  check_first_move_faults(comm, r, a, b, region, a, mapped,
                          on_node_elements(comm, r.plan().recv.messages),
                          !point_to_point_only() && direct);
}

TEST_CASE("mpi: node-shared source may change right after wait()") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(50, 60, 6, 7), BlockCyclic(1, np)};
  const Layout dst{uniform(50, 60, 9, 5), BlockCyclic(np, 1)};
  auto a = node_shared_matrix<double>(src, TilePerAllocation<>{}, comm);
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
  Redistributor r(a, b, comm);
  const index_t bad = wrong_in_changing_rounds(r, a, b);
  CHECK(sum(comm, bad) == 0);
  const index_t intra = intra_node_sends(r.plan(), reference_nodes(comm), comm.rank());
  CHECK(sum(comm, r.direct_messages().first) == (point_to_point_only() ? 0 : sum(comm, intra)));
}

TEST_CASE("mpi: NodeSharedArray under a ScaLAPACK array, through scalapack::gemr2d") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const scalapack::Grid ga{1, np, false}, gb{np, 1, true};
  const scalapack::Descriptor da{1, 0, 45, 38, 6, 5, 0, 0, 45};
  const scalapack::Descriptor db{1, 0, 45, 38, 4, 7, 0, 0, 45};
  const auto need = [&](const scalapack::Descriptor& d, const scalapack::Grid& g) {
    return ScalapackColumnMajor<>{d.lld}
        .map(scalapack::make_layout(d, g), comm.rank())
        .allocation_sizes()
        .at(0);
  };
  NodeSharedArray<double> a(comm, need(da, ga));
  std::vector<double> b(static_cast<std::size_t>(need(db, gb)), -1.0);
  auto A = scalapack::wrap(a.data(), da, ga, comm.rank());
  fill_source(A);
  // B(3:3+30, 2:2+35) = A(5:5+30, 1:1+35), 1-based.
  scalapack::gemr2d<double>(30, 35, a.data(), 5, 1, da, ga, b.data(), 3, 2, db, gb, comm);
  auto B = scalapack::wrap(b.data(), db, gb, comm.rank());
  index_t checked = 0;
  const index_t bad = target_errors(B, Region{{30, 35}, {4, 0}, {2, 1}}, checked);
  CHECK(sum(comm, bad) == 0);
  CHECK(sum(comm, checked) == 45 * 38);
}

TEST_CASE("mpi: NodeSharedArray rejects a negative size on every rank") {
  const boost::mpi::communicator comm;
  const index_t n = comm.rank() == comm.size() - 1 ? -3 : 10;
  std::string what;
  try {
    NodeSharedArray<double> a(comm, n);
  } catch (const invalid_argument& e) {
    what = e.what();
  }
  CHECK(what.find("elements = -3") != std::string::npos);
  // A size whose byte count does not fit: named, on every rank, nothing allocated.
  what.clear();
  try {
    NodeSharedArray<double> a(comm, index_t{1} << 62);
  } catch (const invalid_argument& e) {
    what = e.what();
  }
  CHECK(what.find("overflows") != std::string::npos);
}

TEST_CASE("mpi: NodeSharedArray is zero-filled; a faulted window is usable by every node rank") {
  const boost::mpi::communicator comm;
  // Sizes that are not whole pages, and one rank with nothing.
  const auto size_of = [](int rank) -> index_t { return rank == 1 ? 0 : 300001 + 517 * rank; };
  const index_t n = size_of(comm.rank());
  NodeSharedArray<double> a(comm, n);
  long nonzero = 0;
  for (index_t i = 0; i < n; ++i) nonzero += a.data()[i] != 0.0;
  CHECK(nonzero == 0);
  // Its pages: a power of two of at least 4 KiB (2 MiB where the backing file system gives
  // huge pages); 0 for private memory.
  if (n > 0) {
    const std::size_t page = node_shared_page_bytes(a.data() + n / 2);
    CHECK(page >= 4096);
    CHECK((page & (page - 1)) == 0);
  }
  const std::vector<double> private_memory(16);
  CHECK(node_shared_page_bytes(private_memory.data()) == 0);
  // The executor's message windows are only faulted in (NodeWindow::Fill::fault): each
  // owner writes its part, and every node rank reads every part after the barrier.
  auto w = detail::NodeWindow::create(comm, static_cast<std::size_t>(n) * sizeof(double) + 3,
                                      detail::NodeWindow::Fill::fault);
  CHECK(w->bytes(w->node_rank()) >= static_cast<std::size_t>(n) * sizeof(double) + 3);
  auto* mine = reinterpret_cast<double*>(w->base(w->node_rank()));
  for (index_t i = 0; i < n; ++i) mine[i] = static_cast<double>(w->node_rank() * 1000003 + i);
  w->publish();
  comm.barrier();
  w->acquire();
  long bad = 0;
  // Each communicator rank of this node wrote its part (MPI may round a part's size up).
  const std::vector<int> node_rank = w->node_ranks(comm);
  for (int c = 0; c < comm.size(); ++c) {
    const int r = node_rank[static_cast<std::size_t>(c)];
    if (r < 0) continue;
    const auto* part = reinterpret_cast<const double*>(w->base(r));
    for (index_t i = 0; i < size_of(c); ++i) bad += part[i] != static_cast<double>(r * 1000003 + i);
  }
  CHECK(bad == 0);
  comm.barrier();  // every rank done reading before any part is freed
}

TEST_CASE("mpi: node-shared source under every transport and store mode") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(71, 66, 8, 9), BlockCyclic(P, Q)};
  const Layout dst{uniform(71, 66, 10, 4), BlockCyclic(Q, P)};
  // REDIST_SHARED_WINDOW=0: plain MPI messages, nothing read in place. REDIST_STREAMING:
  // streaming stores into the target forced on or off (normally chosen by volume).
  for (const char* window : window_settings())
    for (const char* streaming : {"0", "1"}) {
      const ScopedEnv w("REDIST_SHARED_WINDOW", window);
      const ScopedEnv s("REDIST_STREAMING", streaming);
      CAPTURE(window);
      CAPTURE(streaming);
      const RunReport rep = check_redistribution<double>(
          comm, src, ScalapackColumnMajor<>{}, dst, ScalapackColumnMajor<>{75},
          Region{{60, 50}, {5, 9}, {11, 2}},
          shared_source(RunOptions{.repeats = 2, .async = true}));
      CHECK(rep.ok);
      if (window[0] == '1')
        check_all_direct(rep);
      else
        CHECK(rep.direct_sends == 0);
    }
}
