// EXPECT: source and target element types differ
// A Redistributor moves elements bit for bit; it does not convert double to float.
#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/redistributor.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

using Shape = redist::Tiling<redist::UniformAxis<>, redist::UniformAxis<>>;
using L = redist::Layout<Shape, redist::BlockCyclic>;
using Source = redist::TiledMatrix<double, L, redist::PackedTiles<>>;
using Target = redist::TiledMatrix<float, L, redist::PackedTiles<>>;

int main() { return static_cast<int>(sizeof(redist::Redistributor<Source, Target>)); }
