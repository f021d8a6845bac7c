#pragma once
/// @file copy/device_kernel.hpp
/// The device kernel of the copies (copy/strided_copy.hpp): one team policy launch over
/// copies [first, end) of a pool, each element written through `put`
/// (copy/element_op.hpp), given once per launch.
///
/// A team is `warps` warps of `lanes` vector lanes. The work of a copy is a list of items,
/// one per (column, run), or, for a copy of one long run per column, per (column, piece
/// of `piece` elements); a warp takes items, its lanes consecutive elements, so that a
/// warp reads and writes whole cache lines (coalesced). Runs are often short: a target
/// tile's rows cut by the source's blocking are runs of tens of elements, which a whole
/// team per run would leave three quarters idle.
///
/// Each copy gets `split` teams, team s taking items s, s + split, ... (through its
/// warps): a copy can be one block of thousands of columns (separable sides bind a whole
/// slice as one copy), so one team per copy would leave a GPU almost idle; teams of copies
/// with fewer items return at once. Short columns (one run of at most half a team) go
/// several at a time, each thread of the team one element.
///
/// Every lane keeps `depth` loads in flight before it writes them: a store between two
/// loads would keep the next load waiting (source and target may alias, as far as the
/// compiler knows), and one load in flight per thread leaves the memory system idle most
/// of the time. Along a long run the four loads are four steps of the run (copy_run);
/// a run shorter than four steps gives most lanes one element, so a warp then takes four
/// items at once and each lane loads its element of every one (copy_items).

#include <cstddef>

#include <Kokkos_Core.hpp>

#include <redist/copy/strided_copy.hpp>
#include <redist/index.hpp>

namespace redist::detail {

template <class ExecSpace, class T, class Put>
struct DeviceCopyKernel {
  static constexpr int lanes = 32;  ///< one warp: 256 bytes of doubles per step
  static constexpr int warps = 4;   ///< several teams per SM
  static constexpr int team_size = lanes * warps;
  /// Teams an SM must be able to hold at once: the compiler keeps a thread's registers
  /// within 65536 / (team_size x this), 64. Unbounded it took 96 (5 teams an SM), too few
  /// warps to keep the memory busy on short runs; 12 or 16 teams spill so much that the
  /// copies run 2-3x slower (bench/README.md, "Device copies: registers").
  static constexpr unsigned min_teams_per_sm = 8;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<team_size, min_teams_per_sm>>;
  using member_type = typename Policy::member_type;
  /// Loads in flight per lane (see the file comment; copy_run and copy_items spell out
  /// four).
  static constexpr index_t depth = 4;
  static_assert(depth == 4, "copy_run and copy_items load four elements per step");
  /// Elements of a long run one warp moves at a time (a copy of one run per column).
  static constexpr index_t piece = 16 * lanes;

  const StridedCopy<T>* copies;  ///< in memory ExecSpace can read, as runs and members
  const RowRun* runs;
  const ColumnMember* members;
  std::size_t first;
  int split;  ///< teams per copy
  Put put;

  static Policy policy(const ExecSpace& exec, std::size_t copies, int split) {
    return Policy(exec, static_cast<int>(copies) * split, warps, lanes);
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
    const index_t columns = c.columns();
    if (c.runs == 1) {
      const RowRun run = runs[c.run_first];
      if (2 * run.length <= team_size) {
        // Short columns: the team takes team_size / length columns at a time, thread t
        // element t % length of column t / length.
        const index_t per = team_size / run.length;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](index_t lane) {
          const index_t t = team.team_rank() * lanes + lane;
          const index_t i = t % run.length;
          if (t / run.length >= per) return;
          for (index_t col = part + t / run.length * split; col < columns; col += per * split)
            put(c.dst_column(members, col)[run.dst + i],
                c.src_column(members, col)[run.src + i * si]);
        });
        return;
      }
      if (run.length >= depth * lanes) {
        // One long run per column: a warp takes a piece of it at a time.
        const index_t pieces = (run.length + piece - 1) / piece;
        for (index_t item = part * warps + team.team_rank(); item < columns * pieces;
             item += static_cast<index_t>(split) * warps) {
          const index_t col = item / pieces, at = item % pieces * piece;
          copy_run(team, c.dst_column(members, col) + (run.dst + at),
                   c.src_column(members, col) + (run.src + at * si), si,
                   run.length - at < piece ? run.length - at : piece);
        }
        return;
      }
      copy_items(team, part, columns, si, [&](index_t col, T*& d, const T*& s) {
        d = c.dst_column(members, col) + run.dst;
        s = c.src_column(members, col) + run.src;
        return run.length;
      });
      return;
    }
    copy_items(team, part, columns * c.runs, si, [&](index_t item, T*& d, const T*& s) {
      const index_t col = item / c.runs;
      const RowRun run = runs[c.run_first + item % c.runs];
      d = c.dst_column(members, col) + run.dst;
      s = c.src_column(members, col) + run.src;
      return run.length;
    });
  }

  /// One warp: d[i] from s[i * si] for i < length, lane l taking i = l, l + lanes, ...,
  /// `depth` loads before their stores.
  KOKKOS_INLINE_FUNCTION void copy_run(const member_type& team, T* d, const T* s, index_t si,
                                       index_t length) const {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](index_t lane) {
      index_t i = lane;
      for (; i + 3 * lanes < length; i += 4 * lanes) {
        const T v0 = s[i * si], v1 = s[(i + lanes) * si], v2 = s[(i + 2 * lanes) * si],
                v3 = s[(i + 3 * lanes) * si];
        put(d[i], v0);
        put(d[i + lanes], v1);
        put(d[i + 2 * lanes], v2);
        put(d[i + 3 * lanes], v3);
      }
      for (; i < length; i += lanes) put(d[i], s[i * si]);
    });
  }

  /// Items [0, count) of this team's copy, `depth` consecutive items per warp at a time:
  /// `item(k, d, s)` sets item k's target and source and returns its length; element i of
  /// an item is d[i] from s[i * si]. Lane l takes i = l, l + lanes, ... of each.
  template <class Item>
  KOKKOS_INLINE_FUNCTION void copy_items(const member_type& team, index_t part, index_t count,
                                         index_t si, const Item& item) const {
    const index_t stride = static_cast<index_t>(split) * warps * depth;
    for (index_t first = (part * warps + team.team_rank()) * depth; first < count;
         first += stride) {
      T* d[depth]{};
      const T* s[depth]{};
      index_t length[depth], longest = 0;
      for (index_t k = 0; k < depth; ++k) {
        length[k] = first + k < count ? item(first + k, d[k], s[k]) : 0;
        longest = length[k] > longest ? length[k] : longest;
      }
      // An item past its end reads element 0 of the first (every group has one), so the
      // loads need no branch and T no default constructor (std::complex's is host-only).
      for (index_t k = 1; k < depth; ++k)
        if (length[k] == 0) s[k] = s[0];
      const bool even = length[0] == longest && length[1] == longest && length[2] == longest &&
                        length[3] == longest;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](index_t lane) {
        if (even) {  // four items of one length: no bounds per element
          for (index_t i = lane; i < longest; i += lanes) {
            const T v0 = s[0][i * si], v1 = s[1][i * si], v2 = s[2][i * si], v3 = s[3][i * si];
            put(d[0][i], v0);
            put(d[1][i], v1);
            put(d[2][i], v2);
            put(d[3][i], v3);
          }
          return;
        }
        for (index_t i = lane; i < longest; i += lanes) {
          const auto at = [&](index_t k) { return (i < length[k] ? i : 0) * si; };
          const T v0 = s[0][at(0)], v1 = s[1][at(1)], v2 = s[2][at(2)], v3 = s[3][at(3)];
          if (i < length[0]) put(d[0][i], v0);
          if (i < length[1]) put(d[1][i], v1);
          if (i < length[2]) put(d[2][i], v2);
          if (i < length[3]) put(d[3][i], v3);
        }
      });
    }
  }
};

}  // namespace redist::detail
