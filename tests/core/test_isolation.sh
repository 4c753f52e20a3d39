# SPDX-License-Identifier: BSD-3-Clause
# test_isolation.sh: stacked modules record only the application (docs/architecture.md,
# "Isolation"). tests/apps/isolation_app.c (4 ranks: a duplicate, a split, a ring, an
# allreduce, a broadcast, an intercommunicator, a freed duplicate) runs under profile,
# monitor and trace alone, then stacked in all 6 orders (a chained stack, src/core/chain.c),
# two by two through the levels (MPILENS_CHAIN=off: functions one module alone wraps are
# entered straight into it), and with a third-party PMPI tool
# (counter.so) between two of ours: each module's record (profile rows with communicator
# names, the monitor matrix, histograms, collectives and I/O of phase run, the trace's
# region enters and messages per communicator name) must be byte-identical to its run
# alone, and the third-party tool must count what it counts preloaded alone.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/isolation_views.sh"
require_views

# run NAME MODULES [CHAIN]: the application under MODULES (MPILENS_CHAIN=CHAIN), into NAME.
run() {
    MPILENS_CHAIN=${3:-on} "$MPILENS" run -m "$2" -o "$1" -- $MPIRUN -np 4 "$APPS/isolation_app" \
        > "$1.log" 2>&1
    check_has "$1: the application's own result" "$(cat "$1.log")" "isolation_app ok: 4 ranks"
}
for m in profile monitor trace; do
    run "alone-$m" $m
    "${m}_view" "alone-$m" > "alone-$m.txt"
done
check_eq "profile alone: rows on the program's communicators only" \
    "W0.0 d0.1 d0.4 s0.2 s2.2 x0.3 x2.3" \
    "$(awk '{print $2}' alone-profile.txt | sort -u | tr '\n' ' ' | sed 's/ $//')"

for order in profile,monitor,trace profile,trace,monitor monitor,profile,trace \
             monitor,trace,profile trace,profile,monitor trace,monitor,profile; do
    run "$order" "$order"
    for m in profile monitor trace; do
        "${m}_view" "$order" > "$order.$m.txt"
        if cmp -s "alone-$m.txt" "$order.$m.txt"; then ok "$order: $m identical to alone"; else
            bad "$order: $m differs from alone"; diff "alone-$m.txt" "$order.$m.txt" | head -10; fi
    done
done

# Two of ours through the levels: the functions only one of them wraps (the profile's
# MPI_Recv and MPI_Wait beside the monitor) are entered straight into that module
# (src/core/sole_wrappers.c); each record stays the one it makes alone.
for order in profile,monitor monitor,trace; do
    run "$order" "$order" off
    for m in ${order//,/ }; do
        "${m}_view" "$order" > "$order.$m.txt"
        if cmp -s "alone-$m.txt" "$order.$m.txt"; then ok "$order: $m identical to alone"; else
            bad "$order: $m differs from alone"; diff "alone-$m.txt" "$order.$m.txt" | head -10; fi
    done
done

# One name per communicator: the trace's communicator names are the run database's.
names_db=$(sqlite3 profile,monitor,trace/mpilens.db "SELECT name FROM communicators ORDER BY 1")
names_trace=$(grep -o 'Communicator: "[^"]*"' profile,monitor,trace.trace.txt | cut -d'"' -f2 | sort -u)
check_eq "the trace names its communicators as the database does" "" \
    "$(comm -13 <(echo "$names_db") <(echo "$names_trace"))"

# A third-party PMPI tool between two of ours: it counts the application's messages as
# when preloaded alone, and ours record the same as alone.
alone=$(PRELOAD=0 LD_PRELOAD=$MODS/counter.so $MPIRUN -np 4 "$APPS/isolation_app" 2>&1 | grep '^counter:' | sort)
run between "profile,$MODS/counter.so,monitor,trace"
check_eq "counter between profile and monitor counts as preloaded alone" "$alone" \
    "$(grep '^counter:' between.log | sort)"
for m in profile monitor trace; do
    "${m}_view" between > "between.$m.txt"
    if cmp -s "alone-$m.txt" "between.$m.txt"; then ok "with counter between: $m identical to alone"; else
        bad "with counter between: $m differs from alone"; diff "alone-$m.txt" "between.$m.txt" | head -10; fi
done
finish
