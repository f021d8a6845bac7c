#!/usr/bin/env bash
# Runs PROGRAM as one Open MPI job on N simulated nodes of one machine: each node is a network
# namespace with its own hostname and its own (optionally rate-shaped) veth link; with N != 2
# the links meet in a router namespace. Open MPI sees N distinct nodes, uses shared memory only
# within a node, and sends everything else over TCP across the links. Before PROGRAM runs, a
# probe job checks that every rank runs on its node (hostname and network namespace), and the
# script refuses with one line if not (an mpirun that ignores the cluster's launcher starts
# every rank on node0). See docs/cluster.md.
#
#   scripts/cluster.sh [--nodes N] [--ranks-per-node R] [--rate RATE] [--burst B]
#                      [--mtu BYTES] [--tcp-cc ALG] [--fault down:SECONDS] [--keep-going]
#                      -- PROGRAM [ARGS...]
#
# Needs root (network namespaces). Exits with the job's exit code; 2 for a bad option, a
# machine that cannot build the cluster, or ranks not on their nodes (one line says which);
# 130/143 on SIGINT/SIGTERM.
# Removes every namespace, link, temporary file and process it made, however it ends.
set -euo pipefail

readonly me=cluster.sh
# Unique per run (PID), short enough for 15-character interface names: rdc4194304r63.
readonly prefix="rdc$$"
readonly max_nodes=64
readonly max_ranks_per_node=256
readonly default_burst=1mb
readonly min_burst_bytes=16384
# Ethernet's standard frame; HPC networks often run jumbo frames (9000), whose headers take
# 0.7 % of the link instead of 4.4 % (docs/cluster.md).
readonly default_mtu=1500
readonly min_mtu=576
readonly max_mtu=65535
# tbf's queue holds rate x latency (+ burst) bytes; 50 ms is ample for TCP at 1-10 Gbit/s.
readonly tbf_latency=50ms
# Seconds mpirun may outlive its last rank, or run without any rank at the start, before the
# launcher counts as hung.
readonly hang_grace_s=5
readonly launch_timeout_s=60
# Open MPI may use only these addresses; every one of them is inside this run's namespaces.
readonly cluster_net=198.18.0.0/15

nodes=2
ranks_per_node=1
rate=""
burst=""
mtu=$default_mtu
tcp_cc=""
fault_s=""
keep_going=0
program=()

tmp=""
shm=""
made_namespaces=()
job_pid=""
cleaned=0

usage() {
  cat <<EOF
usage: $me [--nodes N] [--ranks-per-node R] [--rate RATE] [--burst B]
                  [--mtu BYTES] [--tcp-cc ALG] [--fault down:SECONDS] [--keep-going]
                  -- PROGRAM [ARGS...]
  --nodes N            simulated nodes, 1 to $max_nodes (default 2)
  --ranks-per-node R   ranks on each node, 1 to $max_ranks_per_node (default 1)
  --rate RATE          shape each direction of each node's link with tc tbf, in tc's
                       units: 100mbit, 1gbit, 2.5gbit, 10gbit (default: unlimited)
  --burst B            tbf burst with --rate, in tc's units: 256kb, 1mb (default $default_burst)
  --mtu BYTES          frame size of every link, $min_mtu to $max_mtu (default $default_mtu;
                       9000: jumbo frames, as on many HPC networks)
  --tcp-cc ALG         TCP congestion control of every node: one of
                       net.ipv4.tcp_allowed_congestion_control (default: the machine's)
  --fault down:S       take node 1's link down S seconds after the job starts
  --keep-going         a rank that exits non-zero does not end the other ranks
                       (Open MPI's orte_abort_on_non_zero_status 0)
Needs root. Before PROGRAM, a probe job checks that each rank runs on its node (hostname
and network namespace). Exit status: the job's; 2 for bad options, a machine that cannot
host the cluster, or ranks that mpirun did not start on their nodes; 130 / 143 when
interrupted. docs/cluster.md has the details.
EOF
}

# One clear line for a caller's mistake or a machine that cannot host the cluster; exit 2.
fail() {
  echo "$me: $*" >&2
  exit 2
}

note() { echo "$me: $*" >&2; }

# --- options ---------------------------------------------------------------------------------

# size_bytes SIZE: a size in tc's units (b, k/kb, m/mb, g/gb: bytes; kbit, mbit, gbit: bits)
# as whole bytes.
size_bytes() {
  local v=${1,,} unit scale=1
  unit=${v##*[0-9.]}
  case $unit in
    k | kb) scale=1024 ;;
    m | mb) scale=$((1024 * 1024)) ;;
    g | gb) scale=$((1024 * 1024 * 1024)) ;;
    kbit) scale=128 ;;
    mbit) scale=$((128 * 1024)) ;;
    gbit) scale=$((128 * 1024 * 1024)) ;;
  esac
  awk -v n="${v%"$unit"}" -v s="$scale" 'BEGIN { printf "%d\n", n * s }'
}

# check_value OPTION VALUE REGEX WHAT: fails naming OPTION and VALUE unless VALUE matches.
check_value() {
  [[ $2 =~ $3 ]] || fail "$1: '$2' is not $4"
}

# check_count OPTION VALUE MAX: a whole number from 1 to MAX.
check_count() {
  if ! [[ $2 =~ ^[1-9][0-9]{0,5}$ ]] || (($2 > $3)); then
    fail "$1: '$2' is not a whole number from 1 to $3"
  fi
}

parse_options() {
  local opt value
  while (($# > 0)); do
    opt=$1
    case $opt in
      --) shift; break ;;
      -h | --help) usage; exit 0 ;;
      --keep-going) keep_going=1; shift; continue ;;
      --nodes | --ranks-per-node | --rate | --burst | --mtu | --tcp-cc | --fault)
        if (($# < 2)) || [[ $2 == -* ]]; then fail "$opt: missing value"; fi
        value=$2
        shift 2 ;;
      --nodes=* | --ranks-per-node=* | --rate=* | --burst=* | --mtu=* | --tcp-cc=* | --fault=*)
        value=${opt#*=}
        opt=${opt%%=*}
        shift ;;
      -*) fail "unknown option '$opt' (--help lists the options)" ;;
      *) break ;;
    esac
    case $opt in
      --nodes) check_count "$opt" "$value" "$max_nodes"; nodes=$value ;;
      --ranks-per-node) check_count "$opt" "$value" "$max_ranks_per_node"; ranks_per_node=$value ;;
      --rate)
        check_value "$opt" "${value,,}" '^[0-9]+(\.[0-9]+)?[kmgt]?(bit|bps)$' \
          "a rate in tc's units such as 100mbit, 1gbit, 2.5gbit"
        rate=$value ;;
      --burst)
        check_value "$opt" "${value,,}" '^[0-9]+(\.[0-9]+)?([kmg]?b|[kmg]|[kmg]bit)?$' \
          "a size in tc's units such as 256kb, 1mb"
        (($(size_bytes "$value") >= min_burst_bytes)) ||
          fail "$opt: '$value' is below 16kb (a packet or two: tbf would stall the link)"
        burst=$value ;;
      --mtu)
        check_value "$opt" "$value" '^[0-9]{3,5}$' "a frame size in bytes such as 1500, 9000"
        ((value >= min_mtu && value <= max_mtu)) ||
          fail "$opt: '$value' is outside $min_mtu..$max_mtu"
        mtu=$value ;;
      --tcp-cc)
        check_value "$opt" "$value" '^[a-z0-9_]+$' "a congestion control such as reno, cubic, bbr"
        tcp_cc=$value ;;
      --fault)
        check_value "$opt" "$value" '^down:[0-9]+(\.[0-9]+)?$' "down:SECONDS (e.g. down:3)"
        fault_s=${value#down:} ;;
    esac
  done
  (($# > 0)) || fail "missing PROGRAM: $me [OPTION]... -- PROGRAM [ARGS...]"
  program=("$@")
  [[ -z $burst || -n $rate ]] || fail "--burst: '$burst' needs --rate"
  if ((nodes < 2)) && [[ -n $fault_s ]]; then
    fail "--fault: 'down:$fault_s' needs node 1 (--nodes 2 or more)"
  fi
  return 0
}

# --- machine ---------------------------------------------------------------------------------

check_machine() {
  [[ $(id -u) -eq 0 ]] ||
    fail "needs root to create network namespaces (run it as root or with sudo)"
  local tool
  for tool in ip unshare mpirun ${rate:+tc}; do
    command -v "$tool" >/dev/null || fail "needs '$tool', which is not installed"
  done
  # A namespace may choose only what the machine allows (reno always); others need
  # modprobe and net.ipv4.tcp_allowed_congestion_control, which are the machine's to change.
  local allowed=/proc/sys/net/ipv4/tcp_allowed_congestion_control
  if [[ -n $tcp_cc ]] && ! [[ " $(cat "$allowed" 2>/dev/null) " == *" $tcp_cc "* ]]; then
    fail "--tcp-cc: '$tcp_cc' is not allowed in a namespace here" \
      "(net.ipv4.tcp_allowed_congestion_control: $(cat "$allowed" 2>/dev/null))"
  fi
}

# try WHAT COMMAND...: runs COMMAND; on failure one line names WHAT and the first line of
# COMMAND's error, and exits 2 (the EXIT trap removes what was made so far).
try() {
  local what=$1 out
  shift
  if ! out=$("$@" 2>&1); then
    fail "cannot $what: ${out%%$'\n'*}"
  fi
}

# --- cluster ---------------------------------------------------------------------------------

node_ns() { echo "$prefix-n$1"; }
router_ns() { echo "$prefix-r"; }
node_if() { echo "${prefix}n$1"; }
router_if() { echo "${prefix}r$1"; }
use_router() { ((nodes != 2)); }

# Node i's address: two nodes share 198.18.0.0/24; behind the router node i has its own
# 198.18.(i+1).0/24, the router being .1 in it.
node_addr() {
  if use_router; then echo "198.18.$(($1 + 1)).2"; else echo "198.18.0.$(($1 + 1))"; fi
}
router_addr() { echo "198.18.$(($1 + 1)).1"; }

add_namespace() {
  try "create network namespace $1 (no network namespace support?)" ip netns add "$1"
  made_namespaces+=("$1")
  try "bring up loopback in $1" ip -n "$1" link set lo up
  if [[ -n $tcp_cc ]]; then
    try "use TCP congestion control $tcp_cc in $1" \
      ip netns exec "$1" sysctl -qw "net.ipv4.tcp_congestion_control=$tcp_cc"
  fi
}

# add_link NS_A IF_A NS_B IF_B: a veth pair made directly inside the two namespaces, so that
# nothing of it ever exists in the caller's namespace.
add_link() {
  try "create veth link $2 <-> $4" ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
}

# configure NS IF ADDR/LEN: address the interface, bring it up, and shape it when asked.
configure() {
  try "address $2 in $1" ip -n "$1" addr add "$3" dev "$2"
  try "set $2's mtu to $mtu in $1" ip -n "$1" link set "$2" mtu "$mtu"
  try "bring up $2 in $1" ip -n "$1" link set "$2" up
  if [[ -n $rate ]]; then
    try "shape $2 with tbf rate $rate burst ${burst:-$default_burst}" \
      tc -n "$1" qdisc add dev "$2" root tbf rate "$rate" burst "${burst:-$default_burst}" \
      latency "$tbf_latency"
  fi
}

build_pair() {
  add_namespace "$(node_ns 0)"
  add_namespace "$(node_ns 1)"
  add_link "$(node_ns 0)" "$(node_if 0)" "$(node_ns 1)" "$(node_if 1)"
  configure "$(node_ns 0)" "$(node_if 0)" "$(node_addr 0)/24"
  configure "$(node_ns 1)" "$(node_if 1)" "$(node_addr 1)/24"
}

build_star() {
  local i
  add_namespace "$(router_ns)"
  try "turn on ip forwarding in $(router_ns)" \
    ip netns exec "$(router_ns)" sysctl -qw net.ipv4.ip_forward=1
  for ((i = 0; i < nodes; i++)); do
    add_namespace "$(node_ns "$i")"
    add_link "$(node_ns "$i")" "$(node_if "$i")" "$(router_ns)" "$(router_if "$i")"
    configure "$(node_ns "$i")" "$(node_if "$i")" "$(node_addr "$i")/24"
    configure "$(router_ns)" "$(router_if "$i")" "$(router_addr "$i")/24"
    try "route $cluster_net via the router in $(node_ns "$i")" \
      ip -n "$(node_ns "$i")" route add "$cluster_net" via "$(router_addr "$i")"
  done
}

# plural COUNT NOUN: "1 node", "2 nodes".
plural() {
  if (($1 == 1)); then echo "$1 $2"; else echo "$1 $2s"; fi
}

describe_cluster() {
  local i peer shaping="rate unlimited" sizes
  if [[ -n $rate ]]; then
    shaping="$rate each direction (tc tbf burst ${burst:-$default_burst} latency $tbf_latency)"
  fi
  shaping+=", mtu $mtu, tcp $(ip netns exec "$(node_ns 0)" sysctl -n net.ipv4.tcp_congestion_control)"
  sizes="$(plural "$nodes" node) x $(plural "$ranks_per_node" rank)"
  note "$sizes = $(plural $((nodes * ranks_per_node)) rank), names $prefix*, links $shaping"
  for ((i = 0; i < nodes; i++)); do
    if use_router; then
      peer="$(router_if "$i") (router $(router_addr "$i"))"
    else
      peer="$(node_if $((1 - i))) (node$((1 - i)))"
    fi
    note "  node$i  netns $(node_ns "$i")  $(node_addr "$i")/24  link $(node_if "$i") <-> $peer"
  done
  if use_router; then
    note "  router netns $(router_ns)  198.18.(i+1).1/24 on its link to node i, ip forwarding on"
  fi
}

# --- job -------------------------------------------------------------------------------------

# Open MPI's rsh launcher runs "AGENT HOST COMMAND..." for each remote daemon; this agent runs
# COMMAND in HOST's namespace under HOST's node name, joining the words as ssh would.
write_agent() {
  local i
  # shellcheck disable=SC2016 # the agent expands these, not this script
  {
    echo '#!/bin/sh'
    echo "# Written by $me for one run; removed with the cluster."
    echo 'case $1 in'
    for ((i = 1; i < nodes; i++)); do
      echo "  $(node_addr "$i")) ns=$(node_ns "$i") name=node$i ;;"
    done
    echo "  *) echo \"$me agent: no node at \$1\" >&2; exit 1 ;;"
    cat <<'EOF'
esac
shift
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && eval "$*"' "$name" "$@"
EOF
  } >"$tmp/agent"
  chmod +x "$tmp/agent"
}

write_hostfile() {
  local i
  for ((i = 0; i < nodes; i++)); do
    echo "$(node_addr "$i") slots=$ranks_per_node"
  done >"$tmp/hostfile"
}

# The caller's environment, forwarded by name to every rank (Open MPI's own variables aside).
forwarded_env() {
  compgen -e | grep -Ev '^(OMPI_|OPAL_|ORTE_|PMIX_|PRTE_)|^(_|PWD|OLDPWD|SHLVL)$' || true
}

# mpirun_command [--probe] PROGRAM...: the mpirun command line that runs PROGRAM on every
# rank, in job_command. --probe: without the --keep-going wrapper (check_placement's job).
mpirun_command() {
  local name wrap=$keep_going
  if [[ $1 == --probe ]]; then wrap=0; shift; fi
  # shellcheck disable=SC2054 # tcp,self,vader is one value
  job_command=(mpirun --allow-run-as-root --oversubscribe
    -np $((nodes * ranks_per_node)) --hostfile "$tmp/hostfile"
    --mca plm_rsh_agent "$tmp/agent" --mca plm_rsh_no_tree_spawn 1
    --mca pml ob1 --mca osc ^ucx --mca btl tcp,self,vader
    --mca btl_tcp_if_include "$cluster_net" --mca oob_tcp_if_include "$cluster_net"
    --mca orte_tmpdir_base "$tmp" --mca btl_vader_backing_directory "$shm")
  ((keep_going == 0)) || job_command+=(--mca orte_abort_on_non_zero_status 0)
  while read -r name; do
    job_command+=(-x "$name")
  done < <(forwarded_env)
  ((wrap == 0)) || job_command+=("$tmp/rank")
  job_command+=("$@")
}

# ns_identity NODE: node NODE's network namespace as readlink /proc/self/ns/net shows it
# from inside: net:[INODE].
ns_identity() {
  echo "net:[$(stat -L -c %i "/run/netns/$(node_ns "$1")")]"
}

# Every rank must run on its node: Open MPI places ranks by slot, so rank k belongs on node
# k / ranks_per_node, under that node's hostname and in its network namespace. A probe job
# (no MPI in it) has each rank print its rank, hostname and namespace; an mpirun that does
# not start its daemons through the agent (another MPI, one that ignores the hostfile or the
# rsh agent) runs them all on node0, where a job would see one node and beat the link. One
# line names the first rank out of place; exit 2.
check_placement() {
  local rc=0 k node want_ns line rank host ns seen=0 where=()
  # shellcheck disable=SC2016 # the rank's shell expands these
  mpirun_command --probe sh -c \
    'echo "placement ${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-?}}} $(hostname) $(readlink /proc/self/ns/net)"'
  # shellcheck disable=SC2016 # sh expands these, not this script
  timeout --kill-after=2 "$launch_timeout_s" ip netns exec "$(node_ns 0)" \
    unshare --uts --pid --fork --kill-child --mount-proc \
    sh -c 'hostname "$0" && "$@"' node0 "${job_command[@]}" \
    </dev/null >"$tmp/placement" 2>"$tmp/placement.err" || rc=$?
  if ((rc != 0)); then
    line=$(grep -m1 . "$tmp/placement.err" || true)
    fail "cannot check where the ranks run: the probe job exited $rc${line:+: $line}"
  fi
  while read -r _ rank host ns; do
    if ! [[ $rank =~ ^[0-9]+$ ]] || ((rank >= nodes * ranks_per_node)); then continue; fi
    where[rank]="$host $ns"
    seen=$((seen + 1))
  done < <(grep '^placement ' "$tmp/placement")
  for ((k = 0; k < nodes * ranks_per_node; k++)); do
    node=$((k / ranks_per_node))
    want_ns=$(ns_identity "$node")
    if [[ -z ${where[k]:-} ]]; then
      fail "ranks not on their nodes: rank $k did not report where it runs ($seen of" \
        "$((nodes * ranks_per_node)) did; is '$(command -v mpirun)' Open MPI with the rsh agent?)"
    fi
    read -r host ns <<<"${where[k]}"
    if [[ $host != "node$node" || $ns != "$want_ns" ]]; then
      fail "ranks not on their nodes: rank $k runs on host $host in network namespace $ns," \
        "not on node$node ($want_ns): '$(command -v mpirun)'" \
        "($(mpirun --version 2>&1 | head -n 1)) did not start it through the cluster's agent"
    fi
  done
}

# With --keep-going mpirun exits 0 whatever its ranks return, so each rank runs under this
# wrapper, which records its exit status where cluster.sh can read it (the file system is
# shared by all nodes).
write_rank_wrapper() {
  # shellcheck disable=SC2016 # the wrapper expands these, not this script
  {
    echo '#!/bin/sh'
    echo "# Written by $me for --keep-going: runs one rank and records its exit status."
    echo '"$@"'
    echo 'rc=$?'
    echo 'echo "$rc" >"'"$tmp"'/status.$OMPI_COMM_WORLD_RANK"'
    echo 'exit "$rc"'
  } >"$tmp/rank"
  chmod +x "$tmp/rank"
}

# The exit statuses the rank wrapper recorded, "RANK:STATUS" for each non-zero one, in rank
# order.
failed_ranks() {
  local r status
  for ((r = 0; r < nodes * ranks_per_node; r++)); do
    [[ -r $tmp/status.$r ]] || continue
    read -r status <"$tmp/status.$r" || continue
    [[ $status == 0 ]] || echo "$r:$status"
  done
}

# job_exit_code MPIRUN_STATUS: mpirun's status, unless mpirun could not tell (0 under
# --keep-going, or killed as hung): then the status of the lowest rank that failed, or 1 for a
# hung launcher without one.
job_exit_code() {
  local rc=$1 failed=()
  if ((rc == 0 || (hung_launcher && rc >= 128))); then
    mapfile -t failed < <(failed_ranks)
    if ((${#failed[@]} > 0)); then
      note "ranks that exited non-zero (rank:status): ${failed[*]}"
      rc=${failed[0]#*:}
    elif ((hung_launcher)); then
      rc=1
    fi
  fi
  echo "$rc"
}

# mpirun in node 0, under node 0's name, inside a PID namespace of its own whose first
# process is a shell that waits for mpirun: when that shell ends, the kernel ends and reaps
# every daemon and rank of the job (no orphans, no zombies), whatever state they are in.
# stdin stays the caller's (not /dev/null).
start_job() {
  # shellcheck disable=SC2016 # sh expands these, not this script
  ip netns exec "$(node_ns 0)" unshare --uts --pid --fork --kill-child --mount-proc \
    sh -c 'hostname "$0" && "$@"; exit $?' node0 "${job_command[@]}" <&0 &
  job_pid=$!
}

# children PID: the PIDs of PID's children, one a line.
children() {
  local pids=()
  read -r -a pids 2>/dev/null <"/proc/$1/task/$1/children" || true
  ((${#pids[@]} == 0)) || printf '%s\n' "${pids[@]}"
}

# mpirun's PID (unshare -> the namespace's shell -> mpirun), or nothing once it has ended.
# The shell also adopts the daemons that daemonize, hence the look at each child's argv[0].
mpirun_pid() {
  local shell pid argv0
  shell=$(children "$job_pid")
  [[ -n $shell ]] || return 0
  for pid in $(children "$shell"); do
    argv0=""
    read -r -d '' argv0 2>/dev/null <"/proc/$pid/cmdline" || true
    [[ $argv0 != mpirun ]] || echo "$pid"
  done
}

now_ms() {
  local us=${EPOCHREALTIME//[.,]/}
  echo $((us / 1000))
}

# seconds_ms "2.5" -> 2500
seconds_ms() {
  local whole=${1%%.*} frac=000
  [[ $1 != *.* ]] || frac=${1#*.}000
  echo $((10#$whole * 1000 + 10#${frac:0:3}))
}

# Every process in this run's namespaces, one PID a line.
namespace_pids() {
  local ns
  for ns in "${made_namespaces[@]}"; do
    ip netns pids "$ns" 2>/dev/null || true
  done
}

# Ranks alive now: the processes in this run's namespaces that Open MPI started as ranks.
rank_count() {
  local pids=() pid files=()
  mapfile -t pids < <(namespace_pids)
  for pid in "${pids[@]}"; do files+=("/proc/$pid/environ"); done
  ((${#files[@]} > 0)) || { echo 0; return; }
  { grep -lsz '^OMPI_COMM_WORLD_RANK=' "${files[@]}" || true; } | wc -l
}

take_link_down() {
  if ip -n "$(node_ns 1)" link set "$(node_if 1)" down; then
    note "fault: node1's link $(node_if 1) is down ($fault_s s after the job started)"
  else
    note "fault: could not take node1's link $(node_if 1) down"
  fi
}

# The ranks are gone but mpirun is not (it waits for a daemon it cannot reach, and a SIGTERM
# only makes it wait for the daemons again): KILL it; its shell then exits, which ends the
# PID namespace and every daemon in it. Should that not end the job, KILL the shell too.
# end_hung_launcher WHAT_HAPPENED
end_hung_launcher() {
  local pid
  note "$1 (a node's daemon is unreachable?): ending mpirun"
  hung_launcher=1
  pid=$(mpirun_pid)
  [[ -z $pid ]] || kill -KILL "$pid" 2>/dev/null || true
  wait_gone 3 "$job_pid" && return 0
  pid=$(children "$job_pid")
  [[ -z $pid ]] || kill -KILL "$pid" 2>/dev/null || true
}

# tick_seconds NOW FAULT_AT FAULT_DONE: half a second, or less when the fault is due sooner.
tick_seconds() {
  local ms=500
  if [[ -n $2 ]] && (($3 == 0 && $2 - $1 < ms)); then ms=$(($2 - $1 > 0 ? $2 - $1 : 0)); fi
  printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000))
}

# Waits for the job, taking the link down when --fault says so and ending a hung launcher.
watch_job() {
  local start now fault_at="" seen_ranks=0 idle_since="" fault_done=0
  start=$(now_ms)
  [[ -z $fault_s ]] || fault_at=$((start + $(seconds_ms "$fault_s")))
  while kill -0 "$job_pid" 2>/dev/null; do
    now=$(now_ms)
    if [[ -n $fault_at ]] && ((fault_done == 0 && now >= fault_at)); then
      take_link_down
      fault_done=1
    fi
    if (($(rank_count) > 0)); then
      seen_ranks=1
      idle_since=""
    elif ! kill -0 "$job_pid" 2>/dev/null; then
      break
    elif ((seen_ranks || fault_done)); then
      idle_since=${idle_since:-$now}
      if ((now - idle_since >= hang_grace_s * 1000)); then
        if ((seen_ranks)); then
          end_hung_launcher "every rank has ended but mpirun has not after $hang_grace_s s"
        else
          end_hung_launcher "no rank is running $hang_grace_s s after node1's link went down"
        fi
        break
      fi
    elif ((now - start >= launch_timeout_s * 1000)); then
      end_hung_launcher "no rank has started after $launch_timeout_s s"
      break
    fi
    sleep "$(tick_seconds "$now" "$fault_at" "$fault_done")"
  done
  job_ms=$(($(now_ms) - start))
}

# --- cleanup ---------------------------------------------------------------------------------

# shellcheck disable=SC2317 # reached from the traps
# wait_gone SECONDS PID...: true once none of the PIDs is alive, false after SECONDS.
wait_gone() {
  local tries=$(($1 * 10)) pid alive
  shift
  while ((tries-- > 0)); do
    alive=0
    for pid in "$@"; do
      kill -0 "$pid" 2>/dev/null && alive=1 && break
    done
    ((alive)) || return 0
    sleep 0.1
  done
  return 1
}

# shellcheck disable=SC2317 # reached from the traps
# Every process in this run's namespaces (mpirun, daemons, ranks, their children): TERM, then
# KILL what is left, so that deleting the namespaces frees them.
kill_namespace_processes() {
  local pids=()
  mapfile -t pids < <(namespace_pids)
  ((${#pids[@]} > 0)) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait_gone 2 "${pids[@]}" && return 0
  mapfile -t pids < <(namespace_pids)
  ((${#pids[@]} > 0)) || return 0
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait_gone 2 "${pids[@]}" || note "processes ${pids[*]} did not end"
}

# shellcheck disable=SC2317 # reached from the traps
cleanup() {
  ((cleaned == 0)) || return 0
  cleaned=1
  local ns
  kill_namespace_processes
  for ns in "${made_namespaces[@]}"; do
    ip netns delete "$ns" 2>/dev/null || note "could not delete network namespace $ns"
  done
  [[ -z $tmp ]] || rm -rf "$tmp"
  [[ -z $shm ]] || rm -rf "$shm"
}

# shellcheck disable=SC2317 # reached from the traps
on_exit() {
  local rc=$?
  cleanup
  exit "$rc"
}

# shellcheck disable=SC2317 # reached from the traps
on_signal() {
  trap '' INT TERM HUP
  note "$1: ending the job and removing the cluster"
  cleanup
  exit "$2"
}

# --- main ------------------------------------------------------------------------------------

main() {
  parse_options "$@"
  check_machine
  trap on_exit EXIT
  trap 'on_signal SIGINT 130' INT
  trap 'on_signal SIGTERM 143' TERM
  trap 'on_signal SIGHUP 129' HUP
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX" 2>/dev/null) ||
    fail "cannot create a directory in ${TMPDIR:-/tmp}"
  # Shared-memory segments of ranks on one node: in RAM, and removed with the cluster.
  shm=$(mktemp -d "/dev/shm/$prefix.XXXXXX" 2>/dev/null) ||
    fail "cannot create a directory in /dev/shm"
  if use_router; then build_star; else build_pair; fi
  describe_cluster
  write_agent
  write_hostfile
  ((keep_going == 0)) || write_rank_wrapper
  check_placement
  note "placement checked: rank k on node k / $ranks_per_node, its hostname and network namespace"
  mpirun_command "${program[@]}"
  hung_launcher=0
  start_job
  watch_job
  local rc=0
  wait "$job_pid" || rc=$?
  rc=$(job_exit_code "$rc")
  note "job ended with exit code $rc after $((job_ms / 1000)).$(printf %03d $((job_ms % 1000))) s"
  exit "$rc"
}

main "$@"
