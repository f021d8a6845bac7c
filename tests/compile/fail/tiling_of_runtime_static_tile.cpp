// EXPECT: (template constraint failure|constraints not satisfied)
// static_tile must be a constant expression: an axis whose static_tile is a run-time
// variable is not a TileAxis, so Tiling rejects it.
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

struct RuntimeTileAxis {
  static inline redist::index_t static_tile = 4;
  redist::index_t extent() const { return 8; }
  redist::index_t count() const { return 2; }
  redist::index_t begin(redist::index_t k) const { return 4 * k; }
  redist::index_t size(redist::index_t) const { return 4; }
  redist::index_t tile_of(redist::index_t i) const { return i / 4; }
};

int main() {
  redist::Tiling<RuntimeTileAxis, redist::UniformAxis<4>> shape{RuntimeTileAxis{},
                                                                redist::UniformAxis<4>(8)};
  return static_cast<int>(shape.cols().count());
}
