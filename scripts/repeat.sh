#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# repeat.sh [--mpich] [--no-load] [-j N] N LABEL...: the tests of each LABEL (CTest labels:
# timed, quiet, slurm, multinode, ...) run N times in a row beside two CPU-bound loops (what
# a shared CI machine has; --no-load: without them), against the Debian 12 build of Open
# MPI (build/) or, with --mpich, of MPICH (build-mpich/), built first if missing. Prints,
# per test, how many of its runs failed, and keeps each failure's output in
# /tmp/mpilens-repeat.*/ (named in the last line). The suite's flakes are known this way,
# not retried away (docs/testing.md, Repeating tests). Also `scripts/test.sh --repeat ...`.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavor=openmpi dir=$top/build load=1 jobs=1
while [ $# -gt 0 ]; do
    case "$1" in
        --mpich) flavor=mpich dir=$top/build-mpich; shift ;;
        --no-load) load=0; shift ;;
        -j) jobs=$2; shift 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: scripts/repeat.sh [--mpich] [--no-load] [-j N] N LABEL..." >&2
    exit 2
fi
times=$1
shift
labels=$(IFS='|'; echo "$*")
[ -f "$dir/CMakeCache.txt" ] || "$top/scripts/build.sh" "$flavor" >/dev/null || exit 1
logs=$(mktemp -d /tmp/mpilens-repeat.XXXXXX)
loops=()
stop_loops() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null; done; }
trap stop_loops EXIT
if [ $load = 1 ]; then
    for _ in 1 2; do
        (while :; do :; done) &
        loops+=($!)
    done
fi
declare -A runs fails
start=$(date +%s)
for round in $(seq "$times"); do
    out=$(cd "$dir" && ctest -L "^($labels)\$" -j "$jobs" --output-on-failure 2>&1)
    for t in $(sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*/\1/p' <<<"$out"); do
        runs[$t]=$(( ${runs[$t]:-0} + 1 ))
    done
    for t in $(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' <<<"$out"); do
        fails[$t]=$(( ${fails[$t]:-0} + 1 ))
        cp /dev/stdin "$logs/$t.$round.log" <<<"$out"
    done
    failed=0
    for t in "${!fails[@]}"; do failed=$((failed + fails[$t])); done
    echo "round $round of $times: $(( $(date +%s) - start )) s so far, $failed failure(s)"
done
printf '%-28s %6s %8s\n' TEST RUNS FAILURES
for t in $(printf '%s\n' "${!runs[@]}" | sort); do
    printf '%-28s %6d %8d\n' "$t" "${runs[$t]}" "${fails[$t]:-0}"
done
total=0
for t in "${!fails[@]}"; do total=$((total + fails[$t])); done
echo "repeat: labels $labels, $times rounds, $( [ $load = 1 ] && echo "beside two busy loops" || echo "no load"), $flavor: $total failure(s); their output in $logs"
[ "$total" = 0 ]
