#!/usr/bin/env bash
# Self-test of scripts/cluster.sh with real Open MPI jobs of tests/cluster/hello.cpp:
#   - placement: distinct hostnames, OMPI_COMM_WORLD_LOCAL_SIZE and the shared-memory group
#     size on each node, and the caller's environment on every rank, for 2 x 1, 2 x 2 and
#     3 x 1 (router); cluster.sh's own check of each rank's hostname and network namespace
#     passes there, and refuses (exit 2, one line naming the rank, PROGRAM not run) when an
#     mpirun that ignores the hostfile starts every rank on node0
#   - exit codes: a rank's 3 (and a plain program's 3) comes back; --keep-going reports the
#     lowest failed rank's status
#   - cleanup: no namespace, link, process or temporary file with the run's prefix is left
#     after a success, a failure, a Ctrl-C (SIGINT to the process group) and a SIGTERM mid-job,
#     and a launcher hung by a dead link
#   - exit 2 with one line naming the option and value for bad options, without root, and
#     without network namespace support
#   - --fault down:S ends a job whose ranks wait across the dead link, and the link's rate
#     bounds a bulk transfer
#   - with BUILD_DIR: a verified redist-run job on 2 x 2 nodes at 1 Gbit/s; redist-run with
#     a link taken down mid-run, ended on every rank by the progress timeout's error; the
#     MPI test suite on 2 x 2 nodes
#
#   tests/cluster/run_cluster_tests.sh [BUILD_DIR]
#
# Needs root (as scripts/cluster.sh does), Open MPI's mpicxx and mpirun. Exit status: 0 all
# passed, 1 a check failed, 77 the machine cannot host a cluster (the reason is printed).
# Environment: CLUSTER_TIMEOUT seconds per run (default 120; CLUSTER_SUITE_TIMEOUT, default
# 900, for the MPI suite), REDIST_RUN (default:
# BUILD_DIR/apps/redist-run), REDIST_MPI_TESTS (default: BUILD_DIR/tests/redist-mpi-tests).
set -uo pipefail

build=${1:-}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$source_dir/scripts/cluster.sh
limit=${CLUSTER_TIMEOUT:-120}
start=$SECONDS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hello=$work/hello

checks=0
failures=0
pass() {
  checks=$((checks + 1))
  echo "PASS: $*"
}
fail() {
  checks=$((checks + 1))
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}
# check STATUS WHAT...: pass or fail WHAT by STATUS (that of the command before it).
check() {
  local status=$1
  shift
  if [[ $status -eq 0 ]]; then pass "$*"; else fail "$*"; fi
}
show() {
  sed 's/^/    | /' "$@" >&2
}

# run ARGS...: scripts/cluster.sh ARGS with a time limit; sets rc, out, err, secs.
count=0
run() {
  count=$((count + 1))
  out=$work/out.$count
  err=$work/err.$count
  local t0=$EPOCHREALTIME
  timeout "${run_limit:-$limit}" "$cluster" "$@" </dev/null >"$out" 2>"$err"
  rc=$?
  secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
}

# The run's name prefix, from the line that describes the cluster.
prefix_of() {
  sed -nE 's/.*names (rdc[0-9]+)\*.*/\1/p' "$1" | head -n 1
}

# expect_clean WHAT ERRFILE: nothing with the run's prefix is left on the machine.
expect_clean() {
  local what=$1 prefix left=""
  prefix=$(prefix_of "$2")
  if [[ -z $prefix ]]; then
    fail "$what: no cluster description on stderr"
    show "$2"
    return
  fi
  left+=$(ip netns list | grep "^$prefix-" | sed 's/^/netns /')
  left+=$(ip -o link show | grep -o "${prefix}[a-z0-9]*" | sed 's/^/link /')
  left+=$(pgrep -a -f -- "$prefix\.|$hello" | sed 's/^/process /')
  left+=$(ls -d /tmp/"$prefix".* /dev/shm/"$prefix".* "${TMPDIR:-/tmp}/$prefix".* 2>/dev/null)
  if [[ -z $left ]]; then
    pass "$what: nothing of $prefix left"
  else
    fail "$what: left behind: $left"
  fi
}

# --- preconditions ---------------------------------------------------------------------------

skip() {
  echo "run_cluster_tests: skipped: $*"
  exit 77
}
command -v mpicxx >/dev/null || skip "mpicxx not found"
[[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces)"
if ! mpicxx -std=c++20 -O2 -o "$hello" "$source_dir/tests/cluster/hello.cpp" 2>"$work/cc.err"; then
  fail "hello.cpp does not compile"
  show "$work/cc.err"
  exit 1
fi
run -- true
if [[ $rc -eq 2 ]]; then skip "$(cat "$err")"; fi

# --- placement -------------------------------------------------------------------------------

# placement NODES RANKS_PER_NODE: every rank reports its node's hostname, LOCAL_SIZE and
# shared-memory group size, and sees the caller's variables.
placement() {
  local n=$1 r=$2 what="placement $1 x $2" bad="" k hosts line
  REDIST_CLUSTER_TEST="two  words" OMP_NUM_THREADS=1 \
    run --nodes "$n" --ranks-per-node "$r" -- "$hello" --env REDIST_CLUSTER_TEST
  if [[ $rc -ne 0 ]]; then
    fail "$what: exit $rc"
    show "$out" "$err"
    return
  fi
  [[ $(grep -c '^hello: rank' "$out") -eq $((n * r)) ]] || bad+=" rank count;"
  for ((k = 0; k < n * r; k++)); do
    line="hello: rank $k of $((n * r)) host node$((k / r)) local_size $r node_size $r"
    grep -qx "$line REDIST_CLUSTER_TEST=two  words" "$out" || bad+=" rank $k;"
  done
  hosts=$(sed -nE 's/.* host ([^ ]+) .*/\1/p' "$out" | sort -u | wc -l)
  [[ $hosts -eq $n ]] || bad+=" $hosts hostnames;"
  grep -q "placement checked: rank k on node k / $r" "$err" || bad+=" no placement check;"
  if [[ -z $bad ]]; then
    pass "$what: $n hostnames, local_size and node_size $r, environment on every rank ($secs s)"
  else
    fail "$what:$bad"
    show "$out"
  fi
  expect_clean "$what" "$err"
}
placement 2 1
placement 2 2
placement 3 1
grep -q "router netns" "$err"
check $? "3 x 1 runs through a router namespace"

# An mpirun that starts every rank on node0 (as one that ignores the hostfile or the agent
# would: a machine with an MPI of its own): cluster.sh refuses before PROGRAM runs.
mkdir -p "$work/other-mpi"
cat >"$work/other-mpi/mpirun" <<EOF
#!/usr/bin/env bash
# Every rank on the first host of the hostfile.
args=()
while ((\$# > 0)); do
  if [[ \$1 == --hostfile ]]; then
    head -n 1 "\$2" >"\$2.first"
    args+=(--hostfile "\$2.first")
    shift 2
    continue
  fi
  args+=("\$1")
  shift
done
exec $(command -v mpirun) "\${args[@]}"
EOF
chmod +x "$work/other-mpi/mpirun"
PATH=$work/other-mpi:$PATH run --nodes 2 --ranks-per-node 2 -- "$hello"
[[ $rc -eq 2 && ! -s $out ]] &&
  tail -n 1 "$err" | grep -q "ranks not on their nodes: rank 2 runs on host node0 in network namespace net:\[[0-9]*\], not on node1"
check $? "every rank on node0: exit $rc, one line naming rank 2, hello not run ($(tail -n 1 "$err"))"
expect_clean "wrong placement" "$err"

# Each node's TCP uses the congestion control asked for (reno: every kernel allows it).
run --tcp-cc reno -- cat /proc/sys/net/ipv4/tcp_congestion_control
[[ $rc -eq 0 && $(grep -cx reno "$out") -eq 2 && $(wc -l <"$out") -eq 2 ]] && grep -q "tcp reno" "$err"
check $? "--tcp-cc reno: both nodes' TCP uses reno ($(tr '\n' ' ' <"$out"))"
expect_clean "--tcp-cc" "$err"

# --- exit codes ------------------------------------------------------------------------------

run --ranks-per-node 2 -- "$hello" --exit 3
[[ $rc -eq 3 ]]
check $? "the last rank (on node1) exits 3: cluster.sh exits $rc"
expect_clean "after a failed job" "$err"

run -- sh -c 'exit 3'
[[ $rc -eq 3 ]]
check $? "a plain program exits 3: cluster.sh exits $rc"

run --keep-going --ranks-per-node 2 -- "$hello" --exit 5
[[ $rc -eq 5 ]] && grep -q "ranks that exited non-zero (rank:status): 3:5$" "$err"
check $? "--keep-going: rank 3 exits 5, the others 0: cluster.sh exits $rc and names rank 3"
expect_clean "--keep-going" "$err"

# --- signals ---------------------------------------------------------------------------------

# interrupt SIGNAL TARGET: starts a 3 x 1 job whose ranks sleep, sends SIGNAL once every rank
# has printed (to the process group, as Ctrl-C does, for TARGET group; else to cluster.sh),
# and expects 128 + the signal's number and a clean machine.
interrupt() {
  local sig=$1 target=$2 pid waited=0 expect
  count=$((count + 1))
  out=$work/out.$count
  err=$work/err.$count
  # Job control: the job gets its own process group and does not start with SIGINT ignored.
  set -m
  timeout "$limit" "$cluster" --nodes 3 -- "$hello" --sleep 60 --timeout 60 \
    </dev/null >"$out" 2>"$err" &
  pid=$!
  set +m
  while [[ $(grep -c '^hello: rank' "$out") -lt 3 ]] && ((waited < 300)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if [[ $target == group ]]; then
    kill -s "$sig" -- "-$pid"
  else
    kill -s "$sig" "$(pgrep -P "$pid")" # timeout's child: cluster.sh
  fi
  wait "$pid"
  rc=$?
  expect=$((128 + $(kill -l "$sig")))
  [[ $rc -eq $expect ]] && grep -q "ending the job and removing the cluster" "$err"
  check $? "SIG$sig to the $target mid-job: exit $rc (want $expect)"
  expect_clean "SIG$sig mid-job" "$err"
}
interrupt INT group
interrupt TERM script

# --- exit 2 ----------------------------------------------------------------------------------

# bad_option NEEDLE ARGS...: exit 2, nothing on stdout, one line on stderr that contains NEEDLE.
bad_option() {
  local needle=$1
  shift
  run "$@" -- "$hello"
  [[ $rc -eq 2 && ! -s $out && $(wc -l <"$err") -eq 1 ]] && grep -qF -- "$needle" "$err"
  check $? "exit 2 and one line naming '$needle' for: $* ($(cat "$err"))"
}
bad_option "--nodes: '0'" --nodes 0
bad_option "--nodes: 'x'" --nodes x
bad_option "--nodes: '65'" --nodes 65
bad_option "--ranks-per-node: '0'" --ranks-per-node 0
bad_option "--rate: 'fast'" --rate fast
bad_option "--rate: missing value" --rate
bad_option "--burst: '1mb' needs --rate" --burst 1mb
bad_option "--burst: '2b'" --rate 1gbit --burst 2b
bad_option "--fault: 'up:3'" --fault up:3
bad_option "--fault: 'down:1' needs node 1" --nodes 1 --fault down:1
bad_option "--tcp-cc: 'x y'" --tcp-cc 'x y'
bad_option "--tcp-cc: 'no_such_cc' is not allowed" --tcp-cc no_such_cc
bad_option "unknown option '--color'" --color
run --nodes 2
[[ $rc -eq 2 && $(wc -l <"$err") -eq 1 ]] && grep -q "missing PROGRAM" "$err"
check $? "exit 2 and one line for a missing PROGRAM"

if command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$cluster" -- true \
    >"$work/u.out" 2>"$work/u.err"
  rc=$?
  [[ $rc -eq 2 && $(wc -l <"$work/u.err") -eq 1 ]] && grep -q "needs root" "$work/u.err"
  check $? "exit 2 and one line without root ($(cat "$work/u.err"))"
fi
# A user namespace's root cannot create named network namespaces (/run/netns is the host's).
if unshare --user --map-root-user true 2>/dev/null; then
  unshare --user --map-root-user "$cluster" -- true >"$work/n.out" 2>"$work/n.err"
  rc=$?
  [[ $rc -eq 2 && $(wc -l <"$work/n.err") -eq 1 ]] &&
    grep -q "cannot create network namespace" "$work/n.err"
  check $? "exit 2 and one line without network namespace support ($(cat "$work/n.err"))"
else
  echo "note: user namespaces unavailable; the no-namespace-support path is not checked"
fi

# --- faults and rate -------------------------------------------------------------------------

# Ranks sleep 4 s, then meet in a barrier that gives up after 3 s; node1's link goes down at
# 2 s (the ranks started well before), so no rank gets through, and mpirun hangs on node1's
# daemon until cluster.sh ends it.
run --fault down:2 -- "$hello" --sleep 4 --timeout 3
[[ $rc -ne 0 ]] && grep -q "fault: node1's link .* is down" "$err" &&
  grep -q "every rank has ended but mpirun has not" "$err"
check $? "--fault down:2 ends the job: exit $rc after $secs s"
expect_clean "--fault" "$err"

# With --keep-going no rank is ended by mpirun: each ends on its own (hello's timeout, or an MPI
# error where a send finds the link down), and each status comes back, node1's too.
run --fault down:2 --keep-going --ranks-per-node 2 -- "$hello" --sleep 4 --timeout 3
[[ $rc -eq 4 ]] && grep -qE "\(rank:status\): 0:4 1:4 2:[1-9][0-9]* 3:[1-9][0-9]*$" "$err"
check $? "--fault with --keep-going: every rank's own failure comes back: exit $rc after" \
  "$secs s ($(grep -o 'rank:status.*' "$err"))"
expect_clean "--fault --keep-going" "$err"

# 125 MB at 1 Gbit/s: at least 1 s less the 1 MB burst; TCP/IP headers add about 5 %.
bytes=125000000
run --rate 1gbit -- "$hello" --send "$bytes"
t=$(sed -nE 's/^hello: sent [0-9]+ bytes .* in ([0-9.]+) s.*/\1/p' "$out")
if [[ $rc -eq 0 && -n $t ]]; then
  awk -v t="$t" -v b="$bytes" 'BEGIN { exit !(t >= 0.95 * (b - 1048576) * 8 / 1e9) }'
  check $? "--rate 1gbit bounds the link: $bytes bytes in $t s (bytes / rate =" \
    "$(awk -v b="$bytes" 'BEGIN { print b * 8 / 1e9 }') s)"
else
  fail "--rate 1gbit transfer: exit $rc"
  show "$out" "$err"
fi
expect_clean "--rate" "$err"

# --- redist ----------------------------------------------------------------------------------

redist_run=${REDIST_RUN:-${build:+$build/apps/redist-run}}
if [[ -n $redist_run ]]; then
  if [[ -x $redist_run ]]; then
    OMP_NUM_THREADS=1 run --ranks-per-node 2 --rate 1gbit -- "$redist_run" \
      --src 2048x2048/256x256/bc:1x4 --dst 2048x2048/100x100/bc:2x2 --verify
    [[ $rc -eq 0 ]] && grep -q "verify   OK" "$out"
    check $? "redist-run 2048² bc:1x4 -> bc:2x2, verified, on 2 x 2 nodes at 1 Gbit/s: exit $rc"
    [[ $rc -eq 0 ]] || show "$out" "$err"
    expect_clean "redist-run" "$err"
  else
    fail "redist-run not found at $redist_run"
  fi
fi

# A link that dies under redist: node1's link goes down 3 s into a 2048² move repeated at
# 1 Gbit/s. No transfer completes after that, so each rank's progress timeout (5 s here) ends
# it with the library's error: naming the peer and the bytes outstanding when the link died
# during a move, or naming the barrier or all-reduce between two timed moves when it died
# there (redist-run's yielding collectives; a CI run met this). Exit 3 on both ranks (--keep-going brings back node1's status, whose output cannot cross the dead
# link), within the fault time plus the timeout plus 10 s (and 5 s of start-up).
if [[ -n $redist_run && -x $redist_run ]]; then
  REDIST_PROGRESS_TIMEOUT=5 OMP_NUM_THREADS=1 run --keep-going --rate 1gbit --fault down:3 -- \
    "$redist_run" --src 2048x2048/256x256/bc:1x2 --dst 2048x2048/100x100/bc:2x1 --repeat 400
  [[ $rc -eq 3 ]] && grep -qE "\(rank:status\): 0:3 1:3$" "$err" &&
    grep -qE "redist-run: rank 0: .*(made no progress for 5 s.*outstanding: rank 1 \([0-9]+ bytes to receive, [0-9]+ to send\)|(a barrier|an all-reduce) did not complete in 5 s)" "$err" &&
    awk -v s="$secs" 'BEGIN { exit !(s <= 3 + 5 + 10 + 5) }'
  check $? "link down under redist-run: every rank ends with the progress timeout's error:" \
    "exit $rc after $secs s ($(grep -o 'rank:status.*' "$err"))"
  grep -m1 -E "made no progress|did not complete in" "$err" | sed 's/^/    /'
  [[ $rc -eq 3 ]] && grep -qE "redist-run: rank 0: .*(made no progress|did not complete in)" "$err" ||
    show "$out" "$err"
  expect_clean "redist-run with a dead link" "$err"
fi

# The MPI test suite across nodes: 2 x 2 ranks, so that every rank has a peer on its own node
# (node window, cross-memory) and two on the other (point to point over TCP through the link).
mpi_tests=${REDIST_MPI_TESTS:-${build:+$build/tests/redist-mpi-tests}}
if [[ -n $mpi_tests ]]; then
  if [[ -x $mpi_tests ]]; then
    # Open MPI yields in its waits (mpi_yield_when_idle): the suite's own barriers and
    # reductions spin in MPI otherwise, on the cores that the links' softirq work needs
    # (docs/cluster.md, "A spinning rank slows the other nodes"), and each one took about
    # 5 ms; redist's own waits yield either way. The whole suite: 25 s on an idle 2-core
    # machine, 244 s with spinning collectives.
    run_limit=${CLUSTER_SUITE_TIMEOUT:-900} OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
      OMPI_MCA_mpi_yield_when_idle=1 run --ranks-per-node 2 -- "$mpi_tests"
    [[ $rc -eq 0 ]] && grep -qE "test cases: +[0-9]+ \| +[0-9]+ passed \| +0 failed" "$out"
    check $? "the MPI test suite on 2 x 2 nodes: exit $rc after $secs s ($(grep -m1 -E 'test cases:' "$out" | tr -s ' '))"
    [[ $rc -eq 0 ]] || show "$out" "$err"
    expect_clean "the MPI test suite" "$err"
  else
    fail "redist-mpi-tests not found at $mpi_tests"
  fi
fi

echo "run_cluster_tests: $checks checks, $failures failed, $((SECONDS - start)) s"
[[ $failures -eq 0 ]]
