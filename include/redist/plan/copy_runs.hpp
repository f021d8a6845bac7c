#pragma once
/// @file plan/copy_runs.hpp
/// How many contiguous runs a plan's pack, unpack and local copies walk, per direction, and
/// how many of their elements lie in pieces of their tiles' columns: what the cost model
/// charges a cost per run for, and which copies it takes to be bound by their runs rather
/// than by bandwidth (cost_model.hpp). Pure: reads the plan's row pieces and families.

#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

#include <redist/index.hpp>
#include <redist/plan.hpp>

namespace redist {

/// Contiguous runs of a plan's copies, per direction, in tile storage (each tile
/// column-major on its own): what contiguous_runs counts.
struct CopyRuns {
  index_t sent = 0, received = 0, local = 0;
  /// Of the elements packed, unpacked and copied locally, those whose row piece is not the
  /// whole column of its tile on the walked side(s): copied a run per column.
  index_t sent_in_pieces = 0, received_in_pieces = 0, local_in_pieces = 0;
};

/// The contiguous runs of `plan`'s pack, unpack and local copies. A row piece is the whole
/// column of its source (target) tile when no other piece of the plan starts elsewhere in
/// that tile: every piece of a rank's own source (target) tile rows is in its plan, so
/// this is exact for the side a copy walks, but for a region that clips a tile (its
/// pieces count as whole) and for a move of several parts (plan/plan_parts.hpp), whose
/// parts' tiles of one index count as one tile. O(row pieces + families) time, O(row
/// pieces) memory.
/// @post a family of r row members and c column members of w columns each adds r x c
/// runs where its rows are whole on the walked side(s), r x c x w where they are not; the
/// elements of the members that are not whole (rows x columns each) count as in pieces.
/// Example: 8 x 8 matrix, 4 x 4 source tiles, 2 x 2 target tiles, one rank: every row piece
/// (2 rows) is half a source column and a whole target column: 16 segments of 2 columns,
/// local runs 32 (source side gapped), and all 64 elements in pieces.
inline CopyRuns contiguous_runs(const Plan& plan) {
  // Per tile: the offset of the first piece seen, and whether another offset was seen.
  struct Seen {
    index_t offset = 0;
    bool cut = false;
  };
  std::unordered_map<index_t, Seen> src, dst;
  const auto see = [](std::unordered_map<index_t, Seen>& tiles, index_t tile, index_t offset) {
    const auto [it, fresh] = tiles.try_emplace(tile, Seen{offset, false});
    if (!fresh && it->second.offset != offset) it->second.cut = true;
  };
  for (const PieceGroup& g : plan.row_groups)
    for (index_t t = 0; t < g.count; ++t) {
      see(src, g.src_tile + t * g.src_tile_step, g.src_offset);
      see(dst, g.dst_tile + t * g.dst_tile_step, g.dst_offset);
    }
  // Per row group, prefix counts of its members whole on the source side, the target
  // side, and both.
  std::vector<std::vector<index_t>> whole(plan.row_groups.size() * 3);
  for (std::size_t k = 0; k < plan.row_groups.size(); ++k) {
    const PieceGroup& g = plan.row_groups[k];
    for (int side = 0; side < 3; ++side) whole[3 * k + side].assign(g.count + 1, 0);
    for (index_t t = 0; t < g.count; ++t) {
      const bool s = !src[g.src_tile + t * g.src_tile_step].cut;
      const bool d = !dst[g.dst_tile + t * g.dst_tile_step].cut;
      const auto u = static_cast<std::size_t>(t);
      whole[3 * k][u + 1] = whole[3 * k][u] + (s ? 1 : 0);
      whole[3 * k + 1][u + 1] = whole[3 * k + 1][u] + (d ? 1 : 0);
      whole[3 * k + 2][u + 1] = whole[3 * k + 2][u] + (s && d ? 1 : 0);
    }
  }
  // Runs and elements in pieces of one direction's families.
  const auto walk = [&](const FamilyList& list, int side) {
    std::pair<index_t, index_t> n{0, 0};
    for (const BlockFamily& f : list.families) {
      const std::vector<index_t>& w =
          whole[3 * static_cast<std::size_t>(f.rows.group) + static_cast<std::size_t>(side)];
      const index_t whole_rows = w[static_cast<std::size_t>(f.rows.first + f.rows.count)] -
                                 w[static_cast<std::size_t>(f.rows.first)];
      const index_t width = plan.col_groups[static_cast<std::size_t>(f.cols.group)].length;
      const index_t height = plan.row_groups[static_cast<std::size_t>(f.rows.group)].length;
      n.first += f.cols.count * (whole_rows + (f.rows.count - whole_rows) * width);
      n.second += (f.rows.count - whole_rows) * height * f.cols.count * width;
    }
    return n;
  };
  const auto [sent, sent_in_pieces] = walk(plan.send, 0);
  const auto [received, received_in_pieces] = walk(plan.recv, 1);
  const auto [local, local_in_pieces] = walk(plan.local, 2);
  return CopyRuns{sent, received, local, sent_in_pieces, received_in_pieces, local_in_pieces};
}

}  // namespace redist
