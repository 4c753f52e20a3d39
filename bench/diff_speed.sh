#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# diff_speed.sh: how long `mpilens diff` takes on two large runs: bench/comm_churn on RANKS
# ranks (default 64), each rank making 200 communicators that each carry one Allreduce,
# under the profile module (about 200 profile rows per rank: 13,000 at 64 ranks). Prints
# the rows of each database and the diff's time (the best of 5, text and CSV), against the
# budget of 1 s (issue 34).
#
# Usage: bench/diff_speed.sh [BUILD_DIR] [RANKS]
set -eu
build=$(realpath "${1:-build}")
ranks=${2:-64}
launcher="mpirun --allow-run-as-root --oversubscribe"
[ -x "$build/bin/mpilens" ] && grep -q mpich "$build/CMakeCache.txt" && launcher="mpirun.mpich"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in a b; do
    "$build/bin/mpilens" run -m profile -o "$work/$side" -- $launcher -np "$ranks" \
        "$build/bench/comm_churn" dup 200 0 1 > "$work/$side.log" 2>&1 ||
        { echo "the run failed:"; tail -5 "$work/$side.log"; exit 1; }
done
rows=$(sqlite3 "$work/a/mpilens.db" "SELECT COUNT(*) FROM profile")
best() { # best of 5 wall-clock seconds of the command
    local b=999
    for _ in 1 2 3 4 5; do
        local t0=$(date +%s.%N)
        "$@" > /dev/null
        local t1=$(date +%s.%N)
        b=$(awk -v b="$b" -v t="$(awk -v a="$t0" -v z="$t1" 'BEGIN { print z - a }')" \
            'BEGIN { print (t < b ? t : b) }')
    done
    echo "$b"
}
text=$(best "$build/bin/mpilens" diff "$work/a" "$work/b")
csv=$(best "$build/bin/mpilens" diff "$work/a" "$work/b" --csv)
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
printf 'cpu: %s\nranks: %d, profile rows per database: %d\n' "$cpu" "$ranks" "$rows"
printf 'mpilens diff: %.3f s (text), %.3f s (CSV); budget 1 s: %s\n' "$text" "$csv" \
    "$(awk -v t="$text" -v c="$csv" 'BEGIN { print (t < 1 && c < 1) ? "within" : "OVER" }')"
