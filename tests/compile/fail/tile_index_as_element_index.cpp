// EXPECT: cannot convert .*TileIndex.* to .*ElementIndex
// A tile index is not an element index: tile_of() takes the element's global (i, j).
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

int main() {
  constexpr redist::Tiling shape{redist::UniformAxis<4>(16), redist::UniformAxis<4>(16)};
  const redist::TileIndex t = redist::tile_of(shape, redist::TileIndex{1, 2});
  return static_cast<int>(t.m);
}
