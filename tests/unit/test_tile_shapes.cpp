// Tests of the TileShape models (include/redist/tile_shapes/) and of the free functions of
// tile_shape.hpp: begin/size/tile_of agree over whole domains, static and dynamic extents
// agree, and bad parameters throw invalid_argument naming parameter and value.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <redist/error.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;
using test::Rng;

/// The TileAxis postconditions over the whole domain; returns the number of violations.
template <class A>
index_t violations(const A& a) {
  index_t bad = 0;
  bad += a.begin(0) != 0;
  bad += a.begin(a.count()) != a.extent();
  index_t sum = 0;
  for (index_t k = 0; k < a.count(); ++k) {
    bad += a.size(k) <= 0;
    bad += a.begin(k) + a.size(k) != a.begin(k + 1);
    sum += a.size(k);
    for (index_t i = a.begin(k); i < a.begin(k + 1); ++i) bad += a.tile_of(i) != k;
  }
  bad += sum != a.extent();
  return bad;
}

}  // namespace

TEST_CASE("UniformAxis: counts, sizes and the partial last tile") {
  // clang-format off
  struct Case { index_t extent; index_t tile; index_t count; index_t last; };
  const Case cases[] = {
      // extent  tile  count  last tile size
      {10,       4,    3,     2},
      {12,       4,    3,     4},
      {1,        4,    1,     1},
      {0,        4,    0,     0},
      {7,        1,    7,     1},
      {3,        10,   1,     3},
      {1000,     100,  10,    100},
      {1000,     70,   15,    20},
  };
  // clang-format on
  for (const Case& c : cases) {
    INFO("extent ", c.extent, " tile ", c.tile);
    const UniformAxis<> a(c.extent, c.tile);
    CHECK(a.extent() == c.extent);
    CHECK(a.tile() == c.tile);
    CHECK(a.count() == c.count);
    if (c.count > 0) CHECK(a.size(c.count - 1) == c.last);
    CHECK(violations(a) == 0);
  }
  const UniformAxis<4> s(10);
  CHECK(s.tile() == 4);
  CHECK(s.begin(1) == 4);
  CHECK(s.begin(3) == 10);
  CHECK(s.tile_of(9) == 2);
}

TEST_CASE("UniformAxis: static and dynamic extents agree over whole domains") {
  for (index_t n = 0; n <= 60; ++n) {
    INFO("extent ", n);
    const UniformAxis<7> s(n);
    const UniformAxis<> d(n, 7);
    REQUIRE(s.count() == d.count());
    CHECK(violations(s) == 0);
    for (index_t k = 0; k <= s.count(); ++k) CHECK(s.begin(k) == d.begin(k));
    for (index_t k = 0; k < s.count(); ++k) CHECK(s.size(k) == d.size(k));
    for (index_t i = 0; i < n; ++i) CHECK(s.tile_of(i) == d.tile_of(i));
  }
  CHECK(UniformAxis<>(10, 5) == UniformAxis<>(10, 5));
  CHECK(!(UniformAxis<>(10, 5) == UniformAxis<>(10, 4)));
}

TEST_CASE("IrregularAxis: the documented example and random boundaries") {
  const IrregularAxis a({0, 3, 4, 10});
  CHECK(a.extent() == 10);
  CHECK(a.count() == 3);
  // clang-format off
  //            k   begin  size
  CHECK((a.begin(0) == 0 && a.size(0) == 3));
  CHECK((a.begin(1) == 3 && a.size(1) == 1));
  CHECK((a.begin(2) == 4 && a.size(2) == 6));
  // clang-format on
  CHECK(a.begin(3) == 10);
  const std::vector<index_t> tile_of = {0, 0, 0, 1, 2, 2, 2, 2, 2, 2};
  for (index_t i = 0; i < 10; ++i) CHECK(a.tile_of(i) == tile_of[static_cast<std::size_t>(i)]);
  CHECK(violations(a) == 0);
  CHECK(a.boundaries() == std::vector<index_t>{0, 3, 4, 10});
  CHECK(IrregularAxis{0}.count() == 0);

  std::mt19937_64 rng(0x1AA);
  for (int c = 0; c < 300; ++c) {
    std::vector<index_t> b{0};
    const index_t n = 1 + static_cast<index_t>(rng() % 40);
    for (index_t k = 0; k < n; ++k) b.push_back(b.back() + 1 + static_cast<index_t>(rng() % 9));
    const IrregularAxis r(b, b.back());
    INFO("boundaries of ", n, " tiles");
    CHECK(r.count() == n);
    CHECK(violations(r) == 0);
    // tile_of against a linear scan.
    index_t k = 0, bad = 0;
    for (index_t i = 0; i < r.extent(); ++i) {
      while (b[static_cast<std::size_t>(k) + 1] <= i) ++k;
      bad += r.tile_of(i) != k;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("tile shapes: invalid parameters throw invalid_argument naming parameter and value") {
  // clang-format off
  struct Case { std::string msg; const char* names; };
  const Case cases[] = {
      // what                                                                      message contains
      {message_of<invalid_argument>([] { UniformAxis<>(-1, 4); }),                 "extent = -1"},
      {message_of<invalid_argument>([] { UniformAxis<>(10, 0); }),                 "tile = 0"},
      {message_of<invalid_argument>([] { UniformAxis<>(10, -5); }),                "tile = -5"},
      {message_of<invalid_argument>([] { UniformAxis<8>(-3); }),                   "extent = -3"},
      {message_of<invalid_argument>([] { IrregularAxis(std::vector<index_t>{}); }), "boundaries.size() = 0"},
      {message_of<invalid_argument>([] { IrregularAxis{1, 3}; }),                  "boundaries[0] = 1"},
      {message_of<invalid_argument>([] { IrregularAxis{0, 3, 3}; }),               "boundaries[2] = 3"},
      {message_of<invalid_argument>([] { IrregularAxis{0, 5, 4}; }),               "boundaries[2] = 4"},
      {message_of<invalid_argument>([] { IrregularAxis({0, 3, 8}, 10); }),         "boundaries.back() = 8"},
  };
  // clang-format on
  for (const Case& c : cases) {
    INFO(c.msg);
    CHECK(c.msg.find(c.names) != std::string::npos);
    CHECK(c.msg.rfind("redist: ", 0) == 0);
  }
  CHECK(message_of<invalid_argument>([] {
          IrregularAxis{0, 5, 4};
        }).find("previous = 5") != std::string::npos);
  CHECK(message_of<invalid_argument>([] {
          IrregularAxis({0, 3, 8}, 10);
        }).find("extent = 10") != std::string::npos);
  CHECK_NOTHROW(UniformAxis<>(0, 1));
  CHECK_NOTHROW(IrregularAxis({0, 3, 8}, 8));
}

TEST_CASE("Tiling: derived extents, origins and tile_of over the whole matrix") {
  const Tiling s{UniformAxis<4>(10), IrregularAxis{0, 2, 7, 9}};
  CHECK(element_extents(s) == Extents{10, 9});
  CHECK(tile_counts(s) == Extents{3, 3});
  CHECK(tile_extents(s, {2, 1}) == Extents{2, 5});
  CHECK(tile_origin(s, {2, 1}) == ElementIndex{8, 2});
  CHECK(axis<Axis::row>(s).extent() == 10);
  CHECK(axis<Axis::col>(s).count() == 3);
  std::vector<int> hits(static_cast<std::size_t>(10 * 9), 0);
  for (index_t m = 0; m < 3; ++m)
    for (index_t n = 0; n < 3; ++n) {
      const ElementIndex o = tile_origin(s, {m, n});
      const Extents e = tile_extents(s, {m, n});
      for (index_t j = 0; j < e.cols; ++j)
        for (index_t i = 0; i < e.rows; ++i) {
          CHECK(tile_of(s, {o.i + i, o.j + j}) == TileIndex{m, n});
          ++hits[static_cast<std::size_t>((o.i + i) + (o.j + j) * 10)];
        }
    }
  for (int h : hits) CHECK(h == 1);  // the tiles partition the matrix
}
