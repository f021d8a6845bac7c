// Shared machinery of the MPI redistribution tests: fill a source matrix with a function of
// the global index and a target with a sentinel, redistribute, and check EVERY element of the
// target on every rank (inside the region: the source value at the mapped index; outside: the
// sentinel) and that the source is unchanged. Results are all-reduced, so every rank returns
// the same report and one failing rank cannot leave another waiting.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/redist.hpp>
#include <redist/task_graph.hpp>

#include "../support/generators.hpp"
#include "../support/scoped_env.hpp"
#include "mpi_harness.hpp"

namespace redist::test {

/// What the target holds where the region does not write. value_at never returns it.
template <class T>
T sentinel() {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return T(-1, -1);
  else
    return static_cast<T>(-1);
}

/// Whether global target element e lies in the region's target rectangle.
inline bool in_target(const Region& r, ElementIndex e) {
  return e.i >= r.dst_origin.i && e.i < r.dst_origin.i + r.extent.rows && e.j >= r.dst_origin.j &&
         e.j < r.dst_origin.j + r.extent.cols;
}

/// The source element that lands on target element e. @pre in_target(r, e).
inline ElementIndex source_of(const Region& r, ElementIndex e) {
  return {e.i - r.dst_origin.i + r.src_origin.i, e.j - r.dst_origin.j + r.src_origin.j};
}

/// Sets every local element e of m to value(e).
template <class M, class F>
void fill_with(M& m, F&& value) {
  using T = typename M::value_type;
  m.for_each_element([&](ElementIndex e, T& v) { v = value(e); });
}

template <class M>
void fill_source(M& a) {
  fill_with(a, value_at<typename M::value_type>);
}

template <class M>
void fill_sentinel(M& b) {
  fill_with(b, [](ElementIndex) { return sentinel<typename M::value_type>(); });
}

/// Local count of source elements that differ from value_at.
template <class M>
index_t source_errors(const M& a) {
  using T = typename M::value_type;
  index_t bad = 0;
  a.for_each_element([&](ElementIndex e, T& v) { bad += !(v == value_at<T>(e)); });
  return bad;
}

/// Local count of target elements that are wrong: inside the region not the source value at
/// the mapped index, outside not the sentinel. Adds the number checked to `checked`.
template <class M>
index_t target_errors(const M& b, const Region& r, index_t& checked) {
  using T = typename M::value_type;
  index_t bad = 0;
  b.for_each_element([&](ElementIndex e, T& v) {
    const T want = in_target(r, e) ? value_at<T>(source_of(r, e)) : sentinel<T>();
    bad += !(v == want);
    ++checked;
  });
  return bad;
}

/// How to run a redistribution in check_redistribution.
struct RunOptions {
  PlanOptions plan{};
  ExecutionOptions execution{};
  int repeats = 1;     ///< executions of the same plan (target reset to the sentinel before each)
  bool async = false;  ///< start()/wait() instead of redistribute()
  bool node_shared_source = false;  ///< source in node-shared memory (direct messages)
  bool node_shared_target = false;  ///< target in node-shared memory (pushed messages)
};

/// Everything a test asserts, identical on every rank (sums over ranks).
struct RunReport {
  bool ok = false;  ///< every element right on every rank, every repeat
  index_t bad_target = 0;
  index_t bad_source = 0;
  index_t checked = 0;  ///< target elements checked (all ranks, last repeat)
  std::array<index_t, 9> categories{};
  TaskCounts tasks;      ///< tasks run in the last execution (sums over ranks)
  index_t segments = 0;  ///< segments received and copied locally (sums over ranks)
  index_t elements_sent = 0, elements_received = 0, elements_local = 0;
  index_t messages = 0;
  index_t batches = 0;
  index_t direct_sends = 0, direct_receives = 0;  ///< messages read in place (node-shared)
  index_t push_sends = 0, push_receives = 0;      ///< messages written into a node-shared target
  index_t in_place_sends = 0;       ///< messages nobody packs: direct and cross-memory
  index_t intra_node_messages = 0;  ///< messages between ranks of one node (reference_nodes)
};

/// Each rank's node, found without topology.hpp, as the reference its tests compare with:
/// ranks whose processor names agree (the host name: scripts/cluster.sh gives each simulated
/// node its own) share a machine, and k > 0 (REDIST_RANKS_PER_NODE) cuts each machine's
/// ranks, in communicator order, into groups of k. Nodes are numbered in the order of their
/// first rank. Collective.
inline std::vector<int> reference_nodes(const boost::mpi::communicator& comm, int k = 0) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<std::string> hosts;
  boost::mpi::all_gather(comm, std::string(name, static_cast<std::size_t>(length)), hosts);
  std::map<std::string, int> seen_on_host;              // ranks of the host so far
  std::map<std::pair<std::string, int>, int> numbered;  // (host, group) -> node
  std::vector<int> node;
  for (const std::string& host : hosts) {
    const int position = seen_on_host[host]++;
    const std::pair<std::string, int> key{host, k > 0 ? position / k : 0};
    const auto [it, fresh] = numbered.emplace(key, static_cast<int>(numbered.size()));
    node.push_back(it->second);
  }
  return node;
}

/// REDIST_RANKS_PER_NODE as reference_nodes takes it: 0 when unset.
inline int ranks_per_node_env() {
  const char* v = std::getenv("REDIST_RANKS_PER_NODE");
  return v != nullptr ? std::atoi(v) : 0;
}

/// How many of this rank's sends go to a rank of its own node (reference_nodes).
template <class P>
index_t intra_node_sends(const P& plan, const std::vector<int>& node, int me) {
  index_t n = 0;
  for (const auto& m : plan.send.messages)
    n += node[static_cast<std::size_t>(m.peer)] == node[static_cast<std::size_t>(me)] ? 1 : 0;
  return n;
}

inline index_t sum(const boost::mpi::communicator& comm, index_t v) {
  return boost::mpi::all_reduce(comm, v, std::plus<index_t>());
}

/// Sums a plan's statistics and a redistributor's task counts over ranks into `rep`.
template <class R>
void add_plan_stats(const boost::mpi::communicator& comm, const R& redistributor, RunReport& rep) {
  const PlanStats& s = redistributor.plan().stats;
  for (std::size_t c = 0; c < 9; ++c) rep.categories[c] = sum(comm, s.categories[c]);
  const TaskCounts& mine = redistributor.tasks_run();
  for (std::size_t k = 0; k < task_kinds; ++k) {
    const auto kind = static_cast<TaskKind>(k);
    rep.tasks[kind] = static_cast<std::size_t>(sum(comm, static_cast<index_t>(mine[kind])));
  }
  rep.segments = sum(comm, s.segments_received + s.segments_local);
  rep.elements_sent = sum(comm, s.elements_sent);
  rep.elements_received = sum(comm, s.elements_received);
  rep.elements_local = sum(comm, s.elements_local);
  rep.messages = sum(comm, s.messages_sent);
  rep.batches = redistributor.plan().batches;
  rep.direct_sends = sum(comm, redistributor.direct_messages().first);
  rep.direct_receives = sum(comm, redistributor.direct_messages().second);
  rep.push_sends = sum(comm, redistributor.messages(Transport::push).first);
  rep.push_receives = sum(comm, redistributor.messages(Transport::push).second);
  rep.in_place_sends =
      rep.direct_sends + sum(comm, redistributor.messages(Transport::cross_memory).first);
  rep.intra_node_messages =
      sum(comm, intra_node_sends(redistributor.plan(), reference_nodes(comm, ranks_per_node_env()),
                                 comm.rank()));
}

/// Builds this rank's source (src_layout, src_placement) and target matrices of element type
/// T, fills them, moves `region` (options.repeats times), and checks every element. Collective.
template <class T, class SL, class SP, class DL, class DP>
RunReport check_redistribution(const boost::mpi::communicator& comm, SL src_layout,
                               SP src_placement, DL dst_layout, DP dst_placement, Region region,
                               RunOptions options = {}) {
  auto a =
      options.node_shared_source
          ? node_shared_matrix<T>(std::move(src_layout), std::move(src_placement), comm)
          : TiledMatrix<T, SL, SP>(std::move(src_layout), std::move(src_placement), comm.rank());
  auto b =
      options.node_shared_target
          ? node_shared_matrix<T>(std::move(dst_layout), std::move(dst_placement), comm)
          : TiledMatrix<T, DL, DP>(std::move(dst_layout), std::move(dst_placement), comm.rank());
  fill_source(a);
  Redistributor<decltype(a), decltype(b)> r(a, b, comm, region, options.plan, options.execution);
  RunReport rep;
  index_t bad = 0, checked = 0;
  for (int k = 0; k < options.repeats; ++k) {
    fill_sentinel(b);
    if (options.async) {
      r.start();
      r.wait();
    } else {
      r.redistribute();
    }
    checked = 0;
    bad += target_errors(b, region, checked);
  }
  rep.bad_target = sum(comm, bad);
  rep.bad_source = sum(comm, source_errors(a));
  rep.checked = sum(comm, checked);
  add_plan_stats(comm, r, rep);
  rep.ok = rep.bad_target == 0 && rep.bad_source == 0;
  return rep;
}

/// Fills `a` with value_at and `b` with the sentinel, moves `region` from a to b once on a
/// Redistributor built for the call, and checks every target element on every rank; then
/// `more(redistributor, checked)` asserts what the caller needs of the move, `checked`
/// being this rank's count of target elements checked. Collective.
template <class A, class B, class More>
void move_and_check(const boost::mpi::communicator& comm, A& a, B& b, const Region& region,
                    More&& more) {
  fill_source(a);
  fill_sentinel(b);
  Redistributor r(a, b, comm, region);
  r.redistribute();
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, region, checked)) == 0);
  more(r, checked);
}

/// Messages of this rank's task graph (sent and received) that do not go point to point.
inline index_t not_point_to_point(const TaskGraph& g) {
  index_t other = 0;
  for (const Transport t : g.send_transport) other += t != Transport::point_to_point;
  for (const Transport t : g.recv_transport) other += t != Transport::point_to_point;
  return other;
}

/// The transport every message of this run must take, from REDIST_TEST_EXPECT_TRANSPORT
/// (tests/CMakeLists.txt sets "point-to-point", with REDIST_SHARED_WINDOW=0, in the TCP and
/// small-message legs); empty when unset.
inline std::string expected_transport() {
  const char* v = std::getenv("REDIST_TEST_EXPECT_TRANSPORT");
  return v != nullptr ? v : "";
}

/// Whether this run sends every message point to point: tests then keep redist's
/// node-local transports (shared window, direct reads) off, and expect none of them.
inline bool point_to_point_only() { return expected_transport() == "point-to-point"; }

/// The REDIST_SHARED_WINDOW values a test tries: "0" and "1", or only "0" where every
/// message must go point to point.
inline std::vector<const char*> window_settings() {
  if (point_to_point_only()) return {"0"};
  return {"0", "1"};
}

}  // namespace redist::test
