/* What the C test drivers of libredist_scalapack share: their command line and start, a
 * random sequence that is the same on every process, BLACS grids of every shape up to the
 * process count, and ScaLAPACK's local-to-global index map. Each driver includes it once
 * (it needs _GNU_SOURCE before the first system header, for RTLD_DEFAULT). */
#ifndef REDIST_ABI_BLACS_TEST_H
#define REDIST_ABI_BLACS_TEST_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* val);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int error_code);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);

static int me, np;

/* Same sequence on every process (xorshift64*). */
static uint64_t rng_state;
static int rnd(int lo, int hi) { /* uniform in [lo, hi] */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return lo + (int)((rng_state * 2685821657736338717ull >> 33) % (uint64_t)(hi - lo + 1));
}

/* Global index of local index l (0-based), ScaLAPACK's INDXL2G. */
static inline long l2g(int l, int nb, int iproc, int isrc, int nprocs) {
  return ((long)(l / nb) * nprocs + (iproc - isrc + nprocs) % nprocs) * nb + l % nb;
}

/* A random grid of P x Q <= np processes: Cblacs_gridinit "Row" or "Col" over the first
 * P * Q processes, or Cblacs_gridmap over a random subset in random order. */
static int make_grid(int P, int Q) {
  int ctxt, kind = rnd(0, 2);
  Cblacs_get(-1, 0, &ctxt);
  if (kind < 2) {
    Cblacs_gridinit(&ctxt, kind == 0 ? "Row" : "Col", P, Q);
  } else {
    int perm[64], map[64];
    for (int r = 0; r < np; ++r) perm[r] = r;
    for (int r = np - 1; r > 0; --r) {
      int k = rnd(0, r), x = perm[r];
      perm[r] = perm[k], perm[k] = x;
    }
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q) map[q * P + p] = perm[p * Q + q]; /* column-major, ld P */
    Cblacs_gridmap(&ctxt, map, P, P, Q);
  }
  return ctxt;
}

/* Every grid shape of at most np processes. */
static int shapes[64][2], nshapes;

static void list_shapes(void) {
  for (int P = 1; P <= np; ++P)
    for (int Q = 1; P * Q <= np; ++Q) shapes[nshapes][0] = P, shapes[nshapes++][1] = Q;
}

/* --cases N --seed S --expect redist|scalapack --verbose --errors --lenient */
struct options {
  int cases, verbose, errors, lenient;
  unsigned long long seed;
  const char* expect;
};

/* Reads the command line, starts the BLACS (and MPI), seeds the sequence, lists the grid
 * shapes and says whose routines are linked ("redist_scalapack <version>" or "scalapack");
 * *lib is the ScaLAPACK library, for its own routines (NULL if not loaded). Returns 0 when
 * the linked implementation is not the one --expect names. */
static int start(int argc, char** argv, struct options* o, const char** impl, void** lib) {
  o->verbose = o->errors = o->lenient = 0, o->seed = 12345, o->expect = NULL;
  for (int k = 1; k < argc; ++k) {
    if (!strcmp(argv[k], "--cases") && k + 1 < argc)
      o->cases = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--seed") && k + 1 < argc)
      o->seed = strtoull(argv[++k], NULL, 10);
    else if (!strcmp(argv[k], "--expect") && k + 1 < argc)
      o->expect = argv[++k];
    else if (!strcmp(argv[k], "--verbose"))
      o->verbose = 1;
    else if (!strcmp(argv[k], "--errors"))
      o->errors = 1;
    else if (!strcmp(argv[k], "--lenient"))
      o->lenient = 1;
  }
  Cblacs_pinfo(&me, &np);
  list_shapes();
  rng_state = o->seed * 0x9E3779B97F4A7C15ull + 1;
  const char* (*version)(void) =
      (const char* (*)(void))dlsym(RTLD_DEFAULT, "redist_scalapack_version");
  *impl = version ? version() : "scalapack";
  *lib = dlopen(REDIST_TEST_SCALAPACK_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (me == 0) printf("driver: %d processes, implementation: %s\n", np, *impl);
  if (o->expect && strncmp(*impl, o->expect, strlen(o->expect)) != 0) {
    if (me == 0) printf("driver: FAILED: expected the %s implementation\n", o->expect);
    return 0;
  }
  return 1;
}

#endif
