// EXPECT: (not a constant expression|non-constant condition)
// category() throws for a target tile the region does not meet; in a constant expression
// that is a compile-time error, not a silent category.
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

constexpr redist::Tiling src{redist::UniformAxis<4>(16), redist::UniformAxis<4>(16)};
constexpr redist::Tiling dst{redist::UniformAxis<6>(12), redist::UniformAxis<6>(12)};
constexpr redist::Region region{{3, 3}, {0, 0}, {0, 0}};  // only inside target tile (0, 0)
static_assert(redist::category(src, dst, region, {1, 1}) == 0);

int main() {}
