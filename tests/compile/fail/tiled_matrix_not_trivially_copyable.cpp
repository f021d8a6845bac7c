// EXPECT: is_trivially_copyable
// Tiles are moved as raw bytes (MPI, Kokkos deep copies): the element type must be trivially
// copyable.
#include <string>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

int main() {
  using Shape = redist::Tiling<redist::UniformAxis<4>, redist::UniformAxis<4>>;
  using L = redist::Layout<Shape, redist::BlockCyclic>;
  const L layout{Shape{redist::UniformAxis<4>(8), redist::UniformAxis<4>(8)},
                 redist::BlockCyclic(1, 1)};
  redist::TiledMatrix<std::string, L, redist::PackedTiles<>> a(layout, redist::PackedTiles<>{}, 0);
  return a.rank();
}
