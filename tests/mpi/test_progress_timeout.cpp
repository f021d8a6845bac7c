// The progress timeout of the request pool (transport/request_pool.hpp): a receive that is
// never matched, and a send that is never received, end in the library's error naming the
// peer and the bytes outstanding once no request has completed for the timeout; without a
// timeout set, a request that completes is waited for as before.
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/transport/request_pool.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using transport::Completion;
using transport::RequestPool;

constexpr int unused_tag = 424242;

}  // namespace

TEST_CASE("progress timeout: an unmatched receive ends in an error naming its peer") {
  const boost::mpi::communicator comm;
  const int peer = (comm.rank() + 1) % comm.size();
  std::vector<char> in(64);
  RequestPool pool;
  pool.set_progress_timeout(0.2);
  pool.post(Completion{}, comm.irecv(peer, unused_tag, in.data(), 64), {peer, 64});
  const std::string want = "rank " + std::to_string(peer) + " (64 bytes to receive, 0 to send)";
  CHECK_THROWS_WITH_AS(pool.wait(), doctest::Contains(want.c_str()), progress_timeout_error);
  CHECK_THROWS_WITH_AS(pool.wait(), doctest::Contains("REDIST_PROGRESS_TIMEOUT"),
                       communication_error);
  pool.cancel_receives();
  CHECK(pool.empty());
  comm.barrier();
}

TEST_CASE("progress timeout: a send never received ends in an error naming its peer") {
  const boost::mpi::communicator comm;
  const int peer = (comm.rank() + 1) % comm.size(),
            from = (comm.rank() + comm.size() - 1) % comm.size();
  // Large enough that MPI cannot buffer it: it completes only when received.
  const int bytes = 16 << 20;
  std::vector<char> out(static_cast<std::size_t>(bytes), 'x'), in(out.size());
  RequestPool pool;
  pool.set_progress_timeout(0.2);
  pool.post_send(comm.isend(peer, unused_tag, out.data(), bytes), {peer, bytes});
  const std::string want = "rank " + std::to_string(peer) + " (0 bytes to receive, " +
                           std::to_string(bytes) + " to send)";
  CHECK_THROWS_WITH_AS(pool.wait_sends(), doctest::Contains(want.c_str()), progress_timeout_error);
  // Now the receive comes (after every rank's wait gave up), and the same wait completes.
  comm.barrier();
  comm.recv(from, unused_tag, in.data(), bytes);
  pool.wait_sends();
  CHECK(in == out);
  comm.barrier();
}

TEST_CASE("progress timeout: off by default, and a completing request is waited for") {
  const boost::mpi::communicator comm;
  const int peer = (comm.rank() + 1) % comm.size(),
            from = (comm.rank() + comm.size() - 1) % comm.size();
  int in = -1, out = comm.rank();
  RequestPool pool;
  pool.post(Completion{}, comm.irecv(from, unused_tag + 1, &in, 1), {from, 4});
  pool.post_send(comm.isend(peer, unused_tag + 1, &out, 1), {peer, 4});
  (void)pool.wait();
  pool.wait_sends();
  CHECK(in == from);
  CHECK(pool.empty());
}
