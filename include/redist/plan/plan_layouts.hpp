#pragma once
/// @file plan/plan_layouts.hpp
/// detail::plan_layouts, the definition behind make_plan (plan.hpp): which path plans a
/// pair of layouts. plan.hpp includes it unless the program links the compiled engine
/// (REDIST_COMPILED_ENGINE), which holds its one instantiation, on layout views.

#include <utility>

#include <redist/distribution.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/grid_plan.hpp>
#include <redist/plan/grid_view.hpp>
#include <redist/plan/plan_inputs.hpp>
#include <redist/plan/plan_type.hpp>
#include <redist/plan/tile_plan.hpp>
#include <redist/region.hpp>

namespace redist {

namespace detail {

/// make_plan's work for layouts of any type: the grid path where both distributions are
/// grids, at compile time or by their values, else the per-segment one. Not inline: a
/// program that links the compiled engine (docs/build-speed.md) takes it from there.
template <class SrcLayout, class DstLayout>
Plan plan_layouts(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank,
                  int comm_size, PlanOptions options) {
  using SD = typename SrcLayout::distribution_type;
  using DD = typename DstLayout::distribution_type;
  detail::check_plan_inputs(src, dst, r, rank, comm_size, options);
  Plan plan;
  const auto empty_grid_plan = [&] {
    plan = Plan(rank, comm_size, options);
    plan.per_axis = true;
  };
  if constexpr (GridDistribution<SD> && GridDistribution<DD>) {
    if (r.empty())
      empty_grid_plan();
    else
      plan = detail::grid_plan(src, dst, r, rank, comm_size, options);
  } else if constexpr (MaybeGridDistribution<SD> && MaybeGridDistribution<DD>) {
    // Grids at run time (plan/grid_view.hpp): the same per-axis path on layouts of the
    // viewed grids, which own what the given distributions own.
    auto sg = detail::as_grid(src.distribution());
    auto dg = detail::as_grid(dst.distribution());
    if (!sg || !dg)
      plan = detail::tile_plan(src, dst, r, rank, comm_size, options);
    else if (r.empty())
      empty_grid_plan();
    else
      plan = detail::grid_plan(Layout(src.shape(), std::move(*sg)),
                               Layout(dst.shape(), std::move(*dg)), r, rank, comm_size, options);
  } else {
    plan = detail::tile_plan(src, dst, r, rank, comm_size, options);
  }
  plan.stats.plan_bytes = static_cast<index_t>(plan.memory_bytes());
  return plan;
}

}  // namespace detail

}  // namespace redist
