#pragma once
/// @file plan/column_loads.hpp
/// Every rank's load of each column piece of a region (plan/batch_budget.hpp's file
/// comment), fed to the packer (plan/batch_packer.hpp): per column class with grid
/// distributions on both sides (GridLoads), else tile by tile (pack_tiles). Pure.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <redist/axis_cut.hpp>
#include <redist/checked.hpp>
#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/index.hpp>
#include <redist/plan/axis_groups.hpp>
#include <redist/plan/axis_pattern.hpp>
#include <redist/plan/batch_packer.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>

namespace redist::detail {

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

  /// Feeds every column piece of the region, with its class's loads, to `packer`. With
  /// uniform tiles and block-cyclic grids the pieces repeat every lcm period (plan/
  /// axis_pattern.hpp) between the first and the last target tile. Once one period from
  /// the first source tile column that starts there (the anchor) has been walked, every
  /// later point a whole number of periods on offers the packer whole periods at once
  /// (BatchPacker::add_periods): the walk costs O(pieces per period) per batch, not
  /// O(pieces per axis), and cuts where the walk piece by piece would.
  void pack(BatchPacker& packer) {
    const auto& sd = src_.distribution();
    const auto& dd = dst_.distribution();
    const auto& ta = dst_.shape().cols();
    const AxisRegion ar = r_.axis<Axis::col>();
    const int Qt = grid(dst_).cols;
    const std::size_t classes =
        static_cast<std::size_t>(grid(src_).cols) * static_cast<std::size_t>(Qt);
    std::vector<index_t> first(classes, -1), count(classes, 0);
    std::vector<RankLoad> loads;
    const AxisPattern& pattern = col_groups().pattern();
    const index_t period = pattern.elements_period();
    const index_t k_begin = ta.tile_of(ar.dst_origin);
    const index_t k_end = ta.tile_of(ar.dst_origin + ar.length - 1) + 1;
    // Region columns where the pattern repeats: from the second target tile to the last.
    const index_t inside = k_begin + 1 < k_end ? ta.begin(k_begin + 1) - ar.dst_origin : ar.length;
    const index_t inside_end = ta.begin(k_end - 1) - ar.dst_origin;
    RankSums period_sums(static_cast<int>(sums_.value.size()));
    std::vector<RankLoad> per_period;
    bool learnt = false;
    index_t anchor = -1, skip_below = 0, last_src = -1;
    for (index_t k = k_begin; k < k_end; ++k) {
      index_t column = std::max<index_t>(0, ta.begin(k) - ar.dst_origin);
      index_t jumped = 0;  // periods the packer took whole at a piece of this tile
      for_each_piece(src_.shape().cols(), ta, ar, k, [&](const Piece& c) {
        const index_t at = column;
        column += c.length;
        if (at < skip_below || jumped > 0) return;  // inside periods taken whole
        const bool starts_tile = c.src_tile != last_src;
        last_src = c.src_tile;
        if (period > 0 && starts_tile && at >= inside) {
          if (anchor < 0) {
            anchor = at;
          } else if ((at - anchor) % period == 0) {
            if (!learnt) period_sums.take(per_period);
            learnt = true;
            jumped = packer.add_periods(per_period, (inside_end - at) / period);
            if (jumped > 0) {
              skip_below = at + jumped * period;
              return;
            }
          }
        }
        const std::size_t cls =
            static_cast<std::size_t>(sd.grid_col(c.src_tile)) * static_cast<std::size_t>(Qt) +
            static_cast<std::size_t>(dd.grid_col(c.dst_tile));
        if (first[cls] < 0) {
          first[cls] = static_cast<index_t>(loads.size());
          class_loads(static_cast<int>(cls / static_cast<std::size_t>(Qt)),
                      static_cast<int>(cls % static_cast<std::size_t>(Qt)), loads);
          count[cls] = static_cast<index_t>(loads.size()) - first[cls];
        }
        const RankLoad* l = loads.data() + first[cls];
        if (anchor >= 0 && !learnt)
          for (const RankLoad* x = l; x != l + count[cls]; ++x)
            period_sums.add(x->rank, checked_mul(c.length, x->elements, "buffer elements"));
        packer.add(c.src_tile, at, c.length, l, l + count[cls]);
      });
      // The tile holding skip_below comes next (the loop's ++k).
      if (jumped > 0) k += jumped * (period / pattern.dst_tile) - 1;
    }
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

}  // namespace redist::detail
