#pragma once
/// @file copy/stitched_stores.hpp
/// Streaming stores for runs that continue each other in the target. copy_streaming
/// (copy/host_primitives.hpp) streams whole lines only and writes a run's partial first
/// and last lines through the cache; where runs of 100 doubles meet mid-line (case a's
/// pieces, packed one after another in a target column), that is a line read for
/// ownership every other run. Here a run's partial last line waits in a 64-byte buffer for
/// the next run's first bytes and goes out as one streamed line when they complete it.
/// Pushed into a node-shared target, stitched streaming took the move 0.65-0.83 of the
/// time of run-by-run stores (bench/one_pass_probe `push`; bench/README.md, "Pushing into
/// the peer's target").

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <redist/copy/host_primitives.hpp>
#include <redist/index.hpp>

namespace redist::detail {

/// One stream of runs into a target, in the order they are written. put() may leave the
/// last partial line of a run pending; flush() writes it (plain stores).
/// @post after flush(), every byte put is in the target; call streaming_fence()
/// (copy/host_primitives.hpp) before another thread or process reads it.
class StitchedStores {
 public:
  StitchedStores() = default;
  StitchedStores(const StitchedStores&) = delete;
  StitchedStores& operator=(const StitchedStores&) = delete;
  ~StitchedStores() { flush(); }

  /// Copies n elements from s to d.
  template <class T>
  void put(T* d, const T* s, index_t n) {
    put_bytes(reinterpret_cast<char*>(d), reinterpret_cast<const char*>(s),
              static_cast<std::size_t>(n) * sizeof(T));
  }

  /// Writes the pending partial line, if any.
  void flush() {
    if (at_ != nullptr) std::memcpy(at_, line_, fill_);
    at_ = nullptr;
  }

 private:
  static constexpr std::size_t line_bytes = 64;

  void put_bytes(char* d, const char* s, std::size_t n) {
    if (at_ != nullptr && d == at_ + fill_) {  // this run continues the pending line
      const std::size_t take = std::min(n, line_bytes - fill_);
      std::memcpy(line_ + fill_, s, take);
      fill_ += take, d += take, s += take, n -= take;
      if (fill_ < line_bytes) return;
      copy_streaming(at_, line_, line_bytes);  // one whole aligned line: streamed
      at_ = nullptr;
    } else {
      flush();
    }
    // The rest as copy_streaming writes it (a partial first line cached, whole lines
    // streamed), except a partial last line whose start the run covers: that one waits.
    const std::size_t tail = reinterpret_cast<std::uintptr_t>(d + n) & (line_bytes - 1);
    const std::size_t pending = tail <= n ? tail : 0;
    copy_streaming(d, s, n - pending);
    if (pending > 0) {
      std::memcpy(line_, s + (n - pending), pending);
      at_ = d + (n - pending), fill_ = pending;
    }
  }

  alignas(64) char line_[line_bytes];
  char* at_ = nullptr;    ///< the pending line's target address (64-aligned), or null
  std::size_t fill_ = 0;  ///< its bytes so far
};

}  // namespace redist::detail
