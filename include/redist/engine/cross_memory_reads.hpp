#pragma once
/// @file engine/cross_memory_reads.hpp
/// The reads of received cross-memory messages (Transport::cross_memory), bound once per
/// chunk: lists of (peer address, local address, bytes) that one process_vm_readv gather
/// moves (transport/cross_memory_io.hpp). A plain move (op n, alpha 1, beta 0) reads each
/// segment's columns straight into the target: one copy per element, no buffer. A
/// transform reads a chunk's segments into a bounce buffer of one chunk (cache-sized),
/// from which the chunk's unpack copies compute the target, so the data still crosses
/// memory once.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <redist/engine/chunking.hpp>
#include <redist/engine/matrix_sides.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transport/cross_memory_io.hpp>

namespace redist::engine {

template <class T>
class CrossMemoryReads {
 public:
  /// Room for the chunks of `recv`; a bounce buffer for the largest chunk of a message
  /// that travels cross-memory when `bounce`.
  void reserve(const Chunking& recv, const std::vector<Transport>& how, bool bounce) {
    range_.reserve(recv.chunks.size());
    pid_.reserve(recv.chunks.size());
    index_t largest = 0;
    for (const Chunk& ch : recv.chunks)
      if (how[ch.message] == Transport::cross_memory) largest = std::max(largest, ch.elements);
    if (bounce) bounce_.resize(static_cast<std::size_t>(largest));
  }

  /// Reads slice s of the chunk being bound from the peer's segments (`from`, advanced)
  /// straight into `dst`, a matrix side. @pre op n: segments are not transposed.
  template <class Dst>
  void read_into(const Plan& plan, const FamilyList& d, const Slice& s,
                 const DescribedSide<T>& from, const Dst& dst) {
    for_each_slice_segment(plan, d, s, [&](index_t, index_t, const Piece& r, const Piece& col) {
      const auto [remote, lds] = *from.next++;
      const auto [local, ldd] = dst.at(r, col);
      add_columns(remote, lds, local, ldd, r.length, col.length);
    });
  }

  /// Reads slice s of the chunk being bound from the peer's segments (`from`, advanced)
  /// into the bounce buffer, each segment's columns back to back; appends where each
  /// segment landed, with its leading dimension, to `landed` (in binding order, for the
  /// unpack copies).
  void read_bounced(const Plan& plan, const FamilyList& d, const Slice& s,
                    const DescribedSide<T>& from, std::vector<Address<T>>& landed) {
    for_each_slice_segment(plan, d, s, [&](index_t, index_t, const Piece& r, const Piece& col) {
      const auto [remote, lds] = *from.next++;
      // op(A)'s rows are A's columns when the peer's source is read transposed.
      const index_t rows = from.transposed ? col.length : r.length;
      const index_t cols = from.transposed ? r.length : col.length;
      T* at = bounce_.data() + bounce_used_;
      add_columns(remote, lds, at, rows, rows, cols);
      landed.emplace_back(at, rows);
      bounce_used_ += rows * cols;
    });
  }

  /// Closes the reads of the chunk being bound (none for a chunk of another transport):
  /// they come from process `pid`.
  void end_chunk(pid_t pid) {
    range_.emplace_back(first_, pieces_.size());
    pid_.push_back(pid);
    first_ = pieces_.size();
    bounce_used_ = 0;
  }

  /// Runs the reads of received chunk c, if it has any.
  /// @throws communication_error naming the peer's process and the bytes not read.
  void read(std::size_t c) const {
    const auto [first, end] = range_[c];
    if (first == end) return;
    transport::cma::read(pid_[c], std::span(pieces_.data() + first, end - first));
  }
  /// Whether received chunk c is read cross-memory.
  bool reads(std::size_t c) const { return range_[c].first != range_[c].second; }
  /// Whether reads go through the bounce buffer (which the previous chunk's unpack
  /// copies must be done with).
  bool bounces() const { return !bounce_.empty(); }

  /// Heap bytes: capacity x element size of every container.
  std::size_t memory_bytes() const {
    return pieces_.capacity() * sizeof(transport::cma::Piece) +
           range_.capacity() * sizeof(std::pair<std::size_t, std::size_t>) +
           pid_.capacity() * sizeof(pid_t) + bounce_.capacity() * sizeof(T);
  }

 private:
  /// `cols` columns of `rows` elements, the peer's `lds` apart and ours `ldd`; a column
  /// that continues the previous one on both sides extends its piece.
  void add_columns(const T* remote, index_t lds, T* local, index_t ldd, index_t rows,
                   index_t cols) {
    const std::size_t bytes = static_cast<std::size_t>(rows) * sizeof(T);
    for (index_t j = 0; j < cols; ++j) {
      // The peer's addresses are numbers here, never pointers of ours.
      const std::uint64_t from = reinterpret_cast<std::uintptr_t>(remote) +
                                 static_cast<std::uint64_t>(j * lds) * sizeof(T);
      T* to = local + j * ldd;
      if (pieces_.size() > first_) {
        transport::cma::Piece& last = pieces_.back();
        if (last.remote + last.bytes == from &&
            static_cast<char*>(last.local) + last.bytes == reinterpret_cast<char*>(to)) {
          last.bytes += bytes;
          continue;
        }
      }
      pieces_.push_back({from, to, bytes});
    }
  }

  std::vector<transport::cma::Piece> pieces_;
  std::vector<std::pair<std::size_t, std::size_t>> range_;  ///< per received chunk
  std::vector<pid_t> pid_;                                  ///< per received chunk
  std::size_t first_ = 0;                                   ///< the chunk being bound's
  std::vector<T> bounce_;
  index_t bounce_used_ = 0;
};

}  // namespace redist::engine
