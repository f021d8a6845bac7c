// Static checks of op(A)'s geometry (transform.hpp): a target tile is cut by the transposed
// source tiling, and category() says so at compile time.
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/transform.hpp>

namespace {

using redist::category;
using redist::Op;
using redist::Region;
using redist::Tiling;
using redist::TransposedShape;
using redist::UniformAxis;

// Source tiles 2 x 5; transposed they are 5 x 2. Target tiles 5 x 5.
constexpr Tiling src{UniformAxis<2>(20), UniformAxis<5>(20)};
constexpr Tiling dst{UniformAxis<5>(20), UniformAxis<5>(20)};
constexpr Region whole = Region::whole({20, 20});

static_assert(TransposedShape(src).rows().size(0) == 5);
static_assert(TransposedShape(src).cols().size(0) == 2);
// As it is: 3 row pieces (2 + 2 + 1) x 1 column piece: category 6 (N / I / S stacked).
static_assert(category(src, dst, whole, {0, 0}) == 6);
static_assert(category(src, dst, whole, {0, 0}, Op::none) == 6);
// Transposed: 1 row piece x 3 column pieces: category 2 (W I E side by side).
static_assert(category(src, dst, whole, {0, 0}, Op::transpose) == 2);
static_assert(category(src, dst, whole, {0, 0}, Op::conj_transpose) == 2);
// A displaced region: source rows from 1, so transposed the target's columns start one
// element into a 2-wide tile: pieces 1 + 2 + 2 in tile (0, 0).
constexpr Region shifted{{19, 19}, {1, 0}, {0, 0}};
static_assert(category(src, dst, shifted, {0, 0}, Op::transpose) == 2);
static_assert(category(src, dst, shifted, {0, 1}, Op::transpose) == 2);

}  // namespace
