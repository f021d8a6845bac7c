#pragma once
/// @file redist.hpp
/// Umbrella header: everything a user of redist needs to describe layouts and move data.
/// Opt-in, for the programs that use them (each costs more to compile than it is worth to
/// everyone else): distributions/heterogeneous.hpp and placements/multi_device.hpp (the
/// per-phase layouts of docs/heterogeneous.md), scalapack.hpp (descriptors, BLACS grids,
/// gemr2d), relabel.hpp (best_relabeling, LEMON's network simplex), synthesize.hpp
/// (targets synthesized from source holdings), phase_powers.hpp (GLPK), task_graph_boost.hpp
/// and task_graph_graphviz.hpp (Boost.Graph views of the task graph), tools/ (the
/// command-line tool's layout grammar and report).

#include <redist/axis_cut.hpp>
#include <redist/config.hpp>
#include <redist/copy/element_op.hpp>
#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/distribution.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/distributions/relabeled.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/node_shared.hpp>
#include <redist/placement.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/plan.hpp>
#include <redist/plan/node_traffic.hpp>
#include <redist/plan/plan_parts.hpp>
#include <redist/plan/triangle_mask.hpp>
#include <redist/redistributor.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/set_up_times.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>
#include <redist/transform.hpp>
#include <redist/transform_op.hpp>
#include <redist/triangle.hpp>

// The engine's own headers and the reference planner, which a program that moves data
// through a Redistributor never names. With the compiled engine (compiled_engine.hpp) they
// are left out, so that such a program parses no engine and no planner; include them where
// the Executor, the task graph's fields or make_reference_plan are used.
#if !defined(REDIST_COMPILED_ENGINE)
#include <redist/executor.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/task_graph.hpp>
#endif
