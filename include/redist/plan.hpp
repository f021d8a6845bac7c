#pragma once
/// @file plan.hpp
/// make_plan and Plan, the plan that runs: one rank's part of a redistribution as families
/// of strided block copies (block_family.hpp) per peer and batch, with the statistics of
/// the per-segment reference (ReferencePlan, plan/reference_plan.hpp) computed from them by
/// arithmetic. Pure: no MPI, no Kokkos.
///
/// It describes exactly what make_reference_plan describes (Cao et al. 2021, "Evaluating
/// data redistribution in PaRSEC", section 3, Algorithm 1: every segment of every target
/// tile, sent when remote and copied when local), but groups the segments:
///
/// - Grid distributions on both sides (GridDistribution): the owner of a tile depends on
///   its grid row and grid column only, so the segments between a source coordinate
///   (p, q) and a target coordinate (p', q') are the products of the row pieces of class
///   (p, p') and the column pieces of class (q, q'). Each axis is scanned once and its
///   classes compressed into strided groups (axis_groups.hpp; the lcm period of
///   Prylli and Tourancheau 1996, section 4.3); the families of a message are the
///   products of its row groups and its column groups, columns split at batch
///   boundaries (a member that a boundary cuts becomes one single-member group per batch,
///   kept after the scanned groups). Cost: O(pieces per lcm period + families) time with
///   uniform tiles and block-cyclic distributions, O(pieces per axis + families)
///   otherwise, and O(groups + families) memory; nothing proportional to the number of
///   segments.
///   Distributions that are grids only at run time (tools::SpecDistribution holding a
///   BlockCyclic, a relabeling of one) take this path through their grid view
///   (plan/grid_view.hpp).
/// - Any other pair (random, owner table, band, user types, or one grid side only):
///   the per-segment enumeration of make_reference_plan (only the tiles this rank owns),
///   whose consecutive row pieces of one column piece for one peer are merged into one
///   family where they form a strided run. Cost: that of make_reference_plan.
///
/// Statistics equal make_reference_plan's exactly; for the grid path the categories are
/// the outer product of per-axis histograms of min(pieces per target tile, 3).
///
/// The class is in plan/plan_type.hpp, the grid path in plan/grid_plan.hpp,
/// the fallback in plan/tile_plan.hpp; plan/plan_layouts.hpp chooses between them.

#include <utility>

#include <redist/config.hpp>
#include <redist/distribution.hpp>
#include <redist/layout.hpp>
#include <redist/plan/grid_view.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/plan/plan_type.hpp>
#include <redist/region.hpp>
#include <redist/views/layout_view.hpp>

namespace redist {

namespace detail {
/// make_plan for layouts of any type (plan/plan_layouts.hpp); make_plan gives it the
/// layouts' views (views/layout_view.hpp), so a program compiles it once, or not at all
/// when it links the compiled engine.
template <class SrcLayout, class DstLayout>
Plan plan_layouts(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank,
                  int comm_size, PlanOptions options);
}  // namespace detail

/// Plans rank `rank`'s part of moving region `r` from `src` to `dst` among `comm_size`
/// ranks, as block families. Same inputs, checks and errors as make_reference_plan (the same
/// functions run), same statistics; the families move exactly make_reference_plan's segments.
/// Cost: O(pieces per axis + families) when both distributions are grids, at compile time
/// or by their values (plan/grid_view.hpp), per lcm period instead of per axis with uniform
/// tiles and block-cyclic grids; else that of make_reference_plan;
/// plus, when some rank's region elements exceed max_buffer_bytes, the budget's pass over
/// the column pieces (plan/batch_budget.hpp).
/// @throws region_error if r does not fit; distribution_error if a distribution uses
/// more ranks than comm_size or returns an owner outside it; invalid_argument for bad
/// options, a rank outside [0, comm_size), or a max_buffer_bytes below the feasible
/// minimum (the same message on every rank, before any owner check).
/// @post stats == make_reference_plan(src, dst, r, rank, comm_size, options).stats but for
/// plan_bytes (this plan's memory_bytes()); for every (peer, batch) both ends list the same
/// families, in the same order, at the same buffer offsets (block_family.hpp).
template <class SrcLayout, class DstLayout>
Plan make_plan(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank, int comm_size,
               PlanOptions options = {}) {
  return detail::plan_layouts(layout_view(src), layout_view(dst), r, rank, comm_size, options);
}

#if defined(REDIST_COMPILED_ENGINE)
// Compiled once, in redist::engine (compiled/planner.cpp; compiled_engine.hpp): a program
// that links it does not even parse the planner, and a planner edit rebuilds the library,
// not the program.
namespace detail {
extern template Plan plan_layouts<LayoutView, LayoutView>(const LayoutView&, const LayoutView&,
                                                          const Region&, int, int, PlanOptions);
}  // namespace detail
#endif

}  // namespace redist

#if !defined(REDIST_COMPILED_ENGINE)
#include <redist/plan/plan_layouts.hpp>
#endif
