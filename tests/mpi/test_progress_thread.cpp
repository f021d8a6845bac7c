// ExecutionOptions::progress = thread (engine/progress_thread.hpp, issue 44 point 4): start()
// hands the execution to the rank's progress thread and returns; the caller computes and
// asks test() (which copies nothing then) until it says done, or blocks in wait(). At 1-4
// ranks, on random layouts, regions and transforms, and over every transport setting of
// the leg (node window on and off, node-shared sources read in place, node-shared targets
// pushed into, batches, small rings); every target element is checked against the
// source's function of the global index, the rest of the target left alone, the source
// unchanged. The thread is kept between executions, an executor destroyed mid-execution
// lets it finish, and MPI below MPI_THREAD_SERIALIZED is refused with an error naming the
// option.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/engine/progress_thread.hpp>
#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "random_cases.hpp"

namespace {

using namespace redist;
using namespace redist::test;

ExecutionOptions on_a_thread(index_t chunk_bytes) {
  ExecutionOptions x;
  x.progress = ProgressPolicy::thread;
  x.chunk_bytes = chunk_bytes;
  return x;
}

/// The caller's work between start() and wait(): a sum it keeps, so it is not optimised
/// away.
double compute(double x) {
  for (int k = 0; k < 20000; ++k) x = x * 0.999999 + 1e-9;
  return x;
}

/// start(), compute with a test() after each slice until it says done (the progress thread
/// finishes alone: test() copies nothing), then wait(). Returns whether test() said done
/// before wait(); gives up asking after 60 s, leaving it to wait().
template <class R>
bool overlapped(R& r) {
  r.start();
  double x = 1;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool done = false;
  while (!done && std::chrono::steady_clock::now() < until) {
    x = compute(x);
    done = r.test();
  }
  CHECK(x > 0);
  r.wait();
  return done;
}

/// Moves random case c with `t` on a progress thread, twice on one Redistributor; returns
/// the elements wrong on this rank (target and source).
template <class T, class SrcShape, class DstShape>
index_t run_case(const boost::mpi::communicator& comm, const Case& c, SrcShape src_shape,
                 DstShape dst_shape, const Transform<T>& t) {
  return with_case_matrices<T, PackedTiles<>>(
      comm, c, std::move(src_shape), std::move(dst_shape), [&](auto& a, auto& b) {
        Redistributor r(a, b, comm, c.region, t, PlanOptions{}, on_a_thread(256));
        index_t bad = 0;
        for (int round = 0; round < 2; ++round) {
          b.for_each_element([](ElementIndex e, T& v) { v = initial_at<T>(e); });
          CHECK(overlapped(r));
          CHECK(r.tasks_left() == 0);
          CHECK(r.tasks_run() == r.task_graph().counts());
          b.for_each_element(
              [&](ElementIndex e, T& v) { bad += !(v == expected_at(c.region, t, e)); });
        }
        return bad + source_errors(a);
      });
}

template <class T>
void check_random_cases(const boost::mpi::communicator& comm, unsigned seed, int cases) {
  Rng g(seed);
  const std::vector<Op> ops = random_ops<T>();
  for (int k = 0; k < cases; ++k) {
    const Op op = ops[static_cast<std::size_t>(k) % ops.size()];
    const Case c = random_case(g, comm.size(), op, k % 4 == 0 ? 3 : 12);
    const Transform<T> t = random_transform<T>(k, op);
    CAPTURE(k);
    const index_t bad =
        with_tilings(c, [&](auto s, auto d) { return run_case<T>(comm, c, s, d, t); });
    CHECK(sum(comm, bad) == 0);
  }
}

}  // namespace

TEST_CASE("mpi: a progress thread moves random layouts, regions and transforms") {
  const boost::mpi::communicator comm;
  check_random_cases<double>(comm, 4401, 16);
  check_random_cases<std::complex<float>>(comm, 4402, 8);
}

TEST_CASE(
    "mpi: a progress thread over the node window, shared sources or targets, batches, small "
    "rings") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  Layout src{uniform(150, 130, 16, 10), BlockCyclic(P, Q)};  // not const: node_shared_matrix's
  Layout dst{uniform(150, 130, 9, 13), BlockCyclic(Q, P)};   // type is TiledMatrix's
  const Region region{{120, 100}, {7, 5}, {20, 11}};         // displaced: the target has an outside
  for (const char* window : window_settings())
    for (const int shared : {0, 1, 2})  // private, node-shared source (direct), target (push)
      for (const index_t batch : {index_t{0}, index_t{2}})
        for (const bool small_rings : {false, true}) {
          const ScopedEnv w("REDIST_SHARED_WINDOW", window);
          CAPTURE(window);
          CAPTURE(shared);
          CAPTURE(batch);
          CAPTURE(small_rings);
          auto a = shared == 1 ? node_shared_matrix<double>(src, TilePerAllocation<>{}, comm)
                               : TiledMatrix<double, decltype(src), TilePerAllocation<>>(
                                     src, {}, comm.rank());
          auto b = shared == 2 ? node_shared_matrix<double>(dst, ScalapackColumnMajor<>{}, comm)
                               : TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>>(
                                     dst, {}, comm.rank());
          fill_source(a);
          PlanOptions o;
          o.batch = batch;
          ExecutionOptions x = on_a_thread(512);
          x.push_min_run_bytes = 0;  // a node-shared target pushed, however short its runs
          if (small_rings) {
            x.ring_slots = 2;
            x.ring_slot_bytes = 1024;
          }
          Redistributor r(a, b, comm, region, o, x);
          CHECK(r.execution_options().progress == ProgressPolicy::thread);
          for (int round = 0; round < 3; ++round) {  // one thread, kept between executions
            CAPTURE(round);
            fill_sentinel(b);
            if (round == 1) {
              r.start();
              r.wait();  // blocks until the thread is done, without test()
            } else {
              CHECK(overlapped(r));
            }
            CHECK(!r.running());
            index_t checked = 0;
            CHECK(sum(comm, target_errors(b, region, checked)) == 0);
            CHECK(sum(comm, checked) == 150 * 130);
            CHECK(sum(comm, source_errors(a)) == 0);
          }
          // redistribute() runs on the caller's thread, and alike.
          fill_sentinel(b);
          r.redistribute();
          index_t checked = 0;
          CHECK(sum(comm, target_errors(b, region, checked)) == 0);
          CHECK(sum(comm, checked) == 150 * 130);
        }
}

TEST_CASE("mpi: an executor destroyed while its progress thread moves lets the move finish") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(200, 170, 12, 20), BlockCyclic(1, np)};
  const Layout dst{uniform(200, 170, 30, 7), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, comm.rank());
  fill_source(a);
  fill_sentinel(b);
  const Region whole = Region::whole({200, 170});
  {
    Redistributor r(a, b, comm, whole, PlanOptions{}, on_a_thread(256));
    r.start();
  }  // no wait(): the destructor waits for the thread's job, then ends it
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, whole, checked)) == 0);
  CHECK(sum(comm, checked) == 200 * 170);
}

TEST_CASE("progress thread: MPI below MPI_THREAD_SERIALIZED is refused, naming the option") {
  using engine::progress_thread_refusal;
  for (const int level : {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED}) {
    const std::string why = progress_thread_refusal(level);
    CHECK(why.find("ExecutionOptions::progress = thread") != std::string::npos);
    CHECK(why.find(engine::mpi_thread_level_name(level)) != std::string::npos);
    CHECK(why.find("MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE") != std::string::npos);
  }
  CHECK(progress_thread_refusal(MPI_THREAD_SERIALIZED).empty());
  CHECK(progress_thread_refusal(MPI_THREAD_MULTIPLE).empty());
  // This suite initializes MPI serialized: the check lets the thread run.
  int provided = 0;
  MPI_Query_thread(&provided);
  CHECK(provided >= MPI_THREAD_SERIALIZED);
  CHECK_NOTHROW(engine::require_progress_thread_support());
}

TEST_CASE("progress thread: a job's error reaches join(), and the thread serves the next job") {
  engine::ProgressThread t;
  CHECK(!t.launched());
  CHECK(t.done());
  int ran = 0;
  t.launch([&] { ++ran; });
  CHECK(t.launched());
  t.join();
  CHECK(ran == 1);
  CHECK(!t.launched());
  t.launch([] { throw communication_error("redist: the peer went away"); });
  CHECK_THROWS_WITH_AS(t.join(), "redist: the peer went away", communication_error);
  bool marked = false;
  t.launch([&] { marked = detail::on_progress_thread; });
  while (!t.done()) std::this_thread::yield();
  t.join();
  CHECK(marked);                       // its copies run in a plain loop (run_copies.hpp)
  CHECK(!detail::on_progress_thread);  // the caller is not the progress thread
}
