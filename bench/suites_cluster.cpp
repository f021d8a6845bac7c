/// @file bench/suites_cluster.cpp
/// Suite cluster (issue 25, point 7): the standard cases a-d on several nodes whose links
/// have a known rate, run as one job through scripts/cluster.sh:
///
///   export BENCH_LINK_RATE=1gbit
///   scripts/cluster.sh --nodes 2 --ranks-per-node 2 --rate $BENCH_LINK_RATE --
///       redist-bench --suite cluster --repeat 5 --json cluster-2x2-1gbit.json   (one line)
///
/// Cases for P ranks: a 256² 1xP -> 100² Px1, b 64² Px1 -> 64² 1xP, c 1024² Px1 -> 32² Px1,
/// d 128x96 Px1 -> 100x70 1xP (the standard grids on 2 ranks). With BENCH_LINK_RATE (tc's
/// units: 1gbit, 2.5gbit, 10gbit, or bits/s) each case is scaled up or down from the
/// standard extents until its link bound is at least BENCH_LINK_SECONDS (0.5 s; 0.05 s with
/// --quick); without it the standard extents run and no bound is reported.
///
/// Per case, ScaLAPACK storage, default ExecutionOptions (the node window within a node):
/// - link bound = max over nodes of max(bytes the node sends, bytes it receives over its
///   link) / rate, from the transfer-volume matrix and redist::node_map (the ranks' real
///   nodes); utilisation = bound / time;
/// - redist under two schedules between nodes, the default ("redist_scalapack": the shift,
///   engine/node_schedule.hpp) and all at once ("redist_all_at_once"), one after the other
///   in the same job, each with its utilisation and node 0's link shares;
/// - redist (Redistributor built once, verified, `--repeat` timed runs) and then ScaLAPACK's
///   pdgemr2d on the same arrays (verified, `--repeat` timed runs), each run between
///   barriers, max over ranks; ratio = pdgemr2d / redist;
/// - per timed run: CPU seconds of every rank (user + system, getrusage) and the share of
///   the machine's cores that was busy (/proc/stat, all processes: the simulated nodes share
///   the machine), to show when the cores rather than the link set the pace;
/// - node 0's link during the timed runs (rank 0 samples its byte counters every 5 ms): the
///   share of the time it carried data one way only, both ways at once, or neither;
/// - bytes between nodes with the labels as run, with the flat relabeling
///   (best_relabeling: most elements stay on their rank) and with the node-aware one
///   (best_node_relabeling: fewest elements between nodes first), and each one's bound.
///   The relabeled layouts are not run. At the end, the same three counts for every pair
///   of P-rank grids (1xP ... Px1) at the standard extents ("cluster_relabel"), to show
///   where node-aware relabeling differs from flat at all.
/// Once per job, an anchor: what plain MPI carries over one link, rank 0 and the first rank
/// of node 1 exchanging BENCH_LINK_SECONDS x rate bytes both ways at once in 4 MiB messages
/// (best of 3). MPI bound = the busiest link's bytes at that rate: what the link delivers to
/// a program on this machine under this load (TCP/IP headers, ACKs, the cores' share).

#include <array>
#include <atomic>
#include <dirent.h>
#include <thread>
#include <unistd.h>

#include <redist/relabel.hpp>
#include <redist/topology.hpp>

#include "bench.hpp"
#include <sys/resource.h>

namespace bench {

namespace {

/// BENCH_LINK_RATE in bits/s: a number with tc's unit (bit, kbit, mbit, gbit, tbit; bps,
/// kbps, mbps, gbps, tbps are bytes/s), a bare number being bits/s; 0 when unset.
/// @throws std::invalid_argument naming the variable and value if it does not parse.
double link_rate_bits() {
  const char* e = std::getenv("BENCH_LINK_RATE");
  if (!e || !*e) return 0;
  char* end = nullptr;
  const double x = std::strtod(e, &end);
  const std::string unit(end);
  const std::vector<std::pair<std::string, double>> units{
      {"", 1},    {"bit", 1},    {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}, {"tbit", 1e12},
      {"bps", 8}, {"kbps", 8e3}, {"mbps", 8e6}, {"gbps", 8e9}, {"tbps", 8e12}};
  for (const auto& [name, scale] : units)
    if (unit == name && x > 0) return x * scale;
  throw std::invalid_argument(std::string("BENCH_LINK_RATE: '") + e +
                              "' is not a rate like 1gbit, 2.5gbit or 10gbit");
}

/// BENCH_LINK_SECONDS, the least link bound a case is scaled to.
double target_seconds(const Options& o) {
  const char* e = std::getenv("BENCH_LINK_SECONDS");
  return e && *e ? std::atof(e) : (o.quick ? 0.05 : 0.5);
}

/// The standard cases a-d on P ranks: grids 1x2 / 2x1 become 1xP / Px1.
std::vector<Case> cluster_cases(const Options& o, int P) {
  std::vector<Case> v = standard_cases(o);
  for (Case& c : v) {
    c.suite = "cluster";
    c.ps = c.ps == 1 ? 1 : P, c.qs = c.qs == 1 ? 1 : P;
    c.pt = c.pt == 1 ? 1 : P, c.qt = c.qt == 1 ? 1 : P;
    // "a 256@1x2->100@2x1" -> "a 256@1xP->100@Px1"
    const auto grid = [](int p, int q) { return std::to_string(p) + "x" + std::to_string(q); };
    const std::string tiles_s = c.name.substr(2, c.name.find('@') - 2);
    const std::size_t arrow = c.name.find("->");
    const std::string tiles_t = c.name.substr(arrow + 2, c.name.rfind('@') - arrow - 2);
    c.name = c.name.substr(0, 2) + tiles_s + "@" + grid(c.ps, c.qs) + "->" + tiles_t + "@" +
             grid(c.pt, c.qt);
  }
  return v;
}

/// Bytes over each node's link when role r is played by rank perm[r].
struct LinkBytes {
  std::vector<double> out, in;  ///< per node: sent over its link, received over it
  double inter_node = 0;        ///< bytes that cross nodes, all links together
  double busiest() const {
    double m = 0;
    for (std::size_t n = 0; n < out.size(); ++n) m = std::max({m, out[n], in[n]});
    return m;
  }
};

LinkBytes link_bytes(const std::vector<index_t>& volume, const std::vector<int>& perm,
                     const redist::NodeMap& nodes) {
  const std::size_t P = perm.size();
  LinkBytes lb;
  lb.out.assign(static_cast<std::size_t>(nodes.nodes), 0);
  lb.in.assign(static_cast<std::size_t>(nodes.nodes), 0);
  for (std::size_t r = 0; r < P; ++r) {
    const auto to = static_cast<std::size_t>(nodes.node_of_rank[static_cast<std::size_t>(perm[r])]);
    for (std::size_t s = 0; s < P; ++s) {
      const auto from = static_cast<std::size_t>(nodes.node_of_rank[s]);
      if (from == to) continue;
      const double bytes = static_cast<double>(volume[s * P + r]) * sizeof(double);
      lb.out[from] += bytes;
      lb.in[to] += bytes;
      lb.inter_node += bytes;
    }
  }
  return lb;
}

std::vector<int> identity(int P) {
  std::vector<int> perm(static_cast<std::size_t>(P));
  std::iota(perm.begin(), perm.end(), 0);
  return perm;
}

std::vector<index_t> volumes_of(const Case& c, int P) {
  return redist::transfer_volumes(source_layout(c), target_layout(c),
                                  redist::Region::whole({c.M, c.N}), P);
}

/// c with both extents scaled by f, rounded up to multiples of 64.
Case scaled(const Case& c, double f) {
  Case s = c;
  const auto up = [](double x) { return static_cast<index_t>(std::ceil(x / 64) * 64); };
  s.M = up(static_cast<double>(c.M) * f);
  s.N = up(static_cast<double>(c.N) * f);
  return s;
}

/// Scales c (on rank 0; broadcast) until the busiest link carries at least
/// `seconds` x rate: bytes grow with the square of the extents.
Case sized(const mpi::communicator& comm, const Case& c, const redist::NodeMap& nodes,
           double bytes_per_s, double seconds) {
  index_t ext[2] = {c.M, c.N};
  if (comm.rank() == 0 && bytes_per_s > 0 && nodes.nodes > 1) {
    const double want = seconds * bytes_per_s;
    const double base =
        link_bytes(volumes_of(c, comm.size()), identity(comm.size()), nodes).busiest();
    double f = std::sqrt(want / base);
    Case s = scaled(c, f);
    while (link_bytes(volumes_of(s, comm.size()), identity(comm.size()), nodes).busiest() < want)
      s = scaled(c, f *= 1.02);
    ext[0] = s.M, ext[1] = s.N;
  }
  MPI_Bcast(ext, 2, MPI_INT64_T, 0, comm);
  Case s = c;
  s.M = ext[0], s.N = ext[1];
  return s;
}

/// CPU seconds of this process so far: user, system (the kernel's TCP and veth work).
std::pair<double, double> cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec;
  };
  return {sec(u.ru_utime), sec(u.ru_stime)};
}

/// The machine's busy and total jiffies (all cores, all processes): /proc/stat's first line.
std::pair<double, double> machine_jiffies() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  double v[10] = {};
  for (double& x : v) in >> x;
  double total = 0;
  for (double x : v) total += x;
  total -= v[8] + v[9];                 // guest time is already in user
  return {total - v[3] - v[4], total};  // busy = all but idle and iowait
}

/// This node's link: the one network interface besides lo (scripts/cluster.sh's veth end),
/// or "" where there is not exactly one (a machine's own interfaces).
std::string link_interface() {
  std::vector<std::string> names;
  if (DIR* d = opendir("/sys/class/net")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.' && std::string(e->d_name) != "lo") names.emplace_back(e->d_name);
    closedir(d);
  }
  return names.size() == 1 ? names[0] : "";
}

/// Samples the byte counters of this node's link every 5 ms on a thread of its own (which
/// makes no MPI call), to tell a link that carries both directions at once from one whose
/// directions take turns.
class LinkSampler {
 public:
  using Clock = std::chrono::steady_clock;
  /// Shares of the sampled time, in %: only sending, only receiving, both, neither.
  using Shares = std::array<double, 4>;

  explicit LinkSampler(const std::string& interface)
      : dir_(interface.empty() ? "" : "/sys/class/net/" + interface + "/statistics/") {}
  ~LinkSampler() { stop(); }
  bool active() const { return !dir_.empty(); }
  void start() {
    if (!active()) return;
    samples_.clear();
    stop_ = false;
    thread_ = std::thread([this] {
      while (!stop_) {
        samples_.push_back({Clock::now(), counter("tx_bytes"), counter("rx_bytes")});
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
  }
  void stop() {
    if (!thread_.joinable()) return;
    stop_ = true;
    thread_.join();
  }
  /// The shares within `runs` (start, end), a direction counting as busy above `threshold`
  /// bytes/s; NaN where nothing was sampled.
  Shares shares(const std::vector<std::pair<Clock::time_point, Clock::time_point>>& runs,
                double threshold) const {
    Shares t{0, 0, 0, 0};
    for (std::size_t k = 1; k < samples_.size(); ++k) {
      const Sample &a = samples_[k - 1], &b = samples_[k];
      const auto mid = a.t + (b.t - a.t) / 2;
      if (std::none_of(runs.begin(), runs.end(),
                       [&](const auto& r) { return r.first <= mid && mid < r.second; }))
        continue;
      const double dt = std::chrono::duration<double>(b.t - a.t).count();
      const bool tx = (b.tx - a.tx) / dt > threshold, rx = (b.rx - a.rx) / dt > threshold;
      t[tx && rx ? 2 : tx ? 0 : rx ? 1 : 3] += dt;
    }
    const double all = t[0] + t[1] + t[2] + t[3];
    for (double& x : t) x = all > 0 ? 100 * x / all : NAN;
    return t;
  }

 private:
  struct Sample {
    Clock::time_point t;
    double tx, rx;
  };
  double counter(const char* name) const {
    double x = 0;
    std::ifstream(dir_ + name) >> x;
    return x;
  }
  std::string dir_;
  std::vector<Sample> samples_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// Timed runs of one variant, with the CPU its ranks and the machine spent.
struct Runs {
  Variant v;
  std::vector<double> cpu_per_rank;  ///< CPU seconds per run of each rank (rank 0 only)
  std::vector<double> sys_per_rank;  ///< of which in the kernel (system time)
  double machine_busy = NAN;         ///< busy share of all cores during the runs (rank 0)
  LinkSampler::Shares link{NAN, NAN, NAN, NAN};  ///< node 0's link during the runs (rank 0)
  double cpu_sum() const { return std::accumulate(cpu_per_rank.begin(), cpu_per_rank.end(), 0.0); }
  double sys_sum() const { return std::accumulate(sys_per_rank.begin(), sys_per_rank.end(), 0.0); }
  double cpu_max() const {
    return cpu_per_rank.empty() ? NAN : *std::max_element(cpu_per_rank.begin(), cpu_per_rank.end());
  }
};

/// `repeat` runs of f: barrier, run, time = max over ranks, and the CPU around each run;
/// `sampler` (rank 0's, when active) watches node 0's link during the runs.
template <class F>
Runs timed_runs(const mpi::communicator& comm, int repeat, LinkSampler& sampler, double threshold,
                F&& f) {
  Runs r;
  double user = 0, sys = 0, busy = 0, total = 0;
  std::vector<std::pair<LinkSampler::Clock::time_point, LinkSampler::Clock::time_point>> runs;
  sampler.start();
  for (int k = 0; k < repeat; ++k) {
    redist::transport::barrier_yielding(comm);
    const auto j0 = machine_jiffies();
    const auto c0 = cpu_seconds();
    const auto s0 = LinkSampler::Clock::now();
    const double t0 = now();
    f();
    const double dt = now() - t0;
    runs.emplace_back(s0, LinkSampler::Clock::now());
    const auto c1 = cpu_seconds();
    user += c1.first - c0.first, sys += c1.second - c0.second;
    const auto j1 = machine_jiffies();
    busy += j1.first - j0.first, total += j1.second - j0.second;
    r.v.timing.times.push_back(max_over(comm, dt));
  }
  mpi::gather(comm, (user + sys) / repeat, r.cpu_per_rank, 0);
  mpi::gather(comm, sys / repeat, r.sys_per_rank, 0);
  r.machine_busy = total > 0 ? busy / total : NAN;
  sampler.stop();
  if (sampler.active()) r.link = sampler.shares(runs, threshold);
  return r;
}

/// What plain MPI carries over node 0's link: rank 0 and the first rank of node 1 exchange
/// `bytes` both ways at once, in 4 MiB messages all posted at once (Irecv + Isend), best of
/// 3; bytes/s per direction. Its waits yield, as redist's do (transport/yielding_collectives.hpp).
double link_anchor(const mpi::communicator& comm, const redist::NodeMap& nodes, double bytes) {
  int peer = -1;
  for (int r = 0; r < comm.size(); ++r)
    if (peer < 0 && nodes.node_of_rank[static_cast<std::size_t>(r)] == 1) peer = r;
  if (peer < 0 || bytes <= 0) return NAN;
  const int me = comm.rank();
  const auto n = static_cast<std::size_t>(bytes);
  const std::size_t chunk = std::size_t{1} << 22;
  double best = INFINITY;
  std::vector<char> out(me == 0 || me == peer ? n : 0, 1), in(out.size(), 0);
  for (int k = 0; k < 3; ++k) {
    redist::transport::barrier_yielding(comm);
    if (me == 0 || me == peer) {
      const int other = me == 0 ? peer : 0;
      const double t0 = now();
      std::vector<MPI_Request> req;
      for (std::size_t off = 0; off < n; off += chunk) {
        const int len = static_cast<int>(std::min(chunk, n - off));
        req.emplace_back();
        MPI_Irecv(in.data() + off, len, MPI_CHAR, other, 7, comm, &req.back());
        req.emplace_back();
        MPI_Isend(out.data() + off, len, MPI_CHAR, other, 7, comm, &req.back());
      }
      for (MPI_Request& r : req) redist::transport::wait_yielding(r);
      best = std::min(best, now() - t0);
    }
  }
  best = max_over(comm, me == 0 || me == peer ? best : 0.0);
  return bytes / best;
}

std::string json_array(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + json_number(v[k]);
  return s + "]";
}

std::string json_ints(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

/// Relabeling beyond the cases as run (rank 0, nothing moved): every case a-d at its
/// standard extents with every pair of P-rank grids (1xP, ..., Px1) as source and target;
/// bytes between nodes with the labels as given, flat and node-aware relabeling. A JSON
/// array, one object per pair; prints the pairs where the three differ.
std::string relabel_table(const Options& o, int P, const redist::NodeMap& nodes) {
  std::vector<std::pair<int, int>> grids;
  for (int p = 1; p <= P; ++p)
    if (P % p == 0) grids.emplace_back(p, P / p);
  std::ostringstream json;
  json << "[";
  bool first = true;
  std::printf(
      "relabeling, all pairs of %d-rank grids (standard extents; MB between nodes as "
      "given / flat / node-aware), pairs where they differ:\n",
      P);
  for (Case c : standard_cases(o))
    for (const auto& [ps, qs] : grids)
      for (const auto& [pt, qt] : grids) {
        c.ps = ps, c.qs = qs, c.pt = pt, c.qt = qt;
        const std::vector<index_t> volume = volumes_of(c, P);
        const double given = link_bytes(volume, identity(P), nodes).inter_node;
        const double flat =
            link_bytes(volume, redist::best_relabeling(volume, P), nodes).inter_node;
        const double node_aware =
            link_bytes(volume, redist::best_node_relabeling(volume, nodes.node_of_rank), nodes)
                .inter_node;
        char name[64];
        std::snprintf(name, sizeof name, "%c %dx%d->%dx%d", c.name[0], ps, qs, pt, qt);
        json << (first ? "" : ",") << "\n    {\"case\": " << json_string(name) << ", \"M\": " << c.M
             << ", \"N\": " << c.N << ", \"inter_node_bytes\": " << json_number(given)
             << ", \"inter_node_bytes_flat\": " << json_number(flat)
             << ", \"inter_node_bytes_node_aware\": " << json_number(node_aware) << "}";
        first = false;
        if (given != flat || flat != node_aware)
          std::printf("  %-16s %8.1f %8.1f %8.1f\n", name, given / 1e6, flat / 1e6,
                      node_aware / 1e6);
      }
  json << "\n  ]";
  return json.str();
}

}  // namespace

void suite_cluster(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  const int P = comm.size();
  if (P < 2) {
    if (root) std::printf("cluster suite needs 2 ranks; skipped\n");
    return;
  }
  const redist::NodeMap& nodes = redist::node_map(comm);
  const double rate = link_rate_bits();
  const double bytes_per_s = rate / 8;
  const double seconds = target_seconds(o);
  if (root) {
    std::printf(
        "\n== suite cluster (%d nodes, node of each rank %s, link rate %s, ScaLAPACK storage, "
        "MPI btl: %s) ==\n",
        nodes.nodes, json_ints(nodes.node_of_rank).c_str(),
        rate > 0 ? (json_number(rate / 1e9) + " Gbit/s").c_str() : "unknown", mpi_btl().c_str());
    if (nodes.nodes < 2)
      std::printf("note: one node; run it through scripts/cluster.sh for a link to measure\n");
    std::printf("%-24s %11s %8s %7s %15s %15s %12s %15s %12s %14s %6s %13s %7s %14s %20s\n", "case",
                "M x N", "link MB", "bound s", "redist med/min", "pdgemr2d med/min", "util med/max",
                "all-once med/min", "util a med/max", "link0 a 1w/2w/0", "ratio", "cpu/run r/pd",
                "busy %", "link0 1w/2w/0 %", "inter-node MB id/fl/nd");
  }
  // The anchor at the size of a case's busiest link (the target bound at the rate).
  const double anchor_bytes = bytes_per_s > 0 ? seconds * bytes_per_s : 0;
  const double b_link = nodes.nodes > 1 ? link_anchor(comm, nodes, anchor_bytes) : NAN;
  // Rank 0 watches node 0's link; a direction is busy above a quarter of the rate.
  LinkSampler sampler(root && rate > 0 && nodes.nodes > 1 ? link_interface() : "");
  const double busy_link = bytes_per_s / 4;
  std::ostringstream cases_json;
  bool first = true;
  for (const Case& base : cluster_cases(o, P)) {
    if (!selected(o, base.name)) continue;
    const Case c = sized(comm, base, nodes, bytes_per_s, seconds);
    Result res;
    res.c = c;
    res.eq4 = res.b_memcpy = res.b_net = res.floor = NAN;  // not this suite's model

    // Volumes and relabelings (rank 0: every role's plan, before the matrices exist).
    LinkBytes as_run, flat, node_aware;
    std::vector<int> perm_flat, perm_node;
    double local_bytes[3] = {0, 0, 0};
    if (root) {
      const std::vector<index_t> volume = volumes_of(c, P);
      perm_flat = redist::best_relabeling(volume, P);
      perm_node = redist::best_node_relabeling(volume, nodes.node_of_rank);
      as_run = link_bytes(volume, identity(P), nodes);
      flat = link_bytes(volume, perm_flat, nodes);
      node_aware = link_bytes(volume, perm_node, nodes);
      const std::vector<int> id = identity(P);
      const std::vector<int>* perms[3] = {&id, &perm_flat, &perm_node};
      for (int k = 0; k < 3; ++k)
        local_bytes[k] = static_cast<double>(
                             redist::split_transfers(volume, *perms[k], nodes.node_of_rank).local) *
                         sizeof(double);
    }
    const double bound = bytes_per_s > 0 ? as_run.busiest() / bytes_per_s : NAN;
    // The same bytes at the rate plain MPI reached over one link in this job.
    const double mpi_bound = root ? as_run.busiest() / b_link : NAN;

    ScalapackMatrix a(source_layout(c), {}, comm.rank());
    ScalapackMatrix b(target_layout(c), {}, comm.rank());
    fill_source(c, a);

    // redist under each schedule between nodes (the default: "redist_scalapack"; all at
    // once: "redist_all_at_once"): built once, verified, timed; freed before the next
    // allocates its buffers.
    const auto run_redist = [&](redist::InterNodeSchedule schedule, const char* name) {
      Runs runs;
      redist::ExecutionOptions x;
      x.inter_node_schedule = schedule;
      fill_sentinel(b);
      comm.barrier();
      const double t0 = now();
      redist::Redistributor r(a, b, comm, redist::Region::whole({c.M, c.N}), {}, x);
      const double plan_seconds = max_over(comm, now() - t0);
      r.redistribute();
      const long bad = count_mismatches(comm, c, b);
      runs = timed_runs(comm, o.repeat, sampler, busy_link, [&] { r.redistribute(); });
      runs.v.mismatches = bad + count_mismatches(comm, c, b);
      if (schedule == redist::InterNodeSchedule::automatic) {
        res.stats.plan_seconds = plan_seconds;
        collect_plan_stats(comm, r, res.stats);
      }
      runs.v.name = name;
      runs.v.ran = true;
      res.variants.push_back(runs.v);
      return runs;
    };
    const Runs rd = run_redist(redist::InterNodeSchedule::automatic, "redist_scalapack");
    const Runs ra = run_redist(redist::InterNodeSchedule::all_at_once, "redist_all_at_once");

    Runs pd;
#if REDIST_HAVE_SCALAPACK
    if (o.scalapack) {
      const int M = static_cast<int>(c.M), N = static_cast<int>(c.N), one = 1;
      const auto [pa, lda] = scalapack_storage(a);
      const auto [pb, ldb] = scalapack_storage(b);
      const int desca[9] = {1,
                            blacs_context(c.ps, c.qs),
                            M,
                            N,
                            static_cast<int>(c.mbs),
                            static_cast<int>(c.nbs),
                            0,
                            0,
                            lda};
      const int descb[9] = {1,
                            blacs_context(c.pt, c.qt),
                            M,
                            N,
                            static_cast<int>(c.mbt),
                            static_cast<int>(c.nbt),
                            0,
                            0,
                            ldb};
      const int context = blacs_context(1, P);
      const auto call = [&] {
        pdgemr2d_(&M, &N, pa, &one, &one, desca, pb, &one, &one, descb, &context);
      };
      fill_sentinel(b);
      comm.barrier();
      call();
      const long bad = count_mismatches(comm, c, b);
      pd = timed_runs(comm, o.repeat, sampler, busy_link, call);
      pd.v.mismatches = bad + count_mismatches(comm, c, b);
      pd.v.name = "pdgemr2d";
      pd.v.ran = true;
      res.variants.push_back(pd.v);
    }
#endif
    const Variant* vr = res.find("redist_scalapack");
    const Variant* va = res.find("redist_all_at_once");
    const Variant* vp = res.find("pdgemr2d");
    const double util = 100 * bound / vr->timing.median();
    const double util_best = 100 * bound / vr->timing.best();
    const double pd_util = vp ? 100 * bound / vp->timing.median() : NAN;
    const double aao_util = 100 * bound / va->timing.median();
    const double aao_util_best = 100 * bound / va->timing.best();
    const double ratio = speedup(vr, vp);
    const double ratio_best = vp ? vp->timing.best() / vr->timing.best() : NAN;
    res.extra = {{"nodes", static_cast<double>(nodes.nodes)},
                 {"link_rate_bits", rate},
                 {"link_bytes_max", as_run.busiest()},
                 {"link_bound_seconds", bound},
                 {"utilisation_pct", util},
                 {"utilisation_best_pct", util_best},
                 {"utilisation_pdgemr2d_pct", pd_util},
                 {"utilisation_all_at_once_pct", aao_util},
                 {"utilisation_all_at_once_best_pct", aao_util_best},
                 {"speedup_over_all_at_once", va->timing.median() / vr->timing.median()},
                 {"cpu_per_run_sum_all_at_once", ra.cpu_sum()},
                 {"machine_busy_all_at_once_pct", 100 * ra.machine_busy},
                 {"mpi_bound_seconds", mpi_bound},
                 {"utilisation_vs_mpi_pct", 100 * mpi_bound / vr->timing.median()},
                 {"speedup", ratio},
                 {"speedup_best", ratio_best},
                 {"inter_node_bytes", as_run.inter_node},
                 {"inter_node_bytes_flat", flat.inter_node},
                 {"inter_node_bytes_node_aware", node_aware.inter_node},
                 {"link_bytes_max_flat", flat.busiest()},
                 {"link_bytes_max_node_aware", node_aware.busiest()},
                 {"local_bytes_as_run", local_bytes[0]},
                 {"local_bytes_flat", local_bytes[1]},
                 {"local_bytes_node_aware", local_bytes[2]},
                 {"cpu_per_run_sum_redist", rd.cpu_sum()},
                 {"cpu_per_run_max_redist", rd.cpu_max()},
                 {"system_per_run_sum_redist", rd.sys_sum()},
                 {"machine_busy_redist_pct", 100 * rd.machine_busy},
                 {"cpu_per_run_sum_pdgemr2d", pd.cpu_sum()},
                 {"cpu_per_run_max_pdgemr2d", pd.cpu_max()},
                 {"system_per_run_sum_pdgemr2d", pd.sys_sum()},
                 {"machine_busy_pdgemr2d_pct", 100 * pd.machine_busy}};
    const char* shares[4] = {"send_only", "receive_only", "both", "idle"};
    for (int k = 0; k < 4; ++k) {
      res.extra.emplace_back(std::string("link0_") + shares[k] + "_redist_pct", rd.link[k]);
      res.extra.emplace_back(std::string("link0_") + shares[k] + "_pdgemr2d_pct", pd.link[k]);
      res.extra.emplace_back(std::string("link0_") + shares[k] + "_all_at_once_pct", ra.link[k]);
    }
    if (root) {
      const auto mb = [](double x) { return x / 1e6; };
      char mn[32], med[2][40], u[32], cpu[32], busy[32], inter[48], link[48];
      std::snprintf(mn, sizeof mn, "%ldx%ld", static_cast<long>(c.M), static_cast<long>(c.N));
      std::snprintf(med[0], sizeof med[0], "%.3f/%.3f", vr->timing.median(), vr->timing.best());
      std::snprintf(med[1], sizeof med[1], "%.3f/%.3f", vp ? vp->timing.median() : NAN,
                    vp ? vp->timing.best() : NAN);
      std::snprintf(u, sizeof u, "%.0f/%.0f %%", util, util_best);
      char amed[40], au[32], alink[48];
      std::snprintf(amed, sizeof amed, "%.3f/%.3f", va->timing.median(), va->timing.best());
      std::snprintf(au, sizeof au, "%.0f/%.0f %%", aao_util, aao_util_best);
      std::snprintf(alink, sizeof alink, "%.0f/%.0f/%.0f", ra.link[0] + ra.link[1], ra.link[2],
                    ra.link[3]);
      std::snprintf(cpu, sizeof cpu, "%.2f/%.2f", rd.cpu_sum(), pd.cpu_sum());
      std::snprintf(busy, sizeof busy, "%.0f/%.0f", 100 * rd.machine_busy, 100 * pd.machine_busy);
      std::snprintf(inter, sizeof inter, "%.0f/%.0f/%.0f", mb(as_run.inter_node),
                    mb(flat.inter_node), mb(node_aware.inter_node));
      std::snprintf(link, sizeof link, "%.0f/%.0f/%.0f", rd.link[0] + rd.link[1], rd.link[2],
                    rd.link[3]);
      std::printf(
          "%-24s %11s %8.1f %7.3f %15s %15s %12s %15s %12s %14s %6.2f %13s %7s %14s %20s %s\n",
          c.name.c_str(), mn, mb(as_run.busiest()), bound, med[0], med[1], u, amed, au, alink,
          ratio, cpu, busy, link, inter, mismatches_of(res) ? "MISMATCH" : "ok");
      std::fflush(stdout);
      cases_json << (first ? "" : ",") << "\n    {\"name\": " << json_string(c.name)
                 << ", \"link_bytes_out\": " << json_array(as_run.out)
                 << ", \"link_bytes_in\": " << json_array(as_run.in)
                 << ", \"perm_flat\": " << json_ints(perm_flat)
                 << ", \"perm_node_aware\": " << json_ints(perm_node)
                 << ", \"cpu_per_run_redist\": " << json_array(rd.cpu_per_rank)
                 << ", \"cpu_per_run_pdgemr2d\": " << json_array(pd.cpu_per_rank)
                 << ", \"cpu_per_run_all_at_once\": " << json_array(ra.cpu_per_rank)
                 << ", \"system_per_run_redist\": " << json_array(rd.sys_per_rank)
                 << ", \"system_per_run_pdgemr2d\": " << json_array(pd.sys_per_rank) << "}";
      first = false;
    }
    report.add(std::move(res));
  }
  if (root) {
    std::printf(
        "link MB: bytes over the busiest node link (max of sent, received); bound = link MB / "
        "rate;\nutil = bound / redist median (max: / best); ratio = pdgemr2d median / redist "
        "median;\ncpu/run: CPU seconds per run summed over ranks; busy: share of the machine's "
        "%ld cores busy (all processes);\nlink0 (redist): share of the run time node 0's link "
        "carried data one way only / both ways /\nneither (above a quarter of the rate); "
        "inter-node MB: as run / flat relabeling / node-aware "
        "relabeling. Plain MPI over node 0's link: %.3f Gbit/s per direction, both ways at "
        "once.\n",
        sysconf(_SC_NPROCESSORS_ONLN), b_link * 8 / 1e9);
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    std::ostringstream json;
    json << "{\"nodes\": " << nodes.nodes << ", \"node_of_rank\": " << json_ints(nodes.node_of_rank)
         << ", \"link_rate_bits\": " << json_number(rate)
         << ", \"target_bound_seconds\": " << json_number(seconds)
         << ", \"mpi_link_bytes_per_s\": " << json_number(b_link)
         << ", \"mpi_link_anchor_bytes\": " << json_number(anchor_bytes)
         << ", \"cores\": " << sysconf(_SC_NPROCESSORS_ONLN) << ", \"cases\": [" << cases_json.str()
         << "]}";
    report.sections.emplace_back("cluster", json.str());
    if (nodes.nodes > 1)
      report.sections.emplace_back("cluster_relabel", relabel_table(o, P, nodes));
  }
  comm.barrier();
}

}  // namespace bench
