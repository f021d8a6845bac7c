#!/usr/bin/env bash
# Regenerates docs/images/transform.png (docs/transform.md) from the library itself: a small
# program plans, on every rank of a virtual 2-rank communicator, a transposed move and a
# lower-triangle move (make_plan with the transposed source layout and a Triangle),
# marks each target element with the rank it comes from, and gnuplot draws the maps.
#
#   docs/images/make_transform.sh          (from anywhere; needs g++ and gnuplot)
#
# Environment: CXX (default g++), KOKKOS_INCLUDE (default /usr/include/trilinos).
set -euo pipefail
# shellcheck source=maps_common.sh
source "$(dirname "$0")/maps_common.sh"

cat >"$work/maps.cpp" <<'CPP'
// Prints maps, one file per panel: -1 where nothing lands, else the source rank.
#include <cstdio>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/triangle_mask.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/transform.hpp>

using namespace redist;
using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
using L = Layout<Shape, BlockCyclic>;
using Map = std::vector<std::vector<int>>;

void write(const char* file, const Map& m) {
  FILE* f = std::fopen(file, "w");
  for (const auto& row : m) {
    for (int v : row) std::fprintf(f, "%d ", v);
    std::fprintf(f, "\n");
  }
  std::fclose(f);
}

// Every target element the plans of ranks 0, 1 write, with the rank it comes from.
template <class S>
Map landed(const S& src, const L& dst, const Region& r, const Triangle& tri) {
  const Extents e = dst.extents();
  Map m(static_cast<std::size_t>(e.rows), std::vector<int>(static_cast<std::size_t>(e.cols), -1));
  for (int rank = 0; rank < 2; ++rank) {
    const Plan p = make_plan(src, dst, r, rank, 2, {}, tri);
    for (const FamilyList* d : {&p.recv, &p.local})
      for (const Message& msg : d->messages)
        for (index_t f = msg.first; f < msg.first + msg.count; ++f) {
          const BlockFamily& fam = d->families[static_cast<std::size_t>(f)];
          for_each_segment(p.rows(fam), p.cols(fam), 0, [&](const Piece& a, const Piece& b, index_t) {
            for (index_t x = 0; x < a.length; ++x)
              for (index_t y = 0; y < b.length; ++y)
                m[static_cast<std::size_t>(dst.shape().rows().begin(a.dst_tile) + a.dst_offset + x)]
                 [static_cast<std::size_t>(dst.shape().cols().begin(b.dst_tile) + b.dst_offset + y)] =
                    d == &p.local ? rank : msg.peer;
          });
        }
  }
  return m;
}

int main() {
  const L src{Shape{UniformAxis<>(12, 4), UniformAxis<>(16, 3)}, BlockCyclic(1, 2)};
  Map a(12, std::vector<int>(16));
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 0; j < 16; ++j)
      a[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
          src.owner({src.shape().rows().tile_of(i), src.shape().cols().tile_of(j)});
  write("src.dat", a);
  // The 10 x 13 region at (1, 2) of A lands transposed, 13 x 10, at (2, 1) of B.
  const L dst{Shape{UniformAxis<>(16, 5), UniformAxis<>(12, 5)}, BlockCyclic(2, 1)};
  const Region r{{10, 13}, {1, 2}, {2, 1}};
  write("transposed.dat", landed(transposed(src), dst, transposed(r), Triangle{}));
  // The same region, not transposed, lower trapezoid with the unit diagonal left out.
  const L dst2{Shape{UniformAxis<>(12, 5), UniformAxis<>(16, 5)}, BlockCyclic(2, 1)};
  const Region r2{{10, 13}, {1, 2}, {1, 2}};
  write("lower.dat", landed(src, dst2, r2, Triangle{Uplo::lower, Diag::unit}));
}
CPP
run_maps
{
  echo 'set terminal pngcairo size 1500,620 font "Sans,12" noenhanced'
  echo 'set output "transform.png"'
  map_style
  cat <<'GP'
set palette defined (-1 "white", -0.5 "white", -0.5 "#a6cee3", 0.5 "#a6cee3", 0.5 "#e31a1c", 1.5 "#e31a1c")
set cbrange [-1:1.5]
set multiplot layout 1,3 title "Source rank of each element (light blue 0, red 1); white: not written; lines: tile boundaries" margins 0.03,0.98,0.05,0.8 spacing 0.06
set title "source A 12 x 16, tiles 4 x 3 on a 1 x 2 grid\nregion 10 x 13 at (1, 2) (box)"
set xrange [-0.5:15.5]; set yrange [11.5:-0.5]
set xtics -0.5,3 format ""; set ytics -0.5,4 format ""
set grid front xtics ytics lt 1 lw 1 lc rgb "black"
set object 1 rect from 1.5,0.5 to 14.5,10.5 front fs empty border lc rgb "black" lw 3
plot "src.dat" matrix with image
unset object 1
set title "op = transpose: B 16 x 12, tiles 5 x 5 on 2 x 1\nA's region lands 13 x 10 at (2, 1)"
set xrange [-0.5:11.5]; set yrange [15.5:-0.5]
set xtics -0.5,5 format ""; set ytics -0.5,5 format ""
plot "transposed.dat" matrix with image
set title "uplo = lower, diag = unit: B 12 x 16, tiles 5 x 5\nonly the kept elements travel"
set xrange [-0.5:15.5]; set yrange [11.5:-0.5]
plot "lower.dat" matrix with image
unset multiplot
GP
} >"$work/plot.gp"
(cd "$work" && gnuplot plot.gp)
cp "$work/transform.png" "$out/transform.png"
echo "wrote $out/transform.png"
