// Tests of the heterogeneous distributions (distributions/heterogeneous.hpp): the smooth
// sequence keeps every prefix within one tile of the ideal for random powers, totals are
// quotas, equal powers are block-cyclic, 1D-1D deals columns by grid-column sums and rows by
// the powers inside each grid column, the constrained tail holds only allowed ranks, every
// model enumerates exactly its own tiles, everything is constexpr, and bad input throws
// distribution_error naming the parameter and its value.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/heterogeneous.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;
using test::Rng;

// The headers' worked examples, in constant expressions.
static_assert([] {
  const PowerSequence s({3, 1}, 8);
  return s.owner(0) == 0 && s.owner(3) == 1 && s.owner(7) == 1 && s.count(1) == 2;
}());
static_assert([] {
  const Heterogeneous1D d(Axis::row, {2, 1, 1}, {8, 3});
  const int want[8] = {0, 1, 0, 2, 0, 1, 0, 2};
  for (index_t m = 0; m < 8; ++m)
    if (d.owner({m, 2}) != want[m] || d.grid_row(m) != want[m]) return false;
  return d.tile_count(0) == 12;
}());
static_assert([] {
  const HeterogeneousGrid g(2, 2, {1, 1, 3, 3}, {8, 8});
  return g.owner({0, 0}) == 2 && g.owner({1, 0}) == 2 && g.owner({2, 0}) == 0 &&
         g.owner({3, 0}) == 2 && g.owner({0, 1}) == 3 && g.owner({2, 1}) == 1;
}());
static_assert(Distribution<HeterogeneousGrid> && EnumeratesOwnedTiles<HeterogeneousGrid> &&
              OwnersInRange<HeterogeneousGrid> && BoundedDistribution<HeterogeneousGrid>);
static_assert(!GridDistribution<HeterogeneousGrid>);  // the row split differs per grid column
static_assert(Distribution<Heterogeneous1D> && EnumeratesOwnedTiles<Heterogeneous1D> &&
              GridDistribution<Heterogeneous1D> && BoundedDistribution<Heterogeneous1D>);

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::vector<double> random_powers(Rng& rng, int n) {
  std::vector<double> w(static_cast<std::size_t>(n));
  for (double& x : w) {
    const index_t kind = rng.in(0, 3);
    x = kind == 0   ? 0.0                                           // idle rank
        : kind == 1 ? static_cast<double>(rng.in(1, 20))            // integer
                    : static_cast<double>(rng.in(1, 1000000)) / 7;  // real
  }
  if (std::all_of(w.begin(), w.end(), [](double x) { return x == 0; })) w[0] = 1;
  return w;
}

/// Largest |c_r(k) - k * w_r / sum(w)| over every prefix k of `owner(0..length)` and part r.
template <class Owner>
double prefix_deviation(const std::vector<double>& w, index_t length, Owner&& owner) {
  double sum = 0;
  for (double x : w) sum += x;
  std::vector<index_t> c(w.size(), 0);
  double worst = 0;
  for (index_t k = 1; k <= length; ++k) {
    ++c[static_cast<std::size_t>(owner(k - 1))];
    for (std::size_t r = 0; r < w.size(); ++r)
      worst = std::max(worst,
                       std::abs(static_cast<double>(c[r]) - static_cast<double>(k) * w[r] / sum));
  }
  return worst;
}

/// for_each_owned_tile over all ranks visits every tile of `box` once, at its owner, column
/// by column, and each rank's visits match a scan.
template <class D>
bool enumerates_exactly(const D& d, TileBox box) {
  index_t visited = 0;
  for (int r = -1; r <= d.ranks(); ++r) {
    std::vector<TileIndex> got, want;
    for_each_owned_tile(d, r, box, [&](TileIndex t) { got.push_back(t); });
    for (index_t n = box.begin.n; n < box.end.n; ++n)
      for (index_t m = box.begin.m; m < box.end.m; ++m)
        if (d.owner({m, n}) == r) want.push_back({m, n});
    if (got != want) return false;
    visited += static_cast<index_t>(got.size());
  }
  return visited == box.size();
}

}  // namespace

TEST_CASE("PowerSequence: every prefix within one tile of the ideal, totals are quotas") {
  Rng rng(0x4E45u);
  double worst = 0;
  for (int c = 0; c < 300; ++c) {
    const int parts = static_cast<int>(rng.in(1, 9));
    const std::vector<double> w = random_powers(rng, parts);
    const index_t length = rng.in(0, 300);
    const PowerSequence s(w, length);
    INFO("case ", c, " parts ", parts, " length ", length);
    const double dev = prefix_deviation(w, length, [&](index_t k) { return s.owner(k); });
    CHECK(dev < 1.0 + 1e-9);
    worst = std::max(worst, dev);
    double sum = 0;
    for (double x : w) sum += x;
    index_t total = 0;
    for (int r = 0; r < parts; ++r) {
      const double ideal = static_cast<double>(length) * w[static_cast<std::size_t>(r)] / sum;
      CHECK(static_cast<double>(s.count(r)) > ideal - 1);
      CHECK(static_cast<double>(s.count(r)) < ideal + 1);
      if (w[static_cast<std::size_t>(r)] == 0) CHECK(s.count(r) == 0);
      total += s.count(r);
      // Positions of r, in order, from any window.
      const index_t lo = rng.in(0, length), hi = rng.in(lo, length);
      std::vector<index_t> got, want;
      s.for_each_position(r, lo, hi, [&](index_t k) { got.push_back(k); });
      for (index_t k = lo; k < hi; ++k)
        if (s.owner(k) == r) want.push_back(k);
      CHECK(got == want);
    }
    CHECK(total == length);
  }
  MESSAGE("largest prefix deviation over 300 random sequences: ", worst);
}

TEST_CASE("Heterogeneous: equal powers are block-cyclic") {
  for (const auto order : {GridOrder::row_major, GridOrder::column_major})
    for (int P = 1; P <= 3; ++P)
      for (int Q = 1; Q <= 3; ++Q) {
        const HeterogeneousGrid h(P, Q, std::vector<double>(static_cast<std::size_t>(P * Q), 2.5),
                                  {11, 7}, {}, order);
        const BlockCyclic bc(P, Q, 1, 1, {}, order);
        bool same = true;
        for (index_t m = 0; m < 11; ++m)
          for (index_t n = 0; n < 7; ++n) same = same && h.owner({m, n}) == bc.owner({m, n});
        CHECK(same);
      }
  const Heterogeneous1D rows(Axis::row, {1, 1, 1}, {7, 4}), cols(Axis::col, {1, 1, 1}, {7, 4});
  for (index_t m = 0; m < 7; ++m)
    for (index_t n = 0; n < 4; ++n) {
      CHECK(rows.owner({m, n}) == BlockCyclic(3, 1).owner({m, n}));
      CHECK(cols.owner({m, n}) == BlockCyclic(1, 3).owner({m, n}));
    }
}

TEST_CASE("Heterogeneous1D: rows or columns by power, a grid distribution") {
  Rng rng(0x1D1Du);
  for (int c = 0; c < 60; ++c) {
    const int P = static_cast<int>(rng.in(1, 6));
    const std::vector<double> w = random_powers(rng, P);
    const Extents tiles{rng.in(1, 40), rng.in(1, 40)};
    const Axis axis = rng.chance(50) ? Axis::row : Axis::col;
    const Heterogeneous1D d(axis, w, tiles);
    INFO("case ", c);
    bool grid = true;
    for (index_t m = 0; m < tiles.rows; ++m)
      for (index_t n = 0; n < tiles.cols; ++n)
        grid = grid && d.owner({m, n}) == d.rank_of({d.grid_row(m), d.grid_col(n)}) &&
               d.owner({m, n}) == d.sequence().owner(axis == Axis::row ? m : n);
    CHECK(grid);
    CHECK(d.grid() == (axis == Axis::row ? Extents{P, 1} : Extents{1, P}));
    index_t sum = 0;
    for (int r = 0; r < P; ++r) sum += d.tile_count(r);
    CHECK(sum == tiles.size());
    const index_t m0 = rng.in(0, tiles.rows), n0 = rng.in(0, tiles.cols);
    CHECK(enumerates_exactly(d, {{m0, n0}, {rng.in(m0, tiles.rows), rng.in(n0, tiles.cols)}}));
  }
}

TEST_CASE("HeterogeneousGrid (1D-1D): columns by grid-column sums, rows by power, balanced") {
  Rng rng(0x1D1D2u);
  for (int c = 0; c < 80; ++c) {
    const int P = static_cast<int>(rng.in(1, 4)), Q = static_cast<int>(rng.in(1, 4));
    const std::vector<double> w = random_powers(rng, P * Q);
    const Extents tiles{rng.in(1, 50), rng.in(1, 50)};
    const auto order = rng.chance(50) ? GridOrder::row_major : GridOrder::column_major;
    const HeterogeneousGrid g(P, Q, w, tiles, {}, order);
    INFO("case ", c, ": ", P, "x", Q, " tiles ", tiles);
    // Tile columns: every prefix within one column of each grid column's share.
    std::vector<double> sums(static_cast<std::size_t>(Q), 0.0);
    for (int r = 0; r < P * Q; ++r)
      sums[static_cast<std::size_t>(g.coord_of(r).q)] += w[static_cast<std::size_t>(r)];
    CHECK(prefix_deviation(sums, tiles.cols, [&](index_t n) {
            return g.coord_of(g.owner({0, n})).q;
          }) < 1.0 + 1e-9);
    // Tile rows inside each tile column: each rank of the grid column gets the floor or
    // the ceiling of its power's share of the rows, dealt by the smooth rule over the powers
    // or, where other counts balance the totals better, over those counts: within one row
    // of the one and two of the other (grid columns without power get no tile column).
    bool rows_ok = true;
    for (index_t n = 0; n < tiles.cols; ++n) {
      const int q = g.coord_of(g.owner({0, n})).q;
      const double s = sums[static_cast<std::size_t>(q)];
      std::vector<double> counts(static_cast<std::size_t>(P)), col(static_cast<std::size_t>(P));
      for (int p = 0; p < P; ++p) {
        col[static_cast<std::size_t>(p)] = w[static_cast<std::size_t>(g.rank_of({p, q}))];
        const index_t c = g.row_sequence_of(q).count(p);
        counts[static_cast<std::size_t>(p)] = static_cast<double>(c);
        const double share = static_cast<double>(tiles.rows) * col[static_cast<std::size_t>(p)] / s;
        rows_ok = rows_ok && std::abs(static_cast<double>(c) - share) < 1.0;
      }
      const auto row_owner = [&](index_t m) { return g.coord_of(g.owner({m, n})).p; };
      const double by_power = prefix_deviation(col, tiles.rows, row_owner);
      const double by_count = prefix_deviation(counts, tiles.rows, row_owner);
      rows_ok =
          rows_ok && s > 0 && std::min(by_power, by_count) < 1.0 + 1e-9 && by_power < 2.0 + 1e-9;
    }
    CHECK(rows_ok);
    // Per rank, tile counts of every leading k x k block are within the errors of the two
    // axes of the ideal k^2 w_r / W.
    double W = 0;
    for (double x : w) W += x;
    std::vector<index_t> count(static_cast<std::size_t>(P * Q), 0);
    bool leading_ok = true;
    const index_t K = std::min(tiles.rows, tiles.cols);
    for (index_t k = 1; k <= K; ++k) {
      // Add row k-1 (columns 0..k-2) and column k-1 (rows 0..k-1).
      for (index_t n = 0; n + 1 < k; ++n) ++count[static_cast<std::size_t>(g.owner({k - 1, n}))];
      for (index_t m = 0; m < k; ++m) ++count[static_cast<std::size_t>(g.owner({m, k - 1}))];
      for (int r = 0; r < P * Q; ++r) {
        const double s = sums[static_cast<std::size_t>(g.coord_of(r).q)];
        const double x = w[static_cast<std::size_t>(r)];
        const double ideal = static_cast<double>(k * k) * x / W;
        // cols(k) = k s / W + e1 with |e1| < 1; rows(k) = k x / s + e2 with |e2| < 2 (within
        // one of the count's share, and the count within one of the power's).
        const double bound = s > 0 ? static_cast<double>(k) * (x / s + 2 * s / W) + 2 : 0;
        leading_ok = leading_ok &&
                     std::abs(static_cast<double>(count[static_cast<std::size_t>(r)]) - ideal) <=
                         bound + 1e-9;
      }
    }
    CHECK(leading_ok);
    index_t total = 0;
    for (int r = 0; r < P * Q; ++r) total += g.tile_count(r);
    CHECK(total == tiles.size());
    const index_t m0 = rng.in(0, tiles.rows), n0 = rng.in(0, tiles.cols);
    CHECK(enumerates_exactly(g, {{m0, n0}, {rng.in(m0, tiles.rows), rng.in(n0, tiles.cols)}}));
  }
}

TEST_CASE("HeterogeneousGrid: row counts minimise the worst relative error of the tile totals") {
  // The case: by power alone grid column 0 (25 tile columns) splits its 50 rows
  // 4 : 46 and rank 0 holds 100 tiles for an ideal 117.9 (-15 %); 5 : 45 gives 125 (+6 %).
  const HeterogeneousGrid g(2, 2, {1, 1, 9.4, 9.8}, {50, 50});
  REQUIRE(g.column_sequence_of().count(0) == 25);
  CHECK(g.row_sequence_of(0).count(0) == 5);
  CHECK(g.tile_count(0) == 125);
  // Over random grids: no other choice of floors and ceilings of the power shares (summing
  // to the rows) has a smaller worst relative error, brute force over every choice.
  Rng rng(0x5EEDu);
  for (int c = 0; c < 200; ++c) {
    const int P = static_cast<int>(rng.in(1, 4)), Q = static_cast<int>(rng.in(1, 3));
    const std::vector<double> w = random_powers(rng, P * Q);
    const Extents tiles{rng.in(1, 60), rng.in(1, 60)};
    const HeterogeneousGrid h(P, Q, w, tiles);
    double W = 0;
    for (double x : w) W += x;
    for (int q = 0; q < Q; ++q) {
      const index_t cols = h.column_sequence_of().count(q);
      double s = 0;
      for (int p = 0; p < P; ++p) s += w[static_cast<std::size_t>(h.rank_of({p, q}))];
      if (cols == 0 || !(s > 0)) continue;
      const auto worst = [&](const std::vector<index_t>& rows) {
        double e = 0;
        for (int p = 0; p < P; ++p) {
          const double x = w[static_cast<std::size_t>(h.rank_of({p, q}))];
          if (!(x > 0)) continue;
          const double ideal = static_cast<double>(tiles.size()) * x / W;
          e = std::max(
              e, std::abs(static_cast<double>(rows[static_cast<std::size_t>(p)] * cols) - ideal) /
                     ideal);
        }
        return e;
      };
      std::vector<index_t> chosen(static_cast<std::size_t>(P));
      for (int p = 0; p < P; ++p)
        chosen[static_cast<std::size_t>(p)] = h.row_sequence_of(q).count(p);
      double best = 1e300;
      for (unsigned mask = 0; mask < (1u << P); ++mask) {
        std::vector<index_t> rows(static_cast<std::size_t>(P));
        index_t total = 0;
        bool ok = true;
        for (int p = 0; p < P; ++p) {
          const double x = w[static_cast<std::size_t>(h.rank_of({p, q}))];
          const double share = static_cast<double>(tiles.rows) * x / s;
          const auto lo = static_cast<index_t>(share);
          const bool up = (mask >> p) & 1u;
          ok = ok && (!up || (x > 0 && share != static_cast<double>(lo)));
          rows[static_cast<std::size_t>(p)] = lo + (up ? 1 : 0);
          total += rows[static_cast<std::size_t>(p)];
        }
        if (ok && total == tiles.rows) best = std::min(best, worst(rows));
      }
      INFO("case ", c, ": ", P, "x", Q, " tiles ", tiles, " grid column ", q);
      CHECK(worst(chosen) <= best * (1 + 1e-9) + 1e-12);
    }
  }
}

TEST_CASE("Heterogeneous: the constrained tail holds only allowed ranks, totals unchanged") {
  // 4 ranks: 0, 1 slow (no GPU), 2, 3 fast; the last 10 of 40 positions on 2 and 3 only.
  const std::vector<double> w{1, 1, 4, 4};
  const PowerSequence free(w, 40), tail(w, 40, {10, {2, 3}});
  for (int r = 0; r < 4; ++r) CHECK(tail.count(r) == free.count(r));
  for (index_t k = 30; k < 40; ++k) CHECK(tail.owner(k) >= 2);
  // The head and the tail are each balanced within one of their own ideal.
  CHECK(prefix_deviation({4, 4, 11, 11}, 30, [&](index_t k) { return tail.owner(k); }) < 1.0);
  CHECK(prefix_deviation({0, 0, 1, 1}, 10, [&](index_t k) { return tail.owner(30 + k); }) < 1.0);

  // A tail as long as the allowed ranks' whole share: the head holds only the others.
  const PowerSequence whole({1, 1, 1, 7}, 20, {16, {1, 3}});
  CHECK(whole.count(1) == 2);
  CHECK(whole.count(3) == 14);
  for (index_t k = 0; k < 4; ++k) CHECK((whole.owner(k) == 0 || whole.owner(k) == 2));
  for (index_t k = 4; k < 20; ++k) CHECK((whole.owner(k) == 1 || whole.owner(k) == 3));
  CHECK(contains(message_of<distribution_error>([] {
                   PowerSequence({1, 1, 1, 7}, 20, {17, {1, 3}});
                 }),
                 "tail = 17 (their share = 16 of 20)"));

  // 1D-1D: the trailing tail x tail block is on allowed ranks only.
  Rng rng(0x7A11u);
  int built = 0;
  for (int c = 0; c < 60; ++c) {
    const int P = static_cast<int>(rng.in(1, 3)), Q = static_cast<int>(rng.in(1, 3));
    std::vector<double> pw = random_powers(rng, P * Q);
    const index_t L = rng.in(8, 40);
    std::vector<int> allowed;
    for (int r = 0; r < P * Q; ++r)
      if (pw[static_cast<std::size_t>(r)] > 0 && rng.chance(50)) allowed.push_back(r);
    if (allowed.empty()) continue;
    const index_t t = rng.in(1, L / 3);
    std::optional<HeterogeneousGrid> g;
    try {
      g.emplace(P, Q, pw, Extents{L, L}, TailConstraint{t, allowed});
    } catch (const distribution_error& e) {
      // Only when some grid column's allowed ranks hold fewer than t of its rows.
      CHECK(contains(e.what(), "tail = " + std::to_string(t)));
      continue;
    }
    ++built;
    const HeterogeneousGrid plain(P, Q, pw, {L, L});
    INFO("case ", c, ": tail ", t);
    bool ok = true;
    for (index_t m = L - t; m < L; ++m)
      for (index_t n = L - t; n < L; ++n)
        ok = ok && std::find(allowed.begin(), allowed.end(), g->owner({m, n})) != allowed.end();
    CHECK(ok);
    // Every axis keeps its totals: the same tile columns per grid column as unconstrained.
    for (int q = 0; q < Q; ++q)
      CHECK(g->column_sequence_of().count(q) == plain.column_sequence_of().count(q));
    CHECK(enumerates_exactly(*g, {{0, 0}, {L, L}}));
  }
  CHECK(built >= 20);
  CHECK(contains(message_of<distribution_error>([] {
                   HeterogeneousGrid(2, 1, {9, 1}, {10, 10}, {5, {1}});
                 }),
                 "tail = 5 (their share = 1 of 10) in grid column 0"));
}

TEST_CASE("Heterogeneous: bad input names the parameter and its value") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // clang-format off
  struct Case { std::vector<double> powers; index_t length; TailConstraint tail; const char* names; };
  const std::vector<Case> cases = {
      // powers          length  tail            message contains
      {{1, -2, 3},       10,     {},             "powers[1] = -2"},
      {{1, nan},         10,     {},             "powers[1] = nan"},
      {{inf, 1},         10,     {},             "powers[0] = inf"},
      {{0, 0},           10,     {},             "sum(powers) = 0"},
      {{},               10,     {},             "powers.size() = 0"},
      {{1, 1},           -1,     {},             "length = -1"},
      {{1, 1},           10,     {11, {0}},      "tail = 11"},
      {{1, 1},           10,     {-1, {0}},      "tail = -1"},
      {{1, 1},           10,     {3, {}},        "allowed.size() = 0"},
      {{1, 1},           10,     {3, {2}},       "allowed[0] = 2"},
      {{1, 9},           10,     {3, {0}},       "tail = 3"},
  };
  // clang-format on
  for (const Case& c : cases) {
    const std::string msg =
        message_of<distribution_error>([&] { PowerSequence(c.powers, c.length, c.tail); });
    INFO(msg);
    CHECK(contains(msg, c.names));
    CHECK(contains(msg, "redist: "));
  }
  CHECK(contains(message_of<distribution_error>([] {
                   HeterogeneousGrid(2, 2, {1, 2, 3}, {4, 4});
                 }),
                 "powers.size() = 3 (P x Q = 2x2)"));
  CHECK(contains(message_of<distribution_error>([] {
                   HeterogeneousGrid(0, 2, {1, 2}, {4, 4});
                 }),
                 "P = 0"));
  CHECK(contains(message_of<distribution_error>([] {
                   HeterogeneousGrid(2, 2, {1, 1, 1, -1}, {4, 4});
                 }),
                 "powers[3] = -1"));
  CHECK(contains(message_of<distribution_error>([] {
                   HeterogeneousGrid(1, 2, {1, 1}, {4, 4}, {2, {5}});
                 }),
                 "allowed[0] = 5"));
  CHECK(contains(message_of<distribution_error>([] {
                   Heterogeneous1D(Axis::row, {1, 1}, {-1, 4});
                 }),
                 "tiles = -1x4"));
  // Bounded: the layout's tile grid must be the distribution's.
  const Tiling shape{UniformAxis<>(100, 10), UniformAxis<>(90, 10)};  // 10 x 9 tiles
  CHECK(Layout(shape, HeterogeneousGrid(2, 2, {1, 2, 3, 4}, {10, 9})).owner({9, 8}) >= 0);
  CHECK(contains(message_of<distribution_error>([&] {
                   Layout(shape, Heterogeneous1D(Axis::col, {1, 2}, {10, 10}));
                 }),
                 "distribution.tiles() = 10x10"));
}

TEST_CASE("Heterogeneous: fingerprints follow the parameters") {
  const HeterogeneousGrid a(2, 2, {1, 2, 3, 4}, {10, 10}), b(2, 2, {1, 2, 3, 4}, {10, 10});
  CHECK(a.fingerprint() == b.fingerprint());
  CHECK(a == b);
  CHECK(a.fingerprint() != HeterogeneousGrid(2, 2, {1, 2, 3, 5}, {10, 10}).fingerprint());
  CHECK(a.fingerprint() != HeterogeneousGrid(2, 2, {1, 2, 3, 4}, {10, 10}, {2, {3}}).fingerprint());
  CHECK(a.fingerprint() !=
        HeterogeneousGrid(2, 2, {1, 2, 3, 4}, {10, 10}, {}, GridOrder::column_major).fingerprint());
  const Heterogeneous1D r(Axis::row, {1, 2}, {5, 5}), c(Axis::col, {1, 2}, {5, 5});
  CHECK(r.fingerprint() != c.fingerprint());
}

TEST_CASE("apportion: largest remainders, floor or ceiling of each share") {
  CHECK(apportion(1275, {0.05, 0.05, 0.44, 0.46}) == std::vector<index_t>{64, 64, 561, 586});
  CHECK(apportion(10, {1, 1, 1}) == std::vector<index_t>{4, 3, 3});
  CHECK(apportion(0, {1, 2}) == std::vector<index_t>{0, 0});
  CHECK(contains(message_of<distribution_error>([] { apportion(5, {1, -1}); }), "shares[1] = -1"));
  CHECK(contains(message_of<distribution_error>([] { apportion(-5, {1, 1}); }), "total = -5"));
}
