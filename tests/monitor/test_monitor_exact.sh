# SPDX-License-Identifier: BSD-3-Clause
# test_monitor_exact.sh: exact matrices, one phase per section of tests/apps/monitor_app.c
# (4 ranks): ring, all-to-all, 2x2 halo, split communicators, zero-byte messages,
# MPI_PROC_NULL (not counted), a derived datatype (bytes = count x type size), Put/Get under
# fence, file writes and reads; per-communicator collective kinds; histograms; the C API
# without mpilens.
source "$(dirname "$0")/../core/lib.sh"

out=$("$MPILENS" run -m monitor -o run -- $MPIRUN -np 4 "$APPS/monitor_app" all "$WORK/file.out" 2>&1)
check_has "application ran" "$out" "monitor_app ok: 4 ranks"
m() { "$MPILENS" matrix run --format csv "$@" | tail -n +2 | cut -d, -f2- | tr '\n' ' '; }
check_eq "ring: 1 KiB to the right" "0,1,1,1024 1,2,1,1024 2,3,1,1024 3,0,1,1024 " "$(m --phase ring)"
check_eq "all-to-all: (src+1) x 100 B to every other rank" \
    "0,1,1,100 0,2,1,100 0,3,1,100 1,0,1,200 1,2,1,200 1,3,1,200 2,0,1,300 2,1,1,300 2,3,1,300 3,0,1,400 3,1,1,400 3,2,1,400 " \
    "$(m --phase alltoall)"
check_eq "halo on a periodic 2x2 grid: 2 x 512 B to each neighbour" \
    "0,1,2,1024 0,2,2,1024 1,0,2,1024 1,3,2,1024 2,0,2,1024 2,3,2,1024 3,1,2,1024 3,2,2,1024 " \
    "$(m --phase halo)"
check_eq "split: half-rank 0 to 1 is world 0->1 and 2->3" "0,1,1,64 2,3,1,64 " "$(m --phase split)"
check_eq "zero bytes counted, MPI_PROC_NULL not, vector type = 24 B, then a 2-int type = 8 B" \
    "0,1,1,0 0,3,2,32 1,0,2,32 1,2,1,0 2,1,2,32 2,3,1,0 3,0,1,0 3,2,2,32 " "$(m --phase special)"
check_eq "collectives: Allreduce 80 B to every other rank, Bcast 100 B from rank 1, Allgather 16 B within parity" \
    "0,1,1,80 0,2,2,96 0,3,1,80 1,0,2,180 1,2,2,180 1,3,3,196 2,0,2,96 2,1,1,80 2,3,1,80 3,0,1,80 3,1,2,96 3,2,1,80 " \
    "$(m --phase coll --kind coll)"
check_eq "Put of 40 B under fence: sent to the target; each Get sends 0 B (as Open MPI's osc monitoring counts)" \
    "0,1,1,40 0,3,1,0 1,0,1,0 1,2,1,40 2,1,1,0 2,3,1,40 3,0,1,40 3,2,1,0 " \
    "$(m --phase rma --kind rma)"
check_eq "Get of 80 B: received from the target" "0,3,1,80 1,0,1,80 2,1,1,80 3,2,1,80 " \
    "$(sqlite3 -separator , run/mpilens.db "SELECT src, dst, messages, bytes FROM monitor_matrix WHERE kind = 'rma_recv' ORDER BY src" | tr '\n' ' ')"
check_eq "file: 100 B written, 50 B read per rank" "rank,file,reads,bytes_read,writes,bytes_written
0,$WORK/file.out,1,50,1,100
1,$WORK/file.out,1,50,1,100
2,$WORK/file.out,1,50,1,100
3,$WORK/file.out,1,50,1,100" "$("$MPILENS" matrix run --kind io --format csv)"
check_eq "all phases summed" "0,1,6,2212 " "$(m | tr ' ' '\n' | grep '^0,1,' | tr '\n' ' ')"
check_eq "histogram of rank 0 toward rank 1: 0, 64, 100, 2 x 512, 1024 B" "     1  0                              1
     1  64-127                         2
     1  512-1023                       2
     1  1024-2047                      1" "$("$MPILENS" matrix run --histogram 0 | grep '^ *1 ')"
check_eq "collective kinds: the Barrier of the io section on world (a2a, 0 B) at each rank" \
    "W0.0 0 1 0
W0.0 1 1 0
W0.0 2 1 0
W0.0 3 1 0" "$(sqlite3 -separator ' ' run/mpilens.db "SELECT c.name, m.rank, a2a_count, a2a_bytes FROM monitor_collectives m JOIN communicators c ON c.id = m.comm_id JOIN monitor_phases p ON p.id = m.phase_id WHERE p.name = 'io' AND c.name = 'W0.0' ORDER BY m.rank")"
check_eq "phases in order" "ring alltoall halo split special coll rma io run " \
    "$(sqlite3 run/mpilens.db 'SELECT name FROM monitor_phases ORDER BY id' | tr '\n' ' ')"

out=$(PRELOAD=0 mpi 4 "$APPS/monitor_app" all "$WORK/file2.out" 2>&1)
check_has "without mpilens the API calls do nothing and the application runs" "$out" "monitor_app ok: 4 ranks"
finish
