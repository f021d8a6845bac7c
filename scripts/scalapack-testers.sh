#!/usr/bin/env bash
# Runs ScaLAPACK's own redistribution testers, unchanged, against libredist_scalapack: the
# drivers of REDIST/TESTING (p?gemrdrv.c, p?trmrdrv.c) from Debian's scalapack source
# package, with their shipped GEMR2D.dat and TRMR2D.dat, for s, d, c, z and i, at 4 ranks.
# Each driver is built twice: against reference ScaLAPACK alone (Debian's
# libscalapack-openmpi) and with libredist_scalapack linked ahead of it. Every case of
# both is compared; the script fails only where redist fails a case that reference passes
# (exit 1; also when a driver cannot be built or runs no case; exit 2: the source package
# could not be downloaded). Last line:
#   scalapack-testers: N cases, reference F_ref failures, redist F failures, R where
#   reference passes (...)
#
# Env:
#   SCALAPACK_SRC_CACHE  where the source package is downloaded and unpacked, once
#                        (/var/cache/redist/scalapack-src)
#   SCALAPACK_SRC        an unpacked ScaLAPACK source tree to take REDIST/TESTING from
#                        instead (for a mirror that lacks Debian's source package)
#   BUILD_DIR            redist build directory that builds libredist_scalapack (build)
#   TESTERS_NP           ranks (4)
#   TESTERS_TYPES        types (s d c z i)
#   TESTERS_TIMEOUT      seconds one driver run may take before it counts as failed (300)
# Logs and binaries: $BUILD_DIR/scalapack-testers/.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

cache=${SCALAPACK_SRC_CACHE:-/var/cache/redist/scalapack-src}
build_dir=${BUILD_DIR:-build}
np=${TESTERS_NP:-4}
types=${TESTERS_TYPES:-s d c z i}
run_timeout=${TESTERS_TIMEOUT:-300}
work=$build_dir/scalapack-testers

# --- the testers' source ----------------------------------------------------------------------
if [ -n "${SCALAPACK_SRC:-}" ]; then
  testing=$SCALAPACK_SRC/REDIST/TESTING
  origin="$SCALAPACK_SRC"
else
  scripts/setup.sh --source-packages  # dpkg-dev for dpkg-source, xz-utils
  # The source of the installed ScaLAPACK, so both runs test the same release.
  version=$(dpkg-query -W -f='${source:Version}' libscalapack-openmpi-dev 2>/dev/null || true)
  want=scalapack${version:+=$version}
  mkdir -p "$cache"
  src=$(ls -d "$cache"/scalapack-*/ 2>/dev/null | head -n 1 || true)
  # The stamp names the release unpacked: another one installed is downloaded anew.
  if [ -z "$src" ] || [ "$(cat "$src/.redist-unpacked" 2>/dev/null)" != "$want" ]; then
    if ! grep -q '^Package: scalapack' <<<"$(apt-cache showsrc scalapack 2>/dev/null || true)"; then
      echo "scalapack-testers: no source package scalapack; adding deb-src entries"
      scripts/apt-deb-src.sh
    fi
    dsc=$cache/scalapack_${version#*:}.dsc
    if [ -z "$version" ] || [ ! -f "$dsc" ] || ! ls "$cache"/scalapack_*.orig.tar.* >/dev/null 2>&1; then
      rm -rf "$cache"/scalapack[-_]*
      echo "scalapack-testers: downloading the source of $want"
      if ! (cd "$cache" && apt-get source --download-only "$want"); then
        echo "scalapack-testers: apt-get source $want failed; set SCALAPACK_SRC to an" \
          "unpacked ScaLAPACK source tree to run the testers from it" >&2
        exit 2
      fi
      dsc=$(ls "$cache"/scalapack_*.dsc | head -n 1)
    fi
    rm -rf "$cache"/scalapack-*/
    # The whole tree (a few MB) with Debian's patches applied, as Debian builds it.
    (cd "$cache" && dpkg-source --no-check -x "$(basename "$dsc")")
    src=$(ls -d "$cache"/scalapack-*/ | head -n 1)
    echo "$want" >"$src/.redist-unpacked"
  fi
  testing=${src%/}/REDIST/TESTING
  origin="Debian's scalapack ${version:-source}"
fi
t_source=$((SECONDS - start))
for f in GEMR2D.dat TRMR2D.dat; do
  [ -f "$testing/$f" ] || {
    echo "scalapack-testers: $testing/$f missing" >&2
    exit 1
  }
done

# --- libredist_scalapack and the drivers ------------------------------------------------------
t0=$SECONDS
log=$(mktemp)
if ! BUILD_DIR=$build_dir BUILD_TARGETS=redist_scalapack scripts/build.sh >"$log" 2>&1; then
  cat "$log" >&2
  echo "scalapack-testers: building libredist_scalapack failed" >&2
  exit 1
fi
rm -f "$log"
t_lib=$((SECONDS - t0))
t0=$SECONDS
lib=$build_dir/scalapack_abi/libredist_scalapack.so
if [ ! -f "$lib" ]; then
  echo "scalapack-testers: no $lib (is REDIST_SCALAPACK_ABI off in $build_dir?)" >&2
  exit 1
fi
libdir=$(cd "$(dirname "$lib")" && pwd)
scalapack=$(sed -n 's/^REDIST_SCALAPACK_LIBRARY:FILEPATH=//p' "$build_dir/CMakeCache.txt")
[ -n "$scalapack" ] || scalapack=-lscalapack-openmpi

rm -rf "$work"
mkdir -p "$work"
cp "$testing/GEMR2D.dat" "$testing/TRMR2D.dat" "$work/"
programs=()
for t in $types; do
  for r in gemr trmr; do
    programs+=("x$t$r")
    # -DAdd_: the Fortran name mangling ScaLAPACK's own build defines for these files.
    mpicc -O2 -w -DAdd_ -I"$testing" -o "$work/x$t$r-ref" "$testing/p$t${r}drv.c" "$scalapack"
    # -Wl,--no-as-needed: libredist_scalapack is a dependency, and the first, even where
    # the linker would otherwise drop it, so its p?gemr2d wins.
    mpicc -O2 -w -DAdd_ -I"$testing" -o "$work/x$t$r-redist" "$testing/p$t${r}drv.c" \
      -Wl,--no-as-needed -L"$libdir" -Wl,-rpath,"$libdir" -lredist_scalapack "$scalapack"
    first=$(readelf -d "$work/x$t$r-redist" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
      grep -m 1 -E 'redist_scalapack|scalapack')
    case $first in
      libredist_scalapack*) ;;
      *)
        echo "scalapack-testers: x$t$r-redist needs $first before libredist_scalapack" >&2
        exit 1
        ;;
    esac
  done
done
t_drivers=$((SECONDS - t0))

# --- runs ---------------------------------------------------------------------------------------
mpiexec=(mpiexec -n "$np")
if mpiexec --version 2>&1 | grep -q -E 'Open MPI|OpenRTE'; then
  mpiexec+=(--oversubscribe)
  [ "$(id -u)" -ne 0 ] || mpiexec+=(--allow-run-as-root)
fi

# verdicts LOG: one line "K PASS" or "K FAIL" per case K of the driver's own count; a case
# without a verdict (the driver stopped or hung) is a FAIL.
verdicts() {
  awk '
    /\/\/\/\/\/\/\/\/\/\/ [0-9]+ tests/ { for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+$/) total = $i }
    /TEST # [0-9]+/ { match($0, /TEST # [0-9]+/); k = substr($0, RSTART + 7, RLENGTH - 7) + 0 }
    /TEST PASSED OK/ { if (k && !(k in v)) v[k] = "PASS" }
    /Total number of redistribution errors/ { if (k) v[k] = "FAIL" }
    END { for (k = 1; k <= total; ++k) print k, (k in v ? v[k] : "FAIL") }
  ' "$1"
}

t0=$SECONDS
cases=0 ref_failed=0 redist_failed=0 regressions=0 silent=0
for p in "${programs[@]}"; do
  for impl in ref redist; do
    rc=0
    (cd "$work" && OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive timeout "$run_timeout" \
      "${mpiexec[@]}" "./$p-$impl" >"$p-$impl.log" 2>&1) || rc=$?
    [ "$rc" -eq 0 ] || echo "scalapack-testers: $p-$impl exited with status $rc" >>"$work/$p-$impl.log"
    verdicts "$work/$p-$impl.log" >"$work/$p-$impl.verdicts"
  done
  # Case, reference's verdict, redist's: a case missing from one log failed there.
  join -a 1 -a 2 -e FAIL -o 0,1.2,2.2 <(sort -k1,1 "$work/$p-ref.verdicts") \
    <(sort -k1,1 "$work/$p-redist.verdicts") | sort -n >"$work/$p.verdicts"
  n=$(wc -l <"$work/$p.verdicts")
  if [ "$n" -eq 0 ]; then
    echo "scalapack-testers: $p ran no case (logs: $work/$p-ref.log, $work/$p-redist.log)" >&2
    silent=$((silent + 1))
    continue
  fi
  fr=$(awk '$2 == "FAIL"' "$work/$p.verdicts" | wc -l)
  fx=$(awk '$3 == "FAIL"' "$work/$p.verdicts" | wc -l)
  nw=$(awk '$2 == "PASS" && $3 == "FAIL"' "$work/$p.verdicts" | wc -l)
  worse=$(awk '$2 == "PASS" && $3 == "FAIL" && ++k <= 10 { printf "%s ", $1 }' "$work/$p.verdicts")
  [ "$nw" -le 10 ] || worse="$worse... "
  printf 'scalapack-testers: %-6s %4d cases, reference %d failed, redist %d failed%s\n' "$p" \
    "$n" "$fr" "$fx" \
    "$([ "$nw" -eq 0 ] || echo ", worse than reference in cases ${worse}(see $work/$p-redist.log)")"
  cases=$((cases + n))
  ref_failed=$((ref_failed + fr))
  redist_failed=$((redist_failed + fx))
  regressions=$((regressions + nw))
done

echo "scalapack-testers: $cases cases, reference $ref_failed failures, redist $redist_failed" \
  "failures, $regressions where reference passes ($types; gemr2d, trmr2d; $np ranks;" \
  "$origin; $((SECONDS - start)) s: source $t_source, libredist_scalapack $t_lib," \
  "drivers $t_drivers, runs $((SECONDS - t0)))$([ "$silent" -eq 0 ] ||
    echo "; $silent drivers ran no case")"
[ "$regressions" -eq 0 ] && [ "$silent" -eq 0 ]
