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
