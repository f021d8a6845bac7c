// Cross-memory reads (transport/cross_memory_io.hpp): the probe agrees on every rank of a
// node and can be forced to fail; a gather of many scattered pieces from a peer, more than
// IOV_MAX of them, arrives byte for byte; a read of an address the peer does not have fails
// with the library's error naming the peer and the bytes not read.
#include <climits>
#include <cstdint>
#include <string>
#include <unistd.h>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/topology.hpp>
#include <redist/transport/cross_memory_io.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "runtime_skip.hpp"

namespace {

using namespace redist;
using namespace redist::test;
namespace cma = redist::transport::cma;

constexpr const char* gather_case = "cross-memory: a peer's scattered pieces, beyond IOV_MAX";

/// Evaluated on every rank (collective: the probe).
std::string why_not_gather() {
  const boost::mpi::communicator world;
  if (node_map(world).node_size() < 2) return "no second rank on this node to read from";
  const cma::Permission p = cma::probe(node_map(world).node);
  return p.allowed ? "" : "cross-memory reads are not permitted here: " + p.reason;
}
[[maybe_unused]] const bool gather_registered = skip_when(gather_case, why_not_gather);

}  // namespace

TEST_CASE("cross-memory: the probe answers alike on every rank, and can be forced to fail") {
  const boost::mpi::communicator world;
  const boost::mpi::communicator& node = node_map(world).node;
  const cma::Permission p = cma::probe(node);
  std::vector<int> answers;
  boost::mpi::all_gather(node, static_cast<int>(p.allowed), answers);
  for (int a : answers) CHECK(a == static_cast<int>(p.allowed));
  CHECK(p.allowed == p.reason.empty());
  const ScopedEnv fail("REDIST_CROSS_MEMORY_PROBE", "fail");
  const cma::Permission forced = cma::probe(node);
  CHECK_FALSE(forced.allowed);
  CHECK(forced.reason.find("REDIST_CROSS_MEMORY_PROBE") != std::string::npos);
}

TEST_CASE(gather_case) {
  const boost::mpi::communicator world;
  const boost::mpi::communicator& node = node_map(world).node;
  const int me = node.rank(), n = node.size();
  // Every rank holds 6000 values; its next peer reads every third one, in reverse, as
  // 2000 pieces of 1 to 3 values each: more pieces than one process_vm_readv takes.
  std::vector<double> mine(6000);
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = me * 1e6 + static_cast<double>(k);
  std::vector<std::int64_t> pids;
  std::vector<std::uint64_t> bases;
  boost::mpi::all_gather(node, static_cast<std::int64_t>(::getpid()), pids);
  boost::mpi::all_gather(node, reinterpret_cast<std::uint64_t>(mine.data()), bases);
  const int from = (me + 1) % n;
  std::vector<double> got(6000, -1.0);
  std::vector<cma::Piece> pieces;
  std::size_t at = 0;
  for (std::size_t k = 0; k < 2000; ++k) {
    const std::size_t src = 3 * (1999 - k), len = 1 + k % 3;
    pieces.push_back({bases[static_cast<std::size_t>(from)] + src * sizeof(double), &got[at],
                      len * sizeof(double)});
    at += len;
  }
  REQUIRE(pieces.size() > IOV_MAX);
  cma::read(static_cast<pid_t>(pids[static_cast<std::size_t>(from)]), pieces);
  index_t bad = 0;
  at = 0;
  for (std::size_t k = 0; k < 2000; ++k) {
    const std::size_t src = 3 * (1999 - k), len = 1 + k % 3;
    for (std::size_t e = 0; e < len; ++e)
      bad += got[at + e] != from * 1e6 + static_cast<double>(src + e);
    at += len;
  }
  for (std::size_t k = at; k < got.size(); ++k) bad += got[k] != -1.0;  // nothing beyond
  CHECK(bad == 0);

  // An address the peer has not mapped: the library's error, not a crash.
  double sink = 0;
  const cma::Piece wrong{8, &sink, sizeof sink};
  CHECK_THROWS_WITH_AS(cma::read(static_cast<pid_t>(pids[static_cast<std::size_t>(from)]),
                                 std::span<const cma::Piece>(&wrong, 1)),
                       doctest::Contains("bytes not read"), communication_error);
  node.barrier();  // `mine` stays until every peer has read it
}
