#pragma once
/// @file execution_options.hpp
/// ExecutionOptions: how a plan is executed (chunking, streaming stores, node transports),
/// in one struct. Unlike PlanOptions they do not change what moves, only how; still every
/// rank must use the same ones, since the transports are set up collectively: the
/// Redistributor agrees on them (detail/agreement.hpp) before any collective set-up.
///
/// Each member has one entry in the field table below (option_fields.hpp): its
/// REDIST_* variable (read once, then agreed), its check, and whether reports list it;
/// docs/quickstart.md's table is checked against it (tests/unit/test_option_fields.cpp).

#include <climits>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>

#include <redist/detail/environment.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/option_fields.hpp>

#ifndef REDIST_GPU_AWARE_MPI
/// Set to 1 when MPI can read and write device memory directly.
#define REDIST_GPU_AWARE_MPI 0
#endif

namespace redist {

/// The largest piece of a message one MPI call carries, in bytes: transport/link.hpp
/// casts each piece's byte count to an MPI `int` count.
inline constexpr index_t largest_message_bytes = INT_MAX;

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

/// The names of a policy's values: `all` the values, `names` as the environment and the
/// command line write them, `enumerators` as code does (for the docs), `what` the option.
template <class E>
struct PolicyNames;

template <>
struct PolicyNames<TransportPolicy> {
  static constexpr TransportPolicy all[] = {
      TransportPolicy::automatic, TransportPolicy::point_to_point, TransportPolicy::node_window,
      TransportPolicy::cross_memory};
  static constexpr const char* names[] = {"auto", "point-to-point", "node-window", "cross-memory"};
  static constexpr const char* enumerators[] = {"automatic", "point_to_point", "node_window",
                                                "cross_memory"};
  static constexpr const char* type = "TransportPolicy";
  static constexpr const char* what = "transport";
  static constexpr const char* unknown = "unknown transport policy";
};

/// How messages between nodes are ordered (engine/node_schedule.hpp, docs/transports.md).
/// Inside a node they always leave all at once.
enum class InterNodeSchedule : int {
  automatic = 0,    ///< the one measured faster (engine/node_schedule.hpp)
  all_at_once = 1,  ///< every message of a batch as soon as the batch opens
  caterpillar = 2,  ///< node pairs by steps, each exchange paced in packets
  shift = 3         ///< by steps: send to node i + d, receive from i - d, paced in packets
};

template <>
struct PolicyNames<InterNodeSchedule> {
  static constexpr InterNodeSchedule all[] = {
      InterNodeSchedule::automatic, InterNodeSchedule::all_at_once, InterNodeSchedule::caterpillar,
      InterNodeSchedule::shift};
  static constexpr const char* names[] = {"auto", "all-at-once", "caterpillar", "shift"};
  static constexpr const char* enumerators[] = {"automatic", "all_at_once", "caterpillar", "shift"};
  static constexpr const char* type = "InterNodeSchedule";
  static constexpr const char* what = "inter-node schedule";
  static constexpr const char* unknown = "unknown inter-node schedule";
};

/// Who drives an execution between start() and wait() (docs/overlap.md).
enum class ProgressPolicy : int {
  caller = 0,  ///< the caller's test() and wait() calls
  thread = 1   ///< a progress thread of the rank, started by start() and joined by wait()
};

template <>
struct PolicyNames<ProgressPolicy> {
  static constexpr ProgressPolicy all[] = {ProgressPolicy::caller, ProgressPolicy::thread};
  static constexpr const char* names[] = {"caller", "thread"};
  static constexpr const char* enumerators[] = {"caller", "thread"};
  static constexpr const char* type = "ProgressPolicy";
  static constexpr const char* what = "progress policy";
  static constexpr const char* unknown = "unknown progress policy";
};

/// The value's position in PolicyNames<E>::all, or -1 for a value out of range.
template <class E>
constexpr int policy_index(E v) {
  for (std::size_t k = 0; k < std::size(PolicyNames<E>::all); ++k)
    if (PolicyNames<E>::all[k] == v) return static_cast<int>(k);
  return -1;
}

/// "auto", "point-to-point", ...: the name the environment and the command line use.
template <class E>
requires requires { PolicyNames<E>::names; }
const char* to_string(E v) {
  const int k = policy_index(v);
  return k < 0 ? "?" : PolicyNames<E>::names[k];
}

/// "auto, point-to-point, node-window or cross-memory"
template <class E>
std::string policy_choices() {
  std::string s;
  const std::size_t n = std::size(PolicyNames<E>::names);
  for (std::size_t k = 0; k < n; ++k)
    s += std::string(k == 0 ? "" : k + 1 < n ? ", " : " or ") + PolicyNames<E>::names[k];
  return s;
}

/// The value named `name` (as to_string writes it).
/// @throws invalid_argument naming `what` and the value.
template <class E>
E parse_policy(std::string_view name, const std::string& what) {
  for (const E v : PolicyNames<E>::all)
    if (name == to_string(v)) return v;
  throw invalid_argument(detail::describe(
      "unknown " + std::string(PolicyNames<E>::what) + " (" + policy_choices<E>() + ")", what,
      std::string(name)));
}

inline TransportPolicy parse_transport_policy(std::string_view name, const std::string& what) {
  return parse_policy<TransportPolicy>(name, what);
}

inline InterNodeSchedule parse_inter_node_schedule(std::string_view name, const std::string& what) {
  return parse_policy<InterNodeSchedule>(name, what);
}

/// Chunks' worth of copying (ExecutionOptions::chunk_bytes each) that one test() call of an
/// execution does when not told otherwise (Executor::test, Redistributor::test).
inline constexpr std::size_t test_chunks_default = 2;

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

  /// Largest MPI message in bytes, in [1, largest_message_bytes]; longer messages are
  /// split into several. REDIST_MAX_MESSAGE_BYTES caps it (a smaller value in code is
  /// kept), so that a whole program or test suite can be run through the split path.
  index_t max_message_bytes = largest_message_bytes;

  /// Slots of each ring between two ranks of one node (transport/ring_slots.hpp): the
  /// sender packs chunk k into slot k mod ring_slots, the receiver unpacks and frees it.
  /// -1 (the default): 4. 0: no ring, a batch's messages lie whole in the node window
  /// (bench/README.md, "The node window's rings": the rings with their counters in shared
  /// memory were faster on most cases and keep a rank's buffers at a few MiB).
  index_t ring_slots = -1;
  /// Bytes of a ring slot, and so the largest chunk of a message through the node window.
  /// 0 (automatic): from the caches (detail/cpu_caches.hpp), so that every ring of the
  /// node in use fits half the shared cache. Agreed as the smallest over the ranks.
  index_t ring_slot_bytes = 0;
  /// Into a node-shared target, a message is pushed (transport/push.hpp) unless most of its
  /// elements lie in runs shorter than this that fill their tiles' columns: those go
  /// through the node window, whose receiver writes each tile whole. 256-byte runs (32-row
  /// tiles of doubles) measured 1.3x slower pushed, 512-byte runs 0.8x faster
  /// (bench/README.md, "Stitched stores"). 0: push every message that can be.
  index_t push_min_run_bytes = 512;

  /// Local parts follow the pack that reads the same source columns
  /// (engine/pack_followers.hpp): where a column goes partly to a peer through a ring of the
  /// node window and partly to this rank's own target, the local copy is swept with the
  /// pack, each column's runs in row order (engine/fused_sweeps.hpp), so the source crosses
  /// memory once. Only where the rings run on the host, and not under a transposing
  /// transform. Off: local parts run from their own queue, filling waits.
  bool follow_packs = true;

  /// Point-to-point messages described to MPI as derived datatypes over the matrices' own
  /// runs: sent from the source and received into the target, no pack, no unpack on that
  /// side (transport/chunk_datatypes.hpp; per chunk, where it only copies, its runs are
  /// not tiny and it is one MPI message). automatic: messages to and from other nodes; on:
  /// every point-to-point message; off (the default: between simulated nodes it measured
  /// no faster than packing, bench/README.md, "Derived datatypes between nodes"): packed.
  Toggle mpi_datatypes = Toggle::off;

  /// Who copies and drives MPI between start() and wait(). thread: start() hands the rest
  /// of the execution to a thread of its own, so that it overlaps the caller's computation
  /// where the rank has a spare core; needs MPI initialized with at least
  /// MPI_THREAD_SERIALIZED, and the caller must not call MPI until wait() unless it is
  /// MPI_THREAD_MULTIPLE. redistribute() and run() always run on the caller's thread.
  ProgressPolicy progress = ProgressPolicy::caller;

  /// These options with every REDIST_* variable that is set applied on top, validated.
  /// @throws invalid_argument naming the variable and its value if one is malformed, or
  /// the member and its value if the result is invalid.
  ExecutionOptions with_environment() const;
  /// @throws invalid_argument naming the first invalid member and its value.
  void validate() const;
  /// Whether messages between ranks of a node may use node-local paths at all.
  bool node_paths() const { return shared_window && transport != TransportPolicy::point_to_point; }
  /// Whether node-window messages go through rings of slots (host memory only): the one
  /// test both the engine's ring sizing and the batches' budget (message_buffering.hpp) use.
  bool rings() const { return node_paths() && ring_slots != 0; }
};

namespace detail {

/// A Toggle; its variable is 0 (off) or 1 (on).
struct ToggleKind {
  static Toggle parse(const char* var, std::string_view text) {
    return env_flag(var, text) ? Toggle::on : Toggle::off;
  }
  static std::string check(Toggle t) {
    return t >= Toggle::automatic && t <= Toggle::on ? std::string() : "unknown toggle";
  }
  static index_t shown(Toggle t) { return static_cast<index_t>(t); }
  static std::uint64_t word(Toggle t) { return static_cast<std::uint64_t>(shown(t)); }
  static const char* name(Toggle t) {
    return t == Toggle::automatic ? "automatic" : t == Toggle::on ? "on" : "off";
  }
  static std::string json(Toggle t) { return "\"" + std::string(name(t)) + "\""; }
  static std::string doc_default(Toggle t) { return "`Toggle::" + std::string(name(t)) + "`"; }
  static std::string doc_env(std::string_view var) { return Flag::doc_env(var); }
  static constexpr std::string_view word_unit = "";
};

/// A policy (an enum with PolicyNames); its variable is a value's name (to_string).
template <class E>
struct PolicyKind {
  static E parse(const char* var, std::string_view text) { return parse_policy<E>(text, var); }
  static std::string check(E v) {
    return policy_index(v) >= 0 ? std::string() : PolicyNames<E>::unknown;
  }
  static index_t shown(E v) { return static_cast<index_t>(v); }
  static std::uint64_t word(E v) { return static_cast<std::uint64_t>(shown(v)); }
  static std::string json(E v) { return "\"" + std::string(to_string(v)) + "\""; }
  static std::string doc_default(E v) {
    const int k = policy_index(v);
    return k < 0 ? "?"
                 : "`" + std::string(PolicyNames<E>::type) + "::" + PolicyNames<E>::enumerators[k] +
                       "`";
  }
  /// "`REDIST_TRANSPORT=auto`, `point-to-point`, `node-window` or `cross-memory`"
  static std::string doc_env(std::string_view var) {
    std::string s = "`" + std::string(var) + "=";
    const std::size_t n = std::size(PolicyNames<E>::names);
    for (std::size_t k = 0; k < n; ++k) {
      if (k > 0) s += k + 1 < n ? ", `" : " or `";
      s += std::string(PolicyNames<E>::names[k]) + "`";
    }
    return s;
  }
  static constexpr std::string_view word_unit = "";
};

template <>
struct OptionFields<ExecutionOptions> {
  using O = ExecutionOptions;
  // Agreement and reports list the fields in this order.
  static constexpr auto fields = std::tuple{
      option_field("ExecutionOptions::chunk_bytes", &O::chunk_bytes, "REDIST_CHUNK_BYTES",
                   Integer{1, INT64_MAX, "chunk size must be positive"}),
      option_field("ExecutionOptions::streaming", &O::streaming, "REDIST_STREAMING", ToggleKind{}),
      option_field("ExecutionOptions::streaming_threshold_bytes", &O::streaming_threshold_bytes,
                   nullptr, Integer{0, INT64_MAX, "streaming threshold must be >= 0"}),
      option_field("ExecutionOptions::shared_window", &O::shared_window, "REDIST_SHARED_WINDOW",
                   Flag{}),
      option_field("ExecutionOptions::transport", &O::transport, "REDIST_TRANSPORT",
                   PolicyKind<TransportPolicy>{}),
      option_field("ExecutionOptions::gpu_aware_mpi", &O::gpu_aware_mpi, "REDIST_GPU_AWARE_MPI",
                   Flag{"REDIST_GPU_AWARE_MPI"}),
      option_field("ExecutionOptions::inter_node_schedule", &O::inter_node_schedule,
                   "REDIST_INTER_NODE_SCHEDULE", PolicyKind<InterNodeSchedule>{}),
      // Not reported: it changes when a wait gives up, never how fast data moves.
      option_field("ExecutionOptions::progress_timeout_seconds", &O::progress_timeout_seconds,
                   "REDIST_PROGRESS_TIMEOUT",
                   Seconds{"progress timeout must be a number of seconds >= 0 (0: never)"}, false),
      option_field("ExecutionOptions::max_message_bytes", &O::max_message_bytes,
                   "REDIST_MAX_MESSAGE_BYTES",
                   Integer{1, largest_message_bytes, "message split limit must be positive",
                           "message split limit above the largest MPI count, INT_MAX"},
                   true, EnvRule::cap),
      option_field("ExecutionOptions::ring_slots", &O::ring_slots, "REDIST_RING_SLOTS",
                   Integer{-1, 1024, "ring slots must be -1 (automatic), 0 (off) or positive",
                           "ring slots above the most allowed", false, 0}),
      option_field("ExecutionOptions::ring_slot_bytes", &O::ring_slot_bytes,
                   "REDIST_RING_SLOT_BYTES",
                   Integer{0, index_t{1} << 30, "ring slot size must be >= 0 (0: automatic)",
                           "ring slot size above the most allowed, 1 GiB"}),
      option_field("ExecutionOptions::push_min_run_bytes", &O::push_min_run_bytes,
                   "REDIST_PUSH_MIN_RUN_BYTES",
                   Integer{0, index_t{1} << 30, "push's shortest run must be >= 0 (0: any)",
                           "push's shortest run above the most allowed, 1 GiB", true, 0}),
      option_field("ExecutionOptions::follow_packs", &O::follow_packs, "REDIST_FOLLOW_PACKS",
                   Flag{}),
      option_field("ExecutionOptions::mpi_datatypes", &O::mpi_datatypes, "REDIST_MPI_DATATYPES",
                   ToggleKind{}),
      option_field("ExecutionOptions::progress", &O::progress, "REDIST_PROGRESS",
                   PolicyKind<ProgressPolicy>{}),
  };
};

}  // namespace detail

inline ExecutionOptions ExecutionOptions::with_environment() const {
  ExecutionOptions o = detail::apply_environment(*this);
  o.validate();
  return o;
}

inline void ExecutionOptions::validate() const { detail::validate_options(*this); }

}  // namespace redist
