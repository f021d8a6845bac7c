#pragma once
// The one entry behind every exported routine of libredist_scalapack: a ScaLAPACK call
// (descriptors, BLACS contexts, 1-based offsets) turned into a cached redist plan.
//
// Protocol, on every process of the context ICTXT (ScaLAPACK's rules: a process outside
// A's grid has DESCA(CTXT_) = -1 and the rest of its A arguments are not read; M and N
// are valid everywhere). What is read and checked is what ScaLAPACK's REDIST/SRC/p?gemr.c
// reads: of a descriptor CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_ and the process's own LLD_,
// never DTYPE_ (ScaLAPACK's own testers leave it unset on one process).
//   1. m = 0 or n = 0: return at once, as ScaLAPACK does (nothing collective).
//   2. One MPI_Allgather over ICTXT's communicator of each process's view (its grid
//      coordinates in A's and B's contexts, the descriptors and offsets it was given if
//      it is in the grid, and its own local checks): every process then knows both
//      grids' rank maps (built from the coordinates, never from an assumed order) and
//      the descriptors, even outside a grid.
//   3. The same checks on the same data on every process: on error one message on
//      stderr naming the routine and the parameter (pxerbla's numbering), and every
//      process returns.
//   4. PlanCache::acquire (one more small all-reduce) and the move.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/scalapack.hpp>

#include "blacs.hpp"
#include "runtime.hpp"

namespace redist::abi {

/// One redistribution call as ScaLAPACK's C interface receives it.
struct Call {
  const char* routine = "";  ///< upper case, as pxerbla names it: "PDGEMR2D"
  int m = 0, n = 0;
  int ia = 1, ja = 1;
  const int* desca = nullptr;
  int ib = 1, jb = 1;
  const int* descb = nullptr;
  int ictxt = -1;
  /// Added to M's parameter number 1 in messages (p?trmr2d has UPLO, DIAG first: 2).
  int param_offset = 0;
  /// PlanKey::operation and the options the plan is built with: 0 and defaults for
  /// p?gemr2d; another operation (a trapezoid copy) sets its own value and options.
  std::uint64_t operation = 0;
  PlanOptions plan{};
  ExecutionOptions execution{};
  /// The trapezoid of p?trmr2d (Uplo::all: the whole sub-matrix, p?gemr2d).
  Triangle triangle{};
};

/// A call with ScaLAPACK's common arguments (the rest at their p?gemr2d defaults).
inline Call make_call(const char* routine, int m, int n, int ia, int ja, const int* desca, int ib,
                      int jb, const int* descb, int ictxt) {
  Call c;
  c.routine = routine;
  c.m = m, c.n = n;
  c.ia = ia, c.ja = ja, c.desca = desca;
  c.ib = ib, c.jb = jb, c.descb = descb;
  c.ictxt = ictxt;
  return c;
}

namespace detail {

/// One side (A or B) as one process sees it; `in` = 0 outside the side's grid.
struct Side {
  int in, p, q, P, Q, M, N, MB, NB, RSRC, CSRC, i, j;
  bool same_matrix(const Side& o) const {
    return P == o.P && Q == o.Q && M == o.M && N == o.N && MB == o.MB && NB == o.NB &&
           RSRC == o.RSRC && CSRC == o.CSRC && i == o.i && j == o.j;
  }
  /// The descriptor and grid this side stands for; DTYPE_, CTXT_ and LLD_ are not part of it.
  scalapack::Descriptor descriptor() const { return {0, 0, M, N, MB, NB, RSRC, CSRC, 0}; }
  scalapack::Grid grid() const { return {P, Q}; }
  bool valid_shape() const { return !scalapack::descriptor_fault(descriptor(), grid()); }
};

/// What one process contributes to the all-gather: both sides, its M and N, the first
/// problem it found alone (param 0: none) with two numbers for the message, and whether
/// its local arrays of A and B overlap in memory.
struct Record {
  Side a, b;
  int m, n;
  int param, value, limit;
  int overlap;
};
inline constexpr int record_ints = 32;
static_assert(sizeof(Record) == record_ints * sizeof(int), "Record is gathered as MPI_INTs");

/// Elements of this process's local array of side s with leading dimension lld (0 outside
/// the grid or for an invalid descriptor).
inline index_t local_elements(const Side& s, index_t lld) {
  if (!s.in || !s.valid_shape()) return 0;
  const index_t loc_r = scalapack::numroc(s.M, s.MB, s.p, s.RSRC, s.P);
  const index_t loc_c = scalapack::numroc(s.N, s.NB, s.q, s.CSRC, s.Q);
  return loc_r > 0 && loc_c > 0 ? lld * loc_c : 0;
}

/// A private copy of A's local array, for calls whose A and B overlap somewhere (kept
/// from call to call so that the plan cache sees the same array).
template <class T>
const T* copy_of(const T* a, index_t elements) {
  static std::vector<T> scratch;
  scratch.assign(a, a + elements);
  return scratch.data();
}

/// The parameters of one side, pxerbla-numbered, and the letter its descriptor fields
/// carry in messages (MB_A).
struct SideNames {
  int array, i, j, desc;
  const char* letter;  // "A"
  const char* i_name;  // "IA"
  const char* j_name;  // "JA"
};

/// The problem with the lowest parameter number (pxerbla reports the first one).
struct Problem {
  int param = 0;
  std::string what;
  void add(int p, std::string w) {
    if (param == 0 || p < param) param = p, what = std::move(w);
  }
};

inline std::string str(long long v) { return std::to_string(v); }

/// This process's view of one side, and its local checks (leading dimension, null array
/// where elements are stored) into r.
template <class T>
Side local_side(const int* desc, int i, int j, const T* array, const SideNames& names, Record& r) {
  Side s{};
  if (desc == nullptr || desc[1] == -1) return s;
  const GridInfo g = grid_info(desc[1]);
  if (!g.inside()) return s;
  s = Side{1,       g.myrow, g.mycol, g.nprow, g.npcol, desc[2], desc[3],
           desc[4], desc[5], desc[6], desc[7], i,       j};
  if (!s.valid_shape()) return s;  // the global checks name it
  const index_t loc_r = scalapack::numroc(s.M, s.MB, s.p, s.RSRC, s.P);
  const index_t loc_c = scalapack::numroc(s.N, s.NB, s.q, s.CSRC, s.Q);
  const auto local = [&](int param, index_t value, index_t limit) {
    if (r.param == 0 || param < r.param)
      r.param = param, r.value = static_cast<int>(value), r.limit = static_cast<int>(limit);
  };
  if (desc[8] < loc_r) local(names.desc, desc[8], loc_r);
  if (array == nullptr && loc_r > 0 && loc_c > 0) local(names.array, loc_r, loc_c);
  return s;
}

/// The checks that need every process's view; adds to `problem`, fills `map` (rank of
/// grid coordinate (p, q) at p * Q + q) and `side` (the side as its grid's processes
/// gave it).
inline void check_side(const std::vector<Record>& all, Side Record::*which, const Call& c,
                       const SideNames& nm, int off, Problem& problem, Side& side,
                       std::vector<int>& map) {
  const std::string L = nm.letter;
  int first = -1;
  for (std::size_t r = 0; r < all.size(); ++r)
    if ((all[r].*which).in) {
      first = static_cast<int>(r);
      break;
    }
  if (first < 0) {
    problem.add(nm.desc + off, "no process of ICTXT is in the grid of " + L + " (DESC" + L +
                                   "(CTXT_) = -1 on every process)");
    return;
  }
  side = all[static_cast<std::size_t>(first)].*which;
  map.assign(static_cast<std::size_t>(side.P) * static_cast<std::size_t>(side.Q), -1);
  int members = 0;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const Side& s = all[r].*which;
    if (!s.in) continue;
    ++members;
    if (!s.same_matrix(side)) {
      problem.add(nm.desc + off, "DESC" + L + ", " + nm.i_name + " or " + nm.j_name +
                                     " differ between the processes of " + L +
                                     "'s grid (processes " + str(first) + " and " + str(r) +
                                     " of ICTXT)");
      return;
    }
    int& slot = map[static_cast<std::size_t>(s.p) * side.Q + s.q];
    if (slot >= 0) {
      problem.add(11 + off, "two processes of ICTXT on grid coordinate (" + str(s.p) + ", " +
                                str(s.q) + ") of " + L);
      return;
    }
    slot = static_cast<int>(r);
  }
  if (members != side.P * side.Q)
    problem.add(11 + off, "ICTXT holds " + str(members) + " of the " + str(side.P * side.Q) +
                              " processes of " + L + "'s grid: ICTXT must hold every one");
  // The descriptor checks of the header API (scalapack/descriptor.hpp), in ScaLAPACK's words.
  if (const auto f = scalapack::descriptor_fault(side.descriptor(), side.grid()))
    problem.add(nm.desc + off,
                std::string(f->entry) + "_" + L + " = " + str(f->value) + " (" + f->rule + ")");
  const int i = side.i, j = side.j;  // IA, JA as the grid's processes gave them
  if (i < 1 || static_cast<long long>(i) - 1 + c.m > side.M)
    problem.add(nm.i + off, std::string(nm.i_name) + " = " + str(i) + ": rows " + nm.i_name + ".." +
                                nm.i_name + "+M-1 must lie in 1..M_" + L + " = " + str(side.M) +
                                " (M = " + str(c.m) + ")");
  if (j < 1 || static_cast<long long>(j) - 1 + c.n > side.N)
    problem.add(nm.j + off, std::string(nm.j_name) + " = " + str(j) + ": columns " + nm.j_name +
                                ".." + nm.j_name + "+N-1 must lie in 1..N_" + L + " = " +
                                str(side.N) + " (N = " + str(c.n) + ")");
  // The lowest process with a local problem on this side.
  for (std::size_t r = 0; r < all.size(); ++r) {
    const Record& rec = all[r];
    const Side& s = rec.*which;
    if (rec.param == nm.desc)
      problem.add(nm.desc + off, "LLD_" + L + " = " + str(rec.value) + " < LOCr(M_" + L +
                                     ") = " + str(rec.limit) + " on process (" + str(s.p) + ", " +
                                     str(s.q) + ") of " + L + "'s grid");
    else if (rec.param == nm.array)
      problem.add(nm.array + off, L + " is null on process (" + str(s.p) + ", " + str(s.q) +
                                      "), whose local part is " + str(rec.value) + " x " +
                                      str(rec.limit));
  }
}

/// Writes the message once per call (process 0 of ICTXT), like pxerbla's.
inline void report(const boost::mpi::communicator& comm, const char* routine,
                   const std::string& what, int param = 0) {
  if (comm.rank() != 0) return;
  if (param > 0)
    std::fprintf(stderr,
                 "redist_scalapack: On entry to %s parameter number %d had an illegal value: "
                 "%s\n",
                 routine, param, what.c_str());
  else
    std::fprintf(stderr, "redist_scalapack: %s: %s\n", routine, what.c_str());
  std::fflush(stderr);
}

/// Runs `body`, collective over comm, for `routine`. Exceptions never leave: a
/// redist::error (raised on every process alike) is reported once and every process
/// returns; anything else (out of memory, an MPI failure) is reported and the job aborted,
/// since other processes may be waiting.
template <class F>
void guarded(const boost::mpi::communicator& comm, const char* routine, F&& body) {
  try {
    body();
  } catch (const redist::error& e) {
    report(comm, routine, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redist_scalapack: %s: unexpected error on process %d: %s\n", routine,
                 comm.rank(), e.what());
    MPI_Abort(static_cast<MPI_Comm>(comm), 1);
  } catch (...) {
    std::fprintf(stderr, "redist_scalapack: %s: unexpected error on process %d\n", routine,
                 comm.rank());
    MPI_Abort(static_cast<MPI_Comm>(comm), 1);
  }
}

}  // namespace detail

/// A problem every process of ICTXT finds alone, in an argument all are given alike
/// (p?trmr2d's UPLO, DIAG): reported by the context's process 0, nothing collective.
inline void report_alone(const Call& c, int ictxt, const std::string& what, int param) {
  if (!grid_info(ictxt).inside()) return;
  const boost::mpi::communicator comm(context_comm(ictxt), boost::mpi::comm_attach);
  detail::report(comm, c.routine, what, param);
}

/// Copies sub-matrix (c.ia, c.ja) of A to (c.ib, c.jb) of B, m x n, ScaLAPACK's
/// p?gemr2d semantics; any error is reported (stderr, once) and every process returns.
/// Collective over ICTXT. Exceptions never leave: an unexpected one (out of memory, an
/// MPI failure) is reported and the job aborted, since other processes may be waiting.
template <class T>
void dispatch(const Call& c, const T* a, T* b) {
  if (c.m == 0 || c.n == 0) return;
  if (!grid_info(c.ictxt).inside()) return;  // not a process of ICTXT: nothing to do
  const MPI_Comm raw = context_comm(c.ictxt);
  const boost::mpi::communicator comm(raw, boost::mpi::comm_attach);
  detail::guarded(comm, c.routine, [&] {
    ensure_runtime();
    using detail::SideNames;
    const int off = c.param_offset;
    const SideNames an{3, 4, 5, 6, "A", "IA", "JA"}, bn{7, 8, 9, 10, "B", "IB", "JB"};
    detail::Record mine{};
    mine.m = c.m, mine.n = c.n;
    mine.a = detail::local_side(c.desca, c.ia, c.ja, a, an, mine);
    mine.b = detail::local_side(c.descb, c.ib, c.jb, static_cast<const T*>(b), bn, mine);
    const index_t elements_a = detail::local_elements(mine.a, mine.a.in ? c.desca[8] : 0);
    const index_t elements_b = detail::local_elements(mine.b, mine.b.in ? c.descb[8] : 0);
    const auto at = [](const T* p, index_t k) { return reinterpret_cast<std::uintptr_t>(p + k); };
    mine.overlap = elements_a > 0 && elements_b > 0 && at(a, 0) < at(b, elements_b) &&
                   at(b, 0) < at(a, elements_a);
    std::vector<detail::Record> all(static_cast<std::size_t>(comm.size()));
    MPI_Allgather(&mine, detail::record_ints, MPI_INT, all.data(), detail::record_ints, MPI_INT,
                  raw);

    detail::Problem problem;
    // Processes given different extents would plan different moves and wait on each other.
    const auto agreed = [&](int detail::Record::*field, int param, const char* name) {
      for (std::size_t r = 1; r < all.size(); ++r)
        if (all[r].*field != all[0].*field)
          return problem.add(param + off, std::string(name) + " differs between the processes of " +
                                              "ICTXT: " + detail::str(all[0].*field) +
                                              " on process 0, " + detail::str(all[r].*field) +
                                              " on process " + detail::str(r));
    };
    agreed(&detail::Record::m, 1, "M");
    agreed(&detail::Record::n, 2, "N");
    if (c.m < 0) problem.add(1 + off, "M = " + detail::str(c.m) + " (must not be negative)");
    if (c.n < 0) problem.add(2 + off, "N = " + detail::str(c.n) + " (must not be negative)");
    detail::Side sa{}, sb{};
    std::vector<int> map_a, map_b;
    detail::check_side(all, &detail::Record::a, c, an, off, problem, sa, map_a);
    detail::check_side(all, &detail::Record::b, c, bn, off, problem, sb, map_b);
    if (problem.param != 0) return detail::report(comm, c.routine, problem.what, problem.param);

    const scalapack::Grid ga{sa.P, sa.Q, false, map_a}, gb{sb.P, sb.Q, false, map_b};
    const scalapack::Descriptor da = sa.descriptor(), db = sb.descriptor();
    const Region region{{c.m, c.n}, {sa.i - 1, sa.j - 1}, {sb.i - 1, sb.j - 1}};
    // Outside a grid, or with an empty local part, the array is not read: null it so
    // the cache sees the same arrays from call to call.
    const int me = comm.rank();
    const auto stores = [&](const scalapack::Descriptor& d, const scalapack::Grid& g) {
      const Extents e = scalapack::local_extents(d, g, me);
      return e.rows > 0 && e.cols > 0;
    };
    const bool in_a = mine.a.in != 0, in_b = mine.b.in != 0;
    const T* pa = in_a && stores(da, ga) ? a : nullptr;
    T* pb = in_b && stores(db, gb) ? b : nullptr;
    // A and B overlap on some process (a block moved within one matrix): ScaLAPACK reads
    // A through its send buffers; here every process reads a copy of its part of A, so
    // the result is as if A were read whole before B is written.
    if (std::any_of(all.begin(), all.end(), [](const detail::Record& r) { return r.overlap; }) &&
        pa != nullptr)
      pa = detail::copy_of(pa, elements_a);
    const index_t lld_a = in_a ? c.desca[8] : 0, lld_b = in_b ? c.descb[8] : 0;
    scalapack::default_plan_cache()
        .acquire<T>(scalapack::PlanKey::of<T>(da, ga, db, gb, region, c.operation), pa, lld_a, pb,
                    lld_b, comm, c.plan, c.execution,
                    Transform<T>{Op::none, T(1), T(0), c.triangle})
        .redistribute();
  });
}

}  // namespace redist::abi
