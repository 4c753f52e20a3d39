# SPDX-License-Identifier: BSD-3-Clause
# test_profile_comms.sh: communicator life cycles on 8 ranks (tests/apps/comms_app.c):
# the mpisee paper's Listing 1 (30 Allreduce on world, 100 in each half), nested splits,
# dup of dup, idup, cart_create + cart_sub, create_group on a subset, an
# intercommunicator, non-blocking collectives, MPI_COMM_SELF, Waitall with count 0, and
# Testany/Testall that must not block. Names, sizes, members and calls read back from
# the database and from `mpilens report`.
source "$(dirname "$0")/../core/lib.sh"

out=$("$MPILENS" run -m profile -o run -- $MPIRUN -np 8 "$APPS/comms_app" 2>&1)
check_has "application ran; Testany/Testall did not block" "$out" \
    "comms_app ok: 8 ranks, tests completed early: 0 0"
db=run/mpilens.db
q() { sqlite3 -separator ' ' "$db" "$1"; }
check_eq "communicators with data: name size creator members" "W0.0 8 MPI_COMM_WORLD 0,1,2,3,4,5,6,7
b0.7 4 MPI_Cart_sub 0,1,2,3
b4.7 4 MPI_Cart_sub 4,5,6,7
d0.4 8 MPI_Comm_dup 0,1,2,3,4,5,6,7
f0.10 1 MPI_COMM_SELF 0
f1.10 1 MPI_COMM_SELF 1
f2.10 1 MPI_COMM_SELF 2
f3.9 1 MPI_COMM_SELF 3
f4.9 1 MPI_COMM_SELF 4
f5.9 1 MPI_COMM_SELF 5
f6.9 1 MPI_COMM_SELF 6
f7.9 1 MPI_COMM_SELF 7
i0.5 8 MPI_Comm_idup 0,1,2,3,4,5,6,7
s0.1 4 MPI_Comm_split 0,1,2,3
s0.2 2 MPI_Comm_split 0,1
s2.2 2 MPI_Comm_split 2,3
s4.1 4 MPI_Comm_split 4,5,6,7
s4.2 2 MPI_Comm_split 4,5
s6.2 2 MPI_Comm_split 6,7
u0.8 3 MPI_Comm_create_group 0,1,2
x0.9 4 MPI_Intercomm_create 0,1,2,3
x4.8 4 MPI_Intercomm_create 4,5,6,7" "$(q 'SELECT name, size, creator, members FROM communicators ORDER BY name')"

report=$("$MPILENS" report run --op Allreduce --csv | cut -d, -f1,2,4,9 | grep -v '^f')
check_eq "Listing 1: 30 Allreduce on world, 100 in each half (collective calls counted once)" \
"comm,comm_size,operation,calls
s0.1,4,Allreduce,100
s4.1,4,Allreduce,100
W0.0,8,Allreduce,30
b0.7,4,Allreduce,1
b4.7,4,Allreduce,1" "$report"
check_eq "each rank of a half made 100 calls" "0 100
1 100
2 100
3 100
4 100
5 100
6 100
7 100" "$(q "SELECT p.rank, p.calls FROM profile p JOIN communicators c ON c.id = p.comm_id WHERE c.name IN ('s0.1','s4.1') ORDER BY p.rank")"
check_eq "intercommunicator: 4 sends on one side, 4 receives on the other" "x0.9 Send 4 32
x4.8 Recv 4 32" "$(q "SELECT c.name, o.operation, SUM(calls), SUM(volume) FROM profile p JOIN communicators c ON c.id = p.comm_id JOIN operations o ON o.id = p.operation_id WHERE c.name LIKE 'x%' GROUP BY 1, 2 ORDER BY 1")"
check_eq "non-blocking collectives and Waitall (with and without requests) on world" "Ibcast 8 32
Iallreduce 8 64
Waitall 16 0" "$(q "SELECT o.operation, SUM(calls), SUM(volume) FROM profile p JOIN operations o ON o.id = p.operation_id JOIN communicators c ON c.id = p.comm_id WHERE c.name = 'W0.0' AND o.operation IN ('Ibcast','Iallreduce','Waitall') GROUP BY o.id ORDER BY o.id DESC")"
check_eq "barriers on nested split, dup of dup, idup" "d0.4 8
i0.5 8
s0.2 2
s2.2 2
s4.2 2
s6.2 2" "$(q "SELECT c.name, SUM(calls) FROM profile p JOIN communicators c ON c.id = p.comm_id JOIN operations o ON o.id = p.operation_id WHERE o.operation = 'Barrier' AND c.name <> 'W0.0' GROUP BY 1 ORDER BY 1")"
check_eq "create_group on {0,1,2}: Bcast of 4 B at 3 ranks" "3 12" \
    "$(q "SELECT SUM(calls), SUM(volume) FROM profile p JOIN communicators c ON c.id = p.comm_id WHERE c.name = 'u0.8'")"
check_eq "receive volume from the status (4 B received into a 4 B buffer)" "8 32" \
    "$(q "SELECT SUM(calls), SUM(volume) FROM profile p JOIN operations o ON o.id = p.operation_id JOIN communicators c ON c.id = p.comm_id WHERE o.operation = 'Irecv' AND c.name = 'W0.0'")"
finish
