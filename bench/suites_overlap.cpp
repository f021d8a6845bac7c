/// @file bench/suites_overlap.cpp
/// Suite overlap: start(), compute while calling test() now and then, wait(). Cases a and d
/// of the standard suite (on P > 2 ranks their grids 1 x P and P x 1, so that every rank
/// takes part), ScaLAPACK storage, with the node's shared window on and off (off only when
/// MPI runs over TCP: then every remote byte goes through it, as between nodes).
///
/// Each with the caller driving the move (test(), wait()) and with a progress thread
/// (ExecutionOptions::progress = thread: the thread copies while the caller computes; it
/// hides the move only where the rank has a core to spare, so run it with `--bind-to none`
/// or several cores per rank). At 1 rank the move is local copies only, which only a
/// progress thread can take off the caller.
///
/// The compute is a DAXPY on two cache-resident vectors (it does not compete with the
/// move for memory bandwidth); its unit is calibrated in the same run to ~100 µs. Per case:
/// - t_move: redistribute() alone;
/// - ratio (issue 9): compute for t_move with a test() after each unit (every ~100 µs);
///   t_total / max(t_compute, t_move), target <= 1.2;
/// - hidden fraction (issue 24, point 7): compute for 2 t_move with a test() every ~1 ms
///   (10 units) until it says done, then wait(); hidden = 1 - (t_total - t_compute) / t_move,
///   clamped to [0, 1], target >= 0.8. The time spent inside start(), test() and wait()
///   of that run is reported beside it: on a rank with one core, copies done there cannot
///   overlap the caller's compute, so it bounds what can be hidden.

#include <algorithm>
#include <utility>

#include "bench.hpp"
#include "compute_units.hpp"

namespace bench {

namespace {

/// Where one overlapped run spent its time on this rank.
struct Overlapped {
  double start = 0, test = 0, wait = 0;
  long calls = 0;        ///< test() calls
  bool by_test = false;  ///< test() returned true before the compute ended
};

/// start(), `units` compute units with a test() after every `every` of them until it
/// returns true, wait().
template <class R>
Overlapped overlapped(R& r, Daxpy& d, long units, long every) {
  Overlapped o;
  double t0 = now();
  r.start();
  o.start = now() - t0;
  for (long u = 0; u < units; ++u) {
    d.unit();
    if (!o.by_test && (u + 1) % every == 0) {
      t0 = now();
      o.by_test = r.test();
      o.test += now() - t0;
      ++o.calls;
    }
  }
  t0 = now();
  r.wait();
  o.wait = now() - t0;
  return o;
}

/// Medians over repetitions of what overlapped() reports, max over ranks; calls: -1 when
/// some rank needed wait() to finish.
struct OverlapStats {
  double start = 0, test = 0, wait = 0, inside = 0, calls = 0;
};
OverlapStats summarize(const mpi::communicator& comm, const std::vector<Overlapped>& runs) {
  std::vector<double> s, t, w, in, c;
  for (const Overlapped& o : runs) {
    s.push_back(o.start);
    t.push_back(o.test);
    w.push_back(o.wait);
    in.push_back(o.start + o.test + o.wait);
    c.push_back(o.by_test ? static_cast<double>(o.calls) : 1e300);
  }
  OverlapStats st{max_over(comm, median_of(s)), max_over(comm, median_of(t)),
                  max_over(comm, median_of(w)), max_over(comm, median_of(in)),
                  max_over(comm, median_of(c))};
  if (st.calls >= 1e299) st.calls = -1;  // the median met a run that only wait() finished
  return st;
}

}  // namespace

void suite_overlap(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  const std::string btl = mpi_btl();
  const bool tcp = btl.find("tcp") != std::string::npos && btl.find("vader") == std::string::npos &&
                   btl.find("sm") == std::string::npos;
  Daxpy d;
  const double unit = calibrate(comm, d, 100e-6);
  if (root) {
    std::printf(
        "\n== suite overlap (ScaLAPACK storage; MPI btl %s%s; compute unit %.1f us = %d DAXPY "
        "passes of 2048) ==\n",
        btl.c_str(), tcp ? ", node-local paths off" : "", unit * 1e6, d.reps);
    std::printf("%-32s %8s %8s %8s %6s | %8s %8s %7s %8s %8s %6s %s\n", "case", "t_move", "t_total",
                "t_comp", "ratio", "t_comp2", "t_total2", "hidden", "t_inside", "t_wait2", "tests2",
                "check");
  }
  const int np = comm.size();
  for (Case c : standard_cases(o)) {
    if (c.name[0] != 'a' && c.name[0] != 'd') continue;
    c.suite = "overlap";
    if (np != 2) {  // every rank takes part: 1 x P -> P x 1 (a), P x 1 -> 1 x P (d)
      const std::string p = std::to_string(np);
      if (c.name[0] == 'a') {
        c.qs = c.pt = np;
        c.name = "a 256@1x" + p + "->100@" + p + "x1";
      } else {
        c.ps = c.qt = np;
        c.name = "d 128x96@" + p + "x1->100x70@1x" + p;
      }
    }
    for (const auto [window, thread] : {std::pair{true, false}, std::pair{false, false},
                                        std::pair{true, true}, std::pair{false, true}}) {
      if (window && tcp) continue;       // over TCP: what goes between nodes, no node window
      if (!window && np == 1) continue;  // one rank: nothing between ranks
      Case cw = c;
      cw.name = c.name + (window ? " window" : " no-window") + (thread ? " thread" : "");
      if (!selected(o, cw.name)) continue;
      Result res;
      res.c = cw;
      ScalapackMatrix a(source_layout(c), {}, comm.rank());
      ScalapackMatrix b(target_layout(c), {}, comm.rank());
      fill_source(c, a);
      fill_sentinel(b);
      redist::ExecutionOptions exec;
      exec.shared_window = window;
      if (thread) exec.progress = redist::ProgressPolicy::thread;
      const double t_setup = now();
      redist::Redistributor r(a, b, comm, redist::Region::whole({c.M, c.N}), {}, exec);
      res.stats.plan_seconds = max_over(comm, now() - t_setup);
      collect_plan_stats(comm, r, res.stats);
      r.redistribute();
      Variant move{"move"}, compute{"compute"}, total{"total"}, compute2{"compute2"},
          total2{"total2"};
      for (Variant* v : {&move, &compute, &total, &compute2, &total2}) v->ran = true;
      move.mismatches = count_mismatches(comm, c, b);
      move.timing = time_it(comm, o.repeat, [&] { r.redistribute(); });
      const double t_move = move.timing.median();
      // Issue 9: compute as long as the move, a test() after every unit.
      const long units = std::max(1L, std::lround(t_move / unit));
      compute.timing = time_it(comm, o.repeat, [&] {
        for (long u = 0; u < units; ++u) d.unit();
      });
      fill_sentinel(b);
      std::vector<Overlapped> runs;
      total.timing = time_it(comm, o.repeat, [&] { runs.push_back(overlapped(r, d, units, 1)); });
      total.mismatches = count_mismatches(comm, c, b);
      const OverlapStats st = summarize(comm, runs);
      // Issue 24: compute twice as long as the move, a test() every ~1 ms. Units counted
      // from the compute run just timed, not from the calibration: on a loaded machine a
      // unit lasts longer in a long run than in the calibration's short bursts.
      const double unit_now = compute.timing.median() / static_cast<double>(units);
      const long units2 = std::max(1L, std::lround(2 * t_move / unit_now));
      const long every = std::max(1L, std::lround(1e-3 / unit_now));
      compute2.timing = time_it(comm, o.repeat, [&] {
        for (long u = 0; u < units2; ++u) d.unit();
      });
      fill_sentinel(b);
      std::vector<Overlapped> runs2;
      total2.timing =
          time_it(comm, o.repeat, [&] { runs2.push_back(overlapped(r, d, units2, every)); });
      total2.mismatches = count_mismatches(comm, c, b);
      const OverlapStats st2 = summarize(comm, runs2);
      res.variants = {move, compute, total, compute2, total2};
      const double ratio = total.timing.median() / std::max(compute.timing.median(), t_move);
      const double hidden =
          std::clamp(1 - (total2.timing.median() - compute2.timing.median()) / t_move, 0.0, 1.0);
      res.extra = {{"ratio", ratio},
                   {"units", static_cast<double>(units)},
                   {"compute_seconds_calibrated", static_cast<double>(units) * unit},
                   {"unit_seconds", unit},
                   {"daxpy_passes_per_unit", d.reps},
                   {"start_seconds", st.start},
                   {"wait_seconds", st.wait},
                   {"test_seconds", st.test},
                   {"test_calls_to_complete", st.calls},
                   {"hidden_fraction", hidden},
                   {"hidden_units", static_cast<double>(units2)},
                   {"hidden_test_every_units", static_cast<double>(every)},
                   {"hidden_unit_seconds", unit_now},
                   {"hidden_start_seconds", st2.start},
                   {"hidden_test_seconds", st2.test},
                   {"hidden_wait_seconds", st2.wait},
                   {"hidden_inside_seconds", st2.inside},
                   {"hidden_test_calls_to_complete", st2.calls}};
      res.labels = {{"window", window ? "on" : "off"},
                    {"progress", thread ? "thread" : "caller"},
                    {"btl", btl}};
      res.b_memcpy = b_memcpy_of_run(comm, o);
      if (root) {
        std::printf("%-32s %8.4f %8.4f %8.4f %6.2f | %8.4f %8.4f %6.1f%% %8.4f %8.4f %6.0f %s\n",
                    cw.name.c_str(), t_move, total.timing.median(), compute.timing.median(), ratio,
                    compute2.timing.median(), total2.timing.median(), 100 * hidden, st2.inside,
                    st2.wait, st2.calls, mismatches_of(res) ? "MISMATCH" : "ok");
        std::fflush(stdout);
      }
      report.add(std::move(res));
    }
  }
  if (root) {
    std::printf(
        "left: compute for t_move, a test() after every unit: ratio = t_total / max(t_comp, "
        "t_move) (target <= 1.2).\nright: compute for 2 t_move, a test() every ~1 ms: hidden = 1 - "
        "(t_total2 - t_comp2) / t_move (target >= 80 %%);\nt_inside: time in start() + test() + "
        "wait() of that run, t_wait2: in wait() (medians, max over ranks);\ntests2: test() calls "
        "until it returned true (-1: only wait() finished).\n");
    std::ostringstream json;
    json << "{\"unit_seconds\": " << json_number(unit) << ", \"daxpy_passes_per_unit\": " << d.reps
         << ", \"daxpy_length\": " << d.x.size() << ", \"target_ratio\": 1.2"
         << ", \"target_hidden_fraction\": 0.8}";
    report.sections.emplace_back("overlap", json.str());
  }
}

}  // namespace bench
