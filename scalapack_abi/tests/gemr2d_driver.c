/* A ScaLAPACK program as users write them: BLACS grids, descriptors, the C entries
 * Cp?gemr2d / Cp?trmr2d and the Fortran entries p?gemr2d_ / p?trmr2d_, nothing of redist
 * in its source. A third of the cases copy a trapezoid (p?trmr2d, random UPLO and DIAG):
 * B must hold f inside the trapezoid, the sentinel elsewhere, byte for byte as
 * ScaLAPACK's own p?trmr2d writes it. The build
 * links it twice: to ScaLAPACK only (redist-abi-driver-ref) and with libredist_scalapack
 * ahead of ScaLAPACK (redist-abi-driver); the first also runs under LD_PRELOAD.
 *
 * Every case: grids for A and B (all pairs of shapes of up to np processes over the
 * cases; BLACS "Row", "Col" or a random Cblacs_gridmap over a random subset of the
 * processes, so some are outside a grid and pass ctxt -1 with garbage elsewhere), random
 * descriptors (M, N up
 * to 150, blocks 1..100, RSRC/CSRC anywhere, LLD = max(1, LOCr) + 0..3, null arrays
 * where LOCr or LOCc = 0), random offsets and extents; ICTXT is a 1 x np, np x 1 or
 * mapped grid of all processes. A holds f(global index); B is filled with a sentinel,
 * padding rows included. The linked p?gemr2d runs three times (B, B again, then a second
 * array B2: plan, reuse, rebind); every element of B and B2 is checked against f or the
 * sentinel, A must be unchanged, and B must equal, byte for byte, what ScaLAPACK's own
 * routine (found in the ScaLAPACK library with dlopen/dlsym) writes.
 *
 * Usage: driver [--cases N] [--seed S] [--expect redist|scalapack] [--errors | --lenient]
 * --errors: bad arguments instead (needs redist): each must be reported, B left alone,
 * and the program must go on. --lenient: odd arguments that ScaLAPACK accepts (lenient()
 * below). Exit status 0 when everything is right. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "blacs_test.h"

/* ScaLAPACK's C interface, as a user program declares it (the BLACS' in blacs_test.h). */
void Cpsgemr2d(int, int, float*, int, int, int*, float*, int, int, int*, int);
void Cpdgemr2d(int, int, double*, int, int, int*, double*, int, int, int*, int);
void Cpcgemr2d(int, int, void*, int, int, int*, void*, int, int, int*, int);
void Cpzgemr2d(int, int, void*, int, int, int*, void*, int, int, int*, int);
void Cpigemr2d(int, int, int*, int, int, int*, int*, int, int, int*, int);
void psgemr2d_(const int*, const int*, float*, const int*, const int*, int*, float*, const int*,
               const int*, int*, const int*);
void pdgemr2d_(const int*, const int*, double*, const int*, const int*, int*, double*, const int*,
               const int*, int*, const int*);
void pcgemr2d_(const int*, const int*, void*, const int*, const int*, int*, void*, const int*,
               const int*, int*, const int*);
void pzgemr2d_(const int*, const int*, void*, const int*, const int*, int*, void*, const int*,
               const int*, int*, const int*);
void pigemr2d_(const int*, const int*, int*, const int*, const int*, int*, int*, const int*,
               const int*, int*, const int*);

void Cpstrmr2d(char*, char*, int, int, float*, int, int, int*, float*, int, int, int*, int);
void Cpdtrmr2d(char*, char*, int, int, double*, int, int, int*, double*, int, int, int*, int);
void Cpctrmr2d(char*, char*, int, int, void*, int, int, int*, void*, int, int, int*, int);
void Cpztrmr2d(char*, char*, int, int, void*, int, int, int*, void*, int, int, int*, int);
void Cpitrmr2d(char*, char*, int, int, int*, int, int, int*, int*, int, int, int*, int);
void pstrmr2d_(char*, char*, const int*, const int*, float*, const int*, const int*, int*, float*,
               const int*, const int*, int*, const int*);
void pdtrmr2d_(char*, char*, const int*, const int*, double*, const int*, const int*, int*, double*,
               const int*, const int*, int*, const int*);
void pctrmr2d_(char*, char*, const int*, const int*, void*, const int*, const int*, int*, void*,
               const int*, const int*, int*, const int*);
void pztrmr2d_(char*, char*, const int*, const int*, void*, const int*, const int*, int*, void*,
               const int*, const int*, int*, const int*);
void pitrmr2d_(char*, char*, const int*, const int*, int*, const int*, const int*, int*, int*,
               const int*, const int*, int*, const int*);

typedef void (*c_entry)(int, int, void*, int, int, int*, void*, int, int, int*, int);
typedef void (*tc_entry)(char*, char*, int, int, void*, int, int, int*, void*, int, int, int*, int);
typedef void (*tf_entry)(char*, char*, const int*, const int*, void*, const int*, const int*, int*,
                         void*, const int*, const int*, int*, const int*);
typedef void (*f_entry)(const int*, const int*, void*, const int*, const int*, int*, void*,
                        const int*, const int*, int*, const int*);

enum { S, D, C, Z, I, TYPES };
static const char letter[TYPES] = {'s', 'd', 'c', 'z', 'i'};
static const size_t size_of[TYPES] = {4, 8, 8, 16, 4};
static const c_entry linked_c[TYPES] = {(c_entry)Cpsgemr2d, (c_entry)Cpdgemr2d, (c_entry)Cpcgemr2d,
                                        (c_entry)Cpzgemr2d, (c_entry)Cpigemr2d};
static const f_entry linked_f[TYPES] = {(f_entry)psgemr2d_, (f_entry)pdgemr2d_, (f_entry)pcgemr2d_,
                                        (f_entry)pzgemr2d_, (f_entry)pigemr2d_};
static c_entry ref_c[TYPES];
static const tc_entry linked_tc[TYPES] = {(tc_entry)Cpstrmr2d, (tc_entry)Cpdtrmr2d,
                                          (tc_entry)Cpctrmr2d, (tc_entry)Cpztrmr2d,
                                          (tc_entry)Cpitrmr2d};
static const tf_entry linked_tf[TYPES] = {(tf_entry)pstrmr2d_, (tf_entry)pdtrmr2d_,
                                          (tf_entry)pctrmr2d_, (tf_entry)pztrmr2d_,
                                          (tf_entry)pitrmr2d_};
static tc_entry ref_tc[TYPES];

/* The case in progress copies a trapezoid (p?trmr2d) when tr_uplo is 'U' or 'L'. */
static char tr_uplo = 0, tr_diag = 'N';

/* Whether element (x, y) of an m x n region is copied: always for p?gemr2d, in the
 * trapezoid for p?trmr2d (x - y >= d - max(n - m, 0) for 'L', y - x >= d - max(m - n, 0)
 * for 'U', d = 1 without the diagonal), as ScaLAPACK's REDIST documents it. */
static int kept(long x, long y, long m, long n) {
  const long d = tr_diag == 'U' ? 1 : 0;
  if (tr_uplo == 'L') return x - y >= d - (n > m ? n - m : 0);
  if (tr_uplo == 'U') return y - x >= d - (m > n ? m - n : 0);
  return 1;
}

/* The element of global (0-based) index (i, j) in type t's bytes, exact in every type
 * for i, j < 4096; the sentinel is -1 (complex: -1 - 1i), which f never gives. */
static void put(int t, unsigned char* out, double v) {
  float f = (float)v;
  int k = (int)v;
  switch (t) {
    case S:
      memcpy(out, &f, 4);
      break;
    case D:
      memcpy(out, &v, 8);
      break;
    case C:
      memcpy(out, &f, 4), f = (float)(v < 0 ? v : -v), memcpy(out + 4, &f, 4);
      break;
    case Z:
      memcpy(out, &v, 8), v = v < 0 ? v : -v, memcpy(out + 8, &v, 8);
      break;
    default:
      memcpy(out, &k, 4);
      break;
  }
}
static void value(int t, long i, long j, unsigned char* out) { put(t, out, i * 4096.0 + j + 1); }
static void sentinel(int t, unsigned char* out) { put(t, out, -1.0); }

struct side {
  int P, Q, ctxt, M, N, MB, NB, RSRC, CSRC, i, j; /* i, j: 1-based offsets */
  int myrow, mycol, locr, locc, lld;
  int desc[9];
  unsigned char* data; /* NULL where nothing is stored */
};

/* Descriptor and local array of one side; `garbage`: what a process outside the grid
 * passes in the descriptor's other fields. */
static void make_side(struct side* s, int t, int fill_f) {
  s->ctxt = make_grid(s->P, s->Q);
  const int extra = rnd(0, 3); /* drawn on every process: the sequence stays shared */
  int nprow, npcol;
  Cblacs_gridinfo(s->ctxt, &nprow, &npcol, &s->myrow, &s->mycol);
  s->data = NULL;
  if (s->ctxt < 0 || s->myrow < 0) {
    s->myrow = s->mycol = -1;
    for (int k = 0; k < 9; ++k) s->desc[k] = 7777 + k;
    s->desc[1] = -1;
    return;
  }
  s->locr = numroc_(&s->M, &s->MB, &s->myrow, &s->RSRC, &s->P);
  s->locc = numroc_(&s->N, &s->NB, &s->mycol, &s->CSRC, &s->Q);
  s->lld = (s->locr > 1 ? s->locr : 1) + extra;
  int d[9] = {1, s->ctxt, s->M, s->N, s->MB, s->NB, s->RSRC, s->CSRC, s->lld};
  memcpy(s->desc, d, sizeof d);
  if (s->locr == 0 || s->locc == 0) return;
  s->data = malloc((size_t)s->lld * s->locc * size_of[t]);
  for (int k = 0; k < s->locc; ++k)
    for (int l = 0; l < s->lld; ++l) {
      unsigned char* e = s->data + ((size_t)k * s->lld + l) * size_of[t];
      if (fill_f && l < s->locr)
        value(t, l2g(l, s->MB, s->myrow, s->RSRC, s->P), l2g(k, s->NB, s->mycol, s->CSRC, s->Q), e);
      else
        sentinel(t, e);
    }
}

/* Wrong elements of this process's part of B (or of A when `a` is set: f everywhere). */
static long check(const struct side* s, const unsigned char* data, int t, int m, int n,
                  const struct side* a, int is_a) {
  long bad = 0;
  unsigned char want[16];
  if (s->myrow < 0 || data == NULL) return 0;
  for (int k = 0; k < s->locc; ++k)
    for (int l = 0; l < s->lld; ++l) {
      const long gi = l2g(l, s->MB, s->myrow, s->RSRC, s->P);
      const long gj = l2g(k, s->NB, s->mycol, s->CSRC, s->Q);
      const int in = !is_a && l < s->locr && gi >= s->i - 1 && gi < s->i - 1 + m &&
                     gj >= s->j - 1 && gj < s->j - 1 + n &&
                     kept(gi - (s->i - 1), gj - (s->j - 1), m, n);
      if (is_a && l < s->locr)
        value(t, gi, gj, want);
      else if (in)
        value(t, gi - (s->i - 1) + (a->i - 1), gj - (s->j - 1) + (a->j - 1), want);
      else
        sentinel(t, want);
      bad += memcmp(data + ((size_t)k * s->lld + l) * size_of[t], want, size_of[t]) != 0;
    }
  return bad;
}

static void refill(const struct side* s, unsigned char* data, int t) {
  if (data == NULL) return;
  for (size_t e = 0; e < (size_t)s->lld * s->locc; ++e) sentinel(t, data + e * size_of[t]);
}

static void call(int t, int fortran, c_entry c, int m, int n, struct side* a, unsigned char* pa,
                 struct side* b, unsigned char* pb, int ictxt) {
  if (tr_uplo) {
    char u = tr_uplo, d = tr_diag;
    if (fortran)
      linked_tf[t](&u, &d, &m, &n, pa, &a->i, &a->j, a->desc, pb, &b->i, &b->j, b->desc, &ictxt);
    else
      (c == ref_c[t] ? ref_tc[t] : linked_tc[t])(&u, &d, m, n, pa, a->i, a->j, a->desc, pb, b->i,
                                                 b->j, b->desc, ictxt);
    return;
  }
  if (fortran)
    linked_f[t](&m, &n, pa, &a->i, &a->j, a->desc, pb, &b->i, &b->j, b->desc, &ictxt);
  else
    c(m, n, pa, a->i, a->j, a->desc, pb, b->i, b->j, b->desc, ictxt);
}

static int make_ictxt(void) {
  int ctxt, kind = rnd(0, 2);
  Cblacs_get(-1, 0, &ctxt);
  if (kind == 0) {
    Cblacs_gridinit(&ctxt, "Row", 1, np);
  } else if (kind == 1) {
    Cblacs_gridinit(&ctxt, "Col", np, 1);
  } else {
    int P = np % 2 == 0 ? 2 : 1, map[64], perm[64];
    for (int r = 0; r < np; ++r) perm[r] = r;
    for (int r = np - 1; r > 0; --r) {
      int k = rnd(0, r), x = perm[r];
      perm[r] = perm[k], perm[k] = x;
    }
    memcpy(map, perm, sizeof(int) * np);
    Cblacs_gridmap(&ctxt, map, P, P, np / P);
  }
  return ctxt;
}

/* One random case of type t; returns the wrong elements summed over processes. Case k
 * puts A on grid shape k mod G and B on shape (k / G) mod G, so G * G cases cover every
 * pair. */
static long one_case(int t, int number, int instance, int verbose) {
  struct side a, b;
  a.P = shapes[instance % nshapes][0], a.Q = shapes[instance % nshapes][1];
  b.P = shapes[instance / nshapes % nshapes][0], b.Q = shapes[instance / nshapes % nshapes][1];
  struct side* sides[2] = {&a, &b};
  for (int k = 0; k < 2; ++k) {
    struct side* s = sides[k];
    s->M = rnd(1, 150), s->N = rnd(1, 150);
    const int small = rnd(0, 1); /* half the cases: blocks of 1..8 */
    s->MB = small ? rnd(1, 8) : rnd(1, 100), s->NB = small ? rnd(1, 8) : rnd(1, 100);
    s->RSRC = rnd(0, s->P - 1), s->CSRC = rnd(0, s->Q - 1);
  }
  const int m = rnd(1, a.M < b.M ? a.M : b.M), n = rnd(1, a.N < b.N ? a.N : b.N);
  a.i = rnd(1, a.M - m + 1), a.j = rnd(1, a.N - n + 1);
  b.i = rnd(1, b.M - m + 1), b.j = rnd(1, b.N - n + 1);
  const int fortran = rnd(0, 1);
  const int trapezoid = rnd(0, 2) == 0, upper = rnd(0, 1), unit = rnd(0, 1);
  tr_uplo = trapezoid ? (upper ? 'U' : 'L') : 0;
  tr_diag = unit ? 'U' : 'N';
  make_side(&a, t, 1);
  make_side(&b, t, 0);
  const int ictxt = make_ictxt();
  if (verbose && me == 0)
    printf(
        "case %d %c%s%s: A %dx%d/%dx%d src(%d,%d) on %dx%d at (%d,%d); B %dx%d/%dx%d src(%d,%d) "
        "on %dx%d at (%d,%d); %d x %d\n",
        number, letter[t], fortran ? " (Fortran entry)" : "",
        tr_uplo ? (tr_uplo == 'U' ? (unit ? " trmr2d U U" : " trmr2d U N")
                                  : (unit ? " trmr2d L U" : " trmr2d L N"))
                : "",
        a.M, a.N, a.MB, a.NB, a.RSRC, a.CSRC, a.P, a.Q, a.i, a.j, b.M, b.N, b.MB, b.NB, b.RSRC,
        b.CSRC, b.P, b.Q, b.i, b.j, m, n);
  /* Outside a grid: half the processes pass a garbage pointer, which must not be read. */
  unsigned char* garbage = (unsigned char*)(uintptr_t)16;
  const int use_garbage = rnd(0, 1);
  unsigned char* pa = a.myrow < 0 && use_garbage ? garbage : a.data;
  unsigned char* b2 = NULL;
  unsigned char* ref = NULL;
  size_t bytes = b.data ? (size_t)b.lld * b.locc * size_of[t] : 0;
  if (b.data) {
    b2 = malloc(bytes), ref = malloc(bytes);
    refill(&b, b2, t), refill(&b, ref, t);
  }
  long bad = 0;
  call(t, fortran, linked_c[t], m, n, &a, pa, &b, b.data, ictxt); /* plans */
  refill(&b, b.data, t);
  call(t, fortran, linked_c[t], m, n, &a, pa, &b, b.data, ictxt); /* the same call again */
  bad += check(&b, b.data, t, m, n, &a, 0);
  call(t, fortran, linked_c[t], m, n, &a, pa, &b, b2, ictxt); /* another target array */
  bad += check(&b, b2, t, m, n, &a, 0);
  bad += check(&a, a.data, t, m, n, &a, 1);
  call(t, 0, ref_c[t], m, n, &a, pa, &b, ref, ictxt); /* ScaLAPACK's own */
  long differ = bytes && memcmp(ref, b.data, bytes) != 0;
  long sums[2] = {bad, differ};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if ((sums[0] || sums[1]) && me == 0)
    printf("case %d %c: FAILED: %ld wrong elements, %ld processes differ from ScaLAPACK's\n",
           number, letter[t], sums[0], sums[1]);
  free(a.data), free(b.data), free(b2), free(ref);
  if (a.ctxt >= 0) Cblacs_gridexit(a.ctxt);
  if (b.ctxt >= 0) Cblacs_gridexit(b.ctxt);
  Cblacs_gridexit(ictxt);
  tr_uplo = 0;
  return sums[0] + sums[1];
}

/* A block moved within one matrix (A and B the same array and descriptor, overlapping
 * regions): B must end up with what A held before the call. ScaLAPACK leaves this to the
 * order of its messages, so only redist's result is checked. */
static long in_place(void) {
  struct side a = {0};
  a.P = np >= 4 ? 2 : 1, a.Q = np / a.P, a.M = 30, a.N = 25, a.MB = 4, a.NB = 3;
  Cblacs_get(-1, 0, &a.ctxt);
  Cblacs_gridinit(&a.ctxt, "Row", a.P, a.Q);
  int P, Q;
  Cblacs_gridinfo(a.ctxt, &P, &Q, &a.myrow, &a.mycol);
  long bad = 0;
  if (a.myrow >= 0) {
    a.locr = numroc_(&a.M, &a.MB, &a.myrow, &a.RSRC, &a.P);
    a.locc = numroc_(&a.N, &a.NB, &a.mycol, &a.CSRC, &a.Q);
    a.lld = a.locr + 1;
    int d[9] = {1, a.ctxt, a.M, a.N, a.MB, a.NB, 0, 0, a.lld};
    memcpy(a.desc, d, sizeof d);
    double* A = malloc(sizeof(double) * (a.lld * a.locc + 1));
    for (int k = 0; k < a.locc; ++k)
      for (int l = 0; l < a.lld; ++l)
        A[k * a.lld + l] = l2g(l, 4, a.myrow, 0, a.P) * 4096.0 + l2g(k, 3, a.mycol, 0, a.Q);
    const int m = 10, n = 12, ia = 3, ja = 2, ib = 8, jb = 9; /* overlapping */
    Cpdgemr2d(m, n, A, ia, ja, a.desc, A, ib, jb, a.desc, a.ctxt);
    for (int k = 0; k < a.locc; ++k)
      for (int l = 0; l < a.locr; ++l) {
        long gi = l2g(l, 4, a.myrow, 0, a.P), gj = l2g(k, 3, a.mycol, 0, a.Q);
        if (gi >= ib - 1 && gi < ib - 1 + m && gj >= jb - 1 && gj < jb - 1 + n)
          gi += ia - ib, gj += ja - jb;
        bad += A[k * a.lld + l] != gi * 4096.0 + gj;
      }
    free(A);
    Cblacs_gridexit(a.ctxt);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}

/* Bad arguments: each call must leave B alone and return on every process. */
static long errors(void) {
  int ctxt, P = 1, Q = np;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", P, Q);
  struct side a = {0}, b = {0};
  a.P = b.P = P, a.Q = b.Q = Q, a.ctxt = b.ctxt = ctxt;
  a.M = a.N = b.M = b.N = 20, a.MB = a.NB = b.MB = b.NB = 3;
  a.i = a.j = b.i = b.j = 1;
  Cblacs_gridinfo(ctxt, &P, &Q, &a.myrow, &a.mycol);
  b.myrow = a.myrow, b.mycol = a.mycol;
  a.locr = b.locr = 20, a.locc = b.locc = numroc_(&a.N, &a.NB, &a.mycol, &a.CSRC, &Q);
  a.lld = b.lld = 20;
  int da[9] = {1, ctxt, 20, 20, 3, 3, 0, 0, 20}, db[9] = {1, ctxt, 20, 20, 3, 3, 0, 0, 20};
  double* A = malloc(sizeof(double) * 400);
  double* B = malloc(sizeof(double) * 400);
  for (int k = 0; k < 400; ++k) A[k] = k, B[k] = -1;
  long bad = 0;
  da[4] = 0; /* MB_A = 0: parameter 6 */
  Cpdgemr2d(5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);
  da[4] = 3;
  Cpdgemr2d(5, 5, A, 17, 1, da, B, 1, 1, db, ctxt); /* IA + M - 1 > M_A: parameter 4 */
  db[6] = 5;                                        /* RSRC_B outside the grid: 10 */
  Cpdgemr2d(5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);
  db[6] = 0;
  if (me == np - 1) db[8] = 0; /* LLD_B too small on the last process only: 10 */
  Cpdgemr2d(5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);
  db[8] = 20;
  Cpdgemr2d(-1, 5, A, 1, 1, da, B, 1, 1, db, ctxt); /* M < 0: parameter 1 */
  /* Disagreement: processes given different values would plan different moves. */
  Cpdgemr2d(me == np - 1 ? 6 : 5, 5, A, 1, 1, da, B, 1, 1, db, ctxt); /* M: parameter 1 */
  if (me == np - 1) da[4] = 4; /* MB_A on one process of A's grid: parameter 6 */
  Cpdgemr2d(5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);
  da[4] = 3;
  Cpdgemr2d(5, 5, A, 1, 1, da, B, 1, me == np - 1 ? 2 : 1, db, ctxt); /* JB: parameter 10 */
  char upper = 'U', non_unit = 'N';
  Cpdtrmr2d(NULL, &non_unit, 5, 5, A, 1, 1, da, B, 1, 1, db, ctxt); /* UPLO: parameter 1 */
  Cpdtrmr2d(&upper, NULL, 5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);    /* DIAG: parameter 2 */
  da[4] = 0; /* MB_A = 0: parameter 8 of p?trmr2d */
  Cpdtrmr2d(&upper, &non_unit, 5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);
  da[4] = 3;
  for (int k = 0; k < 400; ++k) bad += B[k] != -1;
  /* And a good call afterwards works. */
  Cpdgemr2d(5, 5, A, 1, 1, da, B, 1, 1, db, ctxt);
  b.data = (unsigned char*)B, a.data = (unsigned char*)A;
  for (int k = 0; k < a.locc; ++k)
    for (int l = 0; l < 20; ++l) {
      const long gj = l2g(k, 3, a.mycol, 0, Q);
      const double want = l < 5 && gj < 5 ? A[(size_t)k * 20 + l] : -1;
      bad += B[(size_t)k * 20 + l] != want;
    }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  free(A), free(B);
  Cblacs_gridexit(ctxt);
  return bad;
}

/* Calls that ScaLAPACK accepts although some arguments look wrong, as its own REDIST
 * testers make them: DTYPE_ unset on one process and different on others (ScaLAPACK never
 * reads it); on the process outside each grid (np >= 2), CTXT_ = -1 beside a garbage LLD_,
 * IA and JA; UPLO and DIAG other than 'U', 'L' and 'N'. Each call must write B byte for
 * byte as ScaLAPACK's own routine does, and that must be the expected trapezoid. */
static long lenient(void) {
  /* UPLO and DIAG as passed, then as ScaLAPACK reads them ({0, 0, 0, 'N'}: p?gemr2d). */
  static const char odd[][4] = {{0, 0, 0, 'N'},       {'x', 'N', 'L', 'N'}, {'u', 'q', 'U', 'U'},
                                {'L', 'q', 'L', 'N'}, {' ', 'n', 'L', 'N'}, {'U', 'n', 'U', 'N'}};
  long bad = 0;
  for (int k = 0; k < (int)(sizeof odd / sizeof odd[0]); ++k) {
    const int t = k % TYPES;
    struct side a = {0}, b = {0};
    a.P = 1, a.Q = np > 1 ? np - 1 : 1, b.P = a.Q, b.Q = 1;
    struct side* sides[2] = {&a, &b};
    for (int e = 0; e < 2; ++e) {
      struct side* s = sides[e];
      s->M = rnd(20, 60), s->N = rnd(20, 60), s->MB = rnd(1, 9), s->NB = rnd(1, 9);
      s->RSRC = rnd(0, s->P - 1), s->CSRC = rnd(0, s->Q - 1);
    }
    const int m = rnd(1, a.M < b.M ? a.M : b.M), n = rnd(1, a.N < b.N ? a.N : b.N);
    a.i = rnd(1, a.M - m + 1), a.j = rnd(1, a.N - n + 1);
    b.i = rnd(1, b.M - m + 1), b.j = rnd(1, b.N - n + 1);
    make_side(&a, t, 1);
    make_side(&b, t, 0);
    for (int e = 0; e < 2; ++e) {
      struct side* s = sides[e];
      if (s->myrow >= 0)
        s->desc[0] = me == 0 ? 0x5eed : 1 + me % 2;
      else
        s->desc[8] = -77;
    }
    const int ictxt = make_ictxt();
    const int ia = a.myrow < 0 ? -3 : a.i, ja = a.myrow < 0 ? -3 : a.j;
    const int ib = b.myrow < 0 ? -3 : b.i, jb = b.myrow < 0 ? -3 : b.j;
    const size_t bytes = b.data ? (size_t)b.lld * b.locc * size_of[t] : 0;
    unsigned char* ref = bytes ? malloc(bytes) : NULL;
    refill(&b, ref, t);
    if (odd[k][0]) {
      char u = odd[k][0], d = odd[k][1];
      linked_tc[t](&u, &d, m, n, a.data, ia, ja, a.desc, b.data, ib, jb, b.desc, ictxt);
      ref_tc[t](&u, &d, m, n, a.data, ia, ja, a.desc, ref, ib, jb, b.desc, ictxt);
    } else {
      linked_c[t](m, n, a.data, ia, ja, a.desc, b.data, ib, jb, b.desc, ictxt);
      ref_c[t](m, n, a.data, ia, ja, a.desc, ref, ib, jb, b.desc, ictxt);
    }
    tr_uplo = odd[k][2], tr_diag = odd[k][3];
    long wrong = check(&b, b.data, t, m, n, &a, 0) + (bytes && memcmp(ref, b.data, bytes) != 0);
    tr_uplo = 0;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
      printf("lenient %d %c UPLO '%c' DIAG '%c': %s\n", k, letter[t], odd[k][0] ? odd[k][0] : '-',
             odd[k][1] ? odd[k][1] : '-', wrong ? "FAILED" : "ok");
    bad += wrong;
    free(a.data), free(b.data), free(ref);
    if (a.ctxt >= 0) Cblacs_gridexit(a.ctxt);
    if (b.ctxt >= 0) Cblacs_gridexit(b.ctxt);
    Cblacs_gridexit(ictxt);
  }
  return bad;
}

int main(int argc, char** argv) {
  struct options o = {.cases = 20};
  const char* impl;
  void* lib;
  const int expected = start(argc, argv, &o, &impl, &lib);
  const int redist = strncmp(impl, "redist", 6) == 0;
  /* ScaLAPACK's own routines, from the ScaLAPACK library itself. */
  static const char* names[TYPES] = {"Cpsgemr2d", "Cpdgemr2d", "Cpcgemr2d", "Cpzgemr2d",
                                     "Cpigemr2d"};
  static const char* tr_names[TYPES] = {"Cpstrmr2d", "Cpdtrmr2d", "Cpctrmr2d", "Cpztrmr2d",
                                        "Cpitrmr2d"};
  for (int t = 0; t < TYPES; ++t) ref_c[t] = lib ? (c_entry)dlsym(lib, names[t]) : NULL;
  for (int t = 0; t < TYPES; ++t) ref_tc[t] = lib ? (tc_entry)dlsym(lib, tr_names[t]) : NULL;
  int status = 0;
  if (!expected) {
    status = 1;
  } else if (!lib || !ref_c[D] || !ref_tc[D]) {
    if (me == 0) printf("driver: FAILED: ScaLAPACK's own routines not found\n");
    status = 1;
  } else if (o.lenient) {
    const long bad = lenient();
    if (me == 0) printf("driver: lenient calls: %s\n", bad ? "FAILED" : "all as ScaLAPACK");
    status = bad != 0;
  } else if (o.errors) {
    if (!redist) {
      if (me == 0) printf("driver: --errors needs redist_scalapack (ScaLAPACK exits)\n");
      status = 1;
    } else {
      long bad = errors();
      if (me == 0) printf("driver: errors: %ld elements changed by refused calls\n", bad);
      status = bad != 0;
    }
  } else {
    long bad = 0;
    for (int c = 0; c < o.cases; ++c)
      for (int t = 0; t < TYPES; ++t) bad += one_case(t, c, c * TYPES + t, o.verbose);
    if (me == 0)
      printf("driver: %d cases x 5 types: %s\n", o.cases, bad ? "FAILED" : "all elements right");
    if (redist) {
      const long moved = in_place();
      if (me == 0) printf("driver: in place (A = B): %ld wrong elements\n", moved);
      bad += moved;
    }
    status = bad != 0;
  }
  Cblacs_exit(0); /* MPI_Finalize */
  return status;
}
