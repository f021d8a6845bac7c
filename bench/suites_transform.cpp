/// @file bench/suites_transform.cpp
/// Suite transform: what transforming while moving costs (Transform, Triangle, parts;
/// redist/transform.hpp), on the standard cases a-d in ScaLAPACK storage, side by side
/// in one run:
/// - op_n: the plain move; op_t: the same move transposed (target N x M, same tiles and
///   grid), targeted within 1.3x of op_n;
/// - uplo_l: the lower triangle only: its bytes (45-56 % of the full region's) and its
///   time (at most 60 % of op_n's);
/// - count3: three matrices of these layouts in one exchange, within 2.7x of op_n;
/// - tran_redist vs pdtran: C = A^T with both on the source grid (PBLAS needs one
///   context), redist against ScaLAPACK's pdtran on the same arrays.
/// Every target element is checked after the first and the last timed run.

#include "bench.hpp"

#if REDIST_HAVE_SCALAPACK
extern "C" void pdtran_(const int* m, const int* n, const double* alpha, const double* a,
                        const int* ia, const int* ja, const int* desca, const double* beta,
                        double* c, const int* ic, const int* jc, const int* descc);
#endif

namespace bench {

namespace {

using redist::ElementIndex;
using redist::Op;
using redist::Transform;

/// Wrong target elements (all ranks) when target element (i, j) should be want(i, j).
template <class Matrix, class F>
long count_wrong(const mpi::communicator& comm, const Matrix& b, F&& want) {
  long bad = 0;
  b.for_each_element([&](ElementIndex e, double& v) { bad += v != want(e.i, e.j); });
  return static_cast<long>(sum_over(comm, static_cast<double>(bad)));
}

/// Times r.redistribute() with the target reset to the sentinel; checks before and after.
template <class R, class Targets, class F>
Variant time_redist(const mpi::communicator& comm, const Options& o, const std::string& name, R& r,
                    Targets targets, F&& want) {
  Variant v;
  v.name = name;
  v.ran = true;
  const auto check = [&] {
    long bad = 0;
    for (std::size_t k = 0; k < targets.size(); ++k)
      bad += count_wrong(comm, *targets[k], [&](index_t i, index_t j) { return want(k, i, j); });
    return bad;
  };
  for (auto* b : targets) fill_sentinel(*b);
  r.redistribute();
  v.mismatches = check();
  v.timing = time_it(comm, o.repeat, [&] { r.redistribute(); });
  v.mismatches += check();
  return v;
}

double ratio(const Variant* a, const Variant* b) {
  return a && b ? a->timing.median() / b->timing.median() : NAN;
}

}  // namespace

void suite_transform(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  if (comm.size() != 2) {
    if (root) std::printf("transform suite needs 2 ranks; skipped\n");
    return;
  }
  if (root) {
    std::printf("\n== suite transform (ScaLAPACK storage; medians, s) ==\n");
    std::printf("%-26s %8s %8s %6s %8s %6s %6s %8s %6s %9s %9s %6s %s\n", "case", "op n", "op t",
                "t/n", "uplo l", "bytes%", "time%", "count 3", "3/1", "tran", "pdtran", "spd",
                "check");
  }
  for (Case c : standard_cases(o)) {
    c.suite = "transform";
    if (!selected(o, c.name)) continue;
    Result res;
    res.c = c;
    const BcLayout ls = source_layout(c), lt = target_layout(c);
    const BcLayout lt_t{shape_of(c.N, c.M, c.mbt, c.nbt), redist::BlockCyclic(c.pt, c.qt)};
    const redist::Region whole = redist::Region::whole({c.M, c.N});
    const auto src_value = [&](index_t i, index_t j) { return value_at(c, i, j); };
    std::vector<ScalapackMatrix> a;
    for (int k = 0; k < 3; ++k) {
      a.emplace_back(ls, ScalapackStorage{}, comm.rank());
      a.back().for_each_element(
          [&](ElementIndex e, double& v) { v = src_value(e.i, e.j) + 1e9 * k; });
    }
    ScalapackMatrix b(lt, {}, comm.rank());
    {
      redist::Redistributor r(a[0], b, comm, whole);
      res.variants.push_back(
          time_redist(comm, o, "op_n", r, std::vector<ScalapackMatrix*>{&b},
                      [&](std::size_t, index_t i, index_t j) { return src_value(i, j); }));
      collect_plan_stats(comm, r, res.stats);
    }
    {
      ScalapackMatrix bt(lt_t, {}, comm.rank());
      redist::Redistributor r(a[0], bt, comm, whole, Transform<double>{Op::transpose});
      res.variants.push_back(
          time_redist(comm, o, "op_t", r, std::vector<ScalapackMatrix*>{&bt},
                      [&](std::size_t, index_t i, index_t j) { return src_value(j, i); }));
    }
    double bytes_pct = NAN;
    {
      Transform<double> t;
      t.triangle = redist::Triangle{redist::Uplo::lower};
      redist::Redistributor r(a[0], b, comm, whole, t);
      res.variants.push_back(
          time_redist(comm, o, "uplo_l", r, std::vector<ScalapackMatrix*>{&b},
                      [&](std::size_t, index_t i, index_t j) {
                        return t.triangle.keeps(i, j, {c.M, c.N}) ? src_value(i, j) : sentinel;
                      }));
      const redist::PlanStats& s = r.plan().stats;
      const double moved = sum_over(comm, static_cast<double>(s.elements_sent + s.elements_local));
      bytes_pct = 100 * moved / (static_cast<double>(c.M) * static_cast<double>(c.N));
    }
    {
      std::vector<ScalapackMatrix> bs;
      for (int k = 0; k < 3; ++k) bs.emplace_back(lt, ScalapackStorage{}, comm.rank());
      std::vector<redist::Part<ScalapackMatrix, ScalapackMatrix>> parts;
      std::vector<ScalapackMatrix*> targets;
      for (int k = 0; k < 3; ++k) {
        parts.push_back(
            redist::Part{&a[static_cast<std::size_t>(k)], &bs[static_cast<std::size_t>(k)], whole});
        targets.push_back(&bs[static_cast<std::size_t>(k)]);
      }
      redist::Redistributor r(parts, comm);
      res.variants.push_back(
          time_redist(comm, o, "count3", r, targets, [&](std::size_t k, index_t i, index_t j) {
            return src_value(i, j) + 1e9 * static_cast<double>(k);
          }));
    }
    // C = A^T on the source grid: redist, then pdtran on the same arrays.
    const BcLayout lc{shape_of(c.N, c.M, c.mbt, c.nbt), redist::BlockCyclic(c.ps, c.qs)};
    ScalapackMatrix cm(lc, {}, comm.rank());
    const auto transposed = [&](std::size_t, index_t i, index_t j) { return src_value(j, i); };
    {
      redist::Redistributor r(a[0], cm, comm, whole, Transform<double>{Op::transpose});
      res.variants.push_back(
          time_redist(comm, o, "tran_redist", r, std::vector<ScalapackMatrix*>{&cm}, transposed));
    }
#if REDIST_HAVE_SCALAPACK
    if (o.scalapack) {
      Variant v;
      v.name = "pdtran";
      v.ran = true;
      const int ctx = blacs_context(c.ps, c.qs);
      const auto [pa, lda] = scalapack_storage(a[0]);
      const auto [pc, ldc] = scalapack_storage(cm);
      const int M = static_cast<int>(c.M), N = static_cast<int>(c.N), one = 1;
      const int desca[9] = {1, ctx, M,  N, static_cast<int>(c.mbs), static_cast<int>(c.nbs),
                            0, 0,   lda};
      const int descc[9] = {1, ctx, N,  M, static_cast<int>(c.mbt), static_cast<int>(c.nbt),
                            0, 0,   ldc};
      const double alpha = 1, beta = 0;
      const auto call = [&] {
        pdtran_(&N, &M, &alpha, pa, &one, &one, desca, &beta, pc, &one, &one, descc);
      };
      const auto check = [&] {
        return count_wrong(comm, cm, [&](index_t i, index_t j) { return transposed(0, i, j); });
      };
      fill_sentinel(cm);
      call();
      v.mismatches = check();
      v.timing = time_it(comm, o.repeat, call);
      v.mismatches += check();
      res.variants.push_back(v);
    }
#endif
    const Variant* n = res.find("op_n");
    const Variant* t = res.find("op_t");
    const Variant* l = res.find("uplo_l");
    const Variant* k3 = res.find("count3");
    const Variant* tr = res.find("tran_redist");
    const Variant* pt = res.find("pdtran");
    res.extra.emplace_back("ratio_op_t_over_n", ratio(t, n));
    res.extra.emplace_back("uplo_l_bytes_pct", bytes_pct);
    res.extra.emplace_back("uplo_l_time_pct", 100 * ratio(l, n));
    res.extra.emplace_back("ratio_count3_over_n", ratio(k3, n));
    res.extra.emplace_back("speedup_tran_vs_pdtran", ratio(pt, tr));
    if (root) {
      const auto med = [](const Variant* v) { return v ? v->timing.median() : NAN; };
      std::printf("%-26s %8.4f %8.4f %6.2f %8.4f %6.1f %6.1f %8.4f %6.2f %9.4f %9.4f %6.2f %s\n",
                  c.name.c_str(), med(n), med(t), ratio(t, n), med(l), bytes_pct, 100 * ratio(l, n),
                  med(k3), ratio(k3, n), med(tr), med(pt), ratio(pt, tr),
                  mismatches_of(res) ? "MISMATCH" : "ok");
      std::fflush(stdout);
    }
    report.add(std::move(res));
  }
}

}  // namespace bench
