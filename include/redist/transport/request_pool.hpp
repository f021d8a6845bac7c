#pragma once
/// @file transport/request_pool.hpp
/// The requests of one execution: those whose completion means something (receives,
/// notes, acks), each with its Completion, and the sends, which only have to be done
/// before their buffer is reused. Each request knows its peer and its bytes, so that a
/// transfer that stops progressing (a dead link, a peer that never comes) ends in an error
/// naming them instead of a hang: blocking waits give up after the progress timeout
/// (ExecutionOptions::progress_timeout_seconds) passes without any request completing.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>
#include <boost/mpi/status.hpp>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/transport/transport.hpp>

namespace redist::transport {

/// Who a request waits on, and how many bytes it carries.
struct Pending {
  int peer = -1;
  index_t bytes = 0;
};

class RequestPool {
 public:
  /// A request whose completion the executor must hear about.
  void post(const Completion& e, boost::mpi::request r, Pending what) {
    requests_.push_back(std::move(r));
    events_.push_back(e);
    pending_.push_back(what);
  }
  /// A send: done before wait_sends() returns.
  void post_send(boost::mpi::request r, Pending what) {
    sends_.push_back(std::move(r));
    send_pending_.push_back(what);
  }

  bool empty() const { return requests_.empty(); }
  std::size_t size() const { return requests_.size(); }

  /// Seconds a blocking wait may go without any request completing; <= 0: forever.
  void set_progress_timeout(double seconds) { timeout_ = seconds; }

  /// A completed request, if any, without blocking.
  std::optional<Completion> test() {
    if (requests_.empty()) return std::nullopt;
    const auto done = boost::mpi::test_any(requests_.begin(), requests_.end());
    if (!done) return std::nullopt;
    return take(static_cast<std::size_t>(done->second - requests_.begin()));
  }
  /// Blocks until a request completes. @pre !empty()
  /// @throws communication_error when none completes within the progress timeout.
  Completion wait() {
    const Clock::time_point since = Clock::now();
    for (;;) {
      if (auto e = test()) return *e;
      if (timed_out(since)) stalled("a transfer");
    }
  }
  /// Takes the sends that are done, without blocking; true when none is left.
  bool test_sends() {
    while (!sends_.empty()) {
      const auto done = boost::mpi::test_any(sends_.begin(), sends_.end());
      if (!done) return false;
      drop_send(static_cast<std::size_t>(done->second - sends_.begin()));
    }
    return true;
  }
  /// Blocks until every send is done.
  /// @throws communication_error when none completes within the progress timeout.
  void wait_sends() {
    Clock::time_point since = Clock::now();
    while (!sends_.empty()) {
      const auto done = boost::mpi::test_any(sends_.begin(), sends_.end());
      if (done) {
        drop_send(static_cast<std::size_t>(done->second - sends_.begin()));
        since = Clock::now();
      } else if (timed_out(since)) {
        stalled("a send");
      }
    }
  }
  /// Cancels the receives still outstanding and waits for them (after an error, before
  /// their buffers go away). Sends are left to complete: MPI cannot cancel them reliably.
  void cancel_receives() {
    for (auto& r : requests_) r.cancel();
    boost::mpi::wait_all(requests_.begin(), requests_.end());
    requests_.clear();
    events_.clear();
    pending_.clear();
  }
  /// Forgets everything (a new execution). @pre nothing outstanding.
  void clear() {
    requests_.clear();
    events_.clear();
    pending_.clear();
    sends_.clear();
    send_pending_.clear();
  }

 private:
  using Clock = std::chrono::steady_clock;

  bool timed_out(Clock::time_point since) const {
    return timeout_ > 0 && std::chrono::duration<double>(Clock::now() - since).count() > timeout_;
  }
  /// Throws the error naming every peer still owed bytes (receives and sends).
  [[noreturn]] void stalled(const char* what) const {
    std::map<int, std::pair<index_t, index_t>> owed;  // peer -> (to receive, to send)
    for (const Pending& p : pending_) owed[p.peer].first += p.bytes;
    for (const Pending& p : send_pending_) owed[p.peer].second += p.bytes;
    std::ostringstream os;
    os << "redist: " << what << " made no progress for " << timeout_
       << " s (ExecutionOptions::progress_timeout_seconds, REDIST_PROGRESS_TIMEOUT); "
          "outstanding:";
    const char* sep = " ";
    for (const auto& [peer, bytes] : owed) {
      os << sep << "rank " << peer << " (" << bytes.first << " bytes to receive, " << bytes.second
         << " to send)";
      sep = ", ";
    }
    throw progress_timeout_error(os.str());
  }

  /// Drops send k (O(1): the last one takes its place).
  void drop_send(std::size_t k) {
    sends_[k] = std::move(sends_.back());
    sends_.pop_back();
    send_pending_[k] = send_pending_.back();
    send_pending_.pop_back();
  }
  /// Drops request k (O(1): the last one takes its place) and returns its Completion.
  Completion take(std::size_t k) {
    const Completion e = events_[k];
    requests_[k] = std::move(requests_.back());
    requests_.pop_back();
    events_[k] = events_.back();
    events_.pop_back();
    pending_[k] = pending_.back();
    pending_.pop_back();
    return e;
  }

  std::vector<boost::mpi::request> requests_;
  std::vector<Completion> events_;
  std::vector<Pending> pending_;
  std::vector<boost::mpi::request> sends_;
  std::vector<Pending> send_pending_;
  double timeout_ = 0;
};

}  // namespace redist::transport
