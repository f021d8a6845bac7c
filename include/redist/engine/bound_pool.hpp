#pragma once
/// @file engine/bound_pool.hpp
/// One pool of bound copy programs: an engine's packs, unpacks or local parts
/// (engine/bound_copies.hpp holds one of each). The copies (copy/strided_copy.hpp), each
/// copy's offset from its message's start (a buffer side's, to point it later), each
/// chunk's range of copies, and the pool's mirror in device memory; and what is asked of
/// one pool: run a chunk's copies, the source bytes a chunk reads, a chunk's runs one by one.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/pack_followers.hpp>
#include <redist/index.hpp>

namespace redist::engine {

template <class T, class MemorySpace>
struct BoundPool {
  using execution_space = typename MemorySpace::execution_space;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  using Range = CopyRange;

  CopyPool<T> pool;
  std::vector<index_t> rel;  ///< per copy: its buffer side's offset in its message
  std::vector<Range> range;  ///< per chunk: its copies
  Kokkos::View<StridedCopy<T>*, MemorySpace> copies;
  Kokkos::View<RowRun*, MemorySpace> runs;
  Kokkos::View<ColumnMember*, MemorySpace> members;

  /// Runs chunk c's copies on `exec` (from the device mirror in device memory).
  void run(const execution_space& exec, std::size_t c) const {
    if constexpr (host_memory)
      run_copies(exec, pool, range[c].first, range[c].second);
    else
      run_copies(exec, copies.data(), runs.data(), members.data(), pool.op, range[c].first,
                 range[c].second);
  }
  /// Room for one copy per slice (a slice binds to at least one) and a range per chunk:
  /// K parts would otherwise grow the pools by doubling, copying them and touching twice
  /// the memory.
  void reserve(const Chunking& chunking) {
    const std::size_t n = chunking.slices.size();
    pool.copies.reserve(n);
    pool.runs.reserve(n);
    pool.members.reserve(n);
    rel.reserve(n);
    range.reserve(chunking.chunks.size());
  }
  /// Closes a chunk whose copies start at copy `first`, once the slices before
  /// `slices_bound` (of `slices`) are bound. At a sixteenth of the slices it reserves the
  /// whole pool's room, extrapolated from them: tile storage under rings binds about a
  /// hundred copies a slice, and growing from reserve()'s one by doubling, then shrinking,
  /// touched about three times the pool's final memory, first touches that were a third
  /// of the wiring's time on these VMs. Runs are left out: slices share them (SharedRuns,
  /// engine/bind_copies.hpp), so they do not grow with the slices.
  void close_chunk(std::size_t first, std::size_t slices_bound, std::size_t slices) {
    range.emplace_back(first, pool.copies.size());
    if (room_reserved_ || slices_bound == 0 || 16 * slices_bound < slices) return;
    room_reserved_ = true;
    if (slices_bound >= slices) return;
    const auto room = [&](std::size_t n) {
      return n + n * (slices - slices_bound) / slices_bound + n / 16;
    };
    pool.copies.reserve(room(pool.copies.size()));
    pool.members.reserve(room(pool.members.size()));
    rel.reserve(room(rel.size()));
  }
  /// The pools are kept for the plan's life (tile storage under rings: a copy per tile and
  /// slot, tens of MB at 16384^2): one with more than an eighth of room to spare is copied
  /// into one of its size.
  void shrink() {
    shrink_to_size(pool.copies);
    shrink_to_size(pool.runs);
    shrink_to_size(pool.members);
    shrink_to_size(rel);
    shrink_to_size(range);
  }
  /// Brings the device mirror up to date.
  void mirror() {
    mirror_array(pool.copies, copies);
    mirror_array(pool.runs, runs);
    mirror_array(pool.members, members);
  }
  /// Bytes: capacity x element size of every host container, plus the device mirror.
  std::size_t memory_bytes() const {
    return pool.runs.capacity() * sizeof(RowRun) + pool.members.capacity() * sizeof(ColumnMember) +
           pool.copies.capacity() * sizeof(StridedCopy<T>) + rel.capacity() * sizeof(index_t) +
           range.capacity() * sizeof(Range) + copies.span() * sizeof(StridedCopy<T>) +
           runs.span() * sizeof(RowRun) + members.span() * sizeof(ColumnMember);
  }

  /// The address range around what each chunk's copies read: every run of the first and
  /// last column of each member. A column's runs lie at the same offsets from its start,
  /// and columns step forward, so the runs' lowest and highest offsets bound them all:
  /// O(runs + members) a copy, not their product, and the runs' bounds once for the copies
  /// that share them (1 x 1 tiles: 8192 runs and 8 members a copy, 0.3 s of set-up at
  /// 16384^2 before).
  std::vector<AddressSpan> source_spans() const {
    LastRunSummary summaries;
    std::vector<AddressSpan> spans(range.size());
    for (std::size_t c = 0; c < range.size(); ++c) {
      std::uintptr_t low = UINTPTR_MAX, high = 0;
      for_each_member_span(c, Side::source, summaries,
                           [&](std::uintptr_t first, std::uintptr_t end) {
                             low = std::min(low, first);
                             high = std::max(high, end);
                           });
      if (low < high) spans[c] = {low, high};
    }
    return spans;
  }

  enum class Side { source, target };
  /// f(first, end) for each column member of chunk c's copies: the address range around
  /// every run of its columns on `side` (as source_spans, a member at a time).
  template <class F>
  void for_each_member_span(std::size_t c, Side side, LastRunSummary& summaries, F&& f) const {
    const ColumnMember* m = pool.members.data();
    for (std::size_t k = range[c].first; k < range[c].second; ++k) {
      const StridedCopy<T>& x = pool.copies[k];
      if (x.col_len == 0 || x.runs == 0) continue;
      const RunSummary& r = summaries.of(x, pool.runs);
      for (index_t j = 0; j < x.members; ++j) {
        const index_t top = j * x.col_len, bottom = (j + 1) * x.col_len - 1;
        if (side == Side::source)
          f(reinterpret_cast<std::uintptr_t>(x.src_column(m, top) + r.low),
            reinterpret_cast<std::uintptr_t>(x.src_column(m, bottom) + r.end));
        else
          f(reinterpret_cast<std::uintptr_t>(x.dst_column(m, top) + r.dst_low),
            reinterpret_cast<std::uintptr_t>(x.dst_column(m, bottom) + r.dst_end));
      }
    }
  }

  /// f(source element, target element, length) for every run of chunk c's copies; false
  /// if one is transposed (its runs are not contiguous in the source).
  template <class F>
  bool for_each_run(std::size_t c, F&& f) const {
    const RowRun* r = pool.runs.data();
    const ColumnMember* m = pool.members.data();
    for (std::size_t k = range[c].first; k < range[c].second; ++k) {
      const StridedCopy<T>& x = pool.copies[k];
      if (x.transposed) return false;
      for (index_t col = 0; col < x.columns(); ++col) {
        const T* from = x.src_column(m, col);
        const T* to = x.dst_column(m, col);
        for (index_t i = x.run_first; i < x.run_first + x.runs; ++i)
          f(from + r[i].src, to + r[i].dst, r[i].length);
      }
    }
    return true;
  }

 private:
  bool room_reserved_ = false;  ///< close_chunk reserved the whole pool's room

  template <class E>
  static void shrink_to_size(std::vector<E>& list) {
    if (list.capacity() - list.size() > list.size() / 8) list.shrink_to_fit();
  }
  template <class V, class E>
  static void mirror_array(const std::vector<E>& list, V& view) {
    view = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::copies"), list.size());
    const Kokkos::View<const E*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(list.data(),
                                                                                  list.size());
    Kokkos::deep_copy(view, host);
  }
};

}  // namespace redist::engine
