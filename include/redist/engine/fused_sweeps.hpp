#pragma once
/// @file engine/fused_sweeps.hpp
/// A sent chunk's pack and the local parts that follow it (engine/pack_followers.hpp) as
/// one sweep over the source. Where a column goes partly to a peer and partly to this
/// rank's own target (case a: 100-row pieces of 256-row columns), the pack's runs and the
/// local parts' runs of that column are copied in the order of their source rows: the
/// column is read once, front to back, as memcpy would read it. Two sparse passes over the
/// column, even with the cache holding it between them, measured 1.2-1.3x slower, two over
/// a slot's columns 1.3-1.6x (bench/one_pass_probe: `one-pass` against `by-column` and
/// `by-slot`; bench/README.md, "One sweep per column").
///
/// Built once per engine from the bound copy pools (engine/bound_copies.hpp), which it
/// indexes and does not hold; a sweep runs on the host. Its columns write disjoint targets
/// (a pack's slot, the local parts' target elements), so a threaded space splits them into
/// contiguous ranges, each still in source order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/element_op.hpp>
#include <redist/copy/host_walkers.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/detail/progress_thread_mark.hpp>
#include <redist/index.hpp>

namespace redist::engine {

template <class T>
class FusedSweeps {
 public:
  using Range = std::pair<std::size_t, std::size_t>;  ///< copies [first, end) of a pool

  /// Copies of one source column merged run by run; a column read by more (several parts
  /// cut inside it) runs its copies one after the other.
  static constexpr std::size_t max_merged = 8;

  FusedSweeps() = default;

  /// Fuses sent chunk c's packs (send.copies[packs[c]]) with the copies of every local part
  /// p with follows[p] == c (local.copies[parts[p]]). Chunks that no part follows, and
  /// parts that follow none (SIZE_MAX), stay apart. @pre no copy in either range reads
  /// its source transposed.
  FusedSweeps(const CopyPool<T>& send, const std::vector<Range>& packs, const CopyPool<T>& local,
              const std::vector<Range>& parts, const std::vector<std::size_t>& follows)
      : fused_part_(parts.size(), 0) {
    std::vector<std::vector<std::size_t>> followers(packs.size());
    for (std::size_t p = 0; p < follows.size() && p < parts.size(); ++p)
      if (follows[p] < packs.size()) followers[follows[p]].push_back(p);
    range_.assign(packs.size(), Range{0, 0});
    std::vector<std::pair<std::uintptr_t, Step>> keyed;
    for (std::size_t c = 0; c < packs.size(); ++c) {
      if (followers[c].empty()) continue;
      keyed.clear();
      add_columns(send, packs[c], false, keyed);
      for (const std::size_t p : followers[c]) {
        add_columns(local, parts[p], true, keyed);
        fused_part_[p] = 1;
      }
      // By source column; stable, so a column's copies keep pack-before-part order.
      std::stable_sort(keyed.begin(), keyed.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      const std::size_t first = columns_.size();
      for (std::size_t i = 0; i < keyed.size(); ++i) {
        if (i == 0 || keyed[i].first != keyed[i - 1].first) columns_.push_back(steps_.size());
        steps_.push_back(keyed[i].second);
      }
      range_[c] = {first, columns_.size()};
    }
    columns_.push_back(steps_.size());
  }

  /// Whether sent chunk c's pack sweeps with the parts that follow it.
  bool sweeps(std::size_t c) const {
    return c < range_.size() && range_[c].first < range_[c].second;
  }
  /// Whether local part p is copied by the sweep of the chunk it follows.
  bool swept(std::size_t p) const { return p < fused_part_.size() && fused_part_[p]; }

  /// Runs sent chunk c's sweep on host space `exec` over the pools it was built from: the
  /// packs plainly, the local parts' elements through their pool's operation
  /// (copy/element_op.hpp). @pre sweeps(c).
  template <class ExecSpace>
  void run(const ExecSpace& exec, std::size_t c, const CopyPool<T>& send,
           const CopyPool<T>& local) const {
    if constexpr (ScalableElement<T>) {
      if (!local.op.plain()) {
        detail::with_fixed_op(local.op, [&](auto put) { launch(exec, c, send, local, put); });
        return;
      }
    }
    launch(exec, c, send, local, Assign{});
  }

  /// Bytes of the steps and the per-column, per-chunk and per-part tables.
  std::size_t memory_bytes() const {
    return steps_.capacity() * sizeof(Step) + columns_.capacity() * sizeof(std::size_t) +
           range_.capacity() * sizeof(Range) + fused_part_.capacity();
  }

 private:
  /// Column `column` of copy `copy` of the local pool (`local`) or the send pool.
  struct Step {
    std::size_t copy = 0;
    index_t column = 0;
    bool local = false;
  };

  /// Every column of copies [r.first, r.second) of `pool`, keyed by its source column.
  static void add_columns(const CopyPool<T>& pool, const Range& r, bool local,
                          std::vector<std::pair<std::uintptr_t, Step>>& out) {
    for (std::size_t k = r.first; k < r.second; ++k) {
      const StridedCopy<T>& x = pool.copies[k];
      if (x.runs == 0) continue;
      for (index_t col = 0; col < x.columns(); ++col)
        out.push_back({reinterpret_cast<std::uintptr_t>(x.src_column(pool.members.data(), col)),
                       Step{k, col, local}});
    }
  }

  /// One copy's column as the merge walks it: its runs [next, end) from source s to d.
  struct Cursor {
    const T* s;
    T* d;
    const RowRun* runs;
    index_t next, end;
    bool streaming, local;
  };

  /// The copies of one source column (steps [first, end)), their runs merged in source
  /// order: each run is the next one down the column, whichever copy it belongs to.
  template <class Put>
  static void sweep_column(const Step* steps, std::size_t first, std::size_t end,
                           const CopyPool<T>& send, const CopyPool<T>& local, Put put) {
    const auto at = [&](const Step& s) -> const CopyPool<T>& { return s.local ? local : send; };
    if (end - first == 1 || end - first > max_merged) {
      for (std::size_t i = first; i < end; ++i) {
        const CopyPool<T>& pool = at(steps[i]);
        const StridedCopy<T>& x = pool.copies[steps[i].copy];
        if (steps[i].local)
          detail::copy_column(x, pool.runs.data(), pool.members.data(), steps[i].column, put);
        else
          detail::copy_column(x, pool.runs.data(), pool.members.data(), steps[i].column, Assign{});
      }
      return;
    }
    Cursor cur[max_merged];
    std::size_t n = 0;
    for (std::size_t i = first; i < end; ++i) {
      const CopyPool<T>& pool = at(steps[i]);
      const StridedCopy<T>& x = pool.copies[steps[i].copy];
      cur[n++] = Cursor{x.src_column(pool.members.data(), steps[i].column),
                        x.dst_column(pool.members.data(), steps[i].column),
                        pool.runs.data(),
                        x.run_first,
                        x.run_first + x.runs,
                        x.streaming,
                        steps[i].local};
    }
    for (;;) {
      std::size_t best = n;
      for (std::size_t k = 0; k < n; ++k)
        if (cur[k].next < cur[k].end &&
            (best == n || cur[k].runs[cur[k].next].src < cur[best].runs[cur[best].next].src))
          best = k;
      if (best == n) return;
      Cursor& x = cur[best];
      const RowRun& r = x.runs[x.next++];
      if (x.local)
        detail::put_run(x.d + r.dst, x.s + r.src, r.length, x.streaming, put);
      else
        detail::put_run(x.d + r.dst, x.s + r.src, r.length, x.streaming, Assign{});
    }
  }

  template <class ExecSpace, class Put>
  void launch(const ExecSpace& exec, std::size_t c, const CopyPool<T>& send,
              const CopyPool<T>& local, Put put) const {
    const Step* steps = steps_.data();
    const std::size_t* columns = columns_.data();
    const auto column = [=, &send, &local](std::size_t i) {
      sweep_column(steps, columns[i], columns[i + 1], send, local, put);
    };
    const auto [first, end] = range_[c];
    if (detail::on_progress_thread || ExecSpace::concurrency() <= 1) {
      for (std::size_t i = first; i < end; ++i) column(i);
      return;
    }
    // Contiguous ranges of columns per thread (static schedule): each sweeps in order.
    Kokkos::parallel_for(
        "redist::fused_sweep",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(exec, first, end), column);
  }

  std::vector<Step> steps_;
  std::vector<std::size_t> columns_;      ///< column i: steps [columns_[i], columns_[i + 1])
  std::vector<Range> range_;              ///< per sent chunk: its columns
  std::vector<std::uint8_t> fused_part_;  ///< per local part: swept with its pack
};

}  // namespace redist::engine
