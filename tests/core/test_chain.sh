# SPDX-License-Identifier: BSD-3-Clause
# test_chain.sh: a stack of chained modules (src/core/chain.c) calls each module straight
# from the one above it: each module's pass-downs (mpilens_down_MPI_X) are bound to the next
# module that wraps X, its own PMPI_X calls to the library. tests/apps/isolation_app.c
# (4 ranks: duplicates, a split, a ring, an allreduce, a broadcast, an intercommunicator)
# runs under our three modules chained (the default) and through the levels
# (MPILENS_CHAIN=off): each module's record must be byte-identical. A third-party module
# (counter.so, which passes its calls on with PMPI_X) keeps the stack on the levels, and a
# module preloaded without mpilens passes its calls to the library through its own weak
# pass-downs (lens_down_stubs.c).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/isolation_views.sh"
require_views

# run NAME MODULES MODE: the application under MODULES with MPILENS_CHAIN=MODE, into NAME.
run() {
    MPILENS_CHAIN=$3 timeout 120 "$MPILENS" run -m "$2" -o "$1" -- $MPIRUN -np 4 \
        "$APPS/isolation_app" > "$1.log" 2>&1
    check_has "$1: the application's own result" "$(cat "$1.log")" "isolation_app ok: 4 ranks"
}

for order in trace,monitor,profile profile,monitor,trace; do
    run "chained-$order" $order report
    check_match "$order: the stack is chained" "$(cat "chained-$order.log")" \
        "^mpilens: stack of 3 modules chained: [1-9][0-9]* references bound$"
    run "levels-$order" $order off
    check_eq "$order: MPILENS_CHAIN=off says nothing" "" "$(grep chained "levels-$order.log")"
    for m in profile monitor trace; do
        "${m}_view" "chained-$order" > "chained-$order.$m.txt"
        "${m}_view" "levels-$order" > "levels-$order.$m.txt"
        if cmp -s "chained-$order.$m.txt" "levels-$order.$m.txt"; then
            ok "$order: $m chained records what it records through the levels"
        else
            bad "$order: $m differs chained"
            diff "levels-$order.$m.txt" "chained-$order.$m.txt" | head -10
        fi
    done
done
check_match "the profile's record is not empty" "$(cat chained-trace,monitor,profile.profile.txt)" "Allreduce"
check_match "the monitor's record is not empty" "$(cat chained-trace,monitor,profile.monitor.txt)" "^matrix"

# A third-party module between two of ours: the stack runs through the levels.
run third "profile,$MODS/counter.so,monitor" report
check_match "a third-party module: not chained, and why" "$(cat third.log)" \
    "^mpilens: stack not chained: .*counter.* is not chained$"
profile_view third > third.profile.txt
profile_view "chained-profile,monitor,trace" > chained.profile.txt
if cmp -s third.profile.txt chained.profile.txt; then ok "through the levels: profile identical"; else
    bad "through the levels: profile differs"; diff chained.profile.txt third.profile.txt | head; fi

# The profile preloaded without mpilens: its pass-downs are its own weak definitions, which
# call the library.
mkdir bare && (cd bare && LD_PRELOAD=$BUILD/lib/mpilens/profile.so timeout 120 \
    $MPIRUN -np 4 "$APPS/isolation_app" > run.log 2>&1)
check_has "without mpilens: the application's own result" "$(cat bare/run.log)" "isolation_app ok: 4 ranks"
check_match "without mpilens: the profile counted the allreduce" \
    "$(sqlite3 -separator ' ' bare/mpilens.db "SELECT o.operation, SUM(p.calls) FROM profile p
        JOIN operations o ON o.id = p.operation_id GROUP BY o.operation")" "^Allreduce [1-9][0-9]*$"
finish
