# SPDX-License-Identifier: BSD-3-Clause
# test_multinode.sh: the same results on two nodes as on one (tests/multinode/cluster.sh:
# two emulated nodes, their CLOCK_MONOTONIC 3 s ahead and 3 s behind this machine's, each
# with its own /tmp). Open MPI crosses them through its rsh agent, MPICH's Hydra through
# -launcher ssh -launcher-exec (Open MPI 5's PRRTE: --prtemca plm_ssh_agent). Checked: the traced ring's events on one clock (every
# offset within its measured error, no receive before its send, the Barrier's leaves after
# its last enter, in OTF2's own reader and in ours); analyze replays across the nodes with
# the recorded launcher line; a node-local -o ends complete with status 0, and a job that
# dies there has its other node's records brought over (by mpilens run, or by mpilens
# recover DIR -- LAUNCHER); place maps the ranks onto both hosts, and the launcher runs the
# mapping.
[ "$(id -u)" = 0 ] || { echo "SKIP: the emulated cluster needs root (namespaces)"; exit 77; }
command -v unshare >/dev/null && command -v nsenter >/dev/null && command -v ip >/dev/null ||
    { echo "FAIL: unshare, nsenter and ip (util-linux, iproute2) are needed"; exit 1; }
export TMPDIR=/var/tmp # the nodes hide this machine's /tmp: the test's files stay visible
source "$(dirname "$0")/../core/lib.sh"
CLUSTER=$WORK/cluster
NODES="$SRC/tests/multinode/cluster.sh"
trap '"$NODES" down "$CLUSTER"; rm -rf "$WORK"' EXIT
CLUSTER_SHARED="$BUILD:$SRC" "$NODES" up "$CLUSTER" 3 -3 || { echo "FAIL: the emulated cluster did not start"; exit 1; }
on() { local node=$1; shift; "$NODES" on "$CLUSTER" "$node" "$@"; }
PY=/usr/bin/python3
export PYTHONPATH=$SRC/python

if [ "$MPI_FLAVOR" = openmpi ] && [ "${OMPI_MAJOR:-4}" -ge 5 ]; then
    # PRRTE: its rsh agent is plm_ssh_agent, and --oversubscribe would pack every rank onto
    # the first host (the hosts' slots are given, so it is not needed)
    LAUNCH="${MPIRUN/ --oversubscribe/} --prtemca plm_ssh_agent $CLUSTER/rsh"
    HOSTS="--host node1:2,node2:2"
elif [ "$MPI_FLAVOR" = openmpi ]; then
    LAUNCH="$MPIRUN --mca plm_rsh_agent $CLUSTER/rsh"
    HOSTS="--host node1:2,node2:2"
else
    export UCX_NET_DEVICES=eth0 # the nodes' interface: UCX would look for others
    LAUNCH="$MPIRUN -launcher ssh -launcher-exec $CLUSTER/rsh"
    HOSTS="-hosts node1:2,node2:2"
fi

# ---- a traced ring across the nodes, written to a shared directory ----
# (the runs whose results are checked run once more after a rank's crash at start-up:
# retry_crashed, tests/core/lib.sh)
retry_crashed 'rm -rf "$WORK/ring"' on node1 timeout 120 "$MPILENS" run \
    -m profile,monitor,trace -o "$WORK/ring" -- $LAUNCH $HOSTS -np 4 "$APPS/ring" 20
check_has "ring across nodes: complete" "$out" "mpilens: results in $WORK/ring (status 0)"
error=$(otf2-print -A "$WORK/ring/trace/traces.otf2" | awk '/MPILENS::CLOCK_OFFSET_ERROR_NS/ {
    getline; print $3 }')
check_match "the offsets' error is stored" "$error" '^[0-9]+$'
echo "offset error: ${error:-?} ns"
# OTF2's offset (global = local + offset) of node2's ranks, 6 s behind: +6 s within the error
offsets=$(otf2-print -C "$WORK/ring/trace/traces.otf2" | awk -v e="${error:-0}" '
    /CLOCK_OFFSET/ { o = $6; gsub(/[+,]/, "", o); want = ($2 >= 2) ? 6e9 : 0;
                     d = o - want; if (d < 0) d = -d;
                     print "rank " $2 ": " ((d <= e + 2000) ? "within" : "off by " d) }' | sort -u)
check_eq "each rank's offset is the clocks' within the error" "rank 0: within
rank 1: within
rank 2: within
rank 3: within" "$offsets"
order=$($PY - "$WORK/ring" "${error:-0}" <<'EOF'
import sys, mpilens
run, err = mpilens.open(sys.argv[1]), float(sys.argv[2]) * 1e-9 + 2e-6
ev = run.events()
print("ranks", sorted(int(r) for r in ev["rank"].unique()))
m = run.messages()
print("messages", len(m), "early receives", int((m["latency"] < -err).sum()))
print("smallest latency %.1f us, error %.1f us" % (m["latency"].min() * 1e6, err * 1e6),
      file=sys.stderr)
b = ev[ev["region"] == "MPI_Barrier"]
enters, leaves = b[b["event"] == "Enter"]["time"], b[b["event"] == "Leave"]["time"]
print("barrier leave before its last enter", bool(leaves.min() < enters.max() - err))
first = ev.groupby("rank")["time"].min()
print("first events within 1 s", bool(first.max() - first.min() < 1.0))
EOF
)
check_eq "one timeline in Python's reader (OTF2's)" "ranks [0, 1, 2, 3]
messages 80 early receives 0
barrier leave before its last enter False
first events within 1 s True" "$order"
# our own reader: export's timeline
"$MPILENS" export "$WORK/ring" --chrome "$WORK/ring.json" >/dev/null 2>&1
chrome=$($PY - "$WORK/ring.json" "${error:-0}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
err = float(sys.argv[2]) * 1e-3 + 2  # microseconds: the measured error, and the rounding
ev = d["traceEvents"] if isinstance(d, dict) else d
b = [e for e in ev if e.get("name") == "MPI_Barrier"]
enter = max(e["ts"] for e in b if e["ph"] == "B")
leave = min(e["ts"] for e in b if e["ph"] == "E")
print("barrier in order", leave >= enter - err)
EOF
)
check_eq "one timeline in export" "barrier in order True" "$chrome"

# where the ranks ran, and the bytes within and between hosts
check_has "report names the hosts" "$("$MPILENS" report "$WORK/ring" 2>&1)" \
    "  hosts           2: node1 (ranks 0-1), node2 (ranks 2-3)"
matrix=$("$MPILENS" matrix "$WORK/ring" --kind p2p 2>&1)
check_has "matrix: within and between hosts" "$matrix" \
    "within hosts 40 messages, 40960 bytes; between hosts 40 messages, 40960 bytes"
page=$(grep -o 'Within hosts: <b>[0-9]*</b> bytes; between hosts: <b>[0-9]*</b> bytes ([0-9]* hosts' \
    "$WORK/ring/report.html")
check_eq "the run's page: within and between hosts apart" \
    "Within hosts: <b>40960</b> bytes; between hosts: <b>40960</b> bytes (2 hosts" "$page"
check_eq "the page's heatmap: the cells between hosts outlined (1 -> 2, 3 -> 0)" \
    "rank 1 to rank 2|rank 3 to rank 0" \
    "$(grep -o '<title>rank [0-9] to rank [0-9]: [0-9]* bytes, [0-9]* messages (between hosts)' \
        "$WORK/ring/report.html" | sed 's/<title>//; s/:.*//' | paste -sd'|')"
check_eq "the run's record (from its profile and matrix): 2 nodes, within and between hosts" \
    "2 2-2 40 40960 40 40960" \
    "$($PY -c 'import json, sys; r = json.load(open(sys.argv[1])); p = r["point_to_point"]; print(r["nodes"], "%d-%d" % (r["ranks_per_node"]["min"], r["ranks_per_node"]["max"]), p["within_hosts"]["messages"], p["within_hosts"]["bytes"], p["between_hosts"]["messages"], p["between_hosts"]["bytes"])' "$WORK/ring/summary.json" 2>&1)"
check_eq "Python: each rank's host" "node1 node1 node2 node2" \
    "$($PY -c 'import sys, mpilens; print(*mpilens.open(sys.argv[1]).ranks["host"])' "$WORK/ring")"

# analyze, with the launcher line mpilens run recorded (the rsh agent's value included)
out=$(on node1 timeout 180 "$MPILENS" analyze "$WORK/ring" 2>&1)
check_match "analyze across nodes, no --launcher" "$out" \
    "replayed the trace of 4 ranks with: .*(plm_rsh_agent $CLUSTER/rsh|plm_ssh_agent $CLUSTER/rsh|-launcher-exec $CLUSTER/rsh) .*node1:2,node2:2"
waits=$("$MPILENS" report --waits "$WORK/ring" 2>&1)
check_match "wait states stored" "$waits" '^ +Late Sender +[0-9.]+'

# ---- node-local output: each node has its own /tmp ----
retry_crashed "on node1 rm -rf /tmp/local; on node2 rm -rf /tmp/local" on node1 timeout 120 \
    "$MPILENS" run -m profile,monitor,trace -o /tmp/local -- $LAUNCH $HOSTS -np 4 \
    "$APPS/ring" 20
check_has "node-local -o: complete" "$out" "mpilens: results in /tmp/local (status 0)"
check_eq "node-local: the other node's copy is gone" "gone" \
    "$(on node2 test -e /tmp/local && echo left || echo gone)"
check_eq "node-local: where the ranks wrote" "node2 2 3" "$(on node1 cat /tmp/local/node-local)"
ranks=$(on node1 $PY -c '
import mpilens
run = mpilens.open("/tmp/local")
print(sorted(int(r) for r in run.events()["rank"].unique()), len(run.ranks))' 2>&1)
check_eq "node-local: every rank's events and profile" "[0, 1, 2, 3] 4" "$ranks"
out=$(on node1 "$MPILENS" report /tmp/local 2>&1)
check_lacks "node-local: nothing marked missing" "$out" "nothing saved"

# ---- a job that dies (MPI_Abort: Hydra through a custom launcher leaves the other node's
# ranks of a rank's exit running, with or without mpilens): mpilens run brings node2's
# records over under the same launcher ----
out=$(on node1 timeout 120 "$MPILENS" run -m profile,monitor,trace --snapshot 1 -o /tmp/died -- \
    $LAUNCH $HOSTS -np 4 "$APPS/long_app" 40 abort 2>&1)
check_has "dying job: node2's records named and brought" "$out" \
    "mpilens: the job ended before MPI_Finalize: bringing what node2:/tmp/died (ranks 2 3) kept"
check_match "dying job: marked incomplete" "$out" \
    "^mpilens: job ended abnormally \\(status [0-9]+[^)]*\\); partial results in /tmp/died"
check_eq "dying job: node2's copy is gone" "gone" \
    "$(on node2 test -e /tmp/died && echo left || echo gone)"
check_match "dying job: every rank's end known" "$(on node1 "$MPILENS" report /tmp/died 2>&1)" \
    "incomplete run .*rank 1: MPI_Abort"
check_lacks "dying job: no rank without records" "$(on node1 "$MPILENS" report /tmp/died 2>&1)" \
    "nothing saved"
# without mpilens run (the core preloaded by hand): mpilens recover DIR -- LAUNCHER collects
FORWARD="-x LD_PRELOAD -x MPILENS_MODULES -x MPILENS_OUTPUT -x MPILENS_SNAPSHOT"
[ "$MPI_FLAVOR" = openmpi ] || FORWARD=""
on node1 env LD_PRELOAD="$CORE" MPILENS_MODULES=profile,monitor MPILENS_OUTPUT=/tmp/by-hand \
    MPILENS_SNAPSHOT=1 \
    timeout 120 $LAUNCH $HOSTS -np 4 $FORWARD "$APPS/long_app" 40 abort >/dev/null 2>&1
check_eq "by hand: node2 kept its ranks' records" "monitor.2 monitor.3 profile.2 profile.3" \
    "$(on node2 ls /tmp/by-hand/partial | sort | tr '\n' ' ' | sed 's/ $//')"
# A rank killed while it saves leaves its temporary file (seen once: 5 files brought over):
# never a record, it is not brought over, and goes with node2's copy.
on node2 sh -c 'echo cut short > /tmp/by-hand/partial/.profile.2.tick'
if [ "$MPI_FLAVOR" = openmpi ]; then ONE_EACH="--host node1,node2 -np 2"; else
    ONE_EACH="-hosts node1,node2 -n 2"; fi
out=$(on node1 timeout 120 "$MPILENS" recover /tmp/by-hand -- $LAUNCH $ONE_EACH 2>&1)
check_has "recover -- LAUNCHER: brought over" "$out" "mpilens: recover: node2:/tmp/by-hand: 4 files brought over"
check_eq "recover -- LAUNCHER: the four ranks merged" "4" \
    "$(on node1 sqlite3 /tmp/by-hand/mpilens.db "SELECT COUNT(*) FROM ranks")"
check_eq "recover -- LAUNCHER: node2's copy is gone, its save cut short with it" "gone" \
    "$(on node2 test -e /tmp/by-hand && echo left || echo gone)"

# ---- place across the nodes: partners 0-3 and 1-2 end on one host each ----
on node1 timeout 120 "$MPILENS" run -m monitor -o "$WORK/pairs" -- \
    $LAUNCH $HOSTS -np 4 "$APPS/reorder_app" >/dev/null 2>&1
out=$("$MPILENS" place "$WORK/pairs" -o "$WORK/map" 2>&1)
check_match "place knows the run's hosts" "$out" '^topology: run \(Host:2 '
hosts=$(awk '{ split($2, a, "[= ]"); h[$2 ~ /node1/ ? "node1" : "node2"]++ } END {
    print h["node1"], h["node2"] }' "$WORK/map")
check_eq "the mapping names both hosts, two ranks each" "2 2" "$hosts"
host_of() { sed -n "s/^rank $1=\([^ ]*\) .*/\1/p" "$WORK/map"; }
check_eq "partners 0 and 3 share a host" "$(host_of 0)" "$(host_of 3)"
check_eq "partners 1 and 2 share a host" "$(host_of 1)" "$(host_of 2)"
if [ "$MPI_FLAVOR" = openmpi ]; then # the rankfile option place names (Open MPI 5: --map-by)
    MAPPED="$LAUNCH $(sed -n "s|.*(mpirun \(.*\)$WORK/map), .*|\1|p" <<<"$out")$WORK/map"
    # PRRTE maps a rankfile onto the hosts allocated: name them
    [ "${OMPI_MAJOR:-4}" -ge 5 ] && MAPPED+=" $HOSTS"
else
    MAPPED="$LAUNCH -f $WORK/map.mpich"
fi
retry_crashed 'rm -rf "$WORK/mapped"' on node1 timeout 120 "$MPILENS" run -m monitor \
    -o "$WORK/mapped" -- $MAPPED -np 4 "$APPS/reorder_app"
check_has "the launcher runs the mapping" "$out" "mpilens: results in $WORK/mapped (status 0)"
placed=$(sqlite3 "$WORK/mapped/mpilens.db" "SELECT group_concat(host, ' ') FROM
    (SELECT host FROM monitor_hosts ORDER BY rank)")
check_eq "each rank ran where the mapping put it" \
    "$(host_of 0) $(host_of 1) $(host_of 2) $(host_of 3)" "$placed"

finish
