# SPDX-License-Identifier: BSD-3-Clause
# test_solo.sh: a module alone in the stack is entered without the core's runners
# (src/core/solo.c): the application's MPI_X jumps to its wrapper and its PMPI_X references
# are bound to the library in its GOT. tests/apps/isolation_app.c (4 ranks: duplicates, a
# split, a ring, an allreduce, a broadcast, an intercommunicator) runs under each of ours
# alone two ways: entered directly (the default) and through the runners (MPILENS_SOLO=off):
# each module's record must be byte-identical. MPILENS_SOLO=report says what it did.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/isolation_views.sh"
require_views

# run NAME MODULES MODE: the application under MODULES with MPILENS_SOLO=MODE, into NAME
# (--no-record: the monitor or the trace alone, without the summary a run adds for its record).
run() {
    MPILENS_SOLO=$3 "$MPILENS" run --no-record -m "$2" -o "$1" -- $MPIRUN -np 4 "$APPS/isolation_app" \
        > "$1.log" 2>&1
    check_has "$1: the application's own result" "$(cat "$1.log")" "isolation_app ok: 4 ranks"
}

for m in profile monitor trace; do
    run "report-$m" $m report
    check_match "$m alone is entered directly and its PMPI references bound" \
        "$(cat "report-$m.log")" "^mpilens: $m alone: entered directly, [1-9][0-9]* PMPI references bound in its GOT$"
    "${m}_view" "report-$m" > "direct-$m.txt"
    for mode in off; do
        run "$mode-$m" $m $mode
        "${m}_view" "$mode-$m" > "$mode-$m.txt"
        if cmp -s "direct-$m.txt" "$mode-$m.txt"; then ok "$m: MPILENS_SOLO=$mode records the same"; else
            bad "$m: MPILENS_SOLO=$mode differs"; diff "direct-$m.txt" "$mode-$m.txt" | head -10; fi
    done
    check_eq "$m: no report without the request" "" "$(grep 'entered directly' "off-$m.log")"
done
check_match "the profile's record is not empty" "$(cat direct-profile.txt)" "Allreduce"

# Two modules: both run through the runners (nothing said), and the profile's record is
# still the one it makes alone.
run stacked profile,monitor report
check_eq "two modules: neither is entered directly" "" "$(grep 'entered directly' stacked.log)"
profile_view stacked > stacked-profile.txt
if cmp -s direct-profile.txt stacked-profile.txt; then ok "stacked: profile identical to alone"; else
    bad "stacked: profile differs from alone"; diff direct-profile.txt stacked-profile.txt | head; fi
finish
