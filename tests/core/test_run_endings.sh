# SPDX-License-Identifier: BSD-3-Clause
# test_run_endings.sh: how `mpilens run` starts and ends a job: an -o directory that holds
# results is refused before anything starts (the first results left byte-identical); two
# runs started together never share the default directory; SIGTERM to `mpilens run` (a
# batch system's time limit) reaches the whole job, no rank is left running, the status is
# non-zero and the last line says the job ended abnormally and where the results are; and
# a run never loses data (include/mpilens_snapshot.h): after SIGTERM, a rank's exit, MPI_Abort,
# segfault or SIGKILL, the profile (its call sites too), the monitor and the trace keep what
# the ranks recorded, marked incomplete, and `mpilens recover` does the same for a run started without the CLI.
source "$(dirname "$0")/lib.sh"

# The trace module is stacked where it is built (OTF2 found).
TRACED=""
[ -f "$BUILD/lib/mpilens/trace.so" ] && TRACED=",trace"

"$MPILENS" run -m profile -o first -- $MPIRUN -np 2 "$APPS/ring" > first.log 2>&1
sum=$(md5sum < first/mpilens.db)
refused "a used -o is refused" \
    "mpilens: run -o first: already holds results (of an earlier run?); give a new directory, or remove this one first" \
    "$MPILENS" run -m profile -o first -- $MPIRUN -np 2 "$APPS/ring"
check_eq "the first database is left byte-identical" "$sum" "$(md5sum < first/mpilens.db)"

mkdir together && cd together || exit 1
"$MPILENS" run -m profile -- $MPIRUN -np 2 "$APPS/ring" > a.log 2>&1 &
"$MPILENS" run -m profile -- $MPIRUN -np 2 "$APPS/ring" > b.log 2>&1
wait
dirs=$(grep -ho 'results in .* (status 0)' a.log b.log | sort -u | wc -l)
check_eq "two runs started together write to two directories" "2" "$dirs"
[ "$dirs" = 2 ] || tail -n 5 a.log b.log # what each run said (its last lines), to see why
cd "$WORK" || exit 1

# The job's own program under a name of its own: other tests running beside this one (the
# Slurm test's batch job) run long_app too, and must neither be found nor killed here.
ln -sf "$APPS/long_app" "$WORK/stopped_app"
"$MPILENS" run -m profile,monitor$TRACED -o stopped -- $MPIRUN -np 4 "$WORK/stopped_app" 600 > stopped.log 2>&1 &
run_pid=$!
for _ in $(seq 100); do grep -q "long_app step 10" stopped.log && break; sleep 0.2; done
kill -TERM $run_pid
wait $run_pid; status=$?
check_eq "SIGTERM: mpilens run ends with a non-zero status" 1 "$([ $status -ne 0 ] && echo 1 || echo 0)"
check_match "SIGTERM: the last line says the job ended abnormally" "$(tail -1 stopped.log)" \
    "^mpilens: job ended abnormally \\(status [0-9]+, stopped by a signal\\)"
for _ in $(seq 150); do pgrep -f "$WORK/stopped_app" > /dev/null || break; sleep 0.2; done
check_eq "SIGTERM: no rank of the job is left running" "" "$(pgrep -f "$WORK/stopped_app")"
pkill -KILL -f "$WORK/stopped_app" 2> /dev/null

# sendrecv_ranks RUN: the ranks with Sendrecv rows in RUN's profile
sendrecv_ranks() {
    sqlite3 "$1/mpilens.db" "SELECT COUNT(DISTINCT p.rank) FROM profile p JOIN operations o
        ON o.id = p.operation_id WHERE o.operation = 'Sendrecv'" 2> /dev/null
}
# incomplete RUN WANT_RANKS: the run's database exists, says incomplete, and keeps the
# ring's Sendrecv rows of at least WANT_RANKS ranks
incomplete() {
    check_eq "$1: the database exists" 1 "$([ -f "$1/mpilens.db" ] && echo 1 || echo 0)"
    check_match "$1: report says the run is incomplete, naming ranks" \
        "$("$MPILENS" report "$1" 2>&1 | head -1)" "incomplete run .*ranks? [0-9]"
    check_eq "$1: Sendrecv rows of at least $2 of 4 ranks" 1 \
        "$([ "$(sendrecv_ranks "$1")" -ge "$2" ] && echo 1 || echo 0)"
    check_eq "$1: the monitor matrix keeps the ring's cells of at least $2 ranks" 1 \
        "$([ "$(sqlite3 "$1/mpilens.db" "SELECT COUNT(DISTINCT src) FROM monitor_matrix
            WHERE kind = 'p2p' AND dst = (src + 1) % 4 AND messages > 0" 2> /dev/null)" -ge "$2" ] \
            && echo 1 || echo 0)"
    check_eq "$1: call sites kept: the ring's Sendrecv line in long_app.c, at least $2 ranks" 1 \
        "$([ "$(sqlite3 "$1/mpilens.db" "SELECT COUNT(DISTINCT cp.rank) FROM callsite_profile cp
            JOIN callsites c ON c.id = cp.callsite_id JOIN operations o ON o.id = cp.operation_id
            WHERE o.operation = 'Sendrecv' AND c.file LIKE '%long_app.c' AND c.line > 0" \
            2> /dev/null)" -ge "$2" ] && echo 1 || echo 0)"
    check_match "$1: matrix says the run is incomplete too" \
        "$("$MPILENS" matrix "$1" 2>&1 | head -1)" "incomplete run"
    check_eq "$1: the saved files were merged and removed" "" "$(ls "$1/partial" 2> /dev/null)"
}
# sendrecv_calls RUN RANK: MPI_Sendrecv calls of RANK in RUN's (recovered) trace, drawn by
# export (which opens it with the OTF2 reader); analyze refuses the run and says why
sendrecv_calls() {
    "$MPILENS" export "$1" --chrome "$1.json" > /dev/null 2>&1
    grep -c "\"name\":\"MPI_Sendrecv\",\"ph\":\"B\",[^}]*\"tid\":$2}" "$1.json" 2> /dev/null
}
# traced RUN RANK MIN: the trace was recovered, RANK made at least MIN Sendrecv calls in it
# and every rank at least 10 (step 10 was reached), and analyze refuses it with the reason
traced() {
    [ -z "$TRACED" ] && return
    check_eq "$1: the trace was recovered (no event log left)" "1 0" \
        "$([ -f "$1/trace/traces.otf2" ] && echo 1 || echo 0) $(ls "$1/trace/log" 2> /dev/null | wc -l)"
    local r n
    for r in 0 1 2 3; do
        n=$(sendrecv_calls "$1" $r)
        if [ $r = "$2" ]; then
            check_eq "$1: rank $r's trace keeps at least $3 Sendrecv calls ($n)" 1 "$([ "${n:-0}" -ge "$3" ] && echo 1 || echo 0)"
        else
            check_eq "$1: rank $r's trace keeps at least 10 Sendrecv calls ($n)" 1 "$([ "${n:-0}" -ge 10 ] && echo 1 || echo 0)"
        fi
    done
    out=$("$MPILENS" analyze "$1" --launcher "$MPIRUN" 2>&1); status=$?
    check_eq "$1: analyze of an incomplete run: status 2" 2 $status
    check_match "$1: analyze says why it refuses" "$out" \
        "^mpilens: analyze: $1: the run did not end normally \\(.*\\); its trace ends where each rank stopped"
}
check_eq "stopped: Sendrecv rows of all 4 ranks after SIGTERM" 4 "$(sendrecv_ranks stopped)"
incomplete stopped 4
traced stopped 0 10

# A rank ends early at step 30 (exit, MPI_Abort, a segfault, SIGKILL): non-zero status, the
# others' data and its own up to its last save are kept (snapshots every second, so even
# SIGKILL, and MPICH killing the other ranks outright, leave data).
for how in exit abort segv kill; do
    "$MPILENS" run -m profile,monitor$TRACED --snapshot 1 -o "$how" -- $MPIRUN -np 4 "$APPS/long_app" 60 $how \
        > "$how.log" 2>&1; status=$?
    check_eq "$how: non-zero status" 1 "$([ $status -ne 0 ] && echo 1 || echo 0)"
    check_match "$how: the last line says so and where" "$(tail -1 "$how.log")" \
        "^mpilens: job ended abnormally \\(status [0-9]+\\); partial results in .*/$how \\(marked incomplete"
    incomplete "$how" 3
    # rank 1 stops at step 30: all 30 Sendrecv kept (saved at its end), or after SIGKILL
    # those up to its last periodic save (about step 20)
    traced "$how" 1 "$([ $how = kill ] && echo 10 || echo 30)"
done
# The profile alone (entered directly, its calls added up in its keys: prof.h, prof_last):
# rank 1's save at its exit holds every call it made, exactly.
"$MPILENS" run -m profile -o alone_exit -- $MPIRUN -np 4 "$APPS/long_app" 40 exit > alone_exit.log 2>&1
check_eq "profile alone, rank 1 exits at step 30: exactly its 30 Sendrecv and Allreduce" \
    "Allreduce 30 120
Sendrecv 30 30720
Allreduce 30
Sendrecv 30" "$(sqlite3 -separator ' ' alone_exit/mpilens.db "SELECT o.operation, SUM(p.calls),
        SUM(p.volume) FROM profile p JOIN operations o ON o.id = p.operation_id WHERE p.rank = 1
        AND o.operation IN ('Sendrecv', 'Allreduce') GROUP BY 1 ORDER BY 1;
    SELECT o.operation, SUM(cp.calls) FROM callsite_profile cp JOIN operations o
        ON o.id = cp.operation_id WHERE cp.rank = 1 AND o.operation IN ('Sendrecv', 'Allreduce')
        GROUP BY 1 ORDER BY 1")"
check_match "exit: rank 1's ending is named" "$("$MPILENS" report exit 2>&1 | head -1)" \
    "rank 1: exit without MPI_Finalize"
check_match "abort: rank 1's ending is named" "$("$MPILENS" report abort 2>&1 | head -1)" \
    "rank 1: MPI_Abort"
check_match "abort: the report's run line says where the ranks' time ends (issue 76)" \
    "$("$MPILENS" report abort 2>/dev/null)" "^  run +max .*, MPI_Init to where each rank stopped$"
check_match "abort: ... and how the run ended" "$("$MPILENS" report abort 2>/dev/null)" \
    "^  ended +.*rank 1: MPI_Abort"

# Without the CLI: the ranks save, `mpilens recover DIR` merges.
MPILENS_OUTPUT=$WORK/plain MPILENS_SNAPSHOT=1 LD_PRELOAD=$CORE MPILENS_MODULES=profile,monitor \
    $MPIRUN -np 4 "$APPS/long_app" 60 exit > plain.log 2>&1
check_eq "plain LD_PRELOAD run: saved files, no database yet" "0 1" \
    "$([ -f plain/mpilens.db ] && echo 1 || echo 0) $([ -n "$(ls plain/partial)" ] && echo 1 || echo 0)"
out=$("$MPILENS" recover plain 2>&1); status=$?
check_eq "mpilens recover: status 0" 0 $status
check_eq "mpilens recover says where, and writes the page" "mpilens: 2 module(s) recovered; incomplete results in plain/mpilens.db
mpilens: the run's page: plain/report.html" "$out"
incomplete plain 3
# Without the CLI, the trace too: recover writes it.
if [ -n "$TRACED" ]; then
    MPILENS_OUTPUT=$WORK/plaintrace MPILENS_SNAPSHOT=1 LD_PRELOAD=$CORE MPILENS_MODULES=trace \
        $MPIRUN -np 4 "$APPS/long_app" 60 exit > plaintrace.log 2>&1
    out=$("$MPILENS" recover plaintrace 2>&1); status=$?
    check_eq "mpilens recover of a traced run: status 0" 0 $status
    traced plaintrace 1 30
fi
refused "mpilens recover of a finished run" \
    "mpilens: recover: first: nothing to recover (no partial/ directory: the run ended normally, or was recovered already)" \
    "$MPILENS" recover first
finish
