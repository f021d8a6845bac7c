#pragma once
/// @file plan/plan_options.hpp
/// PlanOptions, what planning may be told (how the moved data is cut into batches), and
/// their field table (option_fields.hpp), from which they are checked and agreed.

#include <cstdint>
#include <tuple>

#include <redist/index.hpp>
#include <redist/option_fields.hpp>

namespace redist {

/// Tuning knobs of planning: how the moved data is cut into batches. Each member has one
/// entry in the field table below (option_fields.hpp).
struct PlanOptions {
  /// batch_bytes' default: chosen from the matrices' memory (see batch_bytes).
  static constexpr index_t automatic = -1;
  /// batch_bytes in host memory when automatic.
  static constexpr index_t host_batch_bytes = index_t{64} << 20;

  /// Source tile columns per batch (the budget is then not used); 0 chooses batches under
  /// `max_buffer_bytes`.
  index_t batch = 0;
  /// With batch = 0, a hard cap in bytes on every rank's send + receive buffers of every
  /// batch: batches are as wide as fits, cut inside a source tile column if needed.
  /// Below one region column of the busiest rank, planning throws invalid_argument.
  index_t max_buffer_bytes = index_t{1} << 30;
  /// With batch = 0, the size batches aim at below the cap: every rank's send + receive
  /// within this many bytes where one region column of the busiest rank fits, else as the
  /// cap cuts (a target, never refused); at most 16 batches (a larger move gets batches of
  /// a sixteenth of it). Small batches keep set-up and buffers from growing with the
  /// matrix (docs/cost-model.md). 0: off. `automatic` (the default): `host_batch_bytes` in
  /// host memory, off in device memory (read in place there: batches would only add steps)
  /// and on one node where the node window's rings carry every message (its buffers are a
  /// few slots whatever the batch: message_buffering.hpp).
  index_t batch_bytes = automatic;
  /// Element size in bytes (set by the Redistributor from its element type).
  index_t element_bytes = 8;
};

/// PlanOptions::batch_bytes as planning uses it: `automatic` resolved to `host_batch_bytes`
/// for matrices in host memory whose messages may lie whole in a buffer (`whole_messages`:
/// message_buffering.hpp), else to 0 (off): in device memory, read in place, and where the
/// node window's rings carry every message, a few slots whatever the batch.
constexpr index_t resolve_batch_bytes(index_t batch_bytes, bool host_memory,
                                      bool whole_messages = true) {
  if (batch_bytes != PlanOptions::automatic) return batch_bytes;
  return host_memory && whole_messages ? PlanOptions::host_batch_bytes : 0;
}

namespace detail {
template <>
struct OptionFields<PlanOptions> {
  using O = PlanOptions;
  // element_bytes is not an option: the Redistributor sets it from the element type, and
  // the ranks agree on the element size itself (detail/agreement.hpp).
  static constexpr auto fields = std::tuple{
      option_field("PlanOptions::batch", &O::batch, nullptr,
                   Integer{0, INT64_MAX, "batch must be >= 0 (0 = automatic)", {}, false}),
      // Checked against the plan's feasible minimum when batches are cut (batch_budget.hpp).
      // The variable lets a job cap its buffers without recompiling (and a bench compare
      // budgets); like every option, the ranks must agree on it.
      option_field("PlanOptions::max_buffer_bytes", &O::max_buffer_bytes, "REDIST_MAX_BUFFER_BYTES",
                   Integer{INT64_MIN, INT64_MAX, {}}),
      option_field("PlanOptions::batch_bytes", &O::batch_bytes, "REDIST_BATCH_BYTES",
                   Integer{.low = PlanOptions::automatic,
                           .high = INT64_MAX,
                           .below = "batch_bytes must be >= 0, or PlanOptions::automatic (-1)",
                           .env_low = 0}),
  };
};
}  // namespace detail

}  // namespace redist
