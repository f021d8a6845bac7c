#pragma once
/// @file copy/host_primitives.hpp
/// Host copy primitives under the host walkers (copy/host_walkers.hpp,
/// copy/host_transpose.hpp): memcpy with streaming (non-temporal) stores, in-register
/// transposes of one cache line's tile, and the fence that orders streaming stores.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// In-register transposes need SSE2 on the host; never in device code.
#if defined(__SSE2__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define REDIST_SIMD_TRANSPOSE 1
#else
#define REDIST_SIMD_TRANSPOSE 0
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
  if (head > 0) std::memcpy(d, s, head);
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
  if (n > 0) std::memcpy(d, s, n);
#else
  std::memcpy(dst, src, n);
#endif
}

/// Whether transpose_line_tile has an in-register (SIMD) version for elements of `Size`
/// bytes: 4 and 8 (one tile column of 64 / Size elements is one cache line).
template <std::size_t Size>
inline constexpr bool simd_transpose = REDIST_SIMD_TRANSPOSE && (Size == 4 || Size == 8);

/// d[j * ldd + i] = s[i * lds + j] for i, j < B = 64 / Size (lds, ldd in elements): a tile
/// of B source rows of one cache line each, transposed in registers (SSE2 unpack steps)
/// and stored as B target columns of one line each. A target column that starts on a
/// cache line is stored streaming when `Stream` (whole lines: no read of the target); a
/// template parameter, so that cached tiles test nothing per store.
/// @pre simd_transpose<Size>
template <std::size_t Size, bool Stream>
inline void transpose_line_tile(const void* src, index_t lds, void* dst, index_t ldd) {
#if REDIST_SIMD_TRANSPOSE
  const auto* s = static_cast<const char*>(src);
  auto* d = static_cast<char*>(dst);
  const std::ptrdiff_t ls = static_cast<std::ptrdiff_t>(lds) * Size;
  const std::ptrdiff_t ld = static_cast<std::ptrdiff_t>(ldd) * Size;
  const auto load = [&](index_t i, index_t j) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i * ls + j * Size));
  };
  // Each 16-byte store goes to target column j at row i; streamed when its column is.
  const auto store = [&](index_t j, index_t i, __m128i x, bool stream) {
    auto* p = reinterpret_cast<__m128i*>(d + j * ld + i * Size);
    if (stream)
      _mm_stream_si128(p, x);
    else
      _mm_storeu_si128(p, x);
  };
  const auto aligned = [&](index_t j) {
    return Stream && (reinterpret_cast<std::uintptr_t>(d + j * ld) & 63) == 0;
  };
  if constexpr (Size == 8) {
    // Columns j, j + 1 from the 8 rows' pairs at j; each target line is stored whole
    // before the next: alternating two lines made streamed tiles 1.4x slower.
    for (index_t j = 0; j < 8; j += 2) {
      __m128i r[8];
      for (index_t i = 0; i < 8; ++i) r[i] = load(i, j);
      const bool s0 = aligned(j), s1 = aligned(j + 1);
      for (index_t i = 0; i < 8; i += 2) store(j, i, _mm_unpacklo_epi64(r[i], r[i + 1]), s0);
      for (index_t i = 0; i < 8; i += 2) store(j + 1, i, _mm_unpackhi_epi64(r[i], r[i + 1]), s1);
    }
  } else {
    // 4 x 4 blocks of a 16 x 16 tile.
    for (index_t j = 0; j < 16; j += 4) {
      const bool st[4] = {aligned(j), aligned(j + 1), aligned(j + 2), aligned(j + 3)};
      for (index_t i = 0; i < 16; i += 4) {
        const __m128i r0 = load(i, j), r1 = load(i + 1, j), r2 = load(i + 2, j),
                      r3 = load(i + 3, j);
        const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
        const __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
        store(j, i, _mm_unpacklo_epi64(t0, t1), st[0]);
        store(j + 1, i, _mm_unpackhi_epi64(t0, t1), st[1]);
        store(j + 2, i, _mm_unpacklo_epi64(t2, t3), st[2]);
        store(j + 3, i, _mm_unpackhi_epi64(t2, t3), st[3]);
      }
    }
  }
#else
  (void)src, (void)lds, (void)dst, (void)ldd;
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
