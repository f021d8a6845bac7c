// Tests of the phase-power LP (phase_powers.hpp, Nesi et al. 2023 Eq. 12-13), built only
// with GLPK (REDIST_HAVE_GLPK, set by tests/CMakeLists.txt when cmake/redistFindGLPK.cmake
// finds it): a hand-solved one-step case, the constraints (12a)-(12f) on an ExaGeoStat-like
// model, powers that follow the resources (GPU nodes take the factorization, CPUs share the
// generation), and bad models naming the parameter and value.
#if REDIST_HAVE_GLPK

#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <redist/error.hpp>
#include <redist/phase_powers.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;

constexpr double inf = std::numeric_limits<double>::infinity();

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// An ExaGeoStat-like model on the lower triangle of nb x nb tiles: step s holds the tiles
/// of anti-diagonals 2s and 2s + 1 (Nesi et al. 2023, section 4.3); type 0 generation (one
/// task per tile, phase 1), type 1 factorization (tile (i, j) takes j + 1 kernels, phase 2).
/// Four nodes, each a CPU group; nodes 2 and 3 also have a GPU group (groups 4 and 5).
PhaseModel exageostat(int nb) {
  PhaseModel m;
  const int S = nb;  // anti-diagonals 0 .. 2nb-2, two per step
  m.tasks.assign(static_cast<std::size_t>(S), {0.0, 0.0});
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j <= i; ++j) {
      auto& step = m.tasks[static_cast<std::size_t>((i + j) / 2)];
      step[0] += 1;
      step[1] += j + 1;
    }
  m.phase = {1, 2};
  // Per-group time per task: a 32-core CPU runs 32 generation tasks of 20 ms at once;
  // factorization kernels take 40 ms on a core, 0.5 ms on one of two GPUs (a node's GPUs
  // are five times its CPU at this kernel).
  const double cpu_gen = 20.0 / 32, cpu_fact = 40.0 / 32, gpu_fact = 0.5 / 2;
  m.duration = {{cpu_gen, cpu_gen, cpu_gen, cpu_gen, inf, inf},
                {cpu_fact, cpu_fact, cpu_fact, cpu_fact, gpu_fact, gpu_fact}};
  m.node = {0, 1, 2, 3, 2, 3};
  return m;
}

}  // namespace

TEST_CASE("phase_powers: one step, one type, solved by hand") {
  // 12 tasks of a phase-2 type on two groups, 1 and 3 time units per task: the optimum
  // balances 9 x 1 = 3 x 3, makespan 9; powers 3/4 and 1/4 (Eq. 13: c = 12 / (1 + 1/3) = 9,
  // h = 1, p = alpha / N).
  PhaseModel m;
  m.tasks = {{12.0}};
  m.phase = {2};
  m.duration = {{1.0, 3.0}};
  const PhasePowers p = phase_powers(m);
  CHECK(p.alpha[0][0][0] == doctest::Approx(9.0));
  CHECK(p.alpha[0][0][1] == doctest::Approx(3.0));
  CHECK(p.makespan == doctest::Approx(9.0));
  CHECK(p.objective == doctest::Approx(9.0));  // tau1 = 0: no phase-1 type
  CHECK(p.power[1][0] == doctest::Approx(0.75));
  CHECK(p.power[1][1] == doctest::Approx(0.25));
  CHECK(p.power[0] == std::vector<double>{0.0, 0.0});
  CHECK(p.tasks[1][0] == doctest::Approx(9.0));
}

TEST_CASE("phase_powers: an ExaGeoStat-like model satisfies Eq. 12 and gives sensible powers") {
  const PhaseModel m = exageostat(12);
  const PhasePowers p = phase_powers(m);
  const std::size_t S = m.tasks.size(), T = 2, R = 6;
  const double eps = 1e-6;
  const auto w = [&](std::size_t t, std::size_t r) { return m.duration[t][r]; };
  const auto load = [&](std::size_t s, std::size_t r, int k) {
    double sum = 0;
    for (std::size_t t = 0; t < T; ++t)
      if ((k == 0 || m.phase[t] == k) && std::isfinite(w(t, r))) sum += p.alpha[s][t][r] * w(t, r);
    return sum;
  };
  bool a = true, b = true, c = true, d = true, e = true, never = true;
  for (std::size_t s = 0; s < S; ++s) {
    for (std::size_t t = 0; t < T; ++t) {
      double sum = 0;
      for (std::size_t r = 0; r < R; ++r) {
        sum += p.alpha[s][t][r];
        never = never && (std::isfinite(w(t, r)) || p.alpha[s][t][r] == 0);
      }
      a = a && std::abs(sum - m.tasks[s][t]) < eps * (1 + m.tasks[s][t]);  // (12a)
    }
    for (std::size_t r = 0; r < R; ++r) {
      if (s > 0) b = b && p.end1[s - 1] + load(s, r, 1) <= p.end1[s] + eps;  // (12b)
      c = c && p.end1[s] + load(s, r, 2) <= p.end2[s] + eps;                 // (12c)
      if (s > 0) d = d && p.end2[s - 1] + load(s, r, 2) <= p.end2[s] + eps;  // (12d)
      double upto = 0;
      for (std::size_t z = 0; z <= s; ++z) upto += load(z, r, 0);
      e = e && upto <= p.end2[s] + eps;  // (12e)
    }
  }
  CHECK(a);
  CHECK(b);
  CHECK(c);
  CHECK(d);
  CHECK(e);
  CHECK(never);
  CHECK(p.end1[0] >= 20.0 / 32 - eps);  // (12f)
  CHECK(p.makespan == doctest::Approx(p.end2[S - 1]));
  double ends = 0;
  for (std::size_t s = 0; s < S; ++s) ends += p.end1[s] + p.end2[s];
  CHECK(p.objective == doctest::Approx(ends));
  // The makespan is at least the total work over the total speed (an area bound).
  double area = 0, speed = 0;
  for (std::size_t s = 0; s < S; ++s) area += m.tasks[s][1];
  for (std::size_t r = 0; r < R; ++r) speed += 1 / w(1, r);
  CHECK(p.makespan >= area / speed - eps);

  // Powers: each phase sums to 1; the GPU nodes take most of the factorization; the
  // generation, CPU only, is shared by the four CPUs.
  for (int k = 0; k < 2; ++k)
    CHECK(std::accumulate(p.power[static_cast<std::size_t>(k)].begin(),
                          p.power[static_cast<std::size_t>(k)].end(), 0.0) == doctest::Approx(1.0));
  CHECK(p.power[1][2] + p.power[1][3] > 0.8);
  for (std::size_t x = 0; x < 4; ++x) {
    CHECK(p.power[0][x] > 0.15);
    CHECK(p.power[0][x] < 0.35);
  }
  // The task amounts are the alphas summed per node: they add up to the model's tasks.
  double gen = 0;
  for (std::size_t s = 0; s < S; ++s) gen += m.tasks[s][0];
  CHECK(std::accumulate(p.tasks[0].begin(), p.tasks[0].end(), 0.0) == doctest::Approx(gen));
  const std::vector<index_t> counts = apportion(78, p.tasks[0]);
  CHECK(std::accumulate(counts.begin(), counts.end(), index_t{0}) == 78);
  MESSAGE("generation powers ", p.power[0][0], " ", p.power[0][1], " ", p.power[0][2], " ",
          p.power[0][3], "; factorization ", p.power[1][0], " ", p.power[1][1], " ", p.power[1][2],
          " ", p.power[1][3], "; makespan ", p.makespan);
}

TEST_CASE("phase_powers: bad models name the parameter and value") {
  const PhaseModel good = exageostat(3);
  // clang-format off
  struct Case { void (*edit)(PhaseModel&); const char* names; };
  const Case cases[] = {
      {[](PhaseModel& m) { m.phase = {}; },                     "phase.size() = 0"},
      {[](PhaseModel& m) { m.phase[1] = 3; },                   "phase[1] = 3"},
      {[](PhaseModel& m) { m.tasks = {}; },                     "tasks.size() = 0"},
      {[](PhaseModel& m) { m.tasks[1] = {1.0}; },               "tasks[1].size() = 1 (types = 2)"},
      {[](PhaseModel& m) { m.tasks[2][0] = -4; },               "tasks[2][0] = -4"},
      {[](PhaseModel& m) { m.duration.pop_back(); },            "duration.size() = 1 (types = 2)"},
      {[](PhaseModel& m) { m.duration[1].pop_back(); },         "duration[1].size() = 5 (groups = 6)"},
      {[](PhaseModel& m) { m.duration[1][2] = 0; },             "duration[1][2] = 0"},
      {[](PhaseModel& m) { m.duration[0] = std::vector<double>(6, inf); }, "duration[0] = all infinite"},
      {[](PhaseModel& m) { m.node = {0, 1}; },                  "node.size() = 2 (groups = 6)"},
      {[](PhaseModel& m) { m.node[3] = -1; },                   "node[3] = -1"},
  };
  // clang-format on
  for (const Case& c : cases) {
    PhaseModel m = good;
    c.edit(m);
    const std::string msg = message_of<invalid_argument>([&] { phase_powers(m); });
    INFO(msg);
    CHECK(contains(msg, c.names));
    CHECK(contains(msg, "redist: "));
  }
}

#endif  // REDIST_HAVE_GLPK
