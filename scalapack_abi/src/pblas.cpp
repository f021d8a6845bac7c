// PBLAS's p?tran (s, d), p?tranu and p?tranc (c, z), p?geadd and p?tradd (s, d, c, z)
// under their own names and signatures (PBLAS/SRC/p?tran_.c ... of ScaLAPACK): Fortran
// entries only, as PBLAS has (every argument by reference; the hidden lengths of UPLO and
// TRANS are not read). Linked ahead of ScaLAPACK, or loaded with LD_PRELOAD, they replace
// PBLAS's in an unmodified program. pblas.hpp does the work; a call whose descriptors
// redist does not lay out goes on to ScaLAPACK's own routine, the next definition of the
// same name.

#include "pblas.hpp"

#include <cctype>
#include <complex>
#include <cstdio>
#include <dlfcn.h>

#include <mpi.h>

#define REDIST_ABI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using redist::abi::PblasCall;
using redist::abi::PblasOutcome;

char upper(const char* ch) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(*ch)));
}

/// The definition of `symbol` after this library's: ScaLAPACK's own. Without one the
/// call cannot be served at all, so the job ends.
template <class F>
F next_definition(const char* symbol, const char* routine) {
  auto* f = reinterpret_cast<F>(dlsym(RTLD_NEXT, symbol));
  if (f == nullptr) {
    std::fprintf(stderr,
                 "redist_scalapack: %s: these descriptors need ScaLAPACK's own %s, which is not "
                 "loaded after libredist_scalapack\n",
                 routine, symbol);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return f;
}

/// p?tran, p?tranu, p?tranc: M N ALPHA A IA JA DESCA BETA C IC JC DESCC.
PblasCall tran_call(const char* routine, char trans, bool complex, int m, int n, int ia, int ja,
                    const int* desca, int ic, int jc, const int* descc) {
  PblasCall c;
  c.routine = routine, c.trans = trans, c.complex = complex;
  c.m = m, c.n = n, c.ia = ia, c.ja = ja, c.desca = desca, c.ic = ic, c.jc = jc, c.descc = descc;
  return c;
}

/// p?geadd: TRANS, then p?tran's arguments; p?tradd: UPLO, TRANS, then p?tran's.
PblasCall add_call(const char* routine, const char* uplo, const char* trans, bool complex, int m,
                   int n, int ia, int ja, const int* desca, int ic, int jc, const int* descc) {
  PblasCall c = tran_call(routine, upper(trans), complex, m, n, ia, ja, desca, ic, jc, descc);
  const int shift = uplo != nullptr ? 2 : 1;
  if (uplo != nullptr) c.uplo = upper(uplo), c.uplo_at = 1;
  c.trans_at = shift;
  c.m_at += shift, c.n_at += shift, c.desca_at += shift, c.descc_at += shift;
  return c;
}

}  // namespace

// p?tran (real), p?tranu, p?tranc (complex): C := beta C + alpha A^T (conjugated for tranc).
#define REDIST_ABI_TRAN(name, NAME, T, trans, complex)                                           \
  REDIST_ABI_EXPORT void name##_(const int* m, const int* n, const T* alpha, const T* a,         \
                                 const int* ia, const int* ja, const int* desca, const T* beta,  \
                                 T* c, const int* ic, const int* jc, const int* descc) {         \
    const PblasCall call =                                                                       \
        tran_call(#NAME, trans, complex, *m, *n, *ia, *ja, desca, *ic, *jc, descc);              \
    if (redist::abi::pblas<T>(call, *alpha, a, *beta, c) == PblasOutcome::delegate)              \
      next_definition<decltype(&name##_)>(#name "_", #NAME)(m, n, alpha, a, ia, ja, desca, beta, \
                                                            c, ic, jc, descc);                   \
  }

// p?geadd: C := beta C + alpha op(A), op by TRANS.
#define REDIST_ABI_GEADD(name, NAME, T, complex)                                                  \
  REDIST_ABI_EXPORT void name##_(const char* trans, const int* m, const int* n, const T* alpha,   \
                                 const T* a, const int* ia, const int* ja, const int* desca,      \
                                 const T* beta, T* c, const int* ic, const int* jc,               \
                                 const int* descc) {                                              \
    const PblasCall call =                                                                        \
        add_call(#NAME, nullptr, trans, complex, *m, *n, *ia, *ja, desca, *ic, *jc, descc);       \
    if (redist::abi::pblas<T>(call, *alpha, a, *beta, c) == PblasOutcome::delegate)               \
      next_definition<decltype(&name##_)>(#name "_", #NAME)(trans, m, n, alpha, a, ia, ja, desca, \
                                                            beta, c, ic, jc, descc);              \
  }

// p?tradd: the UPLO triangle of C := beta C + alpha op(A).
#define REDIST_ABI_TRADD(name, NAME, T, complex)                                                  \
  REDIST_ABI_EXPORT void name##_(const char* uplo, const char* trans, const int* m, const int* n, \
                                 const T* alpha, const T* a, const int* ia, const int* ja,        \
                                 const int* desca, const T* beta, T* c, const int* ic,            \
                                 const int* jc, const int* descc) {                               \
    const PblasCall call =                                                                        \
        add_call(#NAME, uplo, trans, complex, *m, *n, *ia, *ja, desca, *ic, *jc, descc);          \
    if (redist::abi::pblas<T>(call, *alpha, a, *beta, c) == PblasOutcome::delegate)               \
      next_definition<decltype(&name##_)>(#name "_", #NAME)(uplo, trans, m, n, alpha, a, ia, ja,  \
                                                            desca, beta, c, ic, jc, descc);       \
  }

using redist_complex = std::complex<float>;
using redist_double_complex = std::complex<double>;

REDIST_ABI_TRAN(pstran, PSTRAN, float, 'T', false)
REDIST_ABI_TRAN(pdtran, PDTRAN, double, 'T', false)
REDIST_ABI_TRAN(pctranu, PCTRANU, redist_complex, 'T', true)
REDIST_ABI_TRAN(pztranu, PZTRANU, redist_double_complex, 'T', true)
REDIST_ABI_TRAN(pctranc, PCTRANC, redist_complex, 'C', true)
REDIST_ABI_TRAN(pztranc, PZTRANC, redist_double_complex, 'C', true)

REDIST_ABI_GEADD(psgeadd, PSGEADD, float, false)
REDIST_ABI_GEADD(pdgeadd, PDGEADD, double, false)
REDIST_ABI_GEADD(pcgeadd, PCGEADD, redist_complex, true)
REDIST_ABI_GEADD(pzgeadd, PZGEADD, redist_double_complex, true)

REDIST_ABI_TRADD(pstradd, PSTRADD, float, false)
REDIST_ABI_TRADD(pdtradd, PDTRADD, double, false)
REDIST_ABI_TRADD(pctradd, PCTRADD, redist_complex, true)
REDIST_ABI_TRADD(pztradd, PZTRADD, redist_double_complex, true)
