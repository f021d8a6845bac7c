#!/usr/bin/env bash
# The schedules between nodes side by side with redist-run (one build target instead of
# redist-bench's suites), cases a-d of `redist-bench --suite cluster` at its extents:
#   sudo bench/cluster_schedules.sh OUT_DIR BUILD_DIR "2x2 2x1 3x1" "1gbit 10gbit" [REPEAT]
# One scripts/cluster.sh job per (topology, rate, case, schedule): all at once, the
# caterpillar, the shift (SCHEDULES overrides the list), ScaLAPACK storage, no verification
# (the MPI suite checks the data); each job's redist-run JSON is
# OUT_DIR/TOPO-RATE-CASE-SCHEDULE.json with the load before it. MTU sets the links' frame
# size (scripts/cluster.sh --mtu; 1500 by default); CLUSTER_OPTIONS adds options of
# scripts/cluster.sh to every job (e.g. "--tcp-cc reno"). Per topology and rate, first, the anchor:
# what plain TCP carries both ways over the links (bench/link_anchor.py), as
# OUT_DIR/TOPO-RATE-anchor.json.
# bench/plots/cluster_schedules.py pools them.
set -euo pipefail
out=$1 build=$2 topologies=$3 rates=$4 repeat=${5:-5}
mkdir -p "$out"
# case -> source and target (P: ranks); extents per topology and rate (suites_cluster.cpp's
# scaling to a link bound of 0.5 s, bench/README.md "Cluster"; at 250 Mbit/s half the 1 Gbit/s
# extents: a link slow enough to be the bottleneck on a loaded 2-core machine).
declare -A size=(
  [2x1-1gbit-a]=5632x5632 [2x1-1gbit-b]=5632x5632 [2x1-1gbit-c]=5632x5632 [2x1-1gbit-d]=4672x6976
  [2x1-2.5gbit-a]=8896x8896 [2x1-2.5gbit-b]=8896x8896 [2x1-2.5gbit-c]=8896x8896 [2x1-2.5gbit-d]=7296x10944
  [2x1-10gbit-a]=17728x17728 [2x1-10gbit-b]=17728x17728 [2x1-10gbit-c]=17728x17728 [2x1-10gbit-d]=14592x21888
  [2x2-1gbit-a]=5568x5568 [2x2-1gbit-b]=5632x5632 [2x2-1gbit-c]=5632x5632 [2x2-1gbit-d]=4608x6848
  [2x2-2.5gbit-a]=8768x8768 [2x2-2.5gbit-b]=8896x8896 [2x2-2.5gbit-c]=8896x8896 [2x2-2.5gbit-d]=7232x10816
  [2x2-10gbit-a]=17856x17856 [2x2-10gbit-b]=17728x17728 [2x2-10gbit-c]=17728x17728 [2x2-10gbit-d]=14464x21632
  [2x1-250mbit-a]=2816x2816 [2x1-250mbit-b]=2816x2816 [2x1-250mbit-c]=2816x2816 [2x1-250mbit-d]=2336x3488
  [2x2-250mbit-a]=2784x2784 [2x2-250mbit-b]=2816x2816 [2x2-250mbit-c]=2816x2816 [2x2-250mbit-d]=2304x3424
  [3x1-250mbit-a]=2912x2912 [3x1-250mbit-b]=2976x2976 [3x1-250mbit-c]=2784x2784 [3x1-250mbit-d]=2368x3552
  [3x1-1gbit-a]=5824x5824 [3x1-1gbit-b]=5952x5952 [3x1-1gbit-c]=5568x5568 [3x1-1gbit-d]=4736x7104
  [3x1-2.5gbit-a]=9408x9408 [3x1-2.5gbit-b]=9408x9408 [3x1-2.5gbit-c]=9280x9280 [3x1-2.5gbit-d]=7680x11456
  [3x1-10gbit-a]=18816x18816 [3x1-10gbit-b]=18752x18752 [3x1-10gbit-c]=18496x18496 [3x1-10gbit-d]=15296x22912
)
# Node i's address in scripts/cluster.sh: a pair shares one /24, more nodes sit behind a router.
node_addr() {
  if (($2 == 2)); then echo "198.18.0.$(($1 + 1))"; else echo "198.18.$(($1 + 1)).2"; fi
}
# rate in tc's units -> bytes that take 0.5 s at it (the cases' bound).
anchor_bytes() {
  python3 -c "import re,sys; v,u=re.fullmatch(r'([0-9.]+)([kmg]?)bit',sys.argv[1]).groups();
print(int(float(v)*{'':1,'k':1e3,'m':1e6,'g':1e9}[u]*0.5/8))" "$1"
}
for topo in $topologies; do
  nodes=${topo%x*} rpn=${topo#*x}
  P=$((nodes * rpn))
  for rate in $rates; do
    # The anchor: plain TCP both ways over every link at once (bench/link_anchor.py), one
    # rank per node, 0.5 s at the rate; three times.
    addrs=()
    for ((i = 0; i < nodes; i++)); do addrs+=("$(node_addr "$i" "$nodes")"); done
    for _ in 1 2 3; do
      # shellcheck disable=SC2086 # CLUSTER_OPTIONS is a list of options
      scripts/cluster.sh --nodes "$nodes" --mtu "${MTU:-1500}" ${CLUSTER_OPTIONS:-} --rate "$rate" -- \
        python3 bench/link_anchor.py "$(anchor_bytes "$rate")" "${addrs[@]}" 2>/dev/null
    done | python3 -c "import json,re,sys
# The nodes print at once: their lines may run together, so every JSON object is taken.
rows=[json.loads(m) for m in re.findall(r'\{[^{}]*\}', sys.stdin.read())]
json.dump({'topology': sys.argv[1], 'link_rate': sys.argv[2], 'mtu': int(sys.argv[3]),
           'tcp_anchor': rows}, open(sys.argv[4], 'w'))" "$topo" "$rate" "${MTU:-1500}" \
      "$out/$topo-$rate-anchor.json"
    for c in a b c d; do
      e=${size[$topo-$rate-$c]}
      case $c in
        a) src="$e/256x256/bc:1x$P/scalapack" dst="$e/100x100/bc:${P}x1/scalapack" ;;
        b) src="$e/64x64/bc:${P}x1/scalapack" dst="$e/64x64/bc:1x$P/scalapack" ;;
        c) src="$e/1024x1024/bc:${P}x1/scalapack" dst="$e/32x32/bc:${P}x1/scalapack" ;;
        d) src="$e/128x96/bc:${P}x1/scalapack" dst="$e/100x70/bc:1x$P/scalapack" ;;
      esac
      for s in ${SCHEDULES:-all-at-once caterpillar shift}; do
        f="$out/$topo-$rate-$c-$s.json"
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo "cluster_schedules: $topo $rate $c $s (load $load)"
        # shellcheck disable=SC2086 # CLUSTER_OPTIONS is a list of options
        OMP_NUM_THREADS=1 scripts/cluster.sh --nodes "$nodes" --ranks-per-node "$rpn" --mtu "${MTU:-1500}" \
          ${CLUSTER_OPTIONS:-} --rate "$rate" -- "$build/apps/redist-run" --src "$src" --dst "$dst" \
          --repeat "$repeat" --inter-node-schedule "$s" --json "$f" >/dev/null
        python3 - "$f" "$topo" "$rate" "$c" "$s" "$load" "$(cut -d' ' -f1 /proc/loadavg)" \
          "${MTU:-1500}" <<'EOF'
import json, sys
f, topo, rate, case, schedule, l0, l1, mtu = sys.argv[1:]
d = json.load(open(f))
d.update({"topology": topo, "link_rate": rate, "case": case, "inter_node_schedule": schedule,
          "loadavg_start": float(l0), "loadavg_end": float(l1), "mtu": int(mtu)})
json.dump(d, open(f, "w"))
EOF
      done
    done
  done
done
