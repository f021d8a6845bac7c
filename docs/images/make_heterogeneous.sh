#!/usr/bin/env bash
# Regenerates the owner-map pictures of docs/heterogeneous.md from the library itself:
# builds a small program against include/ that prints the maps (one matrix of owners per
# panel, -1 where a panel shows nothing), then plots them with gnuplot.
#
#   docs/images/make_heterogeneous.sh          (from anywhere; needs g++ and gnuplot)
#
# Environment: CXX (default g++), KOKKOS_INCLUDE (default /usr/include/trilinos, Debian's
# Kokkos: only headers are used).
set -euo pipefail
# shellcheck source=maps_common.sh
source "$(dirname "$0")/maps_common.sh"

cat >"$work/maps.cpp" <<'CPP'
// Prints owner maps, one panel per block: a title line "# title", then the matrix.
#include <cstdio>
#include <functional>
#include <string>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/heterogeneous.hpp>
#include <redist/layout.hpp>
#include <redist/placements/multi_device.hpp>
#include <redist/synthesize.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

using namespace redist;
using Shape = Tiling<UniformAxis<>, UniformAxis<>>;

void panel(const char* file, index_t rows, index_t cols, const std::function<int(TileIndex)>& f) {
  std::FILE* o = std::fopen(file, "w");
  for (index_t m = 0; m < rows; ++m) {
    for (index_t n = 0; n < cols; ++n) std::fprintf(o, "%d ", f({m, n}));
    std::fprintf(o, "\n");
  }
  std::fclose(o);
}

int main() {
  // The paper's ExaGeoStat example (Nesi et al. 2023, section 4.4, Fig. 6): lower triangle
  // of 50 x 50 tiles, nodes 0, 1 CPU-only, 2, 3 with GPUs.
  const Layout fact{Shape{UniformAxis<>(50, 1), UniformAxis<>(50, 1)},
                    HeterogeneousGrid(2, 2, {8, 8, 89, 90}, {50, 50})};
  const TileMask lower{fact.all_tiles(), TileTriangle::lower};
  const OwnerTable gen = synthesize(fact, {318, 319, 319, 319}, lower);
  const BlockCyclic bc(2, 2, 1, 1, {1, 1}, GridOrder::column_major);
  const auto tri = [&](auto&& d) {
    return [&, d](TileIndex t) { return lower.contains(t) ? static_cast<int>(d(t)) : -1; };
  };
  panel("phase_bc.dat", 50, 50, tri([&](TileIndex t) { return bc.owner(t); }));
  panel("phase_fact.dat", 50, 50, tri([&](TileIndex t) { return fact.owner(t); }));
  panel("phase_gen.dat", 50, 50, tri([&](TileIndex t) { return gen.owner(t); }));
  panel("phase_moved.dat", 50, 50, tri([&](TileIndex t) {
          return gen.owner(t) != fact.owner(t) ? gen.owner(t) : -1;
        }));
  std::printf("moves: block-cyclic %lld, Algorithm 2 %lld\n",
              static_cast<long long>(tiles_moved(bc, fact.distribution(), lower)),
              static_cast<long long>(tiles_moved(gen, fact.distribution(), lower)));

  // The distributions on 24 x 24 tiles.
  const Heterogeneous1D rows(Axis::row, {1, 2, 3, 4}, {24, 24});
  const HeterogeneousGrid grid(2, 2, {1, 1, 4, 4}, {24, 24});
  const HeterogeneousGrid tail(2, 2, {1, 1, 4, 4}, {24, 24}, TailConstraint{6, {2, 3}});
  panel("layout_1d.dat", 24, 24, [&](TileIndex t) { return rows.owner(t); });
  panel("layout_1d1d.dat", 24, 24, [&](TileIndex t) { return grid.owner(t); });
  panel("layout_tail.dat", 24, 24, [&](TileIndex t) { return tail.owner(t); });

  // Devices of rank 0's tiles, 2 x 2 block-cyclic on 16 x 16 tiles (-1: other ranks).
  const Layout l{Shape{UniformAxis<>(16, 1), UniformAxis<>(16, 1)}, BlockCyclic(2, 2)};
  const auto devices = [&](const char* file, const MultiDevice<>& d) {
    const auto tiles = d.assign(l, 0);
    panel(file, 16, 16, [&](TileIndex t) {
      for (const auto& [u, g] : tiles)
        if (u == t) return g;
      return -1;
    });
  };
  devices("dev_row.dat", MultiDevice<>::row_cyclic(4));
  devices("dev_two.dat", MultiDevice<>::two_level(2, 2, 2, 2));
  devices("dev_random.dat", MultiDevice<>::random(4, 1));
  devices("dev_load.dat", MultiDevice<>::load_based(4, 1 / 1.2));
}
CPP

run_maps

{
  echo 'set terminal pngcairo size 1500,520 font "Sans,12" noenhanced'
  map_style
  cat <<'GP'
# -1 white, ranks (or devices) 0..3: light blue, blue, orange, red.
set palette defined (-1 "white", -0.5 "white", -0.5 "#a6cee3", 0.5 "#a6cee3", 0.5 "#1f78b4", \
                     1.5 "#1f78b4", 1.5 "#fdbf6f", 2.5 "#fdbf6f", 2.5 "#e31a1c", 3.5 "#e31a1c")
set cbrange [-1:3.5]
# @row: one multiplot of the n panels F[k] (matrix files) titled T[k], under `title`.
n = 0
array F[4]
array T[4]
row = "set multiplot layout 1,n title title; do for [k=1:n] { set title T[k]; plot F[k] matrix with image }; unset multiplot"

set output "phases.png"
set xrange [-0.5:49.5]; set yrange [49.5:-0.5]
n = 3
F[1] = "phase_bc.dat";   T[1] = "generation, independent 2x2 block-cyclic\n(890 tiles move to the factorization)"
F[2] = "phase_fact.dat"; T[2] = "factorization, 1D-1D, powers 8 8 89 90\n(60 60 565 590 tiles)"
F[3] = "phase_gen.dat";  T[3] = "generation, Algorithm 2, 318 319 319 319 tiles\n(517 tiles move: the lower bound)"
title = "Lower triangle of 50 x 50 tiles; ranks 0, 1 (blue) CPU-only, 2, 3 (orange, red) with GPUs"
@row

set output "layouts.png"
set xrange [-0.5:23.5]; set yrange [23.5:-0.5]
F[1] = "layout_1d.dat";   T[1] = "Heterogeneous1D rows, powers 1 2 3 4"
F[2] = "layout_1d1d.dat"; T[2] = "HeterogeneousGrid (1D-1D) 2x2, powers 1 1 4 4"
F[3] = "layout_tail.dat"; T[3] = "... constrained: last 6 rows and columns on ranks 2, 3"
title = "24 x 24 tiles, 4 ranks (light blue 0, blue 1, orange 2, red 3)"
@row

set terminal pngcairo size 1600,470 font "Sans,12" noenhanced
set output "devices.png"
set xrange [-0.5:15.5]; set yrange [15.5:-0.5]
n = 4
F[1] = "dev_row.dat";    T[1] = "row_cyclic(4): m mod 4\n(rank 0 has even m: devices 0, 2 only)"
F[2] = "dev_two.dat";    T[2] = "two_level(2, 2, 2, 2)"
F[3] = "dev_random.dat"; T[3] = "random(4, seed 1)"
F[4] = "dev_load.dat";   T[4] = "load_based(4, skew 1/1.2)"
title = "Devices of rank 0's tiles (2 x 2 block-cyclic, 16 x 16 tiles; white: other ranks)"
@row
GP
} >"$work/plot.gp"
(cd "$work" && gnuplot plot.gp)
cp "$work/phases.png" "$out/heterogeneous_phases.png"
cp "$work/layouts.png" "$out/heterogeneous_layouts.png"
cp "$work/devices.png" "$out/multi_device.png"
echo "wrote $out/heterogeneous_phases.png, heterogeneous_layouts.png, multi_device.png"
