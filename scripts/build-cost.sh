#!/usr/bin/env bash
# What building redist costs, measured (docs/build-speed.md):
#   1. parse time of `#include <redist/redist.hpp>` against its dependencies alone
#      (Kokkos_Core.hpp + boost/mpi.hpp), medians of RUNS runs each, interleaved;
#   2. the slowest translation units of an existing build (its .ninja_log);
#   3. a user's program: examples/quickstart.cpp compiled alone with the build's flags
#      (median of RUNS), linking redist::engine (the compiled engine) as the build does;
#   4. with --fresh-clone: a fresh clone's scripts/main.sh and its scripts/test.sh build,
#      wall clock, the Debian packages already installed; then, in that clone, the rebuild
#      after touching include/redist/plan/grid_plan.hpp plus the MPI suite at 2 ranks.
#      ccache is off for all of it: a cache warmed by earlier builds would measure nothing.
# Writes bench/results/build-cost.json (RESULTS) and prints a table.
#   scripts/build-cost.sh [--fresh-clone]
# Env: BUILD_DIR (build: the compile flags come from its compile_commands.json), RUNS (7).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD_DIR:-build}
runs=${RUNS:-7}
results=${RESULTS:-bench/results}
fresh=0
[ "${1:-}" = "--fresh-clone" ] && fresh=1

[ -f "$build/compile_commands.json" ] || {
  echo "build-cost: no $build/compile_commands.json; configure first (scripts/build.sh)" >&2
  exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# compile_command FILE [KEEP_SOURCE]: the build's compile command of FILE (a path ending),
# without its output, dependency-file and precompiled-header arguments; without its source
# and -c too unless KEEP_SOURCE, which also writes to /dev/null.
compile_command() {
  python3 - "$build/compile_commands.json" "$1" "${2:-}" <<'EOF'
import json, shlex, sys
commands, file, keep = sys.argv[1], sys.argv[2], sys.argv[3] == "keep"
for e in json.load(open(commands)):
    if e["file"].endswith(file):
        out, skip = [], False
        for a in shlex.split(e["command"]):
            if skip: skip = False; continue
            if a in ("-o", "-MF", "-MT") or (a == "-c" and not keep): skip = True; continue
            if a == "-MD" or a.startswith("-include") or "cmake_pch" in a: continue
            if a.endswith(".cpp") and not keep: continue
            out.append(a)
        print(shlex.join(out + (["-o", "/dev/null"] if keep else []))); break
EOF
}
# The flags of one unit test, for parsing.
flags=$(compile_command tests/unit/test_index.cpp)
[ -n "$flags" ] || { echo "build-cost: tests/unit/test_index.cpp not in $build's compile commands" >&2; exit 2; }
printf '#include <Kokkos_Core.hpp>\n#include <boost/mpi.hpp>\n' >"$tmp/deps.cpp"
printf '#include <redist/redist.hpp>\n' >"$tmp/umbrella.cpp"

# The quickstart's own compile command (its flags say whether it links the compiled engine).
quickstart=$(compile_command examples/quickstart.cpp keep)

# Interleaved runs, so that a drift in the machine's speed hits both alike.
parse() { local t0 t1; t0=$(date +%s.%N); eval "$flags" -fsyntax-only "$1"; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
deps=()
umbrella=()
for _ in $(seq "$runs"); do
  deps+=("$(parse "$tmp/deps.cpp")")
  umbrella+=("$(parse "$tmp/umbrella.cpp")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
d=$(median "${deps[@]}")
u=$(median "${umbrella[@]}")
ratio=$(echo "scale=3; $u / $d" | bc)
q=null
if [ -n "$quickstart" ]; then
  qs=()
  for _ in $(seq "$runs"); do
    t0=$(date +%s.%N)
    (cd "$build" && CCACHE_DISABLE=1 eval "$quickstart")
    qs+=("$(echo "$(date +%s.%N) - $t0" | bc)")
  done
  q=$(median "${qs[@]}")
fi

main_s=null
test_s=null
touch_s=null
if [ "$fresh" = 1 ]; then
  clone="$tmp/clone"
  git clone -q "$root" "$clone"
  t0=$SECONDS
  (cd "$clone" && CCACHE_DISABLE=1 scripts/main.sh >"$tmp/main.log" 2>&1) || { tail -20 "$tmp/main.log"; exit 1; }
  main_s=$((SECONDS - t0))
  grep -q "verify   OK" "$tmp/main.log" || { echo "build-cost: the main job did not verify"; exit 1; } >&2
  t0=$SECONDS
  # As scripts/test.sh builds: the benchmarks checked, not built.
  (cd "$clone" && CCACHE_DISABLE=1 REDIST_SETUP_DONE=1 scripts/build.sh -DREDIST_BENCH_CHECK_ONLY=ON \
    >"$tmp/test.log" 2>&1) ||
    { tail -20 "$tmp/test.log"; exit 1; }
  test_s=$((SECONDS - t0))
  # A planner edit: rebuild what depends on it and rerun the MPI suite at 2 ranks.
  touch "$clone/include/redist/plan/grid_plan.hpp"
  t0=$SECONDS
  (cd "$clone" && CCACHE_DISABLE=1 cmake --build build --parallel "$(nproc)" >"$tmp/touch.log" 2>&1 &&
    ctest --test-dir build -R '^mpi-np2$' >>"$tmp/touch.log" 2>&1) ||
    { tail -20 "$tmp/touch.log"; exit 1; }
  touch_s=$((SECONDS - t0))
  # grep -c exits 1 when it counts none: no warnings must not end the script.
  warnings=$({ grep -cE 'warning:|note:' "$tmp/main.log" "$tmp/test.log" || true; } |
    awk -F: '{s+=$2} END{print s + 0}')
fi

# The slowest translation units of the last build in $build.
# .ninja_log appends a line per build of an output: keep each object's last.
slowest=$(awk 'NR > 1 && $4 ~ /\.o$/ { t[$4] = ($2 - $1) / 1000 }
  END { for (o in t) printf "%.1f %s\n", t[o], o }' "$build/.ninja_log" 2>/dev/null |
  sort -rn | head -n 8 || true)

mkdir -p "$results"
python3 - "$results/build-cost.json" "$d" "$u" "$ratio" "$runs" "$main_s" "$test_s" \
  "${warnings:-null}" "$slowest" "$q" "$touch_s" <<'EOF'
import json, sys, datetime, os
out, d, u, ratio, runs, main_s, test_s, warnings, slowest, q, touch_s = sys.argv[1:]
seconds = lambda v: None if v == "null" else float(v)
j = {
    "date": datetime.date.today().isoformat(),
    "cores": os.cpu_count(),
    "parse_seconds": {"dependencies": float(d), "redist_hpp": float(u), "ratio": float(ratio),
                      "runs": int(runs)},
    "fresh_clone_seconds": {"main_sh": seconds(main_s), "test_build": seconds(test_s),
                            "touch_grid_plan_rebuild_and_mpi_np2": seconds(touch_s)},
    "quickstart_compile_seconds": seconds(q),
    "warnings_and_notes": None if warnings == "null" else int(warnings),
    "slowest_units": [{"seconds": float(l.split()[0]), "object": l.split()[1]}
                      for l in slowest.splitlines() if l.strip()],
}
json.dump(j, open(out, "w"), indent=2)
EOF
echo "build-cost: parse, medians of $runs"
printf '  %-40s %6.2f s\n' "Kokkos_Core.hpp + boost/mpi.hpp" "$d" "redist/redist.hpp" "$u"
printf '  %-40s %6.2f x  (target <= 1.5)\n' "ratio" "$ratio"
[ "$q" = null ] || printf '  %-40s %6.2f s\n' "examples/quickstart.cpp compiled" "$q"
if [ "$fresh" = 1 ]; then
  printf '  %-40s %6d s  (target <= 180)\n' "fresh clone: scripts/main.sh" "$main_s"
  printf '  %-40s %6d s  (target <= 480)\n' "fresh clone: scripts/test.sh's build" "$test_s"
  printf '  %-40s %6d s  (target <= 240)\n' "touch grid_plan.hpp: rebuild + mpi-np2" "$touch_s"
  printf '  %-40s %6d\n' "warnings and notes in both" "$warnings"
fi
if [ -n "$slowest" ]; then
  echo "  slowest translation units of $build:"
  sed 's/^/    /' <<<"$slowest"
fi
echo "build-cost: wrote $results/build-cost.json"
