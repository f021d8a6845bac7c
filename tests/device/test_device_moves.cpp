// Redistributions whose matrices live in the memory of Kokkos' default execution space:
// CudaSpace (or HIPSpace, ...) under a device Kokkos, HostSpace under a host-only one, where
// these cases run the same code paths as the MPI suite. On a device this covers what only a
// device exercises: copy programs mirrored to device memory and launched there, messages
// staged through host mirrors (or read by a GPU-aware MPI), transforms in device kernels
// (complex scaling included), an execution-space instance of the caller's, and several
// parts and rebind on device arrays.
//
// Every case fills the source on the host with a function of the global index, copies it
// to the device, moves, copies both matrices back, and checks every target element (inside
// the region: the reference; outside: the initial value) and that the source is unchanged.
#include <array>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>

// Device memory is not in the compiled engine (compiled_engine.hpp): its executor is
// compiled here.
#include <redist/engine/executor_handle_definitions.hpp>
#include <redist/redist.hpp>
#include <redist/task_graph.hpp>
#include <redist/transport/device_ipc.hpp>

#include <doctest/doctest.h>

#include "../support/scoped_env.hpp"
#include "mpi_test_support.hpp"
#include "random_cases.hpp"
#include "runtime_skip.hpp"

namespace {

using namespace redist;
using namespace redist::test;

using DeviceSpace = Kokkos::DefaultExecutionSpace::memory_space;
constexpr bool on_device = !std::is_same_v<DeviceSpace, Kokkos::HostSpace>;

/// A matrix in device memory and its host twin (same layout, same storage map), with
/// copies between them. Placement is a placement template (TilePerAllocation, ...).
template <class T, class L, template <class> class Placement>
struct Mirrored {
  TiledMatrix<T, L, Placement<DeviceSpace>> device;
  TiledMatrix<T, L, Placement<Kokkos::HostSpace>> host;

  Mirrored(const L& layout, int rank) : device(layout, {}, rank), host(layout, {}, rank) {}

  void to_device() {
    for (std::size_t a = 0; a < host.allocations().size(); ++a)
      Kokkos::deep_copy(device.allocations()[a], host.allocations()[a]);
  }
  void to_host() {
    for (std::size_t a = 0; a < host.allocations().size(); ++a)
      Kokkos::deep_copy(host.allocations()[a], device.allocations()[a]);
  }
  /// Host values from f(ElementIndex), then copied to the device.
  template <class F>
  void fill(F&& f) {
    host.for_each_element([&](ElementIndex e, T& v) { v = f(e); });
    to_device();
  }
  /// Host elements (after to_host()) that differ from want(ElementIndex).
  template <class F>
  index_t errors(F&& want) const {
    index_t bad = 0;
    host.for_each_element([&](ElementIndex e, T& v) { bad += !(v == want(e)); });
    return bad;
  }
};

/// Wrong elements over all ranks after moving `region` from a to b with transform t:
/// target against expected_at, source against value_at. Collective.
template <class A, class B, class T>
index_t check_move(const boost::mpi::communicator& comm, A& a, B& b, const Region& region,
                   const Transform<T>& t, PlanOptions plan = {}, ExecutionOptions exec = {},
                   int repeats = 1) {
  a.fill([](ElementIndex e) { return value_at<T>(e); });
  Redistributor r(a.device, b.device, comm, region, t, plan, exec);
  index_t bad = 0;
  for (int k = 0; k < repeats; ++k) {
    b.fill([](ElementIndex e) { return initial_at<T>(e); });
    if (k % 2 == 0) {
      r.redistribute();
    } else {
      // The caller's own instance, overlapped with host work.
      const Kokkos::DefaultExecutionSpace exec_instance;
      r.start(exec_instance);
      while (!r.test()) {
      }
      r.wait();
    }
    b.to_host();
    bad += b.errors([&](ElementIndex e) { return expected_at(region, t, e); });
  }
  a.to_host();
  bad += a.errors([](ElementIndex e) { return value_at<T>(e); });
  return sum(comm, bad);
}

/// One random case (random_cases.hpp) in device memory, tile or ScaLAPACK target storage.
template <class T, class SrcShape, class DstShape>
index_t run_case(const boost::mpi::communicator& comm, const Case& c, SrcShape src_shape,
                 DstShape dst_shape, const Transform<T>& t, const PlanOptions& plan,
                 const ExecutionOptions& exec) {
  const Layout src{std::move(src_shape), BlockCyclic(c.sp, c.sq, 1, 1, c.src_first)};
  const Layout dst{std::move(dst_shape), BlockCyclic(c.dp, c.dq, 1, 1, c.dst_first)};
  Mirrored<T, decltype(src), TilePerAllocation> a(src, comm.rank());
  if (c.scalapack_target) {
    Mirrored<T, decltype(dst), ScalapackColumnMajor> b(dst, comm.rank());
    return check_move(comm, a, b, c.region, t, plan, exec);
  }
  Mirrored<T, decltype(dst), PackedTiles> b(dst, comm.rank());
  return check_move(comm, a, b, c.region, t, plan, exec);
}

/// `cases` random cases (random_cases.hpp: ops, alpha/beta pairs, triangles); every fourth
/// with tiny messages and batches, so that chunks, several batches and staging per chunk
/// run too.
template <class T>
void check_random_moves(const boost::mpi::communicator& comm, unsigned seed, int cases) {
  Rng g(seed);
  const std::vector<Op> ops = random_ops<T>();
  for (int k = 0; k < cases; ++k) {
    const Op op = ops[static_cast<std::size_t>(k) % ops.size()];
    const Case c = random_case(g, comm.size(), op, k % 4 == 0 ? 3 : 12);
    const Transform<T> t = random_transform<T>(k, op);
    PlanOptions plan;
    ExecutionOptions exec;
    if (k % 4 == 3) {
      exec.max_message_bytes = 7 * static_cast<index_t>(sizeof(T));
      plan.batch = 1;
    }
    CAPTURE(k);
    CAPTURE(static_cast<int>(op));
    const index_t bad = with_tilings(
        c, [&](auto src, auto dst) { return run_case<T>(comm, c, src, dst, t, plan, exec); });
    CHECK(bad == 0);
  }
}

/// Why messages may not carry device pointers to MPI here; empty if they may: always in
/// host memory, on a device only when the test is told the MPI is GPU-aware (a plain MPI
/// would read device memory).
std::string why_not_gpu_aware() {
  if (!on_device) return "";
  const char* v = std::getenv("REDIST_TEST_GPU_AWARE_MPI");
  if (v != nullptr && std::string(v) == "1") return "";
  return std::string("matrices in ") + DeviceSpace::name() +
         ": set REDIST_TEST_GPU_AWARE_MPI=1 where MPI reads device memory";
}

constexpr const char* gpu_aware_case = "device: GPU-aware MPI reads device buffers directly";
[[maybe_unused]] const bool gpu_aware_registered = skip_when(gpu_aware_case, why_not_gpu_aware);

/// Why ranks cannot read each other's device memory in this run; empty if they should.
std::string why_no_device_ipc() {
  if (!transport::ipc::shareable<DeviceSpace>)
    return std::string("matrices in ") + DeviceSpace::name() +
           ": device IPC shares CUDA device memory only";
  if (boost::mpi::communicator().size() < 2) return "one rank: no peer to read from";
  // The environment overrides the options this case sets.
  if (const char* forced = std::getenv("REDIST_TRANSPORT"))
    return std::string("REDIST_TRANSPORT=") + forced + " chooses every message's transport";
  return "";
}

constexpr const char* device_ipc_case =
    "device: ranks of one node read each other's device tiles (CUDA IPC), or fall back";
[[maybe_unused]] const bool device_ipc_registered = skip_when(device_ipc_case, why_no_device_ipc);

/// Moves `region` from a to b under `exec`; returns the wrong elements over all ranks and
/// this rank's messages (sent + received) per transport, device-ipc then point-to-point.
template <class A, class B>
std::array<index_t, 3> move_counting(const boost::mpi::communicator& comm, A& a, B& b,
                                     const Region& region, const Transform<double>& t,
                                     const ExecutionOptions& exec, std::string* refused) {
  a.fill([](ElementIndex e) { return value_at<double>(e); });
  b.fill([](ElementIndex e) { return initial_at<double>(e); });
  Redistributor r(a.device, b.device, comm, region, t, {}, exec);
  r.redistribute();
  b.fill([](ElementIndex e) { return initial_at<double>(e); });  // beta reads it again
  r.redistribute();  // a second run: the notes and acks of the first are all consumed
  b.to_host();
  const index_t bad =
      sum(comm, b.errors([&](ElementIndex e) { return expected_at(region, t, e); }));
  const auto [ipc_sent, ipc_received] = r.messages(Transport::device_ipc);
  const auto [p2p_sent, p2p_received] = r.messages(Transport::point_to_point);
  if (refused != nullptr) *refused = r.cross_memory_refused();
  return {bad, ipc_sent + ipc_received, p2p_sent + p2p_received};
}

}  // namespace

TEST_CASE("device: the memory space the device suite runs in") {
  const boost::mpi::communicator comm;
  if (comm.rank() == 0)
    std::printf("redist-device-tests: %d ranks, matrices in %s, copies on %s\n", comm.size(),
                DeviceSpace::name(), Kokkos::DefaultExecutionSpace::name());
  // A device build that ended up with host memory would make this suite a second copy of
  // the MPI suite: REDIST_TEST_EXPECT_DEVICE=1 (set by scripts/device-tests.sh) says it must
  // not.
  const char* expect = std::getenv("REDIST_TEST_EXPECT_DEVICE");
  if (expect != nullptr && std::string(expect) == "1") CHECK(on_device);
}

TEST_CASE("device: random layouts, transforms and triangles, every element type") {
  const boost::mpi::communicator comm;
  check_random_moves<double>(comm, 31, 24);
  check_random_moves<float>(comm, 32, 8);
  check_random_moves<int>(comm, 33, 8);
  check_random_moves<std::complex<double>>(comm, 34, 18);
  check_random_moves<std::complex<float>>(comm, 35, 6);
}

TEST_CASE("device: a large move in many chunks, staged, repeated on the caller's instance") {
  const boost::mpi::communicator comm;
  const int n = comm.size();
  const auto [p, q] = near_square_grid(n);
  const Layout src{uniform(700, 530, 64, 48), BlockCyclic(1, n)};
  const Layout dst{uniform(650, 600, 50, 70), BlockCyclic(p, q, 1, 1, GridCoord{0, q - 1})};
  Mirrored<double, decltype(src), ScalapackColumnMajor> a(src, comm.rank());
  Mirrored<double, decltype(dst), TilePerAllocation> b(dst, comm.rank());
  const Region region{{600, 500}, {37, 11}, {5, 29}};
  ExecutionOptions exec;
  exec.chunk_bytes = 64 << 10;  // many chunks per message, each staged on its own
  for (const bool window : {true, false}) {
    CAPTURE(window);
    exec.shared_window = window;  // no effect on device memory: no node window there
    CHECK(check_move(comm, a, b, region, Transform<double>{}, {}, exec, 4) == 0);
    CHECK(check_move(comm, a, b, Region{{500, 480}, {37, 11}, {5, 29}},
                     Transform<double>{Op::transpose, 0.5, 2.0}, {}, exec, 2) == 0);
  }
}

TEST_CASE(gpu_aware_case) {
  const boost::mpi::communicator comm;
  const int n = comm.size();
  const Layout src{uniform(300, 200, 30, 20), BlockCyclic(n, 1)};
  const Layout dst{uniform(300, 200, 17, 23), BlockCyclic(1, n)};
  Mirrored<float, decltype(src), PackedTiles> a(src, comm.rank());
  Mirrored<float, decltype(dst), PackedTiles> b(dst, comm.rank());
  ExecutionOptions exec;
  exec.gpu_aware_mpi = true;
  exec.chunk_bytes = 4096;
  CHECK(check_move(comm, a, b, Region{{290, 190}, {3, 4}, {10, 5}}, Transform<float>{}, {}, exec,
                   2) == 0);
}

TEST_CASE("device: several parts in one exchange, then rebound to other device arrays") {
  const boost::mpi::communicator comm;
  const int n = comm.size();
  using L = Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>;
  const L src{uniform(120, 90, 16, 9), BlockCyclic(1, n)};
  const L dst{uniform(100, 110, 7, 13), BlockCyclic(n, 1)};
  using M = Mirrored<std::complex<double>, L, TilePerAllocation>;
  M a0(src, comm.rank()), a1(src, comm.rank()), b0(dst, comm.rank()), b1(dst, comm.rank());
  using C = std::complex<double>;
  const auto source_k = [](int k) {
    return [k](ElementIndex e) { return value_at<C>(e) + C(1000.0 * k, 0); };
  };
  const Region r0{{80, 60}, {1, 2}, {3, 4}}, r1{{50, 90}, {60, 0}, {50, 10}};
  const Transform<C> t{Op::none, C(0, 1), C(1, 0)};  // i * A + B
  a0.fill(source_k(0));
  a1.fill(source_k(1));
  b0.fill([](ElementIndex e) { return initial_at<C>(e); });
  b1.fill([](ElementIndex e) { return initial_at<C>(e); });
  using Dev = decltype(a0.device);
  using DevDst = decltype(b0.device);
  Redistributor r(
      std::vector<Part<Dev, DevDst>>{{&a0.device, &b0.device, r0}, {&a1.device, &b1.device, r1}},
      comm, t);
  r.redistribute();
  b0.to_host();
  b1.to_host();
  const auto want = [&](const Region& reg, int k) {
    return [&reg, k, &t](ElementIndex e) {
      const C x = expected_at(reg, t, e);
      // expected_at uses value_at; part k's source is value_at + 1000 k.
      const bool inside = e.i >= reg.dst_origin.i && e.i < reg.dst_origin.i + reg.extent.rows &&
                          e.j >= reg.dst_origin.j && e.j < reg.dst_origin.j + reg.extent.cols;
      return inside ? x + t.alpha * C(1000.0 * k, 0) : x;
    };
  };
  CHECK(sum(comm, b0.errors(want(r0, 0)) + b1.errors(want(r1, 1))) == 0);

  // Same layouts, other arrays: rebind, no re-planning.
  M c0(src, comm.rank()), c1(src, comm.rank()), d0(dst, comm.rank()), d1(dst, comm.rank());
  c0.fill(source_k(0));
  c1.fill(source_k(1));
  d0.fill([](ElementIndex e) { return initial_at<C>(e); });
  d1.fill([](ElementIndex e) { return initial_at<C>(e); });
  r.rebind(
      std::vector<Part<Dev, DevDst>>{{&c0.device, &d0.device, r0}, {&c1.device, &d1.device, r1}});
  r.redistribute();
  d0.to_host();
  d1.to_host();
  CHECK(sum(comm, d0.errors(want(r0, 0)) + d1.errors(want(r1, 1))) == 0);
}

TEST_CASE(device_ipc_case) {
  const boost::mpi::communicator comm;
  const int n = comm.size();
  // Every rank sends to every other one. Each rank's part of a ScaLAPACK-stored source is
  // one allocation of more than 2 MiB, a block of its own (transport/device_ipc.hpp):
  // exported. Tiles of 40 x 30 allocated one by one are carved out of shared blocks: not
  // exported, those messages are staged.
  const Layout src{uniform(1200, 1000, 40, 30), BlockCyclic(1, n)};
  const Layout dst{uniform(1100, 1100, 23, 17), BlockCyclic(n, 1)};
  Mirrored<double, decltype(src), ScalapackColumnMajor> a(src, comm.rank());
  Mirrored<double, decltype(src), TilePerAllocation> small_tiles(src, comm.rank());
  Mirrored<double, decltype(dst), TilePerAllocation> b(dst, comm.rank());
  const Region region{{1000, 950}, {5, 7}, {20, 11}};
  const Region square{{900, 900}, {9, 3}, {30, 40}};
  const Transform<double> plain{}, transposed{Op::transpose, -0.5, 2.0};
  const transport::Permission& permitted = transport::ipc::permission(comm);
  INFO("device IPC refused: " << permitted.reason);
  REQUIRE(permitted.allowed);
  for (const auto policy : {TransportPolicy::automatic, TransportPolicy::cross_memory}) {
    CAPTURE(to_string(policy));
    ExecutionOptions exec;
    exec.transport = policy;
    for (const auto& [reg, t] : {std::pair{region, plain}, std::pair{square, transposed}}) {
      const auto [bad, ipc, p2p] = move_counting(comm, a, b, reg, t, exec, nullptr);
      CHECK(bad == 0);
      CHECK(ipc > 0);  // every message of this rank is read in place
      CHECK(p2p == 0);
    }
    const auto [bad, ipc, p2p] = move_counting(comm, small_tiles, b, region, plain, exec, nullptr);
    CHECK(bad == 0);
    CHECK(p2p > 0);
  }
  ExecutionOptions staged;
  staged.transport = TransportPolicy::point_to_point;
  const auto [bad, ipc, p2p] = move_counting(comm, a, b, region, plain, staged, nullptr);
  CHECK(bad == 0);
  CHECK(ipc == 0);
  CHECK(p2p > 0);

  // The probe forced to fail, on a communicator of its own (the answer is cached per
  // communicator): a forced cross_memory says why, and every message is staged.
  const test::ScopedEnv env("REDIST_DEVICE_IPC_PROBE", "fail");
  const boost::mpi::communicator fresh(comm, boost::mpi::comm_duplicate);
  ExecutionOptions forced;
  forced.transport = TransportPolicy::cross_memory;
  std::string refused;
  const auto [bad_f, ipc_f, p2p_f] = move_counting(fresh, a, b, region, plain, forced, &refused);
  CHECK(bad_f == 0);
  CHECK(ipc_f == 0);
  CHECK(p2p_f > 0);
  CHECK(refused.find("REDIST_DEVICE_IPC_PROBE=fail") != std::string::npos);
}
