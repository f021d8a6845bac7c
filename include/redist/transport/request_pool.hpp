#pragma once
/// @file transport/request_pool.hpp
/// The requests of one execution: those whose completion means something (receives,
/// notes, acks), each with its Completion, and the sends, which only have to be done
/// before their buffer is reused.

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>

#include <redist/transport/transport.hpp>

namespace redist::transport {

class RequestPool {
 public:
  /// A request whose completion the executor must hear about.
  void post(const Completion& e, boost::mpi::request r) {
    requests_.push_back(std::move(r));
    events_.push_back(e);
  }
  /// A send: done before wait_sends() returns.
  void post_send(boost::mpi::request r) { sends_.push_back(std::move(r)); }

  bool empty() const { return requests_.empty(); }
  std::size_t size() const { return requests_.size(); }

  /// A completed request, if any, without blocking.
  std::optional<Completion> test() {
    if (requests_.empty()) return std::nullopt;
    const auto done = boost::mpi::test_any(requests_.begin(), requests_.end());
    if (!done) return std::nullopt;
    return take(static_cast<std::size_t>(done->second - requests_.begin()));
  }
  /// Blocks until a request completes. @pre !empty()
  Completion wait() {
    const auto done = boost::mpi::wait_any(requests_.begin(), requests_.end()).second;
    return take(static_cast<std::size_t>(done - requests_.begin()));
  }
  void wait_sends() {
    boost::mpi::wait_all(sends_.begin(), sends_.end());
    sends_.clear();
  }
  /// Forgets everything (a new execution). @pre nothing outstanding.
  void clear() {
    requests_.clear();
    events_.clear();
    sends_.clear();
  }

 private:
  /// Drops request k (O(1): the last one takes its place) and returns its Completion.
  Completion take(std::size_t k) {
    const Completion e = events_[k];
    requests_[k] = std::move(requests_.back());
    requests_.pop_back();
    events_[k] = events_.back();
    events_.pop_back();
    return e;
  }

  std::vector<boost::mpi::request> requests_;
  std::vector<Completion> events_;
  std::vector<boost::mpi::request> sends_;
};

}  // namespace redist::transport
