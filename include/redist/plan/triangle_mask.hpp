#pragma once
/// @file plan/triangle_mask.hpp
/// Masks a plan to a Triangle (triangle.hpp): only the kept elements of the
/// region stay in its families, so only they are packed, sent and copied, and the plan's
/// statistics count only them.
///
/// In region coordinates a family's segment (a, b) covers rows [x_a, x_a + Lr) and
/// columns [y_b, y_b + Lc); along a family's row members x_a grows by a constant
/// stride, so for one column member the segments wholly kept, partly kept and wholly
/// dropped are three consecutive ranges of row members (for lower: dropped, partial,
/// kept). Per family, runs of column members whose ranges are equal stay one family
/// (rows sliced to the kept range): far from the diagonal a family is kept or dropped
/// whole. A partial segment (the diagonal crosses it) becomes column strips, each a
/// rectangle: the kept rows of a run of columns that keep the same rows, as one-member
/// groups appended to the plan's groups.
///
/// Sender and receiver see the same families of a message in the same order and split
/// them alike, so both derive the same new families in the same order (new groups get
/// higher indices than every original group on both, in creation order), and
/// append_message lays them out identically (block_family.hpp).
///
/// Cost: O(column members of the families + strips), the strips being O(region rows +
/// region columns) per rank at most.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/plan.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/transform.hpp>
#include <redist/transform_op.hpp>
#include <redist/triangle.hpp>

namespace redist::detail {

/// Members [0, n) of a group at x0 + a * s (s meaningless when n == 1): the first member
/// with position >= t.
constexpr index_t first_at_least(index_t x0, index_t s, index_t n, index_t t) {
  if (x0 >= t) return 0;
  if (n == 1) return 1;
  const index_t a = (t - x0 + s - 1) / s;
  return a < n ? a : n;
}
/// The number of members with position <= t.
constexpr index_t count_at_most(index_t x0, index_t s, index_t n, index_t t) {
  if (x0 > t) return 0;
  if (n == 1) return 1;
  const index_t a = (t - x0) / s + 1;
  return a < n ? a : n;
}

/// For row members at x0 + a * s of length L and the columns [y, y + ly), with d the
/// triangle's bound (Triangle::bound: lower keeps x - y >= d, upper y - x >= d): the row
/// members wholly kept [kept.first, kept.second) and partly kept [part.first,
/// part.second) (empty ranges have first == second).
struct RowSplit {
  std::pair<index_t, index_t> kept, part;
  friend constexpr bool operator==(const RowSplit&, const RowSplit&) = default;
};

constexpr RowSplit split_rows(const Triangle& tri, index_t d, index_t x0, index_t s, index_t n,
                              index_t L, index_t y, index_t ly) {
  if (tri.uplo == Uplo::lower) {
    // Some element kept: x_a + L - 1 - y >= d; all: x_a - (y + ly - 1) >= d.
    const index_t any = first_at_least(x0, s, n, y + d - L + 1);
    const index_t all = std::max(any, first_at_least(x0, s, n, y + ly - 1 + d));
    return {{all, n}, {any, all}};
  }
  // Upper. Some element kept: y + ly - 1 - x_a >= d; all: y - (x_a + L - 1) >= d.
  const index_t any = count_at_most(x0, s, n, y + ly - 1 - d);
  const index_t all = std::min(any, count_at_most(x0, s, n, y - d - L + 1));
  return {{0, all}, {all, any}};
}

/// A one-member group of the part [delta, delta + length) of member t of group g.
constexpr PieceGroup sub_piece(const PieceGroup& g, index_t t, index_t delta, index_t length) {
  Piece p = g.member(t);
  p.src_offset += delta;
  p.dst_offset += delta;
  p.length = length;
  return single_group(p, g.first_piece + t * g.piece_step, g.src_start + t * g.stride + delta,
                      g.dst_start + t * g.stride + delta);
}

/// The families of one message, masked; new groups go to plan's groups.
inline std::vector<BlockFamily> mask_message(Plan& plan, const FamilyList& d, const Message& msg,
                                             const Region& r, const Triangle& tri) {
  std::vector<BlockFamily> out;
  for (index_t k = msg.first; k < msg.first + msg.count; ++k) {
    const BlockFamily f = d.families[static_cast<std::size_t>(k)];
    const PieceGroup rows = plan.rows(f), cols = plan.cols(f);
    const index_t bound = tri.bound(r.extent);
    const index_t x0 = rows.dst_start - r.dst_origin.i;
    const index_t y0 = cols.dst_start - r.dst_origin.j;
    const auto split_of = [&](index_t b) {
      return split_rows(tri, bound, x0, rows.stride, rows.count, rows.length, y0 + b * cols.stride,
                        cols.length);
    };
    for (index_t b0 = 0, b1 = 0; b0 < cols.count; b0 = b1) {
      const RowSplit sp = split_of(b0);
      for (b1 = b0 + 1; b1 < cols.count && split_of(b1) == sp; ++b1) {
      }
      if (sp.kept.first < sp.kept.second)
        out.push_back(BlockFamily{
            GroupRange{f.rows.group, f.rows.first + sp.kept.first, sp.kept.second - sp.kept.first},
            GroupRange{f.cols.group, f.cols.first + b0, b1 - b0}, 0, 0, f.part});
      // Partial segments: column strips of equal kept rows.
      for (index_t b = b0; b < b1; ++b)
        for (index_t a = sp.part.first; a < sp.part.second; ++a) {
          const index_t xa = x0 + a * rows.stride, yb = y0 + b * cols.stride;
          const auto kept = [&](index_t j) {
            auto [lo, hi] = tri.rows_kept(yb + j - xa, rows.length, bound);
            return std::pair<index_t, index_t>{lo, hi};
          };
          for (index_t j0 = 0, j1 = 0; j0 < cols.length; j0 = j1) {
            const auto range = kept(j0);
            for (j1 = j0 + 1; j1 < cols.length && kept(j1) == range; ++j1) {
            }
            if (range.second <= range.first) continue;
            plan.row_groups.push_back(sub_piece(rows, a, range.first, range.second - range.first));
            plan.col_groups.push_back(sub_piece(cols, b, j0, j1 - j0));
            out.push_back(BlockFamily{
                GroupRange{static_cast<index_t>(plan.row_groups.size()) - 1, 0, 1},
                GroupRange{static_cast<index_t>(plan.col_groups.size()) - 1, 0, 1}, 0, 0, f.part});
          }
        }
    }
  }
  return out;
}

/// Masks every direction of `plan` (built for region r) to `tri`, recounting its
/// statistics; categories count the target tiles of this rank that receive a kept
/// element (src: the layout the plan was made from, op(A)'s when transposed).
template <class SrcLayout, class DstLayout>
void mask_plan(Plan& plan, const SrcLayout& src, const DstLayout& dst, const Region& r,
               const Triangle& tri) {
  for (FamilyList* d : {&plan.send, &plan.recv, &plan.local}) {
    FamilyList masked;
    masked.batch_elements.assign(d->batch_elements.size(), 0);
    for (const Message& msg : d->messages) {
      std::vector<BlockFamily> families = mask_message(plan, *d, msg, r, tri);
      if (!families.empty())
        append_message(masked, msg.peer, msg.batch, families, plan.row_groups, plan.col_groups);
    }
    *d = std::move(masked);
  }
  family_stats(plan);
  plan.stats.dst_tiles = 0;
  plan.stats.categories = {};
  const auto& ds = dst.shape();
  const AxisRegion rr = r.axis<Axis::row>(), rc = r.axis<Axis::col>();
  const TileBox box =
      r.empty() ? TileBox{}
                : TileBox{{ds.rows().tile_of(r.dst_origin.i), ds.cols().tile_of(r.dst_origin.j)},
                          {ds.rows().tile_of(r.dst_origin.i + r.extent.rows - 1) + 1,
                           ds.cols().tile_of(r.dst_origin.j + r.extent.cols - 1) + 1}};
  for_each_owned_tile(dst.distribution(), plan.rank, box, [&](TileIndex t) {
    // The tile's part of the region, in region coordinates.
    const index_t x0 = std::max(ds.rows().begin(t.m), r.dst_origin.i) - r.dst_origin.i;
    const index_t x1 =
        std::min(ds.rows().begin(t.m) + ds.rows().size(t.m), r.dst_origin.i + r.extent.rows) -
        r.dst_origin.i;
    const index_t y0 = std::max(ds.cols().begin(t.n), r.dst_origin.j) - r.dst_origin.j;
    const index_t y1 =
        std::min(ds.cols().begin(t.n) + ds.cols().size(t.n), r.dst_origin.j + r.extent.cols) -
        r.dst_origin.j;
    const RowSplit sp = split_rows(tri, tri.bound(r.extent), x0, 1, 1, x1 - x0, y0, y1 - y0);
    if (sp.kept.first == sp.kept.second && sp.part.first == sp.part.second) return;
    plan.stats.dst_tiles += 1;
    plan.stats.categories[static_cast<std::size_t>(
        category_of(piece_count(src.shape().rows(), ds.rows(), rr, t.m),
                    piece_count(src.shape().cols(), ds.cols(), rc, t.n)))] += 1;
  });
}

#if defined(REDIST_COMPILED_ENGINE)
// Compiled once, in redist::engine (compiled/planner.cpp; compiled_engine.hpp).
extern template void mask_plan<LayoutView, LayoutView>(Plan&, const LayoutView&, const LayoutView&,
                                                       const Region&, const Triangle&);
#endif

}  // namespace redist::detail

namespace redist {

/// The plan of the part of region r that `triangle` keeps (triangle.hpp): make_plan's
/// plan masked, its statistics counting kept elements and the target tiles that get one.
/// Same inputs, checks and errors as make_plan.
template <class SrcLayout, class DstLayout>
Plan make_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank, int comm_size,
               PlanOptions options, const Triangle& triangle) {
  const LayoutView s = layout_view(src), d = layout_view(dst);
  Plan plan = detail::plan_layouts(s, d, r, rank, comm_size, options);
  if (triangle.masks()) {
    detail::mask_plan(plan, s, d, r, triangle);
    plan.stats.plan_bytes = static_cast<index_t>(plan.memory_bytes());  // new families
  }
  return plan;
}

/// The plan of the move of op(source region) that keeps `triangle` of the target rectangle:
/// what a Redistributor with a Transform of that op and triangle plans. A transposing op
/// plans the transposed source layout and region (transform.hpp; region.extent is then the
/// source's R x C and the target gets C x R). Same checks and errors as make_plan.
template <class SrcLayout, class DstLayout>
Plan make_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank, int comm_size,
               PlanOptions options, const Triangle& triangle, Op op) {
  if (op != Op::none)
    return make_plan(transposed(src), dst, transposed(r), rank, comm_size, options, triangle);
  return make_plan(src, dst, r, rank, comm_size, options, triangle);
}

}  // namespace redist
