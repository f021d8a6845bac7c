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
/// | gpu_aware_mpi            | REDIST_GPU_AWARE_MPI  | REDIST_GPU_AWARE_MPI=0 or 1          |
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

struct ExecutionOptions {
  /// Messages leave in chunks of about this many bytes: the receiver unpacks chunk k while
  /// the sender packs chunk k + 1 (pipelining).
  index_t chunk_bytes = index_t{1} << 21;
  /// Streaming (non-temporal) stores into the target and send buffers; automatic: when a
  /// rank writes at least `streaming_threshold_bytes` per execution (copy_kernel.hpp).
  Toggle streaming = Toggle::automatic;
  index_t streaming_threshold_bytes = index_t{16} << 20;
  /// MPI-3 shared-memory windows between the ranks of a node (shared-window and direct
  /// transports). Off: every message goes through MPI point-to-point.
  bool shared_window = true;
  /// MPI reads and writes device memory directly; off: device messages are staged
  /// through host buffers.
  bool gpu_aware_mpi = REDIST_GPU_AWARE_MPI != 0;
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
    if (const char* e = std::getenv("REDIST_GPU_AWARE_MPI"))
      o.gpu_aware_mpi = detail::env_flag("REDIST_GPU_AWARE_MPI", e);
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
  }
};

}  // namespace redist
