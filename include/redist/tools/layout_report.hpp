#pragma once
/// @file tools/layout_report.hpp
/// What a redistribution does to the tiles (redist-run's report): tiles per rank of the
/// source and the target, and, when both share one tiling and the region maps every tile
/// onto itself, how many of the tiles the region touches change owner against the fewest
/// any target with the same tiles per rank could move (synthesize.hpp's lower bound).
/// Pure (no MPI): every rank can compute it, rank 0 prints it.
///
///   tiles    per rank: src 300 300 300 300, dst 76 75 74 75
///   moved    124 of 300 tiles change owner (lower bound 124)

#include <cstdio>
#include <string>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/synthesize.hpp>
#include <redist/tile_shape.hpp>

namespace redist::tools {

/// The numbers of the report. moved and lower_bound are -1 where they do not apply.
struct LayoutReport {
  std::vector<index_t> src_tiles;  ///< tiles per rank over the whole source tiling
  std::vector<index_t> dst_tiles;  ///< tiles per rank over the whole target tiling
  index_t region_tiles = -1;       ///< tiles the region touches (same tiling only)
  index_t moved = -1;              ///< of those, the tiles whose owner changes
  index_t lower_bound = -1;        ///< the fewest moves for the target's counts there
  bool counted = true;             ///< false: too many tiles to count (see layout_report)
};

/// The report for moving `region` from `src` to `dst` on `ranks` ranks. Costs O(tiles of
/// both tilings); above `max_tiles` tiles it counts nothing (counted = false).
template <class SrcLayout, class DstLayout>
LayoutReport layout_report(const SrcLayout& src, const DstLayout& dst, const Region& region,
                           int ranks, index_t max_tiles = index_t{1} << 26) {
  LayoutReport r;
  const Extents ts = src.tiles(), td = dst.tiles();
  if (ts.rows * ts.cols > max_tiles || td.rows * td.cols > max_tiles) {
    r.counted = false;
    return r;
  }
  r.src_tiles = tiles_per_rank(src.distribution(), TileMask{src.all_tiles()}, ranks);
  r.dst_tiles = tiles_per_rank(dst.distribution(), TileMask{dst.all_tiles()}, ranks);
  // Tile for tile: one tiling, and the region at the same place on both sides.
  const auto bounds = [](const auto& shape) {
    std::vector<index_t> b;
    for (index_t k = 0; k <= shape.rows().count(); ++k) b.push_back(shape.rows().begin(k));
    for (index_t k = 0; k <= shape.cols().count(); ++k) b.push_back(shape.cols().begin(k));
    return b;
  };
  if (region.empty() || region.src_origin != region.dst_origin || ts != td ||
      bounds(src.shape()) != bounds(dst.shape()))
    return r;
  const ElementIndex first = region.src_origin;
  const ElementIndex last{first.i + region.extent.rows - 1, first.j + region.extent.cols - 1};
  const TileIndex a = tile_of(src.shape(), first), b = tile_of(src.shape(), last);
  const TileMask box{{a, {b.m + 1, b.n + 1}}};
  r.region_tiles = box.size();
  r.moved = tiles_moved(src.distribution(), dst.distribution(), box);
  r.lower_bound = moves_lower_bound(tiles_per_rank(src.distribution(), box, ranks),
                                    tiles_per_rank(dst.distribution(), box, ranks));
  return r;
}

/// Prints the report's lines (two spaces of indent, redist-run's style).
inline void print_layout_report(std::FILE* out, const LayoutReport& r) {
  if (!r.counted) {
    std::fprintf(out, "  tiles    too many to count per rank\n");
    return;
  }
  const auto list = [](const std::vector<index_t>& v) {
    std::string s;
    for (index_t x : v) {  // not " " + std::to_string(x): GCC 12's -Wstringop-overflow
      s += ' ';
      s += std::to_string(x);
    }
    return s;
  };
  std::fprintf(out, "  tiles    per rank: src%s, dst%s\n", list(r.src_tiles).c_str(),
               list(r.dst_tiles).c_str());
  if (r.moved >= 0)
    std::fprintf(out, "  moved    %lld of %lld tiles change owner (lower bound %lld)\n",
                 static_cast<long long>(r.moved), static_cast<long long>(r.region_tiles),
                 static_cast<long long>(r.lower_bound));
}

}  // namespace redist::tools
