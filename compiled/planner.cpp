// The planner on layout views (views/layout_view.hpp): every make_plan of a program that
// links redist::engine runs this one copy (the extern declarations: plan.hpp,
// plan/triangle_mask.hpp).
#include <redist/plan/plan_layouts.hpp>
#include <redist/plan/triangle_mask.hpp>

namespace redist::detail {
template Plan plan_layouts<LayoutView, LayoutView>(const LayoutView&, const LayoutView&,
                                                   const Region&, int, int, PlanOptions);
template void mask_plan<LayoutView, LayoutView>(Plan&, const LayoutView&, const LayoutView&,
                                                const Region&, const Triangle&);
}  // namespace redist::detail
