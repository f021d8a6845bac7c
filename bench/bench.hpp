#pragma once
/// @file bench/bench.hpp
/// What every suite of redist-bench shares: options, timing, memory probes, the machine
/// anchors (B_memcpy, B_net), the BLACS/pdgemr2d baseline, one case run side by side
/// (redist and pdgemr2d on the same arrays), and the JSON/table output of a case.
/// Header-only; the suites live in redist-bench.cpp and suites_*.cpp.

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <mpi.h>

#include <redist/redist.hpp>
#include <redist/task_graph.hpp>
#include <redist/tools/huge_page_buffer.hpp>
#include <redist/transport/message_buffers.hpp>
#include <redist/transport/yielding_collectives.hpp>

#if REDIST_HAVE_SCALAPACK
extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridexit(int context);
void pdgemr2d_(const int* m, const int* n, double* a, const int* ia, const int* ja,
               const int* desca, double* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
}
#endif

namespace bench {

namespace mpi = boost::mpi;
using redist::index_t;
using Shape = redist::Tiling<redist::UniformAxis<>, redist::UniformAxis<>>;
using BcLayout = redist::Layout<Shape, redist::BlockCyclic>;
using RandomLayout = redist::Layout<Shape, redist::RandomDistribution>;
using ScalapackStorage = redist::ScalapackColumnMajor<>;
using TileStorage = redist::TilePerAllocation<>;
using ScalapackMatrix = redist::TiledMatrix<double, BcLayout, ScalapackStorage>;
using TileMatrix = redist::TiledMatrix<double, BcLayout, TileStorage>;

inline constexpr double sentinel = -1.0;

// ---------------------------------------------------------------------------------------
// Options, clock, small statistics

struct Options {
  std::string suite = "standard";
  std::string json;
  int repeat = 10;
  bool quick = false;
  bool scalapack = true;
  bool shared = true;  ///< also run with the source, then the target, in node-shared memory
  std::string only;    ///< run only the cases whose name starts with this
};

inline double now() { return MPI_Wtime(); }

struct Timing {
  std::vector<double> times;  ///< max over ranks, one per repetition
  double best() const {
    return times.empty() ? NAN : *std::min_element(times.begin(), times.end());
  }
  double median() const {
    if (times.empty()) return NAN;
    std::vector<double> t = times;
    std::sort(t.begin(), t.end());
    const std::size_t n = t.size();
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  }
};

inline double median_of(std::vector<double> t) { return Timing{std::move(t)}.median(); }

/// Times f() `repeat` times after `warmup` untimed calls: barrier, run, max over ranks.
/// The barrier and the max wait yielding (transport/yielding_collectives.hpp), so that a
/// rank done early does not spin on a core that the others need.
template <class F>
Timing time_it(const mpi::communicator& comm, int repeat, F&& f, int warmup = 0) {
  for (int k = 0; k < warmup; ++k) f();
  Timing t;
  for (int k = 0; k < repeat; ++k) {
    redist::transport::barrier_yielding(comm);
    const double t0 = now();
    f();
    const double dt = now() - t0;
    t.times.push_back(redist::transport::max_yielding(comm, dt));
  }
  return t;
}

inline double max_over(const mpi::communicator& comm, double x) {
  return redist::transport::max_yielding(comm, x);
}
inline double sum_over(const mpi::communicator& comm, double x) {
  return redist::transport::all_reduce_yielding(comm, x, MPI_SUM);
}

// ---------------------------------------------------------------------------------------
// Memory: resident set now, and the peak since the last reset (Linux).

inline long status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n + 1);
  return -1;
}
/// Proportional set size (shared pages split among the processes mapping them), KiB.
inline long pss_kib() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, 4, "Pss:") == 0) return std::atol(line.c_str() + 4);
  return -1;
}
/// Resets VmHWM to the current RSS; false where the kernel does not allow it.
inline bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

/// Peak-RSS probe around a stretch of code: RSS before, VmHWM reset, then the growth of
/// the peak (bytes) and the absolute peak (bytes) at any later point. -1 where unknown.
struct PeakProbe {
  long rss0 = status_kib("VmRSS:");
  bool ok = reset_peak_rss();
  double growth() const {
    const long peak = status_kib("VmHWM:");
    return ok && rss0 >= 0 && peak >= 0 ? (peak - rss0) * 1024.0 : -1;
  }
  double absolute() const {
    const long peak = status_kib("VmHWM:");
    return ok && peak >= 0 ? peak * 1024.0 : -1;
  }
};

// ---------------------------------------------------------------------------------------
// Machine anchors (Cao et al. 2021, section 8.1: B_net, B_memcpy)

/// memcpy bandwidth of one rank while every rank copies at once, bytes/s (best of 10).
inline double measure_memcpy(const mpi::communicator& comm, std::size_t bytes) {
  // On pages like the matrices' (TiledMatrix advises huge pages).
  redist::tools::HugePageBuffer a(bytes, 1), b(bytes, 2);
  double best = 1e30;
  for (int k = 0; k < 11; ++k) {
    comm.barrier();
    const double t0 = now();
    std::memcpy(b.data(), a.data(), bytes);
    const double dt = mpi::all_reduce(comm, now() - t0, mpi::maximum<double>());
    if (k > 0) best = std::min(best, dt);
  }
  return static_cast<double>(bytes) / best;
}

/// B_memcpy of this run, measured once (256 MiB, 64 MiB with --quick).
inline double b_memcpy_of_run(const mpi::communicator& comm, const Options& o) {
  static double b = 0;
  if (b == 0)
    b = measure_memcpy(comm, o.quick ? (std::size_t{64} << 20) : (std::size_t{256} << 20));
  return b;
}

/// Two-way point-to-point bandwidth between ranks 0 and 1 at message size `bytes`: both
/// send to each other at once (isend + irecv) over `comm`, hence over the transport MPI
/// uses for the run (vader, or tcp under `--mca btl tcp,self`); bytes/s per direction,
/// best of several.
inline double measure_net(const mpi::communicator& comm, std::size_t bytes) {
  static std::map<std::size_t, double> cache;
  if (comm.size() < 2 || bytes == 0) return INFINITY;
  if (auto it = cache.find(bytes); it != cache.end()) return it->second;
  const int me = comm.rank();
  double bw = 0;
  const std::size_t chunk = std::min<std::size_t>(bytes, INT_MAX);
  const int iters =
      static_cast<int>(std::clamp<std::size_t>((std::size_t{512} << 20) / bytes, 4, 200));
  if (me < 2) {
    std::vector<char> out(bytes, 3), in(bytes, 4);
    const int peer = 1 - me;
    double best = 1e30;
    for (int k = 0; k <= iters; ++k) {
      // Synchronise the two ranks, then exchange.
      char token = 0;
      MPI_Sendrecv(&token, 1, MPI_CHAR, peer, 1, &token, 1, MPI_CHAR, peer, 1, comm,
                   MPI_STATUS_IGNORE);
      const double t0 = now();
      std::vector<MPI_Request> req;
      for (std::size_t off = 0; off < bytes; off += chunk) {
        const int n = static_cast<int>(std::min(chunk, bytes - off));
        req.emplace_back();
        MPI_Irecv(in.data() + off, n, MPI_CHAR, peer, 2, comm, &req.back());
        req.emplace_back();
        MPI_Isend(out.data() + off, n, MPI_CHAR, peer, 2, comm, &req.back());
      }
      MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
      double dt = now() - t0;
      double other = 0;
      MPI_Sendrecv(&dt, 1, MPI_DOUBLE, peer, 3, &other, 1, MPI_DOUBLE, peer, 3, comm,
                   MPI_STATUS_IGNORE);
      dt = std::max(dt, other);
      if (k > 0) best = std::min(best, dt);  // k == 0 is the warm-up
    }
    bw = static_cast<double>(bytes) / best;
  }
  mpi::broadcast(comm, bw, 0);
  cache[bytes] = bw;
  return bw;
}

/// The MPI byte transfer layers this process was told to use (Open MPI's `--mca btl`,
/// passed to the ranks as OMPI_MCA_btl), or "default".
inline std::string mpi_btl() {
  const char* e = std::getenv("OMPI_MCA_btl");
  return e && *e ? e : "default";
}
/// The MPI point-to-point layer asked for (`--mca pml`, OMPI_MCA_pml), or "default".
inline std::string mpi_pml() {
  const char* e = std::getenv("OMPI_MCA_pml");
  return e && *e ? e : "default";
}

// ---------------------------------------------------------------------------------------
// BLACS / ScaLAPACK

#if REDIST_HAVE_SCALAPACK
/// BLACS context of a P x Q grid with redist::BlockCyclic's rank order (row-major), or
/// -1 on ranks outside it. Cached: BLACS grids are collective to create.
inline int blacs_context(int P, int Q) {
  static std::map<std::pair<int, int>, int> cache;
  if (auto it = cache.find({P, Q}); it != cache.end()) return it->second;
  std::vector<int> map(static_cast<std::size_t>(P * Q));
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < Q; ++q) map[static_cast<std::size_t>(p + q * P)] = p * Q + q;
  int ctx = 0;
  Cblacs_get(0, 0, &ctx);
  Cblacs_gridmap(&ctx, map.data(), P, P, Q);
  cache[{P, Q}] = ctx;
  return ctx;
}
#endif

// ---------------------------------------------------------------------------------------
// Cases

enum class Kind { block_cyclic, random };

struct Case {
  std::string suite, name;
  index_t M = 0, N = 0;
  index_t mbs = 0, nbs = 0;
  int ps = 1, qs = 1;
  index_t mbt = 0, nbt = 0;
  int pt = 1, qt = 1;
  Kind kind = Kind::block_cyclic;
  int category = -1;         ///< categories suite: cid
  double message_bytes = 0;  ///< x axis of the sweeps (bytes of one source or target tile)
  std::string series;        ///< sub-series of a suite (small-blocks: "sweep", "4000")
};

struct Stats {
  double sent = 0, received = 0, local = 0;  ///< bytes of this rank
  double remote_max = 0;                     ///< max over ranks of max(sent, received)
  double local_max = 0;
  double sent_max = 0;         ///< max over ranks of bytes sent
  double largest_message = 0;  ///< bytes, max over ranks
  double messages = 0, segments = 0;
  double buffer_bytes = 0;    ///< Executor::buffer_bytes, max over ranks
  double plan_elements = 0;   ///< PlanStats::buffer_elements * 8, max over ranks
  double measured_peak = -1;  ///< peak RSS growth during setup + first run, max over ranks
  double measured_pss = -1;   ///< PSS growth from before setup to after the first run, max
  double buffer_after = 0;    ///< Executor::buffer_bytes after the first run, max over ranks
  double plan_memory = 0;     ///< Plan::memory_bytes, max over ranks
  double plan_seconds = 0;    ///< Redistributor construction (plan + graph + buffers)
  double setup_peak = -1;     ///< peak RSS growth during construction only, max over ranks
  double process_peak = -1;   ///< absolute VmHWM (matrices included) after the first run, max
  double rss_before = -1;     ///< VmRSS before construction (matrices allocated), max
  bool shared_window = true;  ///< the agreed ExecutionOptions::shared_window
  double chunk_bytes = 0;     ///< the agreed ExecutionOptions::chunk_bytes
};

/// A copy floor: max over ranks of (copies x max(sent, received) + local) / B_memcpy, each
/// remote byte copied `copies` times (1: read once and written once, the single-copy
/// floor; 2: packed and unpacked) and each local byte once, at memcpy bandwidth.
inline double copy_floor(const mpi::communicator& comm, const Stats& s, double b_memcpy,
                         int copies) {
  return max_over(comm, (copies * std::max(s.sent, s.received) + s.local) / b_memcpy);
}

struct Variant {
  std::string name;
  Timing timing;
  long mismatches = 0;
  bool ran = false;
  double peak_growth = -1;   ///< peak RSS growth of set-up + first run, bytes, max over ranks
  double process_peak = -1;  ///< absolute VmHWM after the first run, bytes, max over ranks
};

struct Result {
  Case c;
  Stats stats;
  double b_memcpy = 0, b_net = 0, eq4 = 0;
  /// Single-copy floor: max over ranks of (max(sent, received) + local) / B_memcpy, each
  /// element read once and written once at memcpy bandwidth with every rank copying.
  double floor = 0;
  std::vector<Variant> variants;  // redist_tile, redist_scalapack, pdgemr2d, ...
  /// Suite-specific numbers, written into the case's JSON object as they are.
  std::vector<std::pair<std::string, double>> extra;
  std::vector<std::pair<std::string, std::string>> labels;
  const Variant* find(const std::string& n) const {
    for (const auto& v : variants)
      if (v.name == n && v.ran) return &v;
    return nullptr;
  }
  double get(const std::string& key) const {
    for (const auto& [k, v] : extra)
      if (k == key) return v;
    return NAN;
  }
};

inline long mismatches_of(const Result& r) {
  long bad = 0;
  for (const auto& v : r.variants) bad += v.mismatches;
  return bad;
}

inline double value_at(const Case& c, index_t i, index_t j) {
  return static_cast<double>(i) * static_cast<double>(c.N) + static_cast<double>(j);
}

template <class Matrix>
void fill_source(const Case& c, Matrix& a) {
  a.for_each_element([&](redist::ElementIndex e, double& v) { v = value_at(c, e.i, e.j); });
}
template <class Matrix>
void fill_sentinel(Matrix& b) {
  b.for_each_element([](redist::ElementIndex, double& v) { v = sentinel; });
}
/// Elements of the target that differ from the expected value, summed over ranks. The
/// region is the whole matrix here, so every element must equal the source.
template <class Matrix>
long count_mismatches(const mpi::communicator& comm, const Case& c, const Matrix& b) {
  long bad = 0;
  b.for_each_element([&](redist::ElementIndex e, double& v) { bad += v != value_at(c, e.i, e.j); });
  return mpi::all_reduce(comm, bad, std::plus<long>());
}

inline Shape shape_of(index_t M, index_t N, index_t mb, index_t nb) {
  return Shape{redist::UniformAxis<>(M, mb), redist::UniformAxis<>(N, nb)};
}
inline BcLayout source_layout(const Case& c) {
  return BcLayout{shape_of(c.M, c.N, c.mbs, c.nbs), redist::BlockCyclic(c.ps, c.qs)};
}
inline BcLayout target_layout(const Case& c) {
  return BcLayout{shape_of(c.M, c.N, c.mbt, c.nbt), redist::BlockCyclic(c.pt, c.qt)};
}

/// A block-cyclic case from the command line's ten numbers "M N mb nb Ps Qs mb nb Pt Qt"
/// (source tiles and grid, then the target's), as options_ab and setup_repeat take them.
/// @pre pos.size() == 10
inline Case case_of(const std::vector<std::string>& pos) {
  Case c;
  c.M = std::stoll(pos[0]), c.N = std::stoll(pos[1]);
  c.mbs = std::stoll(pos[2]), c.nbs = std::stoll(pos[3]);
  c.ps = std::stoi(pos[4]), c.qs = std::stoi(pos[5]);
  c.mbt = std::stoll(pos[6]), c.nbt = std::stoll(pos[7]);
  c.pt = std::stoi(pos[8]), c.qt = std::stoi(pos[9]);
  return c;
}

/// main() of a small bench program: MPI, then Kokkos, then run(argc, argv, comm). A
/// malformed argument or REDIST_* setting ends the run with its message on rank 0 and exit
/// status 2 (redist's errors are raised alike on every rank), not with std::terminate.
template <class Run>
int run_program(int argc, char** argv, const char* name, Run&& run) {
  mpi::environment env(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  mpi::communicator comm;
  try {
    return run(argc, argv, comm);
  } catch (const std::exception& e) {
    if (comm.rank() == 0) std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  }
}

/// Fills `st` from a built Redistributor (collective).
template <class R>
void collect_plan_stats(const mpi::communicator& comm, const R& r, Stats& st) {
  const redist::PlanStats& s = r.plan().stats;
  const double eb = sizeof(double);
  st.sent = static_cast<double>(s.elements_sent) * eb;
  st.received = static_cast<double>(s.elements_received) * eb;
  st.local = static_cast<double>(s.elements_local) * eb;
  st.remote_max = max_over(comm, std::max(st.sent, st.received));
  st.local_max = max_over(comm, st.local);
  st.sent_max = max_over(comm, st.sent);
  double largest = 0;
  for (const auto& m : r.plan().send.messages)
    largest = std::max(largest, static_cast<double>(m.elements) * eb);
  st.largest_message = max_over(comm, largest);
  st.messages = sum_over(comm, static_cast<double>(s.messages_sent));
  st.segments = sum_over(comm, static_cast<double>(s.segments_sent + s.segments_local));
  st.buffer_after = max_over(comm, static_cast<double>(r.buffer_bytes()));
  st.plan_elements = max_over(comm, static_cast<double>(s.buffer_elements) * eb);
  st.plan_memory = max_over(comm, static_cast<double>(r.plan().memory_bytes()));
  st.shared_window = r.execution_options().shared_window;
  st.chunk_bytes = static_cast<double>(r.execution_options().chunk_bytes);
}

/// Runs one redist variant: builds the Redistributor (timed as setup, with its peak memory),
/// verifies the first run, times `repeat` more, verifies again.
template <class Src, class Dst>
Variant run_redist(const mpi::communicator& comm, const Options& o, const Case& c,
                   const std::string& name, const Src& a, Dst& b, Stats* stats,
                   const redist::ExecutionOptions& exec = {}) {
  Variant v;
  v.name = name;
  v.ran = true;
  fill_sentinel(b);
  comm.barrier();
  const long pss0 = pss_kib();
  const PeakProbe probe;
  const double t0 = now();
  redist::Redistributor r(a, b, comm, redist::Region::whole({c.M, c.N}), {}, exec);
  const double setup = max_over(comm, now() - t0);
  const double setup_peak = probe.growth();
  const double before = static_cast<double>(r.buffer_bytes());
  r.redistribute();  // warm-up and the run that is verified
  v.peak_growth = max_over(comm, probe.growth());
  v.process_peak = max_over(comm, probe.absolute());
  const long pss1 = pss_kib();
  v.mismatches = count_mismatches(comm, c, b);
  v.timing = time_it(comm, o.repeat, [&] { r.redistribute(); });
  v.mismatches += count_mismatches(comm, c, b);
  if (stats) {
    Stats& st = *stats;
    collect_plan_stats(comm, r, st);
    st.measured_peak = v.peak_growth;
    st.process_peak = v.process_peak;
    st.setup_peak = max_over(comm, setup_peak);
    st.rss_before = max_over(comm, probe.rss0 * 1024.0);
    const double pss = pss0 >= 0 && pss1 >= 0 ? (pss1 - pss0) * 1024.0 : -1;
    st.measured_pss = max_over(comm, pss);
    st.plan_seconds = setup;
    st.buffer_bytes = max_over(comm, before);
  }
  return v;
}

template <class Matrix>
std::pair<double*, int> scalapack_storage(const Matrix& m) {
  static double dummy = 0;
  if (m.storage().tiles().empty()) return {&dummy, 1};
  const auto ref = m.tile_ref(m.storage().tiles().front());
  double* base = m.allocations()[0].data();
  return {base ? base : &dummy, static_cast<int>(ref.ld)};
}

/// Times ScaLAPACK's pdgemr2d on the local arrays of a and b (ScaLAPACK storage), with
/// the same fill, verification and repetitions as run_redist; records the peak RSS growth
/// of its first call (pdgemr2d allocates its buffers per call).
template <class Src, class Dst>
Variant run_pdgemr2d(const mpi::communicator& comm, const Options& o, const Case& c,
                     const std::string& name, const Src& a, Dst& b) {
  Variant v;
  v.name = name;
#if REDIST_HAVE_SCALAPACK
  v.ran = true;
  const int ctx_s = blacs_context(c.ps, c.qs), ctx_t = blacs_context(c.pt, c.qt);
  const int ctx_all = blacs_context(1, comm.size());
  const auto [pa, lda] = scalapack_storage(a);
  const auto [pb, ldb] = scalapack_storage(b);
  const int M = static_cast<int>(c.M), N = static_cast<int>(c.N), one = 1;
  const int desca[9] = {1, ctx_s, M,  N, static_cast<int>(c.mbs), static_cast<int>(c.nbs),
                        0, 0,     lda};
  const int descb[9] = {1, ctx_t, M,  N, static_cast<int>(c.mbt), static_cast<int>(c.nbt),
                        0, 0,     ldb};
  const auto call = [&] {
    pdgemr2d_(&M, &N, pa, &one, &one, desca, pb, &one, &one, descb, &ctx_all);
  };
  fill_sentinel(b);
  comm.barrier();
  const PeakProbe probe;
  call();
  v.peak_growth = max_over(comm, probe.growth());
  v.process_peak = max_over(comm, probe.absolute());
  v.mismatches = count_mismatches(comm, c, b);
  v.timing = time_it(comm, o.repeat, call);
  v.mismatches += count_mismatches(comm, c, b);
#else
  (void)comm, (void)o, (void)c, (void)a, (void)b;
#endif
  return v;
}

/// Which variants run_case runs, and how redist executes.
struct CaseVariants {
  bool tile = true;       ///< redist, TilePerAllocation storage
  bool scalapack = true;  ///< redist, ScalapackColumnMajor storage (+ pdgemr2d if enabled)
  bool shared = true;     ///< redist, node-shared source (+ pdgemr2d_shared), then node-shared
                          ///< target (redist_push), if o.shared
  redist::ExecutionOptions exec;
};

/// Runs one case: ScaLAPACK storage (redist and pdgemr2d on the same arrays), then tile
/// storage; fills, verifies and times each. Anchors and the Eq. (4) bound come last.
inline Result run_case(const mpi::communicator& comm, const Options& o, const Case& c,
                       const CaseVariants& which = {}) {
  Result res;
  res.c = c;
  // Plan statistics come from the tile variant when it runs, else from ScaLAPACK storage.
  Stats* scal_stats = which.tile ? nullptr : &res.stats;
  if (c.kind == Kind::block_cyclic) {
    const BcLayout ls = source_layout(c), lt = target_layout(c);
    if (which.scalapack) {
      ScalapackMatrix a(ls, {}, comm.rank());
      ScalapackMatrix b(lt, {}, comm.rank());
      fill_source(c, a);
      res.variants.push_back(
          run_redist(comm, o, c, "redist_scalapack", a, b, scal_stats, which.exec));
      if (o.scalapack) res.variants.push_back(run_pdgemr2d(comm, o, c, "pdgemr2d", a, b));
    }
    if (o.shared && which.shared) {
      // The same ScaLAPACK arrays, the source allocated node-shared (NodeSharedArray):
      // redist reads remote segments in place; pdgemr2d runs on these arrays too.
      auto a = redist::node_shared_matrix<double>(ls, ScalapackStorage{}, comm);
      ScalapackMatrix b(lt, {}, comm.rank());
      fill_source(c, a);
      res.variants.push_back(run_redist(comm, o, c, "redist_shared", a, b, nullptr, which.exec));
      if (o.scalapack) res.variants.push_back(run_pdgemr2d(comm, o, c, "pdgemr2d_shared", a, b));
    }
    if (o.shared && which.shared) {
      // A private source, the target node-shared: each rank writes its peers' pieces
      // straight into their targets (transport/push.hpp).
      ScalapackMatrix a(ls, {}, comm.rank());
      auto b = redist::node_shared_matrix<double>(lt, ScalapackStorage{}, comm);
      fill_source(c, a);
      res.variants.push_back(run_redist(comm, o, c, "redist_push", a, b, nullptr, which.exec));
    }
    if (which.tile) {
      TileMatrix a(ls, {}, comm.rank());
      TileMatrix b(lt, {}, comm.rank());
      fill_source(c, a);
      res.variants.insert(res.variants.begin(),
                          run_redist(comm, o, c, "redist_tile", a, b, &res.stats, which.exec));
    }
  } else {
    const Shape ss = shape_of(c.M, c.N, c.mbs, c.nbs), st = shape_of(c.M, c.N, c.mbt, c.nbt);
    const RandomLayout ls{ss, redist::RandomDistribution(comm.size(), 2873)};
    const RandomLayout lt{st, redist::RandomDistribution(comm.size(), 3872)};
    redist::TiledMatrix<double, RandomLayout, TileStorage> a(ls, {}, comm.rank());
    redist::TiledMatrix<double, RandomLayout, TileStorage> b(lt, {}, comm.rank());
    fill_source(c, a);
    res.variants.push_back(run_redist(comm, o, c, "redist_tile", a, b, &res.stats, which.exec));
  }

  // Anchors and Eq. (4): per rank M_remote/B_net + 2 M_remote/B_memcpy + M_local/B_memcpy.
  const double b_memcpy = b_memcpy_of_run(comm, o);
  res.b_memcpy = b_memcpy;
  res.b_net = measure_net(comm, static_cast<std::size_t>(res.stats.largest_message));
  const Stats& s = res.stats;
  const double remote = std::max(s.sent, s.received);
  const double mine =
      (std::isinf(res.b_net) ? 0 : remote / res.b_net) + 2 * remote / b_memcpy + s.local / b_memcpy;
  res.eq4 = max_over(comm, mine);
  res.floor = copy_floor(comm, s, b_memcpy, 1);
  return res;
}

// ---------------------------------------------------------------------------------------
// Output

inline double efficiency(const Result& r, const Variant* v) {
  return v ? 100.0 * r.eq4 / v->timing.median() : NAN;
}
/// The single-copy floor as a percentage of variant v's median time.
inline double floor_pct(const Result& r, const Variant* v) {
  return v && r.floor > 0 ? 100.0 * r.floor / v->timing.median() : NAN;
}
inline double bandwidth(const Result& r, const Variant* v) {  // Eq. (3), GB/s, at the median
  return v ? r.stats.remote_max / v->timing.median() / 1e9 : NAN;
}
/// pdgemr2d median / redist median (NaN unless both ran).
inline double speedup(const Variant* redist_variant, const Variant* baseline) {
  return redist_variant && baseline ? baseline->timing.median() / redist_variant->timing.median()
                                    : NAN;
}

inline std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

inline std::string med_best(const Variant* v) {
  if (!v) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f/%.4f", v->timing.median(), v->timing.best());
  return buf;
}

inline void write_json(std::ostream& os, const Result& r) {
  const auto& c = r.c;
  const auto& s = r.stats;
  os << "    {\"suite\": \"" << c.suite << "\", \"name\": " << json_string(c.name)
     << ", \"M\": " << c.M << ", \"N\": " << c.N << ", \"src_tile\": [" << c.mbs << ", " << c.nbs
     << "], \"src_grid\": [" << c.ps << ", " << c.qs << "], \"dst_tile\": [" << c.mbt << ", "
     << c.nbt << "], \"dst_grid\": [" << c.pt << ", " << c.qt << "], \"distribution\": \""
     << (c.kind == Kind::random ? "random" : "block_cyclic") << "\", \"category\": " << c.category
     << ", \"message_bytes\": " << json_number(c.message_bytes);
  if (!c.series.empty()) os << ", \"series\": " << json_string(c.series);
  os << ",\n"
     << "     \"remote_bytes_max\": " << json_number(s.remote_max)
     << ", \"local_bytes_max\": " << json_number(s.local_max)
     << ", \"sent_bytes_max\": " << json_number(s.sent_max)
     << ", \"largest_message_bytes\": " << json_number(s.largest_message)
     << ", \"messages\": " << json_number(s.messages)
     << ", \"segments\": " << json_number(s.segments)
     << ", \"buffer_bytes\": " << json_number(s.buffer_bytes)
     << ", \"plan_buffer_bytes\": " << json_number(s.plan_elements)
     << ", \"buffer_bytes_after_run\": " << json_number(s.buffer_after)
     << ", \"plan_memory_bytes\": " << json_number(s.plan_memory)
     << ", \"measured_peak_bytes\": " << json_number(s.measured_peak)
     << ", \"measured_pss_bytes\": " << json_number(s.measured_pss)
     << ", \"setup_peak_bytes\": " << json_number(s.setup_peak)
     << ", \"process_peak_bytes\": " << json_number(s.process_peak)
     << ", \"rss_before_bytes\": " << json_number(s.rss_before)
     << ", \"setup_seconds\": " << json_number(s.plan_seconds)
     << ", \"shared_window\": " << (s.shared_window ? "true" : "false")
     << ", \"chunk_bytes\": " << json_number(s.chunk_bytes) << ",\n"
     << "     \"b_memcpy\": " << json_number(r.b_memcpy) << ", \"b_net\": " << json_number(r.b_net)
     << ", \"eq4_seconds\": " << json_number(r.eq4)
     << ", \"single_copy_floor_seconds\": " << json_number(r.floor);
  for (const auto& [k, v] : r.labels) os << ", \"" << k << "\": " << json_string(v);
  for (const auto& [k, v] : r.extra) os << ", \"" << k << "\": " << json_number(v);
  os << ",\n     \"variants\": {";
  bool first = true;
  for (const auto& v : r.variants) {
    if (!v.ran) continue;
    os << (first ? "" : ",") << "\n       \"" << v.name
       << "\": {\"median\": " << json_number(v.timing.median())
       << ", \"best\": " << json_number(v.timing.best())
       << ", \"bandwidth_gbs\": " << json_number(bandwidth(r, &v))
       << ", \"efficiency_pct\": " << json_number(efficiency(r, &v))
       << ", \"floor_pct\": " << json_number(floor_pct(r, &v))
       << ", \"peak_growth_bytes\": " << json_number(v.peak_growth)
       << ", \"process_peak_bytes\": " << json_number(v.process_peak)
       << ", \"mismatches\": " << v.mismatches << ", \"times\": [";
    for (std::size_t k = 0; k < v.timing.times.size(); ++k)
      os << (k ? ", " : "") << json_number(v.timing.times[k]);
    os << "]}";
    first = false;
  }
  os << "}}";
}

// ---------------------------------------------------------------------------------------
// Suites (redist-bench.cpp, suites_*.cpp)

/// What one run of redist-bench collects: the cases (the JSON's "cases" array) and
/// suite-level objects ("small_blocks", "threads", ... written as top-level keys).
struct Report {
  std::vector<Result> results;
  std::vector<std::pair<std::string, std::string>> sections;  ///< key, JSON value
  long mismatches = 0;
  void add(Result r) {
    mismatches += mismatches_of(r);
    results.push_back(std::move(r));
  }
};

/// true when `name` passes --case PREFIX.
inline bool selected(const Options& o, const std::string& name) {
  return o.only.empty() || name.compare(0, o.only.size(), o.only) == 0;
}

/// The standard cases a-d (2 ranks): 8192² (1024² with --quick) unless noted.
inline std::vector<Case> standard_cases(const Options& o) {
  const index_t n = o.quick ? 1024 : 8192;
  std::vector<Case> v;
  const auto add = [&](std::string name, index_t M, index_t N, index_t mbs, index_t nbs, int ps,
                       int qs, index_t mbt, index_t nbt, int pt, int qt) {
    Case c;
    c.suite = "standard";
    c.name = std::move(name);
    c.M = M, c.N = N, c.mbs = mbs, c.nbs = nbs, c.ps = ps, c.qs = qs;
    c.mbt = mbt, c.nbt = nbt, c.pt = pt, c.qt = qt;
    c.message_bytes = static_cast<double>(mbs * nbs * 8);
    v.push_back(c);
  };
  add("a 256@1x2->100@2x1", n, n, 256, 256, 1, 2, 100, 100, 2, 1);
  add("b 64@2x1->64@1x2", n, n, 64, 64, 2, 1, 64, 64, 1, 2);
  add("c 1024@2x1->32@2x1", n, n, 1024, 1024, 2, 1, 32, 32, 2, 1);
  if (o.quick)
    add("d 128x96@2x1->100x70@1x2", 500, 750, 128, 96, 2, 1, 100, 70, 1, 2);
  else
    add("d 128x96@2x1->100x70@1x2", 4000, 6000, 128, 96, 2, 1, 100, 70, 1, 2);
  return v;
}

void suite_small_blocks(const mpi::communicator& comm, const Options& o, Report& report);
void suite_threads(const mpi::communicator& comm, const Options& o, Report& report);
void suite_network(const mpi::communicator& comm, const Options& o, Report& report);
void suite_overlap(const mpi::communicator& comm, const Options& o, Report& report);
void suite_phase_change(const mpi::communicator& comm, const Options& o, Report& report);
void suite_transform(const mpi::communicator& comm, const Options& o, Report& report);
void suite_parts(const mpi::communicator& comm, const Options& o, Report& report);
void suite_cross_memory(const mpi::communicator& comm, const Options& o, Report& report);

}  // namespace bench
