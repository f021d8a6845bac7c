// The umbrella leaves the opt-in headers out (redist.hpp, docs/build-speed.md): programs
// that want them include them. Had redist.hpp pulled one in, its function would clash with
// the variable of the same name below and this file would not compile.
#include <redist/redist.hpp>

namespace redist {
inline constexpr int best_relabeling = 0;  // relabel.hpp
inline constexpr int relabel_counts = 0;   // synthesize.hpp
inline constexpr int write_graphviz = 0;   // task_graph_graphviz.hpp
inline constexpr int boost_graph = 0;      // task_graph_boost.hpp
}  // namespace redist

// With the compiled engine the umbrella parses no engine either (engine/executor_handle.hpp):
// had it pulled in the executor, task_graph.hpp, the planner or the reference planner
// (plan/reference_plan.hpp), these names would clash.
#if defined(REDIST_COMPILED_ENGINE)
namespace redist::engine {
inline constexpr int Wired = 0;  // engine/wired.hpp, which executor.hpp includes
}  // namespace redist::engine
namespace redist {
inline constexpr int TaskEdge = 0;    // task_graph.hpp
inline constexpr int AxisGroups = 0;  // plan/axis_groups.hpp
}  // namespace redist
namespace redist::detail {
inline constexpr int plan_batches = 0;  // plan/batch_budget.hpp
}  // namespace redist::detail
#endif
