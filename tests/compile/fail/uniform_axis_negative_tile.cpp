// EXPECT: redist: a static tile extent must be positive
// Negative static extents other than dynamic_extent (-1) are rejected too.
#include <redist/tile_shapes/uniform_axis.hpp>

int main() {
  const redist::UniformAxis<-4> axis(10);
  return static_cast<int>(axis.count());
}
