#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# trace_memory.sh: the trace's memory stays bounded however long the run (docs/modules.md,
# "trace"): 4 ranks exchanging with both ring neighbours (bench/p2p_stream exchange: two
# MPI_Sendrecv per round, SENDS per rank), untraced and traced; prints the peak RSS of the
# largest rank (from
# getrusage of each rank's children) and the trace's size.
# With the event buffers at their default (4 MiB) the traced peak should stay
# the same from 10^4 to 10^6 sends (before the event log, OTF2 kept the whole trace in
# memory until MPI_Finalize). B/event: bytes of the OTF2 event files per event.
#
# Usage: bench/trace_memory.sh [BUILD_DIR] [SENDS...]   (default: 10000 100000 1000000)
set -eu
build=$(realpath "${1:-build}")
shift || true
rounds=("${@:-10000 100000 1000000}")
[ $# -eq 0 ] && rounds=(10000 100000 1000000)
launcher="mpirun --allow-run-as-root --oversubscribe"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# peak_kb CMD...: the largest peak RSS (KiB) of the ranks CMD starts (each rank reports its own)
# (each in a file of its own: lines printed by several ranks may interleave)
cat > "$work/peak.py" <<'PY'
import os, resource, subprocess, sys
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, check=True)
with open(os.path.join(sys.argv[1], str(os.getpid())), 'w') as f:
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=f)
PY
peak_kb() {
    rm -rf "$work/peaks" && mkdir "$work/peaks"
    "$@" > /dev/null 2>&1
    cat "$work/peaks/"* | sort -n | tail -1
}
printf '%9s %12s %12s %10s %9s\n' sends "plain MiB" "traced MiB" "trace MB" "B/event"
for n in "${rounds[@]}"; do
    plain=$(peak_kb $launcher -np 4 python3 "$work/peak.py" "$work/peaks" "$build/bench/p2p_stream" exchange "$n")
    rm -rf "$work/run"
    traced=$(MPILENS_OUTPUT=$work/run LD_PRELOAD=$build/lib/libmpilens.so MPILENS_MODULES=trace \
        peak_kb $launcher -np 4 python3 "$work/peak.py" "$work/peaks" "$build/bench/p2p_stream" exchange "$n")
    bytes=$(cat "$work/run/trace/traces/"*.evt | wc -c)
    events=$((4 * n * 4)) # per rank and send: Enter, Send, Recv, Leave of a Sendrecv
    awk -v n="$n" -v p="$plain" -v t="$traced" -v b="$bytes" -v e="$events" 'BEGIN {
        printf "%9d %12.1f %12.1f %10.1f %9.1f\n", n, p / 1024, t / 1024, b / 1e6, b / e }'
done
echo "(4 ranks, $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'))"
