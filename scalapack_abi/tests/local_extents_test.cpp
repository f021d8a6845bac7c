// scalapack::local_extents and scalapack::numroc against ScaLAPACK's own NUMROC, over a whole
// domain of extents, block sizes, grids (row-major, column-major, mapped), first process and rank.
// One process, no MPI: NUMROC is pure.
#include <cstdio>
#include <vector>

#include <redist/scalapack/layout.hpp>

extern "C" int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc,
                       const int* nprocs);

int main() {
  namespace sp = redist::scalapack;
  long checked = 0, bad = 0;
  for (int P = 1; P <= 4; ++P)
    for (int Q = 1; Q <= 3; ++Q)
      for (int order = 0; order < 3; ++order) {
        sp::Grid g{P, Q, order == 1};
        if (order == 2) {  // a Cblacs_gridmap-like map: ranks P*Q-1 .. 0, shifted by 2
          for (int k = 0; k < P * Q; ++k) g.ranks.push_back(P * Q - 1 - k + 2);
        }
        for (int M = 0; M <= 23; ++M)
          for (int MB = 1; MB <= 9; MB += 2)
            for (int rsrc = 0; rsrc < P; ++rsrc) {
              const int csrc = (rsrc + 1) % Q, N = 23 - M, NB = MB + 1;
              const sp::Descriptor d{1, 0, M, N, MB, NB, rsrc, csrc, 1};
              long rows = 0;
              for (int rank = 0; rank < P * Q + 3; ++rank) {
                const redist::Extents e = sp::local_extents(d, g, rank);
                int p = -1, q = -1;
                for (int gp = 0; gp < P; ++gp)
                  for (int gq = 0; gq < Q; ++gq)
                    if (g.rank_of({gp, gq}) == rank) p = gp, q = gq;
                const long want_r = p < 0 ? 0 : numroc_(&M, &MB, &p, &rsrc, &P);
                const long want_c = p < 0 ? 0 : numroc_(&N, &NB, &q, &csrc, &Q);
                ++checked;
                // The public numroc itself, which local_extents and the ABI library use.
                if (p >= 0 && (sp::numroc(M, MB, p, rsrc, P) != want_r ||
                               sp::numroc(N, NB, q, csrc, Q) != want_c)) {
                  if (++bad <= 10)
                    std::printf("numroc: M=%d N=%d MB=%d NB=%d at (%d,%d) differs from NUMROC\n", M,
                                N, MB, NB, p, q);
                }
                if (e.rows != want_r || e.cols != want_c) {
                  if (++bad <= 10)
                    std::printf(
                        "local_extents: M=%d N=%d MB=%d NB=%d src=(%d,%d) grid %dx%d "
                        "order %d rank %d: %lld x %lld, NUMROC %ld x %ld\n",
                        M, N, MB, NB, rsrc, csrc, P, Q, order, rank, static_cast<long long>(e.rows),
                        static_cast<long long>(e.cols), want_r, want_c);
                }
                if (q == 0) rows += e.rows;
              }
              if (rows != M) ++bad;  // grid column 0 holds every row once
            }
      }
  std::printf("local_extents: %ld cases, %ld wrong\n", checked, bad);
  return bad != 0;
}
