#pragma once
/// @file engine/flat_row_cut.hpp
/// How a flat message's member (engine/matrix_sides.hpp: segment after segment, a copy
/// each) larger than a ring slot is cut between its segments rather than between its
/// columns (engine/chunking.hpp, cut_chunks): the order a flat message lays a member's
/// segments (RowKey) and where the cuts fall (cut_rows). Sender and receiver see the same
/// row pieces, so they cut alike.

#include <algorithm>
#include <compare>
#include <cstddef>
#include <vector>

#include <redist/plan.hpp>

namespace redist {

/// Where a row piece lands: its target tile row and its offset there. A flat message
/// (engine/bind_copies.hpp) lays a member's segments in this order.
struct RowKey {
  index_t tile = 0, offset = 0;
  friend constexpr auto operator<=>(const RowKey&, const RowKey&) = default;
};
inline constexpr RowKey row_key(const Piece& p) { return {p.dst_tile, p.dst_offset}; }

namespace detail {

/// A row piece of a flat member: where it lands, its rows, and its source tile.
struct FlatRow {
  RowKey key;
  index_t rows = 0, src_tile = 0;
};

/// The row pieces of column block [f, f_end) of d in RowKey order (stable: a flat
/// message's order, engine/bind_copies.hpp).
inline std::vector<FlatRow> block_rows_in_order(const Plan& plan, const FamilyList& d, index_t f,
                                                index_t f_end) {
  std::vector<FlatRow> rows;
  for (index_t k = f; k < f_end; ++k) {
    const PieceGroup g = plan.rows(d.families[static_cast<std::size_t>(k)]);
    for (index_t a = 0; a < g.count; ++a) {
      const Piece p = g.member(a);
      rows.push_back(FlatRow{row_key(p), g.length, p.src_tile});
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const FlatRow& x, const FlatRow& y) { return x.key < y.key; });
  return rows;
}

/// Rows [first, last] (RowKeys) of a flat member, `rows` of them.
struct RowSpan {
  RowKey first{}, last{};
  index_t rows = 0;
};

/// Cuts a flat member's row pieces (`in_order`, block_rows_in_order) into spans of at most
/// `most` rows, calling emit(span) in order; a place (pieces of one RowKey, several parts
/// at once) is never cut, and one of more rows is a span alone. The spans end where the
/// source tile changes, as many whole source tiles a span as fit: the local parts cut the
/// same way then read the same tiles as the pack they follow (engine/pack_followers.hpp), and
/// their sweep reads each tile column front to back once (engine/fused_sweeps.hpp). A source
/// tile of more rows is cut between its places, as many a span as fit.
template <class Emit>
void cut_rows(const std::vector<FlatRow>& in_order, index_t most, Emit&& emit) {
  const std::size_t n = in_order.size();
  RowSpan open{};
  const auto flush = [&] {
    if (open.rows > 0) emit(open);
    open = RowSpan{};
  };
  const auto join = [&](const RowSpan& s) {
    if (open.rows == 0) open.first = s.first;
    open.last = s.last;
    open.rows += s.rows;
  };
  // Place [i, end): the pieces of one RowKey.
  const auto place_end = [&](std::size_t i) {
    std::size_t e = i + 1;
    while (e < n && in_order[e].key == in_order[i].key) ++e;
    return e;
  };
  for (std::size_t i = 0; i < n;) {
    // The source tile's places [i, j), its rows.
    const index_t tile = in_order[i].src_tile;
    std::size_t j = i;
    index_t tile_rows = 0;
    while (j < n && in_order[j].src_tile == tile) {
      const std::size_t e = place_end(j);
      for (std::size_t k = j; k < e; ++k) tile_rows += in_order[k].rows;
      j = e;
    }
    if (tile_rows <= most) {
      if (open.rows + tile_rows > most) flush();
      join(RowSpan{in_order[i].key, in_order[j - 1].key, tile_rows});
    } else {  // a tile of more than a span: its places, a span's worth at a time
      flush();
      for (std::size_t k = i; k < j;) {
        const std::size_t e = place_end(k);
        index_t rows = 0;
        for (std::size_t q = k; q < e; ++q) rows += in_order[q].rows;
        if (open.rows > 0 && open.rows + rows > most) flush();
        join(RowSpan{in_order[k].key, in_order[e - 1].key, rows});
        if (rows > most) flush();
        k = e;
      }
      flush();
    }
    i = j;
  }
  flush();
}

}  // namespace detail

}  // namespace redist
