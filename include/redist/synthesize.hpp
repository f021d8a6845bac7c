#pragma once
/// @file synthesize.hpp
/// Target layout synthesis (Nesi et al. 2023, section 4.4, Algorithm 2): given the layout
/// of one phase (the source, e.g. the 1D-1D factorization layout) and the number of tiles
/// each rank should hold in the next (or previous) phase, build the layout of that phase
/// on the same tiling that moves the fewest tiles and stays cyclic.
///
///   OwnerTable gen = synthesize(factorization, {318, 319, 319, 319},
///                               TileMask{{{0, 0}, {50, 50}}, TileTriangle::lower});
///
/// gives rank r exactly counts[r] tiles of the mask and moves exactly
///
///     lower bound = sum_r max(0, held_r - counts[r])      (held_r: r's source tiles there)
///
/// tiles, where no layout can move fewer: a rank holding more than it wants must give the
/// surplus away. Tiles outside the mask keep their source owner.
///
/// Algorithm 2, as implemented (integers, no rounding): walk the mask row by row (the
/// paper's foreach (i, j)); each rank r with a surplus e_r = held_r - counts[r] > 0 gives
/// its k-th surplus tile at the first of its tiles whose running count c satisfies
/// c * e_r >= k * held_r (the paper's "count >= ratio", ratio = held_r / e_r increased by
/// itself after each move), to the neediest rank, the one with the largest remaining need
/// (the paper's which.min(diff); ties to the lower rank). A rank twice over its share gives
/// every second tile: the moved tiles are spread over the source's cyclic pattern, so the
/// result keeps the source's stripes (Nesi et al. 2023, Fig. 6, right). The k = e_r-th move
/// falls on r's last tile, so every surplus is given exactly; receivers never give (their
/// diff stays negative until full), so the count of moves is the lower bound. (The paper's
/// early exit "if diff[neediest] > 1 then return" is not needed with exact arithmetic.)
///
/// Composing with process relabeling (relabel.hpp): synthesize fixes which rank gets which
/// count. When the counts belong to roles rather than to ranks (any rank may play "a node
/// with 319 tiles"), choose the assignment first: best_relabeling on the P x P matrix
/// volume[s * P + r] = min(held_s, counts[r]) (relabel_counts() below) pairs large holders
/// with large counts, then synthesize with the permuted counts. Relabeling the synthesized
/// layout afterwards gains nothing when the counts are per rank (each rank already keeps
/// min(held, count) of its tiles, the most it can); see docs/heterogeneous.md.
///
/// Cost: O(tiles of the mask * ranks) time (the neediest search is linear in the ranks)
/// and an O(all tiles) owner table.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>

namespace redist {

/// Which tiles of a box: all, or the lower / upper triangle (diagonal included) counted
/// from the box's top-left corner: (m, n) is lower when m - box.begin.m >= n - box.begin.n.
enum class TileTriangle { full, lower, upper };

/// A set of tiles: a box, or its lower or upper triangle of tiles.
/// Example: TileMask{{{0, 0}, {50, 50}}, TileTriangle::lower}.size() == 1275.
struct TileMask {
  TileBox box;
  TileTriangle part = TileTriangle::full;

  constexpr bool contains(TileIndex t) const {
    if (!box.contains(t)) return false;
    const index_t d = (t.m - box.begin.m) - (t.n - box.begin.n);
    return part == TileTriangle::full || (part == TileTriangle::lower ? d >= 0 : d <= 0);
  }
  /// Number of tiles in the mask.
  constexpr index_t size() const {
    if (box.empty()) return 0;
    if (part == TileTriangle::full) return box.size();
    index_t s = 0;  // row by row: O(rows)
    const index_t rows = box.end.m - box.begin.m, cols = box.end.n - box.begin.n;
    for (index_t i = 0; i < rows; ++i) {
      const index_t in_row =
          part == TileTriangle::lower ? std::min(i + 1, cols) : std::max<index_t>(cols - i, 0);
      s += in_row;
    }
    return s;
  }
  /// Calls f(TileIndex) for every tile of the mask, row by row (Algorithm 2's order).
  template <class F>
  constexpr void for_each(F&& f) const {
    if (box.empty()) return;
    for (index_t m = box.begin.m; m < box.end.m; ++m) {
      const index_t i = m - box.begin.m;
      index_t n0 = box.begin.n, n1 = box.end.n;
      if (part == TileTriangle::lower) n1 = std::min(n1, box.begin.n + i + 1);
      if (part == TileTriangle::upper) n0 = std::max(n0, box.begin.n + i);
      for (index_t n = n0; n < n1; ++n) f(TileIndex{m, n});
    }
  }
  friend constexpr bool operator==(const TileMask&, const TileMask&) = default;
};

namespace detail {

/// The owner of tile t, checked to lie in [0, ranks).
template <Distribution D>
int checked_owner(const D& d, TileIndex t, int ranks) {
  const int o = static_cast<int>(d.owner(t));
  if (o < 0 || o >= ranks)
    throw distribution_error(describe("owner outside [0, ranks)", "owner", o) + " at tile (" +
                             std::to_string(t.m) + ", " + std::to_string(t.n) +
                             "), ranks = " + std::to_string(ranks));
  return o;
}

/// Positions [begin, end) of one axis per grid coordinate k -> coord(k), `size` entries.
template <class Coord>
std::vector<index_t> per_coordinate(index_t begin, index_t end, index_t size, Coord&& coord) {
  std::vector<index_t> n(static_cast<std::size_t>(size), 0);
  for (index_t k = begin; k < end; ++k) ++n[static_cast<std::size_t>(coord(k))];
  return n;
}

}  // namespace detail

/// Tiles of `mask` per rank under distribution d, `ranks` entries. A whole box of a grid
/// distribution is counted per axis, O(rows + columns + grid), not tile by tile.
/// @throws distribution_error if an owner is outside [0, ranks).
template <Distribution D>
std::vector<index_t> tiles_per_rank(const D& d, const TileMask& mask, int ranks) {
  std::vector<index_t> count(static_cast<std::size_t>(ranks > 0 ? ranks : 0), 0);
  if constexpr (GridDistribution<D>) {
    if (mask.part == TileTriangle::full && !mask.box.empty()) {
      const Extents g = d.grid();
      const auto rows = detail::per_coordinate(mask.box.begin.m, mask.box.end.m, g.rows,
                                               [&](index_t m) { return d.grid_row(m); });
      const auto cols = detail::per_coordinate(mask.box.begin.n, mask.box.end.n, g.cols,
                                               [&](index_t n) { return d.grid_col(n); });
      for (index_t p = 0; p < g.rows; ++p)
        for (index_t q = 0; q < g.cols; ++q) {
          const auto np = rows[static_cast<std::size_t>(p)], nq = cols[static_cast<std::size_t>(q)];
          if (np == 0 || nq == 0) continue;
          // A tile of this (p, q) class, to check its owner like the scan does.
          index_t m = mask.box.begin.m, n = mask.box.begin.n;
          while (d.grid_row(m) != p) ++m;
          while (d.grid_col(n) != q) ++n;
          count[static_cast<std::size_t>(detail::checked_owner(d, {m, n}, ranks))] += np * nq;
        }
      return count;
    }
  }
  mask.for_each(
      [&](TileIndex t) { ++count[static_cast<std::size_t>(detail::checked_owner(d, t, ranks))]; });
  return count;
}

/// Tiles of `mask` whose owner differs between a and b (two distributions of one tiling).
/// Two grid distributions on a whole box are counted per class of rows (their pair of
/// grid rows) and of columns, O(rows + columns + classes), when that is fewer steps than
/// the tiles.
template <Distribution A, Distribution B>
index_t tiles_moved(const A& a, const B& b, const TileMask& mask) {
  if constexpr (GridDistribution<A> && GridDistribution<B>) {
    const Extents ga = a.grid(), gb = b.grid();
    const index_t row_classes = ga.rows * gb.rows, col_classes = ga.cols * gb.cols;
    if (mask.part == TileTriangle::full && !mask.box.empty() &&
        row_classes * col_classes < mask.box.size()) {
      const auto rows = detail::per_coordinate(
          mask.box.begin.m, mask.box.end.m, row_classes,
          [&](index_t m) { return static_cast<index_t>(a.grid_row(m)) * gb.rows + b.grid_row(m); });
      const auto cols = detail::per_coordinate(
          mask.box.begin.n, mask.box.end.n, col_classes,
          [&](index_t n) { return static_cast<index_t>(a.grid_col(n)) * gb.cols + b.grid_col(n); });
      index_t moved = 0;
      for (index_t r = 0; r < row_classes; ++r)
        for (index_t c = 0; c < col_classes; ++c) {
          const index_t k = rows[static_cast<std::size_t>(r)] * cols[static_cast<std::size_t>(c)];
          if (k == 0) continue;
          const int from =
              a.rank_of({static_cast<int>(r / gb.rows), static_cast<int>(c / gb.cols)});
          const int to = b.rank_of({static_cast<int>(r % gb.rows), static_cast<int>(c % gb.cols)});
          moved += from != to ? k : 0;
        }
      return moved;
    }
  }
  index_t moved = 0;
  mask.for_each(
      [&](TileIndex t) { moved += static_cast<int>(a.owner(t)) != static_cast<int>(b.owner(t)); });
  return moved;
}

/// The fewest tiles any layout moves to give rank r wanted[r] tiles when it holds held[r]:
/// sum_r max(0, held[r] - wanted[r]) (ranks missing from one list hold / want 0).
inline index_t moves_lower_bound(const std::vector<index_t>& held,
                                 const std::vector<index_t>& wanted) {
  index_t bound = 0;
  for (std::size_t r = 0; r < held.size(); ++r) {
    const index_t w = r < wanted.size() ? wanted[r] : 0;
    if (held[r] > w) bound += held[r] - w;
  }
  return bound;
}

/// The P x P matrix for best_relabeling (relabel.hpp) when counts belong to roles:
/// volume[s * P + r] = min(held[s], counts[r]), the most tiles rank s can keep when it
/// plays role r. perm = best_relabeling(relabel_counts(held, counts), P) gives role r to
/// rank perm[r]: synthesize with wanted[perm[r]] = counts[r].
/// @pre held.size() == counts.size().
inline std::vector<index_t> relabel_counts(const std::vector<index_t>& held,
                                           const std::vector<index_t>& counts) {
  const std::size_t P = counts.size();
  std::vector<index_t> volume(P * P, 0);
  for (std::size_t s = 0; s < P && s < held.size(); ++s)
    for (std::size_t r = 0; r < P; ++r) volume[s * P + r] = std::min(held[s], counts[r]);
  return volume;
}

/// Nesi et al. 2023, Algorithm 2 (see the file comment): the layout of `src`'s tiling that
/// gives rank r exactly counts[r] tiles of `mask`, keeps every other tile where `src` has
/// it, and moves exactly moves_lower_bound(tiles_per_rank(src, mask), counts) tiles.
/// ranks() of the result is counts.size(). Example in the file comment.
/// @pre src is a Layout (shape + distribution).
/// @throws distribution_error naming the parameter and value if counts has fewer entries
/// than src has ranks, a count is negative, the counts do not sum to mask.size(), the mask
/// is not inside the tile grid, or a source owner is outside [0, src ranks).
template <class L>
OwnerTable synthesize(const L& src, const std::vector<index_t>& counts, const TileMask& mask) {
  const Extents tiles = src.tiles();
  const int src_ranks = static_cast<int>(src.ranks());
  if (static_cast<index_t>(counts.size()) < src_ranks || counts.empty())
    throw distribution_error(
        detail::describe("one count per rank is needed", "counts.size()", counts.size()) +
        " (source ranks = " + std::to_string(src_ranks) + ")");
  index_t sum = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] < 0)
      throw distribution_error(detail::describe("a tile count must be non-negative",
                                                "counts[" + std::to_string(k) + "]", counts[k]));
    sum += counts[k];
  }
  const TileBox& b = mask.box;
  if (!b.empty() &&
      (b.begin.m < 0 || b.begin.n < 0 || b.end.m > tiles.rows || b.end.n > tiles.cols))
    throw distribution_error(
        detail::describe("mask outside the tile grid", "mask.box",
                         "[" + std::to_string(b.begin.m) + ", " + std::to_string(b.end.m) +
                             ") x [" + std::to_string(b.begin.n) + ", " + std::to_string(b.end.n) +
                             ")") +
        " (tile grid = " + std::to_string(tiles.rows) + "x" + std::to_string(tiles.cols) + ")");
  const index_t region = mask.size();
  if (sum != region)
    throw distribution_error(
        detail::describe("counts must sum to the region's tiles", "sum(counts)", sum) +
        " (region tiles = " + std::to_string(region) + ")");

  const int P = static_cast<int>(counts.size());
  const auto& dist = src.distribution();
  const std::vector<index_t> held = tiles_per_rank(dist, mask, src_ranks);
  std::vector<index_t> diff(static_cast<std::size_t>(P)), surplus(static_cast<std::size_t>(P), 0),
      seen(static_cast<std::size_t>(P), 0), given(static_cast<std::size_t>(P), 0),
      have(static_cast<std::size_t>(P), 0);
  for (int r = 0; r < P; ++r) {
    const auto k = static_cast<std::size_t>(r);
    have[k] = r < src_ranks ? held[k] : 0;
    diff[k] = have[k] - counts[k];
    surplus[k] = diff[k] > 0 ? diff[k] : 0;
  }

  // Owners, column-major: the source's everywhere, then the moves inside the mask.
  std::vector<int> owners(static_cast<std::size_t>(tiles.rows * tiles.cols));
  for (index_t n = 0; n < tiles.cols; ++n)
    for (index_t m = 0; m < tiles.rows; ++m) {
      const int o = static_cast<int>(dist.owner(TileIndex{m, n}));
      if (o < 0 || o >= src_ranks)
        throw distribution_error(detail::describe("source owner outside [0, ranks)", "owner", o) +
                                 " at tile (" + std::to_string(m) + ", " + std::to_string(n) +
                                 "), ranks = " + std::to_string(src_ranks));
      owners[static_cast<std::size_t>(n * tiles.rows + m)] = o;
    }
  mask.for_each([&](TileIndex t) {
    const auto node = static_cast<std::size_t>(dist.owner(t));
    if (surplus[node] == 0) return;
    ++seen[node];
    // The k-th surplus tile of `node` moves at its first tile with seen * e >= k * held.
    if (seen[node] * surplus[node] < (given[node] + 1) * have[node]) return;
    std::size_t neediest = 0;
    for (std::size_t r = 1; r < static_cast<std::size_t>(P); ++r)
      if (diff[r] < diff[neediest]) neediest = r;
    REDIST_EXPECTS(diff[neediest] < 0);
    owners[static_cast<std::size_t>(t.n * tiles.rows + t.m)] = static_cast<int>(neediest);
    ++diff[neediest];
    --diff[node];
    ++given[node];
  });
  return OwnerTable(tiles, std::move(owners), P);
}

/// synthesize over every tile of the tiling.
template <class L>
OwnerTable synthesize(const L& src, const std::vector<index_t>& counts) {
  return synthesize(src, counts, TileMask{src.all_tiles(), TileTriangle::full});
}

}  // namespace redist
