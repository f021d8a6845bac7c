#pragma once
/// @file cost/machine.hpp
/// Machine: the parameters of the cost model (cost_model.hpp) for one machine, their
/// check, and the rates that follow from them. redist-calibrate measures them;
/// tools/machine_spec.hpp reads them from its JSON or from KEY=VALUE pairs.

#include <algorithm>
#include <string>

#include <redist/error.hpp>

namespace redist {

/// What predict needs to know of a machine. Bandwidths in bytes per second, latencies in
/// seconds; `redist-calibrate` measures them (docs/cost-model.md).
struct Machine {
  /// memcpy bandwidth of one rank while every rank copies (B_memcpy of Eq. 4).
  double memcpy_bytes_per_s = 0;
  /// One direction of a node's link to the other nodes (B_net of Eq. 4, per node).
  double link_bytes_per_s = 0;
  /// One message between nodes.
  double link_latency_s = 0;
  /// Point-to-point between two ranks of one node (MPI over shared memory); 0: no
  /// transfer term within a node (the node window: the receiver unpacks from the sender's
  /// buffer, so pack and unpack are all it costs).
  double shm_bytes_per_s = 0;
  /// One message between two ranks of one node.
  double shm_latency_s = 0;
  /// c_run: what one contiguous run of a copy costs beyond its bytes at memcpy_bytes_per_s
  /// (contiguous_runs); 0 (a file without it): runs cost nothing beyond their bytes.
  double copy_run_s = 0;
  /// Cores of a node that its ranks run on (a count); when a node's ranks exceed it, the
  /// copy terms of its ranks scale by ranks / cores. 0 (a file without it): not known,
  /// ranks never share a core.
  double cores_per_node = 0;
  /// Chunks that stay in the cache (the node window's rings; MPI's chunks within a node):
  /// the rate of one rank packing into a cache-sized ring and unpacking its peer's ring
  /// (both copies' bytes over their time, as memcpy_bytes_per_s is one copy's), which
  /// replaces memcpy_bytes_per_s for the bytes a rank packs for, and unpacks from, ranks of
  /// its node through the rings or MPI, but for those in pieces (cost_model.hpp). 0 (a file
  /// without it): those copies at memcpy_bytes_per_s.
  double ring_bytes_per_s = 0;
};

/// The rate that pack and unpack run at for the bytes within a node that they walk densely
/// (not in pieces) when the machine decides their route (a load without routes,
/// RankLoad::routes_known): through the node window's rings (shm_bytes_per_s 0) or MPI's
/// chunks (shm_bytes_per_s > 0), a chunk stays in the cache: the ring's rate where it is
/// known, else memcpy's.
inline double node_copy_bytes_per_s(const Machine& m) {
  return m.ring_bytes_per_s > 0 ? m.ring_bytes_per_s : m.memcpy_bytes_per_s;
}

/// Checks a machine's parameters.
/// @throws invalid_argument naming the first field that is not finite, negative, or 0
/// where a bandwidth is needed (memcpy; link only when `needs_link`).
inline void validate(const Machine& m, bool needs_link = true) {
  const auto check = [](double v, const char* name, bool positive) {
    detail::require<invalid_argument>(
        v == v && v >= 0 && v < 1e300 && (!positive || v > 0),
        positive ? "must be a finite number > 0" : "must be a finite number >= 0",
        std::string("Machine::") + name, v);
  };
  check(m.memcpy_bytes_per_s, "memcpy_bytes_per_s", true);
  check(m.link_bytes_per_s, "link_bytes_per_s", needs_link);
  check(m.link_latency_s, "link_latency_s", false);
  check(m.shm_bytes_per_s, "shm_bytes_per_s", false);
  check(m.shm_latency_s, "shm_latency_s", false);
  check(m.copy_run_s, "copy_run_s", false);
  check(m.cores_per_node, "cores_per_node", false);
  check(m.ring_bytes_per_s, "ring_bytes_per_s", false);
}

/// s of the file comment: how many times longer a rank's copies take when its node's
/// `node_ranks` ranks share `m.cores_per_node` cores; 1 when they do not, or cores are not
/// known. @post >= 1. Example: 4 ranks, 2 cores: 2; 3 ranks, 2 cores: 1.5; 2 ranks, 4 cores: 1.
inline double core_sharing(const Machine& m, int node_ranks) {
  return m.cores_per_node > 0 ? std::max(1.0, node_ranks / m.cores_per_node) : 1.0;
}

}  // namespace redist
