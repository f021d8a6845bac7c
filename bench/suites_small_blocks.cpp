/// @file bench/suites_small_blocks.cpp
/// Suite small-blocks: element-cyclic and small-block layouts, where work per block costs
/// most (issue 9). ScaLAPACK storage, grids 1 x R -> R x 1 (1x2 -> 2x1 on two ranks):
///
/// - sweep: 2000² (400² with --quick), square blocks nb = 1 .. 16 on both sides; nb = 1
///   is the 1x1 -> 1x1 case;
/// - 4000² (800² with --quick): 2x2 -> 3x3, 4x4 -> 5x5, 8x8 -> 9x9, 16x16 -> 17x17.
///
/// Per case: Redistributor construction time (plan, task graph, transport), its memory
/// (Plan::memory_bytes, peak RSS growth during construction and during
/// construction + first run, the process's absolute peak RSS), redist's run median,
/// pdgemr2d on the same arrays (median, peak RSS growth of its first call), speedup.

#include <malloc.h>

#include "bench.hpp"

namespace bench {

namespace {

std::vector<Case> small_block_cases(const Options& o, int size) {
  std::vector<Case> v;
  const auto add = [&](const std::string& series, index_t n, index_t bs, index_t bt) {
    Case c;
    c.suite = "small-blocks";
    c.series = series;
    c.M = c.N = n;
    c.mbs = c.nbs = bs;
    c.mbt = c.nbt = bt;
    c.ps = 1, c.qs = size, c.pt = size, c.qt = 1;
    c.message_bytes = static_cast<double>(bs * bs * 8);
    c.name = series == "sweep"
                 ? "sweep nb=" + std::to_string(bs) + " " + std::to_string(n)
                 : std::to_string(bs) + "->" + std::to_string(bt) + " " + std::to_string(n);
    v.push_back(c);
  };
  const index_t sweep_n = o.quick ? 400 : 2000, big_n = o.quick ? 800 : 4000;
  for (index_t nb = 1; nb <= 16; ++nb) add("sweep", sweep_n, nb, nb);
  for (index_t nb : {2, 4, 8, 16}) add("4000", big_n, nb, nb + 1);
  return v;
}

double mib(double bytes) { return bytes < 0 ? NAN : bytes / 1048576.0; }

}  // namespace

void suite_small_blocks(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  if (comm.size() < 2) {
    if (root) std::printf("small-blocks suite needs 2 ranks; skipped\n");
    return;
  }
  // Fixed thresholds: large blocks are mmapped and returned at free, so that the RSS before
  // a case does not keep the previous case's matrices (glibc's dynamic threshold would).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 20);

  if (root) {
    std::printf("\n== suite small-blocks (ScaLAPACK storage, %d ranks, 1x%d -> %dx1) ==\n",
                comm.size(), comm.size(), comm.size());
    std::printf("%-20s %9s %9s %9s %9s %9s %10s %10s %9s %9s %7s %s\n", "case", "plan s",
                "plan MiB", "setup+MiB", "run+MiB", "peak MiB", "redist s", "pdgemr2d s", "pd +MiB",
                "pd peakMB", "speedup", "check");
  }
  CaseVariants which;
  which.tile = false;
  which.shared = false;
  for (const Case& c : small_block_cases(o, comm.size())) {
    if (!selected(o, c.name)) continue;
    Result r = run_case(comm, o, c, which);
    const Variant* s = r.find("redist_scalapack");
    const Variant* p = r.find("pdgemr2d");
    r.extra.emplace_back("speedup", speedup(s, p));
    if (root) {
      const Stats& st = r.stats;
      std::printf("%-20s %9.4f %9.3f %9.1f %9.1f %9.1f %10.4f %10.4f %9.1f %9.1f %7.2f %s\n",
                  c.name.c_str(), st.plan_seconds, mib(st.plan_memory), mib(st.setup_peak),
                  mib(st.measured_peak), mib(st.process_peak), s ? s->timing.median() : NAN,
                  p ? p->timing.median() : NAN, p ? mib(p->peak_growth) : NAN,
                  p ? mib(p->process_peak) : NAN, speedup(s, p),
                  mismatches_of(r) ? "MISMATCH" : "ok");
      std::fflush(stdout);
    }
    report.add(std::move(r));
  }
  if (root) {
    std::printf(
        "plan s: Redistributor construction (max over ranks); plan MiB: Plan::memory_bytes;"
        "\nsetup+/run+: peak RSS growth during construction / construction + first run; peak: "
        "absolute\nVmHWM of the process (matrices included); pd: pdgemr2d's first call.\n");
    std::ostringstream json;
    json << "{\"storage\": \"scalapack\", \"grids\": \"1x" << comm.size() << " -> " << comm.size()
         << "x1\", \"memory\": \"peak RSS (VmHWM reset through "
         << "/proc/self/clear_refs); bytes, max over ranks\"}";
    report.sections.emplace_back("small_blocks", json.str());
  }
}

}  // namespace bench
