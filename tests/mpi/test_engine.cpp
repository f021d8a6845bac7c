// The engine's contracts at 1-4 ranks: the executor completes tasks only after all their
// predecessors in the task graph (the graph is the schedule); start/test/wait let the
// caller drive the transfer; tiny chunks and every transport move the same data; execution
// options are agreed by every rank; a caller's execution-space instance runs the copies.
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>

#include <redist/redist.hpp>
#include <redist/task_graph_boost.hpp>

#include <doctest/doctest.h>

#include "late_rank.hpp"
#include "mpi_test_support.hpp"
#include "steps_between_nodes.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Every task completed once, each after all its predecessors.
template <class R>
void check_follows_graph(const R& r) {
  const TaskGraphView g = boost_graph(r.task_graph());
  const auto& order = r.completion_order();
  const std::size_t n = boost::num_vertices(g);
  REQUIRE(order.size() == n);
  std::vector<std::size_t> at(n, n);
  for (std::size_t k = 0; k < order.size(); ++k) at[order[k]] = k;
  std::size_t missing = 0, early = 0;
  for (std::size_t v = 0; v < n; ++v) missing += at[v] == n;
  for (auto e : boost::make_iterator_range(boost::edges(g)))
    early += at[boost::source(e, g)] > at[boost::target(e, g)];
  CHECK(missing == 0);
  CHECK(early == 0);
}

}  // namespace

TEST_CASE("mpi: the executor follows the task graph's edges, chunk by chunk") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(90, 70, 7, 6), BlockCyclic(P, Q)};
  const Layout dst{uniform(90, 70, 5, 9), BlockCyclic(Q, P)};
  for (const char* window : window_settings())
    for (index_t chunk : {index_t{64}, index_t{1} << 21}) {
      const ScopedEnv w("REDIST_SHARED_WINDOW", window);
      CAPTURE(window);
      CAPTURE(chunk);
      TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
      TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
      fill_source(a);
      fill_sentinel(b);
      PlanOptions o;
      o.batch = 2;
      ExecutionOptions x;
      x.chunk_bytes = chunk;
      const Region region{{80, 61}, {3, 4}, {6, 2}};
      Redistributor r(a, b, comm, region, o, x);
      r.redistribute();
      index_t checked = 0;
      CHECK(sum(comm, target_errors(b, region, checked)) == 0);
      check_follows_graph(r);
      const TaskCounts& run = r.tasks_run();
      const TaskCounts want = r.task_graph().counts();
      CHECK(run == want);
      CHECK(run.send == r.task_graph().send.chunks.size() - [&] {
        std::size_t direct = 0;
        const auto& tg = r.task_graph();
        for (std::size_t c = 0; c < tg.send.chunks.size(); ++c)
          direct += reads_in_place(tg.send_transport[tg.send.chunks[c].message]);
        return direct;
      }());
      if (np > 1 && chunk == 64) {
        // Tiny chunks: messages leave in pieces (each at least one column of a block).
        const index_t chunks = sum(comm, static_cast<index_t>(r.task_graph().send.chunks.size()));
        const index_t messages = sum(comm, r.plan().stats.messages_sent);
        CHECK(chunks >= messages);
        if (np == 2) CHECK(chunks > messages);
      }
    }
}

TEST_CASE("mpi: start, test until done, then wait returns at once; the data is complete") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(120, 100, 16, 10), BlockCyclic(1, np)};
  const Layout dst{uniform(120, 100, 9, 13), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), PackedTiles<>> b(dst, {}, comm.rank());
  fill_source(a);
  ExecutionOptions x;
  x.chunk_bytes = 1024;
  Redistributor r(a, b, comm, Region::whole({120, 100}), PlanOptions{}, x);
  for (int round = 0; round < 3; ++round) {
    fill_sentinel(b);
    r.start(Kokkos::DefaultExecutionSpace{});
    long polls = 0;
    volatile double work = 0;  // volatile: the caller's work is not optimised away
    while (!r.test()) {
      // The caller's own work between polls.
      for (int k = 0; k < 1000; ++k) work = work + 1e-9 * k;
      ++polls;
      REQUIRE(polls < 100000000);
    }
    // test() said done: every task of the graph has run and the target is complete
    // before wait() (test() fenced the instance), so wait() has nothing left to do.
    const TaskCounts done = r.tasks_run();
    CHECK(done == r.task_graph().counts());
    CHECK(r.completion_order().size() == r.task_graph().tasks.size());
    index_t checked = 0;
    CHECK(target_errors(b, Region::whole({120, 100}), checked) == 0);
    CHECK(r.test());  // stays complete
    r.wait();
    CHECK(r.tasks_run() == done);
    CHECK(r.completion_order().size() == r.task_graph().tasks.size());
    CHECK(sum(comm, target_errors(b, Region::whole({120, 100}), checked)) == 0);
  }
  check_follows_graph(r);
}

TEST_CASE("mpi: execution options that differ between ranks fail on every rank") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  if (np < 2) return;  // nothing to disagree with
  const Layout src{uniform(40, 40, 8, 8), BlockCyclic(1, np)};
  const Layout dst{uniform(40, 40, 5, 5), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), TilePerAllocation<>> b(dst, {}, comm.rank());
  const auto message = [&](auto&& make) {
    std::string what;
    try {
      make();
    } catch (const agreement_error& e) {
      what = e.what();
    }
    // Every rank saw the error, and the communicator still works.
    CHECK(boost::mpi::all_reduce(comm, static_cast<int>(what.empty()),
                                 boost::mpi::maximum<int>()) == 0);
    return what;
  };
  SUBCASE("chunk size passed in the options") {
    ExecutionOptions x;
    x.chunk_bytes = comm.rank() == 0 ? 4096 : 8192;
    const std::string what = message([&] { Redistributor r(a, b, comm, PlanOptions{}, x); });
    CHECK(what.find("ExecutionOptions::chunk_bytes") != std::string::npos);
  }
  SUBCASE("shared window switched off by the environment of one rank") {
    const ScopedEnv w("REDIST_SHARED_WINDOW", comm.rank() == 0 ? "0" : "1");
    const std::string what = message([&] { Redistributor r(a, b, comm); });
    CHECK(what.find("ExecutionOptions::shared_window") != std::string::npos);
  }
  SUBCASE("progress timeout set by the environment of one rank") {
    const ScopedEnv w("REDIST_PROGRESS_TIMEOUT", comm.rank() == 0 ? "30" : "300");
    const std::string what = message([&] { Redistributor r(a, b, comm); });
    CHECK(what.find("ExecutionOptions::progress_timeout_seconds") != std::string::npos);
  }
  SUBCASE("a malformed progress timeout names its variable") {
    const ScopedEnv w("REDIST_PROGRESS_TIMEOUT", "-1");
    CHECK_THROWS_WITH_AS(Redistributor(a, b, comm), doctest::Contains("REDIST_PROGRESS_TIMEOUT"),
                         invalid_argument);
  }
  SUBCASE("a malformed variable on one rank is an error on every rank") {
    const ScopedEnv w("REDIST_CHUNK_BYTES", comm.rank() == np - 1 ? "12x" : "4096");
    std::string what;
    try {
      Redistributor r(a, b, comm);
    } catch (const invalid_argument& e) {
      what = e.what();
    }
    CHECK(boost::mpi::all_reduce(comm, static_cast<int>(what.empty()),
                                 boost::mpi::maximum<int>()) == 0);
    CHECK(what.find("REDIST_CHUNK_BYTES") != std::string::npos);
  }
  // Same options everywhere: fine, and the agreed options are reported.
  ExecutionOptions same;
  same.chunk_bytes = 4096;
  Redistributor r(a, b, comm, PlanOptions{}, same);
  CHECK(r.execution_options().chunk_bytes == 4096);
}

namespace {
/// ScaLAPACK storage that does not declare `local_matrix`: its map still returns a
/// LocalMatrix, but the layout of messages must follow the declared type on every rank.
struct UndeclaredLocalMatrix : ScalapackColumnMajor<> {
  static constexpr bool local_matrix = false;
};
}  // namespace

TEST_CASE("mpi: message layout follows the placement types, not what a map happens to hold") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(64, 48, 5, 6), BlockCyclic(P, Q)};
  const Layout dst{uniform(64, 48, 7, 4), BlockCyclic(Q, P)};
  const Region region{{50, 40}, {3, 2}, {9, 5}};
  for (const char* window : window_settings()) {
    const ScopedEnv w("REDIST_SHARED_WINDOW", window);
    CAPTURE(window);
    CHECK(check_redistribution<double>(comm, src, UndeclaredLocalMatrix{}, dst,
                                       TilePerAllocation<>{}, region)
              .ok);
    CHECK(check_redistribution<double>(comm, dst, TilePerAllocation<>{}, src,
                                       UndeclaredLocalMatrix{}, region)
              .ok);
    CHECK(check_redistribution<double>(comm, src, UndeclaredLocalMatrix{}, dst,
                                       ScalapackColumnMajor<>{}, region)
              .ok);
  }
}

TEST_CASE("mpi: a rank that waits past the progress timeout gets an error naming its peer") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  if (np < 2) return;  // no peer to wait for
  // Point to point: the waiting rank's receives stay posted after it gives up, so the late
  // rank's sends still land and it completes.
  const ScopedEnv window("REDIST_SHARED_WINDOW", "0");
  const Layout src{uniform(60, 50, 8, 7), BlockCyclic(1, np)};
  const Layout dst{uniform(60, 50, 5, 6), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), TilePerAllocation<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), TilePerAllocation<>> b(dst, {}, comm.rank());
  fill_source(a);
  fill_sentinel(b);
  ExecutionOptions o;
  o.progress_timeout_seconds = 1.0;
  Redistributor r(a, b, comm, PlanOptions{}, o);
  const int late = np - 1;
  std::string what;
  // The late rank starts once the others have given up or finished.
  after_the_others(comm, late, [&] {
    try {
      r.redistribute();
    } catch (const communication_error& e) {
      what = e.what();
    }
  });
  // All at once the late rank completes. In steps between nodes its sends wait for what its
  // peers send, which they may have given up on: then it stops with the same error.
  if (comm.rank() == late) {
    if (test::steps_between_nodes(comm))
      CHECK((what.empty() || what.find("made no progress for 1 s") != std::string::npos));
    else
      CHECK(what.empty());
  }
  if (comm.rank() == 0) {
    CHECK(what.find("rank " + std::to_string(late) + " (") != std::string::npos);
    CHECK(what.find("made no progress for 1 s") != std::string::npos);
  }
  comm.barrier();
  CHECK(source_errors(a) == 0);  // the source is never written
}
