#pragma once
/// @file copy/device_kernel.hpp
/// The device kernel of the copies (copy/strided_copy.hpp): one team policy launch over
/// copies [first, end) of a pool, each element written through `put`
/// (copy/element_op.hpp), given once per launch.
///
/// Each copy gets `split` teams, team s taking columns s, s + split, ...; the threads of
/// a team take consecutive rows of a run, so that a warp reads and writes consecutive
/// elements (coalesced). A copy can be one block of thousands of columns (separable sides
/// bind a whole slice as one copy), so one team per copy would leave a GPU almost idle;
/// teams of copies with fewer columns than `split` return at once. Short columns (one
/// run of at most half a team) go several at a time.

#include <cstddef>

#include <Kokkos_Core.hpp>

#include <redist/copy/strided_copy.hpp>
#include <redist/index.hpp>

namespace redist::detail {

template <class ExecSpace, class T, class Put>
struct DeviceCopyKernel {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  /// 4 warps: whole cache lines per warp, several teams per SM.
  static constexpr int team_size = 128;

  const StridedCopy<T>* copies;  ///< in memory ExecSpace can read, as runs and members
  const RowRun* runs;
  const ColumnMember* members;
  std::size_t first;
  int split;  ///< teams per copy
  Put put;

  /// Teams per copy for n copies: enough teams to fill the device twice over.
  static int split_for(std::size_t n) {
    const auto wanted = static_cast<std::size_t>(ExecSpace().concurrency()) / team_size * 2;
    const std::size_t split = (wanted + n - 1) / n;
    return static_cast<int>(split > 0 ? split : 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::size_t k = first + static_cast<std::size_t>(team.league_rank() / split);
    const StridedCopy<T>& c = copies[k];
    const index_t si = c.src_row_step();
    const index_t first_col = team.league_rank() % split;
    const index_t length = c.runs == 1 ? runs[c.run_first].length : 0;
    if (length > 0 && 2 * length <= team_size) {
      // Short columns (one run): the team takes team_size / length columns at a time,
      // thread t element t % length of column t / length.
      const RowRun run = runs[c.run_first];
      const index_t per = team_size / length, t = team.team_rank();
      const index_t i = t % length;
      if (t / length >= per) return;
      for (index_t col = first_col + t / length * split; col < c.columns(); col += per * split)
        put(c.dst_column(members, col)[run.dst + i], c.src_column(members, col)[run.src + i * si]);
      return;
    }
    for (index_t col = first_col; col < c.columns(); col += split) {
      const T* s = c.src_column(members, col);
      T* d = c.dst_column(members, col);
      for (index_t r = c.run_first; r < c.run_first + c.runs; ++r) {
        const RowRun run = runs[r];
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, run.length),
                             [&](index_t i) { put(d[run.dst + i], s[run.src + i * si]); });
      }
    }
  }
};

}  // namespace redist::detail
