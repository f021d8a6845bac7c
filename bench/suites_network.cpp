/// @file bench/suites_network.cpp
/// Suite network: the standard cases a-d with the node's shared window off
/// (ExecutionOptions::shared_window = false, passed to the Redistributor), so that every
/// remote byte goes through MPI point-to-point: the inter-node situation. Meant to be run
/// over TCP:
///
///   mpirun -np 2 --mca btl tcp,self redist-bench --suite network --json network.json
///
/// Both bounds are measured in the same run over the same transport:
/// - network bound = max over ranks of bytes sent / B_net, B_net the two-way
///   point-to-point bandwidth between ranks 0 and 1 at the case's largest message,
///   measured on the same communicator (so over the btl MPI picked for the run);
/// - memory bound = max over ranks of (2 M_remote + M_local) / B_memcpy (Eq. (4) without
///   its network term: pack and unpack of remote data, one copy of local data).
/// Efficiency = max(network bound, memory bound) / median time; pdgemr2d side by side.

#include "bench.hpp"

namespace bench {

void suite_network(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  if (comm.size() < 2) {
    if (root) std::printf("network suite needs 2 ranks; skipped\n");
    return;
  }
  const std::string btl = mpi_btl();
  if (root) {
    std::printf("\n== suite network (shared window off, MPI btl: %s, pml: %s) ==\n", btl.c_str(),
                mpi_pml().c_str());
    if (btl.find("tcp") == std::string::npos || btl.find("vader") != std::string::npos ||
        btl.find("sm") != std::string::npos)
      std::printf(
          "note: not restricted to TCP; run under `mpirun --mca pml ob1 --mca btl "
          "tcp,self`\n");
    std::printf("%-26s %9s %9s %10s %6s %6s %8s %9s %9s %7s %7s %7s %s\n", "case", "tile s",
                "scal s", "pdgemr2d s", "spd-t", "spd-s", "Bnet GB/s", "net b. s", "mem b. s",
                "eff-t%", "eff-s%", "eff-pd%", "check");
  }
  CaseVariants which;
  which.shared = false;  // node-shared sources need the window
  which.exec.shared_window = false;
  bool window_forced = false;
  for (Case c : standard_cases(o)) {
    c.suite = "network";
    if (!selected(o, c.name)) continue;
    Result r = run_case(comm, o, c, which);
    const Stats& s = r.stats;
    window_forced = window_forced || s.shared_window;
    const double net_bound = std::isinf(r.b_net) ? 0 : s.sent_max / r.b_net;
    const double mem_bound = copy_floor(comm, s, r.b_memcpy, 2);
    const double bound = std::max(net_bound, mem_bound);
    // B_net at the size of one chunk on the wire, for reference.
    const double b_chunk =
        measure_net(comm, static_cast<std::size_t>(std::min(s.chunk_bytes, s.largest_message)));
    const Variant* t = r.find("redist_tile");
    const Variant* sc = r.find("redist_scalapack");
    const Variant* p = r.find("pdgemr2d");
    const auto eff = [&](const Variant* v) { return v ? 100 * bound / v->timing.median() : NAN; };
    const auto med = [](const Variant* v) { return v ? v->timing.median() : NAN; };
    r.extra.emplace_back("network_bound_seconds", net_bound);
    r.extra.emplace_back("memory_bound_seconds", mem_bound);
    r.extra.emplace_back("bound_seconds", bound);
    r.extra.emplace_back("b_net_chunk", b_chunk);
    r.extra.emplace_back("efficiency_tile_pct", eff(t));
    r.extra.emplace_back("efficiency_scalapack_pct", eff(sc));
    r.extra.emplace_back("efficiency_pdgemr2d_pct", eff(p));
    r.extra.emplace_back("speedup_tile", speedup(t, p));
    r.extra.emplace_back("speedup_scalapack", speedup(sc, p));
    r.labels.emplace_back("mpi_btl", btl);
    if (root) {
      std::printf("%-26s %9.4f %9.4f %10.4f %6.2f %6.2f %8.2f %9.4f %9.4f %7.0f %7.0f %7.0f %s\n",
                  c.name.c_str(), med(t), med(sc), med(p), speedup(t, p), speedup(sc, p),
                  r.b_net / 1e9, net_bound, mem_bound, eff(t), eff(sc), eff(p),
                  mismatches_of(r) ? "MISMATCH" : "ok");
      std::fflush(stdout);
    }
    report.add(std::move(r));
  }
  if (root) {
    std::printf(
        "net b.: max bytes sent per rank / B_net (two-way, largest message, same transport);"
        "\nmem b.: max per rank (2 M_remote + M_local) / B_memcpy; eff = max(net b., mem b.) / "
        "median.\n");
    if (window_forced)
      std::printf(
          "warning: the shared window was on after agreement (REDIST_SHARED_WINDOW=1 in"
          " the environment overrides ExecutionOptions)\n");
    std::ostringstream json;
    json << "{\"mpi_btl\": " << json_string(btl)
         << ", \"shared_window\": " << (window_forced ? "true" : "false")
         << ", \"bound\": \"max(network_bound_seconds, memory_bound_seconds)\"}";
    report.sections.emplace_back("network", json.str());
  }
}

}  // namespace bench
