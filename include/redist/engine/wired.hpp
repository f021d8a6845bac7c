#pragma once
/// @file engine/wired.hpp
/// An engine wired once: what the executor (executor.hpp) runs, built in pipeline order
/// by one constructor and not changed after (but for the pointers of unpacks that read a
/// peer's part of the node window, set when the peer's note arrives).
///
///   1. matrix sides   where each part's segments lie       engine/matrix_sides.hpp
///   2. chunks         messages and local copies cut       engine/chunking.hpp
///   3. transports     per message, collectively           transport/choose.hpp
///                     (pushed messages' targets described once cut: push_targets.hpp)
///   4. buffers        laid out for those transports       transport/message_buffers.hpp
///                     (messages read in place on a device re-cut whole: one chunk each;
///                     the node window's and pushed ones cut to ring slots:
///                     engine/ring_cut.hpp)
///   5. task graph     built once, with the transports     task_graph.hpp
///                     (and the step order's edges between nodes: engine/node_schedule.hpp)
///   6. copies         bound once, to matrices and buffers  engine/bound_copies.hpp
///                     (the peers' pages they touch in place mapped: engine/peer_pages.hpp)
///   7. schedule       compiled once; copies mirrored to the device
///
/// Steps 1, 2 and 6 are local: when one rank fails (bad storage, no memory), every rank
/// throws the same error (collective/collectively.hpp) and none is left in a collective.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/collective/collectively.hpp>
#include <redist/detail/stopwatch.hpp>
#include <redist/engine/bound_copies.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/matrix_sides.hpp>
#include <redist/engine/mpi_described_chunks.hpp>
#include <redist/engine/node_schedule.hpp>
#include <redist/engine/pack_followers.hpp>
#include <redist/engine/progress_thread.hpp>
#include <redist/engine/ring_cut.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/plan/node_traffic.hpp>
#include <redist/task_graph.hpp>
#include <redist/topology.hpp>
#include <redist/transform.hpp>
#include <redist/transport/choose.hpp>
#include <redist/transport/ring_slots.hpp>
#include <redist/transport/transports.hpp>

namespace redist::engine {

template <class T, class MemorySpace>
class Wired {
 public:
  using execution_space = typename MemorySpace::execution_space;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  /// Wires `plan` to part k's matrices srcs[k] and dsts[k]. Collective over comm. The
  /// matrices must outlive this object and their storage must not move. With a
  /// transposing `transform` the plan is one from the transposed view of the sources'
  /// layout (transform.hpp). @pre `options` and `transform` agreed by every rank.
  /// @throws on every rank, what one rank's sides or binding threw; communication_error
  /// if MPI fails while setting up the transports.
  Wired(Plan plan, const std::vector<MatrixView<T, MemorySpace>>& srcs,
        const std::vector<MatrixView<T, MemorySpace>>& dsts, boost::mpi::communicator comm,
        const ExecutionOptions& options, const Transform<T>& transform);

  Wired(const Wired&) = delete;  // the transports point at its members
  Wired& operator=(const Wired&) = delete;

  const Plan& plan() const { return plan_; }
  const boost::mpi::communicator& comm() const { return comm_; }
  const ExecutionOptions& options() const { return options_; }
  const Transform<T>& transform() const { return transform_; }
  const TaskGraph& graph() const { return graph_; }
  const Schedule& schedule() const { return schedule_; }
  BoundCopies<T, MemorySpace>& copies() { return copies_; }
  const BoundCopies<T, MemorySpace>& copies() const { return copies_; }
  transport::Transports<T, MemorySpace>& transports() { return transports_; }
  const transport::Transports<T, MemorySpace>& transports() const { return transports_; }
  transport::RequestPool& requests() { return requests_; }
  const transport::MessageBuffers<T, MemorySpace>& buffers() const { return buffers_; }
  /// Seconds step 4 took on this rank: the buffers allocated and their pages made present.
  double buffer_seconds() const { return buffer_seconds_; }
  /// Elements of local copies between two polls of MPI: a chunk's worth, or a ring
  /// slot's where rings run, so that a rank unpacks and acks its peers' slots while it
  /// copies locally (a peer whose ring is full waits for that).
  index_t poll_elements() const { return poll_elements_; }
  /// Why no message goes cross-memory although ExecutionOptions::transport asked for it
  /// (they went through the node window); empty otherwise.
  const std::string& cross_memory_refused() const { return cross_memory_refused_; }
  /// The execution-space instance the transports stage and fence on: the one of the
  /// execution in progress.
  void use(const execution_space& exec) { exec_ = exec; }
  const execution_space& exec() const { return exec_; }

 private:
  index_t chunk_elements() const {
    return std::max<index_t>(1, options_.chunk_bytes / static_cast<index_t>(sizeof(T)));
  }
  index_t packet_elements() const {
    return std::max<index_t>(1, step_packet_bytes / static_cast<index_t>(sizeof(T)));
  }
  /// A step order's pieces on the link, unless some rank would receive too many of them
  /// from other nodes (engine/node_schedule.hpp). Collective: every rank splits alike.
  void use_step_pieces() {
    const index_t pieces = plan_.stats.elements_received_inter_node *
                           static_cast<index_t>(sizeof(T)) / step_piece_bytes;
    if (boost::mpi::all_reduce(comm_, pieces, boost::mpi::maximum<index_t>()) <= step_max_pieces)
      link_.max_message_bytes = std::min(link_.max_message_bytes, step_piece_bytes);
  }
  /// Per rank: whether it lies on another node than this one.
  std::vector<bool> other_nodes(const NodeMap& nodes) const {
    std::vector<bool> other;
    for (const int n : nodes.node_of_rank)
      other.push_back(n != nodes.node_of_rank[static_cast<std::size_t>(comm_.rank())]);
    return other;
  }
  /// Host copies run in parts of a chunk, between which MPI is polled; a device runs a
  /// batch's local copies as one launch (a part of 2 MiB would take the device about as
  /// long as launching it).
  index_t local_part_elements() const {
    return host_memory ? chunk_elements() : std::numeric_limits<index_t>::max() / 2;
  }

  bool node_transports() const { return host_memory && options_.node_paths(); }

  /// Step 3: the transports, chosen from the sources' and targets' addresses. Messages
  /// are pushed only where the transform just copies: a Send writes plainly
  /// (engine/bound_copies.hpp).
  template <class Sides>
  transport::TransportChoice<T> choose_transports(const Sides& sides, const Chunkings& chunks) {
    const bool device_reads = transport::ipc::shareable<MemorySpace> && options_.node_paths();
    return mpi_step([&] {
      return transport::choose_transports<T>(
          comm_, plan_, chunks.send, chunks.recv, node_transports(), device_reads,
          !transform_.scales(), options_.push_min_run_bytes, options_.transport,
          transform_.transposes(),
          [&](index_t part, const Piece& r, const Piece& c) { return sides.source(part, r, c); },
          [&](index_t part, const Piece& r, const Piece& c) { return sides.target(part, r, c); });
    });
  }
  /// Step 4a: where the pushed messages' segments lie in their receivers' targets, once
  /// their chunks are final.
  template <class Sides>
  void describe_push_targets(const Sides& sides, const Chunkings& chunks,
                             transport::TransportChoice<T>& choice) {
    if (!node_transports()) return;
    mpi_step([&] {
      transport::describe_push_targets<T>(
          comm_, plan_, chunks.send, chunks.recv,
          [&](index_t part, const Piece& r, const Piece& c) { return sides.target(part, r, c); },
          choice);
      return 0;
    });
  }
  /// Step 4: the buffers laid out for the transports and the rings, and allocated.
  void lay_out_buffers(transport::TransportChoice<T>& choice, const transport::RingSlots& rings) {
    mpi_step([&] {
      const redist::detail::Stopwatch clock;
      transport::lay_out_buffers(comm_, plan_, node_transports(), choice, buffers_, rings);
      buffer_seconds_ = clock.seconds();
      return 0;
    });
  }
  /// f(), with MPI's failures as communication_error.
  template <class F>
  static auto mpi_step(F&& f) {
    try {
      return f();
    } catch (const boost::mpi::exception& e) {
      throw communication_error(
          detail::describe("MPI failed while setting up the transports", e.routine(), e.what()));
    }
  }

  /// Messages read in place on a device become one chunk each: readable at once, they
  /// have no packing, staging or MPI to pace, and a chunk costs the device about a launch
  /// (bench/README.md, "Device"). Sender and receiver know the message's transport alike,
  /// so they re-cut alike; the segments keep their order, so the descriptions stay valid.
  template <class Limit>
  void read_whole_messages(Chunkings& chunks, const transport::TransportChoice<T>& choice,
                           const Limit& limit) {
    if constexpr (!host_memory) {
      const auto whole = [&](const FamilyList& d, const std::vector<Transport>& how) {
        return [&d, &how, &limit](const Message& msg) {
          const auto m = static_cast<std::size_t>(&msg - d.messages.data());
          return how[m] == Transport::device_ipc ? std::numeric_limits<index_t>::max() / 2
                                                 : limit(msg);
        };
      };
      const auto any = [](const std::vector<Transport>& how) {
        return std::find(how.begin(), how.end(), Transport::device_ipc) != how.end();
      };
      if (any(choice.send))
        chunks.send = cut_chunks(plan_, plan_.send, whole(plan_.send, choice.send));
      if (any(choice.recv))
        chunks.recv = cut_chunks(plan_, plan_.recv, whole(plan_.recv, choice.recv));
    }
  }

  /// Point-to-point chunks that MPI sends from the source or receives into the target
  /// (engine/mpi_described_chunks.hpp): their copies skipped, their datatypes handed to
  /// the transport.
  void leave_chunks_to_mpi(const NodeMap& nodes) {
    DescribedChunks d = describe_chunks_to_mpi(plan_, graph_, copies_, buffers_, options_, nodes,
                                               link_.max_message_bytes);
    std::vector<bool> sent(graph_.send.chunks.size()), received(graph_.recv.chunks.size());
    for (std::size_t c = 0; c < sent.size(); ++c) sent[c] = d.sent.described(c);
    for (std::size_t c = 0; c < received.size(); ++c) received[c] = d.received.described(c);
    copies_.leave_to_mpi(std::move(sent), std::move(received));
    transports_.point_to_point.describe(std::move(d.sent), std::move(d.received));
  }

  /// Whether local parts follow the packs that read the same source where the rings run
  /// (ExecutionOptions::follow_packs, engine/pack_followers.hpp; a whole batch staged in
  /// the window is no pass that the cache could share): on the host, and not under a transposing
  /// transform: its local copies walk the source across its columns in tiles of a cache line, and
  /// cut to a slot's columns case a with op t took 0.150-0.169 s against 0.098 s (bench/README.md,
  /// "Unpacks first, and local parts that follow their pack").
  bool following_packs() const {
    return host_memory && options_.follow_packs && !transform_.transposes();
  }
  /// The transports' windows, once the graph they size their notes by is built.
  void attach_transports(transport::TransportChoice<T>& choice) {
    if (choice.window)
      transports_.shared_window.attach(std::move(choice.window), std::move(choice.peer_part),
                                       std::move(choice.ring_signals));
    transports_.direct.attach(std::move(choice.direct_windows), std::move(choice.imports));
    transports_.push.attach(std::move(choice.push_windows));
    cross_memory_refused_ = choice.cross_memory_refused;
  }

  // In pipeline order; the transports point at the members above them.
  Plan plan_;
  boost::mpi::communicator comm_;
  ExecutionOptions options_;
  Transform<T> transform_;
  execution_space exec_{};
  transport::RequestPool requests_;
  transport::MessageBuffers<T, MemorySpace> buffers_;
  transport::Link<T, MemorySpace> link_;
  transport::Transports<T, MemorySpace> transports_{&link_};
  TaskGraph graph_;
  Schedule schedule_;
  BoundCopies<T, MemorySpace> copies_;
  std::string cross_memory_refused_;
  double buffer_seconds_ = 0;
  index_t poll_elements_ = 1;
};

/// Not inline: a program that links the compiled engine (compiled_engine.hpp) takes it
/// from there.
template <class T, class MemorySpace>
Wired<T, MemorySpace>::Wired(Plan plan, const std::vector<MatrixView<T, MemorySpace>>& srcs,
                             const std::vector<MatrixView<T, MemorySpace>>& dsts,
                             boost::mpi::communicator comm, const ExecutionOptions& options,
                             const Transform<T>& transform)
    : plan_(std::move(plan)),
      comm_(std::move(comm)),
      options_(options),
      transform_(transform),
      buffers_(!options.gpu_aware_mpi) {
  link_.comm = comm_;
  link_.messages = {&plan_, &graph_};
  link_.buffers = &buffers_;
  link_.requests = &requests_;
  link_.exec = &exec_;
  link_.max_message_bytes = options_.max_message_bytes;
  requests_.set_progress_timeout(options_.progress_timeout_seconds);
  using Sides = MatrixSides<T, MemorySpace>;
  std::optional<Sides> sides;
  Chunkings chunks;
  // The nodes (collective the first time on this communicator; the transports and the
  // step orders use the same map).
  const NodeMap& nodes = node_map(comm_);
  const InterNodeSchedule schedule = resolved_schedule(options_.inter_node_schedule, nodes.nodes);
  const bool steps = schedule != InterNodeSchedule::all_at_once;
  const std::vector<bool> packet_peers = steps ? other_nodes(nodes) : std::vector<bool>{};
  const auto chunk_limit = message_chunk_limit(chunk_elements(), packet_peers,
                                               std::min(chunk_elements(), packet_elements()));
  // Small tiles stack their messages only where some rank's tiles separate, and tiles
  // a little larger where some rank's tile rows are cut (MatrixSides::lays_flat): every
  // rank must lay them out alike.
  using Agreed = typename Sides::Agreed;
  const int here = Agreed::here(plan_, srcs, dsts, transform_.transposes()).bits();
  const int somewhere = boost::mpi::all_reduce(comm_, here, boost::mpi::bitwise_or<int>());
  detail::collectively(comm_, [&] {
    options_.validate();
    if (options_.progress == ProgressPolicy::thread) require_progress_thread_support();
    sides.emplace(srcs, dsts, transform_.transposes(), Agreed::from_bits(somewhere));
    chunks = {cut_chunks(plan_, plan_.send, chunk_limit),
              cut_chunks(plan_, plan_.recv, chunk_limit),
              cut_chunks(plan_, plan_.local, local_part_elements())};
  });
  // The plan's statistics with the bytes that cross a node's link.
  plan_.stats = with_node_traffic(plan_, nodes.node_of_rank, nodes.nodes);
  if (steps) use_step_pieces();
  transport::TransportChoice<T> choice = choose_transports(*sides, chunks);
  read_whole_messages(chunks, choice, chunk_limit);
  poll_elements_ = chunk_elements();
  const RingCut cut =
      cut_for_rings(plan_, chunks, choice.send, choice.recv, chunk_limit,
                    ring_size(options_, node_transports(), nodes, comm_), local_part_elements(),
                    following_packs(), sides->flat, nodes, comm_.rank(), sizeof(T));
  if (cut.poll_elements > 0) poll_elements_ = cut.poll_elements;
  const transport::RingSlots& rings = cut.rings;
  describe_push_targets(*sides, chunks, choice);
  link_.ring = rings.slots > 0;
  lay_out_buffers(choice, rings);
  graph_ = make_task_graph(plan_, std::move(chunks), choice.send, choice.recv, rings.reuse);
  if (steps) add_step_edges(graph_, plan_, nodes.node_of_rank, nodes.nodes, schedule);
  attach_transports(choice);
  detail::collectively(comm_, [&] {
    copies_ = BoundCopies<T, MemorySpace>(plan_, graph_, *sides, buffers_, choice.described,
                                          choice.targets, choice.peer_pid, transform_, options_);
  });
  // The peers' pages that pushes and direct reads touch, mapped here now rather than a
  // fault a page in the first move.
  copies_.populate_peer_pages(graph_);
  leave_chunks_to_mpi(nodes);
  if (link_.ring && following_packs()) {
    follow_packs(graph_, local_followers(plan_, graph_, copies_));
    copies_.sweep_followers(graph_.follows);
  }
  schedule_ = compile(graph_);
  copies_.mirror();
  // What the plan costs besides the buffers: the plan, and what was compiled from it.
  plan_.stats.plan_bytes = static_cast<index_t>(plan_.memory_bytes());
  plan_.stats.schedule_bytes = static_cast<index_t>(
      graph_.memory_bytes() + schedule_.memory_bytes() + copies_.memory_bytes());
}

}  // namespace redist::engine
