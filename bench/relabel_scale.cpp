/// @file bench/relabel_scale.cpp
/// Relabeling at scale (issue 45, point 1): best_relabeling and best_node_relabeling
/// (relabel.hpp, LEMON's network simplex on the non-zero volumes) on random volume
/// matrices, one core. Sparse: every source rank holds elements of `per_row` distinct
/// random roles (8 or 64), P = 1024 .. 65536, given as SparseVolumes (the gathered rows of
/// volume_row); dense: every entry non-zero, P = 1024 .. 4096, given as the P x P vector.
/// Volumes uniform in [1, 2^20]; nodes of 64 consecutive ranks for the node-aware one.
/// Each case runs in a child process of its own, so that its peak resident memory
/// (getrusage's ru_maxrss, the matrix included) is its own. Results in bench/README.md
/// ("Relabeling at scale").
///
///   build/bench/relabel_scale [--quick] [--json FILE]
///
/// --quick: P <= 4096 only. Prints a table; --json writes the cases
/// (bench/results/relabel-scale.json).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include <redist/relabel.hpp>

#include <sys/resource.h>
#include <sys/wait.h>

namespace {

using redist::index_t;

struct Case {
  int P = 0;
  int per_row = 0;  ///< P: dense
  bool node_aware = false;
};

constexpr int ranks_per_node = 64;

struct Result {
  double seconds = 0;
  index_t nonzeros = 0;
  index_t kept = 0;        ///< elements on their rank after the relabeling
  index_t inter_node = 0;  ///< elements between nodes after it
  double input_mib = 0;    ///< the matrix as given
};

std::vector<int> nodes_of(int P) {
  std::vector<int> nodes(static_cast<std::size_t>(P));
  for (int s = 0; s < P; ++s) nodes[static_cast<std::size_t>(s)] = s / ranks_per_node;
  return nodes;
}

/// Runs one case in this process.
Result run(const Case& c) {
  std::mt19937_64 rng(0x7e1abe1 + static_cast<unsigned>(c.P) * 131 +
                      static_cast<unsigned>(c.per_row));
  const auto value = [&] { return static_cast<index_t>(rng() % (index_t{1} << 20)) + 1; };
  const std::vector<int> nodes = nodes_of(c.P);
  const auto P = static_cast<std::size_t>(c.P);
  Result out;
  if (c.per_row >= c.P) {
    std::vector<index_t> volume(P * P);
    for (auto& v : volume) v = value();
    out.nonzeros = static_cast<index_t>(volume.size());
    out.input_mib = static_cast<double>(volume.size() * sizeof(index_t)) / (1 << 20);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<int> perm = c.node_aware ? redist::best_node_relabeling(volume, nodes)
                                               : redist::best_relabeling(volume, c.P);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const redist::TransferSplit split = redist::split_transfers(volume, perm, nodes);
    out.kept = split.local;
    out.inter_node = split.inter_node;
    return out;
  }
  redist::SparseVolumes volumes;
  volumes.row_begin.reserve(P + 1);
  volumes.entries.reserve(P * static_cast<std::size_t>(c.per_row));
  std::vector<redist::VolumeEntry> row;
  for (std::size_t s = 0; s < P; ++s) {
    row.clear();
    while (row.size() < static_cast<std::size_t>(c.per_row)) {  // distinct roles
      const auto r = static_cast<int>(rng() % P);
      bool seen = false;
      for (const auto& e : row) seen = seen || e.role == r;
      if (!seen) row.push_back({r, value()});
    }
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.role < b.role; });
    volumes.add_row(row);
  }
  out.nonzeros = static_cast<index_t>(volumes.entries.size());
  out.input_mib =
      static_cast<double>(volumes.entries.size() * sizeof(redist::VolumeEntry)) / (1 << 20);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int> perm = c.node_aware ? redist::best_node_relabeling(volumes, nodes)
                                             : redist::best_relabeling(volumes);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const redist::TransferSplit split = redist::split_transfers(volumes, perm, nodes);
  out.kept = split.local;
  out.inter_node = split.inter_node;
  return out;
}

/// Runs one case in a child; its Result and the child's peak resident MiB.
bool run_in_child(const Case& c, Result& result, double& peak_mib) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(fd[0]);
    const Result r = run(c);
    const bool ok = write(fd[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    _exit(ok ? 0 : 1);
  }
  close(fd[1]);
  const bool got = read(fd[0], &result, sizeof result) == static_cast<ssize_t>(sizeof result);
  close(fd[0]);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return false;
  peak_mib = static_cast<double>(usage.ru_maxrss) / 1024;  // KiB on Linux
  return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string json;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[k], "--json") == 0 && k + 1 < argc) {
      json = argv[++k];
    } else {
      std::fprintf(stderr, "usage: relabel_scale [--quick] [--json FILE]\n");
      return 2;
    }
  }
  std::vector<Case> cases;
  for (const bool node_aware : {false, true}) {
    for (const int per_row : {8, 64})
      for (const int P : {1024, 4096, 16384, 65536})
        if (!quick || P <= 4096) cases.push_back({P, per_row, node_aware});
    for (const int P : {1024, 2048, 4096})
      if (!quick || P <= 2048) cases.push_back({P, P, node_aware});
  }
  double load_start[3] = {0, 0, 0}, load_end[3] = {0, 0, 0};
  getloadavg(load_start, 3);
  std::string rows;
  std::printf("%-10s %7s %7s %11s %9s %10s %10s\n", "objective", "P", "per_row", "nonzeros",
              "seconds", "peak_MiB", "input_MiB");
  for (const Case& c : cases) {
    Result r;
    double peak = 0;
    if (!run_in_child(c, r, peak)) {
      std::fprintf(stderr, "relabel_scale: case P=%d per_row=%d failed\n", c.P, c.per_row);
      return 1;
    }
    const char* objective = c.node_aware ? "node-aware" : "flat";
    std::printf("%-10s %7d %7d %11lld %9.3f %10.1f %10.1f\n", objective, c.P, c.per_row,
                static_cast<long long>(r.nonzeros), r.seconds, peak, r.input_mib);
    std::fflush(stdout);
    char line[512];
    std::snprintf(
        line, sizeof line,
        "    {\"objective\": \"%s\", \"P\": %d, \"per_row\": %d, \"dense\": %s, "
        "\"ranks_per_node\": %d, \"nonzeros\": %lld, \"solver\": \"lemon-network-simplex\", "
        "\"seconds\": %.4f, \"peak_rss_mib\": %.1f, \"input_mib\": %.1f, "
        "\"kept\": %lld, \"inter_node\": %lld}",
        objective, c.P, c.per_row, c.per_row >= c.P ? "true" : "false", ranks_per_node,
        static_cast<long long>(r.nonzeros), r.seconds, peak, r.input_mib,
        static_cast<long long>(r.kept), static_cast<long long>(r.inter_node));
    rows += (rows.empty() ? "" : ",\n") + std::string(line);
  }
  getloadavg(load_end, 3);
  if (!json.empty()) {
    std::FILE* f = std::fopen(json.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "relabel_scale: cannot write %s\n", json.c_str());
      return 1;
    }
    std::fprintf(f,
                 "{\n  \"benchmark\": \"relabel_scale\", \"quick\": %s, \"cores_used\": 1, "
                 "\"loadavg_start\": [%.2f, %.2f, %.2f], \"loadavg_end\": [%.2f, %.2f, %.2f],\n"
                 "  \"cases\": [\n%s\n  ]\n}\n",
                 quick ? "true" : "false", load_start[0], load_start[1], load_start[2], load_end[0],
                 load_end[1], load_end[2], rows.c_str());
    std::fclose(f);
  }
  return 0;
}
