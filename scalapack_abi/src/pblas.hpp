#pragma once
// PBLAS's transposes and additions on redist: p?tran, p?tranu, p?tranc, p?geadd and
// p?tradd compute sub(C) := beta sub(C) + alpha op(sub(A)) (only a triangle of sub(C) for
// p?tradd), A and C in one BLACS context, each with its own descriptor.
//
// What is read and refused is what PBLAS reads and refuses (PBLAS/SRC/p?geadd_.c and
// PTOOLS/PB_Cchkmat.c of ScaLAPACK): an illegal argument gives the same INFO, handed to
// PBLAS's own error handler PB_Cabort (which prints and calls Cblacs_abort; PBLAS's
// tester replaces it to record INFO), after one PB_Cwarn line per problem.
//
// Steps, on every process of the context:
//   1. PB_Cchkmat's checks, each process on its own view (PBLAS: no communication).
//   2. Quick return (M = 0, N = 0, or alpha = 0 and beta = 1), still no communication.
//   3. One 4-int all-reduce over the context: if some process found an error, those call
//      PB_Cabort and every process returns (none is left waiting, unlike PBLAS); whether
//      redist's layouts hold both descriptors; whether A and C overlap in memory.
//   4. alpha = 0: sub(C) scaled (zeroed for beta = 0) in place, A never read, nothing sent.
//   5. Else the cached plan (scalapack::PlanCache, keyed by the transform) moves it.
// Descriptors that redist's uniform block-cyclic layouts cannot hold go to ScaLAPACK's own
// routine (the caller's `delegate`): RSRC_ or CSRC_ = -1 (a matrix replicated over the
// grid's rows or columns) and a BLOCK_CYCLIC_2D_INB descriptor whose first block IMB_ or
// INB_ differs from MB_ or NB_ on an axis with more than one process.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/scalapack.hpp>
#include <redist/transform.hpp>
#include <redist/triangle.hpp>

#include "blacs.hpp"
#include "dispatch.hpp"
#include "runtime.hpp"

extern "C" {
// PBLAS's error handlers (PBLAS/SRC/PBtools.h), looked up at run time like any symbol, so
// that a program's own (PBLAS's tester) replaces them for these routines too.
void PB_Cwarn(int ictxt, int line, const char* routine, const char* format, ...);
void PB_Cabort(int ictxt, const char* routine, int info);
}

namespace redist::abi {

/// A descriptor as PBLAS reads it (PB_CargFtoC): the 11 entries of BLOCK_CYCLIC_2D_INB,
/// whose first block may differ from the others (IMB_, INB_). A BLOCK_CYCLIC_2D (DTYPE_ =
/// 1) descriptor becomes one with IMB_ = MB_ and INB_ = NB_; another DTYPE_ keeps DTYPE_
/// and CTXT_ and is refused by the checks.
struct PblasDescriptor {
  enum Entry { dtype, ctxt, m, n, imb, inb, mb, nb, rsrc, csrc, lld, entries };
  int e[entries];

  int operator[](Entry k) const { return e[k]; }
  static PblasDescriptor of(const int* d) {
    if (d[0] == 1) return {{2, d[1], d[2], d[3], d[4], d[5], d[4], d[5], d[6], d[7], d[8]}};
    if (d[0] == 2) return {{2, d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10]}};
    return {{d[0], d[1], 0, 0, 1, 1, 1, 1, 0, 0, 1}};
  }
};

/// INFO as PBLAS builds it (PB_Cchkmat): a wrong scalar argument k gives code 100 k, a
/// wrong entry e (0-based, of the 11-entry form) of descriptor argument k gives 100 k + e
/// + 1; the lowest code found wins, and INFO is -k or -(100 k + e + 1).
/// Example: MB_ = 0 in a DTYPE_ = 1 DESCA at argument 8 is IMB_ = 0 too: INFO = -805.
class PblasInfo {
 public:
  void scalar(int k) { add(100 * k); }
  void entry(int k, PblasDescriptor::Entry e) { add(100 * k + e + 1); }
  bool none() const { return code_ == 0; }
  int info() const { return code_ == 0 ? 0 : code_ % 100 == 0 ? -(code_ / 100) : -code_; }

 private:
  void add(int code) {
    if (code_ == 0 || code < code_) code_ = code;
  }
  int code_ = 0;
};

/// One call of a PBLAS routine: its arguments and their positions (1-based, PBLAS's
/// numbering; 0 for an argument the routine does not have). IA, JA stand 2 and 1 before
/// DESCA, IC, JC before DESCC.
struct PblasCall {
  const char* routine = "";  ///< upper case, as PBLAS names it: "PDGEADD"
  char uplo = 0;             ///< upper-cased UPLO (p?tradd), 0 for the others
  char trans = 'T';          ///< upper-cased TRANS; p?tran's is 'T', p?tranc's 'C'
  int uplo_at = 0, trans_at = 0, m_at = 1, n_at = 2, desca_at = 7, descc_at = 12;
  bool complex = false;  ///< TRANS = 'C' conjugates
  int m = 0, n = 0;
  int ia = 1, ja = 1, ic = 1, jc = 1;
  const int* desca = nullptr;
  const int* descc = nullptr;
};

/// What the caller does next: nothing, or call ScaLAPACK's own routine with the same
/// arguments (descriptors that redist's layouts do not hold).
enum class PblasOutcome { done, delegate };

namespace detail {

/// How many of n indices process `proc` holds when they are cut into a first block of
/// `first`, then blocks of nb, dealt cyclically from process src (PB_Cnumroc with I = 0);
/// all n when src = -1 (replicated) or there is one process.
/// Example: n = 10, first = 2, nb = 3, 2 processes from 1: blocks 2, 3, 3, 2 go to
/// processes 1, 0, 1, 0, so process 0 holds 5 and process 1 holds 5.
constexpr index_t numroc_first(index_t n, index_t first, index_t nb, int proc, int src,
                               int nprocs) {
  if (src == -1 || nprocs == 1) return n;
  const index_t d = (proc - src + nprocs) % nprocs;  // blocks from the first holder
  if (n <= first) return d == 0 ? n : 0;
  const index_t rest = n - first, full = rest / nb, tail = rest % nb;
  // Block k >= 1 (nb each, then `tail`) lies d = k mod nprocs from the first holder.
  index_t local = d == 0 ? first : 0;
  const index_t k0 = d == 0 ? nprocs : d;
  if (full >= k0) local += ((full - k0) / nprocs + 1) * nb;
  if (tail > 0 && (full + 1) % nprocs == d) local += tail;
  return local;
}

/// PB_Cchkmat's checks of sub(X) = X(i0:i0+rows-1, j0:j0+cols-1) (0-based) with
/// descriptor d at argument `at`, on this process of grid g of context ctxt; every
/// problem goes into info and is announced with PB_Cwarn. The leading dimension is
/// checked only when nothing was found before (PBLAS does the same: it could not win).
inline void check_matrix(const PblasCall& c, const char* x, int rows, int rows_at, int cols,
                         int cols_at, int i0, int j0, const PblasDescriptor& d, int at,
                         const GridInfo& g, int ctxt, PblasInfo& info) {
  using E = PblasDescriptor;
  const auto warn = [&](auto... args) { PB_Cwarn(ctxt, -1, c.routine, args...); };
  if (rows < 0) info.scalar(rows_at), warn("rows of sub( %s ) = %d: must be at least 0", x, rows);
  if (cols < 0)
    info.scalar(cols_at), warn("columns of sub( %s ) = %d: must be at least 0", x, cols);
  if (i0 < 0) info.scalar(at - 2), warn("I%s = %d: must be at least 1", x, i0 + 1);
  if (j0 < 0) info.scalar(at - 1), warn("J%s = %d: must be at least 1", x, j0 + 1);
  if (d[E::dtype] != 2) {
    info.entry(at, E::dtype);
    return warn("DESC%s(DTYPE_) = %d: PBLAS takes 1 or 2", x, d[E::dtype]);
  }
  if (d[E::ctxt] != ctxt) {
    info.entry(at, E::ctxt);
    return warn("DESC%s(CTXT_) = %d: not the context of the other operand, %d", x, d[E::ctxt],
                ctxt);
  }
  const auto positive = [&](E::Entry k, const char* name) {
    if (d[k] < 1) info.entry(at, k), warn("DESC%s(%s) = %d: must be at least 1", x, name, d[k]);
  };
  positive(E::imb, "IMB_");
  positive(E::inb, "INB_");
  positive(E::mb, "MB_");
  positive(E::nb, "NB_");
  const auto source = [&](E::Entry k, const char* name, int procs) {
    if (d[k] < -1 || d[k] >= procs)
      info.entry(at, k), warn("DESC%s(%s) = %d: must be -1 or in 0..%d", x, name, d[k], procs - 1);
  };
  source(E::rsrc, "RSRC_", g.nprow);
  source(E::csrc, "CSRC_", g.npcol);
  if (rows == 0 || cols == 0) {  // an empty sub-matrix: looser rules
    if (d[E::m] < 0) info.entry(at, E::m), warn("DESC%s(M_) = %d: must be at least 0", x, d[E::m]);
    if (d[E::n] < 0) info.entry(at, E::n), warn("DESC%s(N_) = %d: must be at least 0", x, d[E::n]);
    if (d[E::lld] < 1)
      info.entry(at, E::lld), warn("DESC%s(LLD_) = %d: must be at least 1", x, d[E::lld]);
    return;
  }
  if (d[E::m] < 1) info.entry(at, E::m), warn("DESC%s(M_) = %d: must be at least 1", x, d[E::m]);
  if (d[E::n] < 1) info.entry(at, E::n), warn("DESC%s(N_) = %d: must be at least 1", x, d[E::n]);
  if (d[E::m] >= 1 && d[E::n] >= 1) {
    if (static_cast<long long>(i0) + rows > d[E::m])
      info.scalar(at - 2),
          warn("sub( %s ) out of bounds: I%s = %d, %d rows, M_ = %d", x, x, i0 + 1, rows, d[E::m]);
    if (static_cast<long long>(j0) + cols > d[E::n])
      info.scalar(at - 1), warn("sub( %s ) out of bounds: J%s = %d, %d columns, N_ = %d", x, x,
                                j0 + 1, cols, d[E::n]);
  }
  if (!info.none()) return;
  const index_t loc_r = numroc_first(d[E::m], d[E::imb], d[E::mb], g.myrow, d[E::rsrc], g.nprow);
  if (d[E::lld] >= std::max<index_t>(1, loc_r)) return;
  const index_t loc_c = numroc_first(d[E::n], d[E::inb], d[E::nb], g.mycol, d[E::csrc], g.npcol);
  // With no local column a leading dimension of 1 is enough.
  if (d[E::lld] < 1 || loc_c > 0)
    info.entry(at, E::lld), warn("DESC%s(LLD_) = %d: must be at least %d", x, d[E::lld],
                                 static_cast<int>(std::max<index_t>(1, loc_r)));
}

/// PBLAS's checks of a whole call (UPLO, TRANS, then A, then C) on this process.
inline PblasInfo check_call(const PblasCall& c, const PblasDescriptor& da,
                            const PblasDescriptor& dc, const GridInfo& g, int ctxt) {
  PblasInfo info;
  const auto warn = [&](auto... args) { PB_Cwarn(ctxt, -1, c.routine, args...); };
  const bool notran = c.trans == 'N';
  if (c.uplo_at != 0 && c.uplo != 'U' && c.uplo != 'L')
    info.scalar(c.uplo_at), warn("UPLO = %c: must be 'U' or 'L'", c.uplo);
  else if (c.trans_at != 0 && !notran && c.trans != 'T' && c.trans != 'C')
    info.scalar(c.trans_at), warn("TRANS = %c: must be 'N', 'T' or 'C'", c.trans);
  // sub(A) is M x N, or N x M when transposed (also for an illegal TRANS, as in PBLAS).
  if (notran)
    check_matrix(c, "A", c.m, c.m_at, c.n, c.n_at, c.ia - 1, c.ja - 1, da, c.desca_at, g, ctxt,
                 info);
  else
    check_matrix(c, "A", c.n, c.n_at, c.m, c.m_at, c.ia - 1, c.ja - 1, da, c.desca_at, g, ctxt,
                 info);
  check_matrix(c, "C", c.m, c.m_at, c.n, c.n_at, c.ic - 1, c.jc - 1, dc, c.descc_at, g, ctxt, info);
  return info;
}

/// One axis of a PBLAS descriptor as a uniform block-cyclic axis of redist's ScaLAPACK
/// layout (blocks of `block` from process `src`), when it has that form.
struct UniformForm {
  bool ok;
  int block, src;
};
inline UniformForm uniform_form(int extent, int first, int block, int src, int procs) {
  if (procs == 1) return {true, block, 0};  // one process holds every index, in order
  if (src < 0) return {false, 0, 0};        // replicated over the processes
  if (first == block) return {true, block, src};
  if (first >= extent) return {true, first, src};  // one block, on src
  return {false, 0, 0};
}

/// The DTYPE_ = 1 descriptor of the same layout as d, when there is one.
inline bool uniform_descriptor(const PblasDescriptor& d, const GridInfo& g,
                               scalapack::Descriptor& out) {
  using E = PblasDescriptor;
  const UniformForm r = uniform_form(d[E::m], d[E::imb], d[E::mb], d[E::rsrc], g.nprow);
  const UniformForm c = uniform_form(d[E::n], d[E::inb], d[E::nb], d[E::csrc], g.npcol);
  out = scalapack::Descriptor{1, 0, d[E::m], d[E::n], r.block, c.block, r.src, c.src, 0};
  return r.ok && c.ok;
}

/// Whether element (x, y) of the m x n sub(C) is in p?tradd's triangle: 'U' keeps y >= x,
/// 'L' keeps x >= y (LAPACK's trapezoids: the diagonal starts in the top-left corner).
inline bool in_triangle(char uplo, index_t x, index_t y) {
  return uplo == 'U' ? y >= x : uplo == 'L' ? x >= y : true;
}

/// alpha = 0: sub(C) (its triangle for p?tradd) := beta sub(C), or 0 for beta = 0
/// without reading C, on this process's part. @pre C's descriptor d is uniform.
template <class T>
void scale_local(const PblasCall& c, const scalapack::Descriptor& d, index_t lld, const GridInfo& g,
                 T beta, T* cc) {
  using redist::scalapack::numroc;
  const index_t loc_r = numroc(d.m, d.mb, g.myrow, d.rsrc, g.nprow);
  const index_t loc_c = numroc(d.n, d.nb, g.mycol, d.csrc, g.npcol);
  // Global index of local index l (ScaLAPACK's INDXL2G).
  const auto global = [](index_t l, index_t nb, int p, index_t src, int procs) {
    return (l / nb * procs + (p - src + procs) % procs) * nb + l % nb;
  };
  for (index_t k = 0; k < loc_c; ++k) {
    const index_t y = global(k, d.nb, g.mycol, d.csrc, g.npcol) - (c.jc - 1);
    if (y < 0 || y >= c.n) continue;
    for (index_t l = 0; l < loc_r; ++l) {
      const index_t x = global(l, d.mb, g.myrow, d.rsrc, g.nprow) - (c.ic - 1);
      if (x < 0 || x >= c.m || !in_triangle(c.uplo, x, y)) continue;
      T& e = cc[k * lld + l];
      e = beta == T(0) ? T(0) : beta * e;
    }
  }
}

}  // namespace detail

/// sub(C) := beta sub(C) + alpha op(sub(A)) as PBLAS's routine c.routine does it (see the
/// top of this file); collective over the context of DESCA. Returns delegate, on every
/// process alike, for descriptors that redist's layouts do not hold.
template <class T>
PblasOutcome pblas(const PblasCall& c, T alpha, const T* a, T beta, T* cc) {
  using E = PblasDescriptor;
  const PblasDescriptor da = PblasDescriptor::of(c.desca), dc = PblasDescriptor::of(c.descc);
  const int ctxt = da[E::ctxt];
  const GridInfo g = grid_info(ctxt);
  if (g.nprow == -1) {  // not a process of the context: nobody to agree with
    PblasInfo info;
    info.entry(c.desca_at, E::ctxt);
    PB_Cabort(ctxt, c.routine, info.info());
    return PblasOutcome::done;
  }
  const PblasInfo info = detail::check_call(c, da, dc, g, ctxt);
  if (c.m == 0 || c.n == 0 || (alpha == T(0) && beta == T(1))) {
    if (!info.none()) PB_Cabort(ctxt, c.routine, info.info());
    return PblasOutcome::done;
  }
  const MPI_Comm raw = context_comm(ctxt);
  const boost::mpi::communicator comm(raw, boost::mpi::comm_attach);
  scalapack::Descriptor ua, uc;
  const bool uniform =
      info.none() && detail::uniform_descriptor(da, g, ua) && detail::uniform_descriptor(dc, g, uc);
  // The local arrays, where this process stores elements (numroc of a checked descriptor).
  const auto elements = [&](const PblasDescriptor& d) -> index_t {
    if (!info.none()) return 0;
    const index_t r =
        detail::numroc_first(d[E::m], d[E::imb], d[E::mb], g.myrow, d[E::rsrc], g.nprow);
    const index_t k =
        detail::numroc_first(d[E::n], d[E::inb], d[E::nb], g.mycol, d[E::csrc], g.npcol);
    return r > 0 && k > 0 ? index_t{d[E::lld]} * k : 0;
  };
  const index_t elements_a = alpha == T(0) ? 0 : elements(da), elements_c = elements(dc);
  const auto at = [](const T* p, index_t k) { return reinterpret_cast<std::uintptr_t>(p + k); };
  const bool overlap = elements_a > 0 && elements_c > 0 && at(a, 0) < at(cc, elements_c) &&
                       at(cc, 0) < at(a, elements_a);
  // error, max(delegate), -min(delegate), overlap
  int agreed[4] = {info.none() ? 0 : 1, uniform ? 0 : 1, uniform ? 0 : -1, overlap ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, agreed, 4, MPI_INT, MPI_MAX, raw);
  if (agreed[0] != 0) {
    if (!info.none()) PB_Cabort(ctxt, c.routine, info.info());
    return PblasOutcome::done;
  }
  if (agreed[1] != -agreed[2]) {
    detail::report(comm, c.routine,
                   "DESCA or DESCC differ between the processes of the context (some can be "
                   "laid out by redist, some not)");
    return PblasOutcome::done;
  }
  if (agreed[1] != 0) return PblasOutcome::delegate;

  if (alpha == T(0)) {  // PBLAS does not read A then: it may hold anything
    if (elements_c > 0) detail::scale_local(c, uc, dc[E::lld], g, beta, cc);
    return PblasOutcome::done;
  }
  detail::guarded(comm, c.routine, [&] {
    ensure_runtime();
    const Op op = c.trans == 'N'                ? Op::none
                  : c.trans == 'C' && c.complex ? Op::conj_transpose
                                                : Op::transpose;
    // LAPACK's trapezoid in an m x n sub(C) is redist's (ScaLAPACK's) in its square
    // part; the rest of a wide lower or a tall upper one holds no element of it.
    index_t m = c.m, n = c.n;
    Triangle triangle{};
    if (c.uplo == 'L') triangle = {Uplo::lower, Diag::non_unit}, n = std::min(n, m);
    if (c.uplo == 'U') triangle = {Uplo::upper, Diag::non_unit}, m = std::min(m, n);
    const Region region{
        op == Op::none ? Extents{m, n} : Extents{n, m}, {c.ia - 1, c.ja - 1}, {c.ic - 1, c.jc - 1}};
    const Transform<T> t{op, alpha, beta, triangle};
    const scalapack::Grid grid{g.nprow, g.npcol};  // the context's ranks are row-major
    // Where nothing is stored the array and LLD are not read (PBLAS lets LLD_ be 1 there):
    // null and 0, so that the cache sees the same arguments from call to call.
    const T* pa = elements_a > 0 ? a : nullptr;
    T* pc = elements_c > 0 ? cc : nullptr;
    // A and C overlap on some process: every process reads a copy of its part of A, so
    // the result is as if A were read whole before C is written.
    if (agreed[3] != 0 && pa != nullptr) pa = detail::copy_of(pa, elements_a);
    scalapack::default_plan_cache()
        .acquire<T>(
            scalapack::PlanKey::of<T>(ua, grid, uc, grid, region, scalapack::operation_of(t)), pa,
            pa != nullptr ? da[E::lld] : 0, pc, pc != nullptr ? dc[E::lld] : 0, comm, {}, {}, t)
        .redistribute();
  });
  return PblasOutcome::done;
}

}  // namespace redist::abi
