#include "report.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <redist/tools/machine_spec.hpp>

namespace redist_run {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The transports that carried a move's messages (`carried[k]` of all_transports[k]),
/// joined by '+': "cross-memory" when same-node peers read each other's sources.
std::string data_path(const std::vector<index_t>& carried) {
  std::string path;
  for (std::size_t k = 0; k < carried.size(); ++k)
    if (carried[k] > 0) {
      // Appended piece by piece: GCC 12 reported `"+" + std::string(...)` here as a
      // memcpy above any object's size (-Wstringop-overflow, a false positive).
      if (!path.empty()) path += '+';
      path += to_string(all_transports[k]);
    }
  return path.empty() ? "none" : path;
}

/// The numbers both reports derive from a Measurement.
struct Derived {
  double t_min, t_med;
  index_t remote_max = 0;  ///< the most bytes one rank sends or receives
  double bw_min, bw_med;   ///< remote_max per second (Eq. 3) at t_min and t_med
  index_t buffer_max;
  index_t element_bytes, count;

  explicit Derived(const Options& o, const Measurement& m)
      : t_min(*std::min_element(m.times.begin(), m.times.end())),
        t_med(median(m.times)),
        element_bytes(static_cast<index_t>(m.element_bytes)),
        count(o.count) {
    for (int r = 0; r < m.ranks; ++r) remote_max = std::max({remote_max, m.sent[r], m.recv[r]});
    bw_min = t_min > 0 ? static_cast<double>(remote_max) / t_min : 0.0;
    bw_med = t_med > 0 ? static_cast<double>(remote_max) / t_med : 0.0;
    buffer_max = *std::max_element(m.buffers.begin(), m.buffers.end());
  }

  /// Bytes of all o.count matrices from elements of one.
  index_t all_bytes(index_t elements) const { return elements * element_bytes * count; }
};

}  // namespace

void print_report(const Options& o, const Region& region, const Measurement& m) {
  const Derived d(o, m);
  std::printf("redist-run: %d ranks, type %s (%zu bytes)\n", m.ranks, o.type.c_str(),
              m.element_bytes);
  std::printf("  src     %s (%lldx%lld tiles, %d ranks)\n", to_string(o.src).c_str(),
              static_cast<long long>(m.src_tiles.rows), static_cast<long long>(m.src_tiles.cols),
              m.src_ranks);
  std::printf("  dst     %s (%lldx%lld tiles, %d ranks)\n", to_string(o.dst).c_str(),
              static_cast<long long>(m.dst_tiles.rows), static_cast<long long>(m.dst_tiles.cols),
              m.dst_ranks);
  std::printf("  region  %s\n", to_string(region).c_str());
  if (o.op != Op::none || o.alpha != 1 || o.beta != 0 || o.triangle.masks())
    std::printf("  transform op %s, alpha %g, beta %g, uplo %s, diag %s\n", op_name(o.op), o.alpha,
                o.beta, uplo_name(o.triangle.uplo), o.triangle.diag == Diag::unit ? "u" : "n");
  if (o.count > 1)
    std::printf("  count   %lld matrices in one exchange\n", static_cast<long long>(o.count));
  if (m.layout) print_layout_report(stdout, *m.layout);
  if (o.relabel != Relabel::off) {
    std::printf("  relabel  %s (%s), target role -> rank:", relabel_name(o.relabel),
                o.relabel == Relabel::nodes ? "fewest bytes between nodes, then the most kept"
                                            : "the most kept on its rank");
    for (std::size_t r = 0; r < m.rank_of_role.size(); ++r)
      std::printf(" %zu->%d", r, m.rank_of_role[r]);
    std::printf("\n  relabel  bytes between nodes: %lld as given, %lld relabeled\n",
                static_cast<long long>(d.all_bytes(m.relabeled.inter_node_before)),
                static_cast<long long>(d.all_bytes(m.relabeled.inter_node_after)));
  }
  std::printf("  transport %s: messages", to_string(m.transport_policy));
  for (std::size_t k = 0; k < m.carried.size(); ++k)
    std::printf(" %s %lld", to_string(all_transports[k]), static_cast<long long>(m.carried[k]));
  if (!m.cross_memory_refused.empty())
    std::printf(" (cross-memory refused: %s)", m.cross_memory_refused.c_str());
  if (m.src_page_bytes > 0 || m.dst_page_bytes > 0) {
    const auto pages = [](std::uint64_t b) {
      return b == 0                ? std::string("private")
             : b % (1u << 20) == 0 ? std::to_string(b >> 20) + " MiB pages"
                                   : std::to_string(b >> 10) + " KiB pages";
    };
    const std::uint64_t least = std::min(m.src_page_bytes > 0 ? m.src_page_bytes : UINT64_MAX,
                                         m.dst_page_bytes > 0 ? m.dst_page_bytes : UINT64_MAX);
    std::printf("\n  node-shared src %s, dst %s%s", pages(m.src_page_bytes).c_str(),
                pages(m.dst_page_bytes).c_str(),
                least < (1u << 20) ? " (huge pages: docs/node-shared.md, \"Huge pages\")" : "");
  }
  std::printf("\n  categories (target tiles, all ranks):");
  for (int c = 0; c < 9; ++c) std::printf(" %d:%lld", c, static_cast<long long>(m.categories[c]));
  std::printf("\n  nodes    %d, node of each rank:", m.nodes);
  for (int r = 0; r < m.ranks; ++r) std::printf(" %d", m.node_of_rank[static_cast<std::size_t>(r)]);
  std::printf("; between nodes %s", to_string(m.inter_node_schedule));
  // Inter-node: the part of sent / recv whose peer is on another node (plan/node_traffic.hpp).
  std::printf(
      "\n  rank      sent B      recv B     local B  inter-node sent B  inter-node recv B"
      "    buffer B      plan B  schedule B\n");
  for (int r = 0; r < m.ranks; ++r)
    std::printf("  %4d %11lld %11lld %11lld %18lld %18lld %11lld %11lld %11lld\n", r,
                static_cast<long long>(m.sent[r]), static_cast<long long>(m.recv[r]),
                static_cast<long long>(m.local[r]), static_cast<long long>(m.inter_sent[r]),
                static_cast<long long>(m.inter_recv[r]), static_cast<long long>(m.buffers[r]),
                static_cast<long long>(m.plans[r]), static_cast<long long>(m.schedules[r]));
  if (m.batch > 0)
    std::printf("  messages %lld, batches %lld (batch = %lld source tile columns)\n",
                static_cast<long long>(m.messages), static_cast<long long>(m.batches),
                static_cast<long long>(m.batch));
  else  // widths vary: cut to the buffer budget (PlanOptions::max_buffer_bytes)
    std::printf("  messages %lld, batches %lld (of varying width, within the buffer budget)\n",
                static_cast<long long>(m.messages), static_cast<long long>(m.batches));
  std::printf("  plan     %.6f s (planning %.6f s, wiring %.6f s of which buffers %.6f s)\n",
              m.plan_time, m.set_up.plan, m.set_up.wiring, m.set_up.buffers);
  std::printf("  time     min %.6f s, median %.6f s over %d runs\n", d.t_min, d.t_med, o.repeat);
  std::printf("  bandwidth (Eq. 3) %.3f GB/s at min time, %.3f GB/s at median\n", d.bw_min * 1e-9,
              d.bw_med * 1e-9);
  if (m.predicted) {
    const RankTime& c = m.predicted->critical;
    std::printf(
        "  predicted %.6f s (measured min / %.2f), critical rank %d: link %.6f, shm %.6f, "
        "latency %.6f, pack %.6f, unpack %.6f, local %.6f s (their runs %.6f s)\n",
        m.predicted->seconds, d.t_min > 0 ? m.predicted->seconds / d.t_min : 0.0,
        m.predicted->critical_rank, c.link, c.shm, c.latency, c.pack, c.unpack, c.local, c.runs);
  }
  std::printf("  buffers  %lld B max per rank\n", static_cast<long long>(d.buffer_max));
  std::printf(
      "  memory   plan %lld B + schedule %lld B max per rank (beside the buffers; "
      "max_buffer_bytes bounds the buffers only)\n",
      static_cast<long long>(*std::max_element(m.plans.begin(), m.plans.end())),
      static_cast<long long>(*std::max_element(m.schedules.begin(), m.schedules.end())));
  if (o.verify) {
    if (m.mismatches == 0) {
      std::printf("  verify   OK: %lld target elements checked\n",
                  static_cast<long long>(m.verified_elements));
    } else {
      std::printf("  verify   FAILED: %lld of %lld target elements wrong\n",
                  static_cast<long long>(m.mismatches),
                  static_cast<long long>(m.verified_elements));
      int shown = 0;
      for (const auto& v : m.first_mismatches)
        for (const auto& line : v)
          if (shown++ < 10) std::fprintf(stderr, "redist-run: mismatch: %s\n", line.c_str());
    }
  }
  std::fflush(stdout);
}

void write_json_report(const Options& o, const Region& region, const Measurement& m) {
  const Derived d(o, m);
  std::ofstream f(o.json);
  if (!f) {
    std::fprintf(stderr, "redist-run: --json: cannot write '%s'\n", o.json.c_str());
  } else {
    f.precision(9);
    f << "{\n"
      << "  \"ranks\": " << m.ranks << ",\n"
      << "  \"src\": " << json_string(to_string(o.src)) << ",\n"
      << "  \"dst\": " << json_string(to_string(o.dst)) << ",\n"
      << "  \"relabel\": {\"kind\": " << json_string(relabel_name(o.relabel));
    if (o.relabel != Relabel::off)
      f << ", \"rank_of_role\": " << json_array(m.rank_of_role)
        << ", \"inter_node_bytes\": {\"before\": " << d.all_bytes(m.relabeled.inter_node_before)
        << ", \"after\": " << d.all_bytes(m.relabeled.inter_node_after) << "}";
    f << "},\n"
      << "  \"transport\": " << json_string(data_path(m.carried)) << ",\n"
      << "  \"transport_policy\": " << json_string(to_string(m.transport_policy)) << ",\n"
      << "  \"transport_messages\": {";
    for (std::size_t k = 0; k < m.carried.size(); ++k)
      f << (k ? ", " : "") << json_string(to_string(all_transports[k])) << ": " << m.carried[k];
    f << "},\n"
      << "  \"cross_memory_refused\": " << json_string(m.cross_memory_refused) << ",\n"
      << "  \"node_shared_page_bytes\": {\"src\": " << m.src_page_bytes
      << ", \"dst\": " << m.dst_page_bytes << "},\n"
      << "  \"nodes\": " << m.nodes << ",\n"
      << "  \"inter_node_schedule\": " << json_string(to_string(m.inter_node_schedule)) << ",\n"
      << "  \"node_of_rank\": " << json_array(m.node_of_rank) << ",\n"
      << "  \"region\": {\"rows\": " << region.extent.rows << ", \"cols\": " << region.extent.cols
      << ", \"src_origin\": [" << region.src_origin.i << ", " << region.src_origin.j
      << "], \"dst_origin\": [" << region.dst_origin.i << ", " << region.dst_origin.j
      << "], \"text\": " << json_string(to_string(region)) << "},\n"
      << "  \"type\": " << json_string(o.type) << ",\n"
      << "  \"op\": " << json_string(op_name(o.op)) << ",\n"
      << "  \"alpha\": " << o.alpha << ",\n"
      << "  \"beta\": " << o.beta << ",\n"
      << "  \"uplo\": " << json_string(uplo_name(o.triangle.uplo)) << ",\n"
      << "  \"diag\": " << json_string(o.triangle.diag == Diag::unit ? "u" : "n") << ",\n"
      << "  \"count\": " << o.count << ",\n"
      << "  \"element_bytes\": " << m.element_bytes << ",\n"
      << "  \"batch\": " << m.batch << ",\n"
      << "  \"batches\": " << m.batches << ",\n"
      << "  \"repeat\": " << o.repeat << ",\n"
      << "  \"categories\": " << json_array(m.categories) << ",\n"
      << "  \"bytes\": {\"sent\": " << json_array(m.sent) << ", \"recv\": " << json_array(m.recv)
      << ", \"local\": " << json_array(m.local)
      << ", \"inter_node\": {\"sent\": " << json_array(m.inter_sent)
      << ", \"recv\": " << json_array(m.inter_recv) << "}},\n"
      << "  \"buffer_bytes\": " << json_array(m.buffers) << ",\n"
      << "  \"plan_bytes\": " << json_array(m.plans) << ",\n"
      << "  \"schedule_bytes\": " << json_array(m.schedules) << ",\n"
      << "  \"messages\": " << m.messages << ",\n"
      << "  \"plan_time_s\": " << m.plan_time << ",\n"
      << "  \"set_up_s\": {\"plan\": " << m.set_up.plan << ", \"wiring\": " << m.set_up.wiring
      << ", \"buffers\": " << m.set_up.buffers << "},\n"
      << "  \"time_s\": {\"min\": " << d.t_min << ", \"median\": " << d.t_med
      << ", \"all\": " << json_array(m.times) << "},\n"
      << "  \"bandwidth\": {\"bytes_per_s_min_time\": " << d.bw_min
      << ", \"bytes_per_s_median_time\": " << d.bw_med << ", \"max_remote_bytes\": " << d.remote_max
      << "},\n"
      << "  \"predicted_s\": ";
    if (m.predicted) {
      const RankTime& c = m.predicted->critical;
      f << m.predicted->seconds
        << ",\n  \"predicted\": {\"critical_rank\": " << m.predicted->critical_rank
        << ", \"terms\": {\"link\": " << c.link << ", \"shm\": " << c.shm
        << ", \"latency\": " << c.latency << ", \"pack\": " << c.pack
        << ", \"unpack\": " << c.unpack << ", \"local\": " << c.local << "}, \"runs_s\": " << c.runs
        << ", \"link_bytes\": " << m.predicted->link_bytes
        << ", \"bandwidth_bytes_per_s\": " << m.predicted->bandwidth_bytes_per_s
        << ", \"bound_bytes_per_s\": " << m.predicted->bound_bytes_per_s << ", \"machine\": {"
        << tools::machine_json_fields(*o.machine) << "}},\n";
    } else {
      f << "null,\n";
    }
    f << "  \"verified\": " << (o.verify && m.mismatches == 0 ? "true" : "false") << ",\n"
      << "  \"verified_elements\": " << (o.verify ? m.verified_elements : 0) << ",\n"
      << "  \"mismatches\": " << m.mismatches << "\n"
      << "}\n";
  }
}

}  // namespace redist_run
