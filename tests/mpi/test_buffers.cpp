// Buffer memory is known before the first run and bounded by the batch: the
// Redistributor's buffer_bytes() does not change when it runs, never exceeds the plan's
// send + receive figure for the largest batch, and shrinks with smaller batches.
#include <algorithm>

#include <boost/mpi/collectives.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {
using namespace redist;
using namespace redist::test;

TEST_CASE("mpi: buffer memory is exact before the first run and bounded by the batch") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(240, 300, 16, 12), BlockCyclic(1, np)};
  const Layout dst{uniform(240, 300, 20, 25), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());

  index_t largest = 0;
  for (index_t batch : {index_t{0}, index_t{5}, index_t{1}}) {
    PlanOptions o;
    o.batch = batch;
    Redistributor r(a, b, comm, o);
    const index_t before = r.buffer_bytes();
    r.redistribute();
    CHECK(r.buffer_bytes() == before);
    const index_t bound = r.plan().stats.buffer_elements * static_cast<index_t>(sizeof(double));
    CHECK(before <= bound);
    const index_t worst = boost::mpi::all_reduce(comm, before, boost::mpi::maximum<index_t>());
    if (batch == 0) largest = worst;
    if (np > 1 && batch == 1) CHECK(worst < largest);  // 1 of 25 source tile columns at a time
    if (np == 1) CHECK(before == 0);                   // everything is local
  }
}
}  // namespace
