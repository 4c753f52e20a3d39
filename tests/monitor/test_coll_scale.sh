# SPDX-License-Identifier: BSD-3-Clause
# test_coll_scale.sh: the monitor stores a uniform collective in O(p) rows, not p(p-1)
# (issue 37): one MPI_Barrier on the world of 8 ranks (tests/apps/world_size.c) is kept as
# one row per rank in monitor_collectives (uniform_messages 1) and no `coll` row in
# monitor_matrix, while the monitor_cells view and `mpilens matrix --kind coll` still show
# all 56 peer cells.
source "$(dirname "$0")/../core/lib.sh"

out=$(timeout 120 "$MPILENS" run -m monitor -o run -- $MPIRUN -np 8 "$APPS/world_size" 2>&1)
check_has "application ran" "$out" "world_size: 8 ranks"
q() { sqlite3 -separator ' ' run/mpilens.db "$1"; }
check_eq "no stored coll cell" "0" "$(q "SELECT COUNT(*) FROM monitor_matrix WHERE kind = 'coll'")"
check_eq "one collective row per rank with the uniform traffic" "8 8" \
    "$(q "SELECT COUNT(*), SUM(uniform_messages) FROM monitor_collectives c
          JOIN communicators w ON w.id = c.comm_id WHERE w.name = 'W0.0'")"
check_eq "the world's 8 members stored once" "8" \
    "$(q "SELECT COUNT(*) FROM communicator_members m JOIN communicators w ON w.id = m.comm_id
          WHERE w.name = 'W0.0'")"
check_eq "monitor_cells: 56 peer cells of 1 message" "56 56 0" \
    "$(q "SELECT COUNT(*), SUM(messages), COUNT(*) - COUNT(DISTINCT src * 8 + dst) FROM monitor_cells
          WHERE kind = 'coll'")"
csv=$("$MPILENS" matrix run --kind coll --metric count --format csv 2>&1)
check_eq "matrix --kind coll: 56 cells of 1 message, none on the diagonal" "56" \
    "$(awk -F, 'NR > 1 && $1 == "coll" && $4 == 1 && $2 != $3' <<<"$csv" | wc -l)"
finish
