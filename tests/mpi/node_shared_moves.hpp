#pragma once
// The moves every node-shared memory test runs (tests/mpi/test_node_shared.cpp: the source
// node-shared, read in place; tests/mpi/test_push.cpp: the target, pushed into), each a
// SUBCASE of the caller's TEST_CASE: a displaced sub-region from tile into ScaLAPACK
// storage, padded ScaLAPACK storage into packed irregular tiles, random owners with complex
// elements in several batches, async and repeated, and a gather to one rank with the
// scatter back. Every target element is checked (check_redistribution); `check(rep)` says
// which transport must have carried the messages. And rounds in which the node-shared
// memory changes between wait() and the next start().
#include <complex>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace redist::test {

template <class Check>
void node_shared_moves(const boost::mpi::communicator& comm, const RunOptions& shared,
                       Check&& check) {
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  SUBCASE("block-cyclic, tile storage -> ScaLAPACK storage, sub-region") {
    const Layout src{uniform(97, 83, 9, 7), BlockCyclic(P, Q)};
    const Layout dst{uniform(90, 101, 8, 11), BlockCyclic(Q, P, 1, 1, GridCoord{0, P - 1})};
    const Region region{{61, 57}, {13, 5}, {20, 31}};
    const RunReport rep = check_redistribution<double>(comm, src, TilePerAllocation<>{}, dst,
                                                       ScalapackColumnMajor<>{}, region, shared);
    CHECK(rep.ok);
    CHECK(rep.checked == 90 * 101);
    check(rep);
    if (np > 1) CHECK(rep.messages > 0);
  }
  SUBCASE("ScaLAPACK storage with padding -> packed tiles, irregular target") {
    const Layout src{uniform(64, 48, 5, 6), BlockCyclic(1, np)};
    const Layout dst{Tiling{IrregularAxis({0, 1, 9, 20, 33, 50, 64}), IrregularAxis({0, 17, 48})},
                     RandomDistribution(np, 5)};
    const RunReport rep =
        check_redistribution<float>(comm, src, ScalapackColumnMajor<>{70}, dst, PackedTiles<>{},
                                    Region::whole({64, 48}), shared);
    CHECK(rep.ok);
    check(rep);
  }
  SUBCASE("random owners, complex elements, several batches, async, repeated") {
    // Several messages between one pair of ranks, in different batches.
    RunOptions o = shared;
    o.plan.batch = 1;
    o.async = true;
    o.repeats = 3;
    const Layout src{uniform(40, 55, 4, 5), RandomDistribution(np, 17)};
    const Layout dst{uniform(40, 55, 7, 3), RandomDistribution(np, 23)};
    const RunReport rep = check_redistribution<std::complex<double>>(
        comm, src, TilePerAllocation<>{}, dst, TilePerAllocation<>{},
        Region{{33, 41}, {7, 14}, {0, 2}}, o);
    CHECK(rep.ok);
    CHECK(rep.batches > 1);
    check(rep);
  }
  SUBCASE("gather to one rank and scatter back") {
    const Layout spread{uniform(30, 30, 4, 4), BlockCyclic(P, Q)};
    const Layout one{uniform(30, 30, 30, 30), BlockCyclic(1, 1)};
    const RunReport gather =
        check_redistribution<double>(comm, spread, TilePerAllocation<>{}, one,
                                     TilePerAllocation<>{}, Region::whole({30, 30}), shared);
    CHECK(gather.ok);
    check(gather);
    const RunReport scatter =
        check_redistribution<double>(comm, one, ScalapackColumnMajor<>{}, spread, PackedTiles<>{},
                                     Region::whole({30, 30}), shared);
    CHECK(scatter.ok);
    check(scatter);
  }
}

/// Five executions of r from a to b, each after the source changed and the target was
/// overwritten right after the previous wait(): a peer still at work on node-shared memory
/// after wait(), or one at work before start(), leaves a mix. Returns this rank's wrong
/// target elements.
template <class R, class A, class B>
index_t wrong_in_changing_rounds(R& r, A& a, B& b) {
  index_t bad = 0;
  for (int round = 0; round < 5; ++round) {
    a.for_each_element([&](ElementIndex e, double& v) { v = value_at<double>(e) + 1e6 * round; });
    fill_sentinel(b);
    r.start();
    r.wait();
    b.for_each_element(
        [&](ElementIndex e, double& v) { bad += v != value_at<double>(e) + 1e6 * round; });
  }
  return bad;
}

}  // namespace redist::test
