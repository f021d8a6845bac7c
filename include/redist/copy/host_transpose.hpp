#pragma once
/// @file copy/host_transpose.hpp
/// The host transpose under transposed copies (copy/host_walkers.hpp): d[j * ldd + i] =
/// s[i * lds + j] over a block, in tiles of one cache line a side where the element size
/// allows in-register tiles (copy/host_primitives.hpp), through an element operation
/// (copy/element_op.hpp) otherwise, with one software prefetch routine for the strips.

#include <cstdint>
#include <type_traits>

#include <redist/copy/element_op.hpp>
#include <redist/copy/host_primitives.hpp>
#include <redist/index.hpp>

namespace redist::detail {

/// Tile starts along one side of n >= B elements whose line boundaries fall at h, h + B,
/// ...: 0, the boundaries, and n - B for a remainder; next_tile_start(x) follows x (n when
/// x was the last). Every tile is whole; a head or remainder shorter than B overlaps its
/// neighbour. Example, B = 8, h = 3, n = 20: 0, 3, 11, 12.
template <index_t B>
inline index_t next_tile_start(index_t x, index_t h, index_t n) {
  if (x + B >= n) return n;
  const index_t next = x < h ? h : x + B;
  return next < n - B ? next : n - B;
}

/// Software prefetch for the next strips of a transpose: the source lines of rows
/// [i0, i1) in columns [j0, j1), and, when `write`, target row `dst_row` of those columns
/// for writing (a streaming store reads no target line, so streaming strips skip it). A
/// strided transpose otherwise waits for one miss after another. Always inlined: GCC finds
/// a function that only prefetches free of side effects and drops the calls to it.
template <class T>
[[gnu::always_inline]] inline void prefetch_strip(const T* s, index_t lds, const T* d, index_t ldd,
                                                  index_t i0, index_t i1, index_t j0, index_t j1,
                                                  index_t dst_row, bool write) {
  constexpr index_t line = sizeof(T) >= 64 ? 1 : static_cast<index_t>(64 / sizeof(T));
  for (index_t i = i0; i < i1; ++i) {
    for (index_t j = j0; j < j1; j += line) __builtin_prefetch(s + i * lds + j);
    __builtin_prefetch(s + i * lds + j1 - 1);
  }
  if (write)
    for (index_t j = j0; j < j1; ++j) __builtin_prefetch(d + j * ldd + dst_row, 1);
}

/// d[j * ldd + i] = s[i * lds + j] for i < rows, j < cols, rows and cols >= B, in
/// whole in-register tiles of B = one cache line of elements only: heads before the line
/// boundaries (ib rows, jb columns) and remainders are tiles that overlap their neighbours,
/// rewriting a few elements with the same values (plain copies only: a scaled copy reads
/// its target) instead of copying the edges element by element: blocks of tens of
/// elements a side are mostly edges (bench/README.md). Panels and prefetch as in
/// transpose().
/// @pre simd_transpose<sizeof(T)>, rows >= B, cols >= B, ib < B, jb < B
template <class T, bool Stream>
inline void transpose_whole_tiles(const T* s, index_t lds, T* d, index_t ldd, index_t rows,
                                  index_t cols, index_t ib, index_t jb) {
  constexpr index_t B = static_cast<index_t>(64 / sizeof(T)), panel = 32 / B > 0 ? 32 / B : 1;
  const auto next = next_tile_start<B>;
  for (index_t j1 = 0; j1 < cols;) {
    index_t js[panel], nj = 0;
    for (index_t j0 = j1; j0 < cols && nj < panel; j0 = next(j0, jb, cols)) js[nj++] = j0;
    const index_t j_end = js[nj - 1] + B;
    for (index_t i0 = 0; i0 < rows;) {
      const index_t i1 = next(i0, ib, rows);
      if (i1 < rows) {
        const index_t i2 = next(i1, ib, rows);
        prefetch_strip(s, lds, d, ldd, i1, i1 + B, j1, j_end, i2, !Stream && i2 < rows);
      }
      for (index_t k = 0; k < nj; ++k)
        transpose_line_tile<sizeof(T), Stream>(s + i0 * lds + js[k], lds, d + js[k] * ldd + i0,
                                               ldd);
      i0 = i1;
    }
    j1 = next(js[nj - 1], jb, cols);
  }
}

/// put(d[j * ldd + i], s[i * lds + j]) for i < rows, j < cols. Strips of B source
/// rows (B = one cache line of elements for the in-register tiles, 8 otherwise) sweep
/// panels of 32 target columns in B x B tiles. When every column of a side starts at the
/// same offset in its cache line, the tile grid is shifted to the line boundaries, so each
/// tile reads and writes whole lines and a streaming tile stores whole lines; the rows and
/// columns before them and the remainders are overlapping in-register tiles
/// (transpose_whole_tiles) when the block has B rows and columns, else copied element by
/// element. The source lines of the next strip and, unless streaming, the target lines of
/// the strip after it are prefetched: a strided transpose otherwise waits for one miss
/// after another.
template <class T, class Put = Assign>
inline void transpose(const T* s, index_t lds, T* d, index_t ldd, index_t rows, index_t cols,
                      bool streaming, Put put = {}) {
  constexpr bool simd =
      std::is_same_v<Put, Assign> && std::is_trivially_copyable_v<T> && simd_transpose<sizeof(T)>;
  constexpr index_t B = simd ? static_cast<index_t>(64 / sizeof(T)) : 8, P = 32;
  static_assert(P % B == 0);
  const auto min = [](index_t a, index_t b) { return a < b ? a : b; };
  const auto scalar = [&](index_t i0, index_t i1, index_t j0, index_t j1) {
    for (index_t j = j0; j < j1; ++j)
      for (index_t i = i0; i < i1; ++i) put(d[j * ldd + i], s[i * lds + j]);
  };
  // Elements before the first line boundary, when all columns share its offset.
  const auto head = [&](const T* p, index_t ld) -> index_t {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (at % sizeof(T) != 0 || ld * static_cast<index_t>(sizeof(T)) % 64 != 0) return 0;
    return static_cast<index_t>((64 - at % 64) % 64 / sizeof(T)) % B;
  };
  const index_t ib = min(rows, head(d, ldd)), jb = min(cols, head(s, lds));
  if constexpr (simd) {
    if (rows >= B && cols >= B) {
      if (streaming)
        transpose_whole_tiles<T, true>(s, lds, d, ldd, rows, cols, ib, jb);
      else
        transpose_whole_tiles<T, false>(s, lds, d, ldd, rows, cols, ib, jb);
      return;
    }
  }
  scalar(0, ib, 0, cols);
  scalar(ib, rows, 0, jb);
  const auto tile = [&](index_t i0, index_t j0) {
    const index_t ni = min(B, rows - i0), nj = min(B, cols - j0);
    const T* sb = s + i0 * lds + j0;
    T* db = d + j0 * ldd + i0;
    if (ni < B || nj < B) {
      scalar(i0, i0 + ni, j0, j0 + nj);
    } else if constexpr (simd) {
      if (streaming)
        transpose_line_tile<sizeof(T), true>(sb, lds, db, ldd);
      else
        transpose_line_tile<sizeof(T), false>(sb, lds, db, ldd);
    } else {
      T t[B][B];
      for (index_t i = 0; i < B; ++i)
        for (index_t j = 0; j < B; ++j) t[j][i] = sb[i * lds + j];
      for (index_t j = 0; j < B; ++j) {
        // A tile column of whole cache lines streams (no read of the target line).
        if constexpr (std::is_same_v<Put, Assign> && sizeof(T) * B % 64 == 0)
          if (streaming) {
            copy_streaming(db + j * ldd, t[j], sizeof(T) * B);
            continue;
          }
        for (index_t i = 0; i < B; ++i) put(db[j * ldd + i], t[j][i]);
      }
    }
  };
  for (index_t j1 = jb; j1 < cols; j1 += P) {
    const index_t j_end = min(cols, j1 + P);
    for (index_t i0 = ib; i0 < rows; i0 += B) {
      prefetch_strip(s, lds, d, ldd, i0 + B, min(rows, i0 + 2 * B), j1, j_end, i0 + 2 * B,
                     !streaming && i0 + 2 * B < rows);
      for (index_t j0 = j1; j0 < j_end; j0 += B) tile(i0, j0);
    }
  }
}

}  // namespace redist::detail
