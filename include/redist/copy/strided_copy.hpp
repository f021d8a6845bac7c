#pragma once
/// @file copy/strided_copy.hpp
/// The copy vocabulary: the block copies of one task (a message chunk packed or unpacked,
/// a part of a batch's local copies) are StridedCopies in a CopyPool, run together
/// (copy/run_copies.hpp).
///
/// A StridedCopy is a family of strided blocks (plan/block_family.hpp) bound to memory.
/// Its rows are `runs` (contiguous on both sides, the row pieces of the family merged
/// where they continue each other: append_run) and its columns are `members` x `col_len`
/// (a column member's columns are ld apart). Element (i of run r, column j of member c):
///
///   dst[member[c].dst + j * ldd + run[r].dst + i] = src[member[c].src + j * lds + run[r].src + i]
///
/// A copy that reads its source transposed (Transform, transform_op.hpp) swaps the source
/// strides: element (i, j) is src[member[c].src + j + run[r].src + i * lds]. What the
/// element writes (alpha, beta, conjugation) is the pool's: copy/element_op.hpp.
///
/// One segment is the special case of one run and one member. Example, 1 x 1 tiles of a
/// 4 x 4 matrix from a 1 x 2 to a 2 x 1 grid, rank 0's local part in ScaLAPACK storage:
/// rows 0, 2 (source local rows 0, 2; target local rows 0, 1) are two runs of length 1,
/// columns 0, 2 (source local columns 0, 1; target 0, 2) two members of one column:
/// four elements in one StridedCopy, however large the matrix.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/element_op.hpp>
#include <redist/index.hpp>

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
/// are indices into a pool's arrays, so that copies can share them.
template <class T>
struct StridedCopy {
  const T* src = nullptr;
  T* dst = nullptr;
  index_t lds = 0, ldd = 0;  ///< column stride inside a member
  index_t run_first = 0, runs = 0;
  index_t member_first = 0, members = 0;
  index_t col_len = 0;      ///< columns per member
  bool streaming = false;   ///< host: streaming stores (copy/host_primitives.hpp)
  bool stitched = false;    ///< host, streaming: runs stitched (copy/stitched_stores.hpp)
  bool transposed = false;  ///< source read transposed (see the file comment)

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
};

/// What a copy's runs span from a column's start: the lowest source offset, the end past
/// the highest element (at the copy's row step), the same two in the target (contiguous
/// runs), the rows they cover, the shortest run. The chunks' address spans
/// (engine/bound_pool.hpp) and the streaming rules (engine/streaming_choice.hpp) read them.
struct RunSummary {
  index_t low = INT64_MAX, end = INT64_MIN, covered = 0, shortest = INT64_MAX;
  index_t dst_low = INT64_MAX, dst_end = INT64_MIN;

  template <class T>
  static RunSummary of(const StridedCopy<T>& c, const std::vector<RowRun>& runs) {
    RunSummary s;
    const index_t step = c.src_row_step();
    for (index_t r = c.run_first; r < c.run_first + c.runs; ++r) {
      const RowRun& run = runs[static_cast<std::size_t>(r)];
      s.low = std::min(s.low, run.src);
      s.end = std::max(s.end, run.src + (run.length - 1) * step + 1);
      s.dst_low = std::min(s.dst_low, run.dst);
      s.dst_end = std::max(s.dst_end, run.dst + run.length);
      s.covered += run.length;
      s.shortest = std::min(s.shortest, run.length);
    }
    return s;
  }
};

/// RunSummary::of for copies in turn, scanned again only when a copy's runs (or row step)
/// differ from the last copy's: copies that share a list of runs (engine/bind_copies.hpp,
/// SharedRuns) come one after another, and 1 x 1 tiles have 8192 runs a copy.
class LastRunSummary {
 public:
  template <class T>
  const RunSummary& of(const StridedCopy<T>& c, const std::vector<RowRun>& runs) {
    if (c.run_first != first_ || c.runs != count_ || c.src_row_step() != step_) {
      first_ = c.run_first;
      count_ = c.runs;
      step_ = c.src_row_step();
      summary_ = RunSummary::of(c, runs);
    }
    return summary_;
  }

 private:
  index_t first_ = -1, count_ = 0, step_ = 0;
  RunSummary summary_;
};

/// Copies [first, end) of a pool (a chunk's, a part's).
using CopyRange = std::pair<std::size_t, std::size_t>;

/// Runs, members and copies of one direction (pack, unpack, local), host side, and what
/// each of their elements writes; a device memory space gets a copy of the arrays in
/// device memory (engine/bound_pool.hpp).
template <class T>
struct CopyPool {
  std::vector<RowRun> runs;
  std::vector<ColumnMember> members;
  std::vector<StridedCopy<T>> copies;
  ElementOp<T> op;
};

/// Appends `run` to the runs of a copy, runs[first, end): lengthens the last one when
/// `run` continues it on both sides, else adds it. `src_step`: source elements from one
/// row to the next (1, or lds for a source read transposed).
/// @post the copy's runs cover the same elements, in the same order, as before plus `run`.
/// Example: {src 0, dst 8, length 4} then {4, 12, 2} (src_step 1) -> {0, 8, 6}.
inline void append_run(std::vector<RowRun>& runs, std::size_t first, const RowRun& run,
                       index_t src_step) {
  if (runs.size() > first) {
    RowRun& last = runs.back();
    if (last.src + last.length * src_step == run.src && last.dst + last.length == run.dst) {
      last.length += run.length;
      return;
    }
  }
  runs.push_back(run);
}

}  // namespace redist
