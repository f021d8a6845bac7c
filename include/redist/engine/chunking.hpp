#pragma once
/// @file engine/chunking.hpp
/// The engine's unit of work: messages and local copies cut into chunks (Cao et al. 2021,
/// section 5: the task granularity that runs). A message of the plan
/// (plan.hpp) is cut into chunks of about `chunk_elements`, between column
/// members of its families (each family is a dense column-major block of the buffer).
/// Sender and receiver cut identically, so chunk k of a message is the same elements on
/// both ends. A batch's local copies are cut the same way into parts. Chunks are cut
/// before the transports are chosen; only a message read in place on a device is re-cut
/// after, whole (engine/wired.hpp).

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/engine/flat_row_cut.hpp>
#include <redist/plan.hpp>
#include <redist/plan/plan_header.hpp>

namespace redist {

/// Column members [col_first, col_first + col_count) of a column block of a FamilyList
/// (families [family, family_end), stacked: plan/block_family.hpp): `elements` elements
/// at element `offset` from its message's start (a block's columns are contiguous in the
/// buffer).
///
/// A slice may also be part of one member (col_count 1): a chunk of a node window's ring
/// must fit a slot (engine/ring_slots.hpp), and one member can be larger (4096 rows x 100
/// columns). Stacked, the part is some of the member's columns, [col_skip, col_skip +
/// col_take) (col_take > 0): they lie one after the other in the buffer. Laid flat, it is
/// the member's segments whose RowKey lies in [rows_first, rows_last] (rows_cut): laid
/// segment after segment in that order, they are contiguous too, and each stays one copy
/// whole, where a cut between columns made a copy of every segment in every slice (case a
/// in tile storage: 82 copies of 8 columns a slot). A row range may also be cut between its
/// columns, where one segment exceeds a slot.
struct Slice {
  std::size_t family = 0, family_end = 0;
  index_t col_first = 0, col_count = 0;
  index_t offset = 0, elements = 0;
  index_t col_skip = 0, col_take = 0;  ///< col_take 0: whole members
  bool rows_cut = false;               ///< only the row pieces in [rows_first, rows_last]
  RowKey rows_first{}, rows_last{};

  bool holds(const Piece& row) const {
    if (!rows_cut) return true;
    const RowKey k = row_key(row);
    return rows_first <= k && k <= rows_last;
  }
};

/// Slices [first, end) of one message: elements [offset, offset + elements) of it.
struct Chunk {
  std::size_t message = 0;
  std::size_t first = 0, end = 0;
  index_t offset = 0, elements = 0;
};

/// The chunks of every message of one FamilyList; `begin[m]` is message m's first chunk.
struct Chunking {
  std::vector<Slice> slices;
  std::vector<Chunk> chunks;
  std::vector<std::size_t> begin;  ///< one per message, plus the end
};

/// The chunks of the three families lists of a plan: sent messages, received messages,
/// local parts.
struct Chunkings {
  Chunking send, recv, local;
};

/// Columns a member cut between its columns keeps together at least (a cache line of
/// doubles: the transposing copies' tile).
inline constexpr index_t cut_columns = 8;

/// Cuts every message m of d into chunks of about `chunk_elements(m)`, at column-member
/// boundaries of its families (a chunk holds at least one member). Sender and receiver
/// see the same families in the same order, so they cut alike (given limits that both
/// derive alike: a message's peer's node, say). With `within(m)` true, message m's chunks
/// hold at most `chunk_elements(m)` each, a member larger than that cut between its
/// columns, cut_columns at a time at least (so those columns may be larger still); or,
/// where messages are laid flat (`flat`, engine/matrix_sides.hpp), between its segments in
/// RowKey order (detail::cut_rows), whole segments a chunk, and a segment larger than the
/// limit alone between its columns.
/// @post the chunks of a message cover its elements in order, back to back.
template <class LimitOf, class Within>
requires std::is_invocable_r_v<index_t, LimitOf, const Message&> Chunking
cut_chunks(const Plan& plan, const FamilyList& d, LimitOf&& chunk_elements, Within&& within,
           bool flat = false) {
  Chunking c;
  // At least a slice per column block: sized once, not grown by doubling (K parts).
  c.slices.reserve(d.families.size());
  c.begin.reserve(d.messages.size() + 1);
  for (std::size_t m = 0; m < d.messages.size(); ++m) {
    const Message& msg = d.messages[m];
    const index_t limit = std::max<index_t>(1, chunk_elements(msg));
    const bool strict = within(msg);
    c.begin.push_back(c.chunks.size());
    index_t offset = 0;
    for (index_t f = msg.first, f_end = f; f < msg.first + msg.count; f = f_end) {
      // The column block [f, f_end): families with the same column members.
      const BlockFamily& fam = d.families[static_cast<std::size_t>(f)];
      for (f_end = f; f_end < msg.first + msg.count &&
                      detail::same_columns(d.families[static_cast<std::size_t>(f_end)], fam);
           ++f_end) {
      }
      const index_t width = plan.col_groups[static_cast<std::size_t>(fam.cols.group)].length;
      const index_t member = fam.buffer_ld * width;
      std::vector<detail::FlatRow> rows_in_order;  // flat, once a member is cut
      const auto add = [&](Slice sl) {
        c.slices.push_back(sl);
        Chunk& ch = c.chunks.back();
        ch.end = c.slices.size();
        ch.elements += sl.elements;
        offset += sl.elements;
      };
      const auto open = [&] {
        c.chunks.push_back(Chunk{m, c.slices.size(), c.slices.size(), offset, 0});
      };
      const auto empty = [&] { return c.chunks.size() == c.begin.back(); };
      for (index_t b = 0; strict && b < fam.cols.count;) {
        const index_t used = empty() ? limit : c.chunks.back().elements;
        const index_t n = std::min((limit - used) / member, fam.cols.count - b);
        if (n > 0) {
          add(Slice{static_cast<std::size_t>(f), static_cast<std::size_t>(f_end), b, n, offset,
                    n * member});
          b += n;
        } else if (member <= limit) {
          open();
        } else {  // a member larger than a chunk: a chunk's worth at a time
          // Columns in whole blocks of cut_columns: a transposing copy works on tiles of a
          // cache line (copy/host_transpose.hpp), and a thinner piece reads a source line
          // per element (case a with op t and 32 KiB slots: 0.19-0.28 s instead of 0.05 s).
          const auto by_columns = [&](Slice sl, index_t rows) {
            const index_t per =
                std::max<index_t>(cut_columns, limit / rows / cut_columns * cut_columns);
            for (index_t j = 0; j < width; j += per) {
              if (empty() || c.chunks.back().elements > 0) open();
              sl.offset = offset;
              sl.col_skip = j;
              sl.col_take = std::min(per, width - j);
              sl.elements = sl.col_take * rows;
              add(sl);
            }
          };
          const Slice member_slice{static_cast<std::size_t>(f), static_cast<std::size_t>(f_end), b,
                                   1};
          if (!flat) {
            by_columns(member_slice, fam.buffer_ld);
          } else {
            if (rows_in_order.empty())
              rows_in_order = detail::block_rows_in_order(plan, d, f, f_end);
            const auto emit = [&](const detail::RowSpan& span) {
              Slice sl = member_slice;
              sl.rows_cut = true;
              sl.rows_first = span.first;
              sl.rows_last = span.last;
              if (span.rows * width > limit) return by_columns(sl, span.rows);  // one place
              if (empty() || c.chunks.back().elements > 0) open();
              sl.offset = offset;
              sl.elements = span.rows * width;
              add(sl);
            };
            detail::cut_rows(rows_in_order, limit / width, emit);
          }
          open();
          b += 1;
        }
      }
      for (index_t b = 0; !strict && b < fam.cols.count;) {
        if (empty() || c.chunks.back().elements >= limit) open();
        const index_t room =
            std::max<index_t>(1, (limit - c.chunks.back().elements + member - 1) / member);
        const index_t n = std::min(room, fam.cols.count - b);
        add(Slice{static_cast<std::size_t>(f), static_cast<std::size_t>(f_end), b, n, offset,
                  n * member});
        b += n;
      }
    }
    // A chunk opened after a cut member and never filled.
    if (c.chunks.size() > c.begin.back() && c.chunks.back().elements == 0) c.chunks.pop_back();
  }
  c.begin.push_back(c.chunks.size());
  return c;
}

/// cut_chunks with no message held strictly within its limit.
template <class LimitOf>
requires std::is_invocable_r_v<index_t, LimitOf, const Message&> Chunking
cut_chunks(const Plan& plan, const FamilyList& d, LimitOf&& chunk_elements) {
  return cut_chunks(plan, d, chunk_elements, [](const Message&) { return false; });
}

/// cut_chunks with chunks of about `chunk_elements` in every message.
inline Chunking cut_chunks(const Plan& plan, const FamilyList& d, index_t chunk_elements) {
  return cut_chunks(plan, d, [chunk_elements](const Message&) { return chunk_elements; });
}

/// The chunk size of a message: about `chunk_elements`, or `packet_elements` when its
/// peer is in `packet_peers` (one flag per rank, or empty: between nodes, under a step
/// order, engine/node_schedule.hpp). Keeps references to its arguments.
inline auto message_chunk_limit(index_t chunk_elements, const std::vector<bool>& packet_peers,
                                index_t packet_elements) {
  return [chunk_elements, &packet_peers, packet_elements](const Message& msg) {
    const auto q = static_cast<std::size_t>(msg.peer);
    return q < packet_peers.size() && packet_peers[q] ? packet_elements : chunk_elements;
  };
}

/// Cuts a plan's messages into chunks (message_chunk_limit) and its local copies into
/// parts of about `local_part_elements` (0: `chunk_elements`).
inline Chunkings cut_chunkings(const Plan& plan, index_t chunk_elements,
                               index_t local_part_elements = 0,
                               const std::vector<bool>& packet_peers = {},
                               index_t packet_elements = 0) {
  const auto limit = message_chunk_limit(chunk_elements, packet_peers, packet_elements);
  return {
      cut_chunks(plan, plan.send, limit), cut_chunks(plan, plan.recv, limit),
      cut_chunks(plan, plan.local, local_part_elements > 0 ? local_part_elements : chunk_elements)};
}

namespace engine {

/// The column pieces of slice s: its members, or the part of one member it holds.
inline PieceGroup slice_cols(const Plan& plan, const FamilyList& d, const Slice& s) {
  PieceGroup g = plan.cols(d.families[s.family]).slice(s.col_first, s.col_count);
  if (s.col_take > 0) {
    g.src_start += s.col_skip;
    g.dst_start += s.col_skip;
    g.src_offset += s.col_skip;
    g.dst_offset += s.col_skip;
    g.length = s.col_take;
  }
  return g;
}

/// Calls f(row in block, b, row piece, column piece) for every segment of slice s:
/// columns outer, then the block's families, rows inner (the buffer order of
/// plan/block_family.hpp). `row in block` is the segment's first row in the column block.
/// An f that returns bool stops the walk with false; returns whether the walk went to the
/// end.
template <class F>
bool for_each_slice_segment(const Plan& plan, const FamilyList& d, const Slice& s, F&& f) {
  const BlockFamily& first = d.families[s.family];
  const PieceGroup cols = slice_cols(plan, d, s);
  for (index_t b = 0; b < cols.count; ++b) {
    const Piece col = cols.member(b);
    for (std::size_t k = s.family; k < s.family_end; ++k) {
      const BlockFamily& fam = d.families[k];
      const PieceGroup rows = plan.rows(fam);
      const index_t row0 = fam.buffer_offset - first.buffer_offset;
      for (index_t a = 0; a < rows.count; ++a) {
        const Piece row = rows.member(a);
        if (!s.holds(row)) continue;
        if constexpr (std::is_same_v<decltype(f(row0, b, row, col)), bool>) {
          if (!f(row0 + a * rows.length, b, row, col)) return false;
        } else {
          f(row0 + a * rows.length, b, row, col);
        }
      }
    }
  }
  return true;
}

/// The row pieces of slice s: of its families, those it holds.
inline index_t slice_row_pieces(const Plan& plan, const FamilyList& d, const Slice& s) {
  index_t n = 0;
  for (std::size_t k = s.family; k < s.family_end; ++k) {
    const PieceGroup rows = plan.rows(d.families[k]);
    if (!s.rows_cut) {
      n += rows.count;
      continue;
    }
    for (index_t a = 0; a < rows.count; ++a) n += s.holds(rows.member(a)) ? 1 : 0;
  }
  return n;
}

/// f(part, row piece, column piece) for each segment of message m of `d`, chunk by chunk
/// of `chunking` (as the copies are bound), until f returns false.
template <class F>
void for_each_message_segment(const Plan& plan, const FamilyList& d, const Chunking& chunking,
                              std::size_t m, F&& f) {
  for (std::size_t c = chunking.begin[m]; c < chunking.begin[m + 1]; ++c)
    for (std::size_t k = chunking.chunks[c].first; k < chunking.chunks[c].end; ++k) {
      const Slice& s = chunking.slices[k];
      const index_t part = d.families[s.family].part;
      // A private target is settled by its first segment (transport/push_targets.hpp):
      // the walk stops there, not after the slice's other segments (1 x 1 tiles: 32768).
      if (!for_each_slice_segment(plan, d, s,
                                  [&](index_t, index_t, const Piece& r, const Piece& col) {
                                    return static_cast<bool>(f(part, r, col));
                                  }))
        return;
    }
}

}  // namespace engine

}  // namespace redist
