#pragma once
/// @file plan/grid_plan.hpp
/// The plan's grid path (plan.hpp): both distributions are grids, so
/// every step works per grid coordinate and per axis, never per tile. grid_plan
/// runs the steps in this order:
/// 1. grid_coords: this rank's coordinates on each side;
/// 2. the axis groups of each axis (plan/axis_groups.hpp), of the classes this rank is in;
/// 3. plan_grid_batches: the batches, as make_reference_plan cuts them (plan/batch_budget.hpp);
/// 4. check_grid_owners: make_reference_plan's owner checks, per coordinate pair;
/// 5. slice_columns_by_batch: the column groups cut at batch boundaries;
/// 6. add_grid_families: the families of every batch, bucketed by peer;
/// 7. add_grid_categories: target tiles and categories from the per-axis histograms.

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/plan/axis_groups.hpp>
#include <redist/plan/batch_budget.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/plan_inputs.hpp>
#include <redist/plan/plan_type.hpp>
#include <redist/region.hpp>

namespace redist::detail {

/// This rank's grid coordinates on both sides (a user grid may give a rank several).
struct GridCoords {
  int Ps = 0, Qs = 0;  ///< the source grid
  int Pt = 0, Qt = 0;  ///< the target grid
  /// Per grid column q: the grid rows p with (p, q) this rank's, on each side.
  std::vector<std::vector<int>> src_rows_of_col, dst_rows_of_col;
  /// Per grid row or column: 1 where this rank has a coordinate in it.
  std::vector<char> src_row, src_col, dst_row, dst_col;
};

template <class SD, class DD>
GridCoords grid_coords(const SD& sd, const DD& dd, int rank) {
  GridCoords g;
  g.Ps = static_cast<int>(sd.grid().rows), g.Qs = static_cast<int>(sd.grid().cols);
  g.Pt = static_cast<int>(dd.grid().rows), g.Qt = static_cast<int>(dd.grid().cols);
  g.src_rows_of_col.resize(static_cast<std::size_t>(g.Qs));
  g.dst_rows_of_col.resize(static_cast<std::size_t>(g.Qt));
  g.src_row.resize(static_cast<std::size_t>(g.Ps)),
      g.src_col.resize(static_cast<std::size_t>(g.Qs));
  g.dst_row.resize(static_cast<std::size_t>(g.Pt)),
      g.dst_col.resize(static_cast<std::size_t>(g.Qt));
  for (int q = 0; q < g.Qs; ++q)
    for (int p = 0; p < g.Ps; ++p)
      if (static_cast<int>(sd.rank_of(GridCoord{p, q})) == rank) {
        g.src_rows_of_col[static_cast<std::size_t>(q)].push_back(p);
        g.src_row[static_cast<std::size_t>(p)] = g.src_col[static_cast<std::size_t>(q)] = 1;
      }
  for (int q = 0; q < g.Qt; ++q)
    for (int p = 0; p < g.Pt; ++p)
      if (static_cast<int>(dd.rank_of(GridCoord{p, q})) == rank) {
        g.dst_rows_of_col[static_cast<std::size_t>(q)].push_back(p);
        g.dst_row[static_cast<std::size_t>(p)] = g.dst_col[static_cast<std::size_t>(q)] = 1;
      }
  return g;
}

/// Batches exactly as make_reference_plan, and at the same point: before the owner checks.
template <class SrcLayout, class DstLayout>
void plan_grid_batches(Plan& plan, const SrcLayout& src, const DstLayout& dst, const Region& r,
                       int comm_size, const PlanOptions& options) {
  Batching batching = plan_batches(src, dst, r, comm_size, options.batch, options.max_buffer_bytes,
                                   options.element_bytes, options.batch_bytes);
  plan.packed_pieces = batching.packed_pieces;
  plan.take_batches(std::move(batching));
  for (FamilyList* d : {&plan.send, &plan.recv, &plan.local})
    d->batch_elements.assign(static_cast<std::size_t>(plan.batches), 0);
}

/// Owners: make_reference_plan's checks, per coordinate pair instead of per tile (a tile's owner
/// is its coordinates'). First the share check; then, as make_reference_plan's receiving loop,
/// the source owners feeding this rank's target tiles; then, as its sending loop, the
/// target owners fed by this rank's source tiles. A rank throws exactly when make_reference_plan
/// would; the tile named is the first touched one with the offending coordinates.
template <class SrcLayout, class DstLayout>
void check_grid_owners(const SrcLayout& src, const DstLayout& dst, const AxisGroups& rows,
                       const AxisGroups& cols, const GridCoords& g, int rank, int comm_size) {
  const TileBox dst_box{{rows.dst_begin(), cols.dst_begin()}, {rows.dst_end(), cols.dst_end()}};
  const TileBox src_box{{rows.src_begin(), cols.src_begin()}, {rows.src_end(), cols.src_end()}};
  check_owner_share(src, src_box, rank, comm_size, "src");
  check_owner_share(dst, dst_box, rank, comm_size, "dst");
  const auto meet = [&](int p, int pt, int q, int qt) {
    const auto [r0, r1] = rows.groups_of(p, pt);
    const auto [c0, c1] = cols.groups_of(q, qt);
    return r0 < r1 && c0 < c1;
  };
  if (!owners_in_range(src.distribution())) {
    for (int qt = 0; qt < g.Qt; ++qt)
      for (const int pt : g.dst_rows_of_col[static_cast<std::size_t>(qt)])
        for (int q = 0; q < g.Qs; ++q)
          for (int p = 0; p < g.Ps; ++p)
            if (meet(p, pt, q, qt))
              check_owner(static_cast<int>(src.distribution().rank_of(GridCoord{p, q})), comm_size,
                          "src", TileIndex{rows.first_src_tile(p), cols.first_src_tile(q)});
  }
  if (!owners_in_range(dst.distribution())) {
    for (int q = 0; q < g.Qs; ++q)
      for (const int p : g.src_rows_of_col[static_cast<std::size_t>(q)])
        for (int qt = 0; qt < g.Qt; ++qt)
          for (int pt = 0; pt < g.Pt; ++pt)
            if (meet(p, pt, q, qt))
              check_owner(static_cast<int>(dst.distribution().rank_of(GridCoord{pt, qt})),
                          comm_size, "dst",
                          TileIndex{rows.first_dst_tile(pt), cols.first_dst_tile(qt)});
  }
}

/// Members of a column group that lie in one batch, with their class.
struct ColumnSlice {
  int src_coord, dst_coord;
  GroupRange range;
};

/// The column slices of every batch: batch b's are slices[first[b]] to slices[first[b + 1]).
struct BatchSlices {
  std::vector<index_t> first;
  std::vector<ColumnSlice> slices;
};

/// Column groups (plan.col_groups, `cols`' groups taken) cut at batch boundaries,
/// bucketed by batch; inside a batch in (class, group, first member) order. A member that
/// a boundary cuts (only where the budget splits a source tile column) becomes one
/// single-member group per batch, appended to plan.col_groups after the scanned groups in
/// (class, piece) order, the same on every rank.
inline BatchSlices slice_columns_by_batch(Plan& plan, const AxisGroups& cols, const Region& r,
                                          const GridCoords& g) {
  std::vector<std::pair<index_t, ColumnSlice>> batch_slices;  // (batch, slice)
  const std::vector<index_t>& bc = plan.batch_columns;
  const index_t origin = r.dst_origin.j;
  for (int cs = 0; cs < g.Qs; ++cs)
    for (int ct = 0; ct < g.Qt; ++ct) {
      const auto [g0, g1] = cols.groups_of(cs, ct);
      for (index_t k = g0; k < g1; ++k) {
        const PieceGroup cg = plan.col_groups[static_cast<std::size_t>(k)];
        const auto column = [&](index_t t) { return cg.dst_start + t * cg.stride - origin; };
        for (index_t t = 0; t < cg.count;) {
          const index_t c0 = column(t);
          index_t b = std::upper_bound(bc.begin(), bc.end(), c0) - bc.begin() - 1;
          const index_t b_end = bc[static_cast<std::size_t>(b) + 1];
          if (c0 + cg.length > b_end) {  // member t is cut: one group per part
            for_each_batch_part(bc, b, c0, cg.length, [&](index_t c, index_t w, index_t kb) {
              PieceGroup part = cg.slice(t, 1);
              const index_t d = c - c0;
              part.src_start += d;
              part.dst_start += d;
              part.src_offset += d;
              part.dst_offset += d;
              part.length = w;
              batch_slices.push_back(
                  {kb,
                   ColumnSlice{cs, ct,
                               GroupRange{static_cast<index_t>(plan.col_groups.size()), 0, 1}}});
              plan.col_groups.push_back(part);
            });
            ++t;
            continue;
          }
          // Members starting before b_end; the last of them may be cut: next round.
          index_t end = t + 1;
          if (cg.count > 1) {
            end = std::min(cg.count, t + (b_end - c0 + cg.stride - 1) / cg.stride);
            if (end - 1 > t && column(end - 1) + cg.length > b_end) --end;
          }
          batch_slices.push_back({b, ColumnSlice{cs, ct, GroupRange{k, t, end - t}}});
          t = end;
        }
      }
    }
  // Split groups were appended in slice order, so a stable sort by batch keeps (class,
  // group, first member) order inside each batch.
  std::stable_sort(batch_slices.begin(), batch_slices.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  BatchSlices out;
  out.first.assign(static_cast<std::size_t>(plan.batches) + 1, 0);
  out.slices.reserve(batch_slices.size());
  for (const auto& [b, slice] : batch_slices) {
    out.first[static_cast<std::size_t>(b) + 1] += 1;
    out.slices.push_back(slice);
  }
  for (std::size_t b = 0; b + 1 < out.first.size(); ++b) out.first[b + 1] += out.first[b];
  return out;
}

/// Which of a plan's lists a family goes to, seen from this rank.
enum class FamilySide : std::size_t { sent = 0, received = 1, local = 2 };

/// Calls visit(side, peer, g0, g1, c) for the families of batch b: row groups [g0, g1) of
/// row classes times column slice c, sent to `peer`, received from it, or copied locally
/// (peer == rank); column slice outer, row groups inner.
template <class SD, class DD, class Visit>
void visit_batch_families(index_t b, const AxisGroups& rows, const BatchSlices& by_batch,
                          const GridCoords& g, const SD& sd, const DD& dd, int rank,
                          Visit&& visit) {
  for (index_t s = by_batch.first[static_cast<std::size_t>(b)];
       s < by_batch.first[static_cast<std::size_t>(b) + 1]; ++s) {
    const ColumnSlice& cs = by_batch.slices[static_cast<std::size_t>(s)];
    // Sending: source coordinates (p, q) of this rank, every target row coordinate.
    for (const int p : g.src_rows_of_col[static_cast<std::size_t>(cs.src_coord)])
      for (int pt = 0; pt < g.Pt; ++pt) {
        const auto [g0, g1] = rows.groups_of(p, pt);
        if (g0 == g1) continue;
        const int peer = static_cast<int>(dd.rank_of(GridCoord{pt, cs.dst_coord}));
        if (peer == rank) continue;  // local: listed on the receiving side
        visit(FamilySide::sent, peer, g0, g1, cs.range);
      }
    // Receiving: target coordinates (p', q') of this rank, every source row coordinate.
    for (const int pt : g.dst_rows_of_col[static_cast<std::size_t>(cs.dst_coord)])
      for (int p = 0; p < g.Ps; ++p) {
        const auto [g0, g1] = rows.groups_of(p, pt);
        if (g0 == g1) continue;
        const int peer = static_cast<int>(sd.rank_of(GridCoord{p, cs.src_coord}));
        visit(peer == rank ? FamilySide::local : FamilySide::received, peer, g0, g1, cs.range);
      }
  }
}

/// Families, batch by batch, into plan.send, plan.recv and plan.local, a message per
/// (batch, peer). Each family is written once, at its place in its list: counted first,
/// the lists are sized once and a message is laid out where its families lie
/// (detail::lay_out_message). Gathered per peer in vectors of their own and then appended,
/// the lists and those vectors grew by doubling and touched 2.6 times the plan's bytes in
/// fresh pages (case a at 16384^2 on 2 ranks: 2.2 MB for a plan of 0.86 MB), which a first
/// set-up pays a page fault each for (bench/README.md, "The first build's fresh pages").
template <class SD, class DD>
void add_grid_families(Plan& plan, const AxisGroups& rows, const BatchSlices& by_batch,
                       const GridCoords& g, const SD& sd, const DD& dd, int rank, int comm_size) {
  const std::array<FamilyList*, 3> lists{&plan.send, &plan.recv, &plan.local};
  const auto side_of = [](FamilySide side) { return static_cast<std::size_t>(side); };
  std::array<std::size_t, 3> total{};
  for (index_t b = 0; b < plan.batches; ++b)
    visit_batch_families(b, rows, by_batch, g, sd, dd, rank,
                         [&](FamilySide side, int, index_t g0, index_t g1, const GroupRange&) {
                           total[side_of(side)] += static_cast<std::size_t>(g1 - g0);
                         });
  for (std::size_t k = 0; k < lists.size(); ++k)
    lists[k]->families.reserve(lists[k]->families.size() + total[k]);

  // Per side and peer, one number: the batch's families counted, then where the next of
  // them goes in the list. A message lies where the one before it ends.
  std::array<std::vector<std::size_t>, 3> slot;
  std::array<std::vector<int>, 3> peers;
  for (std::vector<std::size_t>& v : slot) v.assign(static_cast<std::size_t>(comm_size), 0);
  for (index_t b = 0; b < plan.batches; ++b) {
    visit_batch_families(b, rows, by_batch, g, sd, dd, rank,
                         [&](FamilySide side, int peer, index_t g0, index_t g1, const GroupRange&) {
                           std::size_t& n = slot[side_of(side)][static_cast<std::size_t>(peer)];
                           if (n == 0) peers[side_of(side)].push_back(peer);
                           n += static_cast<std::size_t>(g1 - g0);
                         });
    // Messages by peer, back to back after the list's earlier batches.
    std::array<std::size_t, 3> batch_start{};
    for (std::size_t k = 0; k < lists.size(); ++k) {
      std::sort(peers[k].begin(), peers[k].end());
      std::size_t at = batch_start[k] = lists[k]->families.size();
      for (const int peer : peers[k]) {
        std::size_t& s = slot[k][static_cast<std::size_t>(peer)];
        at += std::exchange(s, at);
      }
      lists[k]->families.resize(at);
    }
    visit_batch_families(
        b, rows, by_batch, g, sd, dd, rank,
        [&](FamilySide side, int peer, index_t g0, index_t g1, const GroupRange& c) {
          std::vector<BlockFamily>& families = lists[side_of(side)]->families;
          std::size_t& at = slot[side_of(side)][static_cast<std::size_t>(peer)];
          for (index_t k = g0; k < g1; ++k)
            families[at++] = BlockFamily{
                GroupRange{k, 0, rows.groups()[static_cast<std::size_t>(k)].count}, c, 0};
        });
    for (std::size_t k = 0; k < lists.size(); ++k) {
      std::size_t at = batch_start[k];
      for (const int peer : peers[k]) {
        const std::size_t end = std::exchange(slot[k][static_cast<std::size_t>(peer)], 0);
        lay_out_message(*lists[k], peer, b, at, end - at, rows.groups(), plan.col_groups);
        at = end;
      }
      peers[k].clear();
    }
  }
}

/// Target tiles and their categories: outer product of the per-axis histograms.
inline void add_grid_categories(Plan& plan, const AxisGroups& rows, const AxisGroups& cols,
                                const GridCoords& g) {
  for (int qt = 0; qt < g.Qt; ++qt)
    for (const int pt : g.dst_rows_of_col[static_cast<std::size_t>(qt)])
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t c = 0; c < 3; ++c) {
          const index_t n = rows.dst_tiles_by_pieces(pt)[a] * cols.dst_tiles_by_pieces(qt)[c];
          plan.stats.categories[3 * a + c] += n;
          plan.stats.dst_tiles += n;
        }
}

/// The grid path: steps 1 to 7 of the file comment, then the statistics that follow from
/// the families (family_stats).
template <class SrcLayout, class DstLayout>
Plan grid_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank, int comm_size,
               const PlanOptions& options) {
  Plan plan(rank, comm_size, options);
  plan.per_axis = true;
  const GridCoords g = grid_coords(src.distribution(), dst.distribution(), rank);
  AxisGroups rows = make_axis_groups<Axis::row>(src, dst, r, [&](int cs, int ct) {
    return g.src_row[static_cast<std::size_t>(cs)] || g.dst_row[static_cast<std::size_t>(ct)];
  });
  AxisGroups cols = make_axis_groups<Axis::col>(src, dst, r, [&](int cs, int ct) {
    return g.src_col[static_cast<std::size_t>(cs)] || g.dst_col[static_cast<std::size_t>(ct)];
  });
  plan.scanned_tiles = rows.scanned_tiles() + cols.scanned_tiles();
  plan_grid_batches(plan, src, dst, r, comm_size, options);
  check_grid_owners(src, dst, rows, cols, g, rank, comm_size);
  plan.col_groups = cols.take_groups();
  const BatchSlices by_batch = slice_columns_by_batch(plan, cols, r, g);
  add_grid_families(plan, rows, by_batch, g, src.distribution(), dst.distribution(), rank,
                    comm_size);
  add_grid_categories(plan, rows, cols, g);
  family_stats(plan);
  plan.row_groups = rows.take_groups();
  return plan;
}

}  // namespace redist::detail
