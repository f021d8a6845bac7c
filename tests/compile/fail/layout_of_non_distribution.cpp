// EXPECT: (template constraint failure|constraints not satisfied)
// Layout's second parameter must model redist::Distribution (here: owner() is missing).
#include <redist/layout.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

struct RanksOnly {
  int ranks() const { return 4; }
};

int main() {
  using Shape = redist::Tiling<redist::UniformAxis<4>, redist::UniformAxis<4>>;
  redist::Layout<Shape, RanksOnly> layout{
      Shape{redist::UniformAxis<4>(8), redist::UniformAxis<4>(8)}, RanksOnly{}};
  return layout.ranks();
}
