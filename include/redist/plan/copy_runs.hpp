#pragma once
/// @file plan/copy_runs.hpp
/// How many contiguous runs a plan's pack, unpack and local copies walk, per direction, and
/// how many of the elements packed and unpacked lie in pieces of their tiles' columns: what
/// the cost model charges a cost per run for, and which copies it takes to be bound by
/// their runs rather than by bandwidth (cost_model.hpp). Pure: reads the plan's row pieces
/// and families.

#include <array>
#include <cstddef>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include <redist/index.hpp>
#include <redist/plan.hpp>

namespace redist {

/// Contiguous runs of a plan's copies, per direction, in tile storage (each tile
/// column-major on its own): what contiguous_runs counts.
struct CopyRuns {
  index_t sent = 0, received = 0, local = 0;
  /// Of the elements packed (unpacked), those whose copy walks their tile's columns with
  /// gaps on the side in memory: elements_in_pieces.
  index_t sent_in_pieces = 0, received_in_pieces = 0;
};

namespace detail {

/// Of the elements of `remote`'s families, those its copies walk in pieces on one side
/// (`source`: the source tiles that packs and local copies read; else the target tiles that
/// unpacks and local copies write): a row member whose copy (its message's peer's; the
/// local copies count as one) covers less than 7/8 of the rows of its tile that the side's
/// copies touch at all, so that it walks the tile's columns with gaps between them: what
/// engine::reads_densely (engine/streaming_choice.hpp) asks of one copy, per tile. A peer that
/// takes every row of a column it is sent, in several pieces, reads it whole. O(row members of the
/// families) time and memory. Example: 256-row source tiles, 100-row target tiles, the target's row
/// tiles alternating between two ranks: each takes 100 or 156 of each column's 256 rows, in pieces.
inline index_t elements_in_pieces(const Plan& plan, const FamilyList& remote,
                                  const FamilyList& local, bool source) {
  // The copy that stands for the local parts, and the one that sums every copy of the side.
  constexpr index_t local_copies = -1, any_copy = -2;
  // f(copy, family) for every family of the side: remote's by their message's peer.
  const auto each_family = [&](auto&& f) {
    for (const Message& m : remote.messages)
      for (index_t k = m.first; k < m.first + m.count; ++k)
        f(index_t{m.peer}, remote.families[static_cast<std::size_t>(k)]);
    for (const BlockFamily& family : local.families) f(local_copies, family);
  };
  // f(tile, offset, rows) for every row member of family `family`.
  const auto each_member = [&](const BlockFamily& family, auto&& f) {
    const PieceGroup& g = plan.row_groups[static_cast<std::size_t>(family.rows.group)];
    for (index_t t = family.rows.first; t < family.rows.first + family.rows.count; ++t)
      f(source ? g.src_tile + t * g.src_tile_step : g.dst_tile + t * g.dst_tile_step,
        source ? g.src_offset : g.dst_offset, g.length);
  };
  std::set<std::array<index_t, 3>> seen;           // (copy, tile, offset) of a row member
  std::map<std::array<index_t, 2>, index_t> rows;  // (copy, tile): its rows of the tile
  each_family([&](index_t copy, const BlockFamily& family) {
    each_member(family, [&](index_t tile, index_t offset, index_t length) {
      for (const index_t who : {copy, any_copy})
        if (seen.insert({who, tile, offset}).second) rows[{who, tile}] += length;
    });
  });
  index_t in_pieces = 0;
  each_family([&](index_t copy, const BlockFamily& family) {
    if (copy == local_copies) return;
    const index_t width = plan.col_groups[static_cast<std::size_t>(family.cols.group)].length;
    each_member(family, [&](index_t tile, index_t, index_t length) {
      if (8 * rows[{copy, tile}] < 7 * rows[{any_copy, tile}])
        in_pieces += length * family.cols.count * width;
    });
  });
  return in_pieces;
}

}  // namespace detail

/// The contiguous runs of `plan`'s pack, unpack and local copies. A row piece is the whole
/// column of its source (target) tile when no other piece of the plan starts elsewhere in
/// that tile: every piece of a rank's own source (target) tile rows is in its plan, so
/// this is exact for the side a copy walks, but for a region that clips a tile (its
/// pieces count as whole) and for a move of several parts (plan/plan_parts.hpp), whose
/// parts' tiles of one index count as one tile. O(row pieces + families) time, O(row
/// pieces) memory.
/// @post a family of r row members and c column members of w columns each adds r x c
/// runs where its rows are whole on the walked side(s), r x c x w where they are not.
/// Example: 8 x 8 matrix, 4 x 4 source tiles, 2 x 2 target tiles, one rank: every row piece
/// (2 rows) is half a source column and a whole target column: 16 segments of 2 columns,
/// local runs 32 (source side gapped).
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
  const auto runs = [&](const FamilyList& list, int side) {
    index_t n = 0;
    for (const BlockFamily& f : list.families) {
      const std::vector<index_t>& w =
          whole[3 * static_cast<std::size_t>(f.rows.group) + static_cast<std::size_t>(side)];
      const index_t whole_rows = w[static_cast<std::size_t>(f.rows.first + f.rows.count)] -
                                 w[static_cast<std::size_t>(f.rows.first)];
      const index_t width = plan.col_groups[static_cast<std::size_t>(f.cols.group)].length;
      n += f.cols.count * (whole_rows + (f.rows.count - whole_rows) * width);
    }
    return n;
  };
  return CopyRuns{runs(plan.send, 0), runs(plan.recv, 1), runs(plan.local, 2),
                  detail::elements_in_pieces(plan, plan.send, plan.local, true),
                  detail::elements_in_pieces(plan, plan.recv, plan.local, false)};
}

}  // namespace redist
