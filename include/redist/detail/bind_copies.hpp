#pragma once
/// @file detail/bind_copies.hpp
/// Binds the compact plan's families (plan/block_family.hpp) to memory: each slice of a
/// family (some of its column members, task_graph.hpp) becomes StridedCopies
/// (copy_program.hpp) between two sides. A side is a matrix (its tiles) or a message
/// buffer (the family's dense column-major block).
///
/// When both sides separate into a row part and a column part (a message buffer always
/// does; a matrix does when its StorageMap is a LocalMatrix, as ScaLAPACK storage is),
/// a slice is one StridedCopy whatever its number of segments: its runs are the row
/// members, merged where they continue each other on both sides, and its members are
/// the column members. Otherwise (tiles in separate allocations) it is one StridedCopy
/// per segment, sharing one member, and one run per segment length.

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/copy_program.hpp>
#include <redist/index.hpp>
#include <redist/placement.hpp>
#include <redist/plan/compact_plan.hpp>
#include <redist/task_graph.hpp>

namespace redist::detail {

/// One side of a copy: a matrix's tiles (as the source or as the target of the pieces),
/// or a message buffer. A transposed source (transform.hpp) is addressed by pieces of
/// op(A): a row piece is a piece of A's columns, a column piece one of A's rows.
template <class T, class Matrix>
class MatrixSide {
 public:
  MatrixSide(const Matrix& m, bool source, bool transposed = false)
      : matrix_(&m), source_(source), transposed_(transposed) {
    // Separable only when the placement type says so (stores_local_matrix): the message
    // layout depends on it, and every rank must derive the same one from the types.
    if constexpr (stores_local_matrix<typename Matrix::placement_type>)
      local_ = m.storage().local_matrix();
    if (local_ && !m.allocations().empty())
      base_ = m.allocations()[static_cast<std::size_t>(local_->allocation)].data();
  }
  bool separable() const { return local_ != nullptr; }
  bool transposed() const { return transposed_; }
  /// Separable sides: base, row part of row piece p, column part of column piece p, ld,
  /// and the step from one element of a run to the next.
  T* base() const { return base_; }
  index_t row(const Piece& p) const { return transposed_ ? local_col(p) : local_row(p); }
  index_t col(const Piece& p) const { return transposed_ ? local_row(p) : local_col(p); }
  index_t ld() const { return local_->ld; }
  index_t run_step() const { return transposed_ ? local_->ld : 1; }
  /// Any side: the address of the segment (row piece r x column piece c) and its ld.
  std::pair<T*, index_t> at(const Piece& r, const Piece& c) const {
    if (transposed_) {
      const auto ref = matrix_->tile_ref(TileIndex{tile(c), tile(r)});
      return {ref.data + offset(c) + offset(r) * ref.ld, ref.ld};
    }
    const auto ref = matrix_->tile_ref(TileIndex{tile(r), tile(c)});
    return {ref.data + offset(r) + offset(c) * ref.ld, ref.ld};
  }

 private:
  index_t tile(const Piece& p) const { return source_ ? p.src_tile : p.dst_tile; }
  index_t offset(const Piece& p) const { return source_ ? p.src_offset : p.dst_offset; }
  index_t local_row(const Piece& p) const {
    return local_->row_offset[static_cast<std::size_t>(tile(p))] + offset(p);
  }
  index_t local_col(const Piece& p) const {
    return (local_->col_offset[static_cast<std::size_t>(tile(p))] + offset(p)) * local_->ld;
  }

  const Matrix* matrix_;
  bool source_;
  bool transposed_;
  const LocalMatrix* local_ = nullptr;
  T* base_ = nullptr;
};

/// A message buffer side of one slice: rows a * Lr, columns b * Lc * ld, relative to
/// the slice's start; pointers are set per message (rebase()).
struct BufferSide {};

/// A source read in place from another rank's memory (direct transport): the address
/// and ld of each segment, in the order of for_each_slice_segment.
template <class T>
struct DescribedSide {
  mutable const std::pair<const T*, index_t>* next;  ///< advanced as segments are bound
  bool transposed = false;                           ///< the sender's source is op(A)'s
};

template <class S>
struct is_described : std::false_type {};
template <class T>
struct is_described<DescribedSide<T>> : std::true_type {};

/// Calls f(row in block, b, row piece, column piece) for every segment of slice s:
/// columns outer, then the block's families, rows inner (the buffer order of
/// plan/block_family.hpp). `row in block` is the segment's first row in the column block.
template <class F>
void for_each_slice_segment(const CompactPlan& plan, const FamilyList& d, const Slice& s, F&& f) {
  const BlockFamily& first = d.families[s.family];
  const PieceGroup cols = plan.cols(first).slice(s.col_first, s.col_count);
  for (index_t b = 0; b < cols.count; ++b) {
    const Piece col = cols.member(b);
    for (std::size_t k = s.family; k < s.family_end; ++k) {
      const BlockFamily& fam = d.families[k];
      const PieceGroup rows = plan.rows(fam);
      const index_t row0 = fam.buffer_offset - first.buffer_offset;
      for (index_t a = 0; a < rows.count; ++a) f(row0 + a * rows.length, b, rows.member(a), col);
    }
  }
}

/// Appends the copies of slice s (of message-relative offset s.offset) to `pool`; for a
/// buffer side, each copy's offset from the message start goes to `rel` (one per copy).
/// `flat`: the message is laid segment after segment, each contiguous, instead of as
/// stacked column blocks. Neither side separates when both matrices keep tiles apart
/// (tile storage): both ends then copy segment by segment, and writing or reading each
/// segment contiguously is faster than striding through a block (measured: standard
/// cases, tile storage). The slice covers the same buffer range either way.
/// Returns the number of copies added.
template <class T, class Src, class Dst>
std::size_t bind_slice(const CompactPlan& plan, const FamilyList& d, const Slice& s, const Src& src,
                       const Dst& dst, CopyPool<T>& pool, std::vector<index_t>& rel,
                       bool flat = false) {
  const BlockFamily& first = d.families[s.family];
  const PieceGroup cols = plan.cols(first).slice(s.col_first, s.col_count);
  const index_t lc = cols.length, ldb = first.buffer_ld;
  constexpr bool src_buffer = std::is_same_v<Src, BufferSide>;
  constexpr bool dst_buffer = std::is_same_v<Dst, BufferSide>;
  constexpr bool described = is_described<Src>::value;
  const auto separable = [](const auto& side) {
    using S = std::decay_t<decltype(side)>;
    if constexpr (std::is_same_v<S, BufferSide>)
      return true;
    else if constexpr (requires { side.separable(); })
      return side.separable();
    else
      return false;
  };
  const auto transposed = [](const auto& side) {
    if constexpr (requires { side.transposed(); })
      return side.transposed();
    else if constexpr (requires { side.transposed; })
      return side.transposed;
    else
      return false;
  };
  const std::size_t before = pool.copies.size();
  if constexpr (!described) {
    if (separable(src) && separable(dst)) {
      // One copy: the row members of every family of the block as runs, the column
      // members as members.
      StridedCopy<T> c;
      c.run_first = static_cast<index_t>(pool.runs.size());
      c.member_first = static_cast<index_t>(pool.members.size());
      c.col_len = lc;
      c.transposed = transposed(src);
      index_t src_step = 1;
      if constexpr (!src_buffer) src_step = src.run_step();
      const auto row_of = [&](const auto& side, index_t row, const Piece& p) {
        if constexpr (std::is_same_v<std::decay_t<decltype(side)>, BufferSide>)
          return row;
        else
          return side.row(p);
      };
      const auto col_of = [&](const auto& side, index_t b, const Piece& p) {
        if constexpr (std::is_same_v<std::decay_t<decltype(side)>, BufferSide>)
          return b * lc * ldb;
        else
          return side.col(p);
      };
      for (std::size_t k = s.family; k < s.family_end; ++k) {
        const BlockFamily& fam = d.families[k];
        const PieceGroup rows = plan.rows(fam);
        const index_t row0 = fam.buffer_offset - first.buffer_offset;
        for (index_t a = 0; a < rows.count; ++a) {
          const Piece p = rows.member(a);
          const index_t row = row0 + a * rows.length;
          const RowRun run{row_of(src, row, p), row_of(dst, row, p), rows.length};
          RowRun* last = pool.runs.size() > static_cast<std::size_t>(c.run_first)
                             ? &pool.runs.back()
                             : nullptr;
          if (last && last->src + last->length * src_step == run.src &&
              last->dst + last->length == run.dst)
            last->length += run.length;  // continues the previous run on both sides
          else
            pool.runs.push_back(run);
        }
      }
      for (index_t b = 0; b < cols.count; ++b) {
        const Piece p = cols.member(b);
        pool.members.push_back(ColumnMember{col_of(src, b, p), col_of(dst, b, p)});
      }
      c.runs = static_cast<index_t>(pool.runs.size()) - c.run_first;
      c.members = cols.count;
      if constexpr (src_buffer) {
        c.lds = ldb;
      } else {
        c.src = src.base();
        c.lds = src.ld();
      }
      if constexpr (dst_buffer) {
        c.ldd = ldb;
      } else {
        c.dst = dst.base();
        c.ldd = dst.ld();
      }
      if constexpr (src_buffer || dst_buffer) rel.push_back(s.offset);
      pool.copies.push_back(c);
      return 1;
    }
  }
  // One copy per segment; segments of one length share a run (and all share a member).
  const auto member_first = static_cast<index_t>(pool.members.size());
  pool.members.push_back(ColumnMember{0, 0});
  index_t run_at = -1, run_length = -1, flat_at = s.offset;
  for_each_slice_segment(plan, d, s, [&](index_t row, index_t b, const Piece& r, const Piece& col) {
    if (r.length != run_length) {
      run_at = static_cast<index_t>(pool.runs.size());
      run_length = r.length;
      pool.runs.push_back(RowRun{0, 0, r.length});
    }
    StridedCopy<T> c;
    c.run_first = run_at;
    c.runs = 1;
    c.member_first = member_first;
    c.members = 1;
    c.col_len = lc;
    c.transposed = transposed(src);
    const index_t buffer_at = flat ? flat_at : s.offset + row + b * lc * ldb;
    const index_t buffer_ld = flat ? r.length : ldb;
    flat_at += r.length * lc;
    if constexpr (src_buffer) {
      c.lds = buffer_ld;
      rel.push_back(buffer_at);
    } else if constexpr (described) {
      const auto [p, ld] = *src.next++;
      c.src = p;
      c.lds = ld;
    } else {
      const auto [p, ld] = src.at(r, col);
      c.src = p;
      c.lds = ld;
    }
    if constexpr (dst_buffer) {
      c.ldd = buffer_ld;
      rel.push_back(buffer_at);
    } else {
      const auto [p, ld] = dst.at(r, col);
      c.dst = p;
      c.ldd = ld;
    }
    pool.copies.push_back(c);
  });
  return pool.copies.size() - before;
}

}  // namespace redist::detail
