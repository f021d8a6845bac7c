#!/usr/bin/env bash
# Developer check, not part of CI: compiles every public header of include/redist alone (one
# translation unit each, like the header tests) with nvcc, through Kokkos' nvcc_wrapper,
# against a CUDA-enabled Kokkos. Compile only: nothing runs, no GPU needed.
#
#   scripts/check-cuda-headers.sh                 (all headers)
#   scripts/check-cuda-headers.sh redist/plan/reference_plan.hpp (some)
#   scripts/check-cuda-headers.sh --examples      (all headers, then compile and link every
#                                                  examples/*.cpp, host placements, and one
#                                                  program with CudaSpace placements on both
#                                                  sides: templates instantiated)
# Env:
#   KOKKOS_CUDA_ROOT  a Kokkos >= 4 install with Kokkos_ENABLE_CUDA (/work/kokkos4-cuda)
#   BUILD_DIR         build directory (build-cuda-headers)
#   JOBS              parallel compiles (2)
# Prints one line per header (ok / FAILED) and a summary; the errors of a failed header are in
# $BUILD_DIR/logs/<target>.log (all of them in build.log). Needs Ninja. Exits non-zero if a
# header failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
kokkos=${KOKKOS_CUDA_ROOT:-/work/kokkos4-cuda}
build=${BUILD_DIR:-build-cuda-headers}
jobs=${JOBS:-2}

wrapper="$kokkos/bin/nvcc_wrapper"
if [ ! -x "$wrapper" ] || ! grep -qs '#define KOKKOS_ENABLE_CUDA' "$kokkos/include/KokkosCore_config.h"; then
  echo "check-cuda-headers: no CUDA Kokkos with nvcc_wrapper in $kokkos (KOKKOS_CUDA_ROOT)" >&2
  exit 2
fi
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null 2>&1 || { echo "check-cuda-headers: nvcc not found" >&2; exit 2; }

examples=()
if [ "${1:-}" = "--examples" ]; then
  shift
  mapfile -t examples < <(cd examples && find . -maxdepth 1 -name '*.cpp' | LC_ALL=C sort)
fi
if [ $# -gt 0 ]; then
  headers=("$@")
else
  mapfile -t headers < <(cd include && find redist -name '*.hpp' | LC_ALL=C sort)
fi

# A throw-away project: redist through add_subdirectory, one object library per header.
src="$build/project"
rm -rf "$src" "$build/logs"
mkdir -p "$src/tu" "$build/logs"
{
  echo "cmake_minimum_required(VERSION 3.20)"
  echo "project(redist-cuda-headers LANGUAGES CXX)"
  echo "set(REDIST_BUILD_TESTS OFF)"
  echo "set(REDIST_BUILD_EXAMPLES OFF)"
  echo "set(REDIST_BUILD_APPS OFF)"
  echo "set(REDIST_BUILD_BENCH OFF)"
  echo "set(REDIST_INSTALL OFF)"
  echo "add_subdirectory(\"$root\" redist)"
} >"$src/CMakeLists.txt"
targets=()
for h in "${headers[@]}"; do
  name=$(sed -e 's|\.hpp$||' -e 's|[/.]|-|g' <<<"$h")
  printf '#include <%s>\n#include <%s>\n' "$h" "$h" >"$src/tu/$name.cpp"
  echo "add_library($name OBJECT tu/$name.cpp)" >>"$src/CMakeLists.txt"
  echo "target_link_libraries($name PRIVATE redist::redist)" >>"$src/CMakeLists.txt"
  targets+=("$name")
done
if [ ${#examples[@]} -gt 0 ]; then
  # Device memory on both sides: the staged executor and the device copy kernel.
  cat >"$src/device_placements.cpp" <<'EOF'
#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/redist.hpp>

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace redist;
  const int np = world.size();
  const Layout src{Tiling{UniformAxis<>(1000, 64), UniformAxis<>(800, 64)}, BlockCyclic(1, np)};
  const Layout dst{Tiling{UniformAxis<>(900, 100), UniformAxis<>(900, 50)}, BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), TilePerAllocation<Kokkos::CudaSpace>> a(src, {},
                                                                            world.rank());
  TiledMatrix<double, decltype(dst), PackedTiles<Kokkos::CudaSpace>> b(dst, {}, world.rank());
  Redistributor move(a, b, world, Region{{500, 600}, {100, 50}, {300, 200}});
  move.redistribute();
  return 0;
}
EOF
  echo "add_executable(example-device_placements device_placements.cpp)" >>"$src/CMakeLists.txt"
  echo "target_link_libraries(example-device_placements PRIVATE redist::redist)" \
    >>"$src/CMakeLists.txt"
  examples+=(device_placements)
fi
for e in "${examples[@]}"; do
  [ "$e" = device_placements ] && continue
  name=example-$(basename "$e" .cpp)
  echo "add_executable($name \"$root/examples/${e#./}\")" >>"$src/CMakeLists.txt"
  echo "target_link_libraries($name PRIVATE redist::redist)" >>"$src/CMakeLists.txt"
done

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$wrapper" -DCMAKE_CXX_EXTENSIONS=OFF -DKokkos_ROOT="$kokkos" \
  >"$build/logs/configure.log" 2>&1 || {
  cat "$build/logs/configure.log" >&2
  echo "check-cuda-headers: configure failed (a build dir made with another generator?)" >&2
  exit 2
}
grep -E "^-- redist: Kokkos " "$build/logs/configure.log" || true

# All headers in one Ninja run that keeps going past failures; every object is rebuilt.
find "$build/CMakeFiles" -name '*.cpp.o' -delete
rm -f "$build"/example-*
start=$SECONDS
cmake --build "$build" --parallel "$jobs" -- -k 0 >"$build/logs/build.log" 2>&1 || true
ok=0
failed=0
for i in "${!headers[@]}"; do
  t=${targets[$i]}
  if [ -f "$build/CMakeFiles/$t.dir/tu/$t.cpp.o" ]; then
    echo "ok      ${headers[$i]}"
    ok=$((ok + 1))
  else
    # Ninja prints a failed command's output in one block after its "FAILED:" line.
    awk -v obj="CMakeFiles/$t.dir/" '
      /^FAILED: / { inside = index($0, obj) > 0 }
      /^\[[0-9]+\/[0-9]+\] / { inside = 0 }
      inside' "$build/logs/build.log" >"$build/logs/$t.log"
    first=$(awk '/error|undefined reference/ && !/collect2/ { print; exit }' "$build/logs/$t.log")
    echo "FAILED  ${headers[$i]}: ${first:-see $build/logs/$t.log}"
    failed=$((failed + 1))
  fi
done
for e in "${examples[@]}"; do
  t=example-$(basename "$e" .cpp)
  label=examples/${e#./}
  [ "$e" = device_placements ] && label="device placements ($src/device_placements.cpp)"
  if [ -x "$build/$t" ]; then
    echo "ok      $label (compiled and linked)"
    ok=$((ok + 1))
  else
    awk -v obj="$t" '
      /^FAILED: / { inside = index($0, obj) > 0 }
      /^\[[0-9]+\/[0-9]+\] / { inside = 0 }
      inside' "$build/logs/build.log" >"$build/logs/$t.log"
    first=$(awk '/error|undefined reference/ && !/collect2/ { print; exit }' "$build/logs/$t.log")
    echo "FAILED  $label: ${first:-see $build/logs/$t.log}"
    failed=$((failed + 1))
  fi
done
# Host-compiler warnings on redist's own headers; nvcc's "used but never defined" is a link
# error waiting for the first caller.
warnings=$(grep -E "^$root/include/redist/.*warning" "$build/logs/build.log" | sort -u || true)
if [ -n "$warnings" ]; then
  echo "check-cuda-headers: warnings in redist's headers:"
  echo "$warnings"
fi
echo "check-cuda-headers: $ok compiled, $failed failed in $((SECONDS - start)) s (nvcc $(nvcc --version |
  sed -n 's/.*release \([0-9.]*\).*/\1/p'), Kokkos in $kokkos)"
[ "$failed" -eq 0 ]
