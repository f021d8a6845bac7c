/// @file bench/redist-bench.cpp
/// redist-bench: times redist against ScaLAPACK's pdgemr2d on the same data, checks every
/// element, and compares the achieved time with the papers' cost model
/// (papers/cao2021-*.txt section 7.2, Eq. (3) and (4)), measured on this machine.
///
///   mpirun -np 2 ./redist-bench --suite standard --json standard.json
///
/// Suites: standard (four fixed cases), categories (Fig. 9), scatter-gather (Fig. 10/11),
/// random (Fig. 12), plan-scaling (planning cost of one rank), all. See bench/README.md.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <mpi.h>

#include <redist/redist.hpp>

#include <sys/resource.h>

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

namespace {

namespace mpi = boost::mpi;
using redist::index_t;
using Shape = redist::Tiling<redist::UniformAxis<>, redist::UniformAxis<>>;
using BcLayout = redist::Layout<Shape, redist::BlockCyclic>;
using RandomLayout = redist::Layout<Shape, redist::RandomDistribution>;

constexpr double sentinel = -1.0;

// ---------------------------------------------------------------------------------------
// Options, clock, small statistics

struct Options {
  std::string suite = "standard";
  std::string json;
  int repeat = 10;
  bool quick = false;
  bool scalapack = true;
  bool shared = true;  ///< also run with the source in node-shared memory
  std::string only;    ///< run only the cases whose name starts with this
};

double now() { return MPI_Wtime(); }

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

/// Times f() `repeat` times after `warmup` untimed calls: barrier, run, max over ranks.
template <class F>
Timing time_it(const mpi::communicator& comm, int repeat, F&& f, int warmup = 0) {
  for (int k = 0; k < warmup; ++k) f();
  Timing t;
  for (int k = 0; k < repeat; ++k) {
    comm.barrier();
    const double t0 = now();
    f();
    const double dt = now() - t0;
    t.times.push_back(mpi::all_reduce(comm, dt, mpi::maximum<double>()));
  }
  return t;
}

// ---------------------------------------------------------------------------------------
// Memory: resident set now, and the peak since the last reset (Linux).

long status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n + 1);
  return -1;
}
/// Proportional set size (shared pages split among the processes mapping them), KiB.
long pss_kib() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, 4, "Pss:") == 0) return std::atol(line.c_str() + 4);
  return -1;
}
/// Resets VmHWM to the current RSS; false where the kernel does not allow it.
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

// ---------------------------------------------------------------------------------------
// Machine anchors (papers/cao2021-*.txt section 8.1: B_net, B_memcpy)

/// memcpy bandwidth of one rank while every rank copies at once, bytes/s (best of 10).
double measure_memcpy(const mpi::communicator& comm, std::size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
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

/// Two-way point-to-point bandwidth between ranks 0 and 1 at message size `bytes`: both
/// send to each other at once (isend + irecv); bytes/s per direction, best of several.
double measure_net(const mpi::communicator& comm, std::size_t bytes) {
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

// ---------------------------------------------------------------------------------------
// BLACS / ScaLAPACK

#if REDIST_HAVE_SCALAPACK
/// BLACS context of a P x Q grid with redist::BlockCyclic's rank order (row-major), or
/// -1 on ranks outside it. Cached: BLACS grids are collective to create.
int blacs_context(int P, int Q) {
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
};

struct Stats {
  double sent = 0, received = 0, local = 0;  ///< bytes of this rank
  double remote_max = 0;                     ///< max over ranks of max(sent, received)
  double local_max = 0;
  double largest_message = 0;  ///< bytes, max over ranks
  double messages = 0, segments = 0;
  double buffer_bytes = 0;    ///< Executor::buffer_bytes, max over ranks
  double plan_elements = 0;   ///< PlanStats::buffer_elements * 8, max over ranks
  double measured_peak = -1;  ///< peak RSS growth during setup + first run, max over ranks
  double measured_pss = -1;   ///< PSS growth from before setup to after the first run, max
  double buffer_after = 0;    ///< Executor::buffer_bytes after the first run, max over ranks
  double plan_memory = 0;     ///< Plan::memory_bytes, max over ranks
  double plan_seconds = 0;    ///< Redistributor construction (plan + graph + buffers)
};

struct Variant {
  std::string name;
  Timing timing;
  long mismatches = 0;
  bool ran = false;
};

struct Result {
  Case c;
  Stats stats;
  double b_memcpy = 0, b_net = 0, eq4 = 0;
  std::vector<Variant> variants;  // redist_tile, redist_scalapack, pdgemr2d
  const Variant* find(const std::string& n) const {
    for (const auto& v : variants)
      if (v.name == n && v.ran) return &v;
    return nullptr;
  }
};

double value_at(const Case& c, index_t i, index_t j) {
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

Shape shape_of(index_t M, index_t N, index_t mb, index_t nb) {
  return Shape{redist::UniformAxis<>(M, mb), redist::UniformAxis<>(N, nb)};
}

/// Runs one redist variant: builds the Redistributor (timed as setup, with its peak memory),
/// verifies the first run, times `repeat` more, verifies again.
template <class Src, class Dst>
Variant run_redist(const mpi::communicator& comm, const Options& o, const Case& c,
                   const std::string& name, const Src& a, Dst& b, Stats* stats) {
  Variant v;
  v.name = name;
  v.ran = true;
  fill_sentinel(b);
  comm.barrier();
  const long rss0 = status_kib("VmRSS:");
  const long pss0 = pss_kib();
  const bool peak_ok = reset_peak_rss();
  const double t0 = now();
  redist::Redistributor r(a, b, comm);
  const double before = static_cast<double>(r.buffer_bytes());
  const double setup = mpi::all_reduce(comm, now() - t0, mpi::maximum<double>());
  r.redistribute();  // warm-up and the run that is verified
  const long peak = status_kib("VmHWM:");
  const long pss1 = pss_kib();
  v.mismatches = count_mismatches(comm, c, b);
  v.timing = time_it(comm, o.repeat, [&] { r.redistribute(); });
  v.mismatches += count_mismatches(comm, c, b);
  if (stats) {
    const redist::PlanStats& s = r.plan().stats;
    const double eb = sizeof(double);
    Stats& st = *stats;
    st.sent = static_cast<double>(s.elements_sent) * eb;
    st.received = static_cast<double>(s.elements_received) * eb;
    st.local = static_cast<double>(s.elements_local) * eb;
    st.remote_max = mpi::all_reduce(comm, std::max(st.sent, st.received), mpi::maximum<double>());
    st.local_max = mpi::all_reduce(comm, st.local, mpi::maximum<double>());
    double largest = 0;
    for (const auto& m : r.plan().send.messages)
      largest = std::max(largest, static_cast<double>(m.elements) * eb);
    st.largest_message = mpi::all_reduce(comm, largest, mpi::maximum<double>());
    st.messages = mpi::all_reduce(comm, static_cast<double>(s.messages_sent), std::plus<double>());
    st.segments = mpi::all_reduce(comm, static_cast<double>(s.segments_sent + s.segments_local),
                                  std::plus<double>());
    st.buffer_after =
        mpi::all_reduce(comm, static_cast<double>(r.buffer_bytes()), mpi::maximum<double>());
    st.plan_elements =
        mpi::all_reduce(comm, static_cast<double>(s.buffer_elements) * eb, mpi::maximum<double>());
    const double grown = peak_ok && rss0 >= 0 && peak >= 0 ? (peak - rss0) * 1024.0 : -1;
    st.measured_peak = mpi::all_reduce(comm, grown, mpi::maximum<double>());
    const double pss = pss0 >= 0 && pss1 >= 0 ? (pss1 - pss0) * 1024.0 : -1;
    st.measured_pss = mpi::all_reduce(comm, pss, mpi::maximum<double>());
    st.plan_memory =
        mpi::all_reduce(comm, static_cast<double>(r.plan().memory_bytes()), mpi::maximum<double>());
    st.plan_seconds = setup;
    st.buffer_bytes = mpi::all_reduce(comm, before, mpi::maximum<double>());
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
/// the same fill, verification and repetitions as run_redist.
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
  call();
  v.mismatches = count_mismatches(comm, c, b);
  v.timing = time_it(comm, o.repeat, call);
  v.mismatches += count_mismatches(comm, c, b);
#else
  (void)comm, (void)o, (void)c, (void)a, (void)b;
#endif
  return v;
}

/// Runs one case: ScaLAPACK storage (redist and pdgemr2d on the same arrays), then tile
/// storage; fills, verifies and times each. Anchors and the Eq. (4) bound come last.
Result run_case(const mpi::communicator& comm, const Options& o, const Case& c) {
  Result res;
  res.c = c;
  const Shape ss = shape_of(c.M, c.N, c.mbs, c.nbs), st = shape_of(c.M, c.N, c.mbt, c.nbt);
  if (c.kind == Kind::block_cyclic) {
    const BcLayout ls{ss, redist::BlockCyclic(c.ps, c.qs)}, lt{st, redist::BlockCyclic(c.pt, c.qt)};
    using Storage = redist::ScalapackColumnMajor<>;
    {
      redist::TiledMatrix<double, BcLayout, Storage> a(ls, {}, comm.rank());
      redist::TiledMatrix<double, BcLayout, Storage> b(lt, {}, comm.rank());
      fill_source(c, a);
      res.variants.push_back(run_redist(comm, o, c, "redist_scalapack", a, b, nullptr));
      if (o.scalapack) res.variants.push_back(run_pdgemr2d(comm, o, c, "pdgemr2d", a, b));
    }
    if (o.shared) {
      // The same ScaLAPACK arrays, the source allocated node-shared (NodeSharedArray):
      // redist reads remote segments in place; pdgemr2d runs on these arrays too.
      auto a = redist::node_shared_matrix<double>(ls, Storage{}, comm);
      redist::TiledMatrix<double, BcLayout, Storage> b(lt, {}, comm.rank());
      fill_source(c, a);
      res.variants.push_back(run_redist(comm, o, c, "redist_shared", a, b, nullptr));
      if (o.scalapack) res.variants.push_back(run_pdgemr2d(comm, o, c, "pdgemr2d_shared", a, b));
    }
    {
      using Storage = redist::TilePerAllocation<>;
      redist::TiledMatrix<double, BcLayout, Storage> a(ls, {}, comm.rank());
      redist::TiledMatrix<double, BcLayout, Storage> b(lt, {}, comm.rank());
      fill_source(c, a);
      res.variants.insert(res.variants.begin(),
                          run_redist(comm, o, c, "redist_tile", a, b, &res.stats));
    }
  } else {
    const RandomLayout ls{ss, redist::RandomDistribution(comm.size(), 2873)};
    const RandomLayout lt{st, redist::RandomDistribution(comm.size(), 3872)};
    using Storage = redist::TilePerAllocation<>;
    redist::TiledMatrix<double, RandomLayout, Storage> a(ls, {}, comm.rank());
    redist::TiledMatrix<double, RandomLayout, Storage> b(lt, {}, comm.rank());
    fill_source(c, a);
    res.variants.push_back(run_redist(comm, o, c, "redist_tile", a, b, &res.stats));
  }

  // Anchors and Eq. (4): per rank M_remote/B_net + 2 M_remote/B_memcpy + M_local/B_memcpy.
  static double b_memcpy = 0;
  if (b_memcpy == 0)
    b_memcpy = measure_memcpy(comm, o.quick ? (std::size_t{64} << 20) : (std::size_t{256} << 20));
  res.b_memcpy = b_memcpy;
  res.b_net = measure_net(comm, static_cast<std::size_t>(res.stats.largest_message));
  const Stats& s = res.stats;
  const double remote = std::max(s.sent, s.received);
  const double mine =
      (std::isinf(res.b_net) ? 0 : remote / res.b_net) + 2 * remote / b_memcpy + s.local / b_memcpy;
  res.eq4 = mpi::all_reduce(comm, mine, mpi::maximum<double>());
  return res;
}

// ---------------------------------------------------------------------------------------
// Output

double efficiency(const Result& r, const Variant* v) {
  return v ? 100.0 * r.eq4 / v->timing.median() : NAN;
}
double bandwidth(const Result& r, const Variant* v) {  // Eq. (3), GB/s, at the median
  return v ? r.stats.remote_max / v->timing.median() / 1e9 : NAN;
}

void print_header(const std::string& suite) {
  std::printf("\n== suite %s ==\n", suite.c_str());
  std::printf("%-26s %17s %17s %17s %17s %6s %6s %6s %7s %7s %7s %8s %6s %6s %6s %s\n", "case",
              "tile med/best s", "scal med/best s", "shm med/best s", "pdgemr2d med/best", "spd-t",
              "spd-s", "spd-m", "GB/s-t", "GB/s-s", "GB/s-m", "Eq4 s", "eff-t%", "eff-s%", "eff-m%",
              "check");
}

std::string med_best(const Variant* v) {
  if (!v) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f/%.4f", v->timing.median(), v->timing.best());
  return buf;
}

void print_row(const Result& r) {
  const Variant* t = r.find("redist_tile");
  const Variant* s = r.find("redist_scalapack");
  const Variant* m = r.find("redist_shared");
  const Variant* p = r.find("pdgemr2d");
  const Variant* pm = r.find("pdgemr2d_shared");
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
    const Stats& m = r.stats;
    std::printf(
        "    memory/rank: buffers reported %.1f MiB before run (plan: %.1f MiB without the shared "
        "window), %.1f MiB held after; measured PSS +%.1f MiB, peak RSS +%.1f MiB; plan %.2f MiB\n",
        m.buffer_bytes / 1048576, m.plan_elements / 1048576, m.buffer_after / 1048576,
        m.measured_pss / 1048576, m.measured_peak / 1048576, m.plan_memory / 1048576);
  }
  std::fflush(stdout);
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

void write_json(std::ostream& os, const Result& r) {
  const auto& c = r.c;
  const auto& s = r.stats;
  os << "    {\"suite\": \"" << c.suite << "\", \"name\": \"" << c.name << "\", \"M\": " << c.M
     << ", \"N\": " << c.N << ", \"src_tile\": [" << c.mbs << ", " << c.nbs << "], \"src_grid\": ["
     << c.ps << ", " << c.qs << "], \"dst_tile\": [" << c.mbt << ", " << c.nbt
     << "], \"dst_grid\": [" << c.pt << ", " << c.qt << "], \"distribution\": \""
     << (c.kind == Kind::random ? "random" : "block_cyclic") << "\", \"category\": " << c.category
     << ", \"message_bytes\": " << json_number(c.message_bytes) << ",\n"
     << "     \"remote_bytes_max\": " << json_number(s.remote_max)
     << ", \"local_bytes_max\": " << json_number(s.local_max)
     << ", \"largest_message_bytes\": " << json_number(s.largest_message)
     << ", \"messages\": " << json_number(s.messages)
     << ", \"segments\": " << json_number(s.segments)
     << ", \"buffer_bytes\": " << json_number(s.buffer_bytes)
     << ", \"plan_buffer_bytes\": " << json_number(s.plan_elements)
     << ", \"buffer_bytes_after_run\": " << json_number(s.buffer_after)
     << ", \"plan_memory_bytes\": " << json_number(s.plan_memory)
     << ", \"measured_peak_bytes\": " << json_number(s.measured_peak)
     << ", \"measured_pss_bytes\": " << json_number(s.measured_pss)
     << ", \"setup_seconds\": " << json_number(s.plan_seconds) << ",\n"
     << "     \"b_memcpy\": " << json_number(r.b_memcpy) << ", \"b_net\": " << json_number(r.b_net)
     << ", \"eq4_seconds\": " << json_number(r.eq4) << ",\n     \"variants\": {";
  bool first = true;
  for (const auto& v : r.variants) {
    if (!v.ran) continue;
    os << (first ? "" : ",") << "\n       \"" << v.name
       << "\": {\"median\": " << json_number(v.timing.median())
       << ", \"best\": " << json_number(v.timing.best())
       << ", \"bandwidth_gbs\": " << json_number(bandwidth(r, &v))
       << ", \"efficiency_pct\": " << json_number(efficiency(r, &v))
       << ", \"mismatches\": " << v.mismatches << ", \"times\": [";
    for (std::size_t k = 0; k < v.timing.times.size(); ++k)
      os << (k ? ", " : "") << json_number(v.timing.times[k]);
    os << "]}";
    first = false;
  }
  os << "}}";
}

// ---------------------------------------------------------------------------------------
// Suites

/// A P x Q grid of `size` ranks as square as possible (P <= Q).
std::pair<int, int> square_grid(int size) {
  int p = static_cast<int>(std::sqrt(static_cast<double>(size)));
  while (size % p) --p;
  return {p, size / p};
}

std::vector<Case> standard_cases(const Options& o) {
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
/// Strong: 10^6 x 10^6 on more and more ranks (the rank's tiles shrink). Weak: the rank
/// keeps 128 x 128 tiles while the matrix grows to 10^6 x 10^6 (global tiles grow 16384x).
void plan_scaling(const mpi::communicator& comm, const Options& o, std::ostream* json) {
  struct Row {
    std::string series;
    index_t M;
    int ranks;
    double seconds, memory, segments, own_tiles, global_tiles;
  };
  std::vector<Row> rows;
  if (comm.rank() == 0) {
    const auto one = [&](const std::string& series, index_t M, int ranks) {
      const auto [P, Q] = square_grid(ranks);
      const BcLayout src{shape_of(M, M, 64, 64), redist::BlockCyclic(P, Q)};
      const BcLayout dst{shape_of(M, M, 100, 100),
                         redist::BlockCyclic(Q, P, 1, 1, {Q > 1 ? 1 : 0, 0})};
      double best = 1e30;
      std::size_t mem = 0;
      index_t segs = 0;
      for (int k = 0; k < (o.quick ? 1 : 3); ++k) {
        const double t0 = now();
        const redist::Plan plan =
            redist::make_plan(src, dst, redist::Region::whole({M, M}), 0, ranks);
        best = std::min(best, now() - t0);
        mem = plan.memory_bytes();
        segs = plan.stats.segments_sent + plan.stats.segments_received + plan.stats.segments_local;
      }
      const double tiles =
          static_cast<double>(src.tiles().rows) * static_cast<double>(src.tiles().cols);
      rows.push_back({series, M, ranks, best, static_cast<double>(mem), static_cast<double>(segs),
                      tiles / ranks, tiles});
    };
    const index_t huge = 1000000;
    for (int r : (o.quick ? std::vector<int>{4096, 16384}
                          : std::vector<int>{1024, 2048, 4096, 8192, 16384}))
      one("strong", huge, r);
    for (int s = 1; s <= (o.quick ? 32 : 128); s *= 2) one("weak", 64 * 128 * s, s * s);
    std::printf("\n== suite plan-scaling (rank 0 of R virtual ranks, 64x64 -> 100x100 tiles) ==\n");
    std::printf("%-7s %10s %7s %14s %12s %12s %10s %12s %12s\n", "series", "M=N", "ranks",
                "global tiles", "own tiles", "segments", "plan s", "plan MiB", "ns/segment");
    for (const auto& r : rows)
      std::printf("%-7s %10ld %7d %14.0f %12.0f %12.0f %10.4f %12.2f %12.1f\n", r.series.c_str(),
                  static_cast<long>(r.M), r.ranks, r.global_tiles, r.own_tiles, r.segments,
                  r.seconds, r.memory / 1048576.0, 1e9 * r.seconds / std::max(1.0, r.segments));
    std::fflush(stdout);
    if (json) {
      *json << "  \"plan_scaling\": [";
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& r = rows[k];
        *json << (k ? "," : "") << "\n    {\"series\": \"" << r.series << "\", \"M\": " << r.M
              << ", \"ranks\": " << r.ranks << ", \"global_tiles\": " << json_number(r.global_tiles)
              << ", \"own_tiles\": " << json_number(r.own_tiles)
              << ", \"segments\": " << json_number(r.segments)
              << ", \"plan_seconds\": " << json_number(r.seconds)
              << ", \"plan_memory_bytes\": " << json_number(r.memory) << "}";
      }
      *json << "\n  ],\n";
    }
  }
  comm.barrier();
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--suite standard|categories|scatter-gather|random|plan-scaling|all]\n"
               "          [--json FILE] [--repeat N] [--quick] [--no-scalapack] [--no-shared]\n"
               "          [--case PREFIX]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
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
  const std::vector<std::string> known{"standard", "categories",   "scatter-gather",
                                       "random",   "plan-scaling", "all"};
  if (std::find(known.begin(), known.end(), o.suite) == known.end())
    return world.rank() == 0 ? usage(argv[0]) : 2;

  std::ostringstream json;
  const bool root = world.rank() == 0;
  if (root) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    json << "{\n  \"benchmark\": \"redist-bench\", \"suite\": \"" << o.suite
         << "\", \"ranks\": " << world.size() << ", \"repeat\": " << o.repeat
         << ", \"quick\": " << (o.quick ? "true" : "false") << ", \"host\": \"" << host
         << "\", \"cores\": " << sysconf(_SC_NPROCESSORS_ONLN) << ", \"loadavg_start\": ["
         << load[0] << ", " << load[1] << ", " << load[2] << "],\n";
  }
  if (all || o.suite == "plan-scaling") plan_scaling(world, o, root ? &json : nullptr);

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

  long bad = 0;
  std::vector<Result> results;
  for (const auto& [name, cases] : suites) {
    if (root) print_header(name);
    for (const Case& c : cases) {
      if (!o.only.empty() && c.name.compare(0, o.only.size(), o.only) != 0) continue;
      results.push_back(run_case(world, o, c));
      for (const auto& v : results.back().variants) bad += v.mismatches;
      if (root) print_row(results.back());
    }
  }
  if (root && !results.empty())
    std::printf("\nB_memcpy = %.2f GB/s per rank (all ranks copying); mismatches: %ld\n",
                results.front().b_memcpy / 1e9, bad);
  if (root && !o.json.empty()) {
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    json << "  \"loadavg_end\": [" << load[0] << ", " << load[1] << ", " << load[2] << "],\n";
    json << "  \"cases\": [\n";
    for (std::size_t k = 0; k < results.size(); ++k) {
      write_json(json, results[k]);
      json << (k + 1 < results.size() ? ",\n" : "\n");
    }
    json << "  ],\n  \"mismatches\": " << bad << "\n}\n";
    std::ofstream(o.json) << json.str();
  }
  return bad != 0 ? 1 : 0;
}
