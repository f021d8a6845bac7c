#pragma once
/// @file engine/ring_cut.hpp
/// Where the node window's rings run (transport/ring_slots.hpp), a step of wiring an engine
/// (engine/wired.hpp, after the transports are chosen): the rings' size, agreed over the
/// ranks; the messages through the window, and the pushed ones (transport/push.hpp), re-cut
/// so that no chunk exceeds a slot; the local parts cut to a slot's worth too; and the rings
/// laid out. Sender and receiver know alike which messages go through the window or are
/// pushed, so they cut alike.

#include <algorithm>
#include <cstddef>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/detail/cpu_caches.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/topology.hpp>
#include <redist/transport/ring_slots.hpp>
#include <redist/transport_kind.hpp>

namespace redist::engine {

/// A ring's slots and their bytes; 0 slots: no ring.
struct RingSize {
  index_t slots = 0;
  index_t slot_bytes = 0;
};

/// The rings' size: none without the node's transports (`node_transports`), else
/// ExecutionOptions::ring_slots and ring_slot_bytes, the bytes from the caches where
/// automatic, agreed as the smallest over the ranks of comm (collective then: every rank
/// calls it with the same agreed options).
inline RingSize ring_size(const ExecutionOptions& options, bool node_transports,
                          const NodeMap& nodes, const boost::mpi::communicator& comm) {
  if (!node_transports || !options.rings()) return {};
  const index_t slots = options.ring_slots < 0 ? transport::default_ring_slots : options.ring_slots;
  if (options.ring_slot_bytes > 0) return {slots, options.ring_slot_bytes};
  const index_t here =
      transport::automatic_slot_bytes(redist::detail::cpu_caches(), nodes.node_size(), slots);
  return {slots, boost::mpi::all_reduce(comm, here, boost::mpi::minimum<index_t>())};
}

/// What cut_for_rings decided: the rings laid out (none: no slots), and the elements of
/// local copies between two polls of MPI where they changed (0: unchanged).
struct RingCut {
  transport::RingSlots rings;
  index_t poll_elements = 0;
};

/// Re-cuts `chunks` for rings of `size`: the messages through the window and the pushed
/// ones (their transports `send` and `recv`) to at most a slot (a member cut between its
/// columns where needed; the others keep `limit`), the local parts to
/// min(`local_part_elements`, a slot), held within a slot like the ring's chunks where they
/// follow packs (`follow`); then lays out the rings of this rank (`rank` of comm, on
/// `nodes`) for elements of `element_bytes`. `flat`: messages are laid flat
/// (engine/matrix_sides.hpp); their members, and those of the local parts, are then cut
/// between their segments (cut_chunks): a copy per segment and chunk, not per segment and 8
/// columns, and the moves measured as fast or faster (bench/README.md, "Flat messages cut
/// between segments everywhere").
template <class Limit>
RingCut cut_for_rings(const Plan& plan, Chunkings& chunks, const std::vector<Transport>& send,
                      const std::vector<Transport>& recv, const Limit& limit, RingSize size,
                      index_t local_part_elements, bool follow, bool flat, const NodeMap& nodes,
                      int rank, std::size_t element_bytes) {
  if (size.slots == 0) return {};
  const index_t slot_elements =
      std::max<index_t>(1, size.slot_bytes / static_cast<index_t>(element_bytes));
  const auto cut_to_slots = [](Transport t) {
    return t == Transport::shared_window || t == Transport::push;
  };
  const auto cut = [&](const FamilyList& d, const std::vector<Transport>& how) {
    const auto ringed = [&](const Message& msg) {
      return cut_to_slots(how[static_cast<std::size_t>(&msg - d.messages.data())]);
    };
    return cut_chunks(
        plan, d,
        [&](const Message& msg) {
          return ringed(msg) ? std::min(limit(msg), slot_elements) : limit(msg);
        },
        ringed, flat);
  };
  const auto any = [&](const std::vector<Transport>& how) {
    return std::any_of(how.begin(), how.end(), cut_to_slots);
  };
  RingCut out;
  if (any(send)) chunks.send = cut(plan.send, send);
  if (any(recv)) chunks.recv = cut(plan.recv, recv);
  if (any(send) || any(recv)) {
    // Local parts of a slot each, with a poll after each (poll_elements): a local part
    // of a whole chunk let a peer fill its ring and wait; with 128 KiB slots, case a
    // with op t took 1.7x as long. Where they follow packs, held within a slot like the
    // ring's chunks (a member cut between its segments where laid flat, else between its
    // columns), so that a part reads the source of one chunk, not of the next dozen (a
    // member of case a is 100 columns, 3.2 MB).
    out.poll_elements = std::min(local_part_elements, slot_elements);
    const index_t part = out.poll_elements;
    chunks.local = cut_chunks(
        plan, plan.local, [part](const Message&) { return part; },
        [follow](const Message&) { return follow; }, flat);
  }
  std::vector<bool> ring(plan.send.messages.size());
  for (std::size_t m = 0; m < ring.size(); ++m) ring[m] = send[m] == Transport::shared_window;
  const int me = nodes.rank_in_node[static_cast<std::size_t>(rank)];
  out.rings = transport::lay_out_rings(plan.send, chunks.send, ring, nodes.rank_in_node, me,
                                       nodes.node_size(), size.slots, element_bytes);
  return out;
}

}  // namespace redist::engine
