#pragma once
/// @file phase_powers.hpp
/// Per-node powers of each phase of a two-phase application (Nesi et al. 2023, section
/// 4.3): the linear program of their Eq. 12 places the tasks of every step on resource
/// groups, letting the second phase start while the first still runs, and Eq. 13 turns the
/// placement into one relative power per node and phase, the input of the heterogeneous
/// distributions (distributions/heterogeneous.hpp) and of synthesize (synthesize.hpp).
///
/// Optional component: needs GLPK (glpk.h, -lglpk; Debian libglpk-dev). CMake: the target
/// redist::glpk of cmake/redistFindGLPK.cmake. GLPK is GPL-licensed: a program linking it
/// is bound by the GPL.
///
/// Inputs (PhaseModel), with S steps, T task types, R resource groups:
///
/// | field          | paper       | meaning                                                 |
/// |----------------|-------------|---------------------------------------------------------|
/// | tasks[s][t]    | N_{s,t}     | tasks of type t in step s                               |
/// | phase[t]       | P_1, P_2    | 1 if type t belongs to the first phase, 2 if the second |
/// | duration[t][r] | w_{t,r}     | time group r is busy per task of type t (a group of c   |
/// |                |             | workers: one task's time / c); infinity: cannot run it  |
/// | node[r]        | R^(x)       | the node that group r belongs to (default: node r)      |
///
/// The program (variables alpha_{s,t,r} >= 0 tasks of type t of step s on group r,
/// tau1_s, tau2_s >= 0 the ends of step s in phase 1 and 2; steps numbered from 1):
///
///     minimize sum_s (tau1_s + tau2_s)                                          (12)
///     sum_r alpha_{s,t,r} = N_{s,t}                          for all t, s        (12a)
///     tau1_{s-1} + sum_{t in P1} alpha_{s,t,r} w_{t,r} <= tau1_s   s > 1, all r  (12b)
///     tau1_s + sum_{t in P2} alpha_{s,t,r} w_{t,r} <= tau2_s        all s, r     (12c)
///     tau2_{s-1} + sum_{t in P2} alpha_{s,t,r} w_{t,r} <= tau2_s   s > 1, all r  (12d)
///     sum_{z <= s, t} alpha_{z,t,r} w_{t,r} <= tau2_s               all r, s     (12e)
///     min_{r, t in P1} w_{t,r} <= tau1_1                                        (12f)
///
/// (alpha_{s,t,r} = 0 where w_{t,r} is infinite.) Powers per phase k (Eq. 13, with the
/// types of phase k):
///
///     c_t = sum_s N_{s,t} / sum_r (1 / w_{t,r})      time for all tasks of t on everything
///     h_t = c_t / sum_{z in P_k} c_z                 weight of type t in its phase
///     p_x = sum_{r in R(x), t in P_k, s: N_{s,t} > 0} h_t alpha_{s,t,r} / N_{s,t}
///
/// then normalised so that the powers of a phase sum to 1 (Eq. 13c sums per-step
/// fractions; only ratios matter to the distributions). PhasePowers::tasks gives the raw
/// task amounts per node and phase, sum of alpha: for ExaGeoStat the paper takes the
/// generation tile counts from these directly (section 4.4); apportion()
/// (distributions/heterogeneous.hpp) rounds either to integer tile counts.

#include <cmath>
#include <glpk.h>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <redist/distributions/heterogeneous.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>

namespace redist {

/// Inputs of the phase LP; see the file comment for the notation.
struct PhaseModel {
  std::vector<std::vector<double>> tasks;     ///< tasks[s][t] = N_{s,t}, S x T
  std::vector<int> phase;                     ///< phase[t] in {1, 2}, T entries
  std::vector<std::vector<double>> duration;  ///< duration[t][r] = w_{t,r}, T x R
  std::vector<int> node;                      ///< node[r]; empty: group r is node r
};

/// Solution of the phase LP and the powers derived from it.
struct PhasePowers {
  std::vector<std::vector<std::vector<double>>> alpha;  ///< alpha[s][t][r]
  std::vector<double> end1;                             ///< tau1_s: end of step s of phase 1
  std::vector<double> end2;                             ///< tau2_s: end of step s of phase 2
  double makespan = 0;                                  ///< tau2 of the last step
  double objective = 0;                                 ///< sum of all ends (Eq. 12)
  /// power[k][x]: relative power of node x in phase k + 1 (Eq. 13), sums to 1 per phase
  /// (all zero for a phase without tasks).
  std::vector<std::vector<double>> power;
  /// tasks[k][x]: tasks of phase k + 1 the LP places on node x (sum of alpha).
  std::vector<std::vector<double>> tasks;
};

namespace detail {

/// The number of nodes and the node of each group. @throws invalid_argument.
inline std::vector<int> group_nodes(const PhaseModel& m, std::size_t R, int& nodes) {
  std::vector<int> node = m.node;
  if (node.empty())
    for (std::size_t r = 0; r < R; ++r) node.push_back(static_cast<int>(r));
  if (node.size() != R)
    throw invalid_argument(
        describe("one node per resource group is needed", "node.size()", node.size()) +
        " (groups = " + std::to_string(R) + ")");
  nodes = 0;
  for (std::size_t r = 0; r < R; ++r) {
    if (node[r] < 0)
      throw invalid_argument(describe("a node index must be non-negative",
                                      "node[" + std::to_string(r) + "]", node[r]));
    nodes = std::max(nodes, node[r] + 1);
  }
  return node;
}

/// Checks the shape and values of a PhaseModel. @throws invalid_argument naming the
/// parameter and value.
inline void check_phase_model(const PhaseModel& m) {
  const std::size_t T = m.phase.size();
  if (T == 0)
    throw invalid_argument(describe("at least one task type is needed", "phase.size()", 0));
  if (m.tasks.empty())
    throw invalid_argument(describe("at least one step is needed", "tasks.size()", 0));
  for (std::size_t t = 0; t < T; ++t)
    if (m.phase[t] != 1 && m.phase[t] != 2)
      throw invalid_argument(describe("a task type's phase must be 1 or 2",
                                      "phase[" + std::to_string(t) + "]", m.phase[t]));
  if (m.duration.size() != T)
    throw invalid_argument(
        describe("one duration row per task type is needed", "duration.size()", m.duration.size()) +
        " (types = " + std::to_string(T) + ")");
  const std::size_t R = m.duration[0].size();
  if (R == 0)
    throw invalid_argument(
        describe("at least one resource group is needed", "duration[0].size()", 0));
  for (std::size_t t = 0; t < T; ++t) {
    const std::string row = "duration[" + std::to_string(t) + "]";
    if (m.duration[t].size() != R)
      throw invalid_argument(describe("every type needs one duration per group", row + ".size()",
                                      m.duration[t].size()) +
                             " (groups = " + std::to_string(R) + ")");
    for (std::size_t r = 0; r < R; ++r) {
      const double w = m.duration[t][r];
      if (!(w > 0))  // NaN, zero or negative; infinity is allowed
        throw invalid_argument(describe("a duration must be positive (infinity: cannot run)",
                                        row + "[" + std::to_string(r) + "]", w));
    }
  }
  for (std::size_t s = 0; s < m.tasks.size(); ++s) {
    const std::string row = "tasks[" + std::to_string(s) + "]";
    if (m.tasks[s].size() != T)
      throw invalid_argument(
          describe("every step needs one task count per type", row + ".size()", m.tasks[s].size()) +
          " (types = " + std::to_string(T) + ")");
    for (std::size_t t = 0; t < T; ++t) {
      const double n = m.tasks[s][t];
      if (!(n >= 0) || n > std::numeric_limits<double>::max())
        throw invalid_argument(describe("a task count must be finite and non-negative",
                                        row + "[" + std::to_string(t) + "]", n));
      if (n > 0) {
        bool runs = false;
        for (std::size_t r = 0; r < R; ++r) runs = runs || std::isfinite(m.duration[t][r]);
        if (!runs)
          throw invalid_argument(describe("no resource group can run this task type",
                                          "duration[" + std::to_string(t) + "]", "all infinite") +
                                 " (" + row + "[" + std::to_string(t) + "] = " + std::to_string(n) +
                                 ")");
      }
    }
  }
}

}  // namespace detail

/// Solves Nesi et al. 2023 Eq. 12 with GLPK's simplex and derives Eq. 13's powers.
/// @post alpha satisfies (12a) to (12f) up to GLPK's tolerances; each power row sums to
/// 1 or is all zero.
/// @throws invalid_argument naming the parameter and value for a malformed model
/// (sizes, a phase other than 1 or 2, a duration <= 0, a negative task count, a type with
/// tasks that no group can run, a negative node); error if GLPK fails.
inline PhasePowers phase_powers(const PhaseModel& m) {
  detail::check_phase_model(m);
  const std::size_t S = m.tasks.size(), T = m.phase.size(), R = m.duration[0].size();
  int nodes = 0;
  const std::vector<int> node = detail::group_nodes(m, R, nodes);

  std::unique_ptr<glp_prob, void (*)(glp_prob*)> lp(glp_create_prob(), glp_delete_prob);
  glp_set_obj_dir(lp.get(), GLP_MIN);
  // Columns (1-based): alpha, then tau1, then tau2.
  const auto alpha = [&](std::size_t s, std::size_t t, std::size_t r) {
    return static_cast<int>(1 + (s * T + t) * R + r);
  };
  const auto tau1 = [&](std::size_t s) { return static_cast<int>(1 + S * T * R + s); };
  const auto tau2 = [&](std::size_t s) { return static_cast<int>(1 + S * T * R + S + s); };
  glp_add_cols(lp.get(), static_cast<int>(S * T * R + 2 * S));
  for (std::size_t s = 0; s < S; ++s) {
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t r = 0; r < R; ++r) {
        if (std::isfinite(m.duration[t][r]))
          glp_set_col_bnds(lp.get(), alpha(s, t, r), GLP_LO, 0.0, 0.0);
        else
          glp_set_col_bnds(lp.get(), alpha(s, t, r), GLP_FX, 0.0, 0.0);
      }
    glp_set_col_bnds(lp.get(), tau1(s), GLP_LO, 0.0, 0.0);
    glp_set_col_bnds(lp.get(), tau2(s), GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp.get(), tau1(s), 1.0);
    glp_set_obj_coef(lp.get(), tau2(s), 1.0);
  }
  // (12f): the first step of phase 1 lasts at least its fastest task.
  double fastest = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < T; ++t)
    if (m.phase[t] == 1)
      for (std::size_t r = 0; r < R; ++r) fastest = std::min(fastest, m.duration[t][r]);
  if (std::isfinite(fastest)) glp_set_col_bnds(lp.get(), tau1(0), GLP_LO, fastest, 0.0);

  // Rows, in the sparse triplets GLPK loads (index 0 unused).
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  int row = 0;
  const auto new_row = [&](int type, double lo, double hi) {
    row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, type, lo, hi);
  };
  const auto put = [&](int col, double v) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };
  // sum over types of phase k (0: all) of w alpha_{s,t,r}.
  const auto work = [&](std::size_t s, std::size_t r, int k) {
    for (std::size_t t = 0; t < T; ++t)
      if ((k == 0 || m.phase[t] == k) && std::isfinite(m.duration[t][r]))
        put(alpha(s, t, r), m.duration[t][r]);
  };
  for (std::size_t s = 0; s < S; ++s)
    for (std::size_t t = 0; t < T; ++t) {  // (12a)
      new_row(GLP_FX, m.tasks[s][t], m.tasks[s][t]);
      for (std::size_t r = 0; r < R; ++r)
        if (std::isfinite(m.duration[t][r])) put(alpha(s, t, r), 1.0);
    }
  // end_before + (work of phase k of step s on group r) <= end_after.
  const auto after = [&](int end_before, int end_after, std::size_t s, std::size_t r, int k) {
    new_row(GLP_UP, 0.0, 0.0);
    put(end_before, 1.0);
    put(end_after, -1.0);
    work(s, r, k);
  };
  for (std::size_t s = 0; s < S; ++s)
    for (std::size_t r = 0; r < R; ++r) {
      if (s > 0) after(tau1(s - 1), tau1(s), s, r, 1);  // (12b)
      after(tau1(s), tau2(s), s, r, 2);                 // (12c)
      if (s > 0) after(tau2(s - 1), tau2(s), s, r, 2);  // (12d)
      new_row(GLP_UP, 0.0, 0.0);                        // (12e)
      for (std::size_t z = 0; z <= s; ++z) work(z, r, 0);
      put(tau2(s), -1.0);
    }
  glp_load_matrix(lp.get(), static_cast<int>(ia.size() - 1), ia.data(), ja.data(), ar.data());

  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  const int rc = glp_simplex(lp.get(), &parm);
  const int status = glp_get_status(lp.get());
  if (rc != 0 || status != GLP_OPT)
    throw error(detail::describe("GLPK found no optimal solution of the phase LP",
                                 "glp_simplex status", rc) +
                " (glp_get_status = " + std::to_string(status) + ")");

  PhasePowers out;
  out.alpha.assign(S, std::vector<std::vector<double>>(T, std::vector<double>(R, 0.0)));
  out.end1.resize(S);
  out.end2.resize(S);
  for (std::size_t s = 0; s < S; ++s) {
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t r = 0; r < R; ++r)
        out.alpha[s][t][r] = std::max(0.0, glp_get_col_prim(lp.get(), alpha(s, t, r)));
    out.end1[s] = glp_get_col_prim(lp.get(), tau1(s));
    out.end2[s] = glp_get_col_prim(lp.get(), tau2(s));
  }
  out.makespan = out.end2[S - 1];
  out.objective = glp_get_obj_val(lp.get());

  // Eq. 13, per phase.
  out.power.assign(2, std::vector<double>(static_cast<std::size_t>(nodes), 0.0));
  out.tasks.assign(2, std::vector<double>(static_cast<std::size_t>(nodes), 0.0));
  std::vector<double> c(T, 0.0);
  for (std::size_t t = 0; t < T; ++t) {
    double speed = 0, total = 0;
    for (std::size_t r = 0; r < R; ++r) speed += 1.0 / m.duration[t][r];  // 1 / inf = 0
    for (std::size_t s = 0; s < S; ++s) total += m.tasks[s][t];
    c[t] = speed > 0 ? total / speed : 0.0;  // (13a)
  }
  for (int k = 1; k <= 2; ++k) {
    double csum = 0;
    for (std::size_t t = 0; t < T; ++t)
      if (m.phase[t] == k) csum += c[t];
    auto& p = out.power[static_cast<std::size_t>(k - 1)];
    auto& n = out.tasks[static_cast<std::size_t>(k - 1)];
    for (std::size_t t = 0; t < T; ++t) {
      if (m.phase[t] != k) continue;
      const double h = csum > 0 ? c[t] / csum : 0.0;  // (13b)
      for (std::size_t s = 0; s < S; ++s)
        for (std::size_t r = 0; r < R; ++r) {
          const auto x = static_cast<std::size_t>(node[r]);
          n[x] += out.alpha[s][t][r];
          if (m.tasks[s][t] > 0) p[x] += h * out.alpha[s][t][r] / m.tasks[s][t];  // (13c)
        }
    }
    double psum = 0;
    for (double v : p) psum += v;
    if (psum > 0)
      for (double& v : p) v /= psum;
  }
  return out;
}

}  // namespace redist
