#pragma once
/// @file scalapack/layout.hpp
/// ScaLAPACK descriptors and BLACS grids (scalapack/descriptor.hpp) as redist layouts,
/// local extents (NUMROC) and local arrays wrapped as TiledMatrix.
///
/// A ScaLAPACK descriptor is {dtype, ctxt, M, N, MB, NB, RSRC, CSRC, LLD}:
/// a block-cyclic layout of MB x NB tiles over the BLACS grid of `ctxt`, whose first
/// tile lives on grid coordinate (RSRC, CSRC), stored as a local column-major array
/// with leading dimension LLD. In redist terms: Tiling{UniformAxis<>(M, MB),
/// UniformAxis<>(N, NB)}, BlacsCyclic(grid, {RSRC, CSRC}) and ScalapackColumnMajor{LLD}.
///
/// | conversion                        | function                                   |
/// |-----------------------------------|--------------------------------------------|
/// | grid coordinate (p, q) -> rank    | `Grid::rank_of`, `BlacsCyclic::rank_of`    |
/// | rank -> grid coordinate           | `BlacsCyclic::coord_of` ({-1, -1} outside) |
/// | global row i -> grid row          | (i / MB + RSRC) mod P (INDXG2P)            |
/// | rank -> local rows x local cols   | `local_extents` (NUMROC on both axes)      |

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/distribution.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/scalapack/descriptor.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

namespace redist::scalapack {

/// 2-D block-cyclic distribution of 1 x 1 super-tiles over a BLACS grid whose
/// coordinates map to any ranks (Cblacs_gridinit's row- or column-major order, or a
/// Cblacs_gridmap table). Models Distribution, EnumeratesOwnedTiles, OwnersInRange and
/// GridDistribution; the index math is BlockCyclic's:
///
///   grid_row(m) = (m + RSRC) mod P     grid_col(n) = (n + CSRC) mod Q
///   owner(m, n) = rank_of({grid_row(m), grid_col(n)})
///
/// Example, a 2 x 2 grid made by Cblacs_gridmap with map {3, 0, 1, 2} (row-major by
/// coordinate), first tile on (0, 1): tile (0, 0) is on (0, 1) = rank 0, tile (0, 1)
/// on (0, 0) = rank 3, tile (1, 0) on (1, 1) = rank 2.
class BlacsCyclic {
 public:
  /// Owners are in [0, ranks()) by construction.
  static constexpr bool owners_in_range = true;

  /// @throws distribution_error if the grid is not positive, the first owner is outside
  /// it, or the map is not nprow * npcol distinct non-negative ranks.
  BlacsCyclic(const Grid& grid, GridCoord first)
      : cyclic_(grid.nprow, grid.npcol, 1, 1, first), map_(grid_map(grid)) {
    for (std::size_t k = 0; k < map_.size(); ++k) {
      const int r = map_[k];
      if (r < 0)
        throw distribution_error(detail::describe("negative rank in the grid map",
                                                  "grid.ranks[" + std::to_string(k) + "]", r));
      if (static_cast<std::size_t>(r) >= coord_.size()) coord_.resize(r + std::size_t{1}, -1);
      if (coord_[static_cast<std::size_t>(r)] >= 0)
        throw distribution_error(detail::describe("rank twice in the grid map",
                                                  "grid.ranks[" + std::to_string(k) + "]", r));
      coord_[static_cast<std::size_t>(r)] = static_cast<int>(k);
    }
  }

  int ranks() const { return static_cast<int>(coord_.size()); }
  Extents grid() const { return cyclic_.grid(); }
  /// One tile per grid step (the plan's period detection reads it).
  Extents super_tile() const { return cyclic_.super_tile(); }
  GridCoord first_owner() const { return cyclic_.first_owner(); }
  int grid_row(index_t m) const { return cyclic_.grid_row(m); }
  int grid_col(index_t n) const { return cyclic_.grid_col(n); }
  int rank_of(GridCoord g) const {
    return map_[static_cast<std::size_t>(g.p) * static_cast<std::size_t>(cyclic_.grid().cols) +
                static_cast<std::size_t>(g.q)];
  }
  /// The grid coordinate of `rank`, {-1, -1} for a rank outside the grid.
  GridCoord coord_of(int rank) const {
    if (rank < 0 || rank >= ranks() || coord_[static_cast<std::size_t>(rank)] < 0) return {-1, -1};
    const int k = coord_[static_cast<std::size_t>(rank)];
    const int Q = static_cast<int>(cyclic_.grid().cols);
    return {k / Q, k % Q};
  }
  int owner(TileIndex t) const { return rank_of({grid_row(t.m), grid_col(t.n)}); }

  /// Visits the tiles of `box` owned by `rank`, column by column, in O(owned tiles).
  template <class F>
  void for_each_owned(int rank, TileBox box, F&& f) const {
    const GridCoord g = coord_of(rank);
    if (g.p < 0 || box.empty()) return;
    const Extents e = cyclic_.grid();
    const GridCoord first = cyclic_.first_owner();
    BlockCyclic::for_each_owned_index(
        box.begin.n, box.end.n, 1, static_cast<int>(e.cols), first.q, g.q, [&](index_t n) {
          BlockCyclic::for_each_owned_index(box.begin.m, box.end.m, 1, static_cast<int>(e.rows),
                                            first.p, g.p, [&](index_t m) {
                                              f(TileIndex{m, n});
                                            });
        });
  }

  /// Exact: grid, first owner and map (fingerprint.hpp).
  std::uint64_t fingerprint() const {
    detail::Hasher h(0x424c4143ull);  // "BLAC"
    h.add(cyclic_.fingerprint());
    for (const int r : map_) h.add(r);
    return h.value();
  }
  friend bool operator==(const BlacsCyclic&, const BlacsCyclic&) = default;

 private:
  static std::vector<int> grid_map(const Grid& g) {
    if (!g.ranks.empty() &&
        g.ranks.size() != static_cast<std::size_t>(g.nprow) * static_cast<std::size_t>(g.npcol))
      throw distribution_error(detail::describe("grid map must have nprow * npcol entries",
                                                "grid.ranks.size()", g.ranks.size()) +
                               " (nprow * npcol = " + std::to_string(g.nprow * g.npcol) + ")");
    std::vector<int> map;
    if (g.nprow <= 0 || g.npcol <= 0) return map;  // BlockCyclic has already thrown
    map.reserve(static_cast<std::size_t>(g.nprow) * static_cast<std::size_t>(g.npcol));
    for (int p = 0; p < g.nprow; ++p)
      for (int q = 0; q < g.npcol; ++q) map.push_back(g.rank_of({p, q}));
    return map;
  }

  BlockCyclic cyclic_;      // the index math, row-major numbering unused
  std::vector<int> map_;    // rank of (p, q) at p * Q + q
  std::vector<int> coord_;  // p * Q + q of each rank below ranks(), -1 outside the grid
};

using ScalapackLayout = Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlacsCyclic>;

}  // namespace redist::scalapack

namespace redist::scalapack {

/// The redist layout of descriptor `d` on grid `g`. DTYPE_, CTXT_ and LLD_ are not read.
/// @throws invalid_argument naming the descriptor field for what p?gemr2d refuses
/// (descriptor_fault: negative extents, non-positive block sizes, a source coordinate
/// outside the grid); distribution_error for a bad grid or grid map.
inline ScalapackLayout make_layout(const Descriptor& d, const Grid& g) {
  if (const auto f = descriptor_fault(d, g))
    throw invalid_argument(detail::describe(std::string(f->entry) + "_ " + f->rule,
                                            std::string("desc.") + f->member, f->value));
  return {Tiling{UniformAxis<>(d.m, d.mb), UniformAxis<>(d.n, d.nb)},
          BlacsCyclic(g, GridCoord{static_cast<int>(d.rsrc), static_cast<int>(d.csrc)})};
}

/// Local rows x local columns (LOCr x LOCc) of `rank`'s array for descriptor d on grid
/// g: NUMROC(M, MB, p, RSRC, P) x NUMROC(N, NB, q, CSRC, Q) at the rank's grid
/// coordinate (p, q); {0, 0} for a rank outside the grid. A local array needs LLD >=
/// max(1, LOCr) and LLD * LOCc elements, none when LOCr or LOCc is 0.
/// @throws invalid_argument / distribution_error as make_layout.
inline Extents local_extents(const Descriptor& d, const Grid& g, int rank) {
  const BlacsCyclic dist = make_layout(d, g).distribution();
  const GridCoord c = dist.coord_of(rank);
  if (c.p < 0) return {0, 0};
  return {numroc(d.m, d.mb, c.p, d.rsrc, g.nprow), numroc(d.n, d.nb, c.q, d.csrc, g.npcol)};
}

/// Wraps a rank's ScaLAPACK local array (may be null on ranks that store nothing).
template <class T>
using Matrix = TiledMatrix<T, ScalapackLayout, ScalapackColumnMajor<Kokkos::HostSpace>>;

/// The TiledMatrix over `local`, rank `rank`'s array of descriptor d on grid g.
/// @throws as make_layout; storage_error if `local` is null where the rank stores
/// elements, or LLD is smaller than the local rows.
template <class T>
Matrix<T> wrap(T* local, const Descriptor& d, const Grid& g, int rank) {
  ScalapackLayout layout = make_layout(d, g);
  const ScalapackColumnMajor<Kokkos::HostSpace> placement{d.lld};
  const index_t need = placement.map(layout, rank).allocation_sizes().at(0);
  if (local == nullptr && need > 0)
    throw storage_error(detail::describe("null local array for a rank that stores elements",
                                         "local elements needed", need));
  std::vector<typename Matrix<T>::allocation_view> storage;
  storage.emplace_back(local, static_cast<std::size_t>(need));
  return Matrix<T>(std::move(layout), placement, rank, std::move(storage));
}

}  // namespace redist::scalapack
