/// @file bench/suites_parts.cpp
/// Suite parts (issue 24, point 5): many small matrices moved in one exchange
/// (Redistributor over a vector of Part). K = 10^3 .. 10^6 parts (10^3, 10^4 with --quick),
/// each a 4 x 4 matrix of 2 x 2 tiles moved from a 1 x R to an R x 1 block-cyclic grid (R
/// ranks), tile storage (packed) on both sides. Per K, max over ranks:
///
/// - setup s: Redistributor construction (overlap check, plans, agreement, merge, task
///   graph, copy binding, transports), the figure the target is about: <= 5 s at 10^6;
/// - setup cpu s: the CPU time (user + system) of that construction, the steadier figure
///   when other processes share the cores (a rank waiting in a collective spins, so it
///   counts waiting too);
/// - move s: redistribute(), median of up to --repeat runs (3 at most from 10^5 parts on);
/// - plan / schedule / buffer MiB: PlanStats::plan_bytes, schedule_bytes, buffer_bytes();
/// - merge steps: Plan::merge_steps, the merging work (linear in the parts);
/// - setup +MiB: peak RSS growth during construction.
///
/// Every element of every target is checked after the first and the last run.

#include "bench.hpp"
#include <sys/resource.h>

namespace bench {

namespace {

using redist::ElementIndex;
using PartMatrix = redist::TiledMatrix<double, BcLayout, redist::PackedTiles<>>;

struct PartsRow {
  index_t parts = 0;
  double setup = 0, setup_cpu = 0, setup_peak = -1;
  Timing move;
  double plan_bytes = 0, schedule_bytes = 0, buffer_bytes = 0, merge_steps = 0;
  long bad = 0;
};

/// CPU seconds (user + system) of this process so far.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return s(u.ru_utime) + s(u.ru_stime);
}

/// Source k's element (i, j): distinct over all parts (exact in a double below 2^53).
double part_value(index_t k, ElementIndex e) { return static_cast<double>(k * 16 + e.i * 4 + e.j); }

PartsRow run_parts(const mpi::communicator& comm, const Options& o, index_t K) {
  const int np = comm.size();
  const BcLayout src{shape_of(4, 4, 2, 2), redist::BlockCyclic(1, np)};
  const BcLayout dst{shape_of(4, 4, 2, 2), redist::BlockCyclic(np, 1)};
  const redist::Region whole = redist::Region::whole({4, 4});
  std::vector<PartMatrix> a, b;
  a.reserve(static_cast<std::size_t>(K));
  b.reserve(static_cast<std::size_t>(K));
  std::vector<redist::Part<PartMatrix, PartMatrix>> parts;
  for (index_t k = 0; k < K; ++k) {
    a.emplace_back(src, redist::PackedTiles<>{}, comm.rank());
    b.emplace_back(dst, redist::PackedTiles<>{}, comm.rank());
    a.back().for_each_element([&](ElementIndex e, double& v) { v = part_value(k, e); });
  }
  for (index_t k = 0; k < K; ++k)
    parts.push_back(
        redist::Part{&a[static_cast<std::size_t>(k)], &b[static_cast<std::size_t>(k)], whole});
  const auto check = [&] {
    long bad = 0;
    for (index_t k = 0; k < K; ++k)
      b[static_cast<std::size_t>(k)].for_each_element(
          [&](ElementIndex e, double& v) { bad += v != part_value(k, e); });
    return mpi::all_reduce(comm, bad, std::plus<long>());
  };
  for (PartMatrix& m : b) fill_sentinel(m);

  PartsRow row;
  row.parts = K;
  comm.barrier();
  const PeakProbe probe;
  const double c0 = cpu_seconds();
  const double t0 = now();
  redist::Redistributor<PartMatrix, PartMatrix> r(parts, comm);
  row.setup = max_over(comm, now() - t0);
  row.setup_cpu = max_over(comm, cpu_seconds() - c0);
  row.setup_peak = max_over(comm, probe.growth());
  const redist::PlanStats& s = r.plan().stats;
  row.plan_bytes = max_over(comm, static_cast<double>(s.plan_bytes));
  row.schedule_bytes = max_over(comm, static_cast<double>(s.schedule_bytes));
  row.buffer_bytes = max_over(comm, static_cast<double>(r.buffer_bytes()));
  row.merge_steps = max_over(comm, static_cast<double>(r.plan().merge_steps));

  r.redistribute();
  row.bad = check();
  for (PartMatrix& m : b) fill_sentinel(m);
  const int repeat = K >= 100000 ? std::min(o.repeat, 3) : o.repeat;
  row.move = time_it(comm, repeat, [&] { r.redistribute(); });
  row.bad += check();
  return row;
}

}  // namespace

void suite_parts(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  if (root) {
    std::printf(
        "\n== suite parts (%d ranks; K matrices 4x4, 2x2 tiles, 1x%d -> %dx1, one exchange) ==\n",
        comm.size(), comm.size(), comm.size());
    std::printf("%9s %9s %9s %10s %10s %10s %10s %11s %10s %s\n", "parts", "setup s", "cpu s",
                "move s", "plan MiB", "sched MiB", "buffer MiB", "merge steps", "setup+MiB",
                "check");
  }
  std::vector<index_t> counts{1000, 10000};
  if (!o.quick) counts.insert(counts.end(), {100000, 1000000});
  std::ostringstream json;
  json << "[";
  bool first = true;
  for (const index_t K : counts) {
    if (!selected(o, std::to_string(K))) continue;
    const PartsRow row = run_parts(comm, o, K);
    report.mismatches += row.bad;
    if (root) {
      std::printf("%9lld %9.3f %9.3f %10.4f %10.2f %10.2f %10.3f %11.0f %10.1f %s\n",
                  static_cast<long long>(K), row.setup, row.setup_cpu, row.move.median(),
                  row.plan_bytes / 1048576, row.schedule_bytes / 1048576,
                  row.buffer_bytes / 1048576, row.merge_steps, row.setup_peak / 1048576,
                  row.bad ? "MISMATCH" : "ok");
      std::fflush(stdout);
    }
    json << (first ? "" : ",") << "\n    {\"parts\": " << K
         << ", \"setup_seconds\": " << json_number(row.setup)
         << ", \"setup_cpu_seconds\": " << json_number(row.setup_cpu)
         << ", \"move_median_s\": " << json_number(row.move.median())
         << ", \"move_best_s\": " << json_number(row.move.best())
         << ", \"plan_bytes\": " << json_number(row.plan_bytes)
         << ", \"schedule_bytes\": " << json_number(row.schedule_bytes)
         << ", \"buffer_bytes\": " << json_number(row.buffer_bytes)
         << ", \"merge_steps\": " << json_number(row.merge_steps)
         << ", \"setup_peak_bytes\": " << json_number(row.setup_peak)
         << ", \"mismatches\": " << row.bad << "}";
    first = false;
  }
  json << "\n  ]";
  if (root && !o.quick) std::printf("target: 10^6 parts set up in <= 5 s (issue 24, point 5)\n");
  report.sections.emplace_back("parts", json.str());
  comm.barrier();
}

}  // namespace bench
