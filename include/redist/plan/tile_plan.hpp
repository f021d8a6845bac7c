#pragma once
/// @file plan/tile_plan.hpp
/// The plan's fallback path (plan.hpp): any pair of distributions that
/// are not both grids. make_reference_plan's per-segment enumeration (only the tiles this rank
/// owns), whose consecutive row pieces of one column piece for one peer are merged into one family
/// where they form a strided run. Cost: that of make_reference_plan.

#include <cstddef>
#include <vector>

#include <redist/config.hpp>
#include <redist/plan/axis_groups.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/plan_type.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>

namespace redist::detail {

/// Turns a per-segment direction (sorted by batch, peer, column piece, row piece) into
/// family messages: consecutive row pieces of one column piece, batch and peer that
/// continue a strided run share a family. Both ends see the same segment order, so both
/// merge alike.
template <class SrcLayout, class DstLayout>
void families_of_segments(const std::vector<PlannedSegment>& segments, const SrcLayout& src,
                          const DstLayout& dst, Plan& plan, FamilyList& d) {
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

/// The fallback: make_reference_plan's per-segment enumeration, merged into families.
template <class SrcLayout, class DstLayout>
Plan tile_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank, int comm_size,
               const PlanOptions& options) {
  const ReferencePlan segments = make_reference_plan(src, dst, r, rank, comm_size, options);
  Plan plan(rank, comm_size, options);
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

}  // namespace redist::detail
