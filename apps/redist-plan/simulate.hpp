#pragma once
// redist-plan's simulation: every stage of a Redistributor's set-up that needs no data, for
// rank r of a job of P ranks, R a node, in this one process (no MPI): the plan, the bytes
// between nodes, the node-level schedule (chunks, task graph with the step order's edges,
// compiled), the buffers; and the job-wide relabeling over every rank's row.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include <redist/cost_model.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/node_schedule.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/plan/node_traffic.hpp>
#include <redist/relabel.hpp>
#include <redist/task_graph.hpp>

namespace redist_plan {

using namespace redist;

/// Seconds since `t0`.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// One simulated rank: its stages' times and what it holds.
struct RankSetUp {
  int rank = 0;
  double plan_s = 0;      ///< make_plan
  double nodes_s = 0;     ///< with_node_traffic and the cost model's load
  double schedule_s = 0;  ///< chunks, task graph (+ step edges), compiled schedule
  double total_s() const { return plan_s + nodes_s + schedule_s; }
  PlanStats stats;             ///< with the node fields
  index_t schedule_bytes = 0;  ///< task graph + compiled schedule (no copy programs)
  index_t node_map_bytes = 0;  ///< the node of every rank, which each rank holds
  index_t buffer_bytes = 0;    ///< message buffers: the largest batch, send + receive
  index_t tasks = 0, edges = 0;
  index_t steps = 0;  ///< distinct steps of its messages between nodes
  RankLoad load;      ///< for predict
  /// What the set-up holds besides the matrices and the buffers.
  index_t memory_bytes() const { return stats.plan_bytes + schedule_bytes + node_map_bytes; }
};

/// The job: its size, nodes and what the Redistributor would be told.
struct Job {
  int ranks = 1;
  int ranks_per_node = 1;
  std::vector<int> node_of_rank;  ///< consecutive ranks a node (Open MPI's by-slot order)
  int nodes = 1;
  index_t element_bytes = 8;
  PlanOptions plan_options;
  InterNodeSchedule schedule = InterNodeSchedule::automatic;
  index_t chunk_bytes = ExecutionOptions{}.chunk_bytes;
  /// How messages within a node travel (--transport): the node window, the engine's default
  /// on host memory for private sources (transport/choose.hpp chooses at run time, and
  /// cross-memory only where the kernel permits it), point to point, or cross-memory.
  Transport within_node = Transport::shared_window;

  /// The transport of each message a plan sends and receives: within_node for a peer on
  /// the plan's rank's node, point to point for one on another.
  struct Routes {
    std::vector<Transport> send, recv;
  };
  Routes routes(const Plan& plan) const {
    const int home = node_of_rank[static_cast<std::size_t>(plan.rank)];
    const auto of = [&](const std::vector<Message>& messages) {
      std::vector<Transport> how;
      how.reserve(messages.size());
      for (const Message& m : messages)
        how.push_back(node_of_rank[static_cast<std::size_t>(m.peer)] == home
                          ? within_node
                          : Transport::point_to_point);
      return how;
    };
    return {of(plan.send.messages), of(plan.recv.messages)};
  }
  /// Rank plan.rank's load for the cost model, its messages carried as `how` says.
  RankLoad load(const Plan& plan, const Routes& how) const {
    return rank_load(plan, node_of_rank, element_bytes, how.send, how.recv, true,
                     node_ranks(plan.rank));
  }

  Job(int p, int r) : ranks(p), ranks_per_node(r), node_of_rank(static_cast<std::size_t>(p)) {
    for (int k = 0; k < p; ++k) node_of_rank[static_cast<std::size_t>(k)] = k / r;
    nodes = (p + r - 1) / r;
  }
  /// Ranks on rank `rank`'s node (the last node may hold fewer).
  int node_ranks(int rank) const {
    const int first = rank / ranks_per_node * ranks_per_node;
    return std::min(ranks_per_node, ranks - first);
  }
};

/// Rank `rank`'s set-up, stage by stage. Between nodes messages go point to point (and
/// under a step order in packets); within a node as Job::within_node says.
template <class SrcLayout, class DstLayout>
RankSetUp simulate_rank(const Job& job, const SrcLayout& src, const DstLayout& dst,
                        const Region& region, int rank) {
  RankSetUp out;
  out.rank = rank;
  auto t0 = std::chrono::steady_clock::now();
  // The Redistributor keeps a copy (plan/plan_parts.hpp's merge_parts of one part): its
  // containers hold no spare capacity, and it is that copy whose bytes a rank holds.
  Plan plan = make_plan(src, dst, region, rank, job.ranks, job.plan_options);
  plan = Plan(plan);
  plan.stats.plan_bytes = static_cast<index_t>(plan.memory_bytes());
  out.plan_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  out.stats = with_node_traffic(plan, job.node_of_rank, job.nodes);
  Job::Routes how = job.routes(plan);
  out.load = job.load(plan, how);
  out.nodes_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const InterNodeSchedule order = resolved_schedule(job.schedule, job.nodes);
  const bool steps = order != InterNodeSchedule::all_at_once;
  const int home = job.node_of_rank[static_cast<std::size_t>(rank)];
  std::vector<bool> other_node;
  if (steps)
    for (const int n : job.node_of_rank) other_node.push_back(n != home);
  const index_t chunk = std::max<index_t>(1, job.chunk_bytes / job.element_bytes);
  const index_t packet = std::max<index_t>(1, step_packet_bytes / job.element_bytes);
  Chunkings chunks = cut_chunkings(plan, chunk, chunk, other_node, std::min(chunk, packet));
  TaskGraph graph =
      make_task_graph(plan, std::move(chunks), std::move(how.send), std::move(how.recv));
  if (steps) add_step_edges(graph, plan, job.node_of_rank, job.nodes, order);
  const Schedule schedule = compile(graph);
  out.schedule_s = seconds_since(t0);
  out.schedule_bytes = static_cast<index_t>(graph.memory_bytes() + schedule.memory_bytes());
  out.tasks = static_cast<index_t>(graph.tasks.size());
  out.edges = static_cast<index_t>(graph.edges.size());
  if (steps) {
    std::vector<int> used;
    for (const Message& m : plan.send.messages)
      if (const int n = job.node_of_rank[static_cast<std::size_t>(m.peer)]; n != home)
        used.push_back(send_step(order, home, n, job.nodes));
    std::sort(used.begin(), used.end());
    out.steps = static_cast<index_t>(std::unique(used.begin(), used.end()) - used.begin());
  }
  out.node_map_bytes = static_cast<index_t>(job.node_of_rank.size() * sizeof(int));
  out.buffer_bytes = out.stats.buffer_elements * job.element_bytes;
  return out;
}

/// The job-wide relabeling: every rank's row of the volume matrix (one plan each, which
/// each rank computes for itself in a real job), and the assignment solved once.
struct Relabeling {
  double rows_s = 0;         ///< all P rows, one after the other in this process
  double rows_max_s = 0;     ///< the slowest single row: what one rank of a job spends
  double solve_s = 0;        ///< best_relabeling or best_node_relabeling
  index_t nonzeros = 0;      ///< entries of the volume matrix
  index_t matrix_bytes = 0;  ///< its rows as gathered (SparseVolumes)
  TransferSplit before, after;
  std::vector<RankLoad> loads;  ///< every rank's, from the same plans (predict over all)
};

/// Relabeling for `nodes_first` (best_node_relabeling) or not (best_relabeling).
template <class SrcLayout, class DstLayout>
Relabeling relabel_job(const Job& job, const SrcLayout& src, const DstLayout& dst,
                       const Region& region, bool nodes_first) {
  Relabeling out;
  SparseVolumes volumes;
  volumes.row_begin.reserve(static_cast<std::size_t>(job.ranks) + 1);
  out.loads.reserve(static_cast<std::size_t>(job.ranks));
  const auto all = std::chrono::steady_clock::now();
  for (int s = 0; s < job.ranks; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    const Plan plan = make_plan(src, dst, region, s, job.ranks, job.plan_options);
    volumes.add_row(volume_row(plan));
    out.rows_max_s = std::max(out.rows_max_s, seconds_since(t0));
    out.loads.push_back(job.load(plan, job.routes(plan)));
  }
  out.rows_s = seconds_since(all);
  out.nonzeros = static_cast<index_t>(volumes.entries.size());
  out.matrix_bytes = static_cast<index_t>(volumes.entries.size() * sizeof(VolumeEntry) +
                                          volumes.row_begin.size() * sizeof(std::size_t));
  std::vector<int> identity(static_cast<std::size_t>(job.ranks));
  for (int r = 0; r < job.ranks; ++r) identity[static_cast<std::size_t>(r)] = r;
  out.before = split_transfers(volumes, identity, job.node_of_rank);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int> perm =
      nodes_first ? best_node_relabeling(volumes, job.node_of_rank) : best_relabeling(volumes);
  out.solve_s = seconds_since(t0);
  out.after = split_transfers(volumes, perm, job.node_of_rank);
  return out;
}

/// `k` ranks of `p` spread evenly, 0 and p - 1 always among them; every rank when k == 0
/// or k >= p.
inline std::vector<int> sample_ranks(int p, index_t k) {
  std::vector<int> out;
  if (k == 0 || k >= p || p == 1) {
    for (int r = 0; r < p; ++r) out.push_back(r);
    return out;
  }
  k = std::max<index_t>(k, 2);
  for (index_t j = 0; j < k; ++j)
    out.push_back(static_cast<int>((j * (p - 1) + (k - 1) / 2) / (k - 1)));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace redist_plan
