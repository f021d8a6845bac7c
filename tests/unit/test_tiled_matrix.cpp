// Tests of include/redist/tiled_matrix.hpp for every element type the library moves:
// tile(t) is a strided view with the slot's leading dimension, for_each_element visits each
// owned element once with its global index, and wrapped user storage is checked.
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

#include <doctest/doctest.h>

#include "../support/generators.hpp"

namespace {

using namespace redist;
using redist::test::value_at;

/// Writes value_at through tile views on every rank, then reads every element back through
/// for_each_element: each element of the matrix must be seen exactly once, with its value.
template <class T, class L, class P>
void check_matrix(const L& layout, const P& placement) {
  const Extents ext = layout.extents();
  std::vector<int> seen(static_cast<std::size_t>(ext.size()), 0);
  index_t wrong = 0;
  for (int r = 0; r < layout.ranks(); ++r) {
    INFO("rank ", r);
    TiledMatrix<T, L, P> a(layout, placement, r);
    CHECK(a.rank() == r);
    a.for_each_tile([&](TileIndex t) {
      CHECK(a.owns(t));
      CHECK(layout.owner(t) == r);
      const auto v = a.tile(t);
      const TileRef<T> ref = a.tile_ref(t);
      const TileSlot slot = a.storage().slot(t);
      const Extents e = tile_extents(layout.shape(), t);
      CHECK(static_cast<index_t>(v.extent(0)) == e.rows);
      CHECK(static_cast<index_t>(v.extent(1)) == e.cols);
      CHECK(v.stride(0) == 1);
      CHECK(static_cast<index_t>(v.stride(1)) == slot.ld);
      CHECK(ref.ld == slot.ld);
      CHECK(v.data() == ref.data);
      CHECK(ref.data ==
            a.allocations()[static_cast<std::size_t>(slot.allocation)].data() + slot.offset);
      const ElementIndex o = tile_origin(layout.shape(), t);
      for (index_t j = 0; j < e.cols; ++j)
        for (index_t i = 0; i < e.rows; ++i) v(i, j) = value_at<T>({o.i + i, o.j + j});
    });
    a.for_each_element([&](ElementIndex g, T& x) {
      if (g.i < 0 || g.j < 0 || g.i >= ext.rows || g.j >= ext.cols) {
        ++wrong;
        return;
      }
      ++seen[static_cast<std::size_t>(g.i + g.j * ext.rows)];
      wrong += layout.owner(tile_of(layout.shape(), g)) != r;
      wrong += !(x == value_at<T>(g));
    });
    // Tiles of other ranks are refused.
    const Extents n = layout.tiles();
    for (index_t m = 0; m < n.rows; ++m)
      for (index_t k = 0; k < n.cols; ++k)
        if (layout.owner({m, k}) != r) {
          CHECK(!a.owns({m, k}));
          CHECK_THROWS_AS(a.tile({m, k}), storage_error);
        }
  }
  CHECK(wrong == 0);
  index_t not_once = 0;
  for (int s : seen) not_once += s != 1;
  CHECK(not_once == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("TiledMatrix: views and element traversal", T, float, double,
                   std::complex<float>, std::complex<double>, int, std::int64_t) {
  const Tiling uniform{UniformAxis<>(13, 4), UniformAxis<5>(11)};
  const Tiling irregular{IrregularAxis{0, 2, 9, 10}, IrregularAxis{0, 6, 7, 12}};
  SUBCASE("block-cyclic, tile per allocation") {
    check_matrix<T>(Layout(uniform, BlockCyclic(2, 2)), TilePerAllocation<>{});
  }
  SUBCASE("block-cyclic, packed") {
    check_matrix<T>(Layout(uniform, BlockCyclic(2, 3, 2, 1)), PackedTiles<>{});
  }
  SUBCASE("block-cyclic, ScaLAPACK with a padded lld") {
    check_matrix<T>(Layout(uniform, BlockCyclic(2, 1, 1, 1, {1, 0})), ScalapackColumnMajor<>{9});
  }
  SUBCASE("random, irregular tiles, packed") {
    check_matrix<T>(Layout(irregular, RandomDistribution(3, 5)), PackedTiles<>{});
  }
}

TEST_CASE("TiledMatrix: allocations start zeroed") {
  const Layout l(Tiling{UniformAxis<>(9, 4), UniformAxis<>(9, 4)}, BlockCyclic(1, 1));
  TiledMatrix<double, decltype(l), PackedTiles<>> a(l, PackedTiles<>{}, 0);
  index_t nonzero = 0, count = 0;
  a.for_each_element([&](ElementIndex, double& x) {
    nonzero += x != 0.0;
    ++count;
  });
  CHECK(count == 81);
  CHECK(nonzero == 0);
}

TEST_CASE("TiledMatrix: wrapping user storage") {
  using L = Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>;
  const L l(Tiling{UniformAxis<>(10, 3), UniformAxis<>(8, 3)}, BlockCyclic(2, 2));
  using M = TiledMatrix<double, L, ScalapackColumnMajor<>>;
  const ScalapackColumnMajor<> scalapack{7};
  // Rank 0 = grid (0, 0): tile rows 0, 2 (3 + 3 = 6 local rows), tile cols 0, 2 (3 + 2 = 5).
  M::allocation_view user("user", 7 * 5);
  M a(l, scalapack, 0, {user});
  CHECK(a.allocations()[0].data() == user.data());
  a.tile({2, 2})(1, 0) = 42.0;  // global (7, 6) -> local (3 + 1, 3 + 0)
  CHECK(user(4 + 3 * 7) == 42.0);
  user(0) = 7.0;  // local (0, 0) = global (0, 0)
  CHECK(a.tile({0, 0})(0, 0) == 7.0);

  // Wrong number of allocations, and an allocation too small, are refused.
  std::string msg = "<no exception>";
  try {
    M bad(l, scalapack, 0, {user, user});
  } catch (const storage_error& e) {
    msg = e.what();
  }
  CHECK(msg.find("storage.size() = 2") != std::string::npos);
  msg = "<no exception>";
  try {
    M bad(l, scalapack, 0, {M::allocation_view("small", 34)});
  } catch (const storage_error& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find("storage[0].extent(0) = 34") != std::string::npos);
  CHECK(msg.find("needs 35") != std::string::npos);
  // Larger than needed is fine.
  CHECK_NOTHROW(M(l, scalapack, 0, {M::allocation_view("large", 100)}));

  using PL = TiledMatrix<float, L, TilePerAllocation<>>;
  CHECK_THROWS_AS(PL(l, TilePerAllocation<>{}, 0, {}), storage_error);
}
