#pragma once
/// @file message_buffering.hpp
/// Whether a move's messages may lie whole in a buffer: what batches bound
/// (PlanOptions::batch_bytes), decided before planning from the options and the nodes.

#include <redist/execution_options.hpp>

namespace redist {

/// True where some message may be staged whole in host buffers: between nodes (point to
/// point), or on a node whose messages are forced point to point or lie whole in the node
/// window (ring_slots = 0). False where every message goes through the rings of the node
/// window (a few slots a peer, whatever the message: transport/ring_slots.hpp) or is read or
/// written in place (direct, cross-memory, push): there batches bound nothing and cost plan
/// families, messages and a wait each (docs/cost-model.md, "Batches of about 64 MiB").
/// @pre `execution` with its environment applied, as every rank has it.
inline bool whole_messages_buffered(const ExecutionOptions& execution, int nodes) {
  return nodes > 1 || !execution.rings();
}

}  // namespace redist
