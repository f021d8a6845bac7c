// redist-calibrate: measures the machine that predict (cost_model.hpp) needs, on the ranks
// and nodes of the job it runs in, and writes it as JSON for redist-run --machine and
// redist-plan --machine (docs/cost-model.md, "Calibration"):
//
//   memcpy_bytes_per_s   memcpy of --bytes by one rank while every rank copies (the slowest
//                        rank of the best of --repeat rounds)
//   shm_latency_s        half a round trip of an 8-byte message between rank 0 and a rank
//   shm_bytes_per_s      of its node, and a message of --message-bytes over half its round
//                        trip (MPI over shared memory)
//   link_latency_s       the same between rank 0 and the first rank of another node (0 when
//   link_bytes_per_s     the job spans one node)
//
//   mpirun -np 4 redist-calibrate --json machine.json
//
// Nodes are redist's (topology.hpp: ranks that share memory, or REDIST_RANKS_PER_NODE=k).
// Exit status: 0, or 2 for bad input (one line on rank 0 naming the option).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <mpi.h>

#include <redist/cost_model.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/machine_spec.hpp>
#include <redist/tools/spec_parser.hpp>
#include <redist/topology.hpp>

namespace {

using namespace redist::tools;
using redist::index_t;

constexpr OptionInfo option_table[] = {
    {"--bytes", "", "N", "268435456",
     "bytes each rank copies per memcpy round, >= 4096 (larger than the caches)"},
    {"--message-bytes", "", "N", "4194304", "bytes of the ping-pong's bandwidth message, >= 1"},
    {"--repeat", "", "N", "5", "rounds of each measurement (the best is kept), >= 1"},
    {"--json", "", "FILE", "none", "write the machine as JSON (rank 0)"},
    {"--help", "-h", "", "", "print this help and exit 0"},
};

constexpr const char* help_intro =
    R"(redist-calibrate: measure memcpy with every rank copying, and ping-pong latency and
bandwidth within a node and between nodes, for redist-run --machine and redist-plan
--machine (the cost model's Machine, docs/cost-model.md).

Usage: mpirun -np N redist-calibrate [OPTION]...

Options:
)";

struct Options {
  index_t bytes = index_t{256} << 20;  // 64 MiB measured 1.8x faster here: caches
  index_t message_bytes = index_t{4} << 20;
  int repeat = 5;
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
    else if (a == "--json") {
      if (const std::string why = why_unwritable(v); !why.empty())
        throw UsageError{a, "cannot write '" + v + "': " + why};
      o.json = v;
    }
  }
  return o;
}

/// memcpy bandwidth of one rank while every rank copies: the slowest rank's time of the
/// best round.
double memcpy_bandwidth(const boost::mpi::communicator& comm, const Options& o) {
  std::vector<char> a(static_cast<std::size_t>(o.bytes), 1), b(static_cast<std::size_t>(o.bytes));
  std::memcpy(b.data(), a.data(), a.size());  // pages present
  double best = 1e300;
  for (int k = 0; k < o.repeat; ++k) {
    comm.barrier();
    const double t0 = MPI_Wtime();
    std::memcpy(k % 2 ? a.data() : b.data(), k % 2 ? b.data() : a.data(), a.size());
    const double t = MPI_Wtime() - t0;
    best = std::min(best, boost::mpi::all_reduce(comm, t, boost::mpi::maximum<double>()));
  }
  return static_cast<double>(o.bytes) / best;
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
  boost::mpi::environment env(argc, argv);
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
  redist::Machine m;
  m.memcpy_bytes_per_s = memcpy_bandwidth(world, o);
  const int trips = 200;
  m.shm_latency_s = ping_pong(world, same, 8, o.repeat, trips);
  const double shm_t = ping_pong(world, same, o.message_bytes, o.repeat, 10);
  m.link_latency_s = ping_pong(world, other, 8, o.repeat, trips);
  const double link_t = ping_pong(world, other, o.message_bytes, o.repeat, 10);
  if (world.rank() != 0) return 0;
  m.shm_bytes_per_s = shm_t > 0 ? static_cast<double>(o.message_bytes) / shm_t : 0;
  m.link_bytes_per_s = link_t > 0 ? static_cast<double>(o.message_bytes) / link_t : 0;
  std::printf("redist-calibrate: %d ranks on %d nodes\n", world.size(), nodes.nodes);
  std::printf("  memcpy   %.3f GB/s per rank, every rank copying %lld bytes\n",
              m.memcpy_bytes_per_s * 1e-9, static_cast<long long>(o.bytes));
  if (same > 0)
    std::printf("  in node  ranks 0 <-> %d: latency %.3f us, %.3f GB/s\n", same,
                m.shm_latency_s * 1e6, m.shm_bytes_per_s * 1e-9);
  if (other > 0)
    std::printf("  link     ranks 0 <-> %d: latency %.3f us, %.3f GB/s\n", other,
                m.link_latency_s * 1e6, m.link_bytes_per_s * 1e-9);
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << "{\"ranks\": " << world.size() << ", \"nodes\": " << nodes.nodes
      << ", \"memcpy_copy_bytes\": " << o.bytes << ", \"message_bytes\": " << o.message_bytes
      << ",\n " << machine_json_fields(m) << "}\n";
    if (!f) {
      std::fprintf(stderr, "redist-calibrate: --json: cannot write '%s'\n", o.json.c_str());
      return 2;
    }
  }
  return 0;
}
