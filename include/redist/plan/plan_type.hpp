#pragma once
/// @file plan/plan_type.hpp
/// Plan: what one rank's plan holds (plan.hpp makes it), and the statistics that follow
/// from its families alone.

#include <algorithm>
#include <cstddef>
#include <vector>

#include <redist/config.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/piece_group.hpp>
#include <redist/plan/plan_header.hpp>

namespace redist {

/// One rank's plan, the one that runs: its header (plan/plan_header.hpp) and its copies as
/// block families. `send` messages go to target owners, `recv` messages come from source
/// owners, `local` holds this rank's own copies grouped per batch as
/// messages with peer == rank (their buffer fields follow the same layout but no buffer
/// is needed for them). Group indices in families refer to row_groups / col_groups.
class Plan : public PlanHeader {
 public:
  using PlanHeader::PlanHeader;
  bool per_axis = false;  ///< true: built from per-axis classes (both distributions grids)
  /// Target tiles the per-axis scans visited, rows plus columns (AxisGroups::scanned_tiles):
  /// the planning work, O(tiles per lcm period) with uniform tiles and block-cyclic grids;
  /// 0 on the per-segment path.
  index_t scanned_tiles = 0;
  /// Column pieces the batch budget walked (Batching::packed_pieces) when it cuts batches:
  /// O(pieces per axis), or O(pieces per lcm period) per batch with uniform tiles and
  /// block-cyclic grids; 0 when a bound settles one batch; per-axis path only.
  index_t packed_pieces = 0;
  /// Messages and families merge_parts visited (plan/plan_parts.hpp), plus its sorting
  /// passes: the merging work, linear in the parts' messages; 0 for a plan of one part.
  index_t merge_steps = 0;
  std::vector<PieceGroup> row_groups;
  std::vector<PieceGroup> col_groups;
  FamilyList send;
  FamilyList recv;
  FamilyList local;

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
inline void family_stats(Plan& plan) {
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

}  // namespace detail

}  // namespace redist
