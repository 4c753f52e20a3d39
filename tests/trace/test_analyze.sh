# SPDX-License-Identifier: BSD-3-Clause
# test_analyze.sh: `mpilens analyze` on programs with one injected delay each
# (tests/apps/waits_app.c, 4 ranks): the right pattern on the right ranks with the right
# severity (waits_bounds.sh), and nothing above the quiet bound without delays (the synchronizing barrier
# every scenario starts with is not judged: launch skew lands there); `mpilens report
# --waits`; user regions (MPI_Pcontrol); bad input (no trace, rank count that does not
# match, truncated or missing rank file).
source "$(dirname "$0")/../core/lib.sh"
[ -f "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: trace module not built (no OTF2)"; exit 77; }

source "$(dirname "$0")/waits_bounds.sh"
# Open MPI yields when oversubscribed; MPICH busy-polls.
if [ "$MPI_FLAVOR" = openmpi ]; then bounds yielding; else bounds polling; fi

# run SCENARIO: trace it and analyze it.
run() {
    "$MPILENS" run -m trace -o "$1" -- $MPIRUN -np 4 "$APPS/waits_app" "$1" > "$1.log" 2>&1
    "$MPILENS" analyze "$1" --launcher "$MPIRUN" > "$1.analyze" 2>&1
}
rerun() { rm -rf "$1"; run "$1"; }
# waits SCENARIO PATTERN: "rank:milliseconds" of PATTERN above the quiet bound, by rank.
waits() {
    sqlite3 "$1/mpilens.db" "SELECT rank || ':' || CAST(ROUND(seconds * 1000) AS INT) FROM waits
        WHERE pattern = '$2' AND seconds > $quiet ORDER BY rank" | tr '\n' ' '
}
# expect SCENARIO PATTERN "RANKS": those ranks, each waiting the delay within the bounds.
expect_holds() { waits_hold "$(waits "$1" "$2")" "$3"; }
expect() {
    local found ranks ok=1
    settled "$1" expect_holds "$1" "$2" "$3"
    found=$(waits "$1" "$2")
    ranks=$(for w in $found; do printf '%s ' "${w%%:*}"; done)
    for w in $found; do [ "${w##*:}" -ge $low ] && [ "${w##*:}" -le $high ] || ok=0; done
    check_eq "$1: $2 on ranks $3" "$3" "$ranks"
    check_eq "$1: $2 of $WAITS_DELAY_MS ms within $low..$high ms ($found)" "1" "$ok"
}
for s in late-sender late-receiver allreduce barrier bcast reduce scan alltoallv iallreduce ibcast \
    many-regions completions none; do
    run $s
done
expect late-sender "Late Sender" "1 "
expect late-receiver "Late Receiver" "0 "
expect allreduce "Wait at N x N" "0 1 3 "
expect barrier "Wait at Barrier" "0 2 3 "
expect bcast "Late Broadcast" "1 2 3 "
expect reduce "Early Reduce" "0 "
expect scan "Early Scan" "1 2 3 "
expect alltoallv "Wait at N x N" "0 1 3 "
expect iallreduce "Wait at N x N" "0 1 3 "
expect ibcast "Late Broadcast" "1 2 3 "
check_eq "iallreduce: the wait is in MPI_Wait, where the collective completes" "MPI_Wait" \
    "$(sqlite3 iallreduce/mpilens.db "SELECT DISTINCT region FROM waits WHERE pattern =
        'Wait at N x N' AND seconds > $quiet")"
quiet_patterns=("Late Sender" "Late Receiver" "Wait at N x N" "Late Broadcast" "Early Reduce" "Early Scan")
all_quiet() { local p; for p in "${quiet_patterns[@]}"; do [ -z "$(waits "$1" "$p")" ] || return 1; done; }
settled none all_quiet none
for p in "${quiet_patterns[@]}"; do
    check_eq "without delays: no $p above ${quiet}s" "" "$(waits none "$p")"
done
# export after analyze: the analysis's wait intervals marked on the ranks that waited.
out=$("$MPILENS" export late-sender --chrome ls.json)
check_match "export after analyze uses its wait states" "$out" "wait states from mpilens analyze"
check_eq "export: Late Sender of the delay marked on rank 1" "1 True" "$(python3 -c "
import json
waits = [e for e in json.load(open('ls.json'))['traceEvents'] if e.get('cat') == 'wait' and e['name'] == 'Late Sender']
print(' '.join(str(e['tid']) for e in waits), all($low * 1000 <= e['dur'] <= $high * 1000 for e in waits))")"
expect many-regions "Late Sender" "1 "
expect completions "Late Sender" "1 "
check_eq "completions: the Late Sender is charged to MPI_Waitany, and the Test/Testany/Testall/Testsome/Waitsome completions, persistent starts, Sendrecv_replace and Irsend are all traced (the analysis ran)" \
    "MPI_Waitany" "$(sqlite3 completions/mpilens.db "SELECT DISTINCT region FROM waits WHERE pattern = 'Late Sender' AND seconds > $quiet")"
check_eq "after 100 other user regions: charged to MPI_Recv in region many-regions" \
    "MPI_Recv|many-regions" \
    "$(sqlite3 many-regions/mpilens.db "SELECT DISTINCT region, phase FROM waits WHERE pattern = 'Late Sender' AND seconds > $quiet")"
check_eq "the Late Sender wait is charged to the user region (MPI_Pcontrol) it happened in" \
    "late-sender" "$(sqlite3 late-sender/mpilens.db "SELECT DISTINCT phase FROM waits WHERE pattern = 'Late Sender' AND seconds > $quiet")"
check_match "report --waits: waiting time by user region" "$("$MPILENS" report --waits late-sender)" \
    '^  late-sender +[0-9.]+ +[0-9.]+$'
in_range "report --waits: the user region holds the one Late Sender" "$("$MPILENS" report --waits late-sender)" \
    '^  late-sender ' 1
if command -v otf2-print > /dev/null; then
    check_match "the user region is an OTF2 region of paradigm USER" \
        "$(otf2-print -G late-sender/trace/traces.otf2)" '^REGION .*Name: "late-sender".*Paradigm: USER'
fi
check_match "the analysis says where the results went" "$(cat bcast.analyze)" \
    '^mpilens: analysis of [0-9]+ events on 4 ranks in [0-9.]+ s .*results in bcast/mpilens.db'
table=$("$MPILENS" report --waits bcast)
check_match "report --waits: Table 2 shape, sub-patterns indented" "$table" "^      Late Broadcast +[0-9.]+ +[0-9.]+\$"
in_range "report --waits: Late Broadcast is the three ranks' waits" "$table" "^      Late Broadcast " 3
out=$("$MPILENS" report --waits bcast --html waits.html)
check_has "report --waits --html says where the page went" "$out" "mpilens: HTML report of the wait states in waits.html"
check_eq "the page charts and lists the waits" "1 1" \
    "$(grep -c '<h1>mpilens wait states</h1>' waits.html) $(grep -c '>Late Broadcast</text>' waits.html)"
check_match "report --waits --rank 0: the root did not wait" "$("$MPILENS" report --waits bcast --rank 0)" '^      Late Broadcast +0\.000000 +0\.00$'

mkdir nothing
refused "no trace" "mpilens: analyze: $WORK/nothing/trace/traces.otf2: no readable trace; run with the trace module (mpilens run -m trace ...)" "$MPILENS" analyze "$WORK/nothing"
refused "no such directory" "mpilens: analyze: $WORK/nosuch: no such directory; give the directory of a traced run (mpilens run -m trace -o DIR ...)" "$MPILENS" analyze "$WORK/nosuch"
# wait states in one flow: before analyze every message names it; analyze draws the page
# again with them; diff against a run not analyzed claims no vanished waits
"$MPILENS" run -m profile,trace -o unanalyzed -- $MPIRUN -np 4 "$APPS/waits_app" bcast >/dev/null 2>&1
refused "report --waits before analyze names the command" \
    "mpilens: report: unanalyzed has a trace but no wait-state analysis yet; run mpilens analyze unanalyzed" \
    "$MPILENS" report --waits unanalyzed
"$MPILENS" run -m trace -o traceonly -- $MPIRUN -np 4 "$APPS/waits_app" none >/dev/null 2>&1
refused "... and on a trace without a database" \
    "mpilens: report: traceonly has a trace but no wait-state analysis yet; run mpilens analyze traceonly" \
    "$MPILENS" report --waits traceonly
check_match "analyze draws the run's page again" "$(cat bcast.analyze)" \
    "^mpilens: analyze: the run's page, now with the wait states: bcast/report.html$"
check_match "... with the wait states" "$(cat bcast/report.html)" '<section id="waits">'
out=$("$MPILENS" diff bcast unanalyzed 2>&1)
check_has "diff against a run not analyzed: says so" "$out" \
    "mpilens: diff: wait states not compared: unanalyzed has a trace not yet analyzed (mpilens analyze unanalyzed, then diff again)"
check_match "... and claims no vanished waits" "$out" ", 0 vanished$"
out=$($MPIRUN -np 2 "$BUILD/bin/mpilens-analyze" bcast 2>&1); status=$?
check_eq "wrong rank count: non-zero exit" "1" "$((status != 0))"
check_has "wrong rank count: says so" "$out" "mpilens: analyze: bcast/trace/traces.otf2: the trace has 4 ranks but the analysis runs on 2; start it with -np 4"
rm -rf broken && cp -r bcast broken && truncate -s 60 broken/trace/traces/2.evt
out=$("$MPILENS" analyze broken --launcher "$MPIRUN" 2>&1); status=$?
check_eq "truncated rank file: non-zero exit" "1" "$((status != 0))"
check_eq "truncated rank file: one line (the launcher's banner dropped)" 1 "$(grep -c . <<<"$out")"
check_match "truncated rank file: the file, its damaged byte range and the events read" "$out" \
    "^mpilens: analyze: broken/trace/traces/2.evt: truncated or corrupt in bytes 0\\.\\.59 \\(chunk 1, events 1\\.\\.[0-9]+\\): reading stopped after event [0-9]+; trace the run again$"
rm -rf missing && cp -r bcast missing && rm missing/trace/traces/3.evt
out=$("$MPILENS" analyze missing --launcher "$MPIRUN" 2>&1); status=$?
check_eq "missing rank file: non-zero exit" "1" "$((status != 0))"
check_has "missing rank file: one line" "$out" "mpilens: analyze: missing/trace/traces/3.evt: missing, but the archive has 4 ranks; trace the run again"
out=$($MPIRUN -np 4 "$BUILD/bin/mpilens-analyze" missing 2>&1); status=$?
check_eq "missing rank file, analyzer started directly: non-zero exit" "1" "$((status != 0))"
check_has "missing rank file, analyzer started directly: one line" "$out" "mpilens: analyze: missing/trace/traces/3.evt: missing or unreadable (rank 3's events); trace the run again"
rm -rf future && cp -r bcast future
python3 -c "import sys; p = sys.argv[1]; d = open(p, 'rb').read()
open(p, 'wb').write(d.replace(b'MPILENS::TRACE_FORMAT\\x001\\x00', b'MPILENS::TRACE_FORMAT\\x009\\x00'))" future/trace/traces.otf2
out=$("$MPILENS" analyze future --launcher "$MPIRUN" 2>&1); status=$?
check_eq "trace from another format: non-zero exit" "1" "$((status != 0))"
check_has "trace from another format: one line" "$out" "mpilens: analyze: future/trace/traces.otf2: written in mpilens trace format 9; this mpilens reads format 1 (analyze it with the mpilens that wrote it, or trace the run again)"
out=$("$MPILENS" export future --chrome future.json 2>&1); status=$?
check_eq "export of another format: exit 2" "2" "$status"

# Traces that promise each other different communication (rank 1's files from another
# run): stopped before the replay, which would wait forever, in one line.
rm -rf mixed && cp -r late-receiver mixed && cp late-sender/trace/traces/1.* mixed/trace/traces/
out=$(timeout 60 "$MPILENS" analyze mixed --launcher "$MPIRUN" 2>&1); status=$?
check_eq "mixed-up trace: exit 2 (not a hang)" "2" "$status"
check_eq "mixed-up trace: one line" 1 "$(grep -c . <<<"$out")"
check_match "mixed-up trace: says which ranks disagree" "$out" \
    "^mpilens: analyze: mixed: the traces disagree: the messages rank [0-9]+'s trace sends to rank [0-9]+ are not those rank [0-9]+'s trace receives \\(a damaged or mixed-up trace\\); trace the run again$"
# The watchdog: a replay that does not end is stopped (here a launcher that never ends).
printf '#!/bin/sh\nexec sleep 60\n' > hang.sh && chmod +x hang.sh
start=$(date +%s)
out=$("$MPILENS" analyze bcast --launcher "$WORK/hang.sh" --timeout 2 2>&1); status=$?
check_eq "watchdog: exit 2" "2" "$status"
check_eq "watchdog: stopped within 10 s" 1 "$(( $(date +%s) - start < 10 ))"
check_has "watchdog: one line" "$out" "mpilens: analyze: bcast: the replay did not finish in 2 s, so the ranks' recorded communication does not match (a damaged or mixed-up trace?); give --timeout SECONDS if the analysis needs longer"
refused "--timeout that is not a number" "mpilens: analyze: --timeout 'soon': give a number of seconds (0: never)" \
    "$MPILENS" analyze bcast --timeout soon
finish
