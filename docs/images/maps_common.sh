# Shared by the docs/images/make_*.sh scripts (sourced, not run): a scratch directory, the
# build and run of the script's maps.cpp against include/, and the gnuplot settings every
# owner-map panel uses.
#
# Environment: CXX (default g++), KOKKOS_INCLUDE (default /usr/include/trilinos, Debian's
# Kokkos: only headers are used).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/docs/images
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Builds $work/maps.cpp and runs it in $work (it writes the panels' data files there).
run_maps() {
  "${CXX:-g++}" -std=c++20 -O1 -I"$root/include" -isystem "${KOKKOS_INCLUDE:-/usr/include/trilinos}" \
    "$work/maps.cpp" -o "$work/maps"
  (cd "$work" && ./maps)
}

# Prints the gnuplot lines common to every panel: square cells, no key or colour box.
map_style() {
  cat <<'GP'
unset key; unset colorbox
set size ratio -1
set tics out nomirror scale 0.5
GP
}
