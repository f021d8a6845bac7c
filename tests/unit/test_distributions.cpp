// Tests of the Distribution models (include/redist/distributions/): every tile has exactly
// one owner in [0, ranks()), for_each_owned_tile visits each tile of a box exactly once,
// block-cyclic follows its formula, random is reproducible and roughly uniform, band splits
// at |m - n| < B, and bad parameters throw distribution_error naming parameter and value.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;
using test::Rng;

/// Checks that for_each_owned_tile over all ranks (and a few ranks that own nothing) visits
/// every tile of `box` exactly once, at its owner, column by column.
template <class D>
void check_enumeration(const D& d, TileBox box) {
  const index_t rows = box.end.m - box.begin.m;
  std::vector<int> visits(static_cast<std::size_t>(box.size()), 0);
  bool ok = true;
  for (int r = -1; r <= d.ranks(); ++r) {
    TileIndex prev{-1, -1};
    for_each_owned_tile(d, r, box, [&](TileIndex t) {
      if (!box.contains(t) || d.owner(t) != r) {
        ok = false;
        return;
      }
      if (t.n < prev.n || (t.n == prev.n && t.m <= prev.m)) ok = false;
      prev = t;
      ++visits[static_cast<std::size_t>((t.n - box.begin.n) * rows + (t.m - box.begin.m))];
    });
  }
  CHECK(ok);
  index_t wrong = 0;
  for (int v : visits) wrong += v != 1;
  CHECK(wrong == 0);
}

/// Every tile of `box` has an owner in [0, ranks()).
template <class D>
bool owners_in_range(const D& d, TileBox box) {
  for (index_t n = box.begin.n; n < box.end.n; ++n)
    for (index_t m = box.begin.m; m < box.end.m; ++m)
      if (d.owner({m, n}) < 0 || d.owner({m, n}) >= d.ranks()) return false;
  return true;
}

TileBox random_box(Rng& rng) {
  const index_t m0 = rng.in(0, 20), n0 = rng.in(0, 20);
  return {{m0, n0}, {m0 + rng.in(0, 40), n0 + rng.in(0, 40)}};
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("BlockCyclic: hand-checked owners") {
  // Cao et al. 2021 Fig. 5a: 2 x 2 grid, 1 x 1 blocks.
  const BlockCyclic d(2, 2);
  // clang-format off
  //      tile        owner
  CHECK(d.owner({0, 0}) == 0);
  CHECK(d.owner({0, 1}) == 1);
  CHECK(d.owner({1, 0}) == 2);
  CHECK(d.owner({1, 1}) == 3);
  CHECK(d.owner({2, 3}) == 1);
  CHECK(d.owner({5, 4}) == 2);
  // clang-format on
  // 3 x 2 grid, super-tiles 2 x 3, first owner at grid (1, 1).
  const BlockCyclic s(3, 2, 2, 3, {1, 1});
  // clang-format off
  //      tile        grid row (m/2+1)%3   grid col (n/3+1)%2   owner
  CHECK(s.owner({0, 0}) == 1 * 2 + 1);
  CHECK(s.owner({1, 2}) == 1 * 2 + 1);
  CHECK(s.owner({2, 3}) == 2 * 2 + 0);
  CHECK(s.owner({4, 5}) == 0 * 2 + 0);
  CHECK(s.owner({6, 6}) == 1 * 2 + 1);
  // clang-format on
  CHECK(s.grid() == Extents{3, 2});
  CHECK(s.super_tile() == Extents{2, 3});
  CHECK(s.first_owner() == GridCoord{1, 1});
  CHECK(s.coord_of(5) == GridCoord{2, 1});
  CHECK(s.rank_of({2, 1}) == 5);
}

TEST_CASE("BlockCyclic: random grids follow the formula and enumerate each tile once") {
  Rng rng(0xB10C);
  for (int c = 0; c < 400; ++c) {
    const int P = static_cast<int>(rng.in(1, 5)), Q = static_cast<int>(rng.in(1, 5));
    const index_t kp = rng.in(1, 4), kq = rng.in(1, 4);
    const GridCoord first{static_cast<int>(rng.in(0, P - 1)), static_cast<int>(rng.in(0, Q - 1))};
    const BlockCyclic d(P, Q, kp, kq, first);
    const TileBox box = random_box(rng);
    INFO("P=", P, " Q=", Q, " kp=", kp, " kq=", kq, " first=", first, " box ", box.begin, "..",
         box.end);
    REQUIRE(d.ranks() == P * Q);
    bool formula = true;
    for (index_t n = box.begin.n; n < box.end.n; ++n)
      for (index_t m = box.begin.m; m < box.end.m; ++m) {
        const int p = static_cast<int>((m / kp + first.p) % P),
                  q = static_cast<int>((n / kq + first.q) % Q);
        formula =
            formula && d.owner({m, n}) == p * Q + q && d.grid_row(m) == p && d.grid_col(n) == q;
      }
    CHECK(formula);
    CHECK(owners_in_range(d, box));
    check_enumeration(d, box);
  }
}

TEST_CASE("BlockCyclic: one-dimensional grids") {
  const BlockCyclic rows(1, 4), cols(4, 1);
  for (index_t m = 0; m < 9; ++m)
    for (index_t n = 0; n < 9; ++n) {
      CHECK(rows.owner({m, n}) == n % 4);
      CHECK(cols.owner({m, n}) == m % 4);
    }
}

TEST_CASE("BlockCyclic: invalid parameters name parameter and value") {
  // clang-format off
  struct Case { int P; int Q; index_t kp; index_t kq; GridCoord first; const char* names; };
  const Case cases[] = {
      //P   Q   kp  kq  first      message contains
      {0,  2,  1,  1,  {0, 0},    "P = 0"},
      {-3, 2,  1,  1,  {0, 0},    "P = -3"},
      {2,  0,  1,  1,  {0, 0},    "Q = 0"},
      {2,  2,  0,  1,  {0, 0},    "kp = 0"},
      {2,  2,  1,  -1, {0, 0},    "kq = -1"},
      {2,  2,  1,  1,  {2, 0},    "first.p = 2"},
      {2,  2,  1,  1,  {0, -1},   "first.q = -1"},
  };
  // clang-format on
  for (const Case& c : cases) {
    const std::string msg =
        message_of<distribution_error>([&] { BlockCyclic(c.P, c.Q, c.kp, c.kq, c.first); });
    INFO(msg);
    CHECK(contains(msg, c.names));
    CHECK(contains(msg, "redist: "));
  }
}

TEST_CASE("RandomDistribution: deterministic, roughly uniform, seed-dependent") {
  for (const int R : {1, 2, 3, 7, 16}) {
    INFO("ranks = ", R);
    const RandomDistribution a(R, 12345), b(R, 12345), other(R, 12346);
    constexpr index_t T = 120;  // 14400 tiles
    std::vector<index_t> counts(static_cast<std::size_t>(R), 0);
    index_t same = 0, differ = 0;
    for (index_t m = 0; m < T; ++m)
      for (index_t n = 0; n < T; ++n) {
        const int o = a.owner({m, n});
        same += o == b.owner({m, n});
        differ += o != other.owner({m, n});
        if (o >= 0 && o < R) ++counts[static_cast<std::size_t>(o)];
      }
    CHECK(same == T * T);  // two instances with one seed agree on every tile
    CHECK(owners_in_range(a, {{0, 0}, {T, T}}));
    // Chi-square against uniform: mean R - 1, standard deviation sqrt(2 (R - 1)); allow
    // 6 standard deviations (plus slack for R = 1).
    const double expected = static_cast<double>(T * T) / R;
    double chi2 = 0;
    for (index_t c : counts)
      chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
    CHECK(chi2 <= (R - 1) + 6 * std::sqrt(2.0 * (R - 1)) + 1);
    // Another seed gives another layout: about (R - 1) / R of the tiles move.
    const double moved = static_cast<double>(differ) / static_cast<double>(T * T);
    const double want = static_cast<double>(R - 1) / R;
    CHECK(moved >= want - 0.05);
    CHECK(moved <= want + 0.05);
    check_enumeration(a, {{3, 5}, {30, 21}});
  }
  // Neither the row nor the column alone decides the owner.
  const RandomDistribution d(8, 99);
  index_t row_changes = 0, col_changes = 0;
  for (index_t k = 0; k < 200; ++k) {
    row_changes += d.owner({k, 0}) != d.owner({k + 1, 0});
    col_changes += d.owner({0, k}) != d.owner({0, k + 1});
  }
  CHECK(row_changes > 150);
  CHECK(col_changes > 150);
  CHECK(d.seed() == 99u);
  CHECK(contains(message_of<distribution_error>([] { RandomDistribution(0, 1); }), "ranks = 0"));
}

TEST_CASE("BandDistribution: band tiles on the band grid at (m - n + B - 1, n)") {
  Rng rng(0xBA4D);
  for (int c = 0; c < 100; ++c) {
    const index_t B = rng.in(1, 5);
    const BlockCyclic band(static_cast<int>(rng.in(1, 4)), static_cast<int>(rng.in(1, 4)),
                           rng.in(1, 2), 1);
    const BlockCyclic off(static_cast<int>(rng.in(1, 4)), static_cast<int>(rng.in(1, 4)), 1,
                          rng.in(1, 2));
    const BandDistribution d(B, band, off);
    INFO("B = ", B);
    CHECK(d.band_width() == B);
    CHECK(d.ranks() == std::max(band.ranks(), off.ranks()));
    bool ok = true;
    index_t in_band = 0;
    for (index_t m = 0; m < 25; ++m)
      for (index_t n = 0; n < 25; ++n) {
        const bool near = (m > n ? m - n : n - m) < B;
        in_band += near;
        ok = ok && d.in_band({m, n}) == near &&
             d.owner({m, n}) == (near ? band.owner({m - n + B - 1, n}) : off.owner({m, n}));
      }
    CHECK(ok);
    CHECK(in_band == 25 + 2 * (B - 1) * 25 - (B - 1) * B);  // diagonals |d| < B of a 25 x 25
    CHECK(owners_in_range(d, {{0, 0}, {25, 25}}));
    check_enumeration(d, {{2, 1}, {19, 23}});
  }
  // B = 2 example of the header: band rows 1, 2, 0 for tiles (3,3), (4,3), (2,3).
  const BandDistribution d(2, BlockCyclic(3, 1), BlockCyclic(1, 1, 1, 1));
  CHECK(d.owner({3, 3}) == 1);
  CHECK(d.owner({4, 3}) == 2);
  CHECK(d.owner({2, 3}) == 0);
  CHECK(d.owner({5, 3}) == 0);
  CHECK(contains(message_of<distribution_error>(
                     [] { BandDistribution(0, BlockCyclic(1, 1), BlockCyclic(1, 1)); }),
                 "B = 0"));
}

TEST_CASE("OwnerTable: column-major owners and validation") {
  // 2 x 3 tiles, column-major: column 0 = {0, 1}, column 1 = {2, 2}, column 2 = {1, 0}.
  const OwnerTable t({2, 3}, {0, 1, 2, 2, 1, 0}, 3);
  CHECK(t.ranks() == 3);
  CHECK(t.tiles() == Extents{2, 3});
  // clang-format off
  //      tile        owner
  CHECK(t.owner({0, 0}) == 0);
  CHECK(t.owner({1, 0}) == 1);
  CHECK(t.owner({0, 1}) == 2);
  CHECK(t.owner({1, 2}) == 0);
  // clang-format on
  CHECK(owners_in_range(t, {{0, 0}, {2, 3}}));
  check_enumeration(t, {{0, 0}, {2, 3}});

  // clang-format off
  struct Case { Extents tiles; std::vector<int> owners; int ranks; const char* names; };
  const std::vector<Case> cases = {
      // tiles    owners                ranks  message contains
      {{2, 3},   {0, 1, 2, 2, 1},       3,     "owners.size() = 5"},
      {{2, 3},   {0, 1, 2, 2, 1, 0, 0}, 3,     "owners.size() = 7"},
      {{2, 2},   {0, 1, 3, 0},          3,     "owners[2] = 3"},
      {{2, 2},   {0, -1, 1, 0},         3,     "owners[1] = -1"},
      {{1, 1},   {0},                   0,     "ranks = 0"},
  };
  // clang-format on
  for (const Case& c : cases) {
    const std::string msg =
        message_of<distribution_error>([&] { OwnerTable(c.tiles, c.owners, c.ranks); });
    INFO(msg);
    CHECK(contains(msg, c.names));
  }
  CHECK(contains(message_of<distribution_error>([] {
                   OwnerTable({2, 2}, {0, 1, 3, 0}, 3);
                 }),
                 "ranks = 3"));
}

TEST_CASE("Layout: owner table must match the tile grid") {
  const Tiling shape{UniformAxis<>(10, 5), UniformAxis<>(9, 3)};  // 2 x 3 tiles
  const Layout ok(shape, OwnerTable({2, 3}, {0, 1, 1, 0, 0, 1}, 2));
  CHECK(ok.owner({1, 1}) == 0);
  CHECK(ok.tiles() == Extents{2, 3});
  const std::string msg = message_of<distribution_error>([&] {
    Layout(shape, OwnerTable({3, 2}, {0, 1, 1, 0, 0, 1}, 2));
  });
  INFO(msg);
  CHECK(contains(msg, "distribution.tiles() = 3x2"));
  CHECK(contains(msg, "tile grid = 2x3"));
}

TEST_CASE("Layout: the index map") {
  const Layout l(Tiling{UniformAxis<4>(10), UniformAxis<>(7, 3)}, BlockCyclic(2, 3));
  CHECK(l.extents() == Extents{10, 7});
  CHECK(l.tiles() == Extents{3, 3});
  CHECK(l.all_tiles() == TileBox{{0, 0}, {3, 3}});
  CHECK(l.ranks() == 6);
  CHECK(l.owner({2, 1}) == l.distribution().owner({2, 1}));
  CHECK(l.owner({2, 1}) == 1);
  CHECK(TileBox{{1, 1}, {1, 5}}.empty());
  CHECK(TileBox{{1, 1}, {3, 5}}.size() == 8);
}
