#pragma once
/// @file engine/bind_copies.hpp
/// Binds the plan's families (plan/block_family.hpp) to memory: each slice of a
/// family (some of its column members, task_graph.hpp) becomes StridedCopies
/// (copy/strided_copy.hpp) between two sides (engine/matrix_sides.hpp). A side is a matrix (its
/// tiles), a message buffer (the family's dense column-major block) or a peer's source
/// read in place.
///
/// When both sides separate into a row part and a column part (a stacked message buffer
/// always does; a matrix does when its StorageMap is a LocalMatrix, as ScaLAPACK storage
/// is, or when its tiles separate where messages are stacked, engine/matrix_sides.hpp),
/// a slice is one StridedCopy whatever its number of segments: its runs are the row
/// members, merged where they continue each other on both sides, and its members are
/// the column members. Otherwise (tiles in separate allocations) the slice's segments go
/// column piece by column piece, rows in matrix order, and consecutive segments of one
/// column piece that lie in the same tile (the same allocation for a local matrix, any
/// place of a buffer) with the same leading dimensions on both sides share one
/// StridedCopy: one run each, merged where they continue each other on both sides.
///
/// Example, case c of redist-bench (1024^2 source tiles -> 32^2 target tiles, 2 x 1
/// grids, tile storage): a source tile column piece sends 16 segments of 32 x 32, rows
/// 32, 96, ..., 992 of the tile. Laid flat in matrix order they are one StridedCopy of
/// 16 runs: each column of the source tile is read top down once, not 16 times 32
/// columns apart.

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/copy/strided_copy.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/matrix_sides.hpp>
#include <redist/engine/separated_source.hpp>
#include <redist/engine/shared_runs.hpp>
#include <redist/index.hpp>
#include <redist/plan.hpp>

namespace redist::engine {

/// Appends the copies of slice s (of message-relative offset s.offset) to `pool`; for a
/// buffer side, each copy's offset from the message start goes to `rel` (one per copy).
/// `flat`: the message is laid segment after segment, each contiguous, instead of as
/// stacked column blocks: column piece by column piece, rows in matrix order (the pieces'
/// target tile and offset, which both ends know alike). Only between two tile-stored
/// matrices of tiles that are not small (MatrixSides::flat): both ends then copy tile by
/// tile, and writing or reading each segment contiguously, in the order the tiles are
/// stored, is faster than striding through a block or hopping between tiles in family
/// order (measured: standard cases, tile storage). The slice covers the same buffer range either
/// way. A source read in place (DescribedSide) is bound segment by segment in
/// for_each_slice_segment's order, or, for a device (SharedRuns), as one copy when its segments
/// separate (engine/separated_source.hpp); a target written in a peer's memory
/// (DescribedTarget, push) segment by segment in that order. `shared`: the runs already bound into
/// `pool` by earlier slices (separable sides only). Returns the number of copies added.
template <class T, class Src, class Dst>
std::size_t bind_slice(const Plan& plan, const FamilyList& d, const Slice& s, const Src& src,
                       const Dst& dst, CopyPool<T>& pool, std::vector<index_t>& rel,
                       SharedRuns& shared, bool flat = false) {
  const BlockFamily& first = d.families[s.family];
  const PieceGroup cols = slice_cols(plan, d, s);
  const index_t lc = cols.length, ldb = first.buffer_ld;
  constexpr bool src_buffer = std::is_same_v<Src, BufferSide>;
  constexpr bool dst_buffer = std::is_same_v<Dst, BufferSide>;
  constexpr bool described_src = is_described<Src>::value;
  constexpr bool described = described_src || is_described_target<Dst>::value;
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
  // Of the slice's families (those it holds); a column piece has a segment each. Counted
  // where needed: the one-copy path below never needs it.
  const auto row_pieces = [&] { return slice_row_pieces(plan, d, s); };
  if constexpr (described_src) {
    // A peer's source that separates binds as one copy, as a local matrix does.
    if (shared.separates_peer_sources() && separable(dst) && !s.rows_cut) {
      const index_t n = row_pieces();
      if (auto whole = separate(src.next, n, cols.count, transposed(src))) {
        src.next += n * cols.count;
        return bind_slice(plan, d, s, *whole, dst, pool, rel, shared, flat);
      }
    }
  }
  if constexpr (is_described_target<Dst>::value) {
    // A peer's target that separates binds as one copy from a source that does: on the
    // host too (engine/separated_source.hpp, why).
    if (separable(src) && !s.rows_cut) {
      const index_t n = row_pieces();
      if (auto whole = separate(dst.next, n, cols.count, false)) {
        dst.next += n * cols.count;
        return bind_slice(plan, d, s, src, *whole, pool, rel, shared, flat);
      }
    }
  }
  const std::size_t before = pool.copies.size();
  if constexpr (!described) {
    // A flat message is laid segment after segment: never one copy per slice.
    // A slice of some rows (laid flat only) goes segment by segment.
    if (separable(src) && separable(dst) && !(flat && (src_buffer || dst_buffer)) && !s.rows_cut) {
      // One copy: the row members of every family of the block as runs, the column
      // members as members.
      StridedCopy<T> c;
      c.member_first = static_cast<index_t>(pool.members.size());
      c.col_len = lc;
      c.transposed = transposed(src);
      // Row piece `index` of the slice (at `row` of a buffer), column piece b.
      const auto row_of = [&](const auto& side, index_t index, index_t row, const Piece& p) {
        using S = std::decay_t<decltype(side)>;
        if constexpr (std::is_same_v<S, BufferSide>)
          return row;
        else if constexpr (is_separated<S>::value)
          return side.rows[static_cast<std::size_t>(index)];
        else
          return side.row(p);
      };
      const auto col_of = [&](const auto& side, index_t b, const Piece& p) {
        using S = std::decay_t<decltype(side)>;
        if constexpr (std::is_same_v<S, BufferSide>)
          return b * lc * ldb;
        else if constexpr (is_separated<S>::value)
          return side.cols[static_cast<std::size_t>(b)];
        else
          return side.col(p);
      };
      const auto identity = [](const auto& side) {
        if constexpr (std::is_same_v<std::decay_t<decltype(side)>, BufferSide>)
          return std::pair<const void*, index_t>{nullptr, 0};
        else
          return std::pair<const void*, index_t>{side.base(), side.ld()};
      };
      const auto [src_base, src_ld] = identity(src);
      const auto [dst_base, dst_ld] = identity(dst);
      // The runs are shared (SharedRuns::runs): by the slice's family block, else by its rows.
      constexpr bool separated = is_separated<Src>::value || is_separated<Dst>::value;
      const SharedRuns::SliceKey slice_key{&d,     s.family, s.family_end, src_base,
                                           src_ld, dst_base, dst_ld,       separated};
      const auto rows_key = [&] {
        SharedRuns::Key key{{}, src_base, src_ld, dst_base, dst_ld};
        std::vector<index_t>& rows = std::get<0>(key);
        rows.reserve(5 * (s.family_end - s.family) + 2);
        // A separated side lists its rows slice by slice: share only within the families.
        if constexpr (separated)
          rows = {static_cast<index_t>(s.family), static_cast<index_t>(s.family_end)};
        for (std::size_t k = s.family; k < s.family_end; ++k) {
          const BlockFamily& fam = d.families[k];
          rows.insert(rows.end(), {fam.part, fam.rows.group, fam.rows.first, fam.rows.count,
                                   fam.buffer_offset - first.buffer_offset});
        }
        return key;
      };
      // The block's runs appended to the pool: (first, count).
      const auto bind_runs = [&] {
        const auto run_first = static_cast<index_t>(pool.runs.size());
        index_t src_step = 1;
        if constexpr (!src_buffer) src_step = src.run_step();
        const auto each_piece = [&](const auto& f) {
          index_t index = 0;
          for (std::size_t k = s.family; k < s.family_end; ++k) {
            const BlockFamily& fam = d.families[k];
            const PieceGroup rows = plan.rows(fam);
            const index_t row0 = fam.buffer_offset - first.buffer_offset;
            for (index_t a = 0; a < rows.count; ++a, ++index) {
              const Piece p = rows.member(a);
              const index_t row = row0 + a * rows.length;
              f(RowRun{row_of(src, index, row, p), row_of(dst, index, row, p), rows.length});
            }
          }
        };
        const auto append = [&](const RowRun& run) {
          append_run(pool.runs, static_cast<std::size_t>(run_first), run, src_step);
        };
        if (shared.target_order()) {
          // Sorted by target first (SharedRuns), so that pieces that continue each other
          // on both sides become one run.
          std::vector<RowRun>& pieces = shared.scratch();
          pieces.clear();
          each_piece([&](const RowRun& run) { pieces.push_back(run); });
          const auto by_target = [](const RowRun& x, const RowRun& y) { return x.dst < y.dst; };
          if (!std::is_sorted(pieces.begin(), pieces.end(), by_target))
            std::sort(pieces.begin(), pieces.end(), by_target);
          for (const RowRun& run : pieces) append(run);
        } else {
          each_piece(append);
        }
        return std::pair{run_first, static_cast<index_t>(pool.runs.size()) - run_first};
      };
      std::tie(c.run_first, c.runs) = shared.runs(slice_key, rows_key, bind_runs);
      for (index_t b = 0; b < cols.count; ++b) {
        const Piece p = cols.member(b);
        pool.members.push_back(ColumnMember{col_of(src, b, p), col_of(dst, b, p)});
      }
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
  // Copy by copy: each segment on both sides (a buffer side by its offset in the message).
  struct Place {
    const T* base = nullptr;  ///< the allocation (null: the message buffer)
    index_t offset = 0, ld = 0, tile = 0;
  };
  struct Segment {
    index_t b, row_tile, row_offset, length;
    Place src, dst;
  };
  std::vector<Segment> segments;
  segments.reserve(static_cast<std::size_t>(row_pieces() * cols.count));
  for_each_slice_segment(plan, d, s, [&](index_t row, index_t b, const Piece& r, const Piece& col) {
    Segment g{b, r.dst_tile, r.dst_offset, r.length, {}, {}};
    const Place buffer{nullptr, s.offset + row + b * lc * ldb, flat ? r.length : ldb, 0};
    const auto place = [&](const auto& side) {
      const auto l = side.located(r, col);
      return Place{l.base, l.offset, l.ld, l.tile};
    };
    if constexpr (src_buffer) {
      g.src = buffer;
    } else if constexpr (described_src) {
      const auto [p, ld] = *src.next++;
      g.src = Place{p, 0, ld, 0};
    } else if constexpr (!is_separated<Src>::value) {  // a separated source binds above
      g.src = place(src);
    }
    if constexpr (dst_buffer) {
      g.dst = buffer;
    } else if constexpr (is_described_target<Dst>::value) {
      const auto [p, ld] = *dst.next++;
      g.dst = Place{p, 0, ld, 0};
    } else if constexpr (!is_separated<Dst>::value) {  // a separated target binds above
      g.dst = place(dst);
    }
    segments.push_back(g);
  });
  if constexpr (!described) {
    // Matrix order within each column piece: both sides walk their tiles in the order
    // they are stored, and a tile's segments come together. Flat messages are laid in
    // this order; both ends sort the same pieces alike.
    std::stable_sort(segments.begin(), segments.end(), [](const Segment& x, const Segment& y) {
      return std::tie(x.b, x.row_tile, x.row_offset) < std::tie(y.b, y.row_tile, y.row_offset);
    });
    if (flat) {
      index_t at = s.offset;
      for (Segment& g : segments) {
        if constexpr (src_buffer) g.src.offset = at;
        if constexpr (dst_buffer) g.dst.offset = at;
        at += g.length * lc;
      }
    }
  }
  const auto together = [](const Place& x, const Place& y) {
    return x.base == y.base && x.tile == y.tile && x.ld == y.ld;
  };
  const index_t src_step = transposed(src) ? -1 : 1;  // -1: runs step by lds
  const auto member = static_cast<index_t>(pool.members.size());
  pool.members.push_back(ColumnMember{0, 0});
  std::vector<std::pair<index_t, index_t>> shared_runs;  // (length, run) of one-run copies
  for (std::size_t k = 0; k < segments.size();) {
    const Segment& first = segments[k];
    StridedCopy<T> c;
    c.run_first = static_cast<index_t>(pool.runs.size());
    c.member_first = member;
    c.members = 1;
    c.col_len = lc;
    c.transposed = transposed(src);
    c.lds = first.src.ld;
    c.ldd = first.dst.ld;
    const index_t step = src_step < 0 ? c.lds : 1;
    pool.runs.push_back(RowRun{0, 0, first.length});
    for (++k; !described && k < segments.size() && segments[k].b == first.b &&
              together(segments[k].src, first.src) && together(segments[k].dst, first.dst);
         ++k) {
      append_run(pool.runs, static_cast<std::size_t>(c.run_first),
                 RowRun{segments[k].src.offset - first.src.offset,
                        segments[k].dst.offset - first.dst.offset, segments[k].length},
                 step);
    }
    c.runs = static_cast<index_t>(pool.runs.size()) - c.run_first;
    if (c.runs == 1) {
      // A copy of one run at the copy's start shares the run with those of its length.
      const index_t length = pool.runs.back().length;
      pool.runs.pop_back();
      auto it = std::find_if(shared_runs.begin(), shared_runs.end(),
                             [&](const auto& e) { return e.first == length; });
      if (it == shared_runs.end()) {
        shared_runs.emplace_back(length, static_cast<index_t>(pool.runs.size()));
        pool.runs.push_back(RowRun{0, 0, length});
        it = shared_runs.end() - 1;
      }
      c.run_first = it->second;
    }
    if constexpr (src_buffer)
      rel.push_back(first.src.offset);
    else
      c.src = first.src.base + first.src.offset;
    if constexpr (dst_buffer)
      rel.push_back(first.dst.offset);
    else
      c.dst = const_cast<T*>(first.dst.base) + first.dst.offset;
    pool.copies.push_back(c);
  }
  return pool.copies.size() - before;
}

}  // namespace redist::engine
