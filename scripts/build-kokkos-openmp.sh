#!/usr/bin/env bash
# Builds an OpenMP (+ Serial) Kokkos from Debian's own trilinos source package: the same
# Kokkos 3.4 as libtrilinos-kokkos-dev, but standalone (packages/kokkos of the trilinos tree
# is a plain Kokkos CMake project) and with the OpenMP backend. Prints the install prefix
# on its last line; pass it to redist as -DKokkos_ROOT=<prefix>.
#
# Env:
#   KOKKOS_OPENMP_PREFIX  install prefix          (/var/cache/redist/kokkos-openmp)
#   KOKKOS_OPENMP_CACHE   source and build cache  (/var/cache/redist/kokkos-openmp-src)
#   KOKKOS_OPENMP_JOBS    build jobs              (nproc)
# Skips everything when the prefix holds a finished install. Downloads 166 MB (once, kept in
# the cache); the build itself is under a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${KOKKOS_OPENMP_PREFIX:-/var/cache/redist/kokkos-openmp}
cache=${KOKKOS_OPENMP_CACHE:-/var/cache/redist/kokkos-openmp-src}
jobs=${KOKKOS_OPENMP_JOBS:-$(nproc)}
stamp="$prefix/.redist-kokkos-openmp-done"

if [ -f "$stamp" ]; then
  echo "kokkos-openmp: cached ($(cat "$stamp"))"
  echo "$prefix"
  exit 0
fi
start=$SECONDS

scripts/setup.sh --kokkos-openmp  # cmake, g++, dpkg-dev

# --- the source package ---------------------------------------------------------------------
# The same version as the installed Serial Kokkos, so both legs test one Kokkos release.
version=$(dpkg-query -W -f='${source:Version}' libtrilinos-kokkos-dev 2>/dev/null || true)
want=trilinos${version:+=$version}

sources=$(apt-cache showsrc trilinos 2>/dev/null || true)
if ! grep -q '^Package: trilinos' <<<"$sources"; then
  # Debian 12 lists its archive in deb822 form without deb-src. The deb-src twins come from
  # the machine's own deb entries (its mirror, proxy and keyring), in a file of our own,
  # leaving the system's lists untouched.
  echo "kokkos-openmp: no source package trilinos; adding deb-src entries"
  scripts/apt-deb-src.sh
fi

mkdir -p "$cache"
dsc=$(ls "$cache"/trilinos_*.dsc 2>/dev/null | head -n 1 || true)
if [ -z "$dsc" ]; then
  echo "kokkos-openmp: downloading the source of $want"
  # Download only: no build dependencies, no unpacking of the whole trilinos tree.
  (cd "$cache" && apt-get source --download-only "$want")
  dsc=$(ls "$cache"/trilinos_*.dsc | head -n 1)
fi

# --- unpack packages/kokkos only --------------------------------------------------------------
# dpkg-source -x would unpack all of trilinos (about 1 GB) to patch it; Kokkos is a few MB of
# it. So: tar extracts packages/kokkos alone and the Debian patches that touch only
# packages/kokkos are applied to it (in 13.2.0-4: fix_kokkos_test_declarations.patch, test
# declarations only). A patch that touches Kokkos and something else stops the script.
src="$cache/kokkos"
if [ ! -f "$src/.redist-unpacked" ]; then
  orig=$(ls "$cache"/trilinos_*.orig.tar.* | head -n 1)
  debian=$(ls "$cache"/trilinos_*.debian.tar.* | head -n 1)
  rm -rf "$cache/unpack" "$src"
  mkdir -p "$cache/unpack"
  echo "kokkos-openmp: unpacking packages/kokkos from $(basename "$orig")"
  tar -xf "$orig" -C "$cache/unpack" --wildcards '*/packages/kokkos/*'
  mv "$cache"/unpack/*/packages/kokkos "$src"
  tar -xf "$debian" -C "$cache/unpack" debian/patches
  while read -r patch; do
    patch=${patch%%#*}
    patch=${patch%% *}
    [ -n "$patch" ] || continue
    file="$cache/unpack/debian/patches/$patch"
    targets=$(grep -E '^\+\+\+ ' "$file" | awk '{print $2}' | sed -E 's|^b/||')
    kokkos=$(grep -c '^packages/kokkos/' <<<"$targets" || true)
    total=$(grep -c . <<<"$targets" || true)
    if [ "$kokkos" -eq 0 ]; then
      continue
    elif [ "$kokkos" -ne "$total" ]; then
      echo "kokkos-openmp: Debian patch $patch touches packages/kokkos and more" >&2
      exit 1
    fi
    echo "kokkos-openmp: applying Debian patch $patch"
    patch -d "$src" -p3 --forward --quiet <"$file"
  done <"$cache/unpack/debian/patches/series"
  rm -rf "$cache/unpack"
  touch "$src/.redist-unpacked"
fi

# --- configure, build, install ----------------------------------------------------------------
build="$cache/build"
partial="$prefix/.redist-kokkos-openmp-partial"
# The prefix is ours alone: never wipe a directory that another install put there.
if [ -d "$prefix" ] && [ -n "$(ls -A "$prefix")" ] && [ ! -f "$partial" ]; then
  echo "kokkos-openmp: $prefix is not empty and not ours; set KOKKOS_OPENMP_PREFIX" >&2
  exit 1
fi
rm -rf "$build" "$prefix"
mkdir -p "$prefix"
touch "$partial"
generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
# The library in C++17 (Debian's is C++14); redist compiles Kokkos' headers as C++20 either way.
cmake -S "$src" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_CXX_STANDARD=17 \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DBUILD_SHARED_LIBS=ON \
  -DKokkos_ENABLE_OPENMP=ON \
  -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ENABLE_TESTS=OFF \
  -DKokkos_ENABLE_EXAMPLES=OFF
cmake --build "$build" --parallel "$jobs"
cmake --install "$build"
rm -rf "$build" "$partial"

kversion=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' \
  "$prefix"/lib*/cmake/Kokkos/KokkosConfigVersion.cmake | head -n 1)
echo "Kokkos ${kversion:-?} (OpenMP, Serial) from $(basename "$dsc" .dsc), built in" \
  "$((SECONDS - start)) s" >"$stamp"
echo "kokkos-openmp: $(cat "$stamp")"
echo "$prefix"
