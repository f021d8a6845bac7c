#!/usr/bin/env bash
# Builds redist-bench (Release) and runs the standard suite on 2 ranks; writes
# bench/results/standard.json and the plots. Other suites: SUITES="standard categories ...".
#
# Suites with their own launch:
#   dropin   the unmodified C program bench/dropin/dropin.c, linked to ScaLAPACK only and
#            with libredist_scalapack first (dropin-ref.json, dropin-redist.json, dropin.json)
#   dropin-pblas  bench/pblas/run.sh: an unmodified Fortran program calling PBLAS's pdtran
#            and pdgeadd, as it is and with LD_PRELOAD=libredist_scalapack.so
#            (dropin-pblas.json)
#   network  runs over TCP: mpirun --mca pml ob1 --mca btl tcp,self (bench/results/network.json)
#   threads  runs on 1 rank, unbound (--bind-to none), with the default build
#            (threads-default.json) and, when an OpenMP build exists ($OPENMP_BUILD_DIR,
#            e.g. cmake -S . -B build-openmp -DKokkos_ROOT=/var/cache/redist/kokkos-openmp),
#            with OMP_NUM_THREADS=1 and 2 there (threads-omp1.json, threads-omp2.json);
#            bench/plots/combine_threads.py merges them into threads.json with the speedup
#            of 2 threads over 1.
#   cluster  (root) one job per topology and link rate on simulated nodes through
#            scripts/cluster.sh (network namespaces, tbf-shaped veth links):
#            CLUSTER_TOPOLOGIES ("2x1 2x2 3x1", nodes x ranks per node) x CLUSTER_RATES
#            ("1gbit 2.5gbit 10gbit"), each CLUSTER_RUNS (1) times, --repeat REPEAT (5);
#            CLUSTER_OPTIONS adds options of scripts/cluster.sh ("--mtu 9000 --tcp-cc reno");
#            bench/plots/cluster.py pools them into cluster.json (min and median over every
#            timed run; CLUSTER_APPEND=1 pools the jobs of the existing cluster.json too)
#            and draws cluster.png and cluster_relabel.png.
#
# Env: BUILD_DIR (build), OPENMP_BUILD_DIR (build-openmp), NP (2), REPEAT (10),
#      SUITES (standard), EXTRA (more bench flags, e.g. --quick), JOBS (nproc),
#      RESULTS (bench/results: the JSON), PLOTS (bench/plots: the PNGs).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
omp_dir=${OPENMP_BUILD_DIR:-build-openmp}
np=${NP:-2}
jobs=${JOBS:-$(nproc)}
results=${RESULTS:-bench/results}
plots=${PLOTS:-bench/plots}

build() {  # build() DIR: builds redist-bench there, prints its path
  cmake --build "$1" --target redist-bench --parallel "$jobs" >&2
  local exe
  exe=$(find "$1" -type f -name redist-bench -perm -u+x | head -n 1)
  [ -n "$exe" ] || { echo "bench.sh: redist-bench not built in $1" >&2; exit 1; }
  echo "$exe"
}
# Binaries, also in a build dir that scripts/test.sh configured to check the benchmarks only.
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DREDIST_BENCH_CHECK_ONLY=OFF >/dev/null
exe=$(build "$build_dir")

mpi_flags=()
if [ "$(id -u)" = 0 ]; then mpi_flags+=(--allow-run-as-root); fi
# More ranks than cores needs --oversubscribe.
if [ "$np" -gt "$(nproc)" ] || [ "$(id -u)" = 0 ]; then mpi_flags+=(--oversubscribe); fi

run() {  # run NP EXE JSON [mpirun flags...] -- [bench flags...]
  local n=$1 bin=$2 json=$3
  shift 3
  local launch=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do launch+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086
  mpirun "${mpi_flags[@]}" "${launch[@]}" -np "$n" "$bin" --repeat "${REPEAT:-10}" \
    --json "$json" "$@" ${EXTRA:-}
}

mkdir -p "$results"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for suite in ${SUITES:-standard}; do
  case $suite in
    network)
      # The inter-node situation on one machine: MPI over TCP, redist's shared window off.
      run "$np" "$exe" "$results/network.json" --mca pml ob1 --mca btl tcp,self -- \
        --suite network
      ;;
    threads)
      threads_json=()
      run 1 "$exe" "$results/threads-default.json" --bind-to none -- --suite threads
      threads_json+=("$results/threads-default.json")
      if [ -f "$omp_dir/CMakeCache.txt" ]; then
        omp_exe=$(build "$omp_dir")
        for t in 1 2; do
          OMP_NUM_THREADS=$t OMP_PROC_BIND=spread OMP_PLACES=cores \
            run 1 "$omp_exe" "$results/threads-omp$t.json" --bind-to none \
            -x OMP_NUM_THREADS -x OMP_PROC_BIND -x OMP_PLACES -- --suite threads
          threads_json+=("$results/threads-omp$t.json")
        done
      else
        echo "bench.sh: no OpenMP build in $omp_dir; threads suite on the default build only"
      fi
      python3 bench/plots/combine_threads.py "$results/threads.json" "${threads_json[@]}"
      ;;
    cluster)
      # Issue 25, point 7. Each job sizes cases a-d to a link bound of at least 0.5 s at its
      # rate (BENCH_LINK_RATE; bench/suites_cluster.cpp).
      cluster_tmp=$(mktemp -d)
      trap 'rm -rf "$cluster_tmp"' EXIT
      abs_exe=$(realpath "$exe")
      for run in $(seq "${CLUSTER_RUNS:-1}"); do
        for topo in ${CLUSTER_TOPOLOGIES:-2x1 2x2 3x1}; do
          for rate in ${CLUSTER_RATES:-1gbit 2.5gbit 10gbit}; do
            echo "cluster: $topo at $rate, run $run, load $(cut -d' ' -f1-3 /proc/loadavg)"
            # shellcheck disable=SC2086
            BENCH_LINK_RATE=$rate scripts/cluster.sh --nodes "${topo%x*}" \
              --ranks-per-node "${topo#*x}" ${CLUSTER_OPTIONS:-} --rate "$rate" -- "$abs_exe" --suite cluster \
              --repeat "${REPEAT:-5}" --json "$cluster_tmp/$topo-$rate-$run.json" ${EXTRA:-}
          done
        done
      done
      earlier=()
      if [ "${CLUSTER_APPEND:-0}" = 1 ] && [ -f "$results/cluster.json" ]; then
        cp "$results/cluster.json" "$cluster_tmp/earlier.json"
        earlier=("$cluster_tmp/earlier.json")
      fi
      mkdir -p "$plots"
      python3 bench/plots/cluster.py "$results/cluster.json" "${earlier[@]}" "$cluster_tmp"/*-*.json \
        --plots "$plots"
      rm -rf "$cluster_tmp"
      ;;
    dropin)
      # One unmodified ScaLAPACK program, linked to ScaLAPACK only and with
      # libredist_scalapack ahead of it (bench/dropin/; needs REDIST_SCALAPACK_ABI).
      cmake --build "$build_dir" --target redist-dropin redist-dropin-ref --parallel "$jobs" >&2
      for v in ref redist; do
        name=redist-dropin
        [ "$v" = ref ] && name=redist-dropin-ref
        bin=$(find "$build_dir" -type f -name "$name" -perm -u+x | head -n 1)
        run "$np" "$bin" "$results/dropin-$v.json" --
      done
      python3 bench/dropin/combine.py "$results/dropin.json" "$results/dropin-ref.json" \
        "$results/dropin-redist.json"
      ;;
    dropin-pblas)
      # PBLAS's pdtran and pdgeadd in an unmodified Fortran program, with and without
      # LD_PRELOAD=libredist_scalapack.so (bench/pblas/run.sh).
      BUILD_DIR=$build_dir NP=$np RESULTS=$results bench/pblas/run.sh
      ;;
    *)
      run "$np" "$exe" "$results/$suite.json" -- --suite "$suite"
      ;;
  esac
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

if command -v gnuplot >/dev/null && command -v python3 >/dev/null; then
  mkdir -p "$plots"
  bench/plots/plot.sh "$results" "$plots"
fi
