#pragma once
/// @file transport/ring_signals.hpp
/// The node window's ring chunks announced and acked through counters in shared memory,
/// not MPI messages (transport/shared_window.hpp): a receiver sees a chunk, and a sender
/// a freed slot, within a cache-line transfer of its peer's store, whether or not the peer
/// is inside MPI. A ring paced by MPI notes and acks waited for each peer's next poll
/// (bench/README.md, "One pass over the source": 700-1600 empty polls a move).
///
/// Per ordered pair of node ranks (s, r), in s's part of a node window of its own:
///   shipped[r]          chunks s has shipped to r, all executions together
///   offset[r][k mod D]  where chunk k to r lies in s's send part (elements)
/// and in r's part:
///   unpacked[s]         chunks from s that r has unpacked, in the order they were shipped
/// Each counter on a cache line of its own. s writes offset[r][k mod D] and then stores
/// shipped[r] = k + 1 (release); r loads shipped (acquire) and then reads the offset. A
/// sender has at most its ring's slots S in flight to one receiver (one message a batch, in
/// one lane: transport/ring_slots.hpp; a batch opens once the last one is acked), and
/// D = 2 S, so an offset is read before it is written again. Counts never reset:
/// both sides count the same chunks in every execution.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/node_shared.hpp>
#include <redist/topology.hpp>

namespace redist::transport {

class RingSignals {
 public:
  /// The counters of every rank of comm's nodes, zero, for rings of `slots` slots.
  /// Collective over comm.
  static std::shared_ptr<RingSignals> create(const boost::mpi::communicator& comm, index_t slots) {
    REDIST_EXPECTS(slots >= 1);
    auto s = std::shared_ptr<RingSignals>(new RingSignals);
    s->ranks_ = static_cast<int>(node_map(comm).node_size());
    s->offsets_ = 2 * slots;
    s->window_ = redist::detail::NodeWindow::create(comm, static_cast<std::size_t>(s->bytes()),
                                                    redist::detail::NodeWindow::Fill::zero);
    s->node_rank_ = s->window_->node_ranks(comm);
    return s;
  }

  /// Node rank of comm rank q (-1 off this node).
  int node_rank(int q) const { return node_rank_[static_cast<std::size_t>(q)]; }

  /// Chunk k (counted over every execution) to comm rank r lies at `offset` elements in
  /// our send part: tells r.
  void ship(int r, std::int64_t k, std::int64_t offset) {
    const int me = window_->node_rank(), to = node_rank(r);
    *offset_at(me, to, k) = offset;
    counter(me, shipped_line(to)).store(k + 1, std::memory_order_release);
  }
  /// Chunks comm rank s has shipped to us so far.
  std::int64_t shipped_by(int s) const {
    return counter(node_rank(s), shipped_line(window_->node_rank()))
        .load(std::memory_order_acquire);
  }
  /// Where chunk k from comm rank s lies in s's send part. @pre k < shipped_by(s).
  std::int64_t offset_from(int s, std::int64_t k) const {
    return *offset_at(node_rank(s), window_->node_rank(), k);
  }
  /// We have unpacked the first `count` chunks comm rank s shipped us.
  void unpacked(int s, std::int64_t count) {
    counter(window_->node_rank(), unpacked_line(node_rank(s)))
        .store(count, std::memory_order_release);
  }
  /// Chunks we shipped that comm rank r has unpacked so far.
  std::int64_t unpacked_by(int r) const {
    return counter(node_rank(r), unpacked_line(window_->node_rank()))
        .load(std::memory_order_acquire);
  }

  /// Bytes of this rank's part: a line per counter, then the offsets, R x D of 8 bytes.
  index_t bytes() const {
    return 2 * ranks_ * line + ranks_ * offsets_ * static_cast<index_t>(sizeof(std::int64_t));
  }

 private:
  static constexpr index_t line = 64;
  RingSignals() = default;

  index_t shipped_line(int r) const { return r; }
  index_t unpacked_line(int s) const { return ranks_ + s; }

  std::atomic_ref<std::int64_t> counter(int owner, index_t line_index) const {
    auto* p = reinterpret_cast<std::int64_t*>(window_->base(owner) + line_index * line);
    return std::atomic_ref<std::int64_t>(*p);
  }
  std::int64_t* offset_at(int owner, int peer, std::int64_t k) const {
    auto* first = reinterpret_cast<std::int64_t*>(window_->base(owner) + 2 * ranks_ * line);
    return first + peer * offsets_ + k % offsets_;
  }

  std::shared_ptr<redist::detail::NodeWindow> window_;
  std::vector<int> node_rank_;  ///< per comm rank
  int ranks_ = 0;               ///< ranks of this node
  index_t offsets_ = 0;         ///< D: offsets kept per pair
};

}  // namespace redist::transport
