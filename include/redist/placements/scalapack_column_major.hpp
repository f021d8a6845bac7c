#pragma once
/// @file placements/scalapack_column_major.hpp
/// ScaLAPACK's local storage: a rank's tiles form one column-major local matrix of
/// LOCr x LOCc elements with leading dimension lld >= LOCr; tile rows owned by the
/// rank's grid row are stacked in increasing m, tile columns likewise. Requires a
/// GridDistribution (owner separable into grid row and grid column).

#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/placement.hpp>

namespace redist {

template <class MemorySpace = Kokkos::HostSpace>
struct ScalapackColumnMajor {
  using memory_space = MemorySpace;
  /// Every rank's tiles form one LocalMatrix (placement.hpp).
  static constexpr bool local_matrix = true;
  /// Leading dimension; 0 picks max(1, LOCr), ScaLAPACK's smallest legal value. A rank
  /// with LOCr = 0 or LOCc = 0 needs no storage (allocation size 0).
  index_t lld = 0;

  /// @throws storage_error if lld is non-zero and smaller than the local rows.
  template <class L>
  StorageMap map(const L& layout, int rank) const {
    static_assert(GridDistribution<typename L::distribution_type>,
                  "redist: ScaLAPACK storage needs a grid distribution (owner = f(grid_row(m), "
                  "grid_col(n)))");
    if constexpr (!GridDistribution<typename L::distribution_type>) {
      return StorageMap{};  // unreachable: the static_assert above already failed
    } else {
      const auto& d = layout.distribution();
      StorageMap map;
      if (rank < 0 || rank >= layout.ranks()) {
        map.add_allocation(0);
        return map;
      }
      const Extents grid = d.grid();
      // The rank's grid coordinate, found through rank_of so any grid numbering works.
      int p = -1, q = -1;
      for (int gp = 0; gp < grid.rows; ++gp)
        for (int gq = 0; gq < grid.cols; ++gq)
          if (static_cast<int>(d.rank_of(GridCoord{gp, gq})) == rank) p = gp, q = gq;
      if (p < 0) {
        map.add_allocation(0);
        return map;
      }
      // Local offset of each tile row owned by grid row p (and tile column by q).
      const auto offsets = [](const auto& ax, auto&& owned) {
        std::vector<index_t> off(static_cast<std::size_t>(ax.count()), -1);
        index_t local = 0;
        for (index_t k = 0; k < ax.count(); ++k)
          if (owned(k)) {
            off[static_cast<std::size_t>(k)] = local;
            local += ax.size(k);
          }
        off.push_back(local);  // total local extent
        return off;
      };
      const auto row_off =
          offsets(layout.shape().rows(), [&](index_t m) { return d.grid_row(m) == p; });
      const auto col_off =
          offsets(layout.shape().cols(), [&](index_t n) { return d.grid_col(n) == q; });
      const index_t loc_r = row_off.back(), loc_c = col_off.back();
      if (lld != 0 && lld < loc_r)
        throw storage_error(
            detail::describe("ScaLAPACK leading dimension smaller than the local rows", "lld",
                             lld) +
            " (local rows = " + std::to_string(loc_r) + ", rank = " + std::to_string(rank) + ")");
      const index_t ld = lld != 0 ? lld : (loc_r > 1 ? loc_r : 1);
      // A rank with no local rows or no local columns stores nothing (ScaLAPACK's drivers
      // pass a null array there), whatever its leading dimension.
      map.add_allocation(
          loc_r == 0 || loc_c == 0
              ? 0
              : detail::checked_mul(ld, loc_c, "ScaLAPACK local elements lld * LOCc"));
      // One local matrix: no per-tile entries (O(tiles per axis) for any tile count).
      LocalMatrix local{0, ld, row_off, col_off};
      local.row_offset.pop_back();
      local.col_offset.pop_back();
      map.set_local_matrix(std::move(local));
      return map;
    }
  }
};

}  // namespace redist
