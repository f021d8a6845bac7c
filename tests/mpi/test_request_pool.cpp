// The request pool's polling (transport/request_pool.hpp): many receives and sends
// outstanding at once, plain and serialized requests mixed, every completion handed out
// exactly once whatever order MPI completes them in, and the data where it belongs; and
// the yielding barrier and all-reduce (transport/yielding_collectives.hpp), and their timeout.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>

#include <redist/transport/request_pool.hpp>
#include <redist/transport/yielding_collectives.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using transport::Completion;
using transport::RequestPool;
using transport::RequestSet;

constexpr int pool_tag = 424300;

}  // namespace

TEST_CASE("request pool: every completion once, plain and serialized requests mixed") {
  const boost::mpi::communicator comm;
  const int to = (comm.rank() + 1) % comm.size(),
            from = (comm.rank() + comm.size() - 1) % comm.size();
  constexpr std::size_t n = 300;  // more than MPI completes in one progress pass
  std::vector<std::vector<double>> in(n), out(n);
  std::vector<std::string> text_in(n), text_out(n);
  RequestPool pool;
  // Posted in one order, sent in the reverse one: completions arrive out of post order.
  for (std::size_t i = 0; i < n; ++i) {
    const int tag = pool_tag + static_cast<int>(i);
    in[i].assign(i % 7 + 1, -1.0);
    if (i % 5 == 0)  // a std::string travels serialized: not a plain MPI request
      pool.post(Completion{Transport::point_to_point, transport::Signal::note, i},
                comm.irecv(from, tag, text_in[i]), {from, 0});
    else
      pool.post(Completion{Transport::point_to_point, transport::Signal::data, i},
                comm.irecv(from, tag, in[i].data(), static_cast<int>(in[i].size())),
                {from, static_cast<index_t>(in[i].size() * sizeof(double))});
  }
  for (std::size_t k = n; k-- > 0;) {
    const int tag = pool_tag + static_cast<int>(k);
    if (k % 5 == 0) {
      text_out[k] = "rank " + std::to_string(comm.rank()) + " piece " + std::to_string(k);
      pool.post_send(comm.isend(to, tag, text_out[k]), {to, 0});
    } else {
      out[k].assign(k % 7 + 1, 1000.0 * comm.rank() + static_cast<double>(k));
      pool.post_send(comm.isend(to, tag, out[k].data(), static_cast<int>(out[k].size())),
                     {to, static_cast<index_t>(out[k].size() * sizeof(double))});
    }
  }
  CHECK(pool.size() == n);
  std::vector<int> seen(n, 0);
  while (!pool.empty()) {
    std::optional<Completion> got = pool.test();
    const Completion e = got ? *got : pool.wait();
    REQUIRE(e.index < n);
    ++seen[e.index];
    CHECK((e.signal == transport::Signal::note) == (e.index % 5 == 0));
  }
  pool.wait_sends();
  CHECK(pool.test_sends());
  CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  for (std::size_t i = 0; i < n; ++i)
    if (i % 5 == 0)
      CHECK(text_in[i] == "rank " + std::to_string(from) + " piece " + std::to_string(i));
    else
      CHECK(in[i] == std::vector<double>(i % 7 + 1, 1000.0 * from + static_cast<double>(i)));
  comm.barrier();
}

TEST_CASE("request set: completed requests leave, the rest stay; cancel empties it") {
  const boost::mpi::communicator comm;
  const int to = (comm.rank() + 1) % comm.size(),
            from = (comm.rank() + comm.size() - 1) % comm.size();
  RequestSet<int> set;
  int matched = -1, never = -1, value = comm.rank();
  set.add(comm.irecv(from, pool_tag - 1, &never, 1), 7);  // nobody sends this one
  set.add(comm.irecv(from, pool_tag - 2, &matched, 1), 8);
  comm.send(to, pool_tag - 2, &value, 1);
  std::vector<int> taken;
  while (taken.empty()) set.take_completed([&](int tag) { taken.push_back(tag); });
  CHECK(taken == std::vector<int>{8});
  CHECK(matched == from);
  CHECK(set.size() == 1);
  CHECK(set.tags() == std::vector<int>{7});
  CHECK(set.take_completed([](int) {}) == 0);
  set.cancel_all();
  CHECK(set.empty());
  comm.barrier();
}

TEST_CASE("yielding collectives: the barrier waits for the last rank, the reductions agree") {
  const boost::mpi::communicator comm;
  const int n = comm.size(), me = comm.rank();
  // The last rank arrives 200 ms late: every other rank waits for it (a margin of 100 ms
  // for ranks that leave the first barrier at different times).
  transport::barrier_yielding(comm);
  const auto t0 = std::chrono::steady_clock::now();
  if (me == n - 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  transport::barrier_yielding(comm);
  if (me != n - 1) CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(100));
  for (int round = 0; round < 3; ++round) {
    transport::barrier_yielding(comm);
    const double t = me == (round % n) ? 1.0 + round : 0.0;
    CHECK(transport::max_yielding(comm, t) == 1.0 + round);
  }
  CHECK(transport::all_reduce_yielding(comm, static_cast<long>(me + 1), MPI_SUM) ==
        static_cast<long>(n) * (n + 1) / 2);
  CHECK(transport::all_reduce_yielding(comm, -static_cast<double>(me), MPI_MIN) ==
        -static_cast<double>(n - 1));
  CHECK(transport::max_yielding(comm, 1e300 * (me == n - 1)) == 1e300);
  std::int64_t big = std::int64_t{1} << 40;
  CHECK(transport::all_reduce_yielding(comm, big * me, MPI_MAX) == big * (n - 1));
}

TEST_CASE("yielding collectives: a wait gives up after its timeout, naming what it waited for") {
  const boost::mpi::communicator world;
  // A communicator of its own: the barrier given up on completes there, unseen by the rest.
  const boost::mpi::communicator comm(world, boost::mpi::comm_duplicate);
  const int n = comm.size(), me = comm.rank();
  if (n == 1) {  // nobody to wait for: the timeout never fires
    transport::barrier_yielding(comm, 0.05);
    CHECK(transport::max_yielding(comm, 2.0, 0.05) == 2.0);
    return;
  }
  // The last rank arrives 500 ms late; the others give up after 100 ms.
  if (me == n - 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    transport::barrier_yielding(comm);
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      transport::barrier_yielding(comm, 0.1);
      FAIL("the barrier completed before the last rank arrived");
    } catch (const progress_timeout_error& e) {
      const std::string what = e.what();
      CHECK(what.find("a barrier did not complete in 0.1 s") != std::string::npos);
      CHECK(what.find("REDIST_PROGRESS_TIMEOUT") != std::string::npos);
    }
    const auto waited = std::chrono::steady_clock::now() - t0;
    CHECK(waited >= std::chrono::milliseconds(100));
    CHECK(waited < std::chrono::milliseconds(450));
  }
  // Everyone present: with a timeout the reductions still agree.
  transport::barrier_yielding(world);
  CHECK(transport::max_yielding(world, static_cast<double>(me), 60.0) == n - 1.0);
}
