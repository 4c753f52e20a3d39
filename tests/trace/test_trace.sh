# SPDX-License-Identifier: BSD-3-Clause
# test_trace.sh: the trace module writes an OTF2 archive that OTF2's own reader
# (otf2-print) opens (intercommunicator messages included): exact counts of regions, messages and collectives per communicator
# (named as in the profile), definitions, clock offsets, and bytes per event; the same
# events when the conversion is left for after the job (trace:convert=after, the default
# however the run is started: by mpilens run, several processes at once; preloaded, by
# mpilens recover, analyze or export).
source "$(dirname "$0")/../core/lib.sh"
command -v otf2-print > /dev/null || { echo "SKIP: otf2-print (otf2-tools) not installed"; exit 77; }
[ -f "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: trace module not built (no OTF2)"; exit 77; }

out=$("$MPILENS" run -m trace:convert=finalize -o ring -- $MPIRUN -np 4 "$APPS/ring" 3 2>&1)
check_has "traced application ran" "$out" "ring ok: 4 ranks, 3 rounds"
events=$(otf2-print ring/trace/traces.otf2 2>&1)
check_eq "12 MPI_SEND and 12 MPI_RECV events (4 ranks x 3 rounds)" "12 12" \
    "$(awk '$1 == "MPI_SEND"' <<<"$events" | wc -l) $(awk '$1 == "MPI_RECV"' <<<"$events" | wc -l)"
check_eq "every send names its receiver, W0.0, and 1024 bytes" "12" \
    "$(grep -c 'MPI_SEND .*Communicator: "W0.0" <0>, Tag: [0-2], Length: 1024$' <<<"$events")"
check_eq "ENTER and LEAVE balance" "$(grep -c '^ENTER' <<<"$events")" "$(grep -c '^LEAVE' <<<"$events")"
check_eq "4 Barrier and 4 Reduce collectives" "4 4" \
    "$(grep -c 'MPI_COLLECTIVE_END .*Operation: BARRIER' <<<"$events") $(grep -c 'MPI_COLLECTIVE_END .*Operation: REDUCE' <<<"$events")"
check_eq "two clock offsets per location" "8" "$(otf2-print -C ring/trace/traces.otf2 2>/dev/null | grep -c '^CLOCK_OFFSET')"

out=$("$MPILENS" run -m trace -o comms -- $MPIRUN -np 8 "$APPS/comms_app" 2>&1)
check_has "comms_app traced" "$out" "comms_app ok: 8 ranks, tests completed early: 0 0"
ends=$(otf2-print comms/trace/traces.otf2 2>/dev/null | grep '^MPI_COLLECTIVE_END')
check_eq "100 Allreduce on each half, seen by its 4 ranks" "400 400" \
    "$(grep -c 'Communicator: "s0.1"' <<<"$ends") $(grep -c 'Communicator: "s4.1"' <<<"$ends")"
defs=$(otf2-print -G comms/trace/traces.otf2 2>/dev/null)
check_match "global definitions name the communicators" "$defs" '^COMM +[0-9]+ +Name: "s4.1"'
check_match "8 locations" "$defs" '^LOCATION +7 +Name: "MPI rank 7"'
# comms_app section 6: rank i sends 8 B to rank i of the other half over an
# intercommunicator; OTF2's Comm has one group, so these go on W0.0 with world ranks.
sends=$(otf2-print comms/trace/traces.otf2 2>/dev/null | awk '$1 == "MPI_SEND" && /Length: 8$/')
check_match "intercommunicator send: the peer's world rank on W0.0" "$sends" \
    '^MPI_SEND +0 +[0-9]+ +Receiver: 4 \("MPI rank 4" <4>\), Communicator: "W0.0" <[0-9]+>, Tag: [0-9]+, Length: 8$'
out=$("$MPILENS" analyze comms --launcher "$MPIRUN" 2>&1); status=$?
check_eq "a trace with intercommunicator traffic is analyzed" "0" "$status"
n=$(otf2-print comms/trace/traces.otf2 2>/dev/null | grep -c -E '^[A-Z_]+ +[0-9]+ +[0-9]+ ')
bytes=$(cat comms/trace/traces/*.evt | wc -c)
echo "trace size: $bytes bytes of event files for $n events: $((bytes / n)) bytes per event"
check_eq "events are written compactly (< 32 bytes each)" "1" "$((bytes / n < 32))"

# trace:convert=after: the ranks only save at MPI_Finalize; mpilens run converts after the
# job, into the same events (timestamps aside), and the run is complete.
events_of() { otf2-print "$1/trace/traces.otf2" 2> /dev/null | awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ {$3 = ""; print}' | sort; }
out=$("$MPILENS" run -m trace:convert=after -o after -- $MPIRUN -np 4 "$APPS/ring" 3 2>&1); status=$?
check_eq "convert=after: status 0 and the usual last line" "0 mpilens: results in $WORK/after (status 0)" \
    "$status $(tail -1 <<<"$out")"
check_eq "convert=after: the same events as converting at MPI_Finalize" "$(events_of ring)" "$(events_of after)"
check_eq "convert=after: $(events_of ring | wc -l) events, two clock offsets per location, no logs or saved files left" \
    "8 no no" "$(otf2-print -C after/trace/traces.otf2 2>/dev/null | grep -c '^CLOCK_OFFSET') \
$([ -e after/trace/log ] && echo yes || echo no) $([ -e after/partial ] && echo yes || echo no)"
check_eq "convert=after: not marked incomplete" "" \
    "$(sqlite3 after/mpilens.db "SELECT value FROM metadata WHERE key = 'Incomplete'" 2> /dev/null)"
out=$("$MPILENS" analyze after --launcher "$MPIRUN" 2>&1); status=$?
check_eq "convert=after: the trace is analyzed (a complete run)" "0" "$status"
# mpilens run's default is convert=after, by several processes at once (3 here for 4 ranks:
# shares of 2, 1 and 1 ranks), into the same events; convert=finalize or the variable wins.
# (into a file: MPICH's mpiexec once lost the stdout of a process that ends at once)
"$MPILENS" run -o env1 -- $MPIRUN -np 1 sh -c "echo \$MPILENS_TRACE_CONVERT > $WORK/env1.txt" >/dev/null 2>&1
MPILENS_TRACE_CONVERT=finalize "$MPILENS" run -o env2 -- $MPIRUN -np 1 \
    sh -c "echo \$MPILENS_TRACE_CONVERT > $WORK/env2.txt" >/dev/null 2>&1
check_eq "mpilens run tells the ranks convert=after unless MPILENS_TRACE_CONVERT says otherwise" \
    "after finalize" "$(cat env1.txt 2>&1) $(cat env2.txt 2>&1)"
MPILENS_CONVERT_JOBS=3 "$MPILENS" run -m trace -o default -- $MPIRUN -np 4 "$APPS/ring" 3 > /dev/null 2>&1
check_eq "default: converted by 3 processes after the job into the same events" "$(events_of ring)" "$(events_of default)"
check_eq "default: event counts in the definitions, no logs, saved files or converters' archives left" \
    "$(otf2-print -G ring/trace/traces.otf2 2>/dev/null | grep -o 'Events: [0-9]*' | sort | tr '\n' ' ')no no " \
    "$(otf2-print -G default/trace/traces.otf2 2>/dev/null | grep -o 'Events: [0-9]*' | sort | tr '\n' ' ')$([ -e default/trace/log ] && echo yes || echo no) \
$([ -e default/partial ] && echo yes || echo no) $(ls default/trace | grep convert)"
# The event log's clock (trc_clock.c): the time-stamp counter where CPUID says it is
# invariant, whatever the kernel's clocksource, mapped to CLOCK_MONOTONIC's nanoseconds when converted; MPILENS_TRACE_CLOCK=monotonic
# reads clock_gettime instead. Either way every event lies between its location's two clock
# offsets (read with clock_gettime at MPI_Init and MPI_Finalize), and the events are the same.
# (test_analyze.sh checks the scale: the waits measure the programs' delays.)
outside() {
    { otf2-print -C "$1/trace/traces.otf2" 2> /dev/null | awk '$1 == "CLOCK_OFFSET" {gsub(",", "", $4); print "C", $2, $4}'
      otf2-print "$1/trace/traces.otf2" 2> /dev/null | awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {print "E", $2, $3}'; } |
        awk '$1 == "C" { if (!($2 in lo) || $3 < lo[$2]) lo[$2] = $3; if ($3 > hi[$2]) hi[$2] = $3 }
             $1 == "E" { n++; if (!($2 in lo) || $3 < lo[$2] || $3 > hi[$2]) bad++ }
             END { print (n > 0 ? "events" : "none"), bad + 0 }'
}
MPILENS_TRACE_CLOCK=monotonic "$MPILENS" run -m trace -o mono -- $MPIRUN -np 4 "$APPS/ring" 3 > /dev/null 2>&1
check_eq "clock: every event between its location's start and end (log clock, clock_gettime)" \
    "events 0 events 0" "$(outside default) $(outside mono)"
check_eq "MPILENS_TRACE_CLOCK=monotonic: the same events" "$(events_of ring)" "$(events_of mono)"
# The map's residual, measured at MPI_Finalize, is in the archive's metadata (its size
# depends on the machine: only its presence is checked). A small buffer makes flushes, whose
# clock pairs are what the residual is measured on.
"$MPILENS" run -m trace:buffer=64K -o residual -- $MPIRUN -np 2 "$APPS/ring" 2000 > /dev/null 2>&1
check_match "clock: the residual of the counter's map recorded (ns)" \
    "$(otf2-print -A residual/trace/traces.otf2 2>/dev/null | grep -A1 'MPILENS::CLOCK_RESIDUAL_NS' |
       sed -n 's/^Property value *//p')" '^[0-9]+$'
# Without the CLI (preloaded; convert=after is the default there too): the logs wait in
# DIR/trace/log beside DIR/trace/CONVERT-PENDING, rank 0 says so in one line, and mpilens
# recover DIR converts them (as mpilens analyze and export do first).
exists() { [ -e "$1" ] && echo yes || echo no; }
out=$(MPILENS_OUTPUT=$WORK/plain MPILENS_MODULES=profile,trace mpi 4 "$APPS/ring" 3 2>&1)
check_has "preloaded: rank 0 says how the archive comes" "$out" \
    "mpilens: trace: $WORK/plain/trace/log waits for its conversion to OTF2: \`mpilens recover $WORK/plain\` (mpilens analyze and export do it first)"
check_eq "preloaded: one saved file per rank, the note, no archive yet" "4 yes no" \
    "$(ls plain/partial | grep -c '^trace\.') $(exists plain/trace/CONVERT-PENDING) $(exists plain/trace/traces.otf2)"
out=$("$MPILENS" recover plain 2>&1); status=$?
check_eq "mpilens recover converts it: status 0, one line, and the run's page" \
    "0 mpilens: 1 module(s) finished what they left for after the job (the trace's conversion); results in plain
mpilens: the run's page: plain/report.html" "$status $out"
check_eq "... into the same events; the note and the logs gone" "$(events_of ring) no no" \
    "$(events_of plain) $(exists plain/trace/CONVERT-PENDING) $(exists plain/trace/log)"
MPILENS_OUTPUT=$WORK/plain2 MPILENS_MODULES=trace:convert=after mpi 4 "$APPS/ring" 3 > /dev/null 2>&1
out=$("$MPILENS" export plain2 --chrome plain2.json 2>&1); status=$?
check_eq "mpilens export of a run whose logs wait converts them first, said in one line" \
    "0 mpilens: export: plain2: converting the trace's event logs to OTF2 first (once; what \`mpilens recover plain2\` does)" \
    "$status $(head -1 <<<"$out")"
check_eq "... into the same events (the second export converts nothing)" \
    "$(events_of ring) 0" "$(events_of plain2) $("$MPILENS" export plain2 --chrome again.json 2>&1 | grep -c converting)"
# trace:convert=finalize preloaded: each rank writes its part of the archive at MPI_Finalize.
MPILENS_OUTPUT=$WORK/plainfin MPILENS_MODULES=trace:convert=finalize mpi 4 "$APPS/ring" 3 > plainfin.log 2>&1
check_eq "preloaded trace:convert=finalize: the archive at MPI_Finalize, nothing waits, nothing said" \
    "yes no no 0" "$(exists plainfin/trace/traces.otf2) $(exists plainfin/trace/CONVERT-PENDING) \
$(exists plainfin/partial) $(grep -c 'waits for its conversion' plainfin.log)"
check_eq "... the same events" "$(events_of ring)" "$(events_of plainfin)"
out=$("$MPILENS" run -m trace:convert=later -o bad -- $MPIRUN -np 2 "$APPS/ring" 1 2>&1); status=$?
check_eq "convert=later is refused before the job, in one line" \
    "2 mpilens: trace: convert=later: give finalize (each rank at MPI_Finalize) or after (mpilens run, after the job): trace:convert=after" \
    "$status $out"

# Definitions merged along the tree at MPI_Finalize (trc_defs_tree.c) against the CLI's
# merge of the same kind of run (convert=after, rank by rank): the same events and global
# definitions, ids and the names made of them aside (they follow the order of the merge),
# the clock's range aside (two runs). Communicators of every kind
# (comms_app, 8 ranks), windows and groups (rma_waits_app, 4), files (io_only, 3: a tree
# that is not a power of two).
same_ids_aside() {
    sed -E '/^CLOCK_PROPERTIES/d; s/ <[0-9]+>//g; s/(RMA group|window) [0-9]+/\1/g
            s/^([A-Z_]+ +)[0-9]+ +[0-9]+/\1/; s/^([A-Z_]+) +[0-9]+ /\1 /' | sort
}
tree_case() { # NAME NP APP ARGS...
    local name=$1 np=$2; shift 2
    for how in finalize after; do
        timeout 120 "$MPILENS" run -m trace:convert=$how -o "$name-$how" -- $MPIRUN -np "$np" "$@" > /dev/null 2>&1
    done
    check_eq "$name: definitions merged along the tree at MPI_Finalize: the same events as the CLI's merge" \
        "$(otf2-print "$name-after/trace/traces.otf2" 2> /dev/null | same_ids_aside)" \
        "$(otf2-print "$name-finalize/trace/traces.otf2" 2> /dev/null | same_ids_aside)"
    check_eq "$name: ... and the same global definitions" \
        "$(otf2-print -G "$name-after/trace/traces.otf2" 2> /dev/null | same_ids_aside)" \
        "$(otf2-print -G "$name-finalize/trace/traces.otf2" 2> /dev/null | same_ids_aside)"
}
tree_case comms8 8 "$APPS/comms_app"
tree_case rma4 4 "$APPS/rma_waits_app" none
tree_case io3 3 "$APPS/io_only" "$WORK/io3.out"
check_eq "the cases hold events (not two empty traces)" "1 1 1" \
    "$(for n in comms8 rma4 io3; do otf2-print $n-finalize/trace/traces.otf2 2> /dev/null | grep -c -m1 ' ENTER\|^ENTER'; done | tr '\n' ' ' | sed 's/ $//')"

before=$(cat ring/trace/traces.otf2 ring/trace/traces/*.evt | md5sum)
out=$("$MPILENS" run -m trace -o ring -- $MPIRUN -np 2 "$APPS/ring" 1 2>&1); status=$?
check_eq "a second run into the same directory is refused before it starts" \
    "2 mpilens: run -o ring: already holds results (of an earlier run?); give a new directory, or remove this one first" \
    "$status $out"
check_eq "the first trace is left as it was" "$before" "$(cat ring/trace/traces.otf2 ring/trace/traces/*.evt | md5sum)"
mkdir -p locked/trace && chmod 500 locked/trace
if ! touch locked/trace/probe 2> /dev/null; then
    out=$("$MPILENS" run -m trace -o locked -- $MPIRUN -np 2 "$APPS/ring" 1 2>&1)
    check_has "an unwritable trace directory: the application still runs" "$out" "ring ok: 2 ranks, 1 rounds"
    check_match "... and one line says why there is no trace" "$out" "^mpilens: trace: cannot create the OTF2 archive in .*locked/trace"
fi
finish
