#pragma once
/// @file copy/host_walkers.hpp
/// Host walkers: how a host thread goes through one StridedCopy (copy/strided_copy.hpp),
/// whole or one column of it, writing each element through `put` (copy/element_op.hpp):
/// Assign for a plain copy, whose runs are then memory copies (streaming or not,
/// copy/host_primitives.hpp) and whose transposed members are blocked transposes
/// (copy/host_transpose.hpp); the pool's ElementOp otherwise, element by element. `put`
/// comes by value, so alpha and beta stay in registers.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include <redist/copy/element_op.hpp>
#include <redist/copy/host_primitives.hpp>
#include <redist/copy/host_transpose.hpp>
#include <redist/copy/stitched_stores.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/index.hpp>

namespace redist::detail {

/// Copies n elements, streaming or not; short runs element by element (a call to
/// memcpy costs more than a few loads and stores).
template <class T>
inline void copy_run(T* dst, const T* src, index_t n, bool streaming) {
  if (n <= 4) {
    for (index_t i = 0; i < n; ++i) dst[i] = src[i];
  } else if (streaming) {
    copy_streaming(dst, src, static_cast<std::size_t>(n) * sizeof(T));
  } else {
    std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(T));
  }
}

/// n contiguous elements from s to d through `put` (copy/element_op.hpp): a memory copy
/// (copy_run) where it assigns, else element by element, which the compiler vectorises.
template <class T, class Put>
inline void put_run(T* d, const T* s, index_t n, bool streaming, Put put) {
  if constexpr (std::is_same_v<Put, Assign>)
    copy_run(d, s, n, streaming);
  else
    for (index_t i = 0; i < n; ++i) put(d[i], s[i]);
}

/// Bytes of the next run that a scaled copy prefetches (both sides) while it works on the
/// current one, when its runs are at least run_prefetch_min_bytes long (shorter runs end
/// before a prefetch could help, and their next run is often on the same lines).
inline constexpr std::size_t run_prefetch_bytes = 2048;
inline constexpr std::size_t run_prefetch_min_bytes = 256;

/// Prefetches the first run_prefetch_bytes of n elements at s (read) and d (written).
/// Always inlined: GCC drops calls to a function that only prefetches (host_transpose.hpp).
template <class T>
[[gnu::always_inline]] inline void prefetch_run(const T* s, const T* d, index_t n) {
  const std::size_t bytes = std::min(run_prefetch_bytes, static_cast<std::size_t>(n) * sizeof(T));
  const char* sb = reinterpret_cast<const char*>(s);
  const char* db = reinterpret_cast<const char*>(d);
  for (std::size_t o = 0; o < bytes; o += 64) {
    __builtin_prefetch(sb + o);
    __builtin_prefetch(db + o, 1);
  }
}

/// One column of copy c whose first source / target elements are s / d.
template <class T, class Put>
inline void copy_one_column(const StridedCopy<T>& c, const RowRun* runs, const T* s, T* d,
                            Put put) {
  const index_t step = c.src_row_step();
  const index_t end = c.run_first + c.runs;
  if (std::is_same_v<Put, Assign> && step == 1 && c.stitched) {
    StitchedStores stores;
    for (index_t r = c.run_first; r < end; ++r)
      stores.put(d + runs[r].dst, s + runs[r].src, runs[r].length);
    return;
  }
  if (std::is_same_v<Put, Assign> && step == 1) {
    for (index_t r = c.run_first; r < end; ++r)
      put_run(d + runs[r].dst, s + runs[r].src, runs[r].length, c.streaming, put);
    return;
  }
  // Contiguous on both sides: a loop the compiler vectorises. With long runs it waits on
  // its loads at the start of each (runs of one column lie apart, the rows between them
  // go elsewhere), so the next run is fetched while this one computes; the first run's
  // length decides for the column, so that short runs pay no test per run.
  if (step == 1 && c.runs > 1 &&
      static_cast<std::size_t>(runs[c.run_first].length) * sizeof(T) >= run_prefetch_min_bytes) {
    for (index_t r = c.run_first; r < end; ++r) {
      if (r + 1 < end) prefetch_run(s + runs[r + 1].src, d + runs[r + 1].dst, runs[r + 1].length);
      put_run(d + runs[r].dst, s + runs[r].src, runs[r].length, false, put);
    }
    return;
  }
  for (index_t r = c.run_first; r < end; ++r) {
    const T* sr = s + runs[r].src;
    T* dr = d + runs[r].dst;
    const index_t n = runs[r].length;
    if (step == 1)
      put_run(dr, sr, n, false, put);
    else
      for (index_t i = 0; i < n; ++i) put(dr[i], sr[i * step]);
  }
}

/// Column k (of c.columns()) of copy c.
template <class T, class Put>
inline void copy_column(const StridedCopy<T>& c, const RowRun* runs, const ColumnMember* members,
                        index_t k, Put put) {
  copy_one_column(c, runs, c.src_column(members, k), c.dst_column(members, k), put);
}

/// Blocks with fewer op-rows or columns than this are transposed by a plain loop: the
/// tiles, heads and prefetches of transpose() cost more than they save on them.
inline constexpr index_t thin_transpose_side = 8;

/// One member of a transposed copy: each run is a transpose of `length` op-rows by
/// col_len columns. Element- and small-block-cyclic layouts make these blocks a few
/// elements a side (members of one column, runs of a few rows), by the hundred thousand:
/// those take the plain loop. Never streaming: a transpose waits on the misses of its
/// strided source rows, not on bandwidth, and its streaming stores measured 1.2x slower
/// than cached ones (bench/kernel_transpose; bench/README.md, "Drop-in: PBLAS").
template <class T, class Put>
inline void copy_transposed_member(const StridedCopy<T>& c, const RowRun* runs, const T* s, T* d,
                                   Put put) {
  for (index_t r = c.run_first; r < c.run_first + c.runs; ++r) {
    const T* sr = s + runs[r].src;
    T* dr = d + runs[r].dst;
    const index_t n = runs[r].length;
    if (n >= thin_transpose_side && c.col_len >= thin_transpose_side) {
      transpose(sr, c.lds, dr, c.ldd, n, c.col_len, false, put);
      continue;
    }
    for (index_t j = 0; j < c.col_len; ++j, sr += 1, dr += c.ldd)
      for (index_t i = 0; i < n; ++i) put(dr[i], sr[i * c.lds]);
  }
}

/// Members of a transposed copy taken this many at a time when each is one column.
inline constexpr index_t transposed_column_group = 8;

/// A transposed copy whose members are one column each (a source whose rows alternate
/// between ranks, such as element-cyclic rows): members go transposed_column_group at a
/// time through the runs, so that each source line read serves that many target columns.
/// One member at a time, every element read is a page away from the last.
template <class T, class Put>
inline void copy_transposed_columns(const StridedCopy<T>& c, const RowRun* runs,
                                    const ColumnMember* members, Put put) {
  constexpr index_t G = transposed_column_group;
  const ColumnMember* m = members + c.member_first;
  index_t k = 0;
  for (; k + G <= c.members; k += G) {
    const T* s[G];
    T* d[G];
    for (index_t g = 0; g < G; ++g) s[g] = c.src + m[k + g].src, d[g] = c.dst + m[k + g].dst;
    for (index_t r = c.run_first; r < c.run_first + c.runs; ++r)
      for (index_t i = 0; i < runs[r].length; ++i) {
        const index_t from = runs[r].src + i * c.lds, to = runs[r].dst + i;
        for (index_t g = 0; g < G; ++g) put(d[g][to], s[g][from]);
      }
  }
  for (; k < c.members; ++k)
    copy_transposed_member(c, runs, c.src + m[k].src, c.dst + m[k].dst, put);
}

/// All of copy c; one copy_run when it is one contiguous block on both sides.
template <class T, class Put>
inline void copy_whole(const StridedCopy<T>& c, const RowRun* runs, const ColumnMember* members,
                       Put put) {
  if (c.transposed) {
    if (c.col_len == 1) {
      copy_transposed_columns(c, runs, members, put);
      return;
    }
    for (index_t k = c.member_first; k < c.member_first + c.members; ++k)
      copy_transposed_member(c, runs, c.src + members[k].src, c.dst + members[k].dst, put);
    return;
  }
  if constexpr (std::is_same_v<Put, Assign>) {
    if (c.runs == 1 && c.members == 1) {
      const RowRun& r = runs[c.run_first];
      if (r.length == c.lds && r.length == c.ldd) {
        const ColumnMember& m = members[c.member_first];
        copy_run(c.dst + m.dst + r.dst, c.src + m.src + r.src, r.length * c.col_len, c.streaming);
        return;
      }
    }
  }
  // Members, then their columns: no division per column (copy_column's k / col_len).
  for (index_t k = c.member_first; k < c.member_first + c.members; ++k) {
    const T* s = c.src + members[k].src;
    T* d = c.dst + members[k].dst;
    for (index_t j = 0; j < c.col_len; ++j, s += c.lds, d += c.ldd)
      copy_one_column(c, runs, s, d, put);
  }
}

}  // namespace redist::detail
