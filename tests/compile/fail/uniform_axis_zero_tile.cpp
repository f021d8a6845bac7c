// EXPECT: redist: a static tile extent must be positive
// A static tile extent of 0 is rejected when the type is instantiated.
#include <redist/tile_shapes/uniform_axis.hpp>

int main() {
  const redist::UniformAxis<0> axis(10);
  return static_cast<int>(axis.count());
}
