#pragma once
/// @file set_up_times.hpp
/// Where a Redistributor's set-up went, on this rank: planning, and wiring the engine, of
/// which the message buffers. The buffers are the part that grows with the move (up to
/// PlanOptions::batch_bytes), so reading the three apart tells a plan that costs from
/// memory that has to be made present (docs/cost-model.md, "Set-up").

namespace redist {

/// Seconds on this rank's steady clock.
struct SetUpTimes {
  /// Planning: the parts checked, the plans made and agreed on (plan/plan_parts.hpp,
  /// detail/agreement.hpp). 0 after a rebind(), which keeps the plan.
  double plan = 0;
  /// Wiring the engine: matrix sides, chunks, transports, buffers, task graph, copy
  /// programs and schedule (engine/wired.hpp). Includes `buffers`.
  double wiring = 0;
  /// The message buffers: allocated, and their pages made present (the node window's
  /// part of this rank, or the staging buffers). Collective on a node window, so it
  /// includes waiting for the node's slowest rank.
  double buffers = 0;
};

}  // namespace redist
