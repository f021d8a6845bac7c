#pragma once
/// @file redistributor.hpp
/// Redistributor<Src, Dst>: the public entry point. Plans once (collectively checked),
/// builds the task graph and its executor, then moves the region as often as asked.
///
///   redist::Redistributor r(A, B, comm, redist::Region{{rows, cols}, {i, j}, {k, l}});
///   r.redistribute();           // blocking
///   r.start(); ...; r.wait();   // or overlapped with the caller's work

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/collective/collectively.hpp>
#include <redist/detail/agreement.hpp>
#include <redist/detail/part_agreement.hpp>
#include <redist/detail/stopwatch.hpp>
#include <redist/engine/executor_handle.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/message_buffering.hpp>
#include <redist/part.hpp>
#include <redist/plan.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/plan/plan_parts.hpp>
#include <redist/plan/triangle_mask.hpp>
#include <redist/region.hpp>
#include <redist/set_up_times.hpp>
#include <redist/task_counts.hpp>
#include <redist/topology.hpp>
#include <redist/transform.hpp>
#include <redist/views/matrix_view.hpp>

// Header-only, the executor's definitions come with the Redistributor; with the compiled
// engine they are in redist::engine, and no unit of the program parses the engine.
#if !defined(REDIST_COMPILED_ENGINE)
#include <redist/engine/executor_handle_definitions.hpp>
#endif

namespace redist {

template <class Src, class Dst>
class Redistributor {
  static_assert(std::is_same_v<typename Src::value_type, typename Dst::value_type>,
                "redist: source and target element types differ");
  static_assert(std::is_same_v<typename Src::memory_space, typename Dst::memory_space>,
                "redist: source and target must live in the same Kokkos memory space");
#if defined(REDIST_COMPILED_ENGINE)
  // Unqualified, so that argument-dependent lookup sees the definitions header's overload.
  static_assert(
      detail::compiled_engine_holds<typename Src::value_type, typename Src::memory_space> ||
          executor_definitions_visible(
              static_cast<const detail::EngineTag<typename Src::value_type,
                                                  typename Src::memory_space>*>(nullptr)),
      "redist: the compiled engine (redist::engine) holds float, double, "
      "complex<float>, complex<double> and int in host memory; for another element "
      "type or memory space, #include <redist/engine/executor_handle_definitions.hpp> "
      "in this unit");
#endif

 public:
  using value_type = typename Src::value_type;
  using memory_space = typename Src::memory_space;

  /// Plans moving `region` from src to dst among the ranks of `comm` (duplicated, so
  /// redist's messages never meet the caller's). Collective.
  /// @throws (on every rank) region_error, distribution_error, storage_error,
  /// invalid_argument naming the parameter and value, if any rank finds bad input;
  /// agreement_error naming what differs and on which ranks if the ranks passed different
  /// layouts, storage kinds, regions, element types or options.
  Redistributor(const Src& src, Dst& dst, const boost::mpi::communicator& comm, Region region,
                PlanOptions options = {}, ExecutionOptions execution = {})
      : Redistributor(src, dst, comm, region, Transform<value_type>{}, options, execution) {}

  /// Plans region <- alpha * op(region of src) + beta * region of dst (transform.hpp):
  /// `region.extent` is the source's R x C; with op = transpose or conj_transpose the
  /// target rectangle at region.dst_origin is C x R. Collective; throws as above, and
  /// region_error naming the field when the transposed rectangle does not fit the target.
  Redistributor(const Src& src, Dst& dst, const boost::mpi::communicator& comm, Region region,
                Transform<value_type> transform, PlanOptions options = {},
                ExecutionOptions execution = {})
      : Redistributor(std::vector<Part<Src, Dst>>{Part<Src, Dst>{&src, &dst, region}}, comm,
                      transform, options, execution) {}

  /// Moves several matrices in one exchange: parts[k].region from *parts[k].src to
  /// *parts[k].dst, every part with the same transform; one message per peer per batch
  /// carries all parts (plan/plan_parts.hpp). Layouts may differ from part to part.
  /// Collective; throws as above (naming the part), and storage_error if one part's
  /// target overlaps another part's source or target.
  Redistributor(const std::vector<Part<Src, Dst>>& parts, const boost::mpi::communicator& comm,
                Transform<value_type> transform = {}, PlanOptions options = {},
                ExecutionOptions execution = {})
      : comm_(comm, boost::mpi::comm_duplicate) {
    const detail::Stopwatch clock;
    // Collective on its first call on comm_; the engine reads the same map, cached.
    const int nodes = node_map(comm_).nodes;
    options.element_bytes = static_cast<index_t>(sizeof(value_type));
    Plan plan;
    detail::PartItems items;
    std::vector<AgreementItem> others;
    const auto plan_hash = [&](std::size_t k) { return items.plan_hash(k); };
    detail::collectively(comm_, [&] {
      check_parts(parts);
      for (const Part<Src, Dst>& p : parts) regions_.push_back(p.region);
      // Before planning: the plan keeps the options it used. The environment is read
      // once, here, and agreed like everything else.
      options = detail::apply_environment(options);
      execution = execution.with_environment();
      // Batches aim at the host budget only where they bound buffers (PlanOptions::
      // batch_bytes): in host memory, where some message may lie whole in one.
      options.batch_bytes = resolve_batch_bytes(
          options.batch_bytes,
          Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible,
          whole_messages_buffered(execution, nodes));
      items = detail::part_items(parts, options, transform.op);
      plan = detail::plan_parts(parts, plan_hash, transform, options, options.max_buffer_bytes,
                                comm_.rank(), comm_.size());
      others = detail::transform_items(transform);
      for (auto& item : detail::option_items(execution)) others.push_back(std::move(item));
    });
    // Each rank's input is valid on its own; now all must be the same redistribution,
    // before anything sized or set up from the plans (detail/agreement.hpp).
    detail::agree_on_parts(comm_, items, others);
    detail::collectively(comm_, [&] {
      // Each part's batches fit the budget alone; merged by index they may not. Then
      // every part gets an equal share (decided from the largest rank's need, so alike
      // everywhere).
      const index_t need = plan.stats.buffer_elements * options.element_bytes;
      const index_t worst = boost::mpi::all_reduce(comm_, need, boost::mpi::maximum<index_t>());
      if (options.batch == 0 && parts.size() > 1 && worst > options.max_buffer_bytes)
        plan = detail::plan_parts(parts, plan_hash, transform, options,
                                  options.max_buffer_bytes / static_cast<index_t>(parts.size()),
                                  comm_.rank(), comm_.size());
    });
    // Kept to check rebind()'s parts against: the hash of each part's items that fix the
    // plan, and those items once per hash (K parts of one layout: K words, not 10 K).
    plan_hashes_.reserve(parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) {
      plan_hashes_.push_back(items.plan_hash(k));
      if (k == 0 || plan_hashes_[k] != plan_hashes_[k - 1])
        plan_values_.try_emplace(plan_hashes_[k], items.row(k));
    }
    // Only once every rank has planned without error: wiring is collective.
    set_up_.plan = clock.seconds();
    executor_.emplace(std::move(plan), views(parts, &Part<Src, Dst>::src),
                      views(parts, &Part<Src, Dst>::dst), comm_, execution, transform);
    set_up_ = {set_up_.plan, clock.seconds() - set_up_.plan, executor_->buffer_seconds()};
  }

  /// Moves the whole source matrix to the same place in the target.
  Redistributor(const Src& src, Dst& dst, const boost::mpi::communicator& comm,
                PlanOptions options = {}, ExecutionOptions execution = {})
      : Redistributor(src, dst, comm, Region::whole(src.layout().extents()), options, execution) {}

  using execution_space = typename memory_space::execution_space;

  /// Moves the region; returns when this rank's part is complete. Collective. Copies
  /// run on `exec`, which is fenced (that instance only).
  void redistribute(const execution_space& exec = execution_space{}) { executor_->run(exec); }
  /// Opens the first batch (posts its receives) and packs and sends the first chunk of
  /// each of its messages; returns without waiting. The caller may compute meanwhile,
  /// calling test() now and then: test() does the rest a bounded part at a time. With
  /// ExecutionOptions::progress = thread, hands the whole execution to the rank's
  /// progress thread instead (docs/overlap.md). @pre no execution in progress.
  void start(const execution_space& exec = execution_space{}) { executor_->start(exec); }
  /// Advances the execution without blocking: MPI progress, what arrived, and about
  /// `chunks` chunks' worth of packs, unpacks and local copies (ExecutionOptions::
  /// chunk_bytes each); true once it is complete. With a progress thread: only whether
  /// it is done (rethrowing what the thread threw).
  bool test(std::size_t chunks = test_chunks_default) { return executor_->test(chunks); }
  /// Completes what start() began (with a progress thread: blocks until it is done and
  /// rethrows what it threw).
  void wait() { executor_->wait(); }
  /// Whether an execution started and wait() (or a test() that said true) has not ended it.
  bool running() const { return executor_->running(); }
  /// Tasks of the execution in progress that test() or wait() still have to complete (0
  /// when none is in progress).
  std::size_t tasks_left() const { return executor_->tasks_left(); }

  /// Points this plan at other matrices with the same layouts (tilings and
  /// distributions; storage may differ, e.g. another leading dimension): the plan is
  /// kept, the copies are bound anew and the transports set up again. Costs a binding,
  /// not a planning. Collective. Both matrices must outlive the Redistributor.
  /// @throws (on every rank) invalid_argument naming what differs from the plan's
  /// layouts, storage_error if src and dst overlap, error if an execution is in progress.
  /// The Redistributor is unchanged when it throws.
  void rebind(const Src& src, Dst& dst) {
    rebind(std::vector<Part<Src, Dst>>{Part<Src, Dst>{&src, &dst, regions_.front()}});
  }
  /// rebind() for a move of several parts: parts in the same order, same regions.
  void rebind(const std::vector<Part<Src, Dst>>& parts) {
    detail::collectively(comm_, [&] {
      if (executor_->running())
        throw error("redist: rebind() called while an execution is in progress");
      if (parts.size() != regions_.size())
        throw invalid_argument(detail::describe("rebind(): another number of parts", "parts.size()",
                                                static_cast<index_t>(parts.size())) +
                               " (the plan has " + std::to_string(regions_.size()) + ")");
      check_parts(parts);
      const detail::PartItems now = detail::part_items(parts, plan_options(), transform().op);
      for (std::size_t k = 0; k < parts.size(); ++k) {
        if (now.plan_hash(k) == plan_hashes_[k]) continue;
        const std::size_t i = now.first_plan_difference(k, plan_values_.at(plan_hashes_[k]));
        if (i < detail::PartItems::kinds)
          throw invalid_argument("redist: rebind(): " + now.name(k, i) +
                                 " differs from the one the plan was made for");
      }
    });
    // Wired beside the old executor, which stays if this throws (on every rank alike);
    // its node windows are freed, collectively over the node, once replaced.
    const detail::Stopwatch clock;
    executor_ = executor_->rewired(views(parts, &Part<Src, Dst>::src),
                                   views(parts, &Part<Src, Dst>::dst), comm_);
    set_up_ = {0, clock.seconds(), executor_->buffer_seconds()};
  }

  const Plan& plan() const { return executor_->plan(); }
  const TaskGraph& task_graph() const { return executor_->graph(); }
  /// The region (of the first part, for a move of several).
  const Region& region() const { return regions_.front(); }
  /// The regions of the parts, in order.
  const std::vector<Region>& regions() const { return regions_; }
  /// What the target receives: alpha * op(source) + beta * target.
  const Transform<value_type>& transform() const { return executor_->transform(); }
  const boost::mpi::communicator& communicator() const { return comm_; }
  /// Bytes of message buffers held between executions (exact: the transport is set up).
  index_t buffer_bytes() const { return executor_->buffer_bytes(); }
  /// Where the construction's set-up went on this rank, or the last rebind()'s
  /// (set_up_times.hpp).
  const SetUpTimes& set_up_times() const { return set_up_; }
  /// Messages this rank sends and receives direct: read in place from a node-shared source
  /// (node_shared.hpp), one copy per element.
  std::pair<index_t, index_t> direct_messages() const {
    return executor_->messages(Transport::direct);
  }
  /// Messages this rank sends and receives that travel as `how` (chosen when the
  /// Redistributor was built or rebound; docs/transports.md).
  std::pair<index_t, index_t> messages(Transport how) const { return executor_->messages(how); }
  /// Chunks this rank sends from its source and receives into its target as MPI derived
  /// datatypes (ExecutionOptions::mpi_datatypes): sent, received.
  std::pair<index_t, index_t> described_chunks() const { return executor_->described_chunks(); }
  /// Why no message goes cross-memory although ExecutionOptions::transport asked for it
  /// (the kernel's refusal: they went through the node window); empty otherwise.
  const std::string& cross_memory_refused() const { return executor_->cross_memory_refused(); }
  /// Tasks run by the execution in progress so far, or by the last one, per kind
  /// (task_graph.hpp). At one rank there are no messages, so no Send, Arrive or Ack
  /// tasks: only Init, Finish and the local copies.
  const TaskCounts& tasks_run() const { return executor_->tasks_run(); }
  /// The tasks of task_graph() in the order the last execution completed them.
  const std::vector<std::uint32_t>& completion_order() const {
    return executor_->completion_order();
  }
  /// The execution options every rank agreed on.
  const ExecutionOptions& execution_options() const { return executor_->options(); }

 private:
  const PlanOptions& plan_options() const { return executor_->plan().options; }
  /// The executor's views (views/matrix_view.hpp) of one side of every part:
  /// &Part::src or &Part::dst.
  template <class Side>
  static std::vector<MatrixView<value_type, memory_space>> views(
      const std::vector<Part<Src, Dst>>& parts, Side Part<Src, Dst>::*side) {
    std::vector<MatrixView<value_type, memory_space>> v;
    v.reserve(parts.size());
    for (const Part<Src, Dst>& p : parts) v.emplace_back(*(p.*side));
    return v;
  }

  /// check_parts (part.hpp) on this rank.
  void check_parts(const std::vector<Part<Src, Dst>>& parts) const {
    detail::check_parts(parts, comm_.rank());
  }

  boost::mpi::communicator comm_;
  std::vector<Region> regions_;
  std::vector<std::uint64_t> plan_hashes_;  ///< detail::PartItems::plan_hash of each part
  /// Every item of a part with that plan_hash (the first such part's).
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> plan_values_;
  /// Set once the constructor has planned and agreed (never empty after it returns).
  std::optional<detail::ExecutorHandle<value_type, memory_space>> executor_;
  SetUpTimes set_up_;
};

}  // namespace redist
