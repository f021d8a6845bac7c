// ScaLAPACK's p?gemr2d under its own names and signatures (REDIST/SRC/p?gemr.c): the C
// interface Cp?gemr2d and the Fortran one p?gemr2d_ (every argument by reference), for
// s, d, c, z and i. Linked ahead of ScaLAPACK, or loaded with LD_PRELOAD, these replace
// ScaLAPACK's in an unmodified program.

#include <complex>

#include "dispatch.hpp"

#define REDIST_ABI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

template <class T>
void gemr2d(const char* routine, int m, int n, const T* a, int ia, int ja, const int* desca, T* b,
            int ib, int jb, const int* descb, int ictxt) {
  redist::abi::dispatch<T>(
      redist::abi::make_call(routine, m, n, ia, ja, desca, ib, jb, descb, ictxt), a, b);
}

}  // namespace

// One C and one Fortran entry per type x: Cpxgemr2d and pxgemr2d_.
#define REDIST_ABI_GEMR2D(x, X, T)                                                           \
  REDIST_ABI_EXPORT void Cp##x##gemr2d(int m, int n, T* a, int ia, int ja, int* desca, T* b, \
                                       int ib, int jb, int* descb, int ictxt) {              \
    gemr2d<T>("P" #X "GEMR2D", m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);             \
  }                                                                                          \
  REDIST_ABI_EXPORT void p##x##gemr2d_(const int* m, const int* n, T* a, const int* ia,      \
                                       const int* ja, int* desca, T* b, const int* ib,       \
                                       const int* jb, int* descb, const int* ictxt) {        \
    gemr2d<T>("P" #X "GEMR2D", *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt);      \
  }

REDIST_ABI_GEMR2D(s, S, float)
REDIST_ABI_GEMR2D(d, D, double)
REDIST_ABI_GEMR2D(c, C, std::complex<float>)
REDIST_ABI_GEMR2D(z, Z, std::complex<double>)
REDIST_ABI_GEMR2D(i, I, int)

/// "redist_scalapack <version>": lets a program (or a test) see that this library, not
/// ScaLAPACK, provides its p?gemr2d (dlsym(RTLD_DEFAULT, "redist_scalapack_version")).
REDIST_ABI_EXPORT const char* redist_scalapack_version(void) {
  return "redist_scalapack " REDIST_VERSION_STRING;
}
