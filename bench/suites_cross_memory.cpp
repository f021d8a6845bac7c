/// @file bench/suites_cross_memory.cpp
/// Suite cross-memory (issue 22; 2 ranks on one node): what reading a peer's memory
/// through the kernel (process_vm_readv, transport/cross_memory_io.hpp) costs, and what
/// the cross-memory transport makes of it on the standard cases.
///
/// 1. The kernel's gather against memcpy, by piece size: rank 1 reads every other piece
///    of a 128 MiB array of rank 0's (as a block-cyclic row split reads a column), with
///    one process_vm_readv per IOV_MAX pieces; memcpy moves the same pieces in rank 1.
/// 2. Cases a-d, ScaLAPACK storage on both sides (private memory), side by side in one
///    run: redist through the node window (pack, unpack), redist cross-memory (forced),
///    pdgemr2d on the same arrays. Floors from B_memcpy of the same run (every rank
///    copying): two copies = max over ranks of (2 M_remote + M_local) / B_memcpy, one copy
///    = max over ranks of (M_remote + M_local) / B_memcpy.

#include <cstring>
#include <unistd.h>

#include <redist/transport/cross_memory_io.hpp>

#include "bench.hpp"

namespace bench {

namespace {

struct PieceRow {
  std::size_t piece = 0;
  double kernel = 0, memcpy = 0;  ///< bytes per second, best of 5
};

/// Part 1 (rank 1 reads, rank 0 is read; other ranks wait).
std::vector<PieceRow> kernel_gather(const mpi::communicator& comm, bool quick) {
  const std::size_t bytes = static_cast<std::size_t>(quick ? 16 : 128) << 20;
  std::vector<char> src(bytes, 3), dst(bytes / 2 + 1, 0);
  std::int64_t pid = ::getpid();
  std::uint64_t at = reinterpret_cast<std::uintptr_t>(src.data());
  mpi::broadcast(comm, pid, 0);
  mpi::broadcast(comm, at, 0);
  std::vector<PieceRow> rows;
  for (const std::size_t piece : {std::size_t{256}, std::size_t{800}, std::size_t{2048},
                                  std::size_t{8192}, std::size_t{32768}, std::size_t{1} << 20}) {
    PieceRow row{piece, 0, 0};
    std::vector<redist::transport::cma::Piece> pieces;
    for (std::size_t o = 0; o + piece <= bytes; o += 2 * piece)
      pieces.push_back({at + o, dst.data() + o / 2, piece});
    const double moved = static_cast<double>(pieces.size() * piece);
    double kernel = 1e30, copy = 1e30;
    for (int k = 0; k < 5; ++k) {
      comm.barrier();
      if (comm.rank() == 1) {
        double t0 = now();
        redist::transport::cma::read(static_cast<pid_t>(pid), pieces);
        kernel = std::min(kernel, now() - t0);
        t0 = now();
        for (std::size_t o = 0; o + piece <= bytes; o += 2 * piece)
          std::memcpy(dst.data() + o / 2, src.data() + o, piece);
        copy = std::min(copy, now() - t0);
      }
      comm.barrier();
    }
    row.kernel = moved / kernel;
    row.memcpy = moved / copy;
    mpi::broadcast(comm, row.kernel, 1);
    mpi::broadcast(comm, row.memcpy, 1);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

void suite_cross_memory(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  if (comm.size() != 2) {
    if (root) std::printf("\n== suite cross-memory: needs 2 ranks on one node, skipped ==\n");
    return;
  }
  const redist::transport::cma::Permission& allowed = redist::transport::cma::permission(comm);
  if (!allowed.allowed) {
    if (root)
      std::printf("\n== suite cross-memory: not permitted here (%s), skipped ==\n",
                  allowed.reason.c_str());
    return;
  }
  std::ostringstream json;
  json << "{\n    \"pieces\": [";
  const std::vector<PieceRow> pieces = kernel_gather(comm, o.quick);
  if (root) {
    std::printf("\n== suite cross-memory (2 ranks): the kernel's gather against memcpy ==\n");
    std::printf("%10s %14s %12s %8s\n", "piece B", "kernel GB/s", "memcpy GB/s", "ratio");
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const PieceRow& p = pieces[k];
    if (root)
      std::printf("%10zu %14.2f %12.2f %8.2f\n", p.piece, p.kernel / 1e9, p.memcpy / 1e9,
                  p.kernel / p.memcpy);
    json << (k ? "," : "") << "\n      {\"piece_bytes\": " << p.piece
         << ", \"kernel_bytes_per_s\": " << json_number(p.kernel)
         << ", \"memcpy_bytes_per_s\": " << json_number(p.memcpy) << "}";
  }
  json << "\n    ],\n    \"cases\": [";

  const double b_memcpy = b_memcpy_of_run(comm, o);
  if (root) {
    std::printf("\ncases a-d, ScaLAPACK storage both sides, B_memcpy %.2f GB/s per rank\n",
                b_memcpy / 1e9);
    std::printf("%-26s %9s %9s %9s %9s %9s %7s %7s %6s %6s %s\n", "case", "window s", "cma s",
                "pdgemr2d", "2-copy s", "1-copy s", "win %", "cma %", "spd-w", "spd-c", "check");
  }
  bool first = true;
  for (const Case& c : standard_cases(o)) {
    if (!selected(o, c.name)) continue;
    ScalapackMatrix a(source_layout(c), {}, comm.rank());
    ScalapackMatrix b(target_layout(c), {}, comm.rank());
    fill_source(c, a);
    Stats st;
    redist::ExecutionOptions window, cma;
    window.transport = redist::TransportPolicy::node_window;
    cma.transport = redist::TransportPolicy::cross_memory;
    const Variant w = run_redist(comm, o, c, "node_window", a, b, &st, window);
    const Variant x = run_redist(comm, o, c, "cross_memory", a, b, nullptr, cma);
    const Variant p = o.scalapack ? run_pdgemr2d(comm, o, c, "pdgemr2d", a, b) : Variant{};
    const double two = copy_floor(comm, st, b_memcpy, 2);
    const double one = copy_floor(comm, st, b_memcpy, 1);
    const long bad = w.mismatches + x.mismatches + p.mismatches;
    report.mismatches += bad;
    const double tw = w.timing.median(), tx = x.timing.median();
    const double tp = p.ran ? p.timing.median() : NAN;
    if (root)
      std::printf("%-26s %9.4f %9.4f %9.4f %9.4f %9.4f %7.0f %7.0f %6.1f %6.1f %s\n",
                  c.name.c_str(), tw, tx, tp, two, one, 100 * two / tw, 100 * one / tx, tp / tw,
                  tp / tx, bad ? "MISMATCH" : "ok");
    json << (first ? "" : ",") << "\n      {\"case\": " << json_string(c.name)
         << ", \"node_window_median_s\": " << json_number(tw)
         << ", \"cross_memory_median_s\": " << json_number(tx)
         << ", \"pdgemr2d_median_s\": " << json_number(tp)
         << ", \"two_copy_floor_s\": " << json_number(two)
         << ", \"one_copy_floor_s\": " << json_number(one)
         << ", \"b_memcpy\": " << json_number(b_memcpy) << ", \"mismatches\": " << bad << "}";
    first = false;
  }
  json << "\n    ]\n  }";
  if (root)
    std::printf(
        "win %% = 2-copy floor / window time; cma %% = 1-copy floor / cross-memory time; "
        "spd = pdgemr2d / redist\n");
  report.sections.emplace_back("cross_memory", json.str());
  comm.barrier();
}

}  // namespace bench
