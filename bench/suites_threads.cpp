/// @file bench/suites_threads.cpp
/// Suite threads: one rank, the local 8192² move, 256² tiles -> 100² tiles (2048² with
/// --quick), tile storage and ScaLAPACK storage (and pdgemr2d, one thread, for reference),
/// run on the Redistributor's default execution space. Reports that space's name and
/// concurrency, and two copy anchors: memcpy on one thread (B_memcpy) and a parallel copy
/// over the execution space (what its threads can move together).
///
/// Meant to be run once per thread count against an OpenMP Kokkos, e.g.
///   OMP_NUM_THREADS=1 mpirun -np 1 --bind-to none redist-bench --suite threads --json t1.json
///   OMP_NUM_THREADS=2 mpirun -np 1 --bind-to none redist-bench --suite threads --json t2.json
/// and the two files combined (bench/plots/combine_threads.py, scripts/bench.sh).

#include "bench.hpp"

namespace bench {

namespace {

/// The space the Redistributor runs on by default: the execution space of host memory,
/// Kokkos::DefaultExecutionSpace in a host build (both are reported).
using Space = redist::Redistributor<ScalapackMatrix, ScalapackMatrix>::execution_space;

/// Copy bandwidth of the execution space's threads together, bytes/s, best of 10: a
/// parallel_for over 4 chunks per thread, each one memcpy (as B_memcpy, whose glibc
/// memcpy streams large copies), after a first touch by the same threads.
double measure_space_copy(std::size_t bytes) {
  const int chunks = 4 * Space().concurrency();
  const std::size_t per = (bytes / chunks) & ~std::size_t{63};
  // Default-initialized: the pages are first touched by the threads below.
  const std::unique_ptr<char[]> x(new char[per * chunks]), y(new char[per * chunks]);
  char* xp = x.get();
  char* yp = y.get();
  const Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Static>> range(Space(), 0, chunks);
  Kokkos::parallel_for("bench::touch", range, [=](int k) {
    std::memset(xp + k * per, 1, per);
    std::memset(yp + k * per, 2, per);
  });
  Space().fence();
  double best = 1e30;
  for (int k = 0; k < 11; ++k) {
    const double t0 = now();
    Kokkos::parallel_for("bench::copy", range,
                         [=](int c) { std::memcpy(yp + c * per, xp + c * per, per); });
    Space().fence();
    if (k > 0) best = std::min(best, now() - t0);
  }
  return static_cast<double>(per * chunks) / best;
}

std::string env_or(const char* name, const char* fallback) {
  const char* e = std::getenv(name);
  return e ? e : fallback;
}

}  // namespace

void suite_threads(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  if (comm.size() != 1) {
    if (root) std::printf("threads suite runs on 1 rank (mpirun -np 1); skipped\n");
    return;
  }
  const int concurrency = Space().concurrency();
  const std::string space = Space::name();
  const double b_memcpy = b_memcpy_of_run(comm, o);
  const double b_space =
      measure_space_copy(o.quick ? (std::size_t{64} << 20) : (std::size_t{256} << 20));
  std::printf(
      "\n== suite threads (1 rank, execution space %s, concurrency %d, OMP_NUM_THREADS=%s)"
      " ==\n",
      space.c_str(), concurrency, env_or("OMP_NUM_THREADS", "unset").c_str());
  std::printf(
      "copy anchors: memcpy (1 thread) %.2f GB/s; parallel copy over %s %.2f GB/s (%.2fx)\n",
      b_memcpy / 1e9, space.c_str(), b_space / 1e9, b_space / b_memcpy);

  Case c;
  c.suite = "threads";
  c.M = c.N = o.quick ? 2048 : 8192;
  c.mbs = c.nbs = 256;
  c.mbt = c.nbt = 100;
  c.message_bytes = 256.0 * 256 * 8;
  c.name = "local " + std::to_string(c.M) + " 256->100";
  if (selected(o, c.name)) {
    CaseVariants which;
    which.shared = false;  // one rank: nothing to share
    Result r = run_case(comm, o, c, which);
    // Bound of the space: the local bytes at the parallel copy bandwidth.
    const double space_bound = r.stats.local_max / b_space;
    r.extra.emplace_back("concurrency", concurrency);
    r.extra.emplace_back("b_copy_space", b_space);
    r.extra.emplace_back("space_bound_seconds", space_bound);
    r.labels.emplace_back("execution_space", space);
    std::printf("%-26s %10s %10s %10s %10s %10s %12s %s\n", "case", "tile s", "scal s",
                "pdgemr2d s", "GB/s-t", "GB/s-s", "bound s", "check");
    const Variant* t = r.find("redist_tile");
    const Variant* s = r.find("redist_scalapack");
    const Variant* p = r.find("pdgemr2d");
    const auto med = [](const Variant* v) { return v ? v->timing.median() : NAN; };
    const auto gbs = [&](const Variant* v) { return v ? r.stats.local_max / med(v) / 1e9 : NAN; };
    std::printf("%-26s %10.4f %10.4f %10.4f %10.2f %10.2f %12.4f %s\n", c.name.c_str(), med(t),
                med(s), med(p), gbs(t), gbs(s), space_bound, mismatches_of(r) ? "MISMATCH" : "ok");
    std::printf(
        "GB/s: bytes moved / median; bound: bytes / parallel copy bandwidth. Compare runs"
        " with\nOMP_NUM_THREADS=1 and 2 (bench/plots/combine_threads.py).\n");
    std::fflush(stdout);
    report.add(std::move(r));
  }
  std::ostringstream json;
  json << "{\"execution_space\": " << json_string(space) << ", \"concurrency\": " << concurrency
       << ", \"default_execution_space\": " << json_string(Kokkos::DefaultExecutionSpace::name())
       << ", \"default_concurrency\": " << Kokkos::DefaultExecutionSpace().concurrency()
       << ", \"omp_num_threads\": " << json_string(env_or("OMP_NUM_THREADS", ""))
       << ", \"omp_proc_bind\": " << json_string(env_or("OMP_PROC_BIND", ""))
       << ", \"b_memcpy_1thread\": " << json_number(b_memcpy)
       << ", \"b_copy_space\": " << json_number(b_space) << "}";
  report.sections.emplace_back("threads", json.str());
}

}  // namespace bench
