#pragma once
/// @file distributions/power_sequence.hpp
/// One axis of a heterogeneous distribution (Nesi et al. 2023, sections 3 and 4.4): positions
/// dealt to parts in proportion to their powers, smoothly, optionally constrained at the end;
/// and the apportionment of counts by largest remainders. distributions/heterogeneous.hpp
/// builds the 1-D and 1D-1D distributions from it.
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

#include <redist/checked.hpp>
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

}  // namespace redist
