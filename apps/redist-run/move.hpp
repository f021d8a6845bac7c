#pragma once
// One redist-run execution on concrete matrices: fill, plan, time, verify, and gather the
// numbers for the reports (report.hpp).
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/timer.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <mpi.h>

#include <redist/cost_model.hpp>
#include <redist/engine/node_schedule.hpp>
#include <redist/redist.hpp>
#include <redist/task_graph_graphviz.hpp>
#include <redist/tools/layout_report.hpp>
#include <redist/topology.hpp>
#include <redist/transport/yielding_collectives.hpp>

#include "options.hpp"
#include "rank_load_archive.hpp"
#include "report.hpp"
#include "values.hpp"

namespace redist_run {

/// Runs, times, verifies and reports with concrete matrix types (o.count matrices of each
/// side; `relabeled`: what --relabel chose for B). Collective. Returns the exit status: 0, or
/// 1 if --verify found a wrong element.
template <class T, class SrcMatrix, class DstMatrix>
int move_and_report(const Options& o, const boost::mpi::communicator& comm,
                    std::vector<SrcMatrix*> A, std::vector<DstMatrix*> B,
                    const RelabelChoice& relabeled = {}) {
  const int me = comm.rank(), np = comm.size();
  const Region region = *o.region;
  const std::uint64_t src_cols = static_cast<std::uint64_t>(o.src.extent.cols);
  const std::uint64_t dst_cols = static_cast<std::uint64_t>(o.dst.extent.cols);
  const std::uint64_t src_size = static_cast<std::uint64_t>(o.src.extent.rows) * src_cols;
  // Matrix k's source element e: distinct over all k (as far as the type allows).
  const auto value = [&](std::size_t k, ElementIndex e) {
    return Values<T>::at(k * src_size + static_cast<std::uint64_t>(e.i) * src_cols +
                         static_cast<std::uint64_t>(e.j));
  };
  const auto initial = [&](ElementIndex e) {
    return initial_value<T>(static_cast<std::uint64_t>(e.i) * dst_cols +
                            static_cast<std::uint64_t>(e.j));
  };
  const Transform<T> transform{o.op, static_cast<T>(o.alpha), static_cast<T>(o.beta), o.triangle};
  const auto fill = [&] {
    for (std::size_t k = 0; k < A.size(); ++k) {
      A[k]->for_each_element([&](ElementIndex e, T& v) { v = value(k, e); });
      B[k]->for_each_element([&](ElementIndex e, T& v) { v = initial(e); });
    }
  };
  // Filled whether or not --verify checks them: the timed moves carry data, not zeros. On
  // this project's VMs a move of zeros over zeros ran about 10 % faster than one of data
  // (bench/README.md, "What redist-run moves"), and the floors and pdgemr2d move data.
  fill();

  PlanOptions popt;
  popt.batch = o.batch;
  std::vector<Part<SrcMatrix, DstMatrix>> parts;
  for (std::size_t k = 0; k < A.size(); ++k) parts.push_back(Part{A[k], B[k], region});
  comm.barrier();
  boost::mpi::timer plan_timer;
  ExecutionOptions xopt;
  xopt.transport = o.transport;                      // REDIST_TRANSPORT, when set, overrides it
  xopt.inter_node_schedule = o.inter_node_schedule;  // as REDIST_INTER_NODE_SCHEDULE
  Redistributor<SrcMatrix, DstMatrix> R(parts, comm, transform, popt,
                                        xopt);  // throws on every rank
  const auto slowest = [&](double t) {
    return boost::mpi::all_reduce(comm, t, boost::mpi::maximum<double>());
  };
  const double plan_time = slowest(plan_timer.elapsed());
  // Its parts, each the slowest rank's (set_up_times.hpp).
  const SetUpTimes set_up{slowest(R.set_up_times().plan), slowest(R.set_up_times().wiring),
                          slowest(R.set_up_times().buffers)};

  std::vector<double> times;
  // Yielding waits: a rank done early leaves its core to those still moving data. They
  // give up after the move's own progress timeout: a rank whose sends left before a link
  // died would otherwise wait here for its stalled peer forever.
  const double timeout = R.execution_options().progress_timeout_seconds;
  for (int k = 0; k < o.repeat; ++k) {
    // With beta != 0 the target is read: each timed run starts from the known target.
    if (o.verify && transform.beta != T(0)) fill();
    redist::transport::barrier_yielding(comm, timeout);
    const double t0 = MPI_Wtime();
    R.redistribute();
    const double t = MPI_Wtime() - t0;
    times.push_back(redist::transport::max_yielding(comm, t, timeout));
  }

  // Verification: every target element of every matrix; inside the region (or its
  // triangle) alpha * op(source) + beta * initial, outside untouched.
  index_t bad = 0, checked = 0;
  std::vector<std::string> first_bad;
  if (o.verify) {
    const ElementIndex d0 = region.dst_origin, s0 = region.src_origin;
    const Extents ext = target_extent(region, o.op);
    for (std::size_t k = 0; k < B.size(); ++k)
      B[k]->for_each_element([&](ElementIndex e, T& v) {
        const index_t x = e.i - d0.i, y = e.j - d0.j;
        const bool in =
            x >= 0 && y >= 0 && x < ext.rows && y < ext.cols && o.triangle.keeps(x, y, ext);
        T want = initial(e);
        if (in) {
          T a = value(k, o.op == Op::none ? ElementIndex{s0.i + x, s0.j + y}
                                          : ElementIndex{s0.i + y, s0.j + x});
          if constexpr (redist::detail::is_complex<T>::value)
            if (o.op == Op::conj_transpose) a = std::conj(a);
          want = transform.beta == T(0) ? T(transform.alpha * a)
                                        : T(transform.alpha * a + transform.beta * want);
        }
        ++checked;
        if (!(v == want)) {
          if (++bad <= 5)
            first_bad.push_back("rank " + std::to_string(me) + ": matrix " + std::to_string(k) +
                                " target (" + std::to_string(e.i) + ", " + std::to_string(e.j) +
                                ") = " + show(v) + ", expected " + show(want) +
                                (in ? "" : " (outside the region)"));
        }
      });
  }
  const index_t bad_total = boost::mpi::all_reduce(comm, bad, std::plus<index_t>());
  const index_t checked_total = boost::mpi::all_reduce(comm, checked, std::plus<index_t>());
  std::vector<std::vector<std::string>> all_bad;
  boost::mpi::gather(comm, first_bad, all_bad, 0);

  // Statistics, gathered to rank 0 (the node fields filled when the engine was wired).
  const NodeMap& nodes = node_map(comm);
  const PlanStats& s = R.plan().stats;
  const index_t esize = static_cast<index_t>(sizeof(T));
  std::vector<index_t> sent, recv, local, inter_sent, inter_recv, buffers, plans, schedules;
  boost::mpi::gather(comm, s.elements_sent * esize, sent, 0);
  boost::mpi::gather(comm, s.elements_received * esize, recv, 0);
  boost::mpi::gather(comm, s.elements_local * esize, local, 0);
  boost::mpi::gather(comm, s.elements_sent_inter_node * esize, inter_sent, 0);
  boost::mpi::gather(comm, s.elements_received_inter_node * esize, inter_recv, 0);
  boost::mpi::gather(comm, R.buffer_bytes(), buffers, 0);
  // The plan's own memory, beside the buffers: max_buffer_bytes bounds only the buffers.
  boost::mpi::gather(comm, s.plan_bytes, plans, 0);
  boost::mpi::gather(comm, s.schedule_bytes, schedules, 0);
  std::vector<index_t> cats(s.categories.begin(), s.categories.end()), cat_sum(9, 0);
  boost::mpi::reduce(comm, cats.data(), 9, cat_sum.data(), std::plus<index_t>(), 0);
  const index_t messages = boost::mpi::all_reduce(comm, s.messages_sent, std::plus<index_t>());
  // What carried the messages (each counted once, at its sender), and why not cross-memory.
  std::vector<index_t> carried;
  for (const Transport how : all_transports)
    carried.push_back(boost::mpi::all_reduce(comm, R.messages(how).first, std::plus<index_t>()));
  const std::string refused = R.cross_memory_refused();
  // --machine: every rank's load (cost_model.hpp), for rank 0's prediction, with the
  // transports that carried its messages within the node.
  std::vector<RankLoad> loads;
  if (o.machine) {
    const TaskGraph& g = R.task_graph();
    boost::mpi::gather(comm,
                       rank_load(R.plan(), nodes.node_of_rank, esize, g.send_transport,
                                 g.recv_transport, R.execution_options().ring_slots != 0),
                       loads, 0);
  }

  // The pages of each side's node-shared memory, the largest over ranks (0: private).
  const auto page_bytes = [&](const auto& M) {
    const void* p = nullptr;
    M.for_each_tile([&](TileIndex t) {
      if (p == nullptr) p = M.tile_ref(t).data;
    });
    const std::uint64_t mine = p != nullptr ? node_shared_page_bytes(p) : 0;
    return boost::mpi::all_reduce(comm, mine, boost::mpi::maximum<std::uint64_t>());
  };
  const std::uint64_t src_pages = page_bytes(*A[0]), dst_pages = page_bytes(*B[0]);

  if (!o.dot.empty() && me == 0) {
    std::ofstream f(o.dot);
    write_graphviz(f, R.task_graph());
  }

  if (me != 0) return bad_total == 0 ? 0 : 1;

  Measurement m;
  m.ranks = np;
  m.element_bytes = sizeof(T);
  m.src_tiles = A[0]->layout().tiles();
  m.dst_tiles = B[0]->layout().tiles();
  m.src_ranks = A[0]->layout().ranks();
  m.dst_ranks = B[0]->layout().ranks();
  if (o.op == Op::none && !o.triangle.masks())
    m.layout = layout_report(A[0]->layout(), B[0]->layout(), region, np);
  if constexpr (requires { B[0]->layout().distribution().rank_of_role(); })
    if (o.relabel != Relabel::off) m.rank_of_role = B[0]->layout().distribution().rank_of_role();
  m.relabeled = relabeled;
  m.transport_policy = R.execution_options().transport;
  m.carried = std::move(carried);
  m.cross_memory_refused = refused;
  m.src_page_bytes = src_pages;
  m.dst_page_bytes = dst_pages;
  m.categories = std::move(cat_sum);
  m.nodes = nodes.nodes;
  m.node_of_rank = nodes.node_of_rank;
  m.inter_node_schedule = resolved_schedule(R.execution_options().inter_node_schedule, nodes.nodes);
  m.sent = std::move(sent);
  m.recv = std::move(recv);
  m.local = std::move(local);
  m.inter_sent = std::move(inter_sent);
  m.inter_recv = std::move(inter_recv);
  m.buffers = std::move(buffers);
  m.plans = std::move(plans);
  m.schedules = std::move(schedules);
  m.messages = messages;
  m.batch = R.plan().batch;
  m.batches = R.plan().batches;
  m.plan_time = plan_time;
  m.set_up = set_up;
  m.times = std::move(times);
  m.mismatches = bad_total;
  m.verified_elements = checked_total;
  m.first_mismatches = std::move(all_bad);
  if (o.machine) m.predicted = predict(loads, *o.machine);
  print_report(o, region, m);
  if (!o.json.empty()) write_json_report(o, region, m);
  return bad_total == 0 ? 0 : 1;
}

}  // namespace redist_run
