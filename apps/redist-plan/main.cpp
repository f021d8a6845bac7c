// redist-plan: a job's set-up, simulated in one process without MPI: for a job of P ranks,
// R a node, every stage of a Redistributor's set-up that needs no data (each sampled
// rank's plan, its bytes between nodes, its node-level schedule, its buffers; the job-wide
// relabeling over every rank's row), timed and sized; and, given a machine, the move's
// predicted time (cost_model.hpp). See docs/redist-plan.md.
//
//   redist-plan --ranks 65536 --ranks-per-node 64 --src 65536x65536/256x256/bc:1x65536 \
//       --dst 65536x65536/100x100/bc:65536x1 --machine machine.json --json plan.json
//
// Exit status: 0 success (and --help), 2 bad input (one line on stderr naming the option).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <redist/cost_model.hpp>
#include <redist/error.hpp>
#include <redist/message_buffering.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/layout_options.hpp>
#include <redist/tools/layout_spec.hpp>
#include <redist/tools/machine_spec.hpp>

#include "simulate.hpp"
#include <sys/resource.h>

namespace redist_plan {
namespace {

using namespace redist::tools;

constexpr OptionInfo option_table[] = {
    {"--src", "", "LAYOUT", "required", "source matrix layout (redist-run's grammar)"},
    {"--dst", "", "LAYOUT", "required", "target matrix layout"},
    {"--region", "", "REGION", "the largest common top-left block", "the elements to move"},
    {"--ranks", "", "P", "required", "ranks of the job, 1 to 2^31 - 1"},
    {"--ranks-per-node", "", "R", "1",
     "ranks on each node, >= 1 (consecutive ranks a node; the last may hold fewer)"},
    {"--type", "", "TYPE", "double", "element type: double, float, cdouble, cfloat or int"},
    {"--batch", "", "K", "0",
     "source tile columns per batch, >= 0; 0 cuts batches within 64 MiB per rank "
     "(REDIST_BATCH_BYTES; with one node, only under --transport point-to-point) and 2^30 "
     "bytes (REDIST_MAX_BUFFER_BYTES)"},
    {"--sample", "", "K", "64",
     "ranks simulated, spread evenly, 0 and P-1 always among them; 0 simulates every rank"},
    {"--relabel", "", "[off|flat|nodes]", "off",
     "also simulate the job-wide relabeling: every rank's row of the volume matrix (P "
     "plans, timed apart) and the assignment solved (flat, or nodes: fewest bytes between "
     "nodes first); with it the prediction covers every rank"},
    {"--inter-node-schedule", "", "auto|all-at-once|caterpillar|shift", "auto",
     "the order of the messages between nodes whose task-graph edges are built"},
    {"--transport", "", "auto|point-to-point|node-window|cross-memory", "auto",
     "how messages within a node travel, for the task graph and the prediction; auto: the "
     "node window (the engine's choice for private sources unless the kernel permits "
     "cross-memory, which only a run can probe)"},
    {"--machine", "", "FILE|KEY=V,...", "none",
     "predict the move's time on this machine: redist-calibrate's JSON file, or its keys "
     "inline (memcpy_bytes_per_s, link_bytes_per_s, link_latency_s, shm_bytes_per_s, "
     "shm_latency_s, copy_run_s, cores_per_node, ring_bytes_per_s)"},
    {"--json", "", "FILE", "none", "write a JSON report"},
    {"--help", "-h", "", "", "print this help and exit 0"},
};

constexpr std::string_view help_intro =
    R"(redist-plan: simulate the set-up of a redistribution for a job of P ranks in one
process, without MPI: each sampled rank's plan, its bytes between nodes, its
node-level schedule and its buffers, timed and sized; optionally the job-wide
relabeling; and, given a machine, the move's predicted time (Cao et al. 2021,
Eq. 3-5).

Usage: redist-plan --ranks P --src LAYOUT --dst LAYOUT [OPTION]...
       redist-plan --help

LAYOUT and REGION: as redist-run's (redist-run --help, docs/redist-run.md).

Options (each takes its value as the next argument, and may be given once):
)";

constexpr std::string_view help_examples = R"(
Exit status: 0 success, 2 bad input (one line on stderr naming the option).

Example: 1-D to 2-D at 16384 ranks, 64 a node, 64 ranks sampled, predicted:
    redist-plan --ranks 16384 --ranks-per-node 64 \
        --src 65536x65536/256x256/bc:1x16384 --dst 65536x65536/100x100/bc:128x128 \
        --machine memcpy_bytes_per_s=5e9,link_bytes_per_s=1.25e9,link_latency_s=2e-5

See docs/redist-plan.md for the report and the JSON fields.
)";

enum class Relabel { off, flat, nodes };

struct Options : LayoutOptions {
  int ranks = 0;
  int ranks_per_node = 1;
  std::string type = "double";
  index_t batch = 0;
  index_t sample = 64;
  Relabel relabel = Relabel::off;
  InterNodeSchedule schedule = InterNodeSchedule::automatic;
  TransportPolicy transport = TransportPolicy::automatic;
  std::optional<Machine> machine;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options o;
  bool have_ranks = false;
  OptionReader line(option_table, std::vector<char*>(argv + 1, argv + argc));
  for (std::string a, v; line.next(a, v);) {
    try {
      if (o.take(a, v)) {  // --src, --dst, --region
      } else if (a == "--ranks") {
        const index_t p = parse_count(a, v, 1);
        if (p > INT32_MAX)
          throw UsageError{a, "expected at most 2147483647 ranks, got '" + v + "'"};
        o.ranks = static_cast<int>(p);
        have_ranks = true;
      } else if (a == "--ranks-per-node") {
        o.ranks_per_node = static_cast<int>(std::min<index_t>(parse_count(a, v, 1), INT32_MAX));
      } else if (a == "--type") {
        o.type = parse_type(a, v);
      } else if (a == "--batch") {
        o.batch = parse_count(a, v, 0);
      } else if (a == "--sample") {
        o.sample = parse_count(a, v, 0);
      } else if (a == "--relabel") {
        if (v != "" && v != "off" && v != "flat" && v != "nodes")
          throw UsageError{a, "expected off, flat or nodes (or no value), got '" + v + "'"};
        o.relabel = v == "off" ? Relabel::off : v == "nodes" ? Relabel::nodes : Relabel::flat;
      } else if (a == "--inter-node-schedule") {
        o.schedule = policy_option<InterNodeSchedule>(a, v);
      } else if (a == "--transport") {
        o.transport = policy_option<TransportPolicy>(a, v);
      } else if (a == "--machine") {
        o.machine = parse_machine(v, a);
        validate(*o.machine, false);
      } else if (a == "--json") {
        if (v.empty()) throw UsageError{a, "empty file name"};
        if (const std::string why = why_unwritable(v); !why.empty())
          throw UsageError{a, "cannot write '" + v + "': " + why};
        o.json = v;
      } else {
        throw UsageError{a, "not implemented"};
      }
    } catch (const redist::invalid_argument& e) {
      throw UsageError{a, strip(e.what(), a)};
    }
  }
  o.require();
  if (!have_ranks) throw UsageError{"--ranks", "missing (required)"};
  o.check(o.ranks, element_bytes(o.type), Op::none, "--ranks is");
  return o;
}

/// Max and median of `f` over the simulated ranks.
template <class F>
std::pair<double, double> max_median(const std::vector<RankSetUp>& ranks, F f) {
  std::vector<double> v;
  for (const RankSetUp& r : ranks) v.push_back(static_cast<double>(f(r)));
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return {v.back(), n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])};
}

/// One line of the per-rank summary, and its JSON object.
struct Row {
  const char* name;
  const char* unit;
  std::pair<double, double> value;
};

double peak_resident_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

int run(const Options& o) {
  Job job(o.ranks, std::min(o.ranks_per_node, o.ranks));
  job.element_bytes = element_bytes(o.type);
  job.schedule = o.schedule;
  job.within_node = o.transport == TransportPolicy::point_to_point ? Transport::point_to_point
                    : o.transport == TransportPolicy::cross_memory ? Transport::cross_memory
                                                                   : Transport::shared_window;
  job.plan_options.batch = o.batch;
  job.plan_options.element_bytes = job.element_bytes;
  // As a Redistributor on host memory: the environment applied, batches aimed at 64 MiB
  // where some message may lie whole in a buffer (message_buffering.hpp).
  job.plan_options = redist::detail::apply_environment(job.plan_options);
  ExecutionOptions execution;
  execution.transport = o.transport;
  execution = execution.with_environment();
  job.plan_options.batch_bytes = resolve_batch_bytes(job.plan_options.batch_bytes, true,
                                                     whole_messages_buffered(execution, job.nodes));
  const Region region = *o.region;
  const auto src = make_layout(o.src, o.ranks);
  const auto dst = make_layout(o.dst, o.ranks);

  std::vector<RankSetUp> ranks;
  for (const int r : sample_ranks(o.ranks, o.sample))
    ranks.push_back(simulate_rank(job, src, dst, region, r));
  std::optional<Relabeling> relabeling;
  if (o.relabel != Relabel::off)
    relabeling = relabel_job(job, src, dst, region, o.relabel == Relabel::nodes);

  // The prediction: over every rank's load where the relabeling planned them all, else over
  // the sample (a node's link bytes scaled from its sampled ranks).
  std::optional<Prediction> predicted;
  bool every_rank = static_cast<int>(ranks.size()) == o.ranks;
  if (o.machine) {
    std::vector<RankLoad> loads;
    if (relabeling) {
      loads = relabeling->loads;
      every_rank = true;
    } else {
      for (const RankSetUp& r : ranks) loads.push_back(r.load);
    }
    predicted = predict(loads, *o.machine);
  }

  const std::vector<Row> rows = {
      {"plan", "s", max_median(ranks, [](const RankSetUp& r) { return r.plan_s; })},
      {"node traffic", "s", max_median(ranks, [](const RankSetUp& r) { return r.nodes_s; })},
      {"node schedule", "s", max_median(ranks, [](const RankSetUp& r) { return r.schedule_s; })},
      {"set-up", "s", max_median(ranks, [](const RankSetUp& r) { return r.total_s(); })},
      {"plan bytes", "B", max_median(ranks, [](const RankSetUp& r) { return r.stats.plan_bytes; })},
      {"schedule bytes", "B",
       max_median(ranks, [](const RankSetUp& r) { return r.schedule_bytes; })},
      {"node map bytes", "B",
       max_median(ranks, [](const RankSetUp& r) { return r.node_map_bytes; })},
      {"memory", "B", max_median(ranks, [](const RankSetUp& r) { return r.memory_bytes(); })},
      {"buffer bytes", "B", max_median(ranks, [](const RankSetUp& r) { return r.buffer_bytes; })},
      {"messages", "",
       max_median(
           ranks,
           [](const RankSetUp& r) { return r.stats.messages_sent + r.stats.messages_received; })},
      {"bytes moved", "B",
       max_median(ranks,
                  [&](const RankSetUp& r) {
                    return std::max(r.stats.elements_sent, r.stats.elements_received) *
                           job.element_bytes;
                  })},
      {"tasks", "", max_median(ranks, [](const RankSetUp& r) { return r.tasks; })},
      {"steps", "", max_median(ranks, [](const RankSetUp& r) { return r.steps; })},
  };
  const InterNodeSchedule order = resolved_schedule(job.schedule, job.nodes);
  const double peak = peak_resident_bytes();
  // The job's totals: over every rank's load where the relabeling planned them all, else the
  // sampled ranks' sums scaled to P. Its set-up: the slowest rank's (the ranks set up in
  // parallel), plus, with relabeling, the slowest row and the solve.
  struct Totals {
    double messages = 0, bytes_sent = 0, inter_node_bytes = 0, set_up_s = 0;
    bool estimated = false;
  } job_total;
  {
    std::vector<RankLoad> loads;
    if (relabeling) {
      loads = relabeling->loads;
    } else {
      for (const RankSetUp& r : ranks) loads.push_back(r.load);
    }
    for (const RankLoad& l : loads) {
      job_total.messages += static_cast<double>(l.messages_sent);
      job_total.bytes_sent += static_cast<double>(l.sent);
      job_total.inter_node_bytes += static_cast<double>(l.sent_inter_node);
    }
    const double scale = static_cast<double>(o.ranks) / static_cast<double>(loads.size());
    job_total.estimated = static_cast<int>(loads.size()) < o.ranks;
    job_total.messages *= scale;
    job_total.bytes_sent *= scale;
    job_total.inter_node_bytes *= scale;
    job_total.set_up_s = max_median(ranks, [](const RankSetUp& r) { return r.total_s(); }).first;
    if (relabeling) job_total.set_up_s += relabeling->rows_max_s + relabeling->solve_s;
  }

  std::printf("redist-plan: %d ranks, %d a node (%d nodes), type %s, simulated in one process\n",
              o.ranks, job.ranks_per_node, job.nodes, o.type.c_str());
  std::printf("  src     %s (%lldx%lld tiles)\n", to_string(o.src).c_str(),
              static_cast<long long>(src.tiles().rows), static_cast<long long>(src.tiles().cols));
  std::printf("  dst     %s (%lldx%lld tiles)\n", to_string(o.dst).c_str(),
              static_cast<long long>(dst.tiles().rows), static_cast<long long>(dst.tiles().cols));
  std::printf("  region  %s\n", to_string(region).c_str());
  std::printf("  sampled %zu ranks:", ranks.size());
  for (std::size_t k = 0; k < ranks.size() && k < 16; ++k) std::printf(" %d", ranks[k].rank);
  std::printf("%s; between nodes %s, within %s\n", ranks.size() > 16 ? " ..." : "",
              to_string(order), to_string(job.within_node));
  std::printf("  per rank            max       median\n");
  for (const Row& r : rows)
    std::printf("  %-15s %11.6g %11.6g %s\n", r.name, r.value.first, r.value.second, r.unit);
  std::printf(
      "  rank      sent B      recv B     local B  inter-node sent B  inter-node recv B"
      "    buffer B      plan B  schedule B\n");
  for (const RankSetUp& r : ranks) {
    const auto b = [&](index_t elements) {
      return static_cast<long long>(elements * job.element_bytes);
    };
    std::printf("  %4d %11lld %11lld %11lld %18lld %18lld %11lld %11lld %11lld\n", r.rank,
                b(r.stats.elements_sent), b(r.stats.elements_received), b(r.stats.elements_local),
                b(r.stats.elements_sent_inter_node), b(r.stats.elements_received_inter_node),
                static_cast<long long>(r.buffer_bytes), static_cast<long long>(r.stats.plan_bytes),
                static_cast<long long>(r.schedule_bytes));
  }
  if (relabeling)
    std::printf(
        "  relabel  %s: rows %.6f s for all %d ranks (slowest row %.6f s), solve %.6f s; "
        "%lld non-zeros (%lld B); bytes between nodes %lld as given, %lld relabeled\n",
        o.relabel == Relabel::nodes ? "nodes" : "flat", relabeling->rows_s, o.ranks,
        relabeling->rows_max_s, relabeling->solve_s, static_cast<long long>(relabeling->nonzeros),
        static_cast<long long>(relabeling->matrix_bytes),
        static_cast<long long>(relabeling->before.inter_node * job.element_bytes),
        static_cast<long long>(relabeling->after.inter_node * job.element_bytes));
  else
    std::printf("  relabel  skipped (--relabel flat|nodes plans every rank's row)\n");
  if (predicted) {
    const RankTime& c = predicted->critical;
    std::printf(
        "  predicted %.6f s, critical rank %d (link %.6f, shm %.6f, latency %.6f, pack %.6f, "
        "unpack %.6f, local %.6f s; their runs %.6f s) over %s%s\n",
        predicted->seconds, predicted->critical_rank, c.link, c.shm, c.latency, c.pack, c.unpack,
        c.local, c.runs, every_rank ? "every rank" : "the sampled ranks",
        predicted->link_estimated ? " (node links scaled from the sample)" : "");
    std::printf("  predicted bandwidth (Eq. 3) %.3f GB/s, bound (Eq. 5) %.3f GB/s\n",
                predicted->bandwidth_bytes_per_s * 1e-9, predicted->bound_bytes_per_s * 1e-9);
  }
  std::printf(
      "  job      %s%.0f messages, %.6g bytes sent, %.6g between nodes; set-up %.6f s (the "
      "slowest rank%s)\n",
      job_total.estimated ? "about " : "", job_total.messages, job_total.bytes_sent,
      job_total.inter_node_bytes, job_total.set_up_s,
      relabeling ? ", plus the slowest row and the solve" : "");
  std::printf("  process peak resident %.1f MB\n", peak * 1e-6);
  std::fflush(stdout);

  if (!o.json.empty()) {
    std::ofstream f(o.json);
    if (!f) throw UsageError{"--json", "cannot write '" + o.json + "'"};
    f.precision(9);
    f << "{\n  \"ranks\": " << o.ranks << ",\n  \"ranks_per_node\": " << job.ranks_per_node
      << ",\n  \"nodes\": " << job.nodes << ",\n  \"src\": " << json_string(to_string(o.src))
      << ",\n  \"dst\": " << json_string(to_string(o.dst))
      << ",\n  \"region\": " << json_string(to_string(region))
      << ",\n  \"type\": " << json_string(o.type) << ",\n  \"element_bytes\": " << job.element_bytes
      << ",\n  \"inter_node_schedule\": " << json_string(to_string(order))
      << ",\n  \"transport_within_node\": " << json_string(to_string(job.within_node))
      << ",\n  \"per_rank\": {";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      std::string key(rows[k].name);
      std::replace(key.begin(), key.end(), ' ', '_');
      key.erase(std::remove(key.begin(), key.end(), '-'), key.end());
      f << (k ? ", " : "") << json_string(key + (rows[k].unit[0] == 's' ? "_s" : ""))
        << ": {\"max\": " << rows[k].value.first << ", \"median\": " << rows[k].value.second << "}";
    }
    f << "},\n  \"sampled\": [";
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      const RankSetUp& r = ranks[k];
      const PlanStats& s = r.stats;
      const index_t e = job.element_bytes;
      f << (k ? ",\n    " : "\n    ") << "{\"rank\": " << r.rank << ", \"plan_s\": " << r.plan_s
        << ", \"node_traffic_s\": " << r.nodes_s << ", \"node_schedule_s\": " << r.schedule_s
        << ", \"sent\": " << s.elements_sent * e << ", \"recv\": " << s.elements_received * e
        << ", \"local\": " << s.elements_local * e
        << ", \"inter_node_sent\": " << s.elements_sent_inter_node * e
        << ", \"inter_node_recv\": " << s.elements_received_inter_node * e
        << ", \"messages_sent\": " << s.messages_sent
        << ", \"messages_received\": " << s.messages_received
        << ", \"buffer_bytes\": " << r.buffer_bytes << ", \"plan_bytes\": " << s.plan_bytes
        << ", \"schedule_bytes\": " << r.schedule_bytes << ", \"tasks\": " << r.tasks
        << ", \"steps\": " << r.steps << "}";
    }
    f << "\n  ],\n  \"relabel\": ";
    if (relabeling)
      f << "{\"kind\": " << json_string(o.relabel == Relabel::nodes ? "nodes" : "flat")
        << ", \"rows_s\": " << relabeling->rows_s << ", \"rows_max_s\": " << relabeling->rows_max_s
        << ", \"solve_s\": " << relabeling->solve_s << ", \"nonzeros\": " << relabeling->nonzeros
        << ", \"matrix_bytes\": " << relabeling->matrix_bytes
        << ", \"inter_node_bytes\": {\"before\": "
        << relabeling->before.inter_node * job.element_bytes
        << ", \"after\": " << relabeling->after.inter_node * job.element_bytes << "}}";
    else
      f << "null";
    f << ",\n  \"predicted\": ";
    if (predicted) {
      const RankTime& c = predicted->critical;
      f << "{\"seconds\": " << predicted->seconds
        << ", \"critical_rank\": " << predicted->critical_rank
        << ", \"terms\": {\"link\": " << c.link << ", \"shm\": " << c.shm
        << ", \"latency\": " << c.latency << ", \"pack\": " << c.pack
        << ", \"unpack\": " << c.unpack << ", \"local\": " << c.local << "}, \"runs_s\": " << c.runs
        << ", \"over\": " << json_string(every_rank ? "every rank" : "sample")
        << ", \"link_estimated\": " << (predicted->link_estimated ? "true" : "false")
        << ", \"link_bytes\": " << predicted->link_bytes
        << ", \"bandwidth_bytes_per_s\": " << predicted->bandwidth_bytes_per_s
        << ", \"bound_bytes_per_s\": " << predicted->bound_bytes_per_s << ", \"machine\": {"
        << machine_json_fields(*o.machine) << "}}";
    } else {
      f << "null";
    }
    f << ",\n  \"job\": {\"messages\": " << job_total.messages
      << ", \"bytes_sent\": " << job_total.bytes_sent
      << ", \"inter_node_bytes\": " << job_total.inter_node_bytes
      << ", \"set_up_s\": " << job_total.set_up_s
      << ", \"estimated\": " << (job_total.estimated ? "true" : "false") << "}";
    f << ",\n  \"peak_resident_bytes\": " << peak << "\n}\n";
  }
  return 0;
}

}  // namespace
}  // namespace redist_plan

int main(int argc, char** argv) {
  using namespace redist_plan;
  for (int k = 1; k < argc; ++k) {
    const std::string_view a = argv[k];
    if (a == "--help" || a == "-h") {
      std::fputs((std::string(help_intro) + option_help(option_table) + std::string(help_examples))
                     .c_str(),
                 stdout);
      return 0;
    }
  }
  try {
    return run(parse(argc, argv));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "redist-plan: %s: %s\n", e.argument.c_str(),
                 escape_nonprintable(e.message).c_str());
  } catch (const redist::error& e) {
    std::fprintf(stderr, "redist-plan: %s\n", escape_nonprintable(strip(e.what(), "")).c_str());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "redist-plan: out of memory (fewer --ranks, or a smaller --sample)\n");
  }
  return 2;
}
