#pragma once
/// @file copy_kernel.hpp
/// Host copy primitives under the copy programs (copy_program.hpp): memcpy with streaming
/// (non-temporal) stores, and the fence that orders them.

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
