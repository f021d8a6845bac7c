#pragma once
/// @file engine/streaming_choice.hpp
/// Which copies of one engine store with streaming (non-temporal) stores
/// (copy/host_primitives.hpp), decided once when the copies are bound
/// (engine/bound_copies.hpp). Streaming pays where a rank writes more than the cache keeps
/// and nobody reads the lines back soon: into its target, and into a send buffer that the
/// peer reads only after much more has been packed. It costs where the lines are read
/// again at once (a ring slot, which its reader takes from the cache) or where the copy
/// reads its source with gaps (below).

#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

#include <redist/copy/strided_copy.hpp>
#include <redist/execution_options.hpp>
#include <redist/index.hpp>
#include <redist/plan/plan_header.hpp>

namespace redist::engine {

/// Whether copy c reads its source without gaps inside a column: its runs together cover
/// at least 7/8 of the rows they span. The rows a copy skips are read by another copy at
/// another time (a pack, where a column goes partly to a peer), so the lines are fetched
/// twice and the memory is busy; streamed stores into the target then measured 1.2-1.6x
/// slower than cached ones, dense sources 1.2-1.5x faster (bench/README.md, "Streaming
/// after a sparse read"). plan/copy_runs.hpp applies the same rule per
/// tile for the cost model. `runs`: the summary of c's runs.
template <class T>
bool reads_densely(const StridedCopy<T>& c, const RunSummary& runs) {
  if (c.transposed || c.runs <= 1) return true;
  return 8 * runs.covered >= 7 * (runs.end - runs.low);
}
template <class T>
bool reads_densely(const StridedCopy<T>& c, const std::vector<RowRun>& runs) {
  return reads_densely(c, RunSummary::of(c, runs));
}

/// The engine-wide choice and the per-copy rules built on it.
struct StreamingChoice {
  /// Runs of a pack shorter than this are stored cached: short runs scattered through the
  /// buffer measured slower streamed (redist-bench, standard case c).
  static constexpr index_t shortest_streamed_run_bytes = 1024;

  bool target = false;  ///< writes into the target (unpacks, local copies) may stream
  bool packs = false;   ///< writes into send buffers may stream
  bool forced = false;  ///< options.streaming == on: every copy into the target streams

  /// From the bytes this rank writes each way against options.streaming_threshold_bytes,
  /// unless options.streaming forces it on or off; never outside host memory.
  static StreamingChoice choose(const PlanStats& st, const ExecutionOptions& options,
                                std::size_t element_bytes, bool host_memory) {
    const index_t bytes = static_cast<index_t>(element_bytes);
    const index_t threshold = options.streaming_threshold_bytes;
    StreamingChoice c;
    c.target = (st.elements_local + st.elements_received) * bytes >= threshold;
    c.packs = st.elements_sent * bytes >= threshold;
    c.forced = options.streaming == Toggle::on;
    if (options.streaming != Toggle::automatic) c.target = c.packs = c.forced;
    c.target = c.target && host_memory;
    c.packs = c.packs && host_memory;
    c.forced = c.forced && host_memory;
    return c;
  }

  /// Whether an unpack or a local copy c (runs in `runs`) streams into the target: when
  /// the target does and c reads densely, or always when forced.
  template <class T>
  bool into_target(const StridedCopy<T>& c, const RunSummary& runs) const {
    return target && (forced || reads_densely(c, runs));
  }
  template <class T>
  bool into_target(const StridedCopy<T>& c, const std::vector<RowRun>& runs) const {
    return into_target(c, RunSummary::of(c, runs));
  }

  /// Whether a push's sweep streams, stitched, the copies whose runs continue each other
  /// in the target (engine/stitched_runs.hpp), whatever their sources read: wherever the
  /// target streams. Case a pushed took 0.58-0.61 of the time of cached stores (its runs
  /// split each column between the two targets, so reads_densely keeps it cached), case c
  /// 0.94; whole columns (b, d) stream either way (bench/README.md, "Stitched stores").
  bool stitches() const { return target; }

  /// Whether pack copy c (runs in `runs`) streams into its message: long runs and
  /// contiguous blocks only (a segment laid flat streams whatever its column length), and
  /// never into a ring slot.
  template <class T>
  bool into_message(const StridedCopy<T>& c, const RunSummary& runs, bool in_ring) const {
    if (!packs || in_ring || c.runs == 0) return false;
    const index_t bytes = static_cast<index_t>(sizeof(T));
    const bool contiguous = c.runs == 1 && c.members == 1 && runs.shortest == c.ldd;
    return contiguous || runs.shortest * bytes >= shortest_streamed_run_bytes;
  }
  template <class T>
  bool into_message(const StridedCopy<T>& c, const std::vector<RowRun>& runs, bool in_ring) const {
    return into_message(c, RunSummary::of(c, runs), in_ring);
  }
};

}  // namespace redist::engine
