// EXPECT: cannot convert .*TileOffset.* to .*ElementIndex
// An offset inside a tile is not a global element index.
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

int main() {
  const redist::Tiling shape{redist::UniformAxis<>(16, 4), redist::UniformAxis<>(16, 4)};
  return static_cast<int>(redist::tile_of(shape, redist::TileOffset{1, 2}).m);
}
