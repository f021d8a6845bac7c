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
/// indexes and does not hold; a sweep runs on the host. A chunk whose columns lie as the
/// last built chunk's do, shifted by whole columns, with its copies at the same places of
/// its ranges, takes that chunk's bands with its copies shifted (Shift): a message's chunks
/// of one family block all do, so the tables grow with the families, not with the chunks
/// (1 x 1 tiles at 16384^2: 2048 chunks a rank, a third of the set-up sorting their
/// bands). Its columns write disjoint targets (a pack's slot, the local parts' target
/// elements), so a threaded space splits them into contiguous ranges, each still in source
/// order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/element_op.hpp>
#include <redist/copy/host_walkers.hpp>
#include <redist/copy/stitched_stores.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/detail/progress_thread_mark.hpp>
#include <redist/index.hpp>

namespace redist::engine {

template <class T>
class FusedSweeps {
 public:
  using Range = CopyRange;

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
    shift_.assign(packs.size(), Shift{});
    band_steps_.push_back(0);
    band_columns_.push_back(0);
    std::vector<Span> spans;
    Built last;  // the last chunk whose bands were built
    for (std::size_t c = 0; c < packs.size(); ++c) {
      if (followers[c].empty()) continue;
      spans.clear();
      add_spans(send, packs[c], false, spans);
      for (const std::size_t p : followers[c]) {
        add_spans(local, parts[p], true, spans);
        fused_part_[p] = 1;
      }
      const Shift base{static_cast<std::ptrdiff_t>(packs[c].first),
                       static_cast<std::ptrdiff_t>(parts[followers[c].front()].first)};
      if (last.repeated_by(spans, base)) {
        range_[c] = last.range;
        shift_[c] = Shift{base.send - last.base.send, base.local - last.base.local};
        continue;
      }
      const std::size_t first = band_steps_.size() - 1;
      add_bands(spans);
      range_[c] = {first, band_steps_.size() - 1};
      last.spans = spans;
      last.base = base;
      last.range = range_[c];
    }
  }

  /// Whether sent chunk c's pack sweeps with the parts that follow it.
  bool sweeps(std::size_t c) const {
    return c < range_.size() && range_[c].first < range_[c].second;
  }
  /// Whether local part p is copied by the sweep of the chunk it follows.
  bool swept(std::size_t p) const { return p < fused_part_.size() && fused_part_[p]; }
  /// The bands built: those of chunks that repeat an earlier chunk's are not built again.
  std::size_t bands() const { return band_steps_.size() - 1; }

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

  /// Bytes of the steps and the per-band, per-chunk and per-part tables: they grow with
  /// the copies' members and where their columns part, not with the columns.
  std::size_t memory_bytes() const {
    return steps_.capacity() * sizeof(Step) + band_steps_.capacity() * sizeof(std::size_t) +
           band_columns_.capacity() * sizeof(index_t) + range_.capacity() * sizeof(Range) +
           shift_.capacity() * sizeof(Shift) + fused_part_.capacity();
  }

 private:
  /// Column `column` of copy `copy` of the local pool (`local`) or the send pool: a band's
  /// first column in that copy; the band's j-th column is `column + j`. `joins`: the copy
  /// reads its columns from the same addresses as the step before it, and the two are
  /// merged run by run.
  struct Step {
    std::size_t copy = 0;
    index_t column = 0;
    bool local = false;
    bool joins = false;
  };

  /// A member's columns as the copy reads them: from byte addresses first + i * stride for
  /// i in [0, count), copy columns step.column + i.
  struct Span {
    std::uintptr_t first = 0, stride = 0;
    index_t count = 0;
    Step step;
  };

  /// What a chunk adds to its bands' copy indices, in the send and the local pool; as a
  /// base, where its pack's copies and its first follower's start.
  struct Shift {
    std::ptrdiff_t send = 0, local = 0;
    std::size_t copy(const Step& s) const {
      return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(s.copy) +
                                      (s.local ? local : send));
    }
  };

  /// The spans of a chunk whose bands were built, its copies' bases and its bands.
  struct Built {
    std::vector<Span> spans;
    Shift base;
    Range range{0, 0};

    /// Whether a chunk of these spans and bases has the same bands: span for span the same
    /// copy (from its base), column, count and stride, and all addresses moved by one
    /// distance that is whole strides of each, so that places, their order and the
    /// offsets within them stay.
    bool repeated_by(const std::vector<Span>& other, const Shift& other_base) const {
      if (spans.empty() || other.size() != spans.size()) return false;
      const auto distance = static_cast<std::intptr_t>(other.front().first - spans.front().first);
      for (std::size_t i = 0; i < spans.size(); ++i) {
        const Span& a = spans[i];
        const Span& b = other[i];
        const std::ptrdiff_t from_a = a.step.local ? base.local : base.send;
        const std::ptrdiff_t from_b = b.step.local ? other_base.local : other_base.send;
        if (a.stride != b.stride || a.count != b.count || a.step.column != b.step.column ||
            a.step.local != b.step.local ||
            static_cast<std::ptrdiff_t>(a.step.copy) - from_a !=
                static_cast<std::ptrdiff_t>(b.step.copy) - from_b ||
            static_cast<std::intptr_t>(b.first - a.first) != distance ||
            distance % static_cast<std::intptr_t>(a.stride) != 0)
          return false;
      }
      return true;
    }
  };

  /// Every member of copies [r.first, r.second) of `pool` as a span of source columns.
  static void add_spans(const CopyPool<T>& pool, const Range& r, bool local,
                        std::vector<Span>& out) {
    for (std::size_t k = r.first; k < r.second; ++k) {
      const StridedCopy<T>& x = pool.copies[k];
      if (x.runs == 0 || x.col_len == 0) continue;
      const auto stride = static_cast<std::uintptr_t>(x.src_col_step()) * sizeof(T);
      for (index_t m = 0; m < x.members; ++m) {
        const index_t column = m * x.col_len;
        out.push_back(
            Span{reinterpret_cast<std::uintptr_t>(x.src_column(pool.members.data(), column)),
                 stride == 0 ? 1 : stride, x.col_len, Step{k, column, local, false}});
      }
    }
  }

  /// A chunk's columns in the order of their addresses, as bands: a band is a run of
  /// lattice places (address / stride, for one stride) where the same spans read, and
  /// its steps go by address within a place (address % stride, then span order; a column's
  /// copies keep pack-before-part order). Column j of a band is its steps' columns
  /// `column + j`, at address order for every j, so a chunk sweeps its columns in the
  /// order of their addresses with one step per copy and band, not per column.
  void add_bands(const std::vector<Span>& spans) {
    const auto place = [](const Span& x) { return static_cast<index_t>(x.first / x.stride); };
    const auto offset = [](const Span& x) { return x.first % x.stride; };
    std::vector<std::size_t> order(spans.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::pair{spans[a].stride, place(spans[a])} <
             std::pair{spans[b].stride, place(spans[b])};
    });
    struct Band {
      std::uintptr_t address;  // of its first place
      std::size_t first, end;  // of `steps`
      index_t columns;
    };
    std::vector<Band> bands;
    std::vector<Step> steps;
    std::vector<index_t> edges;
    std::vector<std::size_t> active;  // spans reading at the current place, by (offset, span)
    const auto before = [&](std::size_t a, std::size_t b) {
      return std::pair{offset(spans[a]), a} < std::pair{offset(spans[b]), b};
    };
    for (std::size_t i = 0; i < order.size();) {
      const std::uintptr_t stride = spans[order[i]].stride;
      std::size_t j = i;
      edges.clear();
      for (; j < order.size() && spans[order[j]].stride == stride; ++j) {
        const Span& x = spans[order[j]];
        edges.push_back(place(x));
        edges.push_back(place(x) + x.count);
      }
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      active.clear();
      std::size_t next = i;  // the first span of this stride not yet active
      for (std::size_t e = 0; e + 1 < edges.size(); ++e) {
        const index_t edge = edges[e];
        std::erase_if(active,
                      [&](std::size_t s) { return place(spans[s]) + spans[s].count <= edge; });
        for (; next < j && place(spans[order[next]]) == edge; ++next)
          active.insert(std::upper_bound(active.begin(), active.end(), order[next], before),
                        order[next]);
        if (active.empty()) continue;
        const std::size_t first = steps.size();
        for (std::size_t k = 0; k < active.size(); ++k) {
          const Span& x = spans[active[k]];
          Step step = x.step;
          step.column += edge - place(x);
          step.joins = k > 0 && offset(spans[active[k - 1]]) == offset(x);
          steps.push_back(step);
        }
        bands.push_back(Band{static_cast<std::uintptr_t>(edge) * stride, first, steps.size(),
                             edges[e + 1] - edge});
      }
      i = j;
    }
    std::stable_sort(bands.begin(), bands.end(),
                     [](const Band& a, const Band& b) { return a.address < b.address; });
    for (const Band& b : bands) {
      steps_.insert(steps_.end(), steps.begin() + static_cast<std::ptrdiff_t>(b.first),
                    steps.begin() + static_cast<std::ptrdiff_t>(b.end));
      band_steps_.push_back(steps_.size());
      band_columns_.push_back(band_columns_.back() + b.columns);
    }
  }

  /// One copy's column as the merge walks it: its runs [next, end) from source s to d.
  struct Cursor {
    const T* s;
    T* d;
    const RowRun* runs;
    index_t next, end;
    bool streaming, stitched, local;
  };

  /// Column j of a band (steps [first, end)): each group of steps that read the same
  /// addresses (joined) swept at once.
  template <class Put>
  static void sweep_band_column(const Step* steps, std::size_t first, std::size_t end, index_t j,
                                const Shift& shift, const CopyPool<T>& send,
                                const CopyPool<T>& local, Put put) {
    for (std::size_t i = first; i < end;) {
      std::size_t k = i + 1;
      while (k < end && steps[k].joins) ++k;
      sweep_column(steps, i, k, j, shift, send, local, put);
      i = k;
    }
  }

  /// Column j of the copies of steps [first, end), which read the same source column,
  /// their runs merged in source order: each run is the next one down the column,
  /// whichever copy it belongs to.
  template <class Put>
  static void sweep_column(const Step* steps, std::size_t first, std::size_t end, index_t j,
                           const Shift& shift, const CopyPool<T>& send, const CopyPool<T>& local,
                           Put put) {
    const auto at = [&](const Step& s) -> const CopyPool<T>& { return s.local ? local : send; };
    if (end - first == 1 || end - first > max_merged) {
      for (std::size_t i = first; i < end; ++i) {
        const CopyPool<T>& pool = at(steps[i]);
        const StridedCopy<T>& x = pool.copies[shift.copy(steps[i])];
        const index_t column = steps[i].column + j;
        if (steps[i].local)
          detail::copy_column(x, pool.runs.data(), pool.members.data(), column, put);
        else
          detail::copy_column(x, pool.runs.data(), pool.members.data(), column, Assign{});
      }
      return;
    }
    Cursor cur[max_merged];
    std::size_t n = 0;
    for (std::size_t i = first; i < end; ++i) {
      const CopyPool<T>& pool = at(steps[i]);
      const StridedCopy<T>& x = pool.copies[shift.copy(steps[i])];
      const index_t column = steps[i].column + j;
      cur[n++] = Cursor{x.src_column(pool.members.data(), column),
                        x.dst_column(pool.members.data(), column),
                        pool.runs.data(),
                        x.run_first,
                        x.run_first + x.runs,
                        x.streaming,
                        x.stitched,
                        steps[i].local};
    }
    detail::StitchedStores
        stitches[max_merged];  // a stitched cursor's pending line; flushed at return
    for (;;) {
      std::size_t best = n;
      for (std::size_t k = 0; k < n; ++k)
        if (cur[k].next < cur[k].end &&
            (best == n || cur[k].runs[cur[k].next].src < cur[best].runs[cur[best].next].src))
          best = k;
      if (best == n) return;
      Cursor& x = cur[best];
      const RowRun& r = x.runs[x.next++];
      if (x.stitched && (!x.local || std::is_same_v<Put, Assign>))
        stitches[best].put(x.d + r.dst, x.s + r.src, r.length);
      else if (x.local)
        detail::put_run(x.d + r.dst, x.s + r.src, r.length, x.streaming, put);
      else
        detail::put_run(x.d + r.dst, x.s + r.src, r.length, x.streaming, Assign{});
    }
  }

  template <class ExecSpace, class Put>
  void launch(const ExecSpace& exec, std::size_t c, const CopyPool<T>& send,
              const CopyPool<T>& local, Put put) const {
    const Step* steps = steps_.data();
    const std::size_t* band_steps = band_steps_.data();
    const index_t* band_columns = band_columns_.data();
    const auto [first, end] = range_[c];
    const Shift shift = shift_[c];
    if (detail::on_progress_thread || ExecSpace::concurrency() <= 1) {
      for (std::size_t b = first; b < end; ++b)
        for (index_t j = 0; j < band_columns[b + 1] - band_columns[b]; ++j)
          sweep_band_column(steps, band_steps[b], band_steps[b + 1], j, shift, send, local, put);
      return;
    }
    // Contiguous ranges of the chunk's columns per thread (static schedule): each sweeps in
    // order. Column i lies in the band whose column range holds it.
    const auto column = [=, &send, &local](index_t i) {
      const auto b = static_cast<std::size_t>(
          std::upper_bound(band_columns + first, band_columns + end + 1, i) - band_columns - 1);
      sweep_band_column(steps, band_steps[b], band_steps[b + 1], i - band_columns[b], shift, send,
                        local, put);
    };
    Kokkos::parallel_for("redist::fused_sweep",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(
                             exec, band_columns[first], band_columns[end]),
                         column);
  }

  std::vector<Step> steps_;
  std::vector<std::size_t> band_steps_;   ///< band b: steps [band_steps_[b], band_steps_[b + 1])
  std::vector<index_t> band_columns_;     ///< band b: columns [band_columns_[b], [b + 1]) of all
  std::vector<Range> range_;              ///< per sent chunk: its bands
  std::vector<Shift> shift_;              ///< per sent chunk: added to its bands' copies
  std::vector<std::uint8_t> fused_part_;  ///< per local part: swept with its pack
};

}  // namespace redist::engine
