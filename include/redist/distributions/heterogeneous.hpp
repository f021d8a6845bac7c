#pragma once
/// @file distributions/heterogeneous.hpp
/// Heterogeneous distributions from per-rank powers (Nesi et al. 2023, sections 3 and 4.4):
/// nodes of different speeds get tiles in proportion to their relative power, spread
/// smoothly so that every prefix of tile rows (columns) is balanced, as the factorization
/// eats the matrix from the top left.
///
/// | type              | owner of tile (m, n)                       | models                |
/// |-------------------|--------------------------------------------|-----------------------|
/// | PowerSequence     | (one axis) position k -> part seq(k)       | (building block)      |
/// | Heterogeneous1D   | rows: seq(m); columns: seq(n) (Diodon's 1D | Distribution, Grid-,  |
/// |                   | heterogeneous distribution)                | Bounded-, Enumerates- |
/// | HeterogeneousGrid | q = cols(n), p = rows_q(m), rank_of(p, q)  | Distribution,         |
/// |                   | (1D-1D, Nesi et al. 2023, Fig. 3)          | Bounded-, Enumerates- |
///
/// The smooth sequence. Part r has power w_r >= 0, share x_r = w_r / sum(w). Position k
/// (k = 1, 2, ...) goes to the part with the earliest deadline (c_r + 1) / x_r among the
/// parts still behind, c_r < k x_r, where c_r counts r's positions so far (Tijdeman's
/// "chairman assignment"; ties go to the lower index). Then for every prefix of k
/// positions and every part
///
///     |c_r(k) - k x_r| < 1          (checked over random powers in test_heterogeneous.cpp)
///
/// so every prefix is within one tile of the ideal, and the whole axis gives r floor or ceil
/// of length * x_r positions. Example, powers {3, 1}: 0 0 0 1 | 0 0 0 1 | ... (a quarter
/// of the positions to part 1; ties go to the lower index). Equal powers give the cyclic sequence
/// 0 1 2 ... P-1 0 1 ..., so HeterogeneousGrid with equal powers is BlockCyclic(P, Q).
///
/// The constrained option (Nesi et al. 2023, section 4.4, after their reference [19]): the
/// last `tail` positions of an axis go only to the `allowed` parts (the fast nodes), so
/// the end of the factorization, where the critical path dominates, runs on them. Totals
/// stay those of the unconstrained sequence, T_r; the tail takes t_r of them,
/// t_r = quota(tail, allowed powers) capped at T_r (the excess spread over the other allowed
/// parts); the head [0, length - tail) deals the rest, h_r = T_r - t_r, by the same smooth
/// rule with weights h_r, and the tail by weights t_r. Each stretch is then balanced
/// within one tile of its own ideal.
///
/// Memory: a sequence stores its owners and, per part, its positions: O(parts + length).
/// HeterogeneousGrid holds one column sequence and one row sequence per grid column:
/// O(P Q + Q * tile rows + tile columns). Building a sequence costs O(length * parts).
/// Everything is constexpr (C++20 constexpr std::vector): a distribution can be built and
/// queried in a constant expression.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <redist/detail/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>

namespace redist {

/// The constrained option: the last `tail` positions of an axis go only to the `allowed`
/// parts (ranks). tail = 0 (the default) is the unconstrained distribution.
struct TailConstraint {
  index_t tail = 0;
  std::vector<int> allowed;
  friend constexpr bool operator==(const TailConstraint&, const TailConstraint&) = default;
};

namespace detail {

/// Checks that `powers` are finite, non-negative and not all zero.
/// @throws distribution_error naming the first bad power or the zero sum.
constexpr void check_powers(const std::vector<double>& powers, const char* name) {
  if (powers.empty())
    throw distribution_error(
        describe("at least one power is needed", std::string(name) + ".size()", powers.size()));
  double sum = 0;
  for (std::size_t k = 0; k < powers.size(); ++k) {
    const double w = powers[k];
    if (!(w >= 0) || w > std::numeric_limits<double>::max())  // negative, NaN, infinite
      throw distribution_error(describe("a power must be finite and non-negative",
                                        std::string(name) + "[" + std::to_string(k) + "]", w));
    sum += w;
  }
  if (!(sum > 0))
    throw distribution_error(
        describe("powers must not all be zero", "sum(" + std::string(name) + ")", sum));
}

/// Largest-remainder (Hamilton) apportionment of `total` positions over `weights`, each
/// part at most caps[r] (no cap when caps is empty); the excess over a cap goes to the
/// uncapped parts by the same rule. @pre sum of weights > 0 and, with caps, sum of the caps
/// of the parts with positive weight >= total.
/// @post sum == total; without caps, |result[r] - total * x_r| < 1.
constexpr std::vector<index_t> quota(index_t total, const std::vector<double>& weights,
                                     const std::vector<index_t>& caps = {}) {
  const std::size_t n = weights.size();
  std::vector<index_t> out(n, 0);
  std::vector<bool> open(n);
  for (std::size_t r = 0; r < n; ++r) open[r] = weights[r] > 0;
  index_t left = total;
  while (left > 0) {
    double sum = 0;
    for (std::size_t r = 0; r < n; ++r)
      if (open[r]) sum += weights[r];
    if (!(sum > 0)) break;  // caps too small: the caller checked feasibility
    std::vector<index_t> add(n, 0);
    std::vector<double> rest(n, -1.0);
    index_t given = 0;
    for (std::size_t r = 0; r < n; ++r)
      if (open[r]) {
        const double exact = static_cast<double>(left) * (weights[r] / sum);
        add[r] = static_cast<index_t>(exact);
        rest[r] = exact - static_cast<double>(add[r]);
        given += add[r];
      }
    // The left-over positions go to the largest remainders (lower index first on ties).
    for (index_t k = given; k < left; ++k) {
      std::size_t best = n;
      for (std::size_t r = 0; r < n; ++r)
        if (open[r] && (best == n || rest[r] > rest[best])) best = r;
      if (best == n) break;
      ++add[best];
      rest[best] = -2.0;
    }
    // Apply, clipping at the caps; clipped parts close and their excess is dealt again.
    index_t excess = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (!open[r]) continue;
      out[r] += add[r];
      if (!caps.empty() && out[r] >= caps[r]) {
        excess += out[r] - caps[r];
        out[r] = caps[r];
        open[r] = false;
      }
    }
    left = excess;
  }
  return out;
}

/// The smooth sequence of `length` positions over parts with `weights` (earliest deadline
/// among the parts behind their share; see the file comment). Appends to `out`.
/// @pre sum of weights > 0. @post part r gets floor or ceil of length * x_r positions and
/// every prefix of k positions gives it within one of k * x_r.
constexpr void smooth_sequence(const std::vector<double>& weights, index_t length,
                               std::vector<int>& out) {
  double sum = 0;
  for (double w : weights) sum += w;
  std::vector<index_t> count(weights.size(), 0);
  for (index_t k = 1; k <= length; ++k) {
    std::size_t best = weights.size();
    for (std::size_t r = 0; r < weights.size(); ++r) {
      const double w = weights[r];
      // Behind its share after k positions: c_r < k x_r, i.e. c_r * sum < k * w_r.
      if (!(w > 0) || !(static_cast<double>(count[r]) * sum < static_cast<double>(k) * w)) continue;
      // Earliest deadline (c_r + 1) / w_r, compared without division.
      if (best == weights.size() || static_cast<double>(count[r] + 1) * weights[best] <
                                        static_cast<double>(count[best] + 1) * w)
        best = r;
    }
    // Some part is always behind (the counts sum to k - 1 < k); rounding could only make
    // a tie look like a lead, so fall back on the part furthest behind.
    if (best == weights.size()) {
      double worst = 0;
      for (std::size_t r = 0; r < weights.size(); ++r) {
        const double lag =
            static_cast<double>(k) * weights[r] / sum - static_cast<double>(count[r]);
        if (weights[r] > 0 && (best == weights.size() || lag > worst)) best = r, worst = lag;
      }
    }
    ++count[best];
    out.push_back(static_cast<int>(best));
  }
}

}  // namespace detail

/// Integer counts summing to `total`, in proportion to `shares` (largest remainders, ties
/// to the lower index): each count is the floor or the ceiling of total * share / sum.
/// Example: apportion(1275, {0.05, 0.05, 0.44, 0.46}) == {64, 64, 561, 586}.
/// @throws distribution_error if a share is negative or not finite, or all are zero.
constexpr std::vector<index_t> apportion(index_t total, const std::vector<double>& shares) {
  detail::check_powers(shares, "shares");
  if (total < 0)
    throw distribution_error(detail::describe("total must be non-negative", "total", total));
  return detail::quota(total, shares);
}

/// One axis of a heterogeneous distribution: `length` positions dealt to parts
/// 0..powers.size()-1 by the smooth rule, optionally constrained at the end.
/// Example: PowerSequence({3, 1}, 8).owner(3) == 1, count(1) == 2.
class PowerSequence {
 public:
  /// @throws distribution_error naming the parameter and value: a power negative or not
  /// finite, all powers zero, a negative length, a tail outside [0, length], an allowed
  /// part outside the powers or none allowed for a tail, or a tail longer than the allowed
  /// parts' share of the axis.
  constexpr PowerSequence(std::vector<double> powers, index_t length,
                          TailConstraint constraint = {})
      : powers_(std::move(powers)), constraint_(std::move(constraint)) {
    detail::check_powers(powers_, "powers");
    if (length < 0)
      throw distribution_error(
          detail::describe("axis length must be non-negative", "length", length));
    const index_t tail = constraint_.tail;
    if (tail < 0 || tail > length)
      throw distribution_error(detail::describe("tail must be in [0, length]", "tail", tail) +
                               " (length = " + std::to_string(length) + ")");
    owner_.reserve(static_cast<std::size_t>(length));
    if (tail == 0) {
      detail::smooth_sequence(powers_, length, owner_);
    } else {
      build_constrained(length, tail);
    }
    // Positions per part, sorted: a CSR index over the owners.
    const std::size_t parts = powers_.size();
    start_.assign(parts + 1, 0);
    for (int o : owner_) ++start_[static_cast<std::size_t>(o) + 1];
    for (std::size_t r = 0; r < parts; ++r) start_[r + 1] += start_[r];
    position_.assign(owner_.size(), 0);
    std::vector<index_t> next(start_.begin(), start_.end() - 1);
    for (std::size_t k = 0; k < owner_.size(); ++k)
      position_[static_cast<std::size_t>(next[static_cast<std::size_t>(owner_[k])]++)] =
          static_cast<index_t>(k);
  }

  /// Number of parts (powers).
  constexpr int parts() const { return static_cast<int>(powers_.size()); }
  constexpr index_t length() const { return static_cast<index_t>(owner_.size()); }
  constexpr const std::vector<double>& powers() const { return powers_; }
  constexpr const TailConstraint& constraint() const { return constraint_; }
  /// @pre 0 <= k < length().
  constexpr int owner(index_t k) const {
    REDIST_EXPECTS(0 <= k && k < length());
    return owner_[static_cast<std::size_t>(k)];
  }
  /// Positions of part r, 0 outside [0, parts()).
  constexpr index_t count(int r) const {
    if (r < 0 || r >= parts()) return 0;
    return start_[static_cast<std::size_t>(r) + 1] - start_[static_cast<std::size_t>(r)];
  }
  /// Calls f(k) for every position k in [begin, end) owned by part r, increasing, in
  /// O(log length + visited).
  template <class F>
  constexpr void for_each_position(int r, index_t begin, index_t end, F&& f) const {
    if (r < 0 || r >= parts() || begin >= end) return;
    const index_t* first = position_.data() + start_[static_cast<std::size_t>(r)];
    const index_t* last = position_.data() + start_[static_cast<std::size_t>(r) + 1];
    // Binary search for the first position >= begin.
    while (first < last) {
      const index_t* mid = first + (last - first) / 2;
      if (*mid < begin)
        first = mid + 1;
      else
        last = mid;
    }
    last = position_.data() + start_[static_cast<std::size_t>(r) + 1];
    for (; first < last && *first < end; ++first) f(*first);
  }
  /// Exact: powers (bit patterns), length and constraint.
  constexpr std::uint64_t fingerprint() const {
    detail::Hasher h(0x5345514Eull);  // "SEQN"
    h.add(length()).add(static_cast<std::uint64_t>(powers_.size()));
    for (double w : powers_) h.add(std::bit_cast<std::uint64_t>(w));
    h.add(constraint_.tail).add(static_cast<std::uint64_t>(constraint_.allowed.size()));
    for (int a : constraint_.allowed) h.add(a);
    return h.value();
  }
  friend constexpr bool operator==(const PowerSequence& a, const PowerSequence& b) {
    return a.powers_ == b.powers_ && a.constraint_ == b.constraint_ && a.owner_ == b.owner_;
  }

 private:
  constexpr void build_constrained(index_t length, index_t tail) {
    const std::size_t parts = powers_.size();
    std::vector<double> tail_weights(parts, 0.0);
    if (constraint_.allowed.empty())
      throw distribution_error(
          detail::describe("a tail needs at least one allowed rank", "allowed.size()", 0) +
          " (tail = " + std::to_string(tail) + ")");
    for (std::size_t k = 0; k < constraint_.allowed.size(); ++k) {
      const int a = constraint_.allowed[k];
      if (a < 0 || a >= static_cast<int>(parts))
        throw distribution_error(detail::describe("allowed rank outside the powers",
                                                  "allowed[" + std::to_string(k) + "]", a) +
                                 " (" + std::to_string(parts) + " powers)");
      tail_weights[static_cast<std::size_t>(a)] = powers_[static_cast<std::size_t>(a)];
    }
    // The totals of the unconstrained sequence: the constraint moves positions, not counts.
    std::vector<int> free;
    free.reserve(static_cast<std::size_t>(length));
    detail::smooth_sequence(powers_, length, free);
    std::vector<index_t> total(parts, 0);
    for (int o : free) ++total[static_cast<std::size_t>(o)];
    index_t room = 0;
    for (std::size_t r = 0; r < parts; ++r)
      if (tail_weights[r] > 0) room += total[r];
    if (tail > room)
      throw distribution_error(
          detail::describe("tail longer than the allowed ranks' share of the axis", "tail", tail) +
          " (their share = " + std::to_string(room) + " of " + std::to_string(length) + ")");
    const std::vector<index_t> in_tail = detail::quota(tail, tail_weights, total);
    std::vector<double> head(parts), end(parts);
    for (std::size_t r = 0; r < parts; ++r) {
      head[r] = static_cast<double>(total[r] - in_tail[r]);
      end[r] = static_cast<double>(in_tail[r]);
    }
    if (length > tail) detail::smooth_sequence(head, length - tail, owner_);
    detail::smooth_sequence(end, tail, owner_);
  }

  std::vector<double> powers_;
  TailConstraint constraint_;
  std::vector<int> owner_;         ///< owner of each position
  std::vector<index_t> start_;     ///< parts + 1 offsets into position_
  std::vector<index_t> position_;  ///< positions, grouped by part, increasing
};

/// 1-D heterogeneous distribution (Nesi et al. 2023, section 4.4, Diodon's "1D
/// heterogeneous cyclic distribution"): tile rows (or columns) dealt to the ranks by the
/// smooth rule from one power per rank. A grid distribution: ranks() x 1 (rows) or
/// 1 x ranks() (columns), so ScaLAPACK storage can hold it.
/// Example: Heterogeneous1D(Axis::row, {2, 1, 1}, {8, 3}): tile rows 0..7 on ranks
/// 0 1 0 2 0 1 0 2, every column alike.
class Heterogeneous1D {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @param powers one per rank (ranks() == powers.size()); @param tiles the tile grid the
  /// distribution covers (Layout checks it); @param constraint on the distributed axis.
  /// @throws distribution_error (see PowerSequence) or if a tile extent is negative.
  constexpr Heterogeneous1D(Axis axis, std::vector<double> powers, Extents tiles,
                            TailConstraint constraint = {})
      : axis_(axis),
        tiles_(check_tiles(tiles)),
        seq_(std::move(powers), axis == Axis::row ? tiles.rows : tiles.cols,
             std::move(constraint)) {}

  constexpr int ranks() const { return seq_.parts(); }
  constexpr Axis axis() const { return axis_; }
  constexpr Extents tiles() const { return tiles_; }
  constexpr const PowerSequence& sequence() const { return seq_; }
  constexpr int owner(TileIndex t) const { return seq_.owner(axis_ == Axis::row ? t.m : t.n); }
  /// Tiles of rank r (all positions of the axis times the other extent).
  constexpr index_t tile_count(int r) const {
    return seq_.count(r) * (axis_ == Axis::row ? tiles_.cols : tiles_.rows);
  }

  // GridDistribution: P x 1 for rows, 1 x P for columns.
  constexpr Extents grid() const {
    return axis_ == Axis::row ? Extents{ranks(), 1} : Extents{1, ranks()};
  }
  constexpr int grid_row(index_t m) const { return axis_ == Axis::row ? seq_.owner(m) : 0; }
  constexpr int grid_col(index_t n) const { return axis_ == Axis::col ? seq_.owner(n) : 0; }
  constexpr int rank_of(GridCoord g) const { return axis_ == Axis::row ? g.p : g.q; }

  /// Visits the tiles of `box` owned by `rank`, column by column, in O(owned + log).
  template <class F>
  constexpr void for_each_owned(int rank, TileBox box, F&& f) const {
    if (rank < 0 || rank >= ranks() || box.empty()) return;
    const TileBox b = clip(box);
    if (b.empty()) return;
    if (axis_ == Axis::row) {
      for (index_t n = b.begin.n; n < b.end.n; ++n)
        seq_.for_each_position(rank, b.begin.m, b.end.m, [&](index_t m) { f(TileIndex{m, n}); });
    } else {
      seq_.for_each_position(rank, b.begin.n, b.end.n, [&](index_t n) {
        for (index_t m = b.begin.m; m < b.end.m; ++m) f(TileIndex{m, n});
      });
    }
  }

  /// Exact: axis, tile grid and the sequence's parameters.
  constexpr std::uint64_t fingerprint() const {
    return detail::Hasher(0x48314Dull)  // "H1D"
        .add(static_cast<int>(axis_))
        .add(tiles_.rows)
        .add(tiles_.cols)
        .add(seq_.fingerprint())
        .value();
  }
  friend constexpr bool operator==(const Heterogeneous1D&, const Heterogeneous1D&) = default;

 private:
  static constexpr Extents check_tiles(Extents tiles) {
    if (tiles.rows < 0 || tiles.cols < 0)
      throw distribution_error(detail::describe("tile grid must be non-negative", "tiles", tiles));
    return tiles;
  }
  constexpr TileBox clip(TileBox box) const {
    const auto lo = [](index_t a, index_t b) { return a < b ? a : b; };
    const auto hi = [](index_t a, index_t b) { return a > b ? a : b; };
    return {{hi(box.begin.m, 0), hi(box.begin.n, 0)},
            {lo(box.end.m, tiles_.rows), lo(box.end.n, tiles_.cols)}};
  }

  Axis axis_;
  Extents tiles_;
  PowerSequence seq_;
};

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
