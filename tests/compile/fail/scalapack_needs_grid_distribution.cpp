// EXPECT: redist: ScaLAPACK storage needs a grid distribution
// ScaLAPACK's local column-major storage only exists when the owner of tile (m, n) is a
// function of (grid_row(m), grid_col(n)); a random distribution has no grid.
#include <redist/distributions/random.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

int main() {
  const redist::Layout layout{
      redist::Tiling{redist::UniformAxis<>(10, 2), redist::UniformAxis<>(10, 2)},
      redist::RandomDistribution(4, 7)};
  const redist::StorageMap map = redist::ScalapackColumnMajor<>{}.map(layout, 0);
  return static_cast<int>(map.tiles().size());
}
