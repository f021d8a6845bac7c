#pragma once
/// @file views/layout_view.hpp
/// LayoutView: any layout seen through one run-time type, its tiling as two AxisViews and
/// its distribution as a DistributionView. make_plan plans every pair of layouts through
/// their views (plan.hpp), so the planner is compiled once in a program, not once per
/// pair of layout types; the plan is the one the layouts themselves give.
///
///   const auto l = Layout{Tiling{UniformAxis<256>(n), IrregularAxis({0, 3, n})}, BlockCyclic(2,
///   2)}; const LayoutView v = layout_view(l);   // refers to l: l must outlive v v.owner(t) ==
///   l.owner(t), v.shape().rows().begin(k) == l.shape().rows().begin(k), ...

#include <type_traits>

#include <redist/layout.hpp>
#include <redist/views/axis_view.hpp>
#include <redist/views/distribution_view.hpp>

namespace redist {

using LayoutView = Layout<ShapeView, DistributionView>;

/// The view of layout l (its own view when it is one). @pre l outlives the view.
template <class L>
LayoutView layout_view(const L& l) {
  if constexpr (std::is_same_v<L, LayoutView>) {
    return l;
  } else {
    return LayoutView(shape_view(l.shape()), distribution_view(l.distribution()));
  }
}

}  // namespace redist
