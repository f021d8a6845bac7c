#pragma once
/// @file plan/batch_packer.hpp
/// The greedy packer of the batch budget (plan/batch_budget.hpp): column pieces in region
/// order, each with every rank's load per element column, packed into batches that keep
/// every rank's buffers within the cap. Pure.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <redist/checked.hpp>
#include <redist/config.hpp>
#include <redist/index.hpp>

namespace redist::detail {

/// One rank's load of one element column, in elements: what it sends plus what it
/// receives there.
struct RankLoad {
  int rank = 0;
  index_t elements = 0;
};

/// Sums `elements` into rank r of a sparse per-rank vector (dense values plus the list of
/// ranks touched). Ranks outside [0, size) are skipped: an owner outside the
/// communicator is reported by the planner's owner checks, not here.
struct RankSums {
  std::vector<index_t> value;
  std::vector<int> touched;
  explicit RankSums(int comm_size) : value(static_cast<std::size_t>(comm_size), 0) {}
  void add(int r, index_t elements) {
    if (r < 0 || r >= static_cast<int>(value.size()) || elements == 0) return;
    index_t& v = value[static_cast<std::size_t>(r)];
    if (v == 0) touched.push_back(r);
    v = checked_add(v, elements, "buffer elements");
  }
  /// Appends the nonzero sums to `out` and clears them.
  void take(std::vector<RankLoad>& out) {
    for (const int r : touched) {
      out.push_back(RankLoad{r, value[static_cast<std::size_t>(r)]});
      value[static_cast<std::size_t>(r)] = 0;
    }
    touched.clear();
  }
};

/// The greedy packer (see the file comment). Column pieces come in region order, each
/// with its loads per element column; boundaries fall between source tile columns, or
/// inside one that alone exceeds the cap.
class BatchPacker {
 public:
  /// `cap`: budget in elements per rank and batch (a negative one acts as 0).
  BatchPacker(index_t cap, int comm_size)
      : cap_(std::max<index_t>(cap, 0)), total_(comm_size), inc_(comm_size) {}

  /// The column piece of `width` region columns starting at region column `column`, in
  /// source tile column `tile`, with loads [first, last) per element column.
  /// @pre pieces come in region order, contiguous; loads have elements > 0.
  void add(index_t tile, index_t column, index_t width, const RankLoad* first,
           const RankLoad* last) {
    if (tile != tile_) flush_tile();
    if (pieces_.empty()) {
      tile_ = tile;
      tile_column_ = column;
    }
    ++added_;
    pieces_.push_back(TilePiece{column, width, static_cast<index_t>(loads_.size()),
                                static_cast<index_t>(last - first)});
    for (const RankLoad* l = first; l != last; ++l) {
      busiest_ = std::max(busiest_, l->elements);
      loads_.push_back(*l);
      inc_.add(l->rank, checked_mul(width, l->elements, "buffer elements"));
    }
  }

  /// Adds whole periods of the column pattern at once, as many as fit the current batch
  /// and at most `most`, each period with every rank's elements `per_period`; returns how
  /// many. The walk piece by piece would add them without a cut (loads are nonnegative,
  /// so every prefix of what fits fits too), and ends where this leaves the batch.
  /// @pre the next piece starts a source tile column; `per_period` are the loads of
  /// pieces already added (so busiest() stays exact).
  index_t add_periods(const std::vector<RankLoad>& per_period, index_t most) {
    if (most <= 0 || infeasible_) return 0;
    flush_tile();
    index_t m = most;
    for (const RankLoad& l : per_period)
      m = std::min(m, (cap_ - total_.value[static_cast<std::size_t>(l.rank)]) / l.elements);
    if (m <= 0) return 0;
    for (const RankLoad& l : per_period) total_.add(l.rank, m * l.elements);
    return m;
  }

  /// The largest load of one element column over all pieces and ranks so far.
  index_t busiest() const { return busiest_; }
  /// Column pieces added one by one so far (not those of add_periods).
  index_t added() const { return added_; }

  /// Closes the last batch; returns the boundaries (Batching::columns) of a region
  /// `width` columns wide.
  std::vector<index_t> finish(index_t width) {
    flush_tile();
    starts_.push_back(width);
    return std::move(starts_);
  }

 private:
  struct TilePiece {
    index_t column, width, first_load, loads;
  };

  void cut(index_t column) {
    starts_.push_back(column);
    batch_begin_ = column;
    for (const int r : total_.touched) total_.value[static_cast<std::size_t>(r)] = 0;
    total_.touched.clear();
  }
  bool tile_fits() const {
    for (const int r : inc_.touched)
      if (total_.value[static_cast<std::size_t>(r)] >
          cap_ - inc_.value[static_cast<std::size_t>(r)])
        return false;
    return true;
  }

  // Adds the buffered source tile column to the current batch, after a cut if it does
  // not fit there; cut inside it if it does not fit a batch of its own.
  void flush_tile() {
    if (pieces_.empty()) return;
    bool fits = tile_fits();
    if (!fits && batch_begin_ < tile_column_) {
      cut(tile_column_);
      fits = tile_fits();
    }
    if (fits) {
      for (const int r : inc_.touched) total_.add(r, inc_.value[static_cast<std::size_t>(r)]);
    } else {
      for (const TilePiece& p : pieces_) split_piece(p);
    }
    for (const int r : inc_.touched) inc_.value[static_cast<std::size_t>(r)] = 0;
    inc_.touched.clear();
    pieces_.clear();
    loads_.clear();
  }

  // Packs piece p element column by element column: k columns at a time, k the most
  // every rank of p still has room for.
  void split_piece(const TilePiece& p) {
    index_t column = p.column, left = p.width;
    const RankLoad* loads = loads_.data() + p.first_load;
    while (left > 0 && !infeasible_) {
      index_t k = left;
      for (index_t l = 0; l < p.loads; ++l)
        k = std::min(
            k, (cap_ - total_.value[static_cast<std::size_t>(loads[l].rank)]) / loads[l].elements);
      if (k <= 0) {
        if (batch_begin_ < column)
          cut(column);
        else
          infeasible_ = true;  // one column exceeds the cap: reported by the caller
        continue;
      }
      for (index_t l = 0; l < p.loads; ++l) total_.add(loads[l].rank, k * loads[l].elements);
      column += k;
      left -= k;
    }
  }

  index_t cap_;
  RankSums total_;  // every rank's load in the current batch
  RankSums inc_;    // every rank's load in the buffered source tile column
  std::vector<TilePiece> pieces_;
  std::vector<RankLoad> loads_;
  std::vector<index_t> starts_{0};
  index_t tile_ = -1, tile_column_ = 0, batch_begin_ = 0, busiest_ = 0, added_ = 0;
  bool infeasible_ = false;
};

}  // namespace redist::detail
