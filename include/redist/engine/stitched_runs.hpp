#pragma once
/// @file engine/stitched_runs.hpp
/// Which copies of a push's sweep store stitched (copy/stitched_stores.hpp): those whose
/// runs, in target order, continue each other in the target. Binding keeps a host copy's
/// runs in family order (engine/shared_runs.hpp), and family k holds every period's k-th
/// piece: case a's local runs go src 0, 6400, 200, 6600, ... (a period of 6400 rows), which
/// never continue each other. In target order they do (target rows 0-99, 100-199, ...),
/// and a copy that reads its source untransposed then reads it front to back, as the
/// sweep's merge of runs by source row expects (engine/fused_sweeps.hpp).

#include <algorithm>
#include <vector>

#include <redist/copy/strided_copy.hpp>
#include <redist/index.hpp>

namespace redist::engine {

class StitchedRuns {
 public:
  /// Whether copy c's runs, put in target order, continue each other in the target and
  /// ascend in the source; if so, puts them in that order (in `runs`, the pool's list,
  /// which the copies with the same rows share: their elements are the same either way).
  template <class T>
  bool order(const StridedCopy<T>& c, std::vector<RowRun>& runs) {
    if (c.transposed || c.runs <= 1) return false;
    if (c.run_first == first_ && c.runs == count_) return continuous_;
    first_ = c.run_first;
    count_ = c.runs;
    const auto begin = runs.begin() + c.run_first;
    const auto end = begin + c.runs;
    scratch_.assign(begin, end);
    std::sort(scratch_.begin(), scratch_.end(),
              [](const RowRun& x, const RowRun& y) { return x.dst < y.dst; });
    bool ascending = true;
    std::size_t continuing = 0;
    for (std::size_t r = 1; r < scratch_.size() && ascending; ++r) {
      const RowRun& before = scratch_[r - 1];
      ascending = before.src + before.length <= scratch_[r].src;
      continuing += before.dst + before.length == scratch_[r].dst;
    }
    continuous_ = ascending && 2 * continuing >= scratch_.size() - 1;
    if (continuous_) std::copy(scratch_.begin(), scratch_.end(), begin);
    return continuous_;
  }

 private:
  index_t first_ = -1, count_ = 0;  ///< the last list looked at (copies sharing one come together)
  bool continuous_ = false;
  std::vector<RowRun> scratch_;
};

}  // namespace redist::engine
