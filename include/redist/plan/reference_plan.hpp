#pragma once
/// @file plan/reference_plan.hpp
/// The per-segment plan, ReferencePlan (Cao et al. 2021, section 3, Algorithm 1, and
/// section 5): what this rank sends to each peer, receives from each peer, and copies
/// locally, as ordered segment lists. It is the reference that tests compare the plan that
/// runs (Plan, plan.hpp) with, and the enumeration that Plan's fallback for non-grid
/// distributions merges into families (plan/tile_plan.hpp). Pure: no MPI, no Kokkos, no
/// element type.
///
/// Sender and receiver derive the same order for the segments they exchange, without
/// exchanging sizes: segments are ordered by (batch, peer, column piece, row piece),
/// where pieces are the global 1-D piece indices of the AxisCut. Each (peer, batch) pair
/// is one message carrying exactly the segments' elements ("dynamic volume"), packed
/// segment after segment, each column-major.
///
/// Batches (section 6.2.1): ranges of region columns whose messages are in flight
/// together, so buffer memory is bounded by the largest batch. Either `batch` source tile
/// columns at a time, or as wide as keeps every rank's send + receive buffers within
/// `max_buffer_bytes` (plan/batch_budget.hpp), cutting inside a source tile column when
/// it alone exceeds the budget; a column piece across such a cut becomes one segment per
/// batch. Batches depend only on global quantities, so every rank agrees on them.

#include <algorithm>
#include <cstddef>
#include <vector>

#include <redist/axis_cut.hpp>
#include <redist/distribution.hpp>
#include <redist/layout.hpp>
#include <redist/plan/batch_budget.hpp>
#include <redist/plan/plan_header.hpp>
#include <redist/plan/plan_inputs.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>

namespace redist {

/// A segment with its place in the message order and in its message buffer.
struct PlannedSegment {
  Segment segment;
  index_t col_piece = 0;      ///< global column piece index (message order, outer)
  index_t row_piece = 0;      ///< global row piece index (message order, inner)
  index_t batch = 0;          ///< batch of the segment's columns
  int peer = 0;               ///< the other rank (source owner when receiving)
  index_t buffer_offset = 0;  ///< batch buffer offset of the segment's (0, 0) (remote only)
  index_t buffer_ld = 0;      ///< leading dimension of the segment in the buffer (remote only)
};

/// Everything one rank sends (or receives).
struct Direction {
  std::vector<PlannedSegment> segments;  ///< sorted by (batch, peer, col, row piece)
  std::vector<Message> messages;         ///< sorted by (batch, peer)
  std::vector<index_t> batch_elements;   ///< buffer elements each batch needs
  index_t elements = 0;
};

/// One rank's per-segment plan: its header (plan/plan_header.hpp) and its segments.
class ReferencePlan : public PlanHeader {
 public:
  using PlanHeader::PlanHeader;
  Direction send;
  Direction recv;
  std::vector<PlannedSegment> local;  ///< sorted like the others; peer == rank

  /// Heap bytes held by the plan: capacity x element size of each of its containers.
  std::size_t memory_bytes() const {
    return (send.segments.capacity() + recv.segments.capacity() + local.capacity()) *
               sizeof(PlannedSegment) +
           (send.messages.capacity() + recv.messages.capacity()) * sizeof(Message) +
           (send.batch_elements.capacity() + recv.batch_elements.capacity() +
            batch_columns.capacity()) *
               sizeof(index_t);
  }
};

namespace detail {

inline bool segment_order(const PlannedSegment& a, const PlannedSegment& b) {
  if (a.batch != b.batch) return a.batch < b.batch;
  if (a.peer != b.peer) return a.peer < b.peer;
  if (a.col_piece != b.col_piece) return a.col_piece < b.col_piece;
  return a.row_piece < b.row_piece;
}

/// Sorts a direction's segments, cuts them into messages and lays the messages of each
/// batch back to back in the batch buffer. Inside a message, the segments of one column
/// piece (consecutive in the order, stacked by row piece) form one column-major block of
/// their summed rows: where the source or the target stores those rows one after the
/// other (ScaLAPACK storage does), packing or unpacking them is one tall copy with long
/// contiguous runs instead of one short copy per segment.
inline void finish_direction(Direction& d, index_t batches) {
  std::sort(d.segments.begin(), d.segments.end(), segment_order);
  d.batch_elements.assign(static_cast<std::size_t>(batches), 0);
  for (index_t s = 0; s < static_cast<index_t>(d.segments.size()); ++s) {
    PlannedSegment& ps = d.segments[static_cast<std::size_t>(s)];
    if (d.messages.empty() || d.messages.back().peer != ps.peer ||
        d.messages.back().batch != ps.batch)
      d.messages.push_back(Message{ps.peer, ps.batch, s, 0, 0,
                                   d.batch_elements[static_cast<std::size_t>(ps.batch)]});
    Message& m = d.messages.back();
    ps.buffer_offset = m.buffer_offset + m.elements;
    const index_t n = ps.segment.extent.size();
    if (s > m.first) {
      // The same column piece as the previous segment: stack it under that one.
      PlannedSegment& prev = d.segments[static_cast<std::size_t>(s - 1)];
      if (prev.col_piece == ps.col_piece)
        ps.buffer_offset = prev.buffer_offset + prev.segment.extent.rows;
    }
    m.elements += n;
    m.count += 1;
    d.batch_elements[static_cast<std::size_t>(ps.batch)] += n;
    d.elements += n;
  }
  // A group's leading dimension is its summed rows: known once the group is complete.
  for (std::size_t s = 0, end = 0; s < d.segments.size(); s = end) {
    index_t rows = 0;
    for (end = s;
         end < d.segments.size() && d.segments[end].col_piece == d.segments[s].col_piece &&
         d.segments[end].peer == d.segments[s].peer && d.segments[end].batch == d.segments[s].batch;
         ++end)
      rows += d.segments[end].segment.extent.rows;
    for (std::size_t k = s; k < end; ++k) d.segments[k].buffer_ld = rows;
  }
}

}  // namespace detail

/// Plans rank `rank`'s part of moving region `r` from `src` to `dst`, among `comm_size`
/// ranks. Cost: O(pieces per axis + segments this rank touches), plus a scan of the
/// touched tile box for distributions without EnumeratesOwnedTiles, plus the budget's
/// pass over the column pieces when it binds (plan/batch_budget.hpp).
/// @throws region_error if r does not fit; distribution_error if a distribution uses
/// more ranks than comm_size or returns an owner outside it; invalid_argument for bad
/// options, a rank outside [0, comm_size), or a max_buffer_bytes below the feasible
/// minimum (plan/batch_budget.hpp), the same on every rank.
/// @post with batch = 0, stats.buffer_elements * element_bytes <= max_buffer_bytes.
template <class SrcLayout, class DstLayout>
ReferencePlan make_reference_plan(const SrcLayout& src, const DstLayout& dst, const Region& r,
                                  int rank, int comm_size, PlanOptions options = {}) {
  detail::check_plan_inputs(src, dst, r, rank, comm_size, options);

  ReferencePlan plan(rank, comm_size, options);
  if (r.empty()) return plan;

  const AxisCut rows(src.shape().rows(), dst.shape().rows(), r.axis<Axis::row>());
  const AxisCut cols(src.shape().cols(), dst.shape().cols(), r.axis<Axis::col>());
  plan.take_batches(detail::plan_batches(src, dst, r, comm_size, options.batch,
                                         options.max_buffer_bytes, options.element_bytes,
                                         options.batch_bytes));
  // Column piece b in batches: parts [part_first[b], part_first[b + 1]), one unless a
  // batch boundary falls inside the piece.
  struct ColumnPart {
    Piece piece;
    index_t batch;
  };
  std::vector<ColumnPart> parts;
  std::vector<index_t> part_first;
  parts.reserve(cols.pieces().size());
  part_first.reserve(cols.pieces().size() + 1);
  {
    index_t column = 0, k = 0;
    for (const Piece& p : cols.pieces()) {
      part_first.push_back(static_cast<index_t>(parts.size()));
      detail::for_each_batch_part(
          plan.batch_columns, k, column, p.length, [&](index_t c, index_t width, index_t batch) {
            const index_t d = c - column;
            parts.push_back(ColumnPart{
                Piece{p.src_tile, p.dst_tile, p.src_offset + d, p.dst_offset + d, width}, batch});
          });
      column += p.length;
    }
    part_first.push_back(static_cast<index_t>(parts.size()));
  }
  const auto planned = [&](index_t a, index_t b, index_t part, int peer) {
    const Piece& pr = rows.piece(a);
    const ColumnPart& pc = parts[static_cast<std::size_t>(part)];
    const Role role = role_of(rows.position(a), cols.position(b));
    return PlannedSegment{make_segment(pr, pc.piece, role), b, a, pc.batch, peer, 0, 0};
  };

  const TileBox dst_box{{rows.dst_begin(), cols.dst_begin()}, {rows.dst_end(), cols.dst_end()}};
  const TileBox src_box{{rows.src_begin(), cols.src_begin()}, {rows.src_end(), cols.src_end()}};
  detail::check_owner_share(src, src_box, rank, comm_size, "src");
  detail::check_owner_share(dst, dst_box, rank, comm_size, "dst");

  // Receiving side: the target tiles this rank owns.
  for_each_owned_tile(dst.distribution(), rank, dst_box, [&](TileIndex t) {
    detail::check_owner(dst.owner(t), comm_size, "dst", t);
    const auto [a0, a1] = rows.pieces_of_dst(t.m);
    const auto [b0, b1] = cols.pieces_of_dst(t.n);
    plan.stats.dst_tiles += 1;
    plan.stats.categories[static_cast<std::size_t>(category_of(a1 - a0, b1 - b0))] += 1;
    for (index_t b = b0; b < b1; ++b)
      for (index_t a = a0; a < a1; ++a) {
        const TileIndex y{rows.piece(a).src_tile, cols.piece(b).src_tile};
        const int owner = src.owner(y);
        detail::check_owner(owner, comm_size, "src", y);
        for (index_t k = part_first[static_cast<std::size_t>(b)];
             k < part_first[static_cast<std::size_t>(b) + 1]; ++k)
          (owner == rank ? plan.local : plan.recv.segments).push_back(planned(a, b, k, owner));
      }
  });
  // Sending side: the source tiles this rank owns, to every other target owner.
  for_each_owned_tile(src.distribution(), rank, src_box, [&](TileIndex y) {
    detail::check_owner(src.owner(y), comm_size, "src", y);
    const auto [a0, a1] = rows.pieces_of_src(y.m);
    const auto [b0, b1] = cols.pieces_of_src(y.n);
    for (index_t b = b0; b < b1; ++b)
      for (index_t a = a0; a < a1; ++a) {
        const TileIndex t{rows.piece(a).dst_tile, cols.piece(b).dst_tile};
        const int owner = dst.owner(t);
        detail::check_owner(owner, comm_size, "dst", t);
        if (owner == rank) continue;
        for (index_t k = part_first[static_cast<std::size_t>(b)];
             k < part_first[static_cast<std::size_t>(b) + 1]; ++k)
          plan.send.segments.push_back(planned(a, b, k, owner));
      }
  });

  detail::finish_direction(plan.send, plan.batches);
  detail::finish_direction(plan.recv, plan.batches);
  std::sort(plan.local.begin(), plan.local.end(), detail::segment_order);

  PlanStats& s = plan.stats;
  s.elements_sent = plan.send.elements;
  s.elements_received = plan.recv.elements;
  for (const auto& ps : plan.local) s.elements_local += ps.segment.extent.size();
  s.messages_sent = static_cast<index_t>(plan.send.messages.size());
  s.messages_received = static_cast<index_t>(plan.recv.messages.size());
  s.segments_sent = static_cast<index_t>(plan.send.segments.size());
  s.segments_received = static_cast<index_t>(plan.recv.segments.size());
  s.segments_local = static_cast<index_t>(plan.local.size());
  for (index_t k = 0; k < plan.batches; ++k)
    s.buffer_elements =
        std::max(s.buffer_elements, plan.send.batch_elements[static_cast<std::size_t>(k)] +
                                        plan.recv.batch_elements[static_cast<std::size_t>(k)]);
  s.plan_bytes = static_cast<index_t>(plan.memory_bytes());
  return plan;
}

}  // namespace redist
