/* PBLAS's p?tran, p?tranu, p?tranc, p?geadd and p?tradd as a ScaLAPACK program calls them
 * (Fortran entries, every argument by reference), checked element by element against
 * PBLAS's own routines in the same run. The build links it twice: with
 * libredist_scalapack ahead of ScaLAPACK (redist-pblas-driver) and to ScaLAPACK only
 * (redist-pblas-driver-ref, also run under LD_PRELOAD).
 *
 * Every case: one BLACS grid (every shape of up to np processes over the cases; "Row",
 * "Col" or a random Cblacs_gridmap, so some processes may be outside it and do not call);
 * A and C with their own random descriptors (blocks 1..40, RSRC/CSRC anywhere, LLD =
 * max(1, LOCr) + 0..3; a quarter of the descriptors BLOCK_CYCLIC_2D_INB with a first block
 * IMB_/INB_ of its own, some RSRC_/CSRC_ = -1: replicated), random offsets IA, JA, IC, JC
 * and M x N; over every 11 cases each type runs every routine, TRANS and UPLO; alpha and
 * beta from a set with 0 and 1 (beta = 0: C is all NaN and must not be read; alpha = 0: A
 * is NaN). Elements are small integers, so every result is exact whatever the order of
 * operations. The linked routine runs twice (plan, then the cached plan on C restored);
 * after each, every element of C must be beta C + alpha op(A) inside sub(C) (and its
 * triangle, LAPACK's: 'U' y >= x, 'L' x >= y) and untouched elsewhere (padding rows too),
 * A unchanged, and C equal to what PBLAS's own routine (dlopen/dlsym of the ScaLAPACK
 * library) writes. Then one square case runs every routine, TRANS, UPLO and two alpha
 * and beta on the same arrays: plans that collided in the cache would give wrong results;
 * and A = C in place (same array, same sub-matrix), transposed or not.
 *
 * --errors: illegal arguments. The driver has its own PB_Cabort and PB_Cwarn, as PBLAS's
 * tester has, so both implementations report INFO here instead of aborting: each call is
 * made through the linked routine and through PBLAS's own, and both INFO must be the
 * expected one with C untouched.
 *
 * Usage: pblas-driver [--cases N] [--seed S] [--expect redist|scalapack] [--errors]
 *        [--verbose]. Exit status 0 when everything is right. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "blacs_test.h"

/* PBLAS's entries, as a program declares them (complex as pairs). */
typedef void (*tran_fn)(const int*, const int*, const void*, const void*, const int*, const int*,
                        const int*, const void*, void*, const int*, const int*, const int*);
typedef void (*geadd_fn)(const char*, const int*, const int*, const void*, const void*, const int*,
                         const int*, const int*, const void*, void*, const int*, const int*,
                         const int*);
typedef void (*tradd_fn)(const char*, const char*, const int*, const int*, const void*, const void*,
                         const int*, const int*, const int*, const void*, void*, const int*,
                         const int*, const int*);
#define TRAN(x)                                                                                \
  void x(const int*, const int*, const void*, const void*, const int*, const int*, const int*, \
         const void*, void*, const int*, const int*, const int*)
#define GEADD(x)                                                                                \
  void x(const char*, const int*, const int*, const void*, const void*, const int*, const int*, \
         const int*, const void*, void*, const int*, const int*, const int*)
#define TRADD(x)                                                                                 \
  void x(const char*, const char*, const int*, const int*, const void*, const void*, const int*, \
         const int*, const int*, const void*, void*, const int*, const int*, const int*)
TRAN(pstran_);
TRAN(pdtran_);
TRAN(pctranu_);
TRAN(pztranu_);
TRAN(pctranc_);
TRAN(pztranc_);
GEADD(psgeadd_);
GEADD(pdgeadd_);
GEADD(pcgeadd_);
GEADD(pzgeadd_);
TRADD(pstradd_);
TRADD(pdtradd_);
TRADD(pctradd_);
TRADD(pztradd_);

enum { S, D, C, Z, TYPES };
static const char letter[TYPES] = {'s', 'd', 'c', 'z'};
static const size_t size_of[TYPES] = {4, 8, 8, 16};
static int is_complex(int t) { return t == C || t == Z; }

/* The routines of one type: p?tran / p?tranu, p?tranc (p?tran for real types), p?geadd,
 * p?tradd; linked and PBLAS's own. */
struct routines {
  tran_fn tran, tranc;
  geadd_fn geadd;
  tradd_fn tradd;
};
static const struct routines linked[TYPES] = {
    {(tran_fn)pstran_, (tran_fn)pstran_, (geadd_fn)psgeadd_, (tradd_fn)pstradd_},
    {(tran_fn)pdtran_, (tran_fn)pdtran_, (geadd_fn)pdgeadd_, (tradd_fn)pdtradd_},
    {(tran_fn)pctranu_, (tran_fn)pctranc_, (geadd_fn)pcgeadd_, (tradd_fn)pctradd_},
    {(tran_fn)pztranu_, (tran_fn)pztranc_, (geadd_fn)pzgeadd_, (tradd_fn)pztradd_}};
static struct routines pblas[TYPES];
static const char* names[TYPES][4] = {{"pstran_", "pstran_", "psgeadd_", "pstradd_"},
                                      {"pdtran_", "pdtran_", "pdgeadd_", "pdtradd_"},
                                      {"pctranu_", "pctranc_", "pcgeadd_", "pctradd_"},
                                      {"pztranu_", "pztranc_", "pzgeadd_", "pztradd_"}};

/* PBLAS's error handlers, replaced as PBLAS's tester replaces them: PB_Cabort records INFO
 * and returns (the library's would abort the job), PB_Cwarn counts. */
static int last_info, warnings;
void PB_Cabort(int ictxt, char* routine, int info) {
  (void)ictxt, (void)routine;
  last_info = info;
}
void PB_Cwarn(int ictxt, int line, char* routine, char* format, ...) {
  (void)ictxt, (void)line, (void)routine, (void)format;
  ++warnings;
}

/* One routine with its character arguments: kind 0 p?tran(u), 1 p?tranc, 2 p?geadd,
 * 3 p?tradd. Variant v of 11: tran, tranc, geadd N T C, tradd U/L x N T C. */
struct op {
  int kind;
  char trans, uplo;
};
static struct op variant(int v) {
  static const char t3[3] = {'N', 'T', 'C'};
  struct op o = {0, 'T', 0};
  if (v == 1) o.kind = 1, o.trans = 'C';
  if (v >= 2 && v <= 4) o.kind = 2, o.trans = t3[v - 2];
  if (v >= 5) o.kind = 3, o.uplo = v % 2 ? 'U' : 'L', o.trans = t3[(v - 5) / 2];
  return o;
}
static const char* op_name(struct op o) {
  static char buf[32];
  static const char* kinds[4] = {"tran", "tranc", "geadd", "tradd"};
  snprintf(buf, sizeof buf, "%s%s%c%s%c", kinds[o.kind], o.kind >= 2 ? " " : "",
           o.kind >= 2 ? o.trans : ' ', o.uplo ? " " : "", o.uplo ? o.uplo : ' ');
  return buf;
}

/* Values: small integers, so every result of beta c + alpha a is exact. */
static void fa(long i, long j, double* re, double* im) {
  *re = (double)((i * 7 + j * 13) % 23 - 11), *im = (double)((i * 5 + j * 3) % 17 - 8);
}
static void fc(long i, long j, double* re, double* im) {
  *re = (double)((i * 11 + j * 5) % 19 - 9), *im = (double)((i * 3 + j * 7) % 13 - 6);
}
static void put(int t, unsigned char* out, double re, double im) {
  float f[2] = {(float)re, (float)im};
  double d[2] = {re, im};
  if (t == S || t == C)
    memcpy(out, f, size_of[t]);
  else
    memcpy(out, d, size_of[t]);
}
static void get(int t, const unsigned char* in, double* re, double* im) {
  float f[2] = {0, 0};
  double d[2] = {0, 0};
  if (t == S || t == C)
    memcpy(f, in, size_of[t]), *re = f[0], *im = f[1];
  else
    memcpy(d, in, size_of[t]), *re = d[0], *im = d[1];
}
static int same(double x, double y) { return x == y || (isnan(x) && isnan(y)); }

/* One matrix: descriptor (DTYPE_ 1, or 2 with its own first block), local array. */
struct mat {
  int M, N, imb, inb, MB, NB, RSRC, CSRC, dtype;
  int locr, locc, lld;
  int desc[11];
  unsigned char* data; /* NULL where nothing is stored */
  unsigned char* initial;
};

/* How many of n indices process p holds: a first block of f, then blocks of nb from src. */
static int numroc_first(int n, int f, int nb, int p, int src, int P) {
  if (src == -1 || P == 1) return n;
  const int d = (p - src + P) % P;
  if (n <= f) return d == 0 ? n : 0;
  int local = d == 0 ? f : 0;
  for (int k = 1, start = f; start < n; ++k, start += nb)
    if (k % P == d) local += n - start < nb ? n - start : nb;
  return local;
}
/* Global index of local index l, with a first block f (blocks k >= 1 on distance k mod P). */
static long l2g_first(int l, int f, int nb, int p, int src, int P) {
  if (src == -1 || P == 1) return l;
  const int d = (p - src + P) % P;
  if (d == 0 && l < f) return l;
  const int rest = d == 0 ? l - f : l;
  const long k = d == 0 ? (long)(rest / nb + 1) * P : (long)(rest / nb) * P + d;
  return f + (k - 1) * nb + rest % nb;
}
static long gi_of(const struct mat* x, int l, int myrow, int P) {
  return l2g_first(l, x->imb, x->MB, myrow, x->RSRC, P);
}
static long gj_of(const struct mat* x, int k, int mycol, int Q) {
  return l2g_first(k, x->inb, x->NB, mycol, x->CSRC, Q);
}

static void make_mat(struct mat* x, int ctxt, int myrow, int mycol, int P, int Q, int t, int is_a,
                     int nan) {
  const int extra = rnd(0, 3);
  x->data = x->initial = NULL;
  x->locr = x->locc = 0, x->lld = 1;
  if (myrow < 0) return;
  x->locr = numroc_first(x->M, x->imb, x->MB, myrow, x->RSRC, P);
  x->locc = numroc_first(x->N, x->inb, x->NB, mycol, x->CSRC, Q);
  x->lld = (x->locr > 1 ? x->locr : 1) + extra;
  if (x->dtype == 1) {
    int d[9] = {1, ctxt, x->M, x->N, x->MB, x->NB, x->RSRC, x->CSRC, x->lld};
    memcpy(x->desc, d, sizeof d);
  } else {
    int d[11] = {2, ctxt, x->M, x->N, x->imb, x->inb, x->MB, x->NB, x->RSRC, x->CSRC, x->lld};
    memcpy(x->desc, d, sizeof d);
  }
  if (x->locr == 0 || x->locc == 0) return;
  const size_t bytes = (size_t)x->lld * x->locc * size_of[t];
  x->data = malloc(bytes), x->initial = malloc(bytes);
  for (int k = 0; k < x->locc; ++k)
    for (int l = 0; l < x->lld; ++l) {
      double re = NAN, im = NAN;
      if (!nan && l < x->locr)
        (is_a ? fa : fc)(gi_of(x, l, myrow, P), gj_of(x, k, mycol, Q), &re, &im);
      put(t, x->data + ((size_t)k * x->lld + l) * size_of[t], re, im);
    }
  memcpy(x->initial, x->data, bytes);
}

/* One call: the matrices, the sub-matrices, alpha and beta. */
struct call {
  int t, m, n, ia, ja, ic, jc;
  struct op o;
  unsigned char alpha[16], beta[16];
  double alpha_re, alpha_im, beta_re, beta_im;
  int a_is_c; /* A is C's own array (in place): A's values are C's initial ones */
};

static void run(const struct routines* r, const struct call* k, const struct mat* a,
                const unsigned char* pa, const struct mat* c, unsigned char* pc) {
  const struct op o = k->o;
  if (o.kind == 0)
    r[k->t].tran(&k->m, &k->n, k->alpha, pa, &k->ia, &k->ja, a->desc, k->beta, pc, &k->ic, &k->jc,
                 c->desc);
  else if (o.kind == 1)
    r[k->t].tranc(&k->m, &k->n, k->alpha, pa, &k->ia, &k->ja, a->desc, k->beta, pc, &k->ic, &k->jc,
                  c->desc);
  else if (o.kind == 2)
    r[k->t].geadd(&o.trans, &k->m, &k->n, k->alpha, pa, &k->ia, &k->ja, a->desc, k->beta, pc,
                  &k->ic, &k->jc, c->desc);
  else
    r[k->t].tradd(&o.uplo, &o.trans, &k->m, &k->n, k->alpha, pa, &k->ia, &k->ja, a->desc, k->beta,
                  pc, &k->ic, &k->jc, c->desc);
}

/* Wrong elements of this process's part of C after the call. */
static long check(const struct call* k, const struct mat* c, const unsigned char* data, int myrow,
                  int mycol, int P, int Q) {
  long bad = 0;
  if (myrow < 0 || data == NULL) return 0;
  const int t = k->t, transposed = k->o.trans != 'N';
  const int conj = is_complex(t) && k->o.trans == 'C';
  const int quick = k->alpha_re == 0 && k->alpha_im == 0 && k->beta_re == 1 && k->beta_im == 0;
  for (int j = 0; j < c->locc; ++j)
    for (int l = 0; l < c->lld; ++l) {
      const size_t e = ((size_t)j * c->lld + l) * size_of[t];
      double re, im, want_re, want_im;
      get(t, data + e, &re, &im);
      const long x = gi_of(c, l, myrow, P) - (k->ic - 1), y = gj_of(c, j, mycol, Q) - (k->jc - 1);
      const int in = l < c->locr && x >= 0 && x < k->m && y >= 0 && y < k->n && !quick &&
                     (k->o.uplo != 'U' || y >= x) && (k->o.uplo != 'L' || x >= y);
      if (!in) {
        bad += memcmp(data + e, c->initial + e, size_of[t]) != 0;
        continue;
      }
      double ar, ai, cr, ci;
      (k->a_is_c ? fc : fa)(k->ia - 1 + (transposed ? y : x), k->ja - 1 + (transposed ? x : y), &ar,
                            &ai);
      if (conj) ai = -ai;
      if (!is_complex(t)) ai = 0;
      get(t, c->initial + e, &cr, &ci);
      want_re = k->alpha_re * ar - k->alpha_im * ai, want_im = k->alpha_re * ai + k->alpha_im * ar;
      if (k->beta_re != 0 || k->beta_im != 0)
        want_re += k->beta_re * cr - k->beta_im * ci, want_im += k->beta_re * ci + k->beta_im * cr;
      bad += !same(re, want_re) || (is_complex(t) && !same(im, want_im));
    }
  return bad;
}

/* Elements where two results differ (values, NaN equal to NaN). */
static long differ(int t, const unsigned char* x, const unsigned char* y, size_t elements) {
  long n = 0;
  for (size_t e = 0; e < elements; ++e) {
    double xr, xi, yr, yi;
    get(t, x + e * size_of[t], &xr, &xi), get(t, y + e * size_of[t], &yr, &yi);
    n += !same(xr, yr) || !same(xi, yi);
  }
  return n;
}

static const double scalars[6] = {0, 1, -1, 2, -0.5, 1.5};
static void set_scalars(struct call* k, int alpha, int beta, int alpha_im, int beta_im) {
  k->alpha_re = scalars[alpha], k->beta_re = scalars[beta];
  k->alpha_im = is_complex(k->t) ? scalars[alpha_im] : 0;
  k->beta_im = is_complex(k->t) ? scalars[beta_im] : 0;
  put(k->t, k->alpha, k->alpha_re, k->alpha_im), put(k->t, k->beta, k->beta_re, k->beta_im);
}

/* The linked routine twice and PBLAS's own once on the same input; wrong elements. */
static long run_and_check(const struct call* k, struct mat* a, struct mat* c, int myrow, int mycol,
                          int P, int Q) {
  long bad = 0;
  const int t = k->t;
  const size_t elements = c->data ? (size_t)c->lld * c->locc : 0;
  unsigned char* ref = elements ? malloc(elements * size_of[t]) : NULL;
  if (ref) memcpy(ref, c->initial, elements * size_of[t]);
  last_info = 0;
  if (myrow >= 0) {
    run(linked, k, a, a->data, c, c->data); /* plans */
    bad += check(k, c, c->data, myrow, mycol, P, Q);
    if (c->data) memcpy(c->data, c->initial, elements * size_of[t]);
    run(linked, k, a, a->data, c, c->data); /* the cached plan */
    bad += check(k, c, c->data, myrow, mycol, P, Q);
    if (a->data) bad += memcmp(a->data, a->initial, (size_t)a->lld * a->locc * size_of[t]) != 0;
    run(pblas, k, a, a->data, c, ref); /* PBLAS's own */
    bad += elements ? differ(t, ref, c->data, elements) : 0;
  }
  bad += last_info != 0; /* a legal call reported an error */
  free(ref);
  return bad;
}

static void free_mat(struct mat* x) { free(x->data), free(x->initial); }

/* A random descriptor of at least rows x cols elements, on a P x Q grid. */
static void draw_mat(struct mat* x, int rows, int cols, int P, int Q) {
  x->M = rows + rnd(0, 30), x->N = cols + rnd(0, 30);
  const int small = rnd(0, 1);
  x->MB = small ? rnd(1, 6) : rnd(1, 40), x->NB = small ? rnd(1, 6) : rnd(1, 40);
  x->RSRC = rnd(0, P - 1), x->CSRC = rnd(0, Q - 1);
  x->dtype = rnd(0, 3) == 0 ? 2 : 1;
  x->imb = x->MB, x->inb = x->NB;
  if (x->dtype == 2) {
    if (rnd(0, 1)) x->imb = rnd(1, 45);
    if (rnd(0, 1)) x->inb = rnd(1, 45);
    if (rnd(0, 5) == 0) x->RSRC = -1; /* replicated over the process rows */
  }
}

/* One random case; returns the wrong elements summed over processes. */
static long one_case(int t, int number, int shape, int v, int verbose) {
  const int P = shapes[shape % nshapes][0], Q = shapes[shape % nshapes][1];
  const int ctxt = make_grid(P, Q);
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (ctxt < 0) myrow = mycol = -1;
  struct call k = {0};
  k.t = t, k.o = variant(v);
  k.m = rnd(1, 50), k.n = rnd(1, 50);
  if (rnd(0, 15) == 0) k.m = 0; /* quick return */
  set_scalars(&k, rnd(0, 5), rnd(0, 5), rnd(0, 5), rnd(0, 5));
  const int transposed = k.o.trans != 'N';
  struct mat a, c;
  draw_mat(&a, transposed ? k.n : k.m, transposed ? k.m : k.n, P, Q);
  draw_mat(&c, k.m, k.n, P, Q);
  k.ia = rnd(1, a.M - (transposed ? k.n : k.m) + 1),
  k.ja = rnd(1, a.N - (transposed ? k.m : k.n) + 1);
  k.ic = rnd(1, c.M - k.m + 1), k.jc = rnd(1, c.N - k.n + 1);
  const int alpha_zero = k.alpha_re == 0 && k.alpha_im == 0;
  const int beta_zero = k.beta_re == 0 && k.beta_im == 0;
  make_mat(&a, ctxt, myrow, mycol, P, Q, t, 1, alpha_zero);
  make_mat(&c, ctxt, myrow, mycol, P, Q, t, 0, beta_zero);
  if (verbose && me == 0)
    printf(
        "case %d %c %s: %dx%d grid; A %dx%d/%dx%d first %dx%d src(%d,%d) at (%d,%d); C "
        "%dx%d/%dx%d first %dx%d src(%d,%d) at (%d,%d); %d x %d; alpha %g%+gi beta %g%+gi\n",
        number, letter[t], op_name(k.o), P, Q, a.M, a.N, a.MB, a.NB, a.imb, a.inb, a.RSRC, a.CSRC,
        k.ia, k.ja, c.M, c.N, c.MB, c.NB, c.imb, c.inb, c.RSRC, c.CSRC, k.ic, k.jc, k.m, k.n,
        k.alpha_re, k.alpha_im, k.beta_re, k.beta_im);
  long bad = run_and_check(&k, &a, &c, myrow, mycol, P, Q);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (bad && me == 0)
    printf("case %d %c %s: FAILED: %ld wrong elements or calls\n", number, letter[t], op_name(k.o),
           bad);
  free_mat(&a), free_mat(&c);
  if (ctxt >= 0) Cblacs_gridexit(ctxt);
  return bad;
}

/* A P x Q "Row" grid of processes 0..P Q-1 and this process's place ({-1, -1} outside). */
static int row_grid(int P, int Q, int* myrow, int* mycol) {
  int ctxt, nprow, npcol;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", P, Q);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, myrow, mycol);
  if (ctxt < 0) *myrow = *mycol = -1;
  return ctxt;
}

/* Every routine, TRANS and UPLO, and two alpha and beta, one after the other on the same
 * square sub-matrices of the same arrays: only the operation differs between the calls,
 * so a plan cache that mixed them up would give wrong elements. */
static long no_collisions(int t) {
  const int P = np >= 2 ? 2 : 1, Q = np / P;
  int myrow, mycol;
  const int ctxt = row_grid(P, Q, &myrow, &mycol);
  struct mat a = {40, 36, 5, 4, 5, 4, 1 % P, 0, 1, 0, 0, 0, {0}, NULL, NULL};
  struct mat c = {33, 41, 3, 7, 3, 7, 0, Q - 1, 1, 0, 0, 0, {0}, NULL, NULL};
  make_mat(&a, ctxt, myrow, mycol, P, Q, t, 1, 0);
  make_mat(&c, ctxt, myrow, mycol, P, Q, t, 0, 0);
  long bad = 0;
  for (int s = 0; s < 2; ++s)
    for (int v = 0; v < 11; ++v) {
      struct call k = {t, 23, 23, 4, 6, 3, 2, variant(v), {0}, {0}, 0, 0, 0, 0, 0};
      set_scalars(&k, s ? 3 : 5, s ? 4 : 2, s ? 2 : 3, s ? 3 : 2);
      if (c.data) memcpy(c.data, c.initial, (size_t)c.lld * c.locc * size_of[t]);
      bad += run_and_check(&k, &a, &c, myrow, mycol, P, Q);
    }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("driver: %c, 22 operations on the same arrays: %s\n", letter[t],
           bad ? "FAILED" : "all elements right");
  free_mat(&a), free_mat(&c);
  if (ctxt >= 0) Cblacs_gridexit(ctxt);
  return bad;
}

/* A and C the same array and descriptor, the same square sub-matrix: C := 0.5 C + 2 C
 * (p?geadd 'N', also checked against PBLAS's own) and, through redist, C := 0.5 C + 2 C^T
 * (p?tran), which must read every element of sub(C) before writing any, as if A were a
 * copy (PBLAS's own does not: it reads some after writing them). */
static long in_place(int t, int with_redist) {
  const int P = np >= 2 ? 2 : 1, Q = np / P;
  int myrow, mycol;
  const int ctxt = row_grid(P, Q, &myrow, &mycol);
  struct mat c = {30, 30, 4, 3, 4, 3, 0, 0, 1, 0, 0, 0, {0}, NULL, NULL};
  make_mat(&c, ctxt, myrow, mycol, P, Q, t, 0, 0);
  long bad = 0;
  for (int v = 0; v < 1 + with_redist; ++v) {
    struct call k = {t, 20, 20, 3, 2, 3, 2, variant(v ? 0 : 2), {0}, {0}, 0, 0, 0, 0, 1};
    set_scalars(&k, 3, 4, 0, 0);
    if (c.data) memcpy(c.data, c.initial, (size_t)c.lld * c.locc * size_of[t]);
    last_info = 0;
    if (myrow >= 0) run(linked, &k, &c, c.data, &c, c.data);
    bad += check(&k, &c, c.data, myrow, mycol, P, Q) + (last_info != 0);
    if (v == 0 && c.data) { /* PBLAS's own, elementwise here */
      const size_t bytes = (size_t)c.lld * c.locc * size_of[t];
      unsigned char* ours = malloc(bytes);
      memcpy(ours, c.data, bytes), memcpy(c.data, c.initial, bytes);
      run(pblas, &k, &c, c.data, &c, c.data);
      bad += differ(t, ours, c.data, (size_t)c.lld * c.locc);
      free(ours);
    } else if (v == 0 && myrow >= 0) {
      run(pblas, &k, &c, c.data, &c, c.data);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("driver: %c, A = C in place: %s\n", letter[t], bad ? "FAILED" : "all elements right");
  free_mat(&c);
  if (ctxt >= 0) Cblacs_gridexit(ctxt);
  return bad;
}

/* Illegal arguments, each through the linked routine and PBLAS's own: both INFO must be
 * `info` on every process (`only`: on that process, 0 elsewhere; then PBLAS's own is not
 * called, it would wait for the others), and C unchanged. */
struct bad_call {
  const char* what;
  int info;
};
static long errors(int with_redist) {
  const int t = D, P = 1, Q = np;
  int myrow, mycol, ignored[2];
  const int ctxt = row_grid(P, Q, &myrow, &mycol), other = row_grid(P, Q, ignored, ignored + 1);
  struct mat a = {20, 20, 3, 3, 3, 3, 0, 0, 1, 0, 0, 0, {0}, NULL, NULL};
  struct mat c = a;
  make_mat(&a, ctxt, myrow, mycol, P, Q, t, 1, 0);
  make_mat(&c, ctxt, myrow, mycol, P, Q, t, 0, 0);
  long bad = 0;
  for (int e = 0; e < 24; ++e) {
    struct call k = {t, 5, 5, 1, 1, 1, 1, {2, 'N', 0}, {0}, {0}, 0, 0, 0, 0, 0};
    set_scalars(&k, 3, 2, 0, 0);
    int da[11], dc[11], only = -1, info = 0;
    memcpy(da, a.desc, sizeof da), memcpy(dc, c.desc, sizeof dc);
    const char* what = "";
    /* clang-format off */
    switch (e) {
      case 0:  what = "geadd TRANS = 'X'";         k.o.trans = 'X'; info = -1; break;
      case 1:  what = "geadd M = -1";              k.m = -1; info = -2; break;
      case 2:  what = "geadd N = -1";              k.n = -1; info = -3; break;
      case 3:  what = "geadd IA = 0";              k.ia = 0; info = -6; break;
      case 4:  what = "geadd JA + N - 1 > N_A";    k.ja = 17; info = -7; break;
      case 5:  what = "geadd DTYPE_A = 3";         da[0] = 3; info = -801; break;
      case 6:  what = "geadd CTXT_C another";      dc[1] = other; info = -1302; break;
      case 7:  what = "geadd MB_A = 0";            da[4] = 0; info = -805; break;
      case 8:  what = "geadd RSRC_C = Q (P = 1)";  dc[6] = 1; info = -1309; break;
      case 9:  what = "geadd LLD_A = 0";           da[8] = 0; info = -811; break;
      case 10: what = "geadd M_C = 0";             dc[2] = 0; info = -1303; break;
      case 11: what = "geadd M = 0, IC = 0";       k.m = 0, k.ic = 0; info = -11; break;
      case 12: what = "geadd 'T' IA + N - 1 > M_A"; k.o.trans = 'T', k.ia = 17; info = -6; break;
      case 13: what = "geadd TRANS and IA";        k.o.trans = 'Q', k.ia = 0; info = -1; break;
      case 14: what = "geadd CTXT_A = -1";         da[1] = -1; info = -802; break;
      case 15: what = "tradd UPLO = 'X'";          k.o = variant(5), k.o.uplo = 'X'; info = -1; break;
      case 16: what = "tradd TRANS = 'X'";         k.o = variant(5), k.o.trans = 'X'; info = -2; break;
      case 17: what = "tradd NB_C = -2";           k.o = variant(6), dc[5] = -2; info = -1406; break;
      case 18: what = "tradd UPLO and M";          k.o = variant(6), k.o.uplo = 'u' - 1, k.m = -1; info = -1; break;
      case 19: what = "tran IC + M - 1 > M_C";     k.o = variant(0), k.ic = 20; info = -10; break;
      case 20: what = "tran N_A = -1";             k.o = variant(0), da[3] = -1; info = -704; break;
      case 21: what = "tranc DTYPE_C = 0";         k.o = variant(1), dc[0] = 0; info = -1201; break;
      case 22: what = "geadd LLD_C on one";        only = np - 1; if (me == only) dc[8] = 0;
                                                   info = -1311; break;
      default: what = "geadd M_A < 0, M = 0";      k.m = 0, da[2] = -1; info = -803; break;
    }
    /* clang-format on */
    if (only >= 0 && !with_redist) continue; /* PBLAS alone would leave the others waiting */
    struct mat ea = a, ec = c;
    memcpy(ea.desc, da, sizeof da), memcpy(ec.desc, dc, sizeof dc);
    int got[2] = {0, 0};
    for (int impl = 0; impl < 2; ++impl) {
      if (impl == 1 && only >= 0) {
        got[1] = me == only ? info : 0;
        continue;
      }
      last_info = 0;
      run(impl ? pblas : linked, &k, &ea, a.data, &ec, c.data);
      got[impl] = last_info;
    }
    const int want = only < 0 || me == only ? info : 0;
    long wrong = got[0] != want || got[1] != want;
    if (c.data) wrong += memcmp(c.data, c.initial, (size_t)c.lld * c.locc * size_of[t]) != 0;
    int shown[2] = {got[0], got[1]};
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, shown, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0 && only >= 0)
      printf("error %-28s INFO %6d on process %d only, expected %6d: %s\n", what, shown[0], only,
             info, wrong ? "FAILED" : "ok");
    else if (me == 0)
      printf("error %-28s INFO %6d, PBLAS's %6d, expected %6d: %s\n", what, shown[0], shown[1],
             info, wrong ? "FAILED" : "ok");
    bad += wrong;
  }
  free_mat(&a), free_mat(&c);
  Cblacs_gridexit(ctxt), Cblacs_gridexit(other);
  return bad;
}

int main(int argc, char** argv) {
  struct options o = {.cases = 11};
  const char* impl;
  void* lib;
  const int expected = start(argc, argv, &o, &impl, &lib);
  const int redist = strncmp(impl, "redist", 6) == 0;
  int found = lib != NULL;
  for (int t = 0; t < TYPES && found; ++t) {
    void* f[4];
    for (int r = 0; r < 4; ++r) found &= (f[r] = dlsym(lib, names[t][r])) != NULL;
    pblas[t].tran = (tran_fn)f[0], pblas[t].tranc = (tran_fn)f[1];
    pblas[t].geadd = (geadd_fn)f[2], pblas[t].tradd = (tradd_fn)f[3];
  }
  int status = 0;
  if (!expected) {
    status = 1;
  } else if (!found) {
    if (me == 0) printf("driver: FAILED: PBLAS's own routines not found\n");
    status = 1;
  } else if (o.errors) {
    const long bad = errors(redist);
    if (me == 0) printf("driver: errors: %s\n", bad ? "FAILED" : "all reported as PBLAS does");
    status = bad != 0;
  } else {
    long bad = 0;
    for (int c = 0; c < o.cases; ++c)
      for (int t = 0; t < TYPES; ++t)
        bad += one_case(t, c, c * TYPES + t, (c * 4 + t) % 11, o.verbose);
    if (me == 0)
      printf("driver: %d cases x 4 types: %s\n", o.cases, bad ? "FAILED" : "all elements right");
    for (int t = 0; t < TYPES; ++t) bad += no_collisions(t) + in_place(t, redist);
    status = bad != 0;
  }
  Cblacs_exit(0); /* MPI_Finalize */
  return status;
}
