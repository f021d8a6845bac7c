/// @file bench/redist-device-bench.cpp
/// The standard cases a-d with both matrices in the memory of Kokkos' default execution
/// space (a GPU's under a CUDA Kokkos), ScaLAPACK storage: the move's time against the
/// device's own copy bandwidth and the host staging bandwidth, measured in the same run,
/// and an overlapped run (start(), host work with test() between units, wait()).
///
///   mpirun -np 1|2 redist-device-bench [--repeat N] [--quick] [--json FILE]
///
/// On 1 rank the grids are 1 x 1 (every copy is a local one, on the device); on 2 ranks
/// the standard grids. Remote data then goes the way ExecutionOptions::transport
/// (REDIST_TRANSPORT) chooses: under `auto`, on CUDA device memory, the receiver's device
/// copies read the sender's tiles through CUDA IPC (one copy, no host staging); under
/// `point-to-point` it is packed on the device, staged through host memory (unless MPI
/// is GPU-aware), sent, staged back and unpacked on the device. Bounds, per rank, max
/// over ranks:
///   single-copy bound = (M_local + M_received) / B_d2d   (device IPC: the reader copies)
///   device bound  = (M_local + 2 M_remote) / B_d2d   (pack + unpack + local copies)
///   staging bound = M_sent / B_d2h + M_received / B_h2d
///   network bound = max(M_sent, M_received) / B_net
/// A run whose remote messages all went device-ipc is measured against the single-copy
/// bound (the target: >= 80 % of it), any other against the largest of the other three.
/// with B_d2d a device-to-device Kokkos::deep_copy and B_d2h, B_h2d copies between device
/// memory and host staging memory (page-locked where Kokkos has it, as the executor's
/// staging buffers), each of 256 MiB, and B_net the two-way point-to-point bandwidth of
/// host memory between ranks 0 and 1 (bench.hpp's measure_net, 64 MiB messages).
/// Every target element is checked after the timed runs.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/environment.hpp>

// Device memory is not in the compiled engine (compiled_engine.hpp): its executor is
// compiled here.
#include <redist/engine/executor_handle_definitions.hpp>

#include "bench.hpp"
#include "compute_units.hpp"

namespace {

using namespace bench;
using DeviceSpace = Kokkos::DefaultExecutionSpace::memory_space;
using DeviceMatrix =
    redist::TiledMatrix<double, BcLayout, redist::ScalapackColumnMajor<DeviceSpace>>;

/// Bytes per second of `copy` moving `bytes`, median of 5 after one warm-up.
template <class F>
double bandwidth_of(const mpi::communicator& comm, double bytes, F&& copy) {
  const Timing t = time_it(
      comm, 5,
      [&] {
        copy();
        Kokkos::fence();
      },
      1);
  return bytes / t.median();
}

struct Anchors {
  double d2d = 0, d2h = 0, h2d = 0;  ///< bytes per second, every rank copying at once
  double net = 0;                    ///< host point-to-point, per direction
};

Anchors measure_anchors(const mpi::communicator& comm) {
  const std::size_t n = std::size_t{32} << 20;  // 256 MiB of doubles
  Kokkos::View<double*, DeviceSpace> a("anchor a", n), b("anchor b", n);
  Kokkos::View<double*, redist::transport::staging_space> h("anchor host", n);
  const double bytes = static_cast<double>(n * sizeof(double));
  Anchors x;
  x.d2d = bandwidth_of(comm, bytes, [&] { Kokkos::deep_copy(b, a); });
  x.d2h = bandwidth_of(comm, bytes, [&] { Kokkos::deep_copy(h, a); });
  x.h2d = bandwidth_of(comm, bytes, [&] { Kokkos::deep_copy(a, h); });
  x.net = measure_net(comm, std::size_t{64} << 20);
  return x;
}

/// A host matrix with d's layout and storage map over host mirrors of d's allocations
/// (with d's values when `copy`).
redist::TiledMatrix<double, BcLayout, ScalapackStorage> host_twin(const DeviceMatrix& d,
                                                                  bool copy) {
  std::vector<Kokkos::View<double*, Kokkos::HostSpace>> host;
  for (const auto& alloc : d.allocations()) {
    host.push_back(Kokkos::create_mirror_view(alloc));
    if (copy) Kokkos::deep_copy(host.back(), alloc);
  }
  return {d.layout(), {}, d.rank(), std::move(host)};
}

/// The case's source values (or the sentinel) on the host, copied to the device.
void fill_device(const Case& c, DeviceMatrix& d, bool source) {
  auto h = host_twin(d, false);
  h.for_each_element(
      [&](redist::ElementIndex e, double& v) { v = source ? value_at(c, e.i, e.j) : sentinel; });
  for (std::size_t k = 0; k < h.allocations().size(); ++k)
    Kokkos::deep_copy(d.allocations()[k], h.allocations()[k]);
}

/// Target elements (all ranks) that differ from the source's value at the same index.
long device_mismatches(const mpi::communicator& comm, const Case& c, const DeviceMatrix& d) {
  long bad = 0;
  host_twin(d, true).for_each_element(
      [&](redist::ElementIndex e, double& v) { bad += v != value_at(c, e.i, e.j); });
  return mpi::all_reduce(comm, bad, std::plus<long>());
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment env(argc, argv, mpi::threading::funneled);
  mpi::communicator comm;
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--repeat" && k + 1 < argc)
      o.repeat = std::stoi(argv[++k]);
    else if (a == "--json" && k + 1 < argc)
      o.json = argv[++k];
    else if (a == "--quick")
      o.quick = true;
  }
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const bool root = comm.rank() == 0;
    const Anchors anchors = measure_anchors(comm);
    Daxpy d;
    const double unit = calibrate(comm, d, 100e-6);
    if (root) {
      std::printf("== redist-device-bench: %d ranks, matrices in %s ==\n", comm.size(),
                  DeviceSpace::name());
      std::printf(
          "B_d2d %.1f GB/s, B_d2h %.1f GB/s, B_h2d %.1f GB/s (each rank copying), B_net %.1f "
          "GB/s\n",
          anchors.d2d * 1e-9, anchors.d2h * 1e-9, anchors.h2d * 1e-9, anchors.net * 1e-9);
      std::printf("%-28s %-10s %9s %9s %9s %9s %9s %6s %6s %9s %9s %7s %s\n", "case", "path",
                  "t_move", "copy_bnd", "dev_bnd", "stage_bnd", "net_bnd", "eff%", "GB/s", "t_comp",
                  "t_total", "ovl", "check");
    }
    std::ostringstream json;
    json << "{\"ranks\": " << comm.size() << ", \"memory_space\": \"" << DeviceSpace::name()
         << "\", \"b_d2d\": " << json_number(anchors.d2d)
         << ", \"b_d2h\": " << json_number(anchors.d2h)
         << ", \"b_h2d\": " << json_number(anchors.h2d)
         << ", \"b_net\": " << json_number(anchors.net) << ", \"cases\": [";
    bool first = true;
    for (Case c : standard_cases(o)) {
      if (comm.size() == 1) c.ps = c.qs = c.pt = c.qt = 1;
      DeviceMatrix a(source_layout(c), {}, comm.rank());
      DeviceMatrix b(target_layout(c), {}, comm.rank());
      fill_device(c, a, true);
      fill_device(c, b, false);
      redist::Redistributor r(a, b, comm, redist::Region::whole({c.M, c.N}));
      r.redistribute();
      const Timing move = time_it(comm, o.repeat, [&] { r.redistribute(); });
      const long bad = device_mismatches(comm, c, b);
      status |= bad != 0;

      const redist::PlanStats& s = r.plan().stats;
      const double sent = 8.0 * static_cast<double>(s.elements_sent);
      const double received = 8.0 * static_cast<double>(s.elements_received);
      const double local = 8.0 * static_cast<double>(s.elements_local);
      const double device_bound =
          max_over(comm, (local + 2 * std::max(sent, received)) / anchors.d2d);
      const double staging_bound = max_over(comm, sent / anchors.d2h + received / anchors.h2d);
      const double t = move.median();
      const double network_bound = max_over(comm, std::max(sent, received) / anchors.net);
      const double single_copy_bound = max_over(comm, (local + received) / anchors.d2d);
      // The data path of the remote messages, as every rank saw it.
      const auto [staged_sent, staged_received] = r.messages(redist::Transport::point_to_point);
      const bool all_ipc = sum_over(comm, static_cast<double>(staged_sent + staged_received)) == 0;
      const char* path = comm.size() == 1 ? "local" : all_ipc ? "device-ipc" : "staged";
      const double efficiency =
          100 *
          (all_ipc ? single_copy_bound : std::max({device_bound, staging_bound, network_bound})) /
          t;
      const double moved = sum_over(comm, sent + local);  // every byte of the region once

      // Host work while the move runs: the copies are on the device, the host only polls.
      const long units = std::max(1L, std::lround(t / unit));
      const Timing compute = time_it(comm, o.repeat, [&] {
        for (long u = 0; u < units; ++u) d.unit();
      });
      fill_device(c, b, false);
      const Timing total = time_it(comm, o.repeat, [&] {
        r.start();
        bool done = false;
        for (long u = 0; u < units; ++u) {
          d.unit();
          if (!done) done = r.test();
        }
        r.wait();
      });
      const long bad_overlapped = device_mismatches(comm, c, b);
      status |= bad_overlapped != 0;
      const double ratio = total.median() / std::max(compute.median(), t);
      if (root) {
        std::printf("%-28s %-10s %9.5f %9.5f %9.5f %9.5f %9.5f %6.1f %6.1f %9.5f %9.5f %7.2f %s\n",
                    c.name.c_str(), path, t, single_copy_bound, device_bound, staging_bound,
                    network_bound, efficiency, moved / t * 1e-9, compute.median(), total.median(),
                    ratio, bad + bad_overlapped == 0 ? "ok" : "MISMATCH");
        std::fflush(stdout);
      }
      json << (first ? "" : ", ") << "{\"name\": " << json_string(c.name) << ", \"M\": " << c.M
           << ", \"N\": " << c.N << ", \"t_move_median\": " << json_number(t)
           << ", \"t_move_best\": " << json_number(move.best())
           << ", \"path\": " << json_string(path)
           << ", \"single_copy_bound\": " << json_number(single_copy_bound)
           << ", \"device_bound\": " << json_number(device_bound)
           << ", \"staging_bound\": " << json_number(staging_bound)
           << ", \"network_bound\": " << json_number(network_bound)
           << ", \"efficiency_pct\": " << json_number(efficiency)
           << ", \"gb_per_s\": " << json_number(moved / t * 1e-9)
           << ", \"t_compute\": " << json_number(compute.median())
           << ", \"t_total\": " << json_number(total.median())
           << ", \"overlap_ratio\": " << json_number(ratio)
           << ", \"mismatches\": " << bad + bad_overlapped << "}";
      first = false;
    }
    json << "], \"unit_seconds\": " << json_number(unit) << "}\n";
    if (root) {
      std::printf(
          "eff%% = copy_bnd / t_move on the device-ipc path, else max(dev_bnd, stage_bnd, "
          "net_bnd) / t_move;\nGB/s = region bytes / t_move; ovl = "
          "t_total / max(t_comp, t_move)\n(target <= 1.2), t_total = start(), host work with "
          "test(), wait()\n");
      if (!o.json.empty()) std::ofstream(o.json) << json.str();
    }
  }
  return mpi::all_reduce(comm, status, mpi::maximum<int>());
}
