#pragma once
/// @file plan/batch_budget.hpp
/// Batch boundaries (Cao et al. 2021, section 6.2.1: batches bound the buffers) such that
/// no rank's buffers exceed `max_buffer_bytes`. Pure: no MPI, no Kokkos.
///
/// A batch is a range of region columns. Rank r's buffer for batch b holds what r sends
/// in b plus what it receives in b, so the cap is, for every rank r and batch b,
///
///   (send elements of r in b + receive elements of r in b) * element_bytes <= budget.
///
/// Every rank plans alone, and the executor matches messages by batch, so the boundaries
/// are a function of global quantities only: each rank computes every rank's load.
///
/// Load of one element column: for a column piece (axis_cut.hpp) with source tile
/// column n_s and target tile column n_t, rank r's load is the sum over row pieces of
/// their rows whose source owner is r and target owner is not (sent), or target owner
/// is r and source owner is not (received). With grid distributions on both sides
/// (GridDistribution) it depends only on the piece's class (q, q'), the grid columns of
/// n_s and n_t: with R(p, p') the region rows of row class (p, p'),
///
///   load_r(q, q') = sum over (p, p') with rank_of(p, q) != rank_of'(p', q') of
///                   R(p, p') * ([rank_of(p, q) == r] + [rank_of'(p', q') == r]),
///
/// computed once per class that occurs. Other distributions cost one pass over the row
/// pieces per column piece (every segment of the region once).
///
/// Packing: whole source tile columns, greedily, left to right, while every rank's
/// running total stays within the budget (the exact maximum over ranks of the sums, not
/// a sum of per-column maxima). A source tile column that alone exceeds the budget is cut
/// at element columns inside it, as many columns per batch as fit. The smallest budget
/// that can work is one element column on its busiest rank; below it planning throws.
///
/// Worked example: 2 ranks, source 1 x 2 grid, target 2 x 1 grid, 4 x 4 elements, 1 x 1
/// tiles, 8-byte elements. Every element column: its source owner sends 2 rows, the
/// other rank receives them, so both ranks carry 2 elements per column. A budget of 48
/// bytes (6 elements) packs 3 columns per batch: boundaries {0, 3, 4}. A budget of 8
/// bytes is below the minimum 16 and throws.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <redist/axis_cut.hpp>
#include <redist/checked.hpp>
#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/plan/axis_groups.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// How a plan is cut into batches: batch k moves region columns
/// [columns[k], columns[k + 1]) (relative to the region's first column), so columns
/// holds batches + 1 values, from 0 to the region's width. `batch` is the number of
/// source tile columns per batch when that number is fixed (an explicit
/// PlanOptions::batch, or one batch for the whole region), 0 when the budget chose
/// batches of different widths.
struct Batching {
  index_t batch = 1;
  std::vector<index_t> columns;
  /// Column pieces the packer walked: the budget's work, O(pieces per axis); 0 when the
  /// region, or with grid distributions a per-rank bound, fits the budget at once.
  index_t packed_pieces = 0;
  index_t batches() const { return columns.empty() ? 0 : static_cast<index_t>(columns.size()) - 1; }
};

namespace detail {

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

  /// The largest load of one element column over all pieces and ranks so far.
  index_t busiest() const { return busiest_; }
  /// Column pieces added so far.
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

/// Calls f(piece, offset of its start in the region) for every piece of the region on
/// one axis, in AxisCut order, without storing them.
template <TileAxis SA, TileAxis TA, class F>
void for_each_axis_piece(const SA& src, const TA& dst, const AxisRegion& r, F&& f) {
  if (r.length == 0) return;
  index_t offset = 0;
  const index_t end = dst.tile_of(r.dst_origin + r.length - 1) + 1;
  for (index_t k = dst.tile_of(r.dst_origin); k < end; ++k)
    for_each_piece(src, dst, r, k, [&](const Piece& p) {
      f(p, offset);
      offset += p.length;
    });
}

/// Loads for grid distributions on both sides (see the file comment): the region rows
/// R(p, p') of every row class, then the loads of a column class when first met.
template <class SrcLayout, class DstLayout>
class GridLoads {
 public:
  /// @pre both distributions are GridDistributions; r is not empty and fits both.
  GridLoads(const SrcLayout& src, const DstLayout& dst, const Region& r, int comm_size)
      : src_(src), dst_(dst), r_(r), sums_(comm_size) {
    const AxisGroups rows = make_axis_groups<Axis::row>(src, dst, r, [](int, int) { return true; });
    for (int p = 0; p < grid(src).rows; ++p)
      for (int pt = 0; pt < grid(dst).rows; ++pt) {
        const auto [g0, g1] = rows.groups_of(p, pt);
        index_t n = 0;
        for (index_t g = g0; g < g1; ++g)
          n += rows.groups()[static_cast<std::size_t>(g)].elements();
        if (n > 0) row_classes_.push_back(RowClass{p, pt, n});
      }
  }

  /// The most elements any rank holds in the region, source and target together: a
  /// bound on its send + receive in any batch, at O(grid) cost once the axes are scanned.
  index_t holdings_bound() {
    const AxisGroups& cols = col_groups();
    const auto sum = [&](const auto& layout, bool source) {
      const auto& d = layout.distribution();
      const int P = grid(layout).rows, Q = grid(layout).cols;
      std::vector<index_t> rows_of(static_cast<std::size_t>(P), 0);
      std::vector<index_t> cols_of(static_cast<std::size_t>(Q), 0);
      for (const RowClass& c : row_classes_)
        rows_of[static_cast<std::size_t>(source ? c.p : c.pt)] += c.rows;
      for (int q = 0; q < grid(src_).cols; ++q)
        for (int qt = 0; qt < grid(dst_).cols; ++qt) {
          const auto [g0, g1] = cols.groups_of(q, qt);
          for (index_t g = g0; g < g1; ++g)
            cols_of[static_cast<std::size_t>(source ? q : qt)] +=
                cols.groups()[static_cast<std::size_t>(g)].elements();
        }
      for (int q = 0; q < Q; ++q)
        for (int p = 0; p < P; ++p)
          sums_.add(static_cast<int>(d.rank_of(GridCoord{p, q})),
                    rows_of[static_cast<std::size_t>(p)] * cols_of[static_cast<std::size_t>(q)]);
    };
    sum(src_, true);
    sum(dst_, false);
    index_t most = 0;
    for (const int r : sums_.touched)
      most = std::max(most, sums_.value[static_cast<std::size_t>(r)]);
    std::vector<RankLoad> discard;
    sums_.take(discard);
    return most;
  }

  /// The most elements any rank sends plus receives over the whole region: exact, at
  /// O(column classes x row classes) cost once the axes are scanned. Within the budget, the
  /// packer would put every column in one batch, so it need not walk the columns.
  index_t busiest_total() {
    const AxisGroups& cols = col_groups();
    std::vector<index_t> total(sums_.value.size(), 0);
    std::vector<RankLoad> loads;
    for (int q = 0; q < grid(src_).cols; ++q)
      for (int qt = 0; qt < grid(dst_).cols; ++qt) {
        const auto [g0, g1] = cols.groups_of(q, qt);
        index_t columns = 0;
        for (index_t g = g0; g < g1; ++g)
          columns += cols.groups()[static_cast<std::size_t>(g)].elements();
        if (columns == 0) continue;
        loads.clear();
        class_loads(q, qt, loads);
        for (const RankLoad& l : loads) {  // saturated: an overflow does not fit anyway
          index_t& t = total[static_cast<std::size_t>(l.rank)];
          index_t add = 0;
          if (__builtin_mul_overflow(l.elements, columns, &add) ||
              __builtin_add_overflow(t, add, &t))
            t = INT64_MAX;
        }
      }
    return total.empty() ? 0 : *std::max_element(total.begin(), total.end());
  }

  /// Feeds every column piece of the region, with its class's loads, to `packer`.
  void pack(BatchPacker& packer) {
    const auto& sd = src_.distribution();
    const auto& dd = dst_.distribution();
    const int Qt = grid(dst_).cols;
    const std::size_t classes =
        static_cast<std::size_t>(grid(src_).cols) * static_cast<std::size_t>(Qt);
    std::vector<index_t> first(classes, -1), count(classes, 0);
    std::vector<RankLoad> loads;
    for_each_axis_piece(src_.shape().cols(), dst_.shape().cols(), r_.axis<Axis::col>(),
                        [&](const Piece& c, index_t column) {
                          const int q = static_cast<int>(sd.grid_col(c.src_tile));
                          const int qt = static_cast<int>(dd.grid_col(c.dst_tile));
                          const std::size_t k =
                              static_cast<std::size_t>(q) * static_cast<std::size_t>(Qt) +
                              static_cast<std::size_t>(qt);
                          if (first[k] < 0) {
                            first[k] = static_cast<index_t>(loads.size());
                            class_loads(q, qt, loads);
                            count[k] = static_cast<index_t>(loads.size()) - first[k];
                          }
                          const RankLoad* l = loads.data() + first[k];
                          packer.add(c.src_tile, column, c.length, l, l + count[k]);
                        });
  }

 private:
  struct RowClass {
    int p, pt;
    index_t rows;
  };
  struct Grid {
    int rows, cols;
  };
  template <class L>
  static Grid grid(const L& layout) {
    const Extents g = layout.distribution().grid();
    return {static_cast<int>(g.rows), static_cast<int>(g.cols)};
  }

  // Appends every rank's load of one element column of column class (q, qt) to `out`.
  void class_loads(int q, int qt, std::vector<RankLoad>& out) {
    const auto& sd = src_.distribution();
    const auto& dd = dst_.distribution();
    for (const RowClass& rc : row_classes_) {
      const int s = static_cast<int>(sd.rank_of(GridCoord{rc.p, q}));
      const int t = static_cast<int>(dd.rank_of(GridCoord{rc.pt, qt}));
      if (s == t) continue;
      sums_.add(s, rc.rows);
      sums_.add(t, rc.rows);
    }
    sums_.take(out);
  }

  // The column axis's groups, scanned once.
  const AxisGroups& col_groups() {
    if (!cols_)
      cols_.emplace(make_axis_groups<Axis::col>(src_, dst_, r_, [](int, int) { return true; }));
    return *cols_;
  }

  const SrcLayout& src_;
  const DstLayout& dst_;
  const Region& r_;
  RankSums sums_;
  std::vector<RowClass> row_classes_;
  std::optional<AxisGroups> cols_;
};

/// Feeds every column piece with its loads to `packer`, for any distributions: owners
/// tile by tile, one pass over the row pieces per column piece.
template <class SrcLayout, class DstLayout>
void pack_tiles(const SrcLayout& src, const DstLayout& dst, const Region& r, int comm_size,
                BatchPacker& packer) {
  std::vector<Piece> rows;
  for_each_axis_piece(src.shape().rows(), dst.shape().rows(), r.axis<Axis::row>(),
                      [&](const Piece& p, index_t) { rows.push_back(p); });
  RankSums sums(comm_size);
  std::vector<RankLoad> loads;
  for_each_axis_piece(
      src.shape().cols(), dst.shape().cols(), r.axis<Axis::col>(),
      [&](const Piece& c, index_t column) {
        for (const Piece& p : rows) {
          const int s = static_cast<int>(src.owner(TileIndex{p.src_tile, c.src_tile}));
          const int t = static_cast<int>(dst.owner(TileIndex{p.dst_tile, c.dst_tile}));
          if (s == t) continue;
          sums.add(s, p.length);
          sums.add(t, p.length);
        }
        loads.clear();
        sums.take(loads);
        packer.add(c.src_tile, column, c.length, loads.data(), loads.data() + loads.size());
      });
}

/// The batches of moving region `r` from `src` to `dst` among `comm_size` ranks.
/// `batch` > 0: that many source tile columns per batch (the budget is not used).
/// `batch` == 0: the widest batches, whole source tile columns where possible, within
/// the budget: for every rank and batch, (send + receive elements) * element_bytes <=
/// max_buffer_bytes (see the file comment). When the whole region's bytes fit the
/// budget, one batch at no further cost; with grid distributions also when every rank's
/// holdings, or its exact send + receive over the region, fit (O(lcm period), no walk over
/// the columns).
/// @pre r is not empty and fits both layouts; batch >= 0; element_bytes >= 1.
/// @post every rank computes the same Batching (global quantities only).
/// @throws invalid_argument naming max_buffer_bytes and the feasible minimum when
/// batch == 0 and the budget cannot hold one region column of the busiest rank.
template <class SrcLayout, class DstLayout>
Batching plan_batches(const SrcLayout& src, const DstLayout& dst, const Region& r, int comm_size,
                      index_t batch, index_t max_buffer_bytes, index_t element_bytes) {
  const auto& sc = src.shape().cols();
  const index_t src_begin = sc.tile_of(r.src_origin.j);
  const index_t src_cols = sc.tile_of(r.src_origin.j + r.extent.cols - 1) + 1 - src_begin;
  Batching out;
  if (batch > 0) {
    out.batch = std::min(batch, src_cols);
    const index_t batches = (src_cols + out.batch - 1) / out.batch;
    out.columns.reserve(static_cast<std::size_t>(batches) + 1);
    out.columns.push_back(0);
    for (index_t k = 1; k < batches; ++k)
      out.columns.push_back(sc.begin(src_begin + k * out.batch) - r.src_origin.j);
    out.columns.push_back(r.extent.cols);
    return out;
  }
  // No rank sends or receives more than the region: if that fits, one batch.
  index_t region_bytes = 0;
  if (!__builtin_mul_overflow(r.extent.size(), element_bytes, &region_bytes) &&
      region_bytes <= max_buffer_bytes) {
    out.batch = src_cols;
    out.columns = {0, r.extent.cols};
    return out;
  }
  BatchPacker packer(max_buffer_bytes / element_bytes, comm_size);
  if constexpr (GridDistribution<typename SrcLayout::distribution_type> &&
                GridDistribution<typename DstLayout::distribution_type>) {
    GridLoads loads(src, dst, r, comm_size);
    // No rank moves more than it holds: if every rank's holdings fit, one batch.
    // Nor more than its exact send + receive over the whole region (a rank that sends
    // and keeps much can hold more than the budget and still move less).
    const auto fits = [&](index_t elements) {
      index_t bytes = 0;
      return !__builtin_mul_overflow(elements, element_bytes, &bytes) && bytes <= max_buffer_bytes;
    };
    if (fits(loads.holdings_bound()) || fits(loads.busiest_total())) {
      out.batch = src_cols;
      out.columns = {0, r.extent.cols};
      return out;
    }
    loads.pack(packer);
  } else {
    pack_tiles(src, dst, r, comm_size, packer);
  }
  const index_t minimum = checked_mul(packer.busiest(), element_bytes, "buffer bytes");
  if (max_buffer_bytes < minimum)
    throw invalid_argument(describe("max_buffer_bytes is below the feasible minimum of " +
                                        std::to_string(minimum) +
                                        " bytes (send + receive of one region column on the "
                                        "busiest rank)",
                                    "max_buffer_bytes", max_buffer_bytes));
  out.packed_pieces = packer.added();
  out.columns = packer.finish(r.extent.cols);
  out.batch = out.batches() == 1 ? src_cols : 0;
  return out;
}

/// The batch of every region column [column, column + width) is found by walking
/// `columns` (Batching::columns) forward: calls f(first column, width, batch) for each
/// part of the range that lies in one batch, advancing `k` (the batch of the previous
/// call's range, 0 at first). @pre ranges come in increasing order.
template <class F>
void for_each_batch_part(const std::vector<index_t>& columns, index_t& k, index_t column,
                         index_t width, F&& f) {
  const index_t end = column + width;
  while (column < end) {
    while (columns[static_cast<std::size_t>(k) + 1] <= column) ++k;
    const index_t part_end = std::min(end, columns[static_cast<std::size_t>(k) + 1]);
    f(column, part_end - column, k);
    column = part_end;
  }
}

}  // namespace detail
}  // namespace redist
