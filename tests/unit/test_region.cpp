// Tests of include/redist/region.hpp: the per-axis view of a region and its validation,
// whose region_error names the offending field and its value.
#include <string>

#include <redist/error.hpp>
#include <redist/region.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

using namespace redist;

TEST_CASE("Region: axes, shift, whole") {
  const Region r{{5, 7}, {10, 2}, {3, 4}};
  CHECK(r.axis<Axis::row>() == AxisRegion{5, 10, 3});
  CHECK(r.axis<Axis::col>() == AxisRegion{7, 2, 4});
  CHECK(r.axis<Axis::row>().shift() == 7);
  CHECK(r.axis<Axis::col>().shift() == -2);
  CHECK(!r.empty());
  CHECK(Region{{0, 7}, {0, 0}, {0, 0}}.empty());
  CHECK(Region::whole({4, 6}) == Region{{4, 6}, {0, 0}, {0, 0}});
}

TEST_CASE("validate_region: region_error names the field and its value") {
  const Tiling src{UniformAxis<>(20, 6), UniformAxis<>(30, 7)};  // 20 x 30
  const Tiling dst{UniformAxis<>(15, 4), UniformAxis<>(25, 5)};  // 15 x 25
  // clang-format off
  struct Case { Region r; const char* names; };
  const Case cases[] = {
      //  extent     src_origin  dst_origin   message contains
      {{{-1, 5},   {0, 0},     {0, 0}},     "region.rows = -1"},
      {{{5, -2},   {0, 0},     {0, 0}},     "region.cols = -2"},
      {{{5, 5},    {-1, 0},    {0, 0}},     "region.src_origin.i = -1"},
      {{{5, 5},    {16, 0},    {0, 0}},     "region.src_origin.i = 16"},
      {{{5, 5},    {21, 0},    {0, 0}},     "region.src_origin.i = 21"},
      {{{5, 5},    {0, 26},    {0, 0}},     "region.src_origin.j = 26"},
      {{{5, 5},    {0, 0},     {11, 0}},    "region.dst_origin.i = 11"},
      {{{5, 5},    {0, 0},     {0, -3}},    "region.dst_origin.j = -3"},
      {{{5, 5},    {0, 0},     {0, 21}},    "region.dst_origin.j = 21"},
      {{{16, 5},   {0, 0},     {0, 0}},     "region.dst_origin.i = 0"},   // too many rows for the target
      {{{5, 31},   {0, 0},     {0, 0}},     "region.src_origin.j = 0"},   // too many columns for the source
  };
  // clang-format on
  for (const Case& c : cases) {
    std::string msg = "<no exception>";
    try {
      validate_region(c.r, src, dst);
    } catch (const region_error& e) {
      msg = e.what();
    }
    INFO(msg);
    CHECK(msg.find(c.names) != std::string::npos);
  }
  // The message also gives the context needed to fix it.
  try {
    validate_region(Region{{5, 5}, {16, 0}, {0, 0}}, src, dst);
    FAIL("no exception");
  } catch (const region_error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("source extent = 20") != std::string::npos);
    CHECK(msg.find("region.rows = 5") != std::string::npos);
  }
  // region_error is an invalid_argument is an error.
  CHECK_THROWS_AS(validate_region(Region{{-1, 0}, {0, 0}, {0, 0}}, src, dst), invalid_argument);
  CHECK_THROWS_AS(validate_region(Region{{-1, 0}, {0, 0}, {0, 0}}, src, dst), error);
}

TEST_CASE("validate_region: regions that fit are accepted") {
  const Tiling src{UniformAxis<>(20, 6), UniformAxis<>(30, 7)};
  const Tiling dst{UniformAxis<>(15, 4), UniformAxis<>(25, 5)};
  // clang-format off
  const Region ok[] = {
      //  extent     src_origin  dst_origin
      {{15, 25},   {5, 5},     {0, 0}},
      {{1, 1},     {19, 29},   {14, 24}},
      {{0, 0},     {20, 30},   {15, 25}},
      {{0, 3},     {20, 0},    {0, 0}},
      {{15, 0},    {0, 30},    {0, 25}},
  };
  // clang-format on
  for (const Region& r : ok) CHECK_NOTHROW(validate_region(r, src, dst));
}
