// Test helper for scripts/cluster.sh: an MPI hello that shows where each rank landed, and the
// few behaviours run_cluster_tests.sh needs (a wait, a timed barrier, a bulk transfer, an exit
// code). Build: mpicxx -O2 -o hello hello.cpp
//
//   hello [--sleep S] [--timeout T] [--send BYTES] [--env NAME] [--exit C]
//
// Every rank prints one line:
//   hello: rank R of S host H local_size L node_size M [NAME=VALUE]
// where L is Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE and M the size of the rank's
// MPI_COMM_TYPE_SHARED group; both are the ranks per node when the launcher sees the nodes.
//   --sleep S      each rank sleeps S seconds after printing (a window for faults and signals)
//   --timeout T    then a barrier that gives up after T seconds (default 60): the rank prints
//                  "hello: rank R: barrier made no progress in T s" and exits 4 at once, without
//                  MPI_Finalize, as a library that detects a dead link would
//   --send BYTES   rank 0 sends BYTES to the last rank (on the last node), in 4 MiB messages,
//                  and prints the time until the last rank acknowledged them
//   --env NAME     append NAME=VALUE (or NAME unset) of this rank's environment to the line
//   --exit C       the last rank exits with C after MPI_Finalize; the others exit 0
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define OMPI_SKIP_MPICXX 1  // the C API only: no C++ bindings and their warnings
#include <unistd.h>

#include <mpi.h>

namespace {

struct Options {
  double sleep_s = 0;
  double timeout_s = 60;
  long long send_bytes = 0;
  const char* env_name = nullptr;
  int exit_code = 0;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "hello: %s\n", why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (k + 1 >= argc) usage(("missing value after " + arg).c_str());
    const char* value = argv[++k];
    if (arg == "--sleep") {
      o.sleep_s = std::atof(value);
    } else if (arg == "--timeout") {
      o.timeout_s = std::atof(value);
    } else if (arg == "--send") {
      o.send_bytes = std::atoll(value);
    } else if (arg == "--env") {
      o.env_name = value;
    } else if (arg == "--exit") {
      o.exit_code = std::atoi(value);
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  return o;
}

void print_where(const Options& o, int rank, int size) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const char* local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  std::string env;
  if (o.env_name != nullptr) {
    const char* v = std::getenv(o.env_name);
    env = std::string(" ") + o.env_name + (v != nullptr ? std::string("=") + v : " unset");
  }
  std::printf("hello: rank %d of %d host %s local_size %s node_size %d%s\n", rank, size, host,
              local_size != nullptr ? local_size : "unset", node_size, env.c_str());
  std::fflush(stdout);
}

// A barrier that cannot hang: a rank whose peers are behind a dead link gives up.
void timed_barrier(double timeout_s, int rank) {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE), done == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "hello: rank %d: barrier made no progress in %g s\n", rank, timeout_s);
      std::fflush(stderr);
      std::_Exit(4);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Rank 0 -> last rank, timed from the first byte sent to the last rank's one-byte reply.
void send_bulk(long long bytes, int rank, int size) {
  constexpr long long chunk = 4 << 20;
  std::vector<char> buffer(static_cast<std::size_t>(std::min(bytes, chunk)), 1);
  const int last = size - 1;
  char ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long long sent = 0; sent < bytes; sent += chunk) {
    const int n = static_cast<int>(std::min(chunk, bytes - sent));
    if (rank == 0) MPI_Send(buffer.data(), n, MPI_CHAR, last, 0, MPI_COMM_WORLD);
    if (rank == last) MPI_Recv(buffer.data(), n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == last) MPI_Send(&ack, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(&ack, 1, MPI_CHAR, last, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double t = MPI_Wtime() - t0;
    std::printf("hello: sent %lld bytes from rank 0 to rank %d in %.3f s: %.3f Gbit/s\n", bytes,
                last, t, 8e-9 * static_cast<double>(bytes) / t);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  print_where(o, rank, size);
  if (o.sleep_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.sleep_s));
  timed_barrier(o.timeout_s, rank);
  if (o.send_bytes > 0 && size > 1) send_bulk(o.send_bytes, rank, size);
  MPI_Finalize();
  return rank == size - 1 ? o.exit_code : 0;
}
