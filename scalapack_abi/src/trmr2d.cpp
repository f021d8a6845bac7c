// ScaLAPACK's p?trmr2d under its own names and signatures (REDIST/SRC/p?trmr.c): the C
// interface Cp?trmr2d and the Fortran one p?trmr2d_ (every argument by reference; the
// hidden lengths of UPLO and DIAG are not read), for s, d, c, z and i. The upper ('U') or
// lower ('L') trapezoid of the m x n sub-matrix, without its diagonal for DIAG = 'U'; only
// its elements travel (redist/triangle.hpp).

#include <complex>
#include <string>

#include "dispatch.hpp"

#define REDIST_ABI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

template <class T>
void trmr2d(const char* routine, const char* uplo, const char* diag, int m, int n, const T* a,
            int ia, int ja, const int* desca, T* b, int ib, int jb, const int* descb, int ictxt) {
  redist::abi::Call c = redist::abi::make_call(routine, m, n, ia, ja, desca, ib, jb, descb, ictxt);
  c.param_offset = 2;  // UPLO and DIAG come first
  const char u = uplo ? *uplo : '\0', d = diag ? *diag : '\0';
  const auto upper_lower = redist::scalapack::detail::uplo_of(u);
  const auto unit = redist::scalapack::detail::diag_of(d);
  // Every process of the context is given the same characters (ScaLAPACK's rule), so each
  // can refuse alone without leaving another waiting.
  if (!upper_lower)
    return redist::abi::report_alone(c, ictxt,
                                     "UPLO = '" + std::string(1, u) + "' (must be 'U' or 'L')", 1);
  if (!unit)
    return redist::abi::report_alone(c, ictxt,
                                     "DIAG = '" + std::string(1, d) + "' (must be 'U' or 'N')", 2);
  c.triangle = redist::Triangle{*upper_lower, *unit};
  // The same plan-cache key as scalapack::trmr2d's.
  redist::Transform<T> t;
  t.triangle = c.triangle;
  c.operation = redist::scalapack::detail::operation_of(t);
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
