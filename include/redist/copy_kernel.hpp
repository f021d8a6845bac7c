#pragma once
/// @file copy_kernel.hpp
/// The one data-movement primitive: a rows x cols column-major block copied between two
/// strided locations in one memory space. Packing (tile -> message buffer), unpacking
/// (buffer -> tile) and local copies (tile -> tile) are all block copies, run in batches
/// by copy_program.hpp.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <Kokkos_Core.hpp>

#include <redist/index.hpp>

namespace redist {

/// A block copy: dst[i + j * ldd] = src[i + j * lds] for i < rows, j < cols; with
/// streaming stores on host memory if `streaming` (see detail::copy_streaming).
template <class T>
struct BlockCopy {
  const T* src = nullptr;
  index_t lds = 0;
  T* dst = nullptr;
  index_t ldd = 0;
  index_t rows = 0;
  index_t cols = 0;
  bool streaming = false;
};

/// Fuses copies [first, end) of `copies` that continue each other down the same columns
/// in both source and target (the next row piece of a ScaLAPACK-stored matrix, say) into
/// one taller copy; the absorbed ones get 0 rows. Longer contiguous runs copy faster.
/// Only for copies that may run together: the fused copy runs when its first one does.
template <class T>
void fuse_adjacent(std::vector<BlockCopy<T>>& copies, std::size_t first, std::size_t end) {
  std::size_t head = first;
  for (std::size_t k = first + 1; k < end; ++k) {
    BlockCopy<T>& a = copies[head];
    BlockCopy<T>& b = copies[k];
    if (a.cols == b.cols && a.lds == b.lds && a.ldd == b.ldd && b.src == a.src + a.rows &&
        b.dst == a.dst + a.rows) {
      a.rows += b.rows;
      b.rows = 0;
    } else {
      head = k;
    }
  }
}

namespace detail {

/// memcpy whose stores bypass the cache (x86 non-temporal stores; plain memcpy elsewhere).
/// A normal store first reads the destination line into the cache, so a large copy
/// moves three bytes per byte copied; a streaming store moves two. Worth it when the
/// destination is not read again soon, i.e. the copy is larger than the cache; measured
/// 1.5x on strided tile copies with both cores copying (redist-bench, standard case d).
/// @post call streaming_fence() before another thread or process reads the destination.
inline void copy_streaming(void* dst, const void* src, std::size_t n) {
#if defined(__SSE2__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // Whole destination cache lines only: a partial line would be written twice. Short
  // runs stream too: scattered ones (ScaLAPACK storage, case c) measured faster streamed.
  std::size_t head = (64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63;
  if (n < head + 64) {
    std::memcpy(d, s, n);
    return;
  }
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  for (; n >= 64; n -= 64, d += 64, s += 64) {
    const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), x0);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), x1);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), x2);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), x3);
  }
  std::memcpy(d, s, n);
#else
  std::memcpy(dst, src, n);
#endif
}

/// Orders earlier streaming stores before every later store (they are weakly ordered).
inline void streaming_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace detail

}  // namespace redist
