// ScaLAPACK's p?trmr2d under its own names and signatures (REDIST/SRC/p?trmr.c): the C
// interface Cp?trmr2d and the Fortran one p?trmr2d_ (every argument by reference; the
// hidden lengths of UPLO and DIAG are not read), for s, d, c, z and i. The upper ('U') or
// lower ('L') trapezoid of the m x n sub-matrix, without its diagonal for DIAG = 'U'; only
// its elements travel (redist/triangle.hpp).

#include <cctype>
#include <complex>

#include "dispatch.hpp"

#define REDIST_ABI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// UPLO and DIAG read as ScaLAPACK's REDIST/SRC/p?trmr2.c reads them, which accepts any
/// character: upper for 'U' or 'u', lower for anything else; the diagonal is left out of an
/// upper trapezoid unless DIAG is 'N' or 'n', and out of a lower one only if DIAG is 'U'
/// or 'u'.
redist::Triangle triangle_as_scalapack_reads(char uplo, char diag) {
  const auto up = [](char ch) { return std::toupper(static_cast<unsigned char>(ch)); };
  if (up(uplo) == 'U')
    return {redist::Uplo::upper, up(diag) == 'N' ? redist::Diag::non_unit : redist::Diag::unit};
  return {redist::Uplo::lower, up(diag) == 'U' ? redist::Diag::unit : redist::Diag::non_unit};
}

template <class T>
void trmr2d(const char* routine, const char* uplo, const char* diag, int m, int n, const T* a,
            int ia, int ja, const int* desca, T* b, int ib, int jb, const int* descb, int ictxt) {
  redist::abi::Call c = redist::abi::make_call(routine, m, n, ia, ja, desca, ib, jb, descb, ictxt);
  c.param_offset = 2;  // UPLO and DIAG come first
  // ScaLAPACK would crash on a null one. A program passes the same literals on every
  // process, so each can refuse alone without leaving another waiting.
  if (uplo == nullptr) return redist::abi::report_alone(c, ictxt, "UPLO is a null pointer", 1);
  if (diag == nullptr) return redist::abi::report_alone(c, ictxt, "DIAG is a null pointer", 2);
  c.triangle = triangle_as_scalapack_reads(*uplo, *diag);
  // The same plan-cache key as scalapack::trmr2d's.
  redist::Transform<T> t;
  t.triangle = c.triangle;
  c.operation = redist::scalapack::operation_of(t);
  redist::abi::dispatch<T>(c, a, b);
}

}  // namespace

// One C and one Fortran entry per type x: Cpxtrmr2d and pxtrmr2d_.
#define REDIST_ABI_TRMR2D(x, X, T)                                                                 \
  REDIST_ABI_EXPORT void Cp##x##trmr2d(char* uplo, char* diag, int m, int n, T* a, int ia, int ja, \
                                       int* desca, T* b, int ib, int jb, int* descb, int ictxt) {  \
    trmr2d<T>("P" #X "TRMR2D", uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);       \
  }                                                                                                \
  REDIST_ABI_EXPORT void p##x##trmr2d_(const char* uplo, const char* diag, const int* m,           \
                                       const int* n, T* a, const int* ia, const int* ja,           \
                                       int* desca, T* b, const int* ib, const int* jb, int* descb, \
                                       const int* ictxt) {                                         \
    trmr2d<T>("P" #X "TRMR2D", uplo, diag, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb,         \
              *ictxt);                                                                             \
  }

REDIST_ABI_TRMR2D(s, S, float)
REDIST_ABI_TRMR2D(d, D, double)
REDIST_ABI_TRMR2D(c, C, std::complex<float>)
REDIST_ABI_TRMR2D(z, Z, std::complex<double>)
REDIST_ABI_TRMR2D(i, I, int)
