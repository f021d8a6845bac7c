#pragma once
/// @file placements/tile_allocations.hpp
/// Two tile-contiguous ("PLASMA/DPLASMA") storages: one allocation per tile, or all
/// owned tiles in column-major tile order in one allocation. Each tile is column-major,
/// with ld = its row count, or the largest tile's where packed tiles take equal slots
/// (detail::packed_local_matrix). Model Placement for any layout.

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/checked.hpp>
#include <redist/placement.hpp>

namespace redist {

namespace detail {
/// Lists rank r's tiles column by column and gives each its slot from `next_slot`.
template <class L, class F>
StorageMap map_owned_tiles(const L& layout, int rank, F&& next_slot) {
  StorageMap map;
  for_each_owned_tile(layout.distribution(), rank, layout.all_tiles(), [&](TileIndex t) {
    map.add_tile(t, next_slot(map, tile_extents(layout.shape(), t)));
  });
  return map;
}

/// Rank r's owned tiles as one LocalMatrix, when they are a product of owned tile rows and
/// owned tile columns: every tile then takes an MB x NB slot with ld = MB (MB, NB the
/// largest owned tile extents), local tile (lm, ln) of LM local tile rows at (ln * LM + lm)
/// * MB * NB, which is row part lm * MB * NB plus column part ln * LM * NB times ld. Smaller
/// tiles (a partial last tile row or column, an odd first one) are padded to the slot,
/// which is allowed while it adds at most a quarter to the tiles' elements. One pass over
/// the owned tiles and O(tile rows + tile columns) memory: listing 1 x 1 tiles one by one
/// cost about 100 bytes a tile (0.4 GB a rank at 2048^2 on 2 ranks), and a partial tile
/// left the rank's tiles without one ld, so that copies bound element by element. Empty
/// when the tiles are not such a product or padding would cost more, or any padding where
/// `pad` is false (they are listed then, back to back, each with ld = its row count).
template <class L>
std::optional<StorageMap> packed_local_matrix(const L& layout, int rank, bool pad = true) {
  std::vector<index_t> rows, cols;  // owned tile rows (of the first column) and columns
  index_t mb = 0, nb = 0, at = 0;   // largest tile extents; at: tiles seen in the column
  index_t elements = 0;             // of the owned tiles, unpadded
  bool product = true;
  const auto& shape = layout.shape();
  for_each_owned_tile(layout.distribution(), rank, layout.all_tiles(), [&](TileIndex t) {
    if (!product) return;
    if (cols.empty() || cols.back() != t.n) {
      if (cols.size() > 1 && at != static_cast<index_t>(rows.size())) product = false;
      cols.push_back(t.n);
      nb = std::max(nb, shape.cols().size(t.n));
      at = 0;
    }
    if (cols.size() == 1) {
      rows.push_back(t.m);
      mb = std::max(mb, shape.rows().size(t.m));
    } else if (at >= static_cast<index_t>(rows.size()) ||
               rows[static_cast<std::size_t>(at)] != t.m) {
      product = false;
    }
    elements = checked_add(elements, tile_extents(shape, t).size(), "owned elements");
    ++at;
  });
  if (!product || cols.empty() || at != static_cast<index_t>(rows.size()) || mb < 1 || nb < 1)
    return std::nullopt;
  const auto tile_rows = static_cast<index_t>(rows.size());
  const index_t tile = checked_mul(mb, nb, "tile elements");
  const index_t padded =
      checked_mul(checked_mul(tile_rows, static_cast<index_t>(cols.size()), "owned tiles"), tile,
                  "allocation elements");
  if (padded - elements > (pad ? elements / 4 : 0)) return std::nullopt;
  const Extents counts = layout.tiles();
  LocalMatrix local{0, mb, std::vector<index_t>(static_cast<std::size_t>(counts.rows), -1),
                    std::vector<index_t>(static_cast<std::size_t>(counts.cols), -1)};
  for (std::size_t k = 0; k < rows.size(); ++k)
    local.row_offset[static_cast<std::size_t>(rows[k])] = static_cast<index_t>(k) * tile;
  for (std::size_t k = 0; k < cols.size(); ++k)
    local.col_offset[static_cast<std::size_t>(cols[k])] =
        checked_mul(static_cast<index_t>(k) * tile_rows, nb, "packed tile offset");
  StorageMap map;
  map.add_allocation(padded);
  map.set_local_matrix(std::move(local));
  return map;
}
}  // namespace detail

/// One allocation per owned tile: each tile its own address range and base, as tiles from
/// separate allocations are. TiledMatrix carves small ones from one arena on huge pages in
/// host memory (tiled_matrix.hpp, carve_small).
template <class MemorySpace = Kokkos::HostSpace>
struct TilePerAllocation {
  using memory_space = MemorySpace;
  template <class L>
  StorageMap map(const L& layout, int rank) const {
    return detail::map_owned_tiles(layout, rank, [](StorageMap& m, Extents e) {
      return TileSlot{m.add_allocation(detail::checked_mul(e.rows, e.cols, "tile elements")), 0,
                      e.rows > 0 ? e.rows : 1};
    });
  }
};

/// All owned tiles in one allocation, in column-major tile order: in equal MB x NB slots
/// as one LocalMatrix when the tiles allow it (detail::packed_local_matrix), else back to
/// back. A tile's ld is its slot's (TiledMatrix::tile reports it).
template <class MemorySpace = Kokkos::HostSpace>
struct PackedTiles {
  using memory_space = MemorySpace;
  /// false: no padding; every tile back to back with ld = its row count, the layout to
  /// wrap memory packed so elsewhere. A rank that owns a smaller tile then binds its
  /// copies segment by segment (a copy per element for 1 x 1 tiles).
  bool equal_slots = true;

  template <class L>
  StorageMap map(const L& layout, int rank) const {
    if (auto local = detail::packed_local_matrix(layout, rank, equal_slots))
      return std::move(*local);
    index_t offset = 0;
    StorageMap map = detail::map_owned_tiles(layout, rank, [&](StorageMap&, Extents e) {
      const TileSlot s{0, offset, e.rows > 0 ? e.rows : 1};
      offset = detail::checked_add(offset, detail::checked_mul(e.rows, e.cols, "tile elements"),
                                   "allocation elements");
      return s;
    });
    map.add_allocation(offset);
    return map;
  }
};

}  // namespace redist
