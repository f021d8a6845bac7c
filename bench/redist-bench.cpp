/// @file bench/redist-bench.cpp
/// redist-bench: times redist against ScaLAPACK's pdgemr2d on the same data, checks every
/// element, and compares the achieved time with the papers' cost model
/// (Cao et al. 2021, section 7.2, Eq. (3) and (4)), measured on this machine.
///
///   mpirun -np 2 ./redist-bench --suite standard --json standard.json
///
/// Suites: standard (four fixed cases), categories (Fig. 9), scatter-gather (Fig. 10/11),
/// random (Fig. 12), plan-scaling (planning cost of one rank), here; small-blocks,
/// threads, network, overlap, phase-change, transform, parts, cross-memory, cluster in
/// suites_*.cpp; all
/// (every suite but cluster, which belongs in a job on several nodes). See bench/README.md.

#include <unistd.h>

#include <redist/distributions/relabeled.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/tools/spec_distribution.hpp>

#include "bench.hpp"

namespace bench {

/// bench/suites_cluster.cpp: cases a-d on several nodes against their links' bound.
void suite_cluster(const mpi::communicator& comm, const Options& o, Report& report);

namespace {

void print_header(const std::string& suite) {
  std::printf("\n== suite %s ==\n", suite.c_str());
  std::printf("%-26s %17s %17s %17s %17s %6s %6s %6s %7s %7s %7s %8s %6s %6s %6s %s\n", "case",
              "tile med/best s", "scal med/best s", "shm med/best s", "pdgemr2d med/best", "spd-t",
              "spd-s", "spd-m", "GB/s-t", "GB/s-s", "GB/s-m", "Eq4 s", "eff-t%", "eff-s%", "eff-m%",
              "check");
}

void print_row(const Result& r) {
  const Variant* t = r.find("redist_tile");
  const Variant* s = r.find("redist_scalapack");
  const Variant* m = r.find("redist_shared");
  const Variant* p = r.find("pdgemr2d");
  const Variant* pm = r.find("pdgemr2d_shared");
  const Variant* push = r.find("redist_push");
  long bad = 0;
  for (const auto& v : r.variants) bad += v.mismatches;
  // Each redist variant against pdgemr2d on the same kind of memory.
  const auto spd = [&](const Variant* v, const Variant* q) {
    return v && q ? q->timing.median() / v->timing.median() : NAN;
  };
  std::printf(
      "%-26s %17s %17s %17s %17s %6.2f %6.2f %6.2f %7.2f %7.2f %7.2f %8.4f %6.0f %6.0f %6.0f %s\n",
      r.c.name.c_str(), med_best(t).c_str(), med_best(s).c_str(), med_best(m).c_str(),
      med_best(p).c_str(), spd(t, p), spd(s, p), spd(m, pm), bandwidth(r, t), bandwidth(r, s),
      bandwidth(r, m), r.eq4, efficiency(r, t), efficiency(r, s), efficiency(r, m),
      bad ? "MISMATCH" : "ok");
  if (r.c.suite == "standard") {
    const Stats& st = r.stats;
    std::printf(
        "    memory/rank: buffers reported %.1f MiB before run (plan: %.1f MiB without the shared "
        "window), %.1f MiB held after; measured PSS +%.1f MiB, peak RSS +%.1f MiB; plan %.2f MiB\n",
        st.buffer_bytes / 1048576, st.plan_elements / 1048576, st.buffer_after / 1048576,
        st.measured_pss / 1048576, st.measured_peak / 1048576, st.plan_memory / 1048576);
    // The most any move could beat pdgemr2d by on this machine now: pdgemr2d's time over
    // the single-copy floor (a speed-up target above it is above the machine).
    std::printf(
        "    floor: single-copy %.4f s; redist reaches %.0f %% (tile), %.0f %% (scalapack), "
        "%.0f %% (shared) of it; pdgemr2d takes %.1fx it (%.1fx shared)\n",
        r.floor, floor_pct(r, t), floor_pct(r, s), floor_pct(r, m),
        p ? p->timing.median() / r.floor : NAN, pm ? pm->timing.median() / r.floor : NAN);
    if (push)
      std::printf("    node-shared target (pushed): %s s, %.2fx pdgemr2d, %.0f %% of the floor\n",
                  med_best(push).c_str(), spd(push, p), floor_pct(r, push));
  }
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------
// Suites

/// A P x Q grid of `size` ranks as square as possible (P <= Q).
std::pair<int, int> square_grid(int size) {
  int p = static_cast<int>(std::sqrt(static_cast<double>(size)));
  while (size % p) --p;
  return {p, size / p};
}

std::vector<Case> category_cases(const Options& o, int size) {
  const auto [P, Q] = square_grid(size);
  // Two different grids: P x Q -> Q x P (1x2 -> 2x1 on two ranks); size x 1 if square.
  const int pt = P == Q ? size : Q, qt = P == Q ? 1 : P;
  const index_t n = o.quick ? 1200 : 2400;  // divisible by every tile extent used
  std::vector<index_t> tiles =
      o.quick ? std::vector<index_t>{10, 50, 200} : std::vector<index_t>{10, 20, 50, 100, 200, 400};
  std::vector<Case> v;
  for (int cid = 0; cid < 9; ++cid)
    for (index_t nb : tiles) {
      Case c;
      c.suite = "categories";
      c.category = cid;
      c.M = c.N = n;
      c.mbs = c.nbs = nb;
      c.ps = P, c.qs = Q;
      c.mbt = nb * (cid / 3 + 1);
      c.nbt = nb * (cid % 3 + 1);
      c.pt = pt, c.qt = qt;
      c.message_bytes = static_cast<double>(nb * nb * 8);
      c.name = "cat" + std::to_string(cid) + " nb=" + std::to_string(nb);
      v.push_back(c);
    }
  return v;
}

/// Matrix extent and tile sizes of the scatter-gather and random sweeps.
index_t sweep_extent(const Options& o) { return o.quick ? 1200 : 2400; }
std::vector<index_t> sweep_tiles(const Options& o) {
  return o.quick ? std::vector<index_t>{10, 100, 400}
                 : std::vector<index_t>{10, 20, 50, 100, 200, 400};
}

std::vector<Case> scatter_gather_cases(const Options& o, int size) {
  const auto [P, Q] = square_grid(size);
  const index_t n = sweep_extent(o);
  const std::vector<index_t> tiles = sweep_tiles(o);
  std::vector<Case> v;
  for (int gather = 0; gather < 2; ++gather)
    for (index_t nb : tiles) {
      Case c;
      c.suite = "scatter-gather";
      c.M = c.N = n;
      // Everything on rank 0 as one tile (a 1 x 1 grid) <-> nb x nb tiles on P x Q.
      if (!gather) {
        c.mbs = c.nbs = n, c.ps = c.qs = 1, c.mbt = c.nbt = nb, c.pt = P, c.qt = Q;
      } else {
        c.mbs = c.nbs = nb, c.ps = P, c.qs = Q, c.mbt = c.nbt = n, c.pt = c.qt = 1;
      }
      c.message_bytes = static_cast<double>(nb * nb * 8);
      c.name = std::string(gather ? "gather" : "scatter") + " nb=" + std::to_string(nb);
      v.push_back(c);
    }
  return v;
}

std::vector<Case> random_cases(const Options& o, int size) {
  const auto [P, Q] = square_grid(size);
  const index_t n = sweep_extent(o);
  const std::vector<index_t> tiles = sweep_tiles(o);
  std::vector<Case> v;
  for (int rnd = 0; rnd < 2; ++rnd)
    for (index_t nb : tiles) {
      Case c;
      c.suite = "random";
      c.M = c.N = n;
      c.mbs = c.nbs = c.mbt = c.nbt = nb;
      // Same tiles, different owners: random seed 2873 -> 3872, or P x Q -> Q x P.
      c.ps = P, c.qs = Q, c.pt = P == Q ? size : Q, c.qt = P == Q ? 1 : P;
      c.kind = rnd ? Kind::random : Kind::block_cyclic;
      c.message_bytes = static_cast<double>(nb * nb * 8);
      c.name = std::string(rnd ? "random" : "2dbc") + " nb=" + std::to_string(nb);
      v.push_back(c);
    }
  return v;
}

/// Planning cost of rank 0 for huge virtual problems: nothing is allocated, only the plan.
/// Times the plan that runs (make_plan, Plan::memory_bytes()) and, beside
/// it, the per-segment reference (make_reference_plan), which the library runs only for non-grid
/// layouts. Strong: 10^6 x 10^6 on more and more ranks (the rank's tiles shrink). Weak: the
/// rank keeps 128 x 128 tiles while the matrix grows to 10^6 x 10^6 (global tiles grow
/// 16384x). Cyclic: 1 x 1 blocks, 1 x 2 -> 2 x 1 grids on 2 ranks, the matrix growing
/// (element-cyclic layouts are periodic, so their plan costs the period; the per-segment
/// plan would hold one segment per element and is not run); cyclic-spec: the same with the
/// run-time distribution types of redist-run (issue 22, point 4).
void plan_scaling(const mpi::communicator& comm, const Options& o, Report& report) {
  struct Row {
    std::string series;
    index_t M;
    int ranks;
    double seconds, memory, segments, own_tiles, global_tiles;
    double segment_seconds, segment_memory;  ///< the per-segment plan; < 0: not run
  };
  std::vector<Row> rows;
  // Rank 0's plan of the whole M x M matrix, best of 3.
  const auto timed_plan = [&](const std::string& series, index_t M, int ranks, const auto& src,
                              const auto& dst) {
    Row row{series, M, ranks, 1e30, 0, 0, 0, 0, -1, -1};
    for (int k = 0; k < (o.quick ? 1 : 3); ++k) {
      const double t0 = now();
      const redist::Plan plan =
          redist::make_plan(src, dst, redist::Region::whole({M, M}), 0, ranks);
      row.seconds = std::min(row.seconds, now() - t0);
      row.memory = static_cast<double>(plan.memory_bytes());
      row.segments = static_cast<double>(plan.stats.segments_sent + plan.stats.segments_received +
                                         plan.stats.segments_local);
    }
    row.global_tiles =
        static_cast<double>(src.tiles().rows) * static_cast<double>(src.tiles().cols);
    row.own_tiles = row.global_tiles / ranks;
    return row;
  };
  if (comm.rank() == 0) {
    const auto one = [&](const std::string& series, index_t M, int ranks, index_t src_tile,
                         index_t dst_tile, std::pair<int, int> src_grid,
                         std::pair<int, int> dst_grid, redist::GridCoord dst_first,
                         bool per_segment) {
      const BcLayout src{shape_of(M, M, src_tile, src_tile),
                         redist::BlockCyclic(src_grid.first, src_grid.second)};
      const BcLayout dst{shape_of(M, M, dst_tile, dst_tile),
                         redist::BlockCyclic(dst_grid.first, dst_grid.second, 1, 1, dst_first)};
      const redist::Region whole = redist::Region::whole({M, M});
      Row row = timed_plan(series, M, ranks, src, dst);
      if (per_segment) {
        row.segment_seconds = 1e30;
        for (int k = 0; k < (o.quick ? 1 : 3); ++k) {
          const double t0 = now();
          const redist::ReferencePlan plan = redist::make_reference_plan(src, dst, whole, 0, ranks);
          row.segment_seconds = std::min(row.segment_seconds, now() - t0);
          row.segment_memory = static_cast<double>(plan.memory_bytes());
        }
      }
      rows.push_back(row);
    };
    const auto grid_pair = [&](const std::string& series, index_t M, int ranks) {
      const auto [P, Q] = square_grid(ranks);
      one(series, M, ranks, 64, 100, {P, Q}, {Q, P}, {Q > 1 ? 1 : 0, 0}, true);
    };
    const index_t huge = 1000000;
    for (int r : (o.quick ? std::vector<int>{4096, 16384}
                          : std::vector<int>{1024, 2048, 4096, 8192, 16384}))
      grid_pair("strong", huge, r);
    for (int s = 1; s <= (o.quick ? 32 : 128); s *= 2) grid_pair("weak", 64 * 128 * s, s * s);
    const std::vector<index_t> cyclic_sizes =
        o.quick ? std::vector<index_t>{1024, 2048} : std::vector<index_t>{2048, 8192, 16384};
    for (index_t M : cyclic_sizes) one("cyclic", M, 2, 1, 1, {1, 2}, {2, 1}, {0, 0}, false);
    // The same pair as redist-run builds it for tile storage: distributions chosen at run
    // time, the target relabeled (the identity). They plan through their grid view
    // (plan/grid_view.hpp); before it, on the per-segment path.
    for (index_t M : cyclic_sizes) {
      using redist::tools::SpecDistribution;
      const redist::Layout src{shape_of(M, M, 1, 1), SpecDistribution(redist::BlockCyclic(1, 2))};
      const redist::Layout dst{
          shape_of(M, M, 1, 1),
          redist::Relabeled<SpecDistribution>(SpecDistribution(redist::BlockCyclic(2, 1)), {0, 1})};
      rows.push_back(timed_plan("cyclic-spec", M, 2, src, dst));
    }
    std::printf(
        "\n== suite plan-scaling (rank 0 of R virtual ranks; strong, weak: 64x64 -> "
        "100x100 tiles; cyclic: 1x1) ==\n");
    std::printf("%-7s %10s %7s %14s %12s %12s %10s %10s %12s %12s\n", "series", "M=N", "ranks",
                "global tiles", "own tiles", "segments", "plan s", "plan MiB", "per-seg. s",
                "per-seg. MiB");
    const auto or_dash = [](double v, double scale, const char* fmt) {
      if (v < 0) return std::string("-");
      char b[32];
      std::snprintf(b, sizeof b, fmt, v * scale);
      return std::string(b);
    };
    for (const auto& r : rows)
      std::printf("%-7s %10ld %7d %14.0f %12.0f %12.0f %10.4f %10.2f %12s %12s\n", r.series.c_str(),
                  static_cast<long>(r.M), r.ranks, r.global_tiles, r.own_tiles, r.segments,
                  r.seconds, r.memory / 1048576.0, or_dash(r.segment_seconds, 1.0, "%.4f").c_str(),
                  or_dash(r.segment_memory, 1.0 / 1048576.0, "%.2f").c_str());
    std::fflush(stdout);
    std::ostringstream json;
    json << "[";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto& r = rows[k];
      json << (k ? "," : "") << "\n    {\"series\": \"" << r.series << "\", \"M\": " << r.M
           << ", \"ranks\": " << r.ranks << ", \"global_tiles\": " << json_number(r.global_tiles)
           << ", \"own_tiles\": " << json_number(r.own_tiles)
           << ", \"segments\": " << json_number(r.segments)
           << ", \"plan_seconds\": " << json_number(r.seconds)
           << ", \"plan_memory_bytes\": " << json_number(r.memory);
      if (r.segment_seconds >= 0)
        json << ", \"per_segment_plan_seconds\": " << json_number(r.segment_seconds)
             << ", \"per_segment_plan_memory_bytes\": " << json_number(r.segment_memory);
      json << "}";
    }
    json << "\n  ]";
    report.sections.emplace_back("plan_scaling", json.str());
  }
  comm.barrier();
}

const std::vector<std::string> suite_names{
    "standard",     "categories", "scatter-gather", "random",  "plan-scaling",
    "small-blocks", "threads",    "network",        "overlap", "phase-change",
    "transform",    "parts",      "cross-memory",   "cluster", "all"};

int usage(const char* argv0) {
  std::string names;
  for (const auto& n : suite_names) names += (names.empty() ? "" : "|") + n;
  std::fprintf(stderr,
               "usage: %s [--suite %s]\n"
               "          [--json FILE] [--repeat N] [--quick] [--no-scalapack] [--no-shared]\n"
               "          [--case PREFIX]\n",
               argv0, names.c_str());
  return 2;
}

/// The suites whose cases are rows of the standard table.
void table_suites(const mpi::communicator& world, const Options& o, bool all, Report& report) {
  const bool root = world.rank() == 0;
  std::vector<std::pair<std::string, std::vector<Case>>> suites;
  if (all || o.suite == "standard") {
    if (world.size() >= 2)
      suites.emplace_back("standard", standard_cases(o));
    else if (root)
      std::printf("standard suite needs 2 ranks; skipped\n");
  }
  if (all || o.suite == "categories")
    suites.emplace_back("categories", category_cases(o, world.size()));
  if (all || o.suite == "scatter-gather")
    suites.emplace_back("scatter-gather", scatter_gather_cases(o, world.size()));
  if (all || o.suite == "random") suites.emplace_back("random", random_cases(o, world.size()));
  for (const auto& [name, cases] : suites) {
    if (root) print_header(name);
    for (const Case& c : cases) {
      if (!selected(o, c.name)) continue;
      report.add(run_case(world, o, c));
      if (root) print_row(report.results.back());
    }
  }
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  // Serialized: the overlap suite runs moves with a progress thread.
  mpi::environment env(argc, argv, mpi::threading::serialized);
  Kokkos::ScopeGuard kokkos(argc, argv);
  mpi::communicator world;
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--suite" && k + 1 < argc)
      o.suite = argv[++k];
    else if (a == "--json" && k + 1 < argc)
      o.json = argv[++k];
    else if (a == "--repeat" && k + 1 < argc)
      o.repeat = std::max(1, std::atoi(argv[++k]));
    else if (a == "--quick")
      o.quick = true;
    else if (a == "--no-scalapack")
      o.scalapack = false;
    else if (a == "--no-shared")
      o.shared = false;
    else if (a == "--case" && k + 1 < argc)
      o.only = argv[++k];
    else
      return world.rank() == 0 ? usage(argv[0]) : 2;
  }
#if !REDIST_HAVE_SCALAPACK
  o.scalapack = false;
#endif
  const bool all = o.suite == "all";
  if (std::find(suite_names.begin(), suite_names.end(), o.suite) == suite_names.end())
    return world.rank() == 0 ? usage(argv[0]) : 2;

  std::ostringstream json;
  const bool root = world.rank() == 0;
  if (root) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    using Space = Kokkos::DefaultHostExecutionSpace;
    json << "{\n  \"benchmark\": \"redist-bench\", \"suite\": \"" << o.suite
         << "\", \"ranks\": " << world.size() << ", \"repeat\": " << o.repeat
         << ", \"quick\": " << (o.quick ? "true" : "false") << ", \"host\": \"" << host
         << "\", \"cores\": " << sysconf(_SC_NPROCESSORS_ONLN) << ", \"loadavg_start\": ["
         << load[0] << ", " << load[1] << ", " << load[2] << "],\n"
         << "  \"kokkos_host_space\": \"" << Space::name()
         << "\", \"kokkos_concurrency\": " << Space().concurrency()
         << ", \"mpi_btl\": " << json_string(mpi_btl())
         << ", \"mpi_pml\": " << json_string(mpi_pml()) << ",\n";
  }
  Report report;
  // Suites with their own tables first, in the order of the usage line.
  if (all || o.suite == "plan-scaling") plan_scaling(world, o, report);
  table_suites(world, o, all, report);
  if (all || o.suite == "small-blocks") suite_small_blocks(world, o, report);
  if (all || o.suite == "threads") suite_threads(world, o, report);
  if (all || o.suite == "network") suite_network(world, o, report);
  if (all || o.suite == "overlap") suite_overlap(world, o, report);
  if (all || o.suite == "phase-change") suite_phase_change(world, o, report);
  if (all || o.suite == "transform") suite_transform(world, o, report);
  if (all || o.suite == "parts") suite_parts(world, o, report);
  if (all || o.suite == "cross-memory") suite_cross_memory(world, o, report);
  if (o.suite == "cluster") suite_cluster(world, o, report);

  const long bad = report.mismatches;
  if (root && !report.results.empty())
    std::printf("\nB_memcpy = %.2f GB/s per rank (all ranks copying); mismatches: %ld\n",
                report.results.front().b_memcpy / 1e9, bad);
  if (root && !o.json.empty()) {
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    for (const auto& [key, value] : report.sections)
      json << "  \"" << key << "\": " << value << ",\n";
    json << "  \"loadavg_end\": [" << load[0] << ", " << load[1] << ", " << load[2] << "],\n";
    json << "  \"cases\": [\n";
    for (std::size_t k = 0; k < report.results.size(); ++k) {
      write_json(json, report.results[k]);
      json << (k + 1 < report.results.size() ? ",\n" : "\n");
    }
    json << "  ],\n  \"mismatches\": " << bad << "\n}\n";
    std::ofstream(o.json) << json.str();
  }
  return bad != 0 ? 1 : 0;
}
