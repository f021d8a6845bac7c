#pragma once
/// @file plan/plan_header.hpp
/// What a plan of one rank states besides its copies, alike for the plan that runs (Plan,
/// plan/plan_type.hpp) and the per-segment reference (ReferencePlan,
/// plan/reference_plan.hpp): whose plan it is, its batches, its options and its
/// statistics (PlanHeader, the base of both), and the messages both cut their copies into
/// (Message).

#include <array>
#include <utility>
#include <vector>

#include <redist/index.hpp>
#include <redist/plan/batching.hpp>
#include <redist/plan/plan_options.hpp>

namespace redist {

/// One message: items [first, first + count) of a direction's list (segments of a
/// ReferencePlan, families of a Plan), for one peer and batch, occupying [buffer_offset,
/// buffer_offset + elements) of the batch buffer.
struct Message {
  int peer = 0;
  index_t batch = 0;
  index_t first = 0;
  index_t count = 0;
  index_t elements = 0;
  index_t buffer_offset = 0;
};

/// Per-rank statistics of a plan (the cost model's M_send, M_receive, M_local, in
/// elements; Cao et al. 2021, section 7.2).
struct PlanStats {
  index_t elements_sent = 0;
  index_t elements_received = 0;
  index_t elements_local = 0;
  index_t messages_sent = 0;
  index_t messages_received = 0;
  index_t segments_sent = 0;
  index_t segments_received = 0;
  index_t segments_local = 0;
  index_t dst_tiles = 0;                ///< target tiles of this rank that the region touches
  std::array<index_t, 9> categories{};  ///< of those tiles, by category
  index_t buffer_elements = 0;          ///< send + receive buffer of the largest batch
  /// Heap bytes of the plan's own containers (capacity x element size of each; memory_bytes()).
  /// PlanOptions::max_buffer_bytes bounds the buffers, not this: it grows with the segments
  /// (ReferencePlan) or the families (Plan).
  index_t plan_bytes = 0;
  /// Heap bytes of what an Executor compiles from a plan and keeps: task graph,
  /// schedule, bound copy programs (and their device copies), execution state. 0 for a plan
  /// no Executor holds. Not bounded by max_buffer_bytes either.
  index_t schedule_bytes = 0;
  /// Nodes the communicator spans, and the elements this rank sends to / receives from
  /// ranks on other nodes (the costlier of the two link classes, Cao et al. 2020, section
  /// 4). Planning leaves 1, 0, 0: with_node_traffic (plan/node_traffic.hpp) fills them,
  /// and a Redistributor's plan().stats has them filled.
  int nodes = 1;
  index_t elements_sent_inter_node = 0;
  index_t elements_received_inter_node = 0;
};

/// Whose plan, its batches, options and statistics: the part of a plan that does not
/// depend on how it lists its copies. Plan and ReferencePlan derive from it.
struct PlanHeader {
  int rank = 0;
  int comm_size = 1;
  index_t batch = 1;    ///< source tile columns per batch; 0 when widths vary (Batching)
  index_t batches = 0;  ///< number of batches
  /// Batch k moves region columns [batch_columns[k], batch_columns[k + 1]) (relative to
  /// the region's first column); empty for an empty region and for a plan merge_parts
  /// made of several parts (plan/plan_parts.hpp).
  std::vector<index_t> batch_columns;
  PlanOptions options;
  PlanStats stats;

  PlanHeader() = default;
  /// The header of rank `owner`'s plan among `ranks` ranks, before its batches are cut.
  PlanHeader(int owner, int ranks, const PlanOptions& plan_options)
      : rank(owner), comm_size(ranks), options(plan_options) {}

  /// Takes the batches planning cut (plan/batch_budget.hpp): batch, batches, batch_columns.
  void take_batches(Batching&& b) {
    batch = b.batch;
    batches = b.batches();
    batch_columns = std::move(b.columns);
  }
};

}  // namespace redist
