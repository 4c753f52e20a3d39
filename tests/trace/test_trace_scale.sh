# SPDX-License-Identifier: BSD-3-Clause
# test_trace_scale.sh: the trace under load (issue "trace at scale"): 4 ranks x 4 threads
# under MPI_THREAD_MULTIPLE, each thread 2000 MPI_Sendrecv of 64 B with its own tag, traced
# three times: each trace holds exactly 32000 MPI_SEND events (otf2-print), every thread
# its own location of its rank, and `mpilens analyze` with no --launcher (the run's own,
# recorded in the trace) exits 0. A trace made without `mpilens run` (no launcher recorded)
# is analyzed with the MPI's own launcher, as root and with more ranks than cores. A sender
# far ahead of its receiver (200,000 streamed messages) is replayed in a few seconds.
source "$(dirname "$0")/../core/lib.sh"
command -v otf2-print > /dev/null || { echo "SKIP: otf2-print (otf2-tools) not installed"; exit 77; }
[ -f "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: trace module not built (no OTF2)"; exit 77; }

# Three times on Open MPI; once on MPICH, with 500 messages a thread, whose 16 polling
# threads on two cores made the three runs take 20 s to 70 s, and one run of 2000 4 s to
# 45 s (the checks are the same, the counts follow M).
if [ "$MPI_FLAVOR" = openmpi ]; then RUNS="1 2 3" M=2000; else RUNS=1 M=500; fi
for i in $RUNS; do
    out=$("$MPILENS" run -m trace -o "threads$i" -- $MPIRUN -np 4 "$APPS/threads" 4 $M sendrecv 2>&1)
    if grep -q "threads SKIP" <<<"$out"; then
        echo "$out"; echo "SKIP: this MPI does not provide MPI_THREAD_MULTIPLE"; exit 77
    fi
    check_has "run $i: the threads' payloads are intact" "$out" "threads ok: 4 ranks x 4 threads x $M messages"
    events=$(otf2-print "threads$i/trace/traces.otf2" 2>&1)
    check_eq "run $i: exactly $((16 * M)) MPI_SEND events" $((16 * M)) "$(awk '$1 == "MPI_SEND"' <<<"$events" | wc -l)"
    check_eq "run $i: 64 bytes each" $((16 * M)) "$(grep -c '^MPI_SEND .*Length: 64$' <<<"$events")"
    if [ $i = 1 ]; then
        defs=$(otf2-print -G threads1/trace/traces.otf2 2>&1)
        check_eq "a location per thread that called MPI (4 ranks x (main + 4))" 20 \
            "$(grep -c '^LOCATION ' <<<"$defs")"
        check_match "a thread's location belongs to its rank" "$defs" \
            "^LOCATION +[0-9]+ +Name: \"MPI rank 3 thread 4\" <[0-9]+>, Type: CPU_THREAD, # Events: $((4 * M)), Group: \"MPI rank 3\""
    fi
    out=$("$MPILENS" analyze "threads$i" 2>&1); status=$?
    check_eq "run $i: analyze with no --launcher exits 0" 0 $status
    check_match "run $i: analyze read every event" "$out" "analysis of $((64 * M + 16)) events on 4 ranks"
done

# no launcher recorded: the default one starts the replay (root, 4 ranks on fewer cores)
MPILENS_OUTPUT=$WORK/plain LD_PRELOAD=$CORE MPILENS_MODULES=trace $MPIRUN -np 4 "$APPS/ring" 3 > plain.log 2>&1
out=$("$MPILENS" analyze plain 2>&1); status=$?
check_eq "a trace made without mpilens run: analyze with no --launcher exits 0" 0 $status

# The replay's cost grows with the messages, not with their square: 200,000 streamed messages
# against 20,000, analyzed in the same test (measured: ~2x, the start-up of the replay dominating; quadratic, as it was: ~30x).
# A ratio, not a time, so a loaded machine slows both; one stall is measured once more.
# Judged on Open MPI only: MPICH on more ranks than cores polls so unevenly that even a
# ratio of two replays says little (1 s to 60 s, and 139 s for the whole test once): there
# a sender 20,000 messages ahead is replayed once, and must only succeed.
if [ "$MPI_FLAVOR" = openmpi ]; then STREAM=200000; else STREAM=20000; fi
"$MPILENS" run -m trace -o stream -- $MPIRUN -np 4 "$BUILD/bench/p2p_stream" stream $STREAM > stream.log 2>&1
analyze_seconds() { # RUN: seconds analyze takes, or 999 if it failed
    local t0 t1
    t0=$(date +%s.%N)
    "$MPILENS" analyze "$1" > "$1.analyze" 2>&1 || { echo 999; return; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}
if [ "$MPI_FLAVOR" = openmpi ]; then
    "$MPILENS" run -m trace -o small -- $MPIRUN -np 4 "$BUILD/bench/p2p_stream" stream 20000 > small.log 2>&1
    for attempt in 1 2; do
        big=$(analyze_seconds stream)
        small=$(analyze_seconds small)
        ratio=$(awk -v b="$big" -v s="$small" 'BEGIN {printf "%.1f", b / (s > 0.2 ? s : 0.2)}')
        awk -v r="$ratio" 'BEGIN {exit !(r < 10)}' && break
    done
    check_eq "10x the messages cost less than 10x the replay time ($big s / $small s = $ratio)" 1 \
        "$(awk -v r="$ratio" 'BEGIN {print (r < 10)}')"
else
    big=$(analyze_seconds stream)
fi
check_eq "$STREAM streamed messages: analyze exits 0" 0 "$([ "$big" != 999 ] && echo 0 || echo 1)"
finish
