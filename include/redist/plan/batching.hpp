#pragma once
/// @file plan/batching.hpp
/// How a plan is cut into batches: what the budget decides (plan/batch_budget.hpp) and a
/// plan keeps (plan/plan_header.hpp), apart from the budget's machinery so that the plan's
/// type can be named without it.

#include <vector>

#include <redist/config.hpp>

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
  /// Column pieces the packer walked one by one: the budget's work, O(pieces per axis),
  /// or O(pieces per lcm period) per batch with uniform tiles and block-cyclic grids
  /// (GridLoads::pack); 0 when the region, or with grid distributions a per-rank bound,
  /// fits the budget at once.
  index_t packed_pieces = 0;
  index_t batches() const { return columns.empty() ? 0 : static_cast<index_t>(columns.size()) - 1; }
};

}  // namespace redist
