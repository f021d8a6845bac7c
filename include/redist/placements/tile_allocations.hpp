#pragma once
/// @file placements/tile_allocations.hpp
/// Two tile-contiguous ("PLASMA/DPLASMA") storages: one allocation per tile, or all
/// owned tiles packed back to back in one allocation. Each tile is column-major with
/// ld = its row count. Model Placement for any layout.

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
}  // namespace detail

/// One Kokkos allocation per owned tile.
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

/// All owned tiles back to back in one allocation, in column-major tile order.
template <class MemorySpace = Kokkos::HostSpace>
struct PackedTiles {
  using memory_space = MemorySpace;
  template <class L>
  StorageMap map(const L& layout, int rank) const {
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
