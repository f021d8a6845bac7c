#pragma once
/// @file copy/device_kernel.hpp
/// The device kernel of the copies (copy/strided_copy.hpp): one team policy launch over
/// copies [first, end) of a pool, each element written through `put`
/// (copy/element_op.hpp), given once per launch.
///
/// A team is `warps` warps of `lanes` vector lanes. The work of a copy is a list of items,
/// one per (column, run), or, for a copy of one long run per column, per (column, piece
/// of `piece` elements); a warp takes an item, its lanes consecutive elements, so that a
/// warp reads and writes whole cache lines (coalesced). Runs are often short: a target
/// tile's rows cut by the source's blocking are runs of tens of elements, which a whole
/// team per run would leave three quarters idle.
///
/// Each copy gets `split` teams, team s taking items s, s + split, ... (through its
/// warps): a copy can be one block of thousands of columns (separable sides bind a whole
/// slice as one copy), so one team per copy would leave a GPU almost idle; teams of copies
/// with fewer items return at once. Short columns (one run of at most half a team) go
/// several at a time, each thread of the team one element.

#include <cstddef>

#include <Kokkos_Core.hpp>

#include <redist/copy/strided_copy.hpp>
#include <redist/index.hpp>

namespace redist::detail {

template <class ExecSpace, class T, class Put>
struct DeviceCopyKernel {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int lanes = 32;  ///< one warp: 256 bytes of doubles per step
  static constexpr int warps = 4;   ///< several teams per SM
  static constexpr int team_size = lanes * warps;
  /// Elements of a long run one item moves (a copy of one run per column).
  static constexpr index_t piece = 8 * lanes;

  const StridedCopy<T>* copies;  ///< in memory ExecSpace can read, as runs and members
  const RowRun* runs;
  const ColumnMember* members;
  std::size_t first;
  int split;  ///< teams per copy
  Put put;

  static Kokkos::TeamPolicy<ExecSpace> policy(const ExecSpace& exec, std::size_t copies,
                                              int split) {
    return Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(copies) * split, warps, lanes);
  }

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
    const index_t part = team.league_rank() % split;
    const index_t warp = team.team_rank();
    const index_t columns = c.columns();
    if (c.runs == 1) {
      const RowRun run = runs[c.run_first];
      if (2 * run.length <= team_size) {
        // Short columns: the team takes team_size / length columns at a time, thread t
        // element t % length of column t / length.
        const index_t per = team_size / run.length;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](index_t lane) {
          const index_t t = warp * lanes + lane;
          const index_t i = t % run.length;
          if (t / run.length >= per) return;
          for (index_t col = part + t / run.length * split; col < columns; col += per * split)
            put(c.dst_column(members, col)[run.dst + i],
                c.src_column(members, col)[run.src + i * si]);
        });
        return;
      }
      // One long run per column: items are pieces of it.
      const index_t pieces = (run.length + piece - 1) / piece;
      for (index_t item = part * warps + warp; item < columns * pieces; item += split * warps) {
        const index_t col = item / pieces, at = item % pieces * piece;
        const index_t length = run.length - at < piece ? run.length - at : piece;
        const T* s = c.src_column(members, col) + (run.src + at * si);
        T* d = c.dst_column(members, col) + (run.dst + at);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, length),
                             [&](index_t i) { put(d[i], s[i * si]); });
      }
      return;
    }
    for (index_t item = part * warps + warp; item < columns * c.runs; item += split * warps) {
      const index_t col = item / c.runs;
      const RowRun run = runs[c.run_first + item % c.runs];
      const T* s = c.src_column(members, col) + run.src;
      T* d = c.dst_column(members, col) + run.dst;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, run.length),
                           [&](index_t i) { put(d[i], s[i * si]); });
    }
  }
};

}  // namespace redist::detail
