#pragma once
// What one redist-run execution measured, gathered on rank 0, and the two reports made of
// it: the text on stdout and the JSON file (docs/redist-run.md lists their fields).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <redist/cost_model.hpp>
#include <redist/execution_options.hpp>
#include <redist/index.hpp>
#include <redist/set_up_times.hpp>
#include <redist/task_graph.hpp>
#include <redist/tools/layout_report.hpp>

#include "options.hpp"

namespace redist_run {

/// Every way a message travels (task_graph.hpp), in the order reports list them.
inline constexpr Transport all_transports[] = {Transport::point_to_point, Transport::shared_window,
                                               Transport::direct, Transport::cross_memory,
                                               Transport::push};

/// What --relabel chose, for the report: elements of one matrix between nodes with the
/// target roles as given and as relabeled (split_transfers of the volume matrix).
struct RelabelChoice {
  index_t inter_node_before = 0;
  index_t inter_node_after = 0;
};

/// A move's numbers on rank 0: per-rank vectors hold one entry per rank, bytes count one
/// matrix of each side unless named otherwise.
struct Measurement {
  int ranks = 0;
  std::size_t element_bytes = 0;
  Extents src_tiles, dst_tiles;
  int src_ranks = 0, dst_ranks = 0;
  std::optional<tools::LayoutReport> layout;  ///< without op and triangle only
  std::vector<int> rank_of_role;              ///< --relabel's choice
  RelabelChoice relabeled;
  TransportPolicy transport_policy = TransportPolicy::automatic;
  std::vector<index_t> carried;  ///< messages per all_transports entry, all ranks
  std::string cross_memory_refused;
  /// The page size of each side's node-shared memory (node_shared_page_bytes, the largest
  /// over ranks); 0 where the side is private.
  std::uint64_t src_page_bytes = 0, dst_page_bytes = 0;
  std::vector<index_t> categories;  ///< target tiles per category, all ranks
  int nodes = 1;
  std::vector<int> node_of_rank;
  /// The schedule between nodes that ran (ExecutionOptions::inter_node_schedule resolved:
  /// all at once on one node).
  InterNodeSchedule inter_node_schedule = InterNodeSchedule::all_at_once;
  std::vector<index_t> sent, recv, local, inter_sent, inter_recv, buffers, plans, schedules;
  index_t messages = 0;
  index_t batch = 0, batches = 0;
  double plan_time = 0;
  SetUpTimes set_up;          ///< each part the slowest rank's
  std::vector<double> times;  ///< per timed run, the slowest rank's
  index_t mismatches = 0, verified_elements = 0;
  std::vector<std::vector<std::string>> first_mismatches;  ///< per rank, its first few
  std::optional<Prediction> predicted;                     ///< with --machine
};

/// The text report on stdout (mismatches on stderr).
void print_report(const Options& o, const Region& region, const Measurement& m);

/// The JSON report in o.json; a line on stderr if it cannot be written.
void write_json_report(const Options& o, const Region& region, const Measurement& m);

}  // namespace redist_run
