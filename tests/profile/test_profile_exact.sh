# SPDX-License-Identifier: BSD-3-Clause
# test_profile_exact.sh: the profile module on an application with known communication
# (tests/apps/profile_app.c, 4 ranks): exact calls and volumes per communicator, operation,
# bucket and rank, read back from the real SQLite database; communicator names; a freed
# communicator keeps its data; a Waitall over two communicators goes to "mixed"; receives
# charged the bytes of their status.
source "$(dirname "$0")/../core/lib.sh"

out=$("$MPILENS" run -m profile -o run -- $MPIRUN -np 4 "$APPS/profile_app" "$WORK/f.out" 2>&1)
check_has "application ran" "$out" "profile_app ok: 4 ranks"
check_has "closing line" "$out" "mpilens: results in $WORK/run (status 0)"
db=run/mpilens.db
q() { sqlite3 -separator ' ' "$db" "$1"; }
check_eq "no temporary file left (the database, its page and its record)" "mpilens.db
report.html
summary.json" "$(ls -A run)"
check_eq "schema version" "2" "$(q 'PRAGMA user_version')"
check_eq "communicators: names, sizes, creators, members" "W0.0 4 MPI_COMM_WORLD 0,1,2,3
d0.2 4 MPI_Comm_dup 0,1,2,3
mixed 0 (requests of several communicators) 
s0.1 2 MPI_Comm_split 0,1
s2.1 2 MPI_Comm_split 2,3" "$(q 'SELECT name, size, creator, members FROM communicators ORDER BY name')"

rows="SELECT c.name, o.operation, p.rank, p.bucket, p.calls, p.volume FROM profile p
      JOIN communicators c ON c.id = p.comm_id JOIN operations o ON o.id = p.operation_id"
check_eq "ring: 3 sends and 3 receives of 1 KiB per rank, bucket 1 (129-1024)" "W0.0 Recv 0 1 3 3072
W0.0 Recv 1 1 3 3072
W0.0 Recv 2 1 3 3072
W0.0 Recv 3 1 3 3072
W0.0 Send 0 1 3 3072
W0.0 Send 1 1 3 3072
W0.0 Send 2 1 3 3072
W0.0 Send 3 1 3 3072" "$(q "$rows WHERE o.operation IN ('Send','Recv') ORDER BY 2, 3")"
check_eq "Alltoallv: [v] in bucket 0 with the real volume (8+16+24+32 B)" "W0.0 Alltoallv 0 0 1 80
W0.0 Alltoallv 1 0 1 80
W0.0 Alltoallv 2 0 1 80
W0.0 Alltoallv 3 0 1 80" "$(q "$rows WHERE o.operation = 'Alltoallv' ORDER BY 3")"
check_eq "Allreduce of 8000 B on the halves, bucket 2" "s0.1 Allreduce 0 2 5 40000
s0.1 Allreduce 1 2 5 40000
s2.1 Allreduce 2 2 5 40000
s2.1 Allreduce 3 2 5 40000" "$(q "$rows WHERE o.operation = 'Allreduce' ORDER BY 3")"
check_eq "Bcast on the freed duplicate kept: 2 x 100 KiB, bucket 4" "d0.2 Bcast 0 4 2 204800
d0.2 Bcast 1 4 2 204800
d0.2 Bcast 2 4 2 204800
d0.2 Bcast 3 4 2 204800" "$(q "$rows WHERE o.operation = 'Bcast' ORDER BY 3")"
check_eq "Waitall over two communicators is charged to mixed" "4" \
    "$(q "SELECT SUM(calls) FROM profile p JOIN communicators c ON c.id = p.comm_id WHERE c.name = 'mixed'")"
check_eq "Isend per communicator" "W0.0 4 64
s0.1 2 32
s2.1 2 32" "$(q "SELECT c.name, SUM(calls), SUM(volume) FROM profile p JOIN communicators c ON c.id = p.comm_id JOIN operations o ON o.id = p.operation_id WHERE o.operation = 'Isend' GROUP BY c.name ORDER BY c.name")"
check_eq "window on the halves: 1 Put of 64 B and 2 fences per rank" "s0.1 Put 2 128
s0.1 Win_fence 4 0
s2.1 Put 2 128
s2.1 Win_fence 4 0" "$(q "SELECT c.name, o.operation, SUM(calls), SUM(volume) FROM profile p JOIN communicators c ON c.id = p.comm_id JOIN operations o ON o.id = p.operation_id WHERE o.kind = 'rma' GROUP BY 1, 2 ORDER BY 1, 2")"
check_eq "file written on world: 256 B per rank" "File_close 4 0
File_open 4 0
File_write_at 4 1024" "$(q "SELECT o.operation, SUM(calls), SUM(volume) FROM profile p JOIN operations o ON o.id = p.operation_id WHERE o.kind = 'io' GROUP BY 1 ORDER BY 1")"
check_eq "ranks table: 4 ranks with host and times" "4 4 4" \
    "$(q "SELECT COUNT(*), SUM(host <> ''), SUM(net_time > 0 AND mpi_time > 0 AND mpi_time <= net_time) FROM ranks")"
check_eq "metadata" "4|128,1024,8192,65536,262144,1048576,33554432|0.1.0" \
    "$(sqlite3 "$db" "SELECT (SELECT value FROM metadata WHERE key='Processes'), (SELECT value FROM metadata WHERE key='Buckets'), (SELECT value FROM metadata WHERE key='mpilens version')")"

# Receives charged from their status (tests/apps/recv_sizes.c), alone (keyed calls) and
# through the core's runners (MPILENS_SOLO=off): per bucket and per call site.
for solo in on off; do
    MPILENS_SOLO=$solo "$MPILENS" run -m profile -o sizes_$solo -- $MPIRUN -np 2 "$APPS/recv_sizes" > /dev/null 2>&1
    check_eq "solo $solo: receives by their status's bytes (48 or 1200 B of a 24 B type; a partial int: posted 16 B; ignored: posted; a status once ignored)" \
        "Recv 1 0 9 400
Recv 1 2 4 8400
Send 0 0 9 394
Send 0 2 4 8400
26 Send 6 1440
28 Recv 6 1440
31 Send 1 10
33 Recv 1 16
36 Send 2 4800
38 Recv 2 4800
44 Send 4 2544
46 Recv 4 2544" "$(sqlite3 -separator ' ' sizes_$solo/mpilens.db "SELECT o.operation, p.rank, p.bucket, p.calls,
        p.volume FROM profile p JOIN operations o ON o.id = p.operation_id WHERE o.operation
        IN ('Send', 'Recv') ORDER BY 1, 2, 3;
    SELECT c.line, o.operation, cp.calls, cp.volume FROM callsite_profile cp JOIN callsites c
        ON c.id = cp.callsite_id JOIN operations o ON o.id = cp.operation_id WHERE o.operation
        IN ('Send', 'Recv') ORDER BY 1")"
done

# Buckets chosen at launch.
out=$(MPILENS_BUCKETS=1000,10000 "$MPILENS" run -m profile -o run2 -- $MPIRUN -np 4 "$APPS/profile_app" "$WORK/f2.out" 2>&1)
check_eq "MPILENS_BUCKETS=1000,10000: three buckets" "0 0 1000
1 1001 10000
2 10001 2147483647" "$(sqlite3 -separator ' ' run2/mpilens.db 'SELECT * FROM buckets')"
check_eq "1 KiB sends now in bucket 1" "1" "$(sqlite3 run2/mpilens.db "SELECT DISTINCT bucket FROM profile p JOIN operations o ON o.id = p.operation_id WHERE o.operation = 'Send'")"
# The same list in -m: its commas stay in the value where a digit follows.
"$MPILENS" run -m profile:buckets=1000,10000,monitor -o run2m -- $MPIRUN -np 4 "$APPS/profile_app" "$WORK/f2m.out" > /dev/null 2>&1
check_eq "-m profile:buckets=1000,10000,monitor: three buckets, and the monitor" "0 0 1000
1 1001 10000
2 10001 2147483647 1" "$(sqlite3 -separator ' ' run2m/mpilens.db 'SELECT * FROM buckets')$(sqlite3 run2m/mpilens.db "SELECT ' ' || (COUNT(*) > 0) FROM monitor_matrix")"
out=$(MPILENS_BUCKETS=100,50 "$MPILENS" run -m profile -o run3 -- $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_has "bad MPILENS_BUCKETS refused" "$out" "mpilens: MPILENS_BUCKETS='100,50': '50' is not an increasing byte count; write e.g. 128,1024,8192"
check_lacks "bad MPILENS_BUCKETS: application did not run" "$out" "ring ok"
echo "module profile buckets=$(seq -s, 1 32)" > many.conf
out=$("$MPILENS" run -c many.conf -o run4 -- $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_eq "32 bucket bounds refused before launch (not cut silently)" \
    "mpilens: many.conf: module 'profile': buckets='$(seq -s, 1 32)': more than 31 bounds; give at most 31" "$out"
finish
