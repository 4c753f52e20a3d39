# SPDX-License-Identifier: BSD-3-Clause
# test_merge_pieces.sh: the tree merge's path for states of 1 GiB or more (a length, then
# pieces: src/common/tree_merge.c), run on 4 ranks by making the pieces 64 bytes
# (MPILENS_MERGE_PIECE, for tests): the profile, its call sites and the monitor's matrix
# are exactly those of the usual one-message merge (call sites compared by object and
# offset: their ids follow the order rank 0 met them in, which varies from run to run).
source "$(dirname "$0")/lib.sh"

run() {
    timeout 120 "$MPILENS" run -m profile,monitor -o "$1" -- $MPIRUN -np 4 "$APPS/profile_app" \
        "$WORK/$1.out" 2>&1
}
counts() {
    sqlite3 -separator ' ' "$1/mpilens.db" "SELECT p.rank, c.name, o.operation, p.bucket, p.calls, p.volume
        FROM profile p JOIN communicators c ON c.id = p.comm_id
        JOIN operations o ON o.id = p.operation_id ORDER BY 1, 2, 3, 4;
        SELECT 'site', cp.rank, s.object, s.offset, o.operation, cp.calls, cp.volume
        FROM callsite_profile cp JOIN callsites s ON s.id = cp.callsite_id
        JOIN operations o ON o.id = cp.operation_id ORDER BY 2, 3, 4, 5;
        SELECT 'cell', kind, src, dst, SUM(messages), SUM(bytes) FROM monitor_cells
        GROUP BY 2, 3, 4 ORDER BY 2, 3, 4"
}
out=$(run whole)
check_has "one-message merge: closing line" "$out" "mpilens: results in $WORK/whole (status 0)"
out=$(MPILENS_MERGE_PIECE=64 run pieces)
check_has "merge in 64-byte pieces: closing line" "$out" "mpilens: results in $WORK/pieces (status 0)"
whole=$(counts whole)
check_match "the profile has rows" "$whole" "^3 W0.0 Send 1 3 3072$"
check_eq "merge in pieces: the same profile, call sites and matrix" "$whole" "$(counts pieces)"
finish
