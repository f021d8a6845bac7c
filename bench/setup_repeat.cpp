/// @file bench/setup_repeat.cpp
/// A Redistributor's set-up, built K times over the same matrices in one process: the first
/// build (what `redist-run` reports: first touches of the program's memory, the node window
/// made) and the median of the others (planning and wiring alone), each the maximum over
/// ranks. Block-cyclic matrices in ScaLAPACK storage or a tile per allocation.
///
///   mpirun -np P build/bench/setup_repeat M N mb nb Ps Qs mb nb Pt Qt \
///       [--builds K] [--storage scalapack|tile] [--heap default|kept] [--warm-up M0]
///
/// Prints one line: first build, then the medians of plan, wiring, buffers and their sum,
/// in milliseconds (Redistributor::set_up_times, set_up_times.hpp), and the page faults of
/// a build (the median; max over ranks). The first build's page faults are shown beside
/// what a fresh page costs this process (one byte written into each of 1024 new pages, the
/// median of 5, measured before the builds): a first build touches its tables' pages for
/// the first time, and on a VM whose memory is slow to hand out a fresh page can cost tens
/// of times what it does on bare metal (bench/README.md, "The first build's fresh pages"). A
/// fault count is exact where times are noisy, so it also compares two versions' memory. `--heap
/// kept` stops glibc from trimming its heap and from mapping blocks below 32 MiB apart, as the
/// GLIBC_TUNABLES line of docs/cost-model.md does: then builds after the first reuse the pages of
/// the one before, and an A/B of set-up work is not decided by where the heap's top happened to end
/// (bench/README.md, "Repeated set-ups and glibc's heap"). `--warm-up M0` builds once over
/// M0 x M0 matrices of the same tiles and grids first: the first build then pays what grows
/// with the matrix (fresh pages of its tables), not the program's own first runs (its code,
/// MPI's first shared window).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <malloc.h>
#include <string>
#include <vector>

#include <redist/detail/populate_pages.hpp>

#include "bench.hpp"
#include <sys/mman.h>
#include <sys/resource.h>

namespace {

using namespace bench;

struct Builds {
  double first = 0, first_faults = 0;
  std::vector<double> plan, wiring, buffers, total, faults;
};

/// Minor page faults of this process so far.
double minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_minflt);
}

/// Seconds to write one byte into a page this process has not touched: 1024 pages of a new
/// mapping, the median of 5 such mappings.
double fresh_page_seconds() {
  constexpr std::size_t pages = 1024;
  const std::size_t page = redist::detail::page_bytes();
  std::vector<double> t;
  for (int k = 0; k < 5; ++k) {
    void* m =
        ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 0;
    auto* p = static_cast<volatile char*>(m);
    const double t0 = now();
    for (std::size_t i = 0; i < pages; ++i) p[i * page] = 1;
    t.push_back((now() - t0) / pages);
    ::munmap(m, pages * page);
  }
  return median_of(t);
}

template <class Matrix>
Builds build_repeatedly(const mpi::communicator& comm, const Case& c, int builds) {
  const Matrix src(source_layout(c), {}, comm.rank());
  Matrix dst(target_layout(c), {}, comm.rank());
  Builds out;
  for (int k = 0; k < builds; ++k) {
    comm.barrier();
    const double before = minor_faults();
    const redist::Redistributor<Matrix, Matrix> r(src, dst, comm,
                                                  redist::Region::whole({c.M, c.N}));
    const redist::SetUpTimes& t = r.set_up_times();
    const double mine[4] = {t.plan, t.wiring, t.buffers, minor_faults() - before};
    double most[4];
    mpi::all_reduce(comm, mine, 4, most, mpi::maximum<double>());
    if (k == 0) {
      out.first = most[0] + most[1];
      out.first_faults = most[3];
      continue;
    }
    out.plan.push_back(most[0]);
    out.wiring.push_back(most[1]);
    out.buffers.push_back(most[2]);
    out.total.push_back(most[0] + most[1]);
    out.faults.push_back(most[3]);
  }
  return out;
}

int run(int argc, char** argv, const mpi::communicator& comm) {
  std::vector<std::string> pos;
  std::string storage = "tile", heap = "default";
  int builds = 9;
  long long warm_up = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if ((k == "--builds" || k == "--storage" || k == "--heap" || k == "--warm-up") &&
        i + 1 < argc) {
      const std::string v = argv[++i];
      if (k == "--builds") builds = std::stoi(v);
      if (k == "--warm-up") warm_up = std::stoll(v);
      if (k == "--storage") storage = v;
      if (k == "--heap") heap = v;
    } else {
      pos.push_back(k);
    }
  }
  if (pos.size() != 10 || builds < 2 || (storage != "scalapack" && storage != "tile") ||
      (heap != "default" && heap != "kept") || warm_up < 0) {
    if (comm.rank() == 0)
      std::fprintf(stderr,
                   "usage: setup_repeat M N mb nb Ps Qs mb nb Pt Qt [--builds K >= 2] "
                   "[--storage scalapack|tile] [--heap default|kept] [--warm-up M0 >= 1]\n");
    return 2;
  }
  if (heap == "kept") {
    // Before the matrices and the first build: nothing trimmed, blocks below 32 MiB on the heap.
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
  }
  const Case c = case_of(pos);
  const double page_cost = mpi::all_reduce(comm, fresh_page_seconds(), mpi::maximum<double>());
  if (warm_up > 0) {
    Case small = c;
    small.M = small.N = warm_up;
    if (storage == "tile")
      build_repeatedly<TileMatrix>(comm, small, 1);
    else
      build_repeatedly<ScalapackMatrix>(comm, small, 1);
  }
  const Builds b = storage == "tile" ? build_repeatedly<TileMatrix>(comm, c, builds)
                                     : build_repeatedly<ScalapackMatrix>(comm, c, builds);
  if (comm.rank() == 0)
    std::printf(
        "setup_repeat: %lld x %lld, %lldx%lld %dx%d -> %lldx%lld %dx%d, %s storage, %d ranks: "
        "first %.2f ms%s, %.0f page faults (a fresh page %.1f us); median of %d: plan %.2f, wiring "
        "%.2f (buffers %.2f), total %.2f ms, "
        "%.0f page faults (%s heap)\n",
        static_cast<long long>(c.M), static_cast<long long>(c.N), static_cast<long long>(c.mbs),
        static_cast<long long>(c.nbs), c.ps, c.qs, static_cast<long long>(c.mbt),
        static_cast<long long>(c.nbt), c.pt, c.qt, storage.c_str(), comm.size(), 1e3 * b.first,
        warm_up > 0 ? " (after a warm-up)" : "", b.first_faults, 1e6 * page_cost, builds - 1,
        1e3 * median_of(b.plan), 1e3 * median_of(b.wiring), 1e3 * median_of(b.buffers),
        1e3 * median_of(b.total), median_of(b.faults), heap.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_program(argc, argv, "setup_repeat", run); }
