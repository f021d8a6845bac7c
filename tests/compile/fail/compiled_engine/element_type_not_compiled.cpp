// EXPECT: for another element type or memory space, #include
// <redist/engine/executor_handle_definitions.hpp> in this unit With the compiled engine
// (redist::engine) a unit that moves an element type the engine does not hold must compile that
// executor itself; without its definitions it would only fail to link, so the Redistributor says
// which header to include.
#include <redist/redist.hpp>

using Shape = redist::Tiling<redist::UniformAxis<>, redist::UniformAxis<>>;
using L = redist::Layout<Shape, redist::BlockCyclic>;
using Matrix = redist::TiledMatrix<short, L, redist::PackedTiles<>>;

int main() { return static_cast<int>(sizeof(redist::Redistributor<Matrix, Matrix>)); }
