#pragma once
/// @file transport/ring_slots.hpp
/// Where the node window's chunks lie while they travel: rings of slots in the sender's
/// part of the window, so that a pack and its unpack meet in the shared cache and each
/// byte crosses memory once (Open MPI's shared-memory transport hands over small fragments
/// in a FIFO for the same reason). Pure: no MPI.
///
/// A rank has up to `ring_lanes` rings (lanes) of `slots` slots, each as large as the
/// batch's largest chunk. Its messages through
/// the window in one batch are taken in rounds, a shift inside the node: round d holds the
/// message to the rank d places after this one on the node (d = 1 .. R - 1), so that at
/// any time each rank feeds few rings and is fed by few. Rounds are dealt to the lanes in
/// turn; a lane's chunks, round after round, take its slots in turn: the q-th chunk of a
/// lane takes slot q mod slots, once the lane's chunk q - slots is acked by its receiver
/// (SlotReuse, task_graph.hpp). Example: 3 ranks a node, rank 0 sends 5 chunks to rank 1
/// (round 1, lane 0) and 2 to rank 2 (round 2, lane 1): with 4 slots, rank 1's chunk 4
/// waits for the ack of its chunk 0; rank 2's chunks need no ack to start.
///
/// The slots of a node in use are R x lanes x slots x slot bytes: automatic_slot_bytes keeps
/// that within half the shared cache. A batch's rings never take more room than its
/// messages would whole (fewer lanes, then fewer slots), so the buffers stay within the
/// plan's PlanStats::buffer_elements.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include <redist/detail/cpu_caches.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/index.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

namespace redist::transport {

/// Slots of a ring when ExecutionOptions::ring_slots is automatic: as the hand-made test
/// of issue 44 measured (4 slots of 64 KiB to 1 MiB all reached the cache's speed).
inline constexpr index_t default_ring_slots = 4;
/// Rings a rank feeds at once: a second lets it go on while one receiver is slow.
inline constexpr index_t ring_lanes = 2;

/// Slot bytes from the caches for `ranks_on_node` ranks on this node: every ring of the
/// node that is fed at once within half the shared cache (L3), and a slot within half a
/// core's L2, as a power of two in [16 KiB, 1 MiB]; 256 KiB where the caches are unknown.
/// Example: L2 1 MiB, L3 32 MiB, 2 ranks: 2 x 1 x 4 slots in 16 MiB -> 2 MiB, L2 -> 512 KiB;
/// 16 ranks: 16 x 2 x 4 in 16 MiB -> 128 KiB.
inline index_t automatic_slot_bytes(const redist::detail::CpuCaches& caches, index_t ranks_on_node,
                                    index_t slots) {
  constexpr index_t low = index_t{16} << 10, high = index_t{1} << 20;
  if (caches.l3 <= 0) return index_t{256} << 10;
  const index_t r = std::max<index_t>(ranks_on_node, 2);
  const index_t fed = r * std::min(ring_lanes, r - 1) * std::max<index_t>(slots, 1);
  index_t bytes = caches.l3 / 2 / fed;
  if (caches.l2 > 0) bytes = std::min(bytes, caches.l2 / 2);
  bytes = std::clamp(bytes, low, high);
  index_t pow2 = low;
  while (pow2 * 2 <= bytes) pow2 *= 2;
  return pow2;
}

/// The rings of one rank: where each sent chunk lies and what it waits for.
struct RingSlots {
  index_t slots = 0;                    ///< asked per ring; 0: no ring
  std::vector<index_t> offset;          ///< per sent chunk: elements from the ring's start, or -1
  std::vector<index_t> batch_elements;  ///< per batch: the ring's room, at the send part's start
  SlotReuse reuse;                      ///< per sent chunk, for the task graph
};

namespace detail {

/// Lanes, slots and slot elements of one batch's rings: `lanes` x `slots` of the largest
/// chunk, each slot on cache lines of its own, fewer lanes and then fewer slots while they
/// exceed `room` (the batch's window messages, which whole messages would take: the rings
/// never hold more); one slot of the largest chunk always fits.
struct RingShape {
  index_t lanes, slots, slot_elements;
};
inline RingShape ring_shape(index_t lanes, index_t slots, index_t largest, index_t room,
                            std::size_t element_bytes) {
  const auto per_line = static_cast<index_t>(64 % element_bytes == 0 ? 64 / element_bytes : 1);
  for (const index_t slot : {(largest + per_line - 1) / per_line * per_line, largest})
    for (index_t l = lanes, s = slots; s >= 1;) {
      if (l * s * slot <= room) return {l, s, slot};
      if (l > 1)
        l = 1;
      else
        --s;
    }
  return {1, 1, largest};
}

}  // namespace detail

/// Lays out the rings for the sent messages with ring[m] (through the node window), cut
/// into `chunks` (at most a slot each unless a column is larger), `slots` a ring at most,
/// elements of `element_bytes`. `node_rank[r]`: rank r's place on this node (-1 off the
/// node), `me` this rank's, `ranks` on this node. Each batch's rings start empty (its
/// Finish waits for every ack) at the start of its send part.
/// @pre every ring message's peer is on this node.
/// @post a lane's chunks take its slots in turn; reuse.after[c] is the chunk one ring
/// before c in its lane, SIZE_MAX for the first ring's worth; batch_elements[b] at most
/// the elements of batch b's ring messages.
inline RingSlots lay_out_rings(const FamilyList& send, const Chunking& chunks,
                               const std::vector<bool>& ring, const std::vector<int>& node_rank,
                               int me, int ranks, index_t slots, std::size_t element_bytes) {
  RingSlots r;
  r.slots = slots;
  r.offset.assign(chunks.chunks.size(), -1);
  r.reuse.after.assign(chunks.chunks.size(), SIZE_MAX);
  r.reuse.in_ring.assign(chunks.chunks.size(), 0);
  index_t batches = 0;
  for (const Message& msg : send.messages) batches = std::max(batches, msg.batch + 1);
  r.batch_elements.assign(static_cast<std::size_t>(batches), 0);
  // The ring messages of each batch, by round.
  std::vector<std::vector<std::size_t>> by_batch(static_cast<std::size_t>(batches));
  for (std::size_t m = 0; m < send.messages.size(); ++m)
    if (ring[m]) by_batch[static_cast<std::size_t>(send.messages[m].batch)].push_back(m);
  const auto round = [&](std::size_t m) {
    const int peer = node_rank[static_cast<std::size_t>(send.messages[m].peer)];
    return (peer - me + ranks) % std::max(ranks, 1);
  };
  for (std::size_t b = 0; b < by_batch.size(); ++b) {
    std::vector<std::size_t>& order = by_batch[b];
    if (order.empty()) continue;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return round(x) < round(y); });
    const index_t lanes = std::min<index_t>(ring_lanes, static_cast<index_t>(order.size()));
    index_t room = 0, largest = 0, longest = 0;
    std::vector<index_t> lane_chunks(static_cast<std::size_t>(lanes), 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t m = order[k];
      room += send.messages[m].elements;
      lane_chunks[k % static_cast<std::size_t>(lanes)] +=
          static_cast<index_t>(chunks.begin[m + 1] - chunks.begin[m]);
      for (std::size_t c = chunks.begin[m]; c < chunks.begin[m + 1]; ++c)
        largest = std::max(largest, chunks.chunks[c].elements);
    }
    for (const index_t n : lane_chunks) longest = std::max(longest, n);
    const detail::RingShape shape = detail::ring_shape(
        lanes, std::max<index_t>(1, std::min(slots, longest)), largest, room, element_bytes);
    r.batch_elements[b] = shape.lanes * shape.slots * shape.slot_elements;
    std::vector<std::vector<std::size_t>> lane(static_cast<std::size_t>(shape.lanes));
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t m = order[k], l = k % static_cast<std::size_t>(shape.lanes);
      std::vector<std::size_t>& seq = lane[l];
      for (std::size_t c = chunks.begin[m]; c < chunks.begin[m + 1]; ++c) {
        const auto q = static_cast<index_t>(seq.size());
        r.offset[c] =
            (static_cast<index_t>(l) * shape.slots + q % shape.slots) * shape.slot_elements;
        r.reuse.in_ring[c] = 1;
        if (q >= shape.slots) r.reuse.after[c] = seq[static_cast<std::size_t>(q - shape.slots)];
        seq.push_back(c);
      }
    }
  }
  return r;
}

}  // namespace redist::transport
