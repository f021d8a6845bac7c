// Tests of include/redist/index.hpp: printing (used in every error message), per-axis
// access, ordering and hashing of the strong index types.
#include <sstream>
#include <string>
#include <unordered_set>

#include <redist/index.hpp>

#include <doctest/doctest.h>

using namespace redist;

namespace {
template <class T>
std::string str(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

TEST_CASE("index types print distinguishably") {
  // clang-format off
  //          value                         printed
  CHECK(str(TileIndex{1, 2})      == "tile(1, 2)");
  CHECK(str(LocalTileIndex{3, 4}) == "local_tile(3, 4)");
  CHECK(str(ElementIndex{5, 6})   == "(5, 6)");
  CHECK(str(TileOffset{7, 8})     == "+(7, 8)");
  CHECK(str(GridCoord{1, 0})      == "grid(1, 0)");
  CHECK(str(Extents{9, 10})       == "9x10");
  // clang-format on
}

TEST_CASE("index types: 64-bit components, per-axis access, ordering") {
  const index_t big = index_t{1} << 40;
  const ElementIndex e{big, big + 1};
  CHECK(e.get<Axis::row>() == big);
  CHECK(e.get<Axis::col>() == big + 1);
  CHECK(Extents{big, 2}.size() == 2 * big);
  CHECK(TileOffset{1, 2}.get<Axis::col>() == 2);
  CHECK(LocalTileIndex{4, 5}.get<Axis::row>() == 4);
  CHECK(TileIndex{0, 9} < TileIndex{1, 0});
  CHECK(GridCoord{1, 0} > GridCoord{0, 5});
}

TEST_CASE("std::hash<TileIndex>: tiles of a grid do not collide") {
  std::unordered_set<std::size_t> hashes;
  for (index_t m = 0; m < 100; ++m)
    for (index_t n = 0; n < 100; ++n) hashes.insert(std::hash<TileIndex>{}({m, n}));
  CHECK(hashes.size() == 10000);
  CHECK(std::hash<TileIndex>{}({1, 2}) != std::hash<TileIndex>{}({2, 1}));
}
