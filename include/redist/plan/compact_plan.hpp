#pragma once
/// @file plan/compact_plan.hpp
/// The compact plan: one rank's part of a redistribution as families of strided block
/// copies (block_family.hpp) per peer and batch, with the statistics of plan.hpp's
/// per-segment plan computed from them by arithmetic. Pure: no MPI, no Kokkos.
///
/// It describes exactly what make_plan describes (Cao et al. 2021, "Evaluating data
/// redistribution in PaRSEC", section 3, Algorithm 1: every segment of every target
/// tile, sent when remote and copied when local), but groups the segments:
///
/// - Grid distributions on both sides (GridDistribution): the owner of a tile depends on
///   its grid row and grid column only, so the segments between a source coordinate
///   (p, q) and a target coordinate (p', q') are the products of the row pieces of class
///   (p, p') and the column pieces of class (q, q'). Each axis is scanned once and its
///   classes compressed into strided groups (axis_groups.hpp; the lcm period of
///   Prylli and Tourancheau 1996, section 4.3); the families of a message are the
///   products of its row groups and its column groups, columns split at batch
///   boundaries (a member that a boundary cuts becomes one single-member group per batch,
///   kept after the scanned groups). Cost: O(pieces per lcm period + families) time with uniform
///   tiles and block-cyclic distributions, O(pieces per axis + families) otherwise, and O(groups +
///   families) memory; nothing proportional to the number of segments.
///   Distributions that are grids only at run time (tools::SpecDistribution holding a
///   BlockCyclic, a relabeling of one) take this path through their grid view
///   (plan/grid_view.hpp).
/// - Any other pair (random, owner table, band, user types, or one grid side only):
///   the per-segment enumeration of make_plan (only the tiles this rank owns), whose
///   consecutive row pieces of one column piece for one peer are merged into one family
///   where they form a strided run. Cost: that of make_plan.
///
/// Statistics equal make_plan's exactly; for the grid path the categories are the
/// outer product of per-axis histograms of min(pieces per target tile, 3).

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <redist/axis_cut.hpp>
#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/plan.hpp>
#include <redist/plan/axis_groups.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/grid_view.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>

namespace redist {

/// One rank's compact plan. `send` messages go to target owners, `recv` messages come
/// from source owners, `local` holds this rank's own copies grouped per batch as
/// messages with peer == rank (their buffer fields follow the same layout but no buffer
/// is needed for them). Group indices in families refer to row_groups / col_groups.
class CompactPlan {
 public:
  int rank = 0;
  int comm_size = 1;
  index_t batch = 1;    ///< source tile columns per batch (as Plan::batch)
  index_t batches = 0;  ///< number of batches (as Plan::batches)
  /// Region columns of each batch (as Plan::batch_columns); merge_parts leaves it empty.
  std::vector<index_t> batch_columns;
  PlanOptions options;
  bool per_axis = false;  ///< true: built from per-axis classes (both distributions grids)
  /// Target tiles the per-axis scans visited, rows plus columns (AxisGroups::scanned_tiles):
  /// the planning work, O(tiles per lcm period) with uniform tiles and block-cyclic grids;
  /// 0 on the per-segment path.
  index_t scanned_tiles = 0;
  /// Column pieces the batch budget walked (Batching::packed_pieces): O(pieces per axis)
  /// when the budget cuts batches, 0 when a bound settles one batch; per-axis path only.
  index_t packed_pieces = 0;
  /// Messages and families merge_parts visited (plan/plan_parts.hpp), plus its sorting
  /// passes: the merging work, linear in the parts' messages; 0 for a plan of one part.
  index_t merge_steps = 0;
  std::vector<PieceGroup> row_groups;
  std::vector<PieceGroup> col_groups;
  FamilyList send;
  FamilyList recv;
  FamilyList local;
  PlanStats stats;

  /// The row members of family f as a group of their own.
  PieceGroup rows(const BlockFamily& f) const {
    return row_groups[static_cast<std::size_t>(f.rows.group)].slice(f.rows.first, f.rows.count);
  }
  /// The column members of family f as a group of their own.
  PieceGroup cols(const BlockFamily& f) const {
    return col_groups[static_cast<std::size_t>(f.cols.group)].slice(f.cols.first, f.cols.count);
  }
  /// Elements of family f.
  index_t elements(const BlockFamily& f) const { return rows(f).elements() * cols(f).elements(); }

  /// Heap bytes held by the plan: capacity x element size of each of its containers
  /// (PlanStats::plan_bytes when it was made).
  std::size_t memory_bytes() const {
    std::size_t bytes = (row_groups.capacity() + col_groups.capacity()) * sizeof(PieceGroup) +
                        batch_columns.capacity() * sizeof(index_t);
    for (const FamilyList* d : {&send, &recv, &local})
      bytes += d->families.capacity() * sizeof(BlockFamily) +
               d->messages.capacity() * sizeof(Message) +
               d->batch_elements.capacity() * sizeof(index_t);
    return bytes;
  }
};

namespace detail {

/// Statistics that follow from the families alone (all but dst_tiles and categories).
inline void family_stats(CompactPlan& plan) {
  PlanStats& s = plan.stats;
  s.elements_sent = plan.send.elements;
  s.elements_received = plan.recv.elements;
  s.elements_local = plan.local.elements;
  s.messages_sent = static_cast<index_t>(plan.send.messages.size());
  s.messages_received = static_cast<index_t>(plan.recv.messages.size());
  s.segments_sent = plan.send.segments;
  s.segments_received = plan.recv.segments;
  s.segments_local = plan.local.segments;
  s.buffer_elements = 0;
  for (std::size_t k = 0; k < plan.send.batch_elements.size(); ++k)
    s.buffer_elements =
        std::max(s.buffer_elements, plan.send.batch_elements[k] + plan.recv.batch_elements[k]);
}

/// Turns a per-segment direction (sorted by batch, peer, column piece, row piece) into
/// family messages: consecutive row pieces of one column piece, batch and peer that
/// continue a strided run share a family. Both ends see the same segment order, so both
/// merge alike.
template <class SrcLayout, class DstLayout>
void families_of_segments(const std::vector<PlannedSegment>& segments, const SrcLayout& src,
                          const DstLayout& dst, CompactPlan& plan, FamilyList& d) {
  const auto group = [](const Piece& p, index_t piece, const auto& src_axis, const auto& dst_axis) {
    return single_group(p, piece, src_axis.begin(p.src_tile) + p.src_offset,
                        dst_axis.begin(p.dst_tile) + p.dst_offset);
  };
  std::vector<BlockFamily> message;
  // A column piece cut by a batch boundary has one part per batch, each its own group.
  index_t last_col_piece = -1, last_batch = -1;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const PlannedSegment& ps = segments[s];
    const Segment& seg = ps.segment;
    const Piece row{seg.src_tile.m, seg.dst_tile.m, seg.src_offset.i, seg.dst_offset.i,
                    seg.extent.rows};
    const bool same_column = s > 0 && segments[s - 1].batch == ps.batch &&
                             segments[s - 1].peer == ps.peer &&
                             segments[s - 1].col_piece == ps.col_piece;
    if (same_column && extend_group(plan.row_groups.back(), row, ps.row_piece,
                                    src.shape().rows().begin(row.src_tile) + row.src_offset)) {
      message.back().rows.count += 1;
    } else {
      plan.row_groups.push_back(group(row, ps.row_piece, src.shape().rows(), dst.shape().rows()));
      if (ps.col_piece != last_col_piece || ps.batch != last_batch) {
        const Piece col{seg.src_tile.n, seg.dst_tile.n, seg.src_offset.j, seg.dst_offset.j,
                        seg.extent.cols};
        plan.col_groups.push_back(group(col, ps.col_piece, src.shape().cols(), dst.shape().cols()));
        last_col_piece = ps.col_piece;
        last_batch = ps.batch;
      }
      message.push_back(
          BlockFamily{GroupRange{static_cast<index_t>(plan.row_groups.size()) - 1, 0, 1},
                      GroupRange{static_cast<index_t>(plan.col_groups.size()) - 1, 0, 1}, 0});
    }
    if (s + 1 == segments.size() || segments[s + 1].batch != ps.batch ||
        segments[s + 1].peer != ps.peer) {
      append_message(d, ps.peer, ps.batch, message, plan.row_groups, plan.col_groups);
      message.clear();
    }
  }
}

/// The fallback: make_plan's per-segment enumeration, merged into families.
template <class SrcLayout, class DstLayout>
CompactPlan tile_compact_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank,
                              int comm_size, const PlanOptions& options) {
  const Plan segments = make_plan(src, dst, r, rank, comm_size, options);
  CompactPlan plan;
  plan.rank = rank;
  plan.comm_size = comm_size;
  plan.options = options;
  plan.batch = segments.batch;
  plan.batches = segments.batches;
  plan.batch_columns = segments.batch_columns;
  for (FamilyList* d : {&plan.send, &plan.recv, &plan.local})
    d->batch_elements.assign(static_cast<std::size_t>(plan.batches), 0);
  families_of_segments(segments.send.segments, src, dst, plan, plan.send);
  families_of_segments(segments.recv.segments, src, dst, plan, plan.recv);
  families_of_segments(segments.local, src, dst, plan, plan.local);
  plan.stats.dst_tiles = segments.stats.dst_tiles;
  plan.stats.categories = segments.stats.categories;
  family_stats(plan);
  return plan;
}

/// The grid path (see the file comment).
template <class SrcLayout, class DstLayout>
CompactPlan grid_compact_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank,
                              int comm_size, const PlanOptions& options) {
  using SD = typename SrcLayout::distribution_type;
  using DD = typename DstLayout::distribution_type;
  const SD& sd = src.distribution();
  const DD& dd = dst.distribution();
  CompactPlan plan;
  plan.rank = rank;
  plan.comm_size = comm_size;
  plan.options = options;
  plan.per_axis = true;

  // This rank's grid coordinates on each side (a user grid may give a rank several).
  const int Ps = static_cast<int>(sd.grid().rows), Qs = static_cast<int>(sd.grid().cols);
  const int Pt = static_cast<int>(dd.grid().rows), Qt = static_cast<int>(dd.grid().cols);
  std::vector<std::vector<int>> src_rows_of_col(static_cast<std::size_t>(Qs));
  std::vector<std::vector<int>> dst_rows_of_col(static_cast<std::size_t>(Qt));
  std::vector<char> src_row(static_cast<std::size_t>(Ps)), src_col(static_cast<std::size_t>(Qs));
  std::vector<char> dst_row(static_cast<std::size_t>(Pt)), dst_col(static_cast<std::size_t>(Qt));
  for (int q = 0; q < Qs; ++q)
    for (int p = 0; p < Ps; ++p)
      if (static_cast<int>(sd.rank_of(GridCoord{p, q})) == rank) {
        src_rows_of_col[static_cast<std::size_t>(q)].push_back(p);
        src_row[static_cast<std::size_t>(p)] = src_col[static_cast<std::size_t>(q)] = 1;
      }
  for (int q = 0; q < Qt; ++q)
    for (int p = 0; p < Pt; ++p)
      if (static_cast<int>(dd.rank_of(GridCoord{p, q})) == rank) {
        dst_rows_of_col[static_cast<std::size_t>(q)].push_back(p);
        dst_row[static_cast<std::size_t>(p)] = dst_col[static_cast<std::size_t>(q)] = 1;
      }

  AxisGroups rows = make_axis_groups<Axis::row>(src, dst, r, [&](int cs, int ct) {
    return src_row[static_cast<std::size_t>(cs)] || dst_row[static_cast<std::size_t>(ct)];
  });
  AxisGroups cols = make_axis_groups<Axis::col>(src, dst, r, [&](int cs, int ct) {
    return src_col[static_cast<std::size_t>(cs)] || dst_col[static_cast<std::size_t>(ct)];
  });
  plan.scanned_tiles = rows.scanned_tiles() + cols.scanned_tiles();

  // Batches exactly as make_plan, and at the same point: before the owner checks.
  {
    Batching batching = plan_batches(src, dst, r, comm_size, options.batch,
                                     options.max_buffer_bytes, options.element_bytes);
    plan.batch = batching.batch;
    plan.batches = batching.batches();
    plan.batch_columns = std::move(batching.columns);
    plan.packed_pieces = batching.packed_pieces;
  }
  for (FamilyList* d : {&plan.send, &plan.recv, &plan.local})
    d->batch_elements.assign(static_cast<std::size_t>(plan.batches), 0);

  // Owners: make_plan's checks, per coordinate pair instead of per tile (a tile's owner
  // is its coordinates'). First the share check; then, as make_plan's receiving loop,
  // the source owners feeding this rank's target tiles; then, as its sending loop, the
  // target owners fed by this rank's source tiles. A rank throws exactly when make_plan
  // would; the tile named is the first touched one with the offending coordinates.
  const TileBox dst_box{{rows.dst_begin(), cols.dst_begin()}, {rows.dst_end(), cols.dst_end()}};
  const TileBox src_box{{rows.src_begin(), cols.src_begin()}, {rows.src_end(), cols.src_end()}};
  check_owner_share(src, src_box, rank, comm_size, "src");
  check_owner_share(dst, dst_box, rank, comm_size, "dst");
  const auto meet = [&](int p, int pt, int q, int qt) {
    const auto [r0, r1] = rows.groups_of(p, pt);
    const auto [c0, c1] = cols.groups_of(q, qt);
    return r0 < r1 && c0 < c1;
  };
  if constexpr (!OwnersInRange<SD>) {
    for (int qt = 0; qt < Qt; ++qt)
      for (const int pt : dst_rows_of_col[static_cast<std::size_t>(qt)])
        for (int q = 0; q < Qs; ++q)
          for (int p = 0; p < Ps; ++p)
            if (meet(p, pt, q, qt))
              check_owner(static_cast<int>(sd.rank_of(GridCoord{p, q})), comm_size, "src",
                          TileIndex{rows.first_src_tile(p), cols.first_src_tile(q)});
  }
  if constexpr (!OwnersInRange<DD>) {
    for (int q = 0; q < Qs; ++q)
      for (const int p : src_rows_of_col[static_cast<std::size_t>(q)])
        for (int qt = 0; qt < Qt; ++qt)
          for (int pt = 0; pt < Pt; ++pt)
            if (meet(p, pt, q, qt))
              check_owner(static_cast<int>(dd.rank_of(GridCoord{pt, qt})), comm_size, "dst",
                          TileIndex{rows.first_dst_tile(pt), cols.first_dst_tile(qt)});
  }

  // Column groups cut at batch boundaries, bucketed by batch; inside a batch in (class,
  // group, first member) order. A member that a boundary cuts (only where the budget
  // splits a source tile column) becomes one single-member group per batch, appended
  // after the scanned groups in (class, piece) order, the same on every rank.
  plan.col_groups = cols.take_groups();
  struct ColumnSlice {
    int src_coord, dst_coord;
    GroupRange range;
  };
  std::vector<std::pair<index_t, ColumnSlice>> batch_slices;  // (batch, slice)
  {
    const std::vector<index_t>& bc = plan.batch_columns;
    const index_t origin = r.dst_origin.j;
    for (int cs = 0; cs < Qs; ++cs)
      for (int ct = 0; ct < Qt; ++ct) {
        const auto [g0, g1] = cols.groups_of(cs, ct);
        for (index_t g = g0; g < g1; ++g) {
          const PieceGroup cg = plan.col_groups[static_cast<std::size_t>(g)];
          const auto column = [&](index_t t) { return cg.dst_start + t * cg.stride - origin; };
          for (index_t t = 0; t < cg.count;) {
            const index_t c0 = column(t);
            index_t b = std::upper_bound(bc.begin(), bc.end(), c0) - bc.begin() - 1;
            const index_t b_end = bc[static_cast<std::size_t>(b) + 1];
            if (c0 + cg.length > b_end) {  // member t is cut: one group per part
              for_each_batch_part(bc, b, c0, cg.length, [&](index_t c, index_t w, index_t k) {
                PieceGroup part = cg.slice(t, 1);
                const index_t d = c - c0;
                part.src_start += d;
                part.dst_start += d;
                part.src_offset += d;
                part.dst_offset += d;
                part.length = w;
                batch_slices.push_back(
                    {k,
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
            batch_slices.push_back({b, ColumnSlice{cs, ct, GroupRange{g, t, end - t}}});
            t = end;
          }
        }
      }
  }
  // Split groups were appended in slice order, so a stable sort by batch keeps (class,
  // group, first member) order inside each batch.
  std::stable_sort(batch_slices.begin(), batch_slices.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<index_t> slice_first(static_cast<std::size_t>(plan.batches) + 1, 0);
  std::vector<ColumnSlice> slices;
  slices.reserve(batch_slices.size());
  for (const auto& [b, slice] : batch_slices) {
    slice_first[static_cast<std::size_t>(b) + 1] += 1;
    slices.push_back(slice);
  }
  for (std::size_t b = 0; b + 1 < slice_first.size(); ++b) slice_first[b + 1] += slice_first[b];

  // Families, batch by batch: column slice outer, row groups inner; bucketed by peer.
  std::vector<std::vector<BlockFamily>> to(static_cast<std::size_t>(comm_size));
  std::vector<std::vector<BlockFamily>> from(static_cast<std::size_t>(comm_size));
  std::vector<BlockFamily> own;
  std::vector<int> to_peers, from_peers;
  // Appends (row groups [g0, g1)) x (column slice c) to `bucket`, noting a new peer.
  const auto add = [&](std::vector<BlockFamily>& bucket, std::vector<int>* peers, int peer,
                       index_t g0, index_t g1, const GroupRange& c) {
    if (peers && bucket.empty()) peers->push_back(peer);
    for (index_t g = g0; g < g1; ++g)
      bucket.push_back(
          BlockFamily{GroupRange{g, 0, rows.groups()[static_cast<std::size_t>(g)].count}, c, 0});
  };
  for (index_t b = 0; b < plan.batches; ++b) {
    for (index_t s = slice_first[static_cast<std::size_t>(b)];
         s < slice_first[static_cast<std::size_t>(b) + 1]; ++s) {
      const ColumnSlice& cs = slices[static_cast<std::size_t>(s)];
      // Sending: source coordinates (p, q) of this rank, every target row coordinate.
      for (const int p : src_rows_of_col[static_cast<std::size_t>(cs.src_coord)])
        for (int pt = 0; pt < Pt; ++pt) {
          const auto [g0, g1] = rows.groups_of(p, pt);
          if (g0 == g1) continue;
          const int peer = static_cast<int>(dd.rank_of(GridCoord{pt, cs.dst_coord}));
          if (peer == rank) continue;  // local: listed on the receiving side
          add(to[static_cast<std::size_t>(peer)], &to_peers, peer, g0, g1, cs.range);
        }
      // Receiving: target coordinates (p', q') of this rank, every source row coordinate.
      for (const int pt : dst_rows_of_col[static_cast<std::size_t>(cs.dst_coord)])
        for (int p = 0; p < Ps; ++p) {
          const auto [g0, g1] = rows.groups_of(p, pt);
          if (g0 == g1) continue;
          const int peer = static_cast<int>(sd.rank_of(GridCoord{p, cs.src_coord}));
          if (peer == rank)
            add(own, nullptr, peer, g0, g1, cs.range);
          else
            add(from[static_cast<std::size_t>(peer)], &from_peers, peer, g0, g1, cs.range);
        }
    }
    const auto flush = [&](std::vector<std::vector<BlockFamily>>& buckets, std::vector<int>& peers,
                           FamilyList& d) {
      std::sort(peers.begin(), peers.end());
      for (const int peer : peers) {
        append_message(d, peer, b, buckets[static_cast<std::size_t>(peer)], rows.groups(),
                       plan.col_groups);
        buckets[static_cast<std::size_t>(peer)].clear();
      }
      peers.clear();
    };
    flush(to, to_peers, plan.send);
    flush(from, from_peers, plan.recv);
    if (!own.empty()) {
      append_message(plan.local, rank, b, own, rows.groups(), plan.col_groups);
      own.clear();
    }
  }

  // Target tiles and their categories: outer product of the per-axis histograms.
  for (int qt = 0; qt < Qt; ++qt)
    for (const int pt : dst_rows_of_col[static_cast<std::size_t>(qt)])
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t c = 0; c < 3; ++c) {
          const index_t n = rows.dst_tiles_by_pieces(pt)[a] * cols.dst_tiles_by_pieces(qt)[c];
          plan.stats.categories[3 * a + c] += n;
          plan.stats.dst_tiles += n;
        }
  family_stats(plan);
  plan.row_groups = rows.take_groups();
  return plan;
}

}  // namespace detail

/// Plans rank `rank`'s part of moving region `r` from `src` to `dst` among `comm_size`
/// ranks, as block families. Same inputs, checks and errors as make_plan (the same
/// functions run), same statistics; the families move exactly make_plan's segments.
/// Cost: O(pieces per axis + families) when both distributions are grids, at compile time
/// or by their values (plan/grid_view.hpp), per lcm period instead of per axis with uniform
/// tiles and block-cyclic grids; else that of make_plan;
/// plus, when some rank's region elements exceed max_buffer_bytes, the budget's pass over
/// the column pieces (plan/batch_budget.hpp).
/// @throws region_error if r does not fit; distribution_error if a distribution uses
/// more ranks than comm_size or returns an owner outside it; invalid_argument for bad
/// options, a rank outside [0, comm_size), or a max_buffer_bytes below the feasible
/// minimum (the same message on every rank, before any owner check).
/// @post stats == make_plan(src, dst, r, rank, comm_size, options).stats but for
/// plan_bytes (this plan's memory_bytes()); for every (peer, batch) both ends list the same
/// families, in the same order, at the same buffer offsets (block_family.hpp).
template <class SrcLayout, class DstLayout>
CompactPlan make_compact_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank,
                              int comm_size, PlanOptions options = {}) {
  using SD = typename SrcLayout::distribution_type;
  using DD = typename DstLayout::distribution_type;
  detail::check_plan_inputs(src, dst, r, rank, comm_size, options);
  CompactPlan plan;
  const auto empty_grid_plan = [&] {
    plan.rank = rank;
    plan.comm_size = comm_size;
    plan.options = options;
    plan.per_axis = true;
  };
  if constexpr (GridDistribution<SD> && GridDistribution<DD>) {
    if (r.empty())
      empty_grid_plan();
    else
      plan = detail::grid_compact_plan(src, dst, r, rank, comm_size, options);
  } else if constexpr (MaybeGridDistribution<SD> && MaybeGridDistribution<DD>) {
    // Grids at run time (plan/grid_view.hpp): the same per-axis path on layouts of the
    // viewed grids, which own what the given distributions own.
    auto sg = detail::as_grid(src.distribution());
    auto dg = detail::as_grid(dst.distribution());
    if (!sg || !dg)
      plan = detail::tile_compact_plan(src, dst, r, rank, comm_size, options);
    else if (r.empty())
      empty_grid_plan();
    else
      plan = detail::grid_compact_plan(Layout(src.shape(), std::move(*sg)),
                                       Layout(dst.shape(), std::move(*dg)), r, rank, comm_size,
                                       options);
  } else {
    plan = detail::tile_compact_plan(src, dst, r, rank, comm_size, options);
  }
  plan.stats.plan_bytes = static_cast<index_t>(plan.memory_bytes());
  return plan;
}

}  // namespace redist
