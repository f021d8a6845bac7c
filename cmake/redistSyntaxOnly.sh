#!/bin/sh
# Compiler launcher for REDIST_BENCH_CHECK_ONLY: runs the compile command for its errors only
# (-fsyntax-only: parsing and template instantiation, no optimisation or code generation) and
# leaves an empty object where the build expects one, so the check reruns only when a source
# or one of its headers (the depfile the compiler still writes) changes.
out=
prev=
for arg in "$@"; do
  [ "$prev" = "-o" ] && out=$arg
  prev=$arg
done
"$@" -fsyntax-only || exit
[ -z "$out" ] || : >"$out"
