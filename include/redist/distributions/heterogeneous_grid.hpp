#pragma once
/// @file distributions/heterogeneous_grid.hpp
/// HeterogeneousGrid: the 1D-1D heterogeneous distribution on a P x Q grid, tile columns
/// dealt to the grid columns and, inside each, tile rows to its ranks, in proportion to
/// their powers, by PowerSequence (distributions/power_sequence.hpp). The family's table is
/// in distributions/heterogeneous.hpp.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/power_sequence.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>

namespace redist {

/// 1D-1D heterogeneous distribution on a P x Q grid (Nesi et al. 2023, section 3 and
/// Fig. 3, after Beaumont et al.): tile columns are dealt to the grid columns in proportion
/// to their summed powers, then inside grid column q the tile rows are dealt to its P
/// ranks in proportion to their own powers, both by the smooth rule. The row split
/// differs per grid column, so this is not a GridDistribution. With the constrained option
/// the last `tail` tile columns go to grid columns holding an allowed rank and, inside
/// each such grid column, the last `tail` tile rows to its allowed ranks: the trailing
/// tail x tail block, where a Cholesky factorization ends, is on allowed ranks only.
///
/// Example, 2 x 2, powers {1, 1, 3, 3} (ranks 0 1 / 2 3, row-major): columns alternate
/// between grid columns 0 and 1; in each, rows go 1:3 to grid rows 0 and 1:
/// rows 0..3 of column 0 are on ranks 2 2 0 2.
class HeterogeneousGrid {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @param powers one per rank, in rank order (rank_of(p, q) as `order` numbers them).
  /// @throws distribution_error naming the parameter and value: P or Q not positive,
  /// powers.size() != P * Q, a bad power or tail (see PowerSequence), a grid column whose
  /// powers are all zero while its summed power is used, a negative tile extent.
  constexpr HeterogeneousGrid(int P, int Q, std::vector<double> powers, Extents tiles,
                              TailConstraint constraint = {},
                              GridOrder order = GridOrder::row_major)
      : P_(P),
        Q_(Q),
        order_(order),
        tiles_(tiles),
        constraint_(std::move(constraint)),
        powers_(std::move(powers)),
        cols_(column_sequence()) {
    rows_.reserve(static_cast<std::size_t>(Q_));
    for (int q = 0; q < Q_; ++q) rows_.push_back(row_sequence(q));
  }

  constexpr int ranks() const { return P_ * Q_; }
  constexpr Extents grid() const { return {P_, Q_}; }
  constexpr GridOrder order() const { return order_; }
  constexpr Extents tiles() const { return tiles_; }
  constexpr const std::vector<double>& powers() const { return powers_; }
  constexpr const TailConstraint& constraint() const { return constraint_; }
  /// The sequence of tile columns over grid columns, and of tile rows inside grid column q.
  constexpr const PowerSequence& column_sequence_of() const { return cols_; }
  constexpr const PowerSequence& row_sequence_of(int q) const {
    return rows_[static_cast<std::size_t>(q)];
  }
  constexpr int rank_of(GridCoord g) const {
    return order_ == GridOrder::row_major ? g.p * Q_ + g.q : g.q * P_ + g.p;
  }
  constexpr GridCoord coord_of(int rank) const {
    return order_ == GridOrder::row_major ? GridCoord{rank / Q_, rank % Q_}
                                          : GridCoord{rank % P_, rank / P_};
  }
  /// @pre t inside tiles().
  constexpr int owner(TileIndex t) const {
    const int q = cols_.owner(t.n);
    return rank_of({rows_[static_cast<std::size_t>(q)].owner(t.m), q});
  }
  /// Tiles of rank r over the whole grid.
  constexpr index_t tile_count(int r) const {
    if (r < 0 || r >= ranks()) return 0;
    const GridCoord g = coord_of(r);
    return cols_.count(g.q) * rows_[static_cast<std::size_t>(g.q)].count(g.p);
  }

  /// Visits the tiles of `box` owned by `rank`, column by column, in O(owned + log).
  template <class F>
  constexpr void for_each_owned(int rank, TileBox box, F&& f) const {
    if (rank < 0 || rank >= ranks() || box.empty()) return;
    const GridCoord g = coord_of(rank);
    const PowerSequence& rows = rows_[static_cast<std::size_t>(g.q)];
    const index_t m0 = box.begin.m > 0 ? box.begin.m : 0;
    const index_t m1 = box.end.m < tiles_.rows ? box.end.m : tiles_.rows;
    const index_t n0 = box.begin.n > 0 ? box.begin.n : 0;
    const index_t n1 = box.end.n < tiles_.cols ? box.end.n : tiles_.cols;
    cols_.for_each_position(g.q, n0, n1, [&](index_t n) {
      rows.for_each_position(g.p, m0, m1, [&](index_t m) { f(TileIndex{m, n}); });
    });
  }

  /// Exact: grid, order, tile grid, powers and constraint.
  constexpr std::uint64_t fingerprint() const {
    detail::Hasher h(0x31443144ull);  // "1D1D"
    h.add(P_).add(Q_).add(static_cast<int>(order_)).add(tiles_.rows).add(tiles_.cols);
    for (double w : powers_) h.add(std::bit_cast<std::uint64_t>(w));
    h.add(constraint_.tail).add(static_cast<std::uint64_t>(constraint_.allowed.size()));
    for (int a : constraint_.allowed) h.add(a);
    return h.value();
  }
  friend constexpr bool operator==(const HeterogeneousGrid& a, const HeterogeneousGrid& b) {
    return a.P_ == b.P_ && a.Q_ == b.Q_ && a.order_ == b.order_ && a.tiles_ == b.tiles_ &&
           a.powers_ == b.powers_ && a.constraint_ == b.constraint_;
  }

 private:
  constexpr PowerSequence column_sequence() const {
    if (P_ <= 0) throw distribution_error(detail::describe("grid rows must be positive", "P", P_));
    if (Q_ <= 0)
      throw distribution_error(detail::describe("grid columns must be positive", "Q", Q_));
    (void)detail::checked_mul_int<distribution_error>(P_, Q_, "P * Q");
    if (static_cast<index_t>(powers_.size()) != index_t{P_} * Q_)
      throw distribution_error(detail::describe("one power per rank of the grid is needed",
                                                "powers.size()", powers_.size()) +
                               " (P x Q = " + std::to_string(P_) + "x" + std::to_string(Q_) + ")");
    detail::check_powers(powers_, "powers");
    if (tiles_.rows < 0 || tiles_.cols < 0)
      throw distribution_error(detail::describe("tile grid must be non-negative", "tiles", tiles_));
    std::vector<double> sums(static_cast<std::size_t>(Q_), 0.0);
    for (int q = 0; q < Q_; ++q)
      for (int p = 0; p < P_; ++p) sums[static_cast<std::size_t>(q)] += power(p, q);
    TailConstraint c;
    if (constraint_.tail != 0) {
      c.tail = constraint_.tail;
      for (std::size_t k = 0; k < constraint_.allowed.size(); ++k) {
        const int a = constraint_.allowed[k];
        if (a < 0 || a >= ranks())
          throw distribution_error(detail::describe("allowed rank outside the grid",
                                                    "allowed[" + std::to_string(k) + "]", a) +
                                   " (ranks = " + std::to_string(ranks()) + ")");
        const int q = coord_of(a).q;
        bool seen = false;
        for (int x : c.allowed) seen = seen || x == q;
        if (!seen) c.allowed.push_back(q);
      }
    }
    return PowerSequence(std::move(sums), tiles_.cols, std::move(c));
  }

  constexpr PowerSequence row_sequence(int q) const {
    std::vector<double> w(static_cast<std::size_t>(P_));
    double sum = 0;
    for (int p = 0; p < P_; ++p) sum += (w[static_cast<std::size_t>(p)] = power(p, q));
    // A grid column with no power gets no tile column; its rows are dealt evenly (unused).
    if (!(sum > 0)) w.assign(static_cast<std::size_t>(P_), 1.0);
    TailConstraint c;
    if (constraint_.tail != 0)
      for (int a : constraint_.allowed)
        if (coord_of(a).q == q && w[static_cast<std::size_t>(coord_of(a).p)] > 0)
          c.allowed.push_back(coord_of(a).p);
    if (c.allowed.empty()) return PowerSequence(balanced_row_weights(q, std::move(w)), tiles_.rows);
    c.tail = constraint_.tail;
    try {
      return PowerSequence(std::move(w), tiles_.rows, std::move(c));
    } catch (const distribution_error& e) {
      throw distribution_error(std::string(e.what()) + " in grid column " + std::to_string(q));
    }
  }

  constexpr double power(int p, int q) const {
    return powers_[static_cast<std::size_t>(rank_of({p, q}))];
  }

  /// The weights that deal grid column q's tile rows: its ranks' powers, unless another
  /// choice of floor or ceiling of their shares brings the rank furthest from its ideal
  /// number of tiles (of the whole grid, rows x cols x w / W) nearer: then those counts.
  /// The column's tile-column count is rounded already, so rounding the rows by the powers
  /// alone can compound the two errors. Example: 2 x 2, powers 1, 1, 9.4, 9.8, 50 x 50
  /// tiles: grid column 0 gets 25 tile columns; by power its rows split 4 : 46 and rank 0
  /// holds 100 tiles for an ideal 117.9 (-15 %); 5 : 45 gives 125 (+6 %).
  /// @post each part's count stays the floor or the ceiling of its share of the rows.
  constexpr std::vector<double> balanced_row_weights(int q, std::vector<double> w) const {
    const index_t rows = tiles_.rows, cols = cols_.count(q);
    double sum = 0, total = 0;
    for (double x : w) sum += x;
    for (double x : powers_) total += x;
    if (rows == 0 || cols == 0 || !(sum > 0) || !(total > 0)) return w;
    // Per part with power: the floor of its share of the rows, whether it has a choice
    // (a fractional share), and the relative tile error of the floor and of the ceiling
    // against its ideal rows x cols x w / total.
    struct Part {
      index_t low = 0, count = 0, by_power = 0;
      double rest = 0, err_low = 0, err_high = 0;
      bool choice = false;
    };
    std::vector<Part> part(w.size());
    index_t ceilings = rows;
    for (std::size_t p = 0; p < w.size(); ++p) {
      if (!(w[p] > 0)) continue;
      Part& a = part[p];
      const double share = static_cast<double>(rows) * (w[p] / sum);
      a.low = a.count = static_cast<index_t>(share);
      a.rest = share - static_cast<double>(a.low);
      a.choice = a.rest > 0;
      ceilings -= a.low;
      const double ideal =
          static_cast<double>(rows) * static_cast<double>(tiles_.cols) * (w[p] / total);
      const auto err = [&](index_t r) {
        const double d = static_cast<double>(r * cols) - ideal;
        return (d < 0 ? -d : d) / ideal;
      };
      a.err_low = err(a.low);
      a.err_high = err(a.low + 1);
    }
    // The counts the powers give (the smooth rule's own) and their worst error.
    std::vector<int> seq;
    detail::smooth_sequence(w, rows, seq);
    for (int p : seq) ++part[static_cast<std::size_t>(p)].by_power;
    double worst_by_power = 0;
    for (std::size_t p = 0; p < w.size(); ++p)
      if (w[p] > 0)
        worst_by_power = std::max(
            worst_by_power, part[p].by_power > part[p].low ? part[p].err_high : part[p].err_low);
    // The least bound t under which `ceilings` parts can take their ceiling: a part whose
    // floor errs by more than t must, one whose ceiling does may not. It is one of the
    // errors: try them in increasing order.
    const auto feasible = [&](double t) {
      index_t must = 0, may = 0;
      for (const Part& a : part) {
        if (!a.choice) continue;
        const bool up = a.err_low > t, down = a.err_high > t;
        if (up && down) return false;
        must += up;
        may += !down;
      }
      return must <= ceilings && ceilings <= may;
    };
    double best = -1;
    for (const Part& a : part)
      for (const double t : {a.err_low, a.err_high})
        if ((best < 0 || t < best) && feasible(t)) best = t;
    // Keep the powers where they are as good (the usual case, equal powers included).
    if (best < 0 || worst_by_power <= best * (1 + 1e-12)) return w;
    // Ceilings: first the parts that need one, then the largest remainders (lower first).
    index_t left = ceilings;
    for (Part& a : part)
      if (a.choice && a.err_low > best) ++a.count, --left;
    for (; left > 0; --left) {
      Part* pick = nullptr;
      for (Part& a : part)
        if (a.choice && a.count == a.low && a.err_high <= best && (!pick || a.rest > pick->rest))
          pick = &a;
      ++pick->count;
    }
    for (std::size_t p = 0; p < w.size(); ++p) w[p] = static_cast<double>(part[p].count);
    return w;
  }

  int P_;
  int Q_;
  GridOrder order_;
  Extents tiles_;
  TailConstraint constraint_;
  std::vector<double> powers_;
  PowerSequence cols_;
  std::vector<PowerSequence> rows_;
};

}  // namespace redist
