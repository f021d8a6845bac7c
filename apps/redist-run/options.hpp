#pragma once
// redist-run's settings: what the command line asks for, checked on this rank alone
// (parse), before the ranks agree on them (main.cpp).
#include <optional>
#include <string>
#include <vector>

#include <redist/cost_model.hpp>
#include <redist/execution_options.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/layout_options.hpp>
#include <redist/tools/layout_spec.hpp>
#include <redist/transform_op.hpp>
#include <redist/triangle.hpp>

namespace redist_run {

using namespace redist;
using namespace redist::tools;

/// Which rank plays each target role (--relabel): as given, the most data kept on its rank
/// (best_relabeling), or the fewest bytes between nodes first (best_node_relabeling).
enum class Relabel { off, flat, nodes };

inline const char* relabel_name(Relabel r) {
  return r == Relabel::off ? "off" : r == Relabel::flat ? "flat" : "nodes";
}

/// --src, --dst, --region (tools::LayoutOptions) and the rest.
struct Options : LayoutOptions {
  std::string type = "double";
  index_t batch = 0;
  int repeat = 5;
  bool verify = false;
  Relabel relabel = Relabel::off;
  bool shared_src = false, shared_dst = false;  ///< --shared: the side in node-shared memory
  TransportPolicy transport = TransportPolicy::automatic;
  InterNodeSchedule inter_node_schedule = InterNodeSchedule::automatic;
  std::string json, dot;
  Op op = Op::none;
  double alpha = 1, beta = 0;
  Triangle triangle{};
  index_t count = 1;               ///< matrices moved in one exchange
  std::optional<Machine> machine;  ///< --machine: predict the move (rank 0 reports it)
};

inline const char* op_name(Op op) { return op == Op::none ? "n" : op == Op::transpose ? "t" : "c"; }
inline const char* uplo_name(Uplo u) {
  return u == Uplo::all ? "all" : u == Uplo::lower ? "l" : "u";
}

/// Rank 0 writes the reports: their paths must be writable before the run, not after it.
/// @throws UsageError naming --json or --dot and why.
void check_outputs(const Options& o);

/// Parses the command line of this rank. Ranks may be given different ones (MPMD, or a
/// script's mistake): agree_on_inputs compares them.
/// `args` are the arguments after the program name, without --help and what Kokkos took.
/// @throws UsageError naming the argument at fault.
Options parse(const std::vector<char*>& args, int comm_size);

}  // namespace redist_run
