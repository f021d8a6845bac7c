#pragma once
/// @file transport/request_pool.hpp
/// The requests of one execution: those whose completion means something (receives,
/// notes, acks), each with its Completion, and the sends, which only have to be done
/// before their buffer is reused. Each request knows its peer and its bytes, so that a
/// transfer that stops progressing (a dead link, a peer that never comes) ends in an error
/// naming them instead of a hang: blocking waits give up after the progress timeout
/// (ExecutionOptions::progress_timeout_seconds) passes without any request completing.
///
/// One poll is one MPI_Testsome over every outstanding request, on the MPI handles of
/// Boost.MPI's plain ("trivial") requests. boost::mpi::test_any tests request after request,
/// and each MPI_Test of an unfinished request runs MPI's progress engine once (a `poll` of
/// every TCP socket, in Open MPI): with a thousand pieces outstanding, a thousand passes per
/// poll. Boost.MPI's own wait_any and test_all take the same route for trivial requests.
/// Requests that are not trivial (serialized types) are still tested one by one.
///
/// A blocking wait yields the core between polls that find nothing done, as the executor's
/// polls do inside wait() (docs/transports.md, "Waiting yields").

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include <boost/mpi/exception.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>
#include <boost/mpi/status.hpp>
#include <mpi.h>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/transport/transport.hpp>

namespace redist::transport {

/// Who a request waits on, and how many bytes it carries.
struct Pending {
  int peer = -1;
  index_t bytes = 0;
};

/// Outstanding requests, each with a tag of type Tag, tested together. Completed ones
/// leave the set (the last takes the place of each: order is not kept).
template <class Tag>
class RequestSet {
 public:
  void add(boost::mpi::request r, const Tag& tag) {
    const auto handle = r.trivial();
    raw_.push_back(handle ? *handle : MPI_REQUEST_NULL);
    if (!handle) ++not_trivial_;
    requests_.push_back(std::move(r));
    tags_.push_back(tag);
  }
  bool empty() const { return requests_.empty(); }
  std::size_t size() const { return requests_.size(); }
  const std::vector<Tag>& tags() const { return tags_; }

  /// Removes every request that has completed, without blocking, and calls f(tag) for
  /// each; returns how many. One pass of MPI's progress engine for the trivial ones.
  template <class F>
  std::size_t take_completed(F&& f) {
    if (requests_.empty()) return 0;
    done_.clear();
    int count = 0;
    indices_.resize(raw_.size());
    BOOST_MPI_CHECK_RESULT(MPI_Testsome, (static_cast<int>(raw_.size()), raw_.data(), &count,
                                          indices_.data(), MPI_STATUSES_IGNORE));
    if (count != MPI_UNDEFINED)
      for (int k = 0; k < count; ++k) {
        const auto i = static_cast<std::size_t>(indices_[static_cast<std::size_t>(k)]);
        *requests_[i].trivial() = MPI_REQUEST_NULL;  // MPI freed it: Boost's copy follows
        done_.push_back(i);
      }
    if (not_trivial_ > 0)
      for (std::size_t i = 0; i < requests_.size(); ++i)
        if (!requests_[i].trivial() && requests_[i].test()) done_.push_back(i);
    // Highest index first, so that each removal leaves the indices still to remove valid.
    std::sort(done_.begin(), done_.end(), std::greater<>());
    for (const std::size_t i : done_) f(remove(i));
    return done_.size();
  }

  /// Cancels every request and waits for them; the set is then empty.
  void cancel_all() {
    for (auto& r : requests_) r.cancel();
    boost::mpi::wait_all(requests_.begin(), requests_.end());
    clear();
  }
  /// Forgets every request. @pre none outstanding.
  void clear() {
    raw_.clear();
    requests_.clear();
    tags_.clear();
    not_trivial_ = 0;
  }

 private:
  Tag remove(std::size_t i) {
    if (!requests_[i].trivial()) --not_trivial_;
    Tag tag = std::move(tags_[i]);
    raw_[i] = raw_.back();
    raw_.pop_back();
    requests_[i] = std::move(requests_.back());
    requests_.pop_back();
    tags_[i] = std::move(tags_.back());
    tags_.pop_back();
    return tag;
  }

  std::vector<MPI_Request> raw_;  ///< the trivial requests' handles; MPI_REQUEST_NULL else
  std::vector<boost::mpi::request> requests_;
  std::vector<Tag> tags_;
  std::size_t not_trivial_ = 0;
  std::vector<int> indices_;       ///< MPI_Testsome's output
  std::vector<std::size_t> done_;  ///< completed in this pass
};

class RequestPool {
 public:
  /// A request whose completion the executor must hear about.
  void post(const Completion& e, boost::mpi::request r, Pending what) {
    receives_.add(std::move(r), {e, what});
  }
  /// A send: done before wait_sends() returns.
  void post_send(boost::mpi::request r, Pending what) { sends_.add(std::move(r), what); }

  bool empty() const { return receives_.empty() && completed_.empty(); }
  std::size_t size() const { return receives_.size() + completed_.size(); }

  /// Seconds a blocking wait may go without any request completing; <= 0: forever.
  void set_progress_timeout(double seconds) { timeout_ = seconds; }
  /// Whether the progress timeout has passed since `since`.
  bool timed_out(std::chrono::steady_clock::time_point since) const {
    return timeout_ > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count() >
               timeout_;
  }
  /// Throws the progress timeout's error for `what`, naming every peer still owed bytes
  /// by a request and, after them, `more` (what else is outstanding: "rank 3 (...)").
  [[noreturn]] void stalled(const char* what, const std::string& more = {}) const {
    std::map<int, std::pair<index_t, index_t>> owed;  // peer -> (to receive, to send)
    for (const Received& r : receives_.tags()) owed[r.pending.peer].first += r.pending.bytes;
    for (const Pending& p : sends_.tags()) owed[p.peer].second += p.bytes;
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
    if (!more.empty()) os << (owed.empty() ? " " : ", ") << more;
    throw progress_timeout_error(os.str());
  }

  /// A completed request, if any, without blocking.
  std::optional<Completion> test() {
    if (completed_.empty())
      receives_.take_completed([&](const Received& r) { completed_.push_back(r.completion); });
    if (completed_.empty()) return std::nullopt;
    const Completion e = completed_.front();
    completed_.pop_front();
    return e;
  }
  /// Blocks until a request completes. @pre !empty()
  /// @throws communication_error when none completes within the progress timeout.
  Completion wait() {
    const Clock::time_point since = Clock::now();
    for (;;) {
      if (auto e = test()) return *e;
      if (timed_out(since)) stalled("a transfer");
      std::this_thread::yield();
    }
  }
  /// Takes the sends that are done, without blocking; true when none is left.
  bool test_sends() {
    sends_.take_completed([](const Pending&) {});
    return sends_.empty();
  }
  /// Blocks until every send is done.
  /// @throws communication_error when none completes within the progress timeout.
  void wait_sends() {
    Clock::time_point since = Clock::now();
    while (!sends_.empty()) {
      if (sends_.take_completed([](const Pending&) {}) > 0)
        since = Clock::now();
      else if (timed_out(since))
        stalled("a send");
      else
        std::this_thread::yield();
    }
  }
  /// Cancels the receives still outstanding and waits for them (after an error, before
  /// their buffers go away). Sends are left to complete: MPI cannot cancel them reliably.
  void cancel_receives() {
    receives_.cancel_all();
    completed_.clear();
  }
  /// Forgets everything (a new execution). @pre nothing outstanding.
  void clear() {
    receives_.clear();
    completed_.clear();
    sends_.clear();
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Received {
    Completion completion;
    Pending pending;
  };

  RequestSet<Received> receives_;
  std::deque<Completion> completed_;  ///< taken from MPI, not yet handed to the executor
  RequestSet<Pending> sends_;
  double timeout_ = 0;
};

}  // namespace redist::transport
