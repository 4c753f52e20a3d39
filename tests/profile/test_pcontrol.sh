# SPDX-License-Identifier: BSD-3-Clause
# test_pcontrol.sh: mpiP's MPI_Pcontrol levels in the profile and the monitor
# (tests/apps/pcontrol_app.c, 4 ranks): 0 stops, 1 resumes, 2 resets, 3 writes an
# intermediate result, 4 writes and resets. Exact Sendrecv counts in the final and the two
# intermediate databases (DIR/pcontrol/1, /2), in the profile and in the monitor's matrix;
# pcontrol=0 ignores the levels; the trace stacked beside them changes nothing of theirs;
# a bad pcontrol= value is refused.
source "$(dirname "$0")/../core/lib.sh"

# Sendrecv calls per rank (profile) and messages/bytes each rank sent to its right (monitor).
profile_of() {
    sqlite3 -separator ' ' "$1/mpilens.db" "SELECT p.rank, SUM(p.calls), SUM(p.volume) FROM profile p
        JOIN operations o ON o.id = p.operation_id WHERE o.operation = 'Sendrecv'
        GROUP BY p.rank ORDER BY p.rank"
}
matrix_of() {
    sqlite3 -separator ' ' "$1/mpilens.db" "SELECT src, dst, messages, bytes FROM monitor_matrix
        WHERE kind = 'p2p' ORDER BY src, dst"
}
# expected STEPS: the profile's rows (each Sendrecv sends and receives 1 KiB)
# and the matrix's, for STEPS ring steps on 4 ranks (Sendrecv's volume: what it sent, as mpisee counts).
expected_profile() { for r in 0 1 2 3; do echo "$r $1 $(($1 * 1024))"; done; }
expected_matrix() { for r in 0 1 2 3; do echo "$r $(((r + 1) % 4)) $1 $(($1 * 1024))"; done; }

out=$(timeout 120 "$MPILENS" run -m profile,monitor -o run -- $MPIRUN -np 4 "$APPS/pcontrol_app" 2>&1)
check_has "application ran" "$out" "pcontrol_app ok: 4 ranks"
check_has "closing line" "$out" "mpilens: results in $WORK/run (status 0)"
check_has "where the intermediate results went" "$out" \
    "mpilens: 2 intermediate results (MPI_Pcontrol) in $WORK/run/pcontrol/1 .. 2"
check_eq "final profile: the 4 steps after Pcontrol(2)" "$(expected_profile 4)" "$(profile_of run)"
check_eq "final matrix: 4 messages to the right" "$(expected_matrix 4)" "$(matrix_of run)"
for k in 1 2; do
    check_eq "Pcontrol($((k + 2))) profile: 3 + 5 steps (7 stopped)" "$(expected_profile 8)" \
        "$(profile_of run/pcontrol/$k)"
    check_eq "Pcontrol($((k + 2))) matrix" "$(expected_matrix 8)" "$(matrix_of run/pcontrol/$k)"
    check_eq "Pcontrol($((k + 2))) is said to be intermediate" \
        "ranks 0, 1, 2, 3: MPI_Pcontrol($((k + 2)))" \
        "$(sqlite3 run/pcontrol/$k/mpilens.db "SELECT value FROM metadata WHERE key = 'Incomplete'")"
done
check_eq "no snapshot files left" "" "$(find run -name partial)"
report=$("$MPILENS" report run/pcontrol/1 2>&1)
check_match "report reads an intermediate result" "$report" "Sendrecv"

out=$(timeout 120 "$MPILENS" run -m profile,monitor -o offon -- $MPIRUN -np 4 "$APPS/pcontrol_app" off-on 2>&1)
check_has "off-on: closing line" "$out" "mpilens: results in $WORK/offon (status 0)"
check_eq "off-on: 7 steps stopped, 5 recorded in the profile" "$(expected_profile 5)" "$(profile_of offon)"
check_eq "off-on: 5 messages per rank in the matrix" "$(expected_matrix 5)" "$(matrix_of offon)"

out=$(timeout 120 "$MPILENS" run -m profile:pcontrol=0,monitor:pcontrol=0 -o off -- \
    $MPIRUN -np 4 "$APPS/pcontrol_app" 2>&1)
check_has "pcontrol=0: closing line" "$out" "mpilens: results in $WORK/off (status 0)"
check_eq "pcontrol=0: the profile has all 21 steps" "$(expected_profile 21)" "$(profile_of off)"
check_eq "pcontrol=0: the matrix has all 21" "$(expected_matrix 21)" "$(matrix_of off)"
check_eq "pcontrol=0: no intermediate results" "no" "$([ -e off/pcontrol ] && echo yes || echo no)"

out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o stacked -- \
    $MPIRUN -np 4 "$APPS/pcontrol_app" 2>&1)
check_has "stacked with the trace: closing line" "$out" "mpilens: results in $WORK/stacked (status 0)"
check_eq "stacked: same profile" "$(profile_of run)" "$(profile_of stacked)"
check_eq "stacked: same matrix" "$(matrix_of run)" "$(matrix_of stacked)"
check_eq "stacked: same intermediate profile" "$(profile_of run/pcontrol/2)" \
    "$(profile_of stacked/pcontrol/2)"

out=$(timeout 60 "$MPILENS" run -m profile:pcontrol=yes -o bad -- $MPIRUN -np 2 "$APPS/pcontrol_app" 2>&1)
status=$?
check_eq "pcontrol=yes refused: exit 2" "2" "$status"
check_match "pcontrol=yes refused: says the values" "$out" \
    "profile: pcontrol='yes': give pcontrol=1 .* or pcontrol=0"
finish
