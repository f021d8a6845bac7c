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
///
/// The packer is in plan/batch_packer.hpp, the column loads it is fed in
/// plan/column_loads.hpp; this file cuts the batches.

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
#include <redist/plan/batch_packer.hpp>
#include <redist/plan/batching.hpp>
#include <redist/plan/column_loads.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

namespace detail {

/// The most batches PlanOptions::batch_bytes alone makes (plan_batches).
inline constexpr index_t target_batches = 16;

/// The widest batches within `budget` (see plan_batches, batch == 0); empty `columns`
/// instead of the error when the budget is below one region column of the busiest rank
/// and `refuse` is false.
template <class SrcLayout, class DstLayout>
Batching budget_batches(const SrcLayout& src, const DstLayout& dst, const Region& r, int comm_size,
                        index_t max_buffer_bytes, index_t element_bytes, bool refuse) {
  const auto& sc = src.shape().cols();
  const index_t src_begin = sc.tile_of(r.src_origin.j);
  const index_t src_cols = sc.tile_of(r.src_origin.j + r.extent.cols - 1) + 1 - src_begin;
  Batching out;
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
  if (max_buffer_bytes < minimum && !refuse) return Batching{};
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

/// The batches of moving region `r` from `src` to `dst` among `comm_size` ranks.
/// `batch` > 0: that many source tile columns per batch (the budget is not used).
/// `batch` == 0: the widest batches, whole source tile columns where possible, within
/// the budget: for every rank and batch, (send + receive elements) * element_bytes <=
/// max_buffer_bytes (see the file comment). When the whole region's bytes fit the
/// budget, one batch at no further cost; with grid distributions also when every rank's
/// holdings, or its exact send + receive over the region, fit (O(lcm period), no walk over
/// the columns). `batch_bytes` (PlanOptions::batch_bytes; automatic: its host value)
/// below max_buffer_bytes cuts them to that budget instead, where one region column fits
/// it: a soft target, never refused. The target makes at most `target_batches` batches:
/// a larger move gets batches of about a sixteenth of it (up to the cap), since every
/// batch costs messages and a step per peer and the set-up it saves is then small beside
/// the move.
/// @pre r is not empty and fits both layouts; batch >= 0; element_bytes >= 1.
/// @post every rank computes the same Batching (global quantities only).
/// @throws invalid_argument naming max_buffer_bytes and the feasible minimum when
/// batch == 0 and the budget cannot hold one region column of the busiest rank.
template <class SrcLayout, class DstLayout>
Batching plan_batches(const SrcLayout& src, const DstLayout& dst, const Region& r, int comm_size,
                      index_t batch, index_t max_buffer_bytes, index_t element_bytes,
                      index_t batch_bytes = 0) {
  batch_bytes = resolve_batch_bytes(batch_bytes, true);
  if (batch == 0 && batch_bytes > 0 && batch_bytes < max_buffer_bytes) {
    Batching soft = budget_batches(src, dst, r, comm_size, batch_bytes, element_bytes, false);
    if (soft.batches() > target_batches) {  // about load / batch_bytes: scale the target up
      const index_t scale = (soft.batches() + target_batches - 1) / target_batches;
      index_t wider = 0;
      soft = __builtin_mul_overflow(batch_bytes, scale, &wider) || wider >= max_buffer_bytes
                 ? Batching{}
                 : budget_batches(src, dst, r, comm_size, wider, element_bytes, false);
    }
    if (!soft.columns.empty()) return soft;
  }
  if (batch == 0)
    return budget_batches(src, dst, r, comm_size, max_buffer_bytes, element_bytes, true);
  const auto& sc = src.shape().cols();
  const index_t src_begin = sc.tile_of(r.src_origin.j);
  const index_t src_cols = sc.tile_of(r.src_origin.j + r.extent.cols - 1) + 1 - src_begin;
  Batching out;
  out.batch = std::min(batch, src_cols);
  const index_t batches = (src_cols + out.batch - 1) / out.batch;
  out.columns.reserve(static_cast<std::size_t>(batches) + 1);
  out.columns.push_back(0);
  for (index_t k = 1; k < batches; ++k)
    out.columns.push_back(sc.begin(src_begin + k * out.batch) - r.src_origin.j);
  out.columns.push_back(r.extent.cols);
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
