#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# live_cost.sh: what `mpilens top` costs the application: the ranks' periodic snapshots
# every second (mpilens run --snapshot 1, the live view's period) against none
# (--snapshot 0), on RANKS ranks (default 8) of bench/p2p_stream exchange (each rank
# Sendrecv with both ring neighbours, MESSAGES of them, default 2000000: about 6 s), under
# profile,monitor. The two settings alternate, PAIRS times (default 5), so that a change
# in the machine's load falls on both; prints each run's wall time, the medians and their
# ratio, and the CPU.
#
# Usage: bench/live_cost.sh [BUILD_DIR] [RANKS] [MESSAGES] [PAIRS]
set -eu
build=$(realpath "${1:-build}")
ranks=${2:-8}
messages=${3:-2000000}
pairs=${4:-5}
launcher="mpirun --allow-run-as-root --oversubscribe"
grep -q mpich "$build/CMakeCache.txt" && launcher="mpirun.mpich"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
one() { # SNAPSHOT: the wall time of one run, from the profile's own clock (MPI_Init to end)
    rm -rf "$work/run"
    "$build/bin/mpilens" run -m profile,monitor --snapshot "$1" -o "$work/run" -- $launcher \
        -np "$ranks" "$build/bench/p2p_stream" exchange "$messages" > /dev/null 2>&1
    sqlite3 "$work/run/mpilens.db" "SELECT value FROM metadata WHERE key = 'Wall time'"
}
off=() on=()
for _ in $(seq "$pairs"); do
    off+=("$(one 0)")
    on+=("$(one 1)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m0=$(median "${off[@]}") m1=$(median "${on[@]}")
printf 'cpu: %s\n' "$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
printf '%d ranks, p2p_stream exchange %d, profile,monitor\n' "$ranks" "$messages"
printf 'wall s, --snapshot 0: %s\n' "${off[*]}"
printf 'wall s, --snapshot 1: %s\n' "${on[*]}"
awk -v a="$m0" -v b="$m1" 'BEGIN { printf "median %.3f s vs %.3f s: ratio %.4f (%+.2f %%)\n",
    a, b, b / a, 100 * (b / a - 1) }'
