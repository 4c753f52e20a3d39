#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# analyze_speed.sh: how long `mpilens analyze` takes against the traced run's own length
# (Scalasca's claim: a replay takes about the time the application spent communicating).
# bench/p2p_stream on 4 ranks, traced, for each mode (stream: a sender far ahead of its
# receiver; exchange: Sendrecv with both ring neighbours; allreduce) and each size; prints
# the traced run's time (mpilens analyze's own measure, MPI_Init to MPI_Finalize of the
# trace), the analysis time, their ratio, and the peak RSS of the largest analyze rank.
#
# Usage: bench/analyze_speed.sh [BUILD_DIR] [SIZES...]   (default sizes: 100000 1000000)
set -eu
build=$(realpath "${1:-build}")
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100000 1000000)
launcher="mpirun --allow-run-as-root --oversubscribe"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %9s %10s %11s %7s\n' mode operations "traced s" "analyze s" ratio
for mode in stream exchange allreduce; do
    for n in "${sizes[@]}"; do
        rm -rf "$work/run"
        "$build/bin/mpilens" run --no-record -m trace -o "$work/run" -- $launcher -np 4 \
            "$build/bench/p2p_stream" $mode "$n" > /dev/null 2>&1
        line=$("$build/bin/mpilens" analyze "$work/run" 2>&1 | tail -1)
        seconds=$(sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' <<<"$line")
        traced=$(sed -n 's/.*of the traced \([0-9.]*\) s).*/\1/p' <<<"$line")
        awk -v m=$mode -v n="$n" -v t="$traced" -v s="$seconds" \
            'BEGIN { printf "%-10s %9d %10.3f %11.3f %7.2f\n", m, n, t, s, s / t }'
    done
done
echo "(4 ranks, $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'))"
