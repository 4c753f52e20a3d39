#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# trace_cost.sh: what tracing costs on a one-sided halo exchange (bench/rma_halo.c, fence
# and post/start/complete/wait variants) at 2, 4 and 8 ranks: the run time per iteration
# untraced and traced (alternating runs, the medians of ROUNDS), the tracing cost per event,
# the trace bytes per event, and the time `mpilens analyze` takes as a percentage of the
# traced run's time (the Scalasca paper reached about 1 %). The replay redoes the
# communication, so for pure communication (COMPUTE_US 0) it takes about as long as the
# run; with computation between exchanges (COMPUTE_US per iteration, as in applications)
# the percentage falls toward the paper's.
#
# Usage: bench/trace_cost.sh [BUILD_DIR] [ITERATIONS] [ROUNDS] [COMPUTE_US]   (Open MPI, osc pt2pt)
set -eu
build=$(realpath "${1:-build}") iterations=${2:-2000} rounds=${3:-3} compute=${4:-0}
launcher="mpirun --allow-run-as-root --oversubscribe --mca osc pt2pt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
us() { sed -n 's/.*us_per_iteration=\([0-9.]*\).*/\1/p'; }
printf '%-6s %5s %12s %12s %7s %10s %9s %11s %9s\n' variant ranks "plain us/it" "traced us/it" ratio \
    "ns/event" "B/event" "analyze s" "% of run"
for np in 2 4 8; do
    for variant in fence gats; do
        plain=() traced=()
        for r in $(seq "$rounds"); do
            plain+=("$($launcher -np "$np" "$build/bench/rma_halo" $variant "$iterations" 1024 "$compute" | us)")
            traced+=("$("$build/bin/mpilens" run --no-record -m trace -o "$work/run" -- $launcher -np "$np" \
                "$build/bench/rma_halo" $variant "$iterations" 1024 "$compute" 2>/dev/null | us)")
        done
        p=$(printf '%s\n' "${plain[@]}" | median) t=$(printf '%s\n' "${traced[@]}" | median)
        line=$("$build/bin/mpilens" analyze "$work/run" --launcher "$launcher" 2>&1 | tail -1)
        events=$(sed -n 's/.*analysis of \([0-9]*\) events.*/\1/p' <<<"$line")
        seconds=$(sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' <<<"$line")
        percent=$(sed -n 's/.*(\([0-9.]*\) % of the traced.*/\1/p' <<<"$line")
        bytes=$(cat "$work/run/trace/traces/"*.evt | wc -c)
        awk -v v=$variant -v n=$np -v p="$p" -v t="$t" -v e="$events" -v b="$bytes" \
            -v it="$iterations" -v s="$seconds" -v pc="$percent" 'BEGIN {
            per_it = e / n / it;  # events per rank and iteration
            printf "%-6s %5d %12.2f %12.2f %7.2f %10.0f %9.1f %11.3f %9.1f\n", v, n, p, t, t / p,
                   (t - p) * 1000 / per_it, b / e, s, pc }'
    done
done
echo "($iterations iterations, 1 KiB halos, $compute us of computation per iteration, medians of $rounds alternating runs; $(nproc) cores)"
