/* The drop-in benchmark: one unmodified ScaLAPACK program that times pdgemr2d on the
 * standard cases a-d of bench/README.md and on 1x1 and 2x2 blocks. The build links it
 * twice: to ScaLAPACK only (redist-dropin-ref: ScaLAPACK's pdgemr2d) and with
 * libredist_scalapack ahead of ScaLAPACK (redist-dropin: redist under the same name).
 * Nothing in the source knows which one it runs; redist_scalapack_version, looked up at
 * run time, only labels the output.
 *
 * Per case (R = number of processes; "1xR -> Rx1" are the BLACS grids of A and B, made
 * with Cblacs_gridinit "Row", ICTXT a 1 x R grid): A holds f(i, j) = i * N + j, B the
 * sentinel -1; the first call is timed alone (redist plans there), then --repeat calls,
 * each between barriers, time = max over processes; then every element of B is checked.
 * A tiny call before the cases takes the one-time start-up (redist initializes Kokkos).
 *
 * Usage: redist-dropin [--repeat N] [--json FILE] [--quick] [--case PREFIX] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* val);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int error_code);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void Cpdgemr2d(int m, int n, double* A, int ia, int ja, int* desca, double* B, int ib, int jb,
               int* descb, int ictxt);

struct bench_case {
  const char* name;
  const char* what;
  int M, N, mba, nba, a_rows, mbb, nbb, b_rows; /* a_rows: A's grid is R x 1 (else 1 x R) */
};

/* clang-format off */
static const struct bench_case cases[] = {
  /* name          what                                   M     N     A blocks   A grid  B blocks  B grid */
  {"a",           "8192^2, 256^2 1xR -> 100^2 Rx1",       8192, 8192, 256, 256,  0,      100, 100, 1},
  {"b",           "8192^2, 64^2 Rx1 -> 64^2 1xR",         8192, 8192, 64, 64,    1,      64, 64,   0},
  {"c",           "8192^2, 1024^2 Rx1 -> 32^2 Rx1",       8192, 8192, 1024, 1024, 1,     32, 32,   1},
  {"d",           "4000x6000, 128x96 Rx1 -> 100x70 1xR",  4000, 6000, 128, 96,   1,      100, 70,  0},
  {"small-1x1",   "2000^2, 1x1 1xR -> 1x1 Rx1",           2000, 2000, 1, 1,      0,      1, 1,     1},
  {"small-2x2",   "2000^2, 2x2 1xR -> 2x2 Rx1",           2000, 2000, 2, 2,      0,      2, 2,     1},
};
/* clang-format on */

static int me, np;

static int compare(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

struct local {
  int ctxt, myrow, mycol, P, Q, locr, locc, desc[9];
  double* data;
};

static void make(struct local* l, int M, int N, int mb, int nb, int rows) {
  l->P = rows ? np : 1, l->Q = rows ? 1 : np;
  Cblacs_get(-1, 0, &l->ctxt);
  Cblacs_gridinit(&l->ctxt, "Row", l->P, l->Q);
  int P, Q;
  Cblacs_gridinfo(l->ctxt, &P, &Q, &l->myrow, &l->mycol);
  const int zero = 0;
  l->locr = numroc_(&M, &mb, &l->myrow, &zero, &l->P);
  l->locc = numroc_(&N, &nb, &l->mycol, &zero, &l->Q);
  const int lld = l->locr > 1 ? l->locr : 1;
  const int d[9] = {1, l->ctxt, M, N, mb, nb, 0, 0, lld};
  memcpy(l->desc, d, sizeof d);
  const size_t n = (size_t)lld * l->locc;
  l->data = n ? malloc(n * sizeof(double)) : NULL;
}

static long global_of(int k, int nb, int p, int P) {
  return ((long)(k / nb) * P + p) * nb + k % nb;
}

static void fill(struct local* l, int N, int fill_f) {
  for (int k = 0; k < l->locc; ++k)
    for (int i = 0; i < l->locr; ++i) {
      const long gi = global_of(i, l->desc[4], l->myrow, l->P);
      const long gj = global_of(k, l->desc[5], l->mycol, l->Q);
      l->data[(size_t)k * l->desc[8] + i] = fill_f ? (double)(gi * N + gj) : -1.0;
    }
}

static long mismatches(const struct local* l, int N) {
  long bad = 0;
  for (int k = 0; k < l->locc; ++k)
    for (int i = 0; i < l->locr; ++i) {
      const long gi = global_of(i, l->desc[4], l->myrow, l->P);
      const long gj = global_of(k, l->desc[5], l->mycol, l->Q);
      bad += l->data[(size_t)k * l->desc[8] + i] != (double)(gi * N + gj);
    }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}

static double timed(int M, int N, struct local* a, struct local* b, int ictxt) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  Cpdgemr2d(M, N, a->data, 1, 1, a->desc, b->data, 1, 1, b->desc, ictxt);
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

static void loadavg(char* out, size_t n) {
  FILE* f = fopen("/proc/loadavg", "r");
  out[0] = 0;
  if (f) {
    if (fgets(out, (int)n, f)) out[strcspn(out, " ")] = 0;
    fclose(f);
  }
}

int main(int argc, char** argv) {
  int repeat = 10, quick = 0;
  const char* json = NULL;
  const char* only = NULL;
  for (int k = 1; k < argc; ++k) {
    if (!strcmp(argv[k], "--repeat") && k + 1 < argc)
      repeat = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--json") && k + 1 < argc)
      json = argv[++k];
    else if (!strcmp(argv[k], "--case") && k + 1 < argc)
      only = argv[++k];
    else if (!strcmp(argv[k], "--quick"))
      quick = 1;
  }
  if (repeat < 1) repeat = 1;
  Cblacs_pinfo(&me, &np);
  const char* (*version)(void) =
      (const char* (*)(void))dlsym(RTLD_DEFAULT, "redist_scalapack_version");
  const char* impl = version ? version() : "scalapack";
  int ictxt;
  Cblacs_get(-1, 0, &ictxt);
  Cblacs_gridinit(&ictxt, "Row", 1, np);

  /* Start-up: the first call of the process (redist initializes Kokkos here). */
  struct local a, b;
  make(&a, 4, 4, 2, 2, 0), make(&b, 4, 4, 2, 2, 1);
  if (a.data) fill(&a, 4, 1);
  const double startup = timed(4, 4, &a, &b, ictxt);
  free(a.data), free(b.data);
  Cblacs_gridexit(a.ctxt), Cblacs_gridexit(b.ctxt);

  char load_start[32], load_end[32];
  loadavg(load_start, sizeof load_start);
  FILE* out = json && me == 0 ? fopen(json, "w") : NULL;
  if (out)
    fprintf(out,
            "{\n  \"suite\": \"dropin\",\n  \"implementation\": \"%s\",\n  \"ranks\": %d,\n"
            "  \"repeat\": %d,\n  \"quick\": %s,\n  \"startup_seconds\": %.6g,\n"
            "  \"loadavg_start\": %s,\n  \"cases\": [",
            impl, np, repeat, quick ? "true" : "false", startup, load_start);
  if (me == 0)
    printf("dropin: %s, %d processes, start-up %.4f s\n%-10s %-38s %10s %10s %10s %s\n", impl, np,
           startup, "case", "what", "first s", "median s", "best s", "check");
  long total_bad = 0;
  int written = 0;
  double* times = malloc(sizeof(double) * repeat);
  double* sorted = malloc(sizeof(double) * repeat);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const struct bench_case* bc = &cases[c];
    if (only && strncmp(bc->name, only, strlen(only)) != 0) continue;
    const int M = quick ? bc->M / 8 : bc->M, N = quick ? bc->N / 8 : bc->N;
    make(&a, M, N, bc->mba, bc->nba, bc->a_rows);
    make(&b, M, N, bc->mbb, bc->nbb, bc->b_rows);
    if (a.data) fill(&a, N, 1);
    if (b.data) fill(&b, N, 0);
    const double first = timed(M, N, &a, &b, ictxt);
    for (int r = 0; r < repeat; ++r) times[r] = timed(M, N, &a, &b, ictxt);
    const long bad = mismatches(&b, N);
    total_bad += bad;
    memcpy(sorted, times, sizeof(double) * repeat);
    qsort(sorted, (size_t)repeat, sizeof(double), compare);
    const double median =
        repeat % 2 ? sorted[repeat / 2] : 0.5 * (sorted[repeat / 2 - 1] + sorted[repeat / 2]);
    if (me == 0)
      printf("%-10s %-38s %10.4f %10.4f %10.4f %s\n", bc->name, bc->what, first, median, sorted[0],
             bad ? "WRONG" : "ok");
    if (out) {
      fprintf(out,
              "%s\n    {\"name\": \"%s\", \"what\": \"%s\", \"m\": %d, \"n\": %d, "
              "\"first_seconds\": %.6g, \"median_seconds\": %.6g, \"best_seconds\": %.6g, "
              "\"mismatches\": %ld, \"times\": [",
              written++ ? "," : "", bc->name, bc->what, M, N, first, median, sorted[0], bad);
      for (int r = 0; r < repeat; ++r) fprintf(out, "%s%.6g", r ? ", " : "", times[r]);
      fprintf(out, "]}");
    }
    free(a.data), free(b.data);
    Cblacs_gridexit(a.ctxt), Cblacs_gridexit(b.ctxt);
  }
  loadavg(load_end, sizeof load_end);
  if (out) {
    fprintf(out, "\n  ],\n  \"loadavg_end\": %s\n}\n", load_end);
    fclose(out);
  }
  free(times), free(sorted);
  Cblacs_gridexit(ictxt);
  Cblacs_exit(0);
  return total_bad != 0;
}
