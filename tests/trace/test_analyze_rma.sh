# SPDX-License-Identifier: BSD-3-Clause
# test_analyze_rma.sh: the one-sided patterns of `mpilens analyze` on tests/apps/rma_waits_app.c
# (4 ranks, one injected delay per scenario, waits_bounds.sh): Late Post on the origins, Early Wait and
# Late Complete on the target, Wait at Fence on the three punctual ranks, and nothing above
# the quiet bound without delays. With Open MPI 4.1, under both one-sided components the
# brief names: with osc rdma the late post blocks MPI_Win_start, with osc pt2pt
# MPI_Win_complete, and the analysis must charge the right call; Open MPI 5 has no pt2pt:
# rdma and sm. Early Transfer needs a transfer that blocks
# until the post, which no MPI here does: tests/modules/slow_transfer.so, stacked under the
# trace module, holds each MPI_Put 1.6 times the delay; where MPI_Win_start does not wait for the post
# (osc pt2pt) the post lands inside the puts. The trace's RMA records are read back with
# otf2-print.
source "$(dirname "$0")/../core/lib.sh"
[ -f "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: trace module not built (no OTF2)"; exit 77; }

source "$(dirname "$0")/waits_bounds.sh"
if [ "$MPI_FLAVOR" = openmpi ]; then bounds yielding; else bounds polling; fi

# run NAME SCENARIO LAUNCHER [MODULES]: trace the scenario, analyze it with the same launcher.
declare -A how
run() {
    how[$1]="$2|$3|${4:-trace}"
    "$MPILENS" run -m "${4:-trace}" -o "$1" -- $3 -np 4 "$APPS/rma_waits_app" "$2" > "$1.log" 2>&1
    check_has "$1: the application's own result" "$(cat "$1.log")" "rma ok"
    "$MPILENS" analyze "$1" --launcher "$3" > "$1.analyze" 2>&1
}
rerun() {
    local scenario launcher modules
    IFS='|' read -r scenario launcher modules <<<"${how[$1]}"
    rm -rf "$1"
    run "$1" "$scenario" "$launcher" "$modules"
}
# waits NAME PATTERN [REGION]: "rank:milliseconds" above the quiet bound, by rank.
waits() {
    sqlite3 "$1/mpilens.db" "SELECT rank || ':' || CAST(ROUND(seconds * 1000) AS INT) FROM waits
        WHERE pattern = '$2' AND region LIKE '${3:-%}' AND seconds > $quiet ORDER BY rank" | tr '\n' ' '
}
# expect NAME PATTERN "RANKS" [REGION]: those ranks, each waiting the delay within the bounds.
expect_holds() { waits_hold "$(waits "$1" "$2" "$4")" "$3"; }
expect() {
    local found ranks ok=1
    settled "$1" expect_holds "$1" "$2" "$3" "${4:-%}"
    found=$(waits "$1" "$2" "${4:-%}")
    ranks=$(for w in $found; do printf '%s ' "${w%%:*}"; done)
    for w in $found; do [ "${w##*:}" -ge $low ] && [ "${w##*:}" -le $high ] || ok=0; done
    check_eq "$1: $2 ${4:+in $4 }on ranks $3" "$3" "$ranks"
    check_eq "$1: $2 of $WAITS_DELAY_MS ms within $low..$high ms ($found)" "1" "$ok"
}
quiet_patterns=("Late Post" "Early Wait" "Late Complete" "Wait at Fence" "Early Fence" "Early Transfer")
all_quiet() { local p; for p in "${quiet_patterns[@]}"; do [ -z "$(waits "$1" "$p")" ] || return 1; done; }
# scenarios PREFIX LAUNCHER LATE_POST_REGION
scenarios() {
    for s in late-post early-wait fence none; do run "$1$s" "$s" "$2"; done
    expect "$1late-post" "Late Post" "1 2 3 " "$3"
    expect "$1early-wait" "Early Wait" "0 "
    expect "$1early-wait" "Late Complete" "0 "
    expect "$1fence" "Wait at Fence" "0 1 3 "
    settled "$1none" all_quiet "$1none"
    for p in "${quiet_patterns[@]}"; do
        check_eq "$1none: no $p above ${quiet}s" "" "$(waits "$1none" "$p")"
    done
}
held="trace,$BUILD/tests/modules/slow_transfer.so:delay_ms=$((WAITS_DELAY_MS * 8 / 5))"
# rdma_scenarios LAUNCHER: osc rdma, where the late post blocks MPI_Win_start (and an
# Early Transfer cannot happen: the start waited for the post).
rdma_scenarios() {
    scenarios rdma- "$1" MPI_Win_start
    run rdma-early-transfer early-transfer "$1" "$held"
    expect rdma-early-transfer "Late Post" "1 2 3 " MPI_Win_start
    check_eq "rdma-early-transfer: no Early Transfer (MPI_Win_start waited for the post)" "" \
        "$(waits rdma-early-transfer "Early Transfer")"
}
if [ "$MPI_FLAVOR" = openmpi ] && [ "${OMPI_MAJOR:-4}" -ge 5 ]; then
    echo "Open MPI $OMPI_MAJOR has no osc pt2pt: the scenarios run on the components it has," \
         "rdma and sm (Early Transfer is checked absent: its MPI_Win_start waits for the post)"
    rdma_scenarios "$MPIRUN --mca osc rdma"
    bounds polling # osc sm busy-polls like MPICH
    scenarios sm- "$MPIRUN --mca osc sm" %
elif [ "$MPI_FLAVOR" = openmpi ]; then
    rdma_scenarios "${MPIRUN/--mca osc sm,pt2pt/--mca osc rdma}"
    scenarios pt2pt- "${MPIRUN/--mca osc sm,pt2pt/--mca osc pt2pt}" MPI_Win_complete
    run pt2pt-early-transfer early-transfer "${MPIRUN/--mca osc sm,pt2pt/--mca osc pt2pt}" "$held"
    expect pt2pt-early-transfer "Early Transfer" "1 2 3 " MPI_Put
    check_eq "pt2pt-early-transfer: no Late Post (the post came during the puts)" "" \
        "$(waits pt2pt-early-transfer "Late Post")"
    # osc sm busy-polls like MPICH: descheduled ranks make real waits of a few ms
    bounds polling
    scenarios sm- "$MPIRUN" %
else
    scenarios "" "$MPIRUN" %
    run early-transfer early-transfer "$MPIRUN" "$held"
    expect early-transfer "Late Post" "1 2 3 " MPI_Win_start
    check_eq "early-transfer: no Early Transfer (MPICH's MPI_Win_start waits for the post)" "" \
        "$(waits early-transfer "Early Transfer")"
fi

first=$(ls -d ./*late-post | head -1)
table=$("$MPILENS" report --waits "$first")
check_match "report --waits: one-sided synchronization with Late Post" "$table" '^      Late Post +[0-9.]+ +[0-9.]+$'
in_range "report --waits: Late Post is the three origins' waits" "$table" '^      Late Post ' 3
check_match "report --waits: Late Complete under Early Wait" "$table" '^        Late Complete +[0-9.]+ +[0-9.]+$'
if command -v otf2-print > /dev/null; then
    events=$(otf2-print "$first/trace/traces.otf2")
    for e in RMA_WIN_CREATE RMA_GROUP_SYNC RMA_PUT RMA_WIN_DESTROY; do
        check_match "otf2-print reads $e records" "$events" "^$e "
    done
    defs=$(otf2-print -G "$first/trace/traces.otf2")
    check_match "otf2-print: the window is defined on MPI_COMM_WORLD" "$defs" '^RMA_WIN +0 +Name: "window 0".*Communicator: "W0\.0"'
    check_match "otf2-print: the origins' group" "$defs" 'Name: "RMA group [0-9]+".* 3 Members: 1 .*, 2 .*, 3 '
    fence_events=$(otf2-print "${first%late-post}fence/trace/traces.otf2")
    check_match "otf2-print reads RMA_COLLECTIVE_END records" "$fence_events" "^RMA_COLLECTIVE_END "
fi
finish
