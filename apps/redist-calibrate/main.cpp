// redist-calibrate: measures the machine that predict (cost_model.hpp) needs, on the ranks
// and nodes of the job it runs in, and writes it as JSON for redist-run --machine and
// redist-plan --machine (docs/cost-model.md, "Calibration"):
//
//   cores_per_node       the cores of rank 0's node (online processors), or --cores
//   memcpy_bytes_per_s   memcpy of --bytes by one rank while every rank copies (the slowest
//                        rank of the median of --repeat rounds), times s = max(1, ranks of
//                        the node / cores): the rate of a rank while it runs
//   copy_run_s           c_run: runs of 64 B .. 32 KiB copied with gaps (source stride 4x
//                        the run) while every rank copies, each round paired with a memcpy
//                        of the same bytes; the median over the runs of 1 KiB or less of
//                        the median (strided - memcpy) time a run, / s; the curve (seconds
//                        per run of each length) goes to the JSON as "strided_copies"
//   shm_latency_s        half a round trip of an 8-byte message between rank 0 and a rank
//                        of its node (the best of --repeat rounds)
//   shm_bytes_per_s      a message of --message-bytes (32 MiB: larger than the caches, as a
//                        move's messages are) each way between pairs of ranks of each node,
//                        every pair at once (MPI over shared memory, competing for memory
//                        as in a move), over the median round's time, times s
//   ring_bytes_per_s     the ranks of each node that share memory in a shift, each packing
//                        --bytes into a ring of the node window's slots (4, sized from the
//                        caches as the engine sizes them) for the next and unpacking the
//                        previous one's, every rank at once, each round paired with a
//                        memcpy of --bytes: memcpy_bytes_per_s x the median of 2 x memcpy
//                        time / ring time (the rate of a byte through a pack and an unpack
//                        that meet in the cache, at the memcpy rate kept above)
//   link_latency_s       half a round trip of 8 bytes between rank 0 and the first rank of
//                        another node (0 when the job spans one node)
//   link_bytes_per_s     rank 0 streaming --message-bytes to that rank in chunks of the
//                        engine's chunk_bytes, all posted at once, as a move's chunks go:
//                        --message-bytes over the median round's time (the ping-pong's
//                        rate, half a round trip of --message-bytes, is reported beside
//                        it: one message at a time, it runs below what a stream reaches)
//
//   mpirun -np 4 redist-calibrate --json machine.json
//
// Nodes are redist's (topology.hpp: ranks that share memory, or REDIST_RANKS_PER_NODE=k).
// Exit status: 0, or 2 for bad input (one line on rank 0 naming the option).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sched.h>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <mpi.h>

#include <redist/copy/host_primitives.hpp>
#include <redist/cost_model.hpp>
#include <redist/detail/cpu_caches.hpp>
#include <redist/execution_options.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/huge_page_buffer.hpp>
#include <redist/tools/machine_spec.hpp>
#include <redist/tools/spec_parser.hpp>
#include <redist/topology.hpp>
#include <redist/transport/ring_slots.hpp>

namespace {

using namespace redist::tools;
using redist::index_t;

constexpr OptionInfo option_table[] = {
    {"--bytes", "", "N", "268435456",
     "bytes each rank copies per memcpy round and passes through the rings, >= 4096 (larger "
     "than the caches)"},
    {"--message-bytes", "", "N", "33554432",
     "bytes of the exchange within a node, of the link's stream and of the ping-pong's "
     "bandwidth message, >= 1"},
    {"--repeat", "", "N", "5",
     "rounds of each measurement (the median is kept; the best for latencies), >= 1"},
    {"--cores", "", "N", "node's", "cores of a node (default: online processors of rank 0's)"},
    {"--json", "", "FILE", "none", "write the machine as JSON (rank 0)"},
    {"--help", "-h", "", "", "print this help and exit 0"},
};

constexpr const char* help_intro =
    R"(redist-calibrate: measure memcpy and strided copies of short runs with every rank
copying, the cores a node's ranks share, pairs of ranks exchanging within a node, the
ranks of a node passing bytes through rings of cache-sized slots (the node window's), and
between nodes a ping-pong's latency and one rank streaming to another (the link's rate),
for redist-run --machine and redist-plan --machine (the cost model's Machine,
docs/cost-model.md).

Usage: mpirun -np N redist-calibrate [OPTION]...

Options:
)";

struct Options {
  index_t bytes = index_t{256} << 20;         // 64 MiB measured 1.8x faster here: caches
  index_t message_bytes = index_t{32} << 20;  // 4 MiB measured 2-4x faster here: caches
  int repeat = 5;
  index_t cores = 0;  // 0: the node's online processors
  std::string json;
};

Options parse(int argc, char** argv) {
  Options o;
  OptionReader line(option_table, std::vector<char*>(argv + 1, argv + argc));
  for (std::string a, v; line.next(a, v);) {
    if (a == "--bytes")
      o.bytes = parse_count(a, v, 4096);
    else if (a == "--message-bytes")
      o.message_bytes = std::min<index_t>(parse_count(a, v, 1), INT32_MAX);
    else if (a == "--repeat")
      o.repeat = static_cast<int>(std::min<index_t>(parse_count(a, v, 1), 1 << 20));
    else if (a == "--cores")
      o.cores = std::min<index_t>(parse_count(a, v, 1), 1 << 24);
    else if (a == "--json") {
      if (const std::string why = why_unwritable(v); !why.empty())
        throw UsageError{a, "cannot write '" + v + "': " + why};
      o.json = v;
    }
  }
  return o;
}

/// The pieces of the link's streams: the engine's chunks (ExecutionOptions::chunk_bytes).
const index_t chunk_bytes = redist::ExecutionOptions{}.chunk_bytes;

/// Runs up to this long give c_run: longer ones cost their bytes, at whatever rate
/// (docs/cost-model.md, "Runs").
constexpr index_t short_run_bytes = 1024;

/// The median of `v` (the upper of the middle two). @pre v not empty.
double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

/// The slowest rank's time of f() for each of `rounds` rounds, every rank at once; their
/// median.
template <class F>
double median_round(const boost::mpi::communicator& comm, int rounds, F&& f) {
  std::vector<double> times;
  for (int k = 0; k < rounds; ++k) {
    comm.barrier();
    const double t0 = MPI_Wtime();
    f(k);
    const double t = MPI_Wtime() - t0;
    times.push_back(boost::mpi::all_reduce(comm, t, boost::mpi::maximum<double>()));
  }
  return median(times);
}

/// memcpy bandwidth of one rank while every rank copies: the slowest rank's time of the
/// median round.
double memcpy_bandwidth(const boost::mpi::communicator& comm, const Options& o) {
  // On pages like the matrices' (a move's copies run on huge pages).
  redist::tools::HugePageBuffer a(static_cast<std::size_t>(o.bytes), 1),
      b(static_cast<std::size_t>(o.bytes));
  const double t = median_round(comm, o.repeat, [&](int k) {
    std::memcpy(k % 2 ? a.data() : b.data(), k % 2 ? b.data() : a.data(), a.size());
  });
  return static_cast<double>(o.bytes) / t;
}

/// Seconds per run, and beyond its bytes at memcpy's rate, of runs of `run` bytes copied
/// from a source whose runs lie 4 runs apart (gaps, as a piece of a taller tile) into a
/// contiguous target, o.bytes / 4 bytes in all, every rank at once. Each round is paired
/// with one memcpy of the same bytes right after it, so that the excess is measured against
/// the memory bandwidth of that moment (a shared machine's moves by 2-3x within minutes):
/// the medians over the rounds of the slowest rank's time a run, and of (strided - memcpy)
/// a run.
std::pair<double, double> strided_run_seconds(const boost::mpi::communicator& comm,
                                              const Options& o, index_t run) {
  const index_t bytes = std::max(run, o.bytes / 4 / run * run), runs = bytes / run;
  redist::tools::HugePageBuffer src(static_cast<std::size_t>(4 * bytes), 1),
      dst(static_cast<std::size_t>(bytes));
  const auto n = static_cast<std::size_t>(run);
  std::vector<double> per_run, excess;
  for (int k = 0; k < o.repeat; ++k) {
    const double strided = median_round(comm, 1, [&](int) {
      for (std::size_t r = 0; r < static_cast<std::size_t>(runs); ++r)
        std::memcpy(dst.data() + r * n, src.data() + 4 * r * n, n);
    });
    const double whole =
        median_round(comm, 1, [&](int) { std::memcpy(dst.data(), src.data(), dst.size()); });
    per_run.push_back(strided / static_cast<double>(runs));
    excess.push_back((strided - whole) / static_cast<double>(runs));
  }
  return {median(per_run), median(excess)};
}

/// Pairs of ranks of each node (in rank order; an odd one out idles) exchange `bytes`
/// each way with MPI_Sendrecv, `trips` times a round, every pair at once: the seconds of
/// one exchange in the median round (0 when no node has two ranks).
double exchange_seconds(const boost::mpi::communicator& comm, const redist::NodeMap& nodes,
                        index_t bytes, int rounds, int trips) {
  const int me = comm.rank();
  int partner = -1, before = 0;  // my partner, and the ranks of my node before me
  std::vector<int> mates;
  for (int r = 0; r < comm.size(); ++r)
    if (nodes.node_of_rank[static_cast<std::size_t>(r)] ==
        nodes.node_of_rank[static_cast<std::size_t>(me)])
      mates.push_back(r);
  before = static_cast<int>(std::find(mates.begin(), mates.end(), me) - mates.begin());
  const std::size_t mate = static_cast<std::size_t>(before ^ 1);
  if (mate < mates.size()) partner = mates[mate];
  const int pairs = boost::mpi::all_reduce(comm, partner >= 0 ? 1 : 0, std::plus<int>());
  if (pairs == 0) return 0;
  std::vector<char> out(static_cast<std::size_t>(bytes), 3), in(static_cast<std::size_t>(bytes));
  const MPI_Comm c = comm;
  const int n = static_cast<int>(bytes);
  const auto round = [&](int) {
    if (partner < 0) return;
    for (int j = 0; j < trips; ++j)
      MPI_Sendrecv(out.data(), n, MPI_BYTE, partner, 9, in.data(), n, MPI_BYTE, partner, 9, c,
                   MPI_STATUS_IGNORE);
  };
  round(0);  // warm-up
  return median_round(comm, rounds, round) / trips;
}

/// B_ring over B_memcpy, measured as the node window's rings move bytes
/// (transport/ring_slots.hpp): the ranks of a node that share memory form a shift, each packing
/// `bytes` of its source, a slot at a time, into a ring of default_ring_slots slots (sized
/// from the caches as the engine sizes them) for the next rank, announcing each slot through
/// a counter in shared memory, and unpacking the previous rank's slots into its target as
/// they come (streaming stores, as the engine's unpack into a large target), acking each
/// through a counter; every rank at once, as in one of the engine's rounds. Each round is
/// paired with a memcpy of `bytes` right after it, every rank at once, so that the ratio
/// is taken at that moment's memory bandwidth (a shared machine's moves by 2x within
/// minutes): the median over the rounds of 2 x memcpy time / ring time (the slowest rank's
/// each), the ring's rate of a byte through both copies over memcpy's. 0 when no two ranks
/// share memory.
double ring_over_memcpy(const boost::mpi::communicator& comm, const redist::NodeMap& nodes,
                        index_t bytes, int rounds) {
  // The ranks of one of redist's nodes that also share memory (REDIST_RANKS_PER_NODE may
  // cut a machine into several nodes): the engine's rings run only there.
  MPI_Comm machine = MPI_COMM_NULL, shared = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &machine);
  MPI_Comm_split(machine, nodes.node_of_rank[static_cast<std::size_t>(comm.rank())], comm.rank(),
                 &shared);
  MPI_Comm_free(&machine);
  int me = 0, ranks = 1;
  MPI_Comm_rank(shared, &me);
  MPI_Comm_size(shared, &ranks);
  const bool ring = ranks > 1;
  const int next = (me + 1) % ranks, previous = (me + ranks - 1) % ranks;
  const int rings = boost::mpi::all_reduce(comm, ring ? 1 : 0, std::plus<int>());
  const index_t slots = redist::transport::default_ring_slots;
  const index_t slot =
      redist::transport::automatic_slot_bytes(redist::detail::cpu_caches(), ranks, slots);
  // Two counters (shipped by me, acked of the previous rank's), each on a line of its own,
  // then the slots, page-aligned.
  constexpr index_t head = 4096;
  char* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(static_cast<MPI_Aint>(ring ? head + slots * slot : 0), 1, MPI_INFO_NULL,
                          shared, &base, &win);
  double ratio = 0;
  if (rings > 0) {
    char *to = nullptr, *from = nullptr;  // the next rank's counters, the previous one's ring
    if (ring) {
      MPI_Aint size = 0;
      int unit = 0;
      MPI_Win_shared_query(win, next, &size, &unit, &to);
      MPI_Win_shared_query(win, previous, &size, &unit, &from);
      std::memset(base, 0, static_cast<std::size_t>(head + slots * slot));
    }
    const index_t chunks = std::max<index_t>(1, bytes / slot);
    redist::tools::HugePageBuffer src(static_cast<std::size_t>(ring ? chunks * slot : 0), 5),
        dst(src.size());
    using Counter = std::atomic_ref<std::uint64_t>;
    const auto counter = [](char* window, int k) {
      return Counter(*reinterpret_cast<std::uint64_t*>(window + 64 * k));
    };
    std::uint64_t done = 0;  // chunks each way of the rounds before (the counters run on)
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    comm.barrier();  // counters zeroed everywhere
    const auto round = [&](int) {
      if (!ring) return;
      Counter shipped = counter(base, 0), acked = counter(base, 1);
      Counter next_acked = counter(to, 1), previous_shipped = counter(from, 0);
      std::uint64_t sent = done, received = done;
      const std::uint64_t end = done + static_cast<std::uint64_t>(chunks);
      while (sent < end || received < end) {
        bool moved = false;
        if (sent < end &&
            sent - next_acked.load(std::memory_order_acquire) < static_cast<std::uint64_t>(slots)) {
          std::memcpy(base + head + static_cast<index_t>(sent % slots) * slot,
                      src.data() + static_cast<index_t>(sent - done) * slot,
                      static_cast<std::size_t>(slot));
          shipped.store(++sent, std::memory_order_release);
          moved = true;
        }
        if (received < end && previous_shipped.load(std::memory_order_acquire) > received) {
          redist::detail::copy_streaming(
              dst.data() + static_cast<index_t>(received - done) * slot,
              from + head + static_cast<index_t>(received % slots) * slot,
              static_cast<std::size_t>(slot));
          acked.store(++received, std::memory_order_release);
          moved = true;
        }
        if (!moved) sched_yield();  // as the engine's waits: ranks may share a core
      }
      redist::detail::streaming_fence();
      done = end;
    };
    round(0);  // warm-up: the slots' and the target's pages
    std::vector<double> ratios;
    for (int k = 0; k < rounds; ++k) {
      const double t_ring = median_round(comm, 1, round);
      const double t_memcpy = median_round(comm, 1, [&](int) {
        if (ring) std::memcpy(dst.data(), src.data(), src.size());
      });
      ratios.push_back(2 * t_memcpy / t_ring);
    }
    ratio = median(ratios);
    MPI_Win_unlock_all(win);
  }
  MPI_Win_free(&win);
  MPI_Comm_free(&shared);
  return ratio;
}

/// One direction of the link between rank 0 and rank `peer` (0: none) carrying a stream, as
/// a move's chunks go: rank 0 sends `bytes` to `peer` in pieces of `piece` bytes, every
/// send and receive posted at once; the median round's time (the slower rank's), a warm-up
/// round first. Collective, 0 on ranks other than 0. (Both directions at once measured
/// half of this on the cluster of namespaces, where moves reach it each way.)
double link_stream_seconds(const boost::mpi::communicator& comm, int peer, index_t bytes,
                           index_t piece, int rounds) {
  if (peer <= 0) return 0;
  const int me = comm.rank();
  const int other = me == 0 ? peer : me == peer ? 0 : -1;
  std::vector<char> buffer(static_cast<std::size_t>(other >= 0 ? bytes : 0), 4);
  const MPI_Comm c = comm;
  std::vector<MPI_Request> requests;
  const auto round = [&](int) {
    if (other < 0) return;
    requests.clear();
    for (index_t at = 0; at < bytes; at += piece) {
      const int n = static_cast<int>(std::min(piece, bytes - at));
      requests.emplace_back();
      if (me == 0)
        MPI_Isend(buffer.data() + at, n, MPI_BYTE, other, 8, c, &requests.back());
      else
        MPI_Irecv(buffer.data() + at, n, MPI_BYTE, other, 8, c, &requests.back());
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  };
  round(0);  // warm-up: the connection and its window
  const double t = median_round(comm, rounds, round);
  return me == 0 ? t : 0;
}

/// Half the round trip of `bytes` between rank 0 and rank `peer` (0: none), the best of
/// `rounds` x `trips`; collective, 0 on ranks other than 0.
double ping_pong(const boost::mpi::communicator& comm, int peer, index_t bytes, int rounds,
                 int trips) {
  if (peer <= 0) return 0;
  std::vector<char> buffer(static_cast<std::size_t>(bytes), 2);
  const int me = comm.rank();
  const MPI_Comm c = comm;
  const int n = static_cast<int>(bytes);
  double best = 1e300;
  for (int k = 0; k < rounds + 1; ++k) {  // a warm-up round first
    comm.barrier();
    const double t0 = MPI_Wtime();
    for (int j = 0; j < trips; ++j) {
      if (me == 0) {
        MPI_Send(buffer.data(), n, MPI_BYTE, peer, 7, c);
        MPI_Recv(buffer.data(), n, MPI_BYTE, peer, 7, c, MPI_STATUS_IGNORE);
      } else if (me == peer) {
        MPI_Recv(buffer.data(), n, MPI_BYTE, 0, 7, c, MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), n, MPI_BYTE, 0, 7, c);
      }
    }
    if (k > 0) best = std::min(best, (MPI_Wtime() - t0) / (2.0 * trips));
  }
  return me == 0 ? best : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Serialized: REDIST_PROGRESS=thread may give an execution a progress thread.
  boost::mpi::environment env(argc, argv, boost::mpi::threading::serialized);
  boost::mpi::communicator world;
  for (int k = 1; k < argc; ++k)
    if (std::string(argv[k]) == "--help" || std::string(argv[k]) == "-h") {
      if (world.rank() == 0) std::printf("%s%s", help_intro, option_help(option_table).c_str());
      return 0;
    }
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const UsageError& e) {
    if (world.rank() == 0)
      std::fprintf(stderr, "redist-calibrate: %s: %s\n", e.argument.c_str(),
                   escape_nonprintable(e.message).c_str());
    return 2;
  }
  const redist::NodeMap& nodes = redist::node_map(world);
  // Rank 0's partners: the next rank of its node, and the first rank of another node.
  int same = 0, other = 0;
  for (int r = world.size() - 1; r > 0; --r) {
    if (nodes.node_of_rank[static_cast<std::size_t>(r)] == nodes.node_of_rank[0])
      same = r;
    else
      other = r;
  }
  const int node_ranks = static_cast<int>(
      std::count(nodes.node_of_rank.begin(), nodes.node_of_rank.end(), nodes.node_of_rank[0]));
  redist::Machine m;
  m.cores_per_node = static_cast<double>(o.cores > 0 ? o.cores : sysconf(_SC_NPROCESSORS_ONLN));
  m.cores_per_node = boost::mpi::all_reduce(world, m.cores_per_node,  // rank 0's, everywhere
                                            boost::mpi::maximum<double>());
  // s of cost_model.hpp: what the measurements below took longer for ranks sharing cores.
  const double share = redist::core_sharing(m, node_ranks);
  const double memcpy_seen = memcpy_bandwidth(world, o);
  m.memcpy_bytes_per_s = memcpy_seen * share;
  std::vector<std::pair<index_t, double>> curve;  // run bytes, seconds per run
  std::vector<double> excess;                     // of the short runs, where a cost per run shows
  for (index_t run = 64; run <= 32768; run *= 2) {
    const auto [t, beyond] = strided_run_seconds(world, o, run);
    curve.emplace_back(run, t);
    if (run <= short_run_bytes) excess.push_back(beyond);
  }
  m.copy_run_s = std::max(0.0, median(excess)) / share;
  const int trips = 200;
  m.shm_latency_s = ping_pong(world, same, 8, o.repeat, trips);
  const double shm_t = exchange_seconds(world, nodes, o.message_bytes, o.repeat, 10);
  const double ring_ratio = ring_over_memcpy(world, nodes, o.bytes, o.repeat);
  m.link_latency_s = ping_pong(world, other, 8, o.repeat, trips);
  const double link_t = link_stream_seconds(world, other, o.message_bytes,
                                            std::min(o.message_bytes, chunk_bytes), o.repeat);
  const double ping_pong_t = ping_pong(world, other, o.message_bytes, o.repeat, 2);
  if (world.rank() != 0) return 0;
  m.shm_bytes_per_s = shm_t > 0 ? static_cast<double>(o.message_bytes) / shm_t * share : 0;
  m.ring_bytes_per_s = ring_ratio * m.memcpy_bytes_per_s;
  m.link_bytes_per_s = link_t > 0 ? static_cast<double>(o.message_bytes) / link_t : 0;
  const double ping_pong_rate =
      ping_pong_t > 0 ? static_cast<double>(o.message_bytes) / ping_pong_t : 0;
  std::printf("redist-calibrate: %d ranks on %d nodes\n", world.size(), nodes.nodes);
  std::printf("  cores    %g a node, %d ranks on rank 0's: copies shared %.2fx\n", m.cores_per_node,
              node_ranks, share);
  std::printf(
      "  memcpy   %.3f GB/s per rank while it runs (%.3f seen), every rank copying %lld "
      "bytes\n",
      m.memcpy_bytes_per_s * 1e-9, memcpy_seen * 1e-9, static_cast<long long>(o.bytes));
  std::printf("  runs     %.1f ns a run beyond its bytes; strided copies (run: GB/s seen):",
              m.copy_run_s * 1e9);
  for (const auto& [run, t] : curve)
    std::printf(" %lld: %.2f", static_cast<long long>(run), static_cast<double>(run) / t * 1e-9);
  std::printf("\n");
  if (same > 0)
    std::printf("  in node  ranks 0 <-> %d: latency %.3f us; pairs exchanging at once %.3f GB/s\n",
                same, m.shm_latency_s * 1e6, m.shm_bytes_per_s * 1e-9);
  if (m.ring_bytes_per_s > 0)
    std::printf(
        "  rings    %.3f GB/s per rank while it runs, packing and unpacking (memcpy's %.2fx)\n",
        m.ring_bytes_per_s * 1e-9, m.ring_bytes_per_s / m.memcpy_bytes_per_s);
  if (other > 0)
    std::printf(
        "  link     ranks 0 <-> %d: latency %.3f us, %.3f GB/s streaming (ping-pong %.3f "
        "GB/s)\n",
        other, m.link_latency_s * 1e6, m.link_bytes_per_s * 1e-9, ping_pong_rate * 1e-9);
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << "{\"ranks\": " << world.size() << ", \"nodes\": " << nodes.nodes
      << ", \"memcpy_copy_bytes\": " << o.bytes << ", \"message_bytes\": " << o.message_bytes
      << ", \"node_ranks\": " << node_ranks << ", \"core_sharing\": " << share
      << ", \"memcpy_seen_bytes_per_s\": " << memcpy_seen
      << ", \"link_ping_pong_bytes_per_s\": " << ping_pong_rate << ",\n \"strided_copies\": [";
    for (std::size_t k = 0; k < curve.size(); ++k)
      f << (k ? ", " : "") << "{\"run_bytes\": " << curve[k].first
        << ", \"seconds_per_run\": " << curve[k].second << "}";
    f << "],\n " << machine_json_fields(m) << "}\n";
    if (!f) {
      std::fprintf(stderr, "redist-calibrate: --json: cannot write '%s'\n", o.json.c_str());
      return 2;
    }
  }
  return 0;
}
