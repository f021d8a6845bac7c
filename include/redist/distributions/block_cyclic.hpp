#pragma once
/// @file distributions/block_cyclic.hpp
/// 2-D block-cyclic distribution over a P x Q process grid (row-major rank order), with
/// super-tiles of kp x kq tiles and a first-owner offset. 1-D distributions are P = 1
/// or Q = 1. Models Distribution, EnumeratesOwnedTiles and GridDistribution.
///
///   grid_row(m) = (m / kp + p0) mod P        grid_col(n) = (n / kq + q0) mod Q
///   owner(m, n) = grid_row(m) * Q + grid_col(n)     (row-major grid order, the default)
///
/// Example, P x Q = 2 x 2, kp = kq = 1: tiles (0,0) (0,1) (1,0) (1,1) are on ranks
/// 0 1 2 3, and the pattern repeats every 2 tiles in each direction (Cao et al. 2021,
/// Fig. 5a).

#include <redist/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>

namespace redist {

/// How grid coordinates are numbered as ranks: row-major (rank = p * Q + q, the default
/// and BLACS "Row") or column-major (rank = q * P + p, BLACS "Col").
enum class GridOrder { row_major, column_major };

class BlockCyclic {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @throws distribution_error if a grid extent or super-tile extent is not positive
  /// or the offset is outside the grid.
  constexpr BlockCyclic(int P, int Q, index_t kp = 1, index_t kq = 1, GridCoord first = {},
                        GridOrder order = GridOrder::row_major)
      : P_(P), Q_(Q), kp_(kp), kq_(kq), first_(first), order_(order) {
    if (P <= 0) throw distribution_error(detail::describe("grid rows must be positive", "P", P));
    if (Q <= 0) throw distribution_error(detail::describe("grid columns must be positive", "Q", Q));
    if (kp <= 0)
      throw distribution_error(detail::describe("super-tile rows must be positive", "kp", kp));
    if (kq <= 0)
      throw distribution_error(detail::describe("super-tile columns must be positive", "kq", kq));
    if (first.p < 0 || first.p >= P)
      throw distribution_error(
          detail::describe("first-owner row outside the grid", "first.p", first.p));
    if (first.q < 0 || first.q >= Q)
      throw distribution_error(
          detail::describe("first-owner column outside the grid", "first.q", first.q));
    // ranks() and rank_of() compute in int: P * Q must fit.
    (void)detail::checked_mul_int<distribution_error>(P, Q, "P * Q");
  }

  constexpr int ranks() const { return P_ * Q_; }
  constexpr Extents grid() const { return {P_, Q_}; }
  constexpr Extents super_tile() const { return {kp_, kq_}; }
  constexpr GridCoord first_owner() const { return first_; }
  constexpr int grid_row(index_t m) const { return static_cast<int>((m / kp_ + first_.p) % P_); }
  constexpr int grid_col(index_t n) const { return static_cast<int>((n / kq_ + first_.q) % Q_); }
  constexpr GridOrder order() const { return order_; }
  constexpr int rank_of(GridCoord g) const {
    return order_ == GridOrder::row_major ? g.p * Q_ + g.q : g.q * P_ + g.p;
  }
  constexpr GridCoord coord_of(int rank) const {
    return order_ == GridOrder::row_major ? GridCoord{rank / Q_, rank % Q_}
                                          : GridCoord{rank % P_, rank / P_};
  }
  constexpr int owner(TileIndex t) const { return rank_of({grid_row(t.m), grid_col(t.n)}); }

  /// Visits the tiles of `box` owned by `rank` in O(owned tiles + box.rows/kp/P).
  template <class F>
  constexpr void for_each_owned(int rank, TileBox box, F&& f) const {
    if (rank < 0 || rank >= ranks() || box.empty()) return;
    const GridCoord g = coord_of(rank);
    for_each_owned_index(box.begin.n, box.end.n, kq_, Q_, first_.q, g.q, [&](index_t n) {
      for_each_owned_index(box.begin.m, box.end.m, kp_, P_, first_.p, g.p, [&](index_t m) {
        f(TileIndex{m, n});
      });
    });
  }

  /// Calls f(k) for every k in [begin, end) with (k / block + offset) mod period == coord,
  /// in increasing order, jumping from one owned super-tile to the next.
  template <class F>
  static constexpr void for_each_owned_index(index_t begin, index_t end, index_t block, int period,
                                             int offset, int coord, F&& f) {
    if (begin >= end) return;
    index_t s = begin / block;  // super-tile holding `begin`
    const index_t phase = (s + offset) % period;
    s += ((coord - phase) % period + period) % period;
    for (; s * block < end; s += period) {
      const index_t lo = s * block > begin ? s * block : begin;
      const index_t hi = (s + 1) * block < end ? (s + 1) * block : end;
      for (index_t k = lo; k < hi; ++k) f(k);
    }
  }

  /// Exact: grid, super-tile, first owner and grid order (fingerprint.hpp).
  constexpr std::uint64_t fingerprint() const {
    return detail::Hasher(0x4243ull)  // "BC"
        .add(P_)
        .add(Q_)
        .add(kp_)
        .add(kq_)
        .add(first_.p)
        .add(first_.q)
        .add(static_cast<int>(order_))
        .value();
  }
  friend constexpr bool operator==(const BlockCyclic&, const BlockCyclic&) = default;

 private:
  int P_;
  int Q_;
  index_t kp_;
  index_t kq_;
  GridCoord first_;
  GridOrder order_;
};

}  // namespace redist
