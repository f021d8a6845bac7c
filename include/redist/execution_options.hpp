#pragma once
/// @file execution_options.hpp
/// ExecutionOptions: how a plan is executed (chunking, streaming stores, node transports),
/// in one struct. Unlike PlanOptions they do not change what moves, only how; still every
/// rank must use the same ones, since the transports are set up collectively: the
/// Redistributor agrees on them (detail/agreement.hpp) before any collective set-up.
///
/// | member                   | default               | environment (read once, then agreed) |
/// |--------------------------|-----------------------|--------------------------------------|
/// | chunk_bytes              | 2 MiB                 | REDIST_CHUNK_BYTES=N                 |
/// | streaming                | automatic (>= 16 MiB) | REDIST_STREAMING=0 or 1              |
/// | shared_window            | on                    | REDIST_SHARED_WINDOW=0 or 1          |
/// | transport                | automatic             | REDIST_TRANSPORT=auto, point-to-point, |
/// |                          |                       | node-window or cross-memory          |
/// | gpu_aware_mpi            | REDIST_GPU_AWARE_MPI  | REDIST_GPU_AWARE_MPI=0 or 1          |
/// | inter_node_schedule      | automatic             | REDIST_INTER_NODE_SCHEDULE=auto,     |
/// |                          |                       | all-at-once or caterpillar           |
/// | progress_timeout_seconds | 300                   | REDIST_PROGRESS_TIMEOUT=S (0: never) |
///
/// PlanOptions::max_message_bytes has one too, REDIST_MAX_MESSAGE_BYTES (plan.hpp).

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <redist/detail/environment.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>

#ifndef REDIST_GPU_AWARE_MPI
/// Set to 1 when MPI can read and write device memory directly.
#define REDIST_GPU_AWARE_MPI 0
#endif

namespace redist {

/// A switch that may also be left to the library.
enum class Toggle : int { automatic = -1, off = 0, on = 1 };

/// How messages between ranks of one node travel (docs/transports.md). Between nodes
/// they always go point to point.
enum class TransportPolicy : int {
  /// node-shared sources are read in place; private ones cross-memory where the kernel
  /// permits it (probed once per communicator) and their columns are long enough
  /// (transport/choose.hpp), else through the node window
  automatic = 0,
  point_to_point = 1,  ///< MPI, as between nodes
  node_window = 2,     ///< packed into an MPI-3 shared window, unpacked from it
  cross_memory = 3     ///< read from the sender's source by the receiver, where permitted
};

inline const char* to_string(TransportPolicy p) {
  switch (p) {
    case TransportPolicy::automatic:
      return "auto";
    case TransportPolicy::point_to_point:
      return "point-to-point";
    case TransportPolicy::node_window:
      return "node-window";
    case TransportPolicy::cross_memory:
      return "cross-memory";
  }
  return "?";
}

/// The policy named `name` (as to_string writes it).
/// @throws invalid_argument naming `what` and the value.
inline TransportPolicy parse_transport_policy(std::string_view name, const std::string& what) {
  for (const TransportPolicy p : {TransportPolicy::automatic, TransportPolicy::point_to_point,
                                  TransportPolicy::node_window, TransportPolicy::cross_memory})
    if (name == to_string(p)) return p;
  throw invalid_argument(
      detail::describe("unknown transport (auto, point-to-point, node-window or cross-memory)",
                       what, std::string(name)));
}

/// How messages between nodes are ordered (engine/node_schedule.hpp, docs/transports.md).
/// Inside a node they always leave all at once.
enum class InterNodeSchedule : int {
  automatic = 0,    ///< the one measured faster (engine/node_schedule.hpp)
  all_at_once = 1,  ///< every message of a batch as soon as the batch opens
  caterpillar = 2   ///< node pairs by steps, each exchange paced in packets
};

inline const char* to_string(InterNodeSchedule s) {
  switch (s) {
    case InterNodeSchedule::automatic:
      return "auto";
    case InterNodeSchedule::all_at_once:
      return "all-at-once";
    case InterNodeSchedule::caterpillar:
      return "caterpillar";
  }
  return "?";
}

/// The schedule named `name` (as to_string writes it).
/// @throws invalid_argument naming `what` and the value.
inline InterNodeSchedule parse_inter_node_schedule(std::string_view name, const std::string& what) {
  for (const InterNodeSchedule s : {InterNodeSchedule::automatic, InterNodeSchedule::all_at_once,
                                    InterNodeSchedule::caterpillar})
    if (name == to_string(s)) return s;
  throw invalid_argument(detail::describe(
      "unknown inter-node schedule (auto, all-at-once or caterpillar)", what, std::string(name)));
}

struct ExecutionOptions {
  /// Messages leave in chunks of about this many bytes: the receiver unpacks chunk k while
  /// the sender packs chunk k + 1 (pipelining).
  index_t chunk_bytes = index_t{1} << 21;
  /// Streaming (non-temporal) stores into the target and send buffers; automatic: when a
  /// rank writes at least `streaming_threshold_bytes` per execution (copy/host_primitives.hpp).
  Toggle streaming = Toggle::automatic;
  index_t streaming_threshold_bytes = index_t{16} << 20;
  /// MPI-3 shared-memory windows between the ranks of a node (shared-window and direct
  /// transports). Off: every message goes through MPI point-to-point, as with
  /// `transport` point_to_point.
  bool shared_window = true;
  /// How messages between ranks of one node travel. A forced cross_memory falls back to
  /// the node window where the kernel does not permit it (Executor::transport_note()).
  TransportPolicy transport = TransportPolicy::automatic;
  /// MPI reads and writes device memory directly; off: device messages are staged
  /// through host buffers.
  bool gpu_aware_mpi = REDIST_GPU_AWARE_MPI != 0;
  /// How messages between nodes are ordered; on one node it changes nothing.
  InterNodeSchedule inter_node_schedule = InterNodeSchedule::automatic;
  /// A blocking wait gives up, with communication_error naming the peers and the bytes
  /// still owed, after this many seconds without any transfer completing (a dead link, a
  /// peer that never comes); the source is never written. 0: wait forever. Generous by
  /// default: one chunk takes milliseconds, even a 1 GiB piece seconds on a slow link.
  double progress_timeout_seconds = 300;

  /// These options with every REDIST_* variable that is set applied on top.
  /// @throws invalid_argument naming the variable and its value if one is malformed.
  ExecutionOptions with_environment() const {
    ExecutionOptions o = *this;
    if (const char* e = std::getenv("REDIST_CHUNK_BYTES"))
      o.chunk_bytes = detail::env_bytes("REDIST_CHUNK_BYTES", e);
    if (const char* e = std::getenv("REDIST_STREAMING"))
      o.streaming = detail::env_flag("REDIST_STREAMING", e) ? Toggle::on : Toggle::off;
    if (const char* e = std::getenv("REDIST_SHARED_WINDOW"))
      o.shared_window = detail::env_flag("REDIST_SHARED_WINDOW", e);
    if (const char* e = std::getenv("REDIST_TRANSPORT"))
      o.transport = parse_transport_policy(e, "REDIST_TRANSPORT");
    if (const char* e = std::getenv("REDIST_GPU_AWARE_MPI"))
      o.gpu_aware_mpi = detail::env_flag("REDIST_GPU_AWARE_MPI", e);
    if (const char* e = std::getenv("REDIST_INTER_NODE_SCHEDULE"))
      o.inter_node_schedule = parse_inter_node_schedule(e, "REDIST_INTER_NODE_SCHEDULE");
    if (const char* e = std::getenv("REDIST_PROGRESS_TIMEOUT"))
      o.progress_timeout_seconds = detail::env_seconds("REDIST_PROGRESS_TIMEOUT", e);
    o.validate();
    return o;
  }

  /// @throws invalid_argument naming the member and its value.
  void validate() const {
    detail::require<invalid_argument>(chunk_bytes >= 1, "chunk size must be positive",
                                      "ExecutionOptions::chunk_bytes", chunk_bytes);
    detail::require<invalid_argument>(
        streaming_threshold_bytes >= 0, "streaming threshold must be >= 0",
        "ExecutionOptions::streaming_threshold_bytes", streaming_threshold_bytes);
    detail::require<invalid_argument>(
        std::isfinite(progress_timeout_seconds) && progress_timeout_seconds >= 0,
        "progress timeout must be a number of seconds >= 0 (0: never)",
        "ExecutionOptions::progress_timeout_seconds", progress_timeout_seconds);
    detail::require<invalid_argument>(
        transport >= TransportPolicy::automatic && transport <= TransportPolicy::cross_memory,
        "unknown transport policy", "ExecutionOptions::transport", static_cast<index_t>(transport));
    detail::require<invalid_argument>(inter_node_schedule >= InterNodeSchedule::automatic &&
                                          inter_node_schedule <= InterNodeSchedule::caterpillar,
                                      "unknown inter-node schedule",
                                      "ExecutionOptions::inter_node_schedule",
                                      static_cast<index_t>(inter_node_schedule));
  }
  /// Whether messages between ranks of a node may use node-local paths at all.
  bool node_paths() const { return shared_window && transport != TransportPolicy::point_to_point; }
};

}  // namespace redist
