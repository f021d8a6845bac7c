#pragma once
/// @file plan/block_family.hpp
/// Block families, the unit of the plan, and the one definition of the order and
/// buffer layout of the messages built from them.
///
/// A family is (row group) x (column group): the Cartesian product of a strided run of
/// row pieces and a strided run of column pieces (axis_groups.hpp), i.e. a 2-D product
/// of strided blocks. Its segments are the products of one row member and one column
/// member: segment (a, b) is the row piece rows.member(a) times the column piece
/// cols.member(b), exactly a segment of the per-segment plan (plan/reference_plan.hpp).
///
/// Order and buffer layout (identical on the sending and the receiving rank, derived
/// without exchanging sizes):
/// - messages are ordered by (batch, peer); a message carries every family between its
///   two ranks in its batch;
/// - inside a message, families are ordered by (part, column group, first column
///   member, row group, first row member); a move of one part has only part 0. Group indices are
///   local to a rank's plan, but their order is not: (class, first piece) on the per-axis path,
///   then the single-member column groups of pieces cut by a batch boundary in (class, piece)
///   order (plan/batch_budget.hpp), (column piece, first row piece) on the per-segment
///   fallback, so both ends derive the same family order;
/// - the messages of a batch lie back to back in the batch buffer, in message order,
///   from offset 0 (Message::buffer_offset, FamilyList::batch_elements: the meaning of
///   plan/reference_plan.hpp's Message and Direction);
/// - inside a message, families in family order form column blocks: consecutive families
///   with the same column members (column group and range) are stacked, each taking
///   rows.count * rows.length rows of one dense column-major block whose leading
///   dimension `buffer_ld` is the sum of their rows; blocks lie back to back. Element i
///   of row member a and element j of column member b of family f is at
///   f.buffer_offset + (a * rows.length + i) + (b * cols.length + j) * f.buffer_ld.
///   Stacking lets one pass over a column of the block gather every row group of the
///   message, so each source column is read once however many row groups there are.

#include <algorithm>
#include <cstddef>
#include <vector>

#include <redist/compiled_engine.hpp>
#include <redist/config.hpp>
#include <redist/plan/piece_group.hpp>
#include <redist/plan/plan_header.hpp>

namespace redist {

/// Members [first, first + count) of group `group` of one axis of a Plan.
struct GroupRange {
  index_t group = 0;
  index_t first = 0;
  index_t count = 0;
  friend constexpr bool operator==(const GroupRange&, const GroupRange&) = default;
};

/// Rows x columns of strided pieces, and where its dense block sits in its batch buffer.
struct BlockFamily {
  GroupRange rows;            ///< into Plan::row_groups
  GroupRange cols;            ///< into Plan::col_groups
  index_t buffer_offset = 0;  ///< batch-buffer offset of element (0, 0)
  index_t buffer_ld = 0;      ///< leading dimension of its column block in the buffer
  index_t part =
      0;  ///< which (source, target, region) of a several-part move (plan/plan_parts.hpp)
  friend constexpr bool operator==(const BlockFamily&, const BlockFamily&) = default;
};

/// Everything one rank sends, receives, or copies locally, as families.
struct FamilyList {
  std::vector<BlockFamily> families;    ///< message after message, each in family order
  std::vector<Message> messages;        ///< by (batch, peer); first/count index `families`
  std::vector<index_t> batch_elements;  ///< buffer elements each batch needs
  index_t elements = 0;                 ///< elements of all families
  index_t segments = 0;                 ///< segments (row member x column member) of all
};

/// Calls f(row piece, column piece, offset) for every segment of the family whose rows and
/// columns are `rows` and `cols` (see Plan::rows / cols), columns outer, rows
/// inner; offset is the segment's (0, 0) relative to the family's (0, 0), in a block of
/// leading dimension `ld` (BlockFamily::buffer_ld).
/// @post visits rows.count * cols.count segments; offsets follow the file's layout.
template <class F>
constexpr void for_each_segment(const PieceGroup& rows, const PieceGroup& cols, index_t ld, F&& f) {
  for (index_t b = 0; b < cols.count; ++b)
    for (index_t a = 0; a < rows.count; ++a)
      f(rows.member(a), cols.member(b), a * rows.length + b * cols.length * ld);
}

namespace detail {

/// Whether two families have the same column members (and so share a column block).
constexpr bool same_columns(const BlockFamily& x, const BlockFamily& y) {
  return x.cols == y.cols && x.part == y.part;
}

/// The family order of a message (see the file comment).
constexpr bool family_order(const BlockFamily& x, const BlockFamily& y) {
  if (x.part != y.part) return x.part < y.part;
  if (x.cols.group != y.cols.group) return x.cols.group < y.cols.group;
  if (x.cols.first != y.cols.first) return x.cols.first < y.cols.first;
  if (x.rows.group != y.rows.group) return x.rows.group < y.rows.group;
  return x.rows.first < y.rows.first;
}

/// Appends the message (peer, batch) made of `families` to `d`: puts them in family
/// order, lays them out after the batch's earlier messages and counts them.
/// @pre messages are appended in (batch, peer) order; d.batch_elements covers `batch`;
/// families is not empty.
REDIST_COMPILED_INLINE void append_message(FamilyList& d, int peer, index_t batch,
                                           const std::vector<BlockFamily>& families,
                                           const std::vector<PieceGroup>& rows,
                                           const std::vector<PieceGroup>& cols);

/// append_message for families already placed in d.families, [first, first + count), after
/// the list's earlier messages: sorts and lays them out there, without a copy through a
/// vector of their own.
/// @pre as append_message's; count > 0, first + count <= d.families.size().
REDIST_COMPILED_INLINE void lay_out_message(FamilyList& d, int peer, index_t batch,
                                            std::size_t first, std::size_t count,
                                            const std::vector<PieceGroup>& rows,
                                            const std::vector<PieceGroup>& cols);

}  // namespace detail
}  // namespace redist

#if !defined(REDIST_COMPILED_ENGINE)
#include <redist/plan/block_family_definitions.hpp>
#endif
