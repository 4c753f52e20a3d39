# SPDX-License-Identifier: BSD-3-Clause
# test_callsites.sh: the profile by call site (mpiP's view): tests/apps/callsite_app.c makes
# its MPI calls from known lines (Sendrecv at line 12 in exchange(), 10 times; Allreduce at
# line 18 in reduce(), 3 times; Barrier at line 31 in main(), once; MPI_Init at line 23); `mpilens report
# --callsites` names each site by function, file and line (inlined helpers by their own
# name) with exact call counts, summed over 4 ranks and for one rank, and as CSV. From
# Fortran (mpif.h, use mpi, use mpi_f08: tests/apps/fcallsite_body.inc), rank 0 sends 10
# messages from line 13 and 20 from line 16, rank 1 receives the 30 at line 20: the sites
# are the application's lines, not the MPI library's Fortran bindings. Sites that take turns
# in one loop (tests/apps/callsite_alternate.c) keep exact counts alone and stacked.
source "$(dirname "$0")/../core/lib.sh"

out=$("$MPILENS" run -m profile -o run -- $MPIRUN -np 4 "$APPS/callsite_app" 2>&1)
check_has "the application ran" "$out" "callsite_app ok: 4 ranks"
csv=$("$MPILENS" report run --callsites --csv | tail -n +2 | cut -d, -f2,4,5,6 | sort)
check_eq "four sites: function, line, operation, calls (4 ranks)" "exchange,12,Sendrecv,40
main,23,Init,4
main,31,Barrier,4
reduce,18,Allreduce,12" "$csv"
check_eq "the file of each site is the application's source" 4 \
    "$("$MPILENS" report run --callsites --csv | tail -n +2 | cut -d, -f3 | grep -c '/tests/apps/callsite_app.c$')"
check_eq "--rank 0: that rank's own calls" "exchange,12,Sendrecv,10
main,23,Init,1
main,31,Barrier,1
reduce,18,Allreduce,3" "$("$MPILENS" report run --callsites --csv --rank 0 | tail -n +2 | cut -d, -f2,4,5,6 | sort)"
text=$("$MPILENS" report run --callsites)
check_match "text: a site with function, file:line, operation and calls" "$text" \
    '^ +[0-9]+ exchange +callsite_app\.c:12 +Sendrecv +40 +[0-9.]+ +[0-9.]+$'
check_match "text: the statistics table" "$text" '^Call site statistics \(one call\)$'
check_eq "the table fits a terminal (80 columns)" 0 "$(awk 'length > 80' <<<"$text" | wc -l)"
# MPI_Init and MPI_Finalize head no ranking: left out of the call sites' table, its shares
# and report --top, said on a line of their own (issue 76)
check_match "text: the first ranked site is the program's, not MPI_Init" \
    "$(sed -n 3p <<<"$text")" '^ +[0-9]+ [a-z_]+ +callsite_app\.c:[0-9]+ +[A-Z][a-z]+ '
check_lacks "text: no Init row in the ranking" "$(sed -n '3,/^$/p' <<<"$text")" " Init "
check_match "text: MPI_Init on a line of its own" "$text" '^MPI_Init +callsite_app\.c:[0-9]+ +[0-9.]+ s: outside the run, not ranked$'
check_lacks "report --top 1: not Init" "$("$MPILENS" report run --top 1 | sed -n '/== Top/,/^$/p')" " Init "
check_eq "the site shares add up to 100 %" 100 \
    "$("$MPILENS" report run --callsites --csv | tail -n +2 | awk -F, '{s += $8} END {printf "%.0f", s}')"
# The issue's program in C: two send lines (10 and 20 calls), one receive line (30).
"$MPILENS" run -m profile -o pair -- $MPIRUN -np 2 "$APPS/callsite_pair" >/dev/null 2>&1
check_eq "C: the three sites with 10, 20 and 30 calls" "callsite_pair.c,14,Send,10
callsite_pair.c,16,Send,20
callsite_pair.c,19,Recv,30" \
    "$("$MPILENS" report pair --callsites --csv | tail -n +2 | cut -d, -f3-6 | sed 's|^[^,]*/||' | grep -v ',Init,' | sort)"
# Stacked with other modules (a chained stack, src/core/chain.c) the profile below another
# module sees a return address inside that module: the keyed fast path then knows a call by
# the core's stored call site. Sites that take turns in one loop keep their exact counts,
# alone and stacked in any order: below the monitor (whose wrappers tail-call the profile),
# below the trace (which calls it), and through the levels (MPILENS_CHAIN=off).
alternate="callsite_alternate.c,13,Isend,10
callsite_alternate.c,19,Isend,20
callsite_alternate.c,27,Wait,30
callsite_alternate.c,29,Recv,30"
for modules in profile profile,monitor monitor,profile trace,profile trace,monitor,profile \
    chain=off:trace,profile; do
    rm -rf alt
    chain=on
    [[ $modules == chain=off:* ]] && chain=off && modules=${modules#chain=off:}
    label=$modules
    [ $chain = off ] && label="$modules (MPILENS_CHAIN=off)"
    MPILENS_CHAIN=$chain timeout 120 "$MPILENS" run -m $modules -o alt -- \
        $MPIRUN -np 2 "$APPS/callsite_alternate" >/dev/null 2>&1
    check_eq "sites taking turns in a loop, -m $label: 10 and 20 Isends, 30 Waits, 30 Recvs" \
        "$alternate" "$("$MPILENS" report alt --callsites --csv | tail -n +2 | cut -d, -f3-6 | sed 's|^[^,]*/||' | grep -v ',Init,' | sort)"
    check_eq "-m $label: the same in the profile by communicator (Isend 30, Recv 30, Wait 30)" \
        "Isend,30 Recv,30 Wait,30" \
        "$("$MPILENS" report alt --csv | tail -n +2 | awk -F, '$4 ~ /^(Isend|Recv|Wait)$/ {n[$4] += $9} END {for (k in n) print k "," n[k]}' | sort | tr '\n' ' ' | sed 's/ $//')"
done

if [ "$HAVE_FORTRAN" = 1 ]; then
    # trace,profile: the profile below the trace in a chained stack (Open MPI's bindings
    # enter by PMPI_X, MPICH's by MPI_X)
    for kind in mpifh mpi f08 trace,profile:mpifh; do
        modules=profile
        [[ $kind == *:* ]] && modules=${kind%%:*} && kind=${kind#*:}
        rm -rf "f$kind"
        timeout 120 "$MPILENS" run -m $modules -o "f$kind" -- $MPIRUN -np 2 "$APPS/fcallsite_$kind" >/dev/null 2>&1
        sites=$("$MPILENS" report "f$kind" --callsites --csv | tail -n +2 | cut -d, -f3-6 | sed 's|^[^,]*/||' | sort)
        check_eq "Fortran ($kind, -m $modules): the three sites with 10, 20 and 30 calls" "fcallsite_body.inc,13,Send,10
fcallsite_body.inc,16,Send,20
fcallsite_body.inc,20,Recv,30" "$(grep -v ',Init,' <<<"$sites")"
        # gfortran puts the first statement of a program that uses a module on the
        # `program` line in its line table: the file and line are the compiler's.
        check_match "Fortran ($kind, -m $modules): MPI_Init has its site too" "$sites" "^fcallsite[_a-z0-9]*\.(inc|f90),[0-9]+,Init,2$"
    done
fi
finish
