#pragma once
/// @file copy_program.hpp
/// Copy programs: the block copies of one task (a message chunk packed or unpacked, a
/// part of a batch's local copies) run on an execution-space instance: one Kokkos launch
/// over all its copies, or, for a task of fewer copies than twice the space's threads, one
/// launch per copy over its columns, so every thread of the space takes part either way;
/// fencing that instance waits for this work only.
///
/// The unit is a StridedCopy: a family of strided blocks (plan/block_family.hpp) bound to
/// memory. Its rows are `runs` (contiguous on both sides, the row pieces of the family
/// merged where they continue each other) and its columns are `members` x `col_len`
/// (a column member's columns are ld apart). Element (i of run r, column j of member c):
///
///   dst[member[c].dst + j * ldd + run[r].dst + i] = src[member[c].src + j * lds + run[r].src + i]
///
/// A copy that reads its source transposed (Transform, transform.hpp) swaps the source
/// strides: element (i, j) is src[member[c].src + j + run[r].src + i * lds]. A scaled
/// copy writes alpha * src (conjugated for conj_transpose) + beta * dst instead of src;
/// beta = 0 does not read the target.
///
/// One segment is the special case of one run and one member. Example, 1 x 1 tiles of a
/// 4 x 4 matrix from a 1 x 2 to a 2 x 1 grid, rank 0's local part in ScaLAPACK storage:
/// rows 0, 2 (source local rows 0, 2; target local rows 0, 1) are two runs of length 1,
/// columns 0, 2 (source local columns 0, 1; target 0, 2) two members of one column:
/// four elements in one StridedCopy, however large the matrix.
///
/// Host memory: parallel over the copies of a program, or over the columns of each when
/// a program has fewer than twice as many copies as the space has threads. Device memory:
/// teams enough to fill the device spread over each copy's columns, a team's threads
/// along a column (coalesced), short columns several at a time.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy_kernel.hpp>
#include <redist/index.hpp>
#include <redist/transform.hpp>

namespace redist {

/// A contiguous run of rows: `length` elements from src + `src` to dst + `dst`.
struct RowRun {
  index_t src = 0, dst = 0, length = 0;
};
/// Where a column member starts on each side (element offsets).
struct ColumnMember {
  index_t src = 0, dst = 0;
};

/// A family of strided blocks bound to memory (see the file comment). Runs and members
/// are indices into a program's pools, so that copies can share them.
template <class T>
struct StridedCopy {
  const T* src = nullptr;
  T* dst = nullptr;
  index_t lds = 0, ldd = 0;  ///< column stride inside a member
  index_t run_first = 0, runs = 0;
  index_t member_first = 0, members = 0;
  index_t col_len = 0;  ///< columns per member
  bool streaming = false;
  bool transposed = false;  ///< source read transposed (see the file comment)
  bool scaled = false;      ///< alpha * src + beta * dst instead of src
  bool conj = false;        ///< conjugate the source (scaled copies)
  bool beta_zero = true;    ///< beta == 0: the target is written, never read
  T alpha{}, beta{};        ///< read only when scaled (never for a type without arithmetic)

  KOKKOS_INLINE_FUNCTION index_t columns() const { return members * col_len; }
  /// Source element steps along a run and from one column of a member to the next.
  KOKKOS_INLINE_FUNCTION index_t src_row_step() const { return transposed ? lds : 1; }
  KOKKOS_INLINE_FUNCTION index_t src_col_step() const { return transposed ? 1 : lds; }
  /// First source / target element of column k (of columns()): column k % col_len of
  /// member k / col_len.
  KOKKOS_INLINE_FUNCTION const T* src_column(const ColumnMember* m, index_t k) const {
    return src + m[member_first + k / col_len].src + k % col_len * src_col_step();
  }
  KOKKOS_INLINE_FUNCTION T* dst_column(const ColumnMember* m, index_t k) const {
    return dst + m[member_first + k / col_len].dst + k % col_len * ldd;
  }
  /// Whether the copy is a plain memory copy of runs.
  KOKKOS_INLINE_FUNCTION bool plain() const { return !transposed && !scaled; }
  /// Writes one element: v, or alpha * op(v) + beta * d.
  KOKKOS_INLINE_FUNCTION void put(T& d, const T& v) const {
    if (!scaled) {
      d = v;
    } else if constexpr (detail::is_complex<T>::value) {
      put_complex(d, v);
    } else if constexpr (ScalableElement<T>) {
      d = beta_zero ? T(alpha * v) : T(alpha * v + beta * d);
    }
  }
  /// Applies `t` to this copy: alpha, beta and the conjugation (target writes only).
  void scale_by(const Transform<T>& t) {
    scaled = t.scales();
    if constexpr (ScalableElement<T>) {
      conj = t.op == Op::conj_transpose;
      beta_zero = t.beta == T(0);
      alpha = t.alpha;
      beta = t.beta;
    }
  }

 private:
  /// put() for std::complex, on (real, imaginary) pairs: std::complex's operators are host
  /// functions, and this runs in device kernels too. [complex.numbers.general] makes a
  /// std::complex<R> readable as R[2].
  KOKKOS_INLINE_FUNCTION void put_complex(T& d, const T& v) const {
    using R = typename T::value_type;
    const R* x = reinterpret_cast<const R*>(&v);
    const R* a = reinterpret_cast<const R*>(&alpha);
    R* y = reinterpret_cast<R*>(&d);
    const R xi = conj ? -x[1] : x[1];
    R re = a[0] * x[0] - a[1] * xi;
    R im = a[0] * xi + a[1] * x[0];
    if (!beta_zero) {
      const R* b = reinterpret_cast<const R*>(&beta);
      const R yr = y[0], yi = y[1];
      re += b[0] * yr - b[1] * yi;
      im += b[0] * yi + b[1] * yr;
    }
    y[0] = re;
    y[1] = im;
  }
};

/// Runs, members and copies of one direction (pack, unpack, local), host side; a device
/// memory space gets a copy in device memory (mirror()).
template <class T>
struct CopyPool {
  std::vector<RowRun> runs;
  std::vector<ColumnMember> members;
  std::vector<StridedCopy<T>> copies;
};

namespace detail {

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

/// Host: one column of copy c whose first source / target elements are s / d.
template <class T>
inline void copy_one_column(const StridedCopy<T>& c, const RowRun* runs, const T* s, T* d) {
  if (c.plain()) {
    for (index_t r = c.run_first; r < c.run_first + c.runs; ++r)
      copy_run(d + runs[r].dst, s + runs[r].src, runs[r].length, c.streaming);
    return;
  }
  const index_t step = c.src_row_step();
  for (index_t r = c.run_first; r < c.run_first + c.runs; ++r) {
    const T* sr = s + runs[r].src;
    T* dr = d + runs[r].dst;
    for (index_t i = 0; i < runs[r].length; ++i) c.put(dr[i], sr[i * step]);
  }
}

/// Host: column k (of c.columns()) of copy c.
template <class T>
inline void copy_column(const StridedCopy<T>& c, const RowRun* runs, const ColumnMember* members,
                        index_t k) {
  copy_one_column(c, runs, c.src_column(members, k), c.dst_column(members, k));
}

/// Writes v into d (a transposed copy without alpha, beta); lets the tiles below use
/// in-register transposes.
struct Assign {
  template <class T>
  void operator()(T& d, const T& v) const {
    d = v;
  }
};

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

/// Host: d[j * ldd + i] = s[i * lds + j] for i < rows, j < cols, rows and cols >= B, in
/// whole in-register tiles of B = one cache line of elements only: heads before the line
/// boundaries (ib rows, jb columns) and remainders are tiles that overlap their neighbours,
/// rewriting a few elements with the same values (plain copies only: a scaled copy reads
/// its target) instead of copying the edges element by element: blocks of tens of
/// elements a side are mostly edges (bench/README.md). Panels and prefetch as in
/// transpose().
/// @pre simd_transpose<sizeof(T)>, rows >= B, cols >= B, ib < B, jb < B
template <class T>
inline void transpose_whole_tiles(const T* s, index_t lds, T* d, index_t ldd, index_t rows,
                                  index_t cols, index_t ib, index_t jb, bool streaming) {
  constexpr index_t B = static_cast<index_t>(64 / sizeof(T)), panel = 32 / B > 0 ? 32 / B : 1;
  const auto next = next_tile_start<B>;
  for (index_t j1 = 0; j1 < cols;) {
    index_t js[panel], nj = 0;
    for (index_t j0 = j1; j0 < cols && nj < panel; j0 = next(j0, jb, cols)) js[nj++] = j0;
    const index_t j_end = js[nj - 1] + B;
    for (index_t i0 = 0; i0 < rows;) {
      const index_t i1 = next(i0, ib, rows);
      if (i1 < rows) {
        for (index_t i = i1; i < i1 + B; ++i) {
          for (index_t j = j1; j < j_end; j += B) __builtin_prefetch(s + i * lds + j);
          __builtin_prefetch(s + i * lds + j_end - 1);
        }
        const index_t i2 = next(i1, ib, rows);
        if (!streaming && i2 < rows)
          for (index_t j = j1; j < j_end; ++j) __builtin_prefetch(d + j * ldd + i2, 1);
      }
      for (index_t k = 0; k < nj; ++k)
        transpose_line_tile<sizeof(T)>(s + i0 * lds + js[k], lds, d + js[k] * ldd + i0, ldd,
                                       streaming);
      i0 = i1;
    }
    j1 = next(js[nj - 1], jb, cols);
  }
}

/// Host: put(d[j * ldd + i], s[i * lds + j]) for i < rows, j < cols. Strips of B source
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
                      bool streaming, const Put& put = {}) {
  constexpr bool simd =
      std::is_same_v<Put, Assign> && std::is_trivially_copyable_v<T> && simd_transpose<sizeof(T)>;
  constexpr index_t B = simd ? static_cast<index_t>(64 / sizeof(T)) : 8, P = 32;
  constexpr index_t line = sizeof(T) >= 64 ? 1 : static_cast<index_t>(64 / sizeof(T));
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
      transpose_whole_tiles(s, lds, d, ldd, rows, cols, ib, jb, streaming);
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
      transpose_line_tile<sizeof(T)>(sb, lds, db, ldd, streaming);
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
      for (index_t i = i0 + B; i < min(rows, i0 + 2 * B); ++i) {
        for (index_t j = j1; j < j_end; j += line) __builtin_prefetch(s + i * lds + j);
        __builtin_prefetch(s + i * lds + j_end - 1);
      }
      if (!streaming && i0 + 2 * B < rows)
        for (index_t j = j1; j < j_end; ++j) __builtin_prefetch(d + j * ldd + i0 + 2 * B, 1);
      for (index_t j0 = j1; j0 < j_end; j0 += B) tile(i0, j0);
    }
  }
}

/// Host: one member of a transposed copy: each run is a transpose of `length` op-rows
/// by col_len columns, plain or through put (alpha, beta, conjugation).
template <class T>
inline void copy_transposed_member(const StridedCopy<T>& c, const RowRun* runs, const T* s, T* d) {
  for (index_t r = c.run_first; r < c.run_first + c.runs; ++r) {
    const T* sr = s + runs[r].src;
    T* dr = d + runs[r].dst;
    if (c.scaled)
      transpose(sr, c.lds, dr, c.ldd, runs[r].length, c.col_len, false,
                [&c](T& x, const T& v) { c.put(x, v); });
    else
      transpose(sr, c.lds, dr, c.ldd, runs[r].length, c.col_len, c.streaming);
  }
}

/// Host: all of copy c; one copy_run when it is one contiguous block on both sides.
template <class T>
inline void copy_whole(const StridedCopy<T>& c, const RowRun* runs, const ColumnMember* members) {
  if (c.transposed) {
    for (index_t k = c.member_first; k < c.member_first + c.members; ++k)
      copy_transposed_member(c, runs, c.src + members[k].src, c.dst + members[k].dst);
    return;
  }
  if (c.runs == 1 && c.members == 1 && c.plain()) {
    const RowRun& r = runs[c.run_first];
    if (r.length == c.lds && r.length == c.ldd) {
      const ColumnMember& m = members[c.member_first];
      copy_run(c.dst + m.dst + r.dst, c.src + m.src + r.src, r.length * c.col_len, c.streaming);
      return;
    }
  }
  // Members, then their columns: no division per column (copy_column's k / col_len).
  for (index_t k = c.member_first; k < c.member_first + c.members; ++k) {
    const T* s = c.src + members[k].src;
    T* d = c.dst + members[k].dst;
    for (index_t j = 0; j < c.col_len; ++j, s += c.lds, d += c.ldd) copy_one_column(c, runs, s, d);
  }
}

}  // namespace detail

/// Runs copies [first, end) of a pool as one launch on `exec` (asynchronous: fence `exec`
/// before reading the targets). `copies`, `runs`, `members` point to the pool's arrays in
/// memory ExecSpace can read.
/// @pre no two copies write the same element.
template <class ExecSpace, class T>
void run_copies(const ExecSpace& exec, const StridedCopy<T>* copies, const RowRun* runs,
                const ColumnMember* members, std::size_t first, std::size_t end) {
  if (end <= first) return;
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    const std::size_t threads = static_cast<std::size_t>(ExecSpace::concurrency());
    if (threads > 1 && end - first < 2 * threads) {
      // Few copies: parallel over each one's columns.
      for (std::size_t k = first; k < end; ++k) {
        const StridedCopy<T> c = copies[k];
        if (c.columns() == 0) continue;
        Kokkos::parallel_for("redist::copy_columns",
                             Kokkos::RangePolicy<ExecSpace>(exec, 0, c.columns()),
                             [=](index_t col) { detail::copy_column(c, runs, members, col); });
      }
      return;
    }
    Kokkos::parallel_for(
        "redist::copy_blocks",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, first, end),
        [=](std::size_t k) { detail::copy_whole(copies[k], runs, members); });
  } else {
    // Device: each copy gets `split` teams, team s taking columns s, s + split, ...; the
    // threads of a team take consecutive rows of a run, so that a warp reads and writes
    // consecutive elements. A copy can be one block of thousands of columns (separable
    // sides bind a whole slice as one copy), so one team per copy would leave a GPU
    // almost idle; teams of copies with fewer columns than `split` return at once.
    using team_policy = Kokkos::TeamPolicy<ExecSpace>;
    using member_type = typename team_policy::member_type;
    const std::size_t n = end - first;
    constexpr int team_size = 128;  // 4 warps: whole cache lines per warp, several teams per SM
    const std::size_t wanted = static_cast<std::size_t>(ExecSpace().concurrency()) / team_size * 2;
    const int split = static_cast<int>(std::max<std::size_t>(1, (wanted + n - 1) / n));
    Kokkos::parallel_for(
        "redist::copy_blocks", team_policy(exec, static_cast<int>(n) * split, team_size),
        KOKKOS_LAMBDA(const member_type& team) {
          const std::size_t k = first + static_cast<std::size_t>(team.league_rank() / split);
          const StridedCopy<T>& c = copies[k];
          const index_t si = c.src_row_step();
          const index_t first_col = team.league_rank() % split;
          const index_t length = c.runs == 1 ? runs[c.run_first].length : 0;
          if (length > 0 && 2 * length <= team_size) {
            // Short columns (one run): the team takes team_size / length columns at a
            // time, thread t element t % length of column t / length.
            const RowRun run = runs[c.run_first];
            const index_t per = team_size / length, t = team.team_rank();
            const index_t i = t % length;
            if (t / length >= per) return;
            for (index_t col = first_col + t / length * split; col < c.columns();
                 col += per * split)
              c.put(c.dst_column(members, col)[run.dst + i],
                    c.src_column(members, col)[run.src + i * si]);
            return;
          }
          for (index_t col = first_col; col < c.columns(); col += split) {
            const T* s = c.src_column(members, col);
            T* d = c.dst_column(members, col);
            for (index_t r = c.run_first; r < c.run_first + c.runs; ++r) {
              const RowRun run = runs[r];
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, run.length),
                                   [&](index_t i) { c.put(d[run.dst + i], s[run.src + i * si]); });
            }
          }
        });
  }
}

/// Host pools: runs copies [first, end) of `pool`.
template <class ExecSpace, class T>
void run_copies(const ExecSpace& exec, const CopyPool<T>& pool, std::size_t first,
                std::size_t end) {
  run_copies(exec, pool.copies.data(), pool.runs.data(), pool.members.data(), first, end);
}

}  // namespace redist
