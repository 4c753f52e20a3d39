# SPDX-License-Identifier: BSD-3-Clause
# test_coverage.sh: every family of data-moving calls reaches every module that should see
# it (issue 14). tests/apps/coverage_app.c on 4 ranks under profile, monitor and trace
# stacked: the profile has a row for each call, the monitor's matrix and I/O table are
# exact, the trace has a region for each call and `mpilens analyze` reads it.
source "$(dirname "$0")/lib.sh"
command -v otf2-print >/dev/null || { echo "SKIP: no otf2-print"; exit 77; }
[ -e "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: no trace module (OTF2)"; exit 77; }
launcher=${MPIRUN/--mca osc sm,pt2pt/--mca osc pt2pt}

out=$("$MPILENS" run -m profile,monitor,trace -o run -- $launcher -np 4 "$APPS/coverage_app" \
    "$WORK/data.bin" 2>&1)
check_has "application ran" "$out" "coverage_app ok: 4 ranks"

# the calls of the issue's program that every module should show
calls="Ibcast Iallreduce Ialltoall Ibarrier Alltoallw Reduce_scatter_block Scan Exscan
    Neighbor_allgather Ineighbor_alltoall Bsend Sendrecv_replace Mrecv Imrecv Mprobe Improbe
    Probe Iprobe Rput Rget Fetch_and_op Compare_and_swap Get_accumulate Raccumulate Put
    Accumulate Win_lock_all Win_unlock_all Win_sync Win_test Win_flush_all File_write_at_all
    File_iwrite_at File_write_all_begin File_write_all_end File_write_shared File_write_ordered
    File_read_at File_iread_at"
ops=$(sqlite3 run/mpilens.db "SELECT DISTINCT o.operation FROM data d JOIN operations o
                               ON o.id = d.operation_id" | sort)
for op in $calls; do
    grep -qx "$op" <<<"$ops" || missing_ops="${missing_ops:-}$op "
done
check_eq "profile: a row for each call" "" "${missing_ops:-}"
# (every site: the report lists the 20 longest by default, and these short calls can fall out)
check_eq "profile: MPI_Init, File_open and File_close have their call sites (4 ranks)" "file_io,149,File_open,4
file_io,170,File_close,4
main,179,Init,4" "$("$MPILENS" report run --callsites --top 1000 --csv | tail -n +2 | cut -d, -f2,4,5,6 | grep -E ',(Init|File_open|File_close),' | sort)"
check_eq "profile: each file access once per rank, 100 B" \
"File_iread_at|4|400
File_iwrite_at|4|400
File_read_at|4|400
File_write_all_begin|4|400
File_write_at_all|4|400
File_write_ordered|4|400
File_write_shared|4|400" \
    "$(sqlite3 run/mpilens.db "SELECT o.operation, SUM(calls), SUM(volume) FROM data d JOIN
        operations o ON o.id = d.operation_id WHERE o.operation LIKE 'File_%' AND volume > 0
        GROUP BY 1 ORDER BY 1")"

check_eq "monitor: 8 messages / 512 B to the right neighbour, nothing else" \
"kind,src,dst,messages,bytes
p2p,0,1,8,512
p2p,1,2,8,512
p2p,2,3,8,512
p2p,3,0,8,512" "$("$MPILENS" matrix run --kind p2p --format csv)"
check_eq "monitor: 5 writes and 2 reads of 100 B per rank" \
"rank,file,reads,bytes_read,writes,bytes_written
0,$WORK/data.bin,2,200,5,500
1,$WORK/data.bin,2,200,5,500
2,$WORK/data.bin,2,200,5,500
3,$WORK/data.bin,2,200,5,500" "$("$MPILENS" matrix run --kind io --format csv)"
# Open MPI's osc monitoring: a put, accumulate or fetching atomic sends its data, a get
# sends 0 B; per rank to its right: Put x2 (4 B), Accumulate, Rput, Rget (0 B),
# Raccumulate, Fetch_and_op, Compare_and_swap, Get_accumulate (4 B each).
check_eq "monitor: one-sided sent, as Open MPI counts it" "0,1,9,32 1,2,9,32 2,3,9,32 3,0,9,32 " \
    "$(sqlite3 -separator , run/mpilens.db "SELECT src, dst, messages, bytes FROM monitor_matrix
        WHERE kind = 'rma' ORDER BY src" | tr '\n' ' ')"

regions=$(otf2-print run/trace/traces.otf2 2>/dev/null | grep -oE '^ENTER .*Region: "[A-Za-z_]+"' |
    grep -oE '"MPI_[A-Za-z_]+"' | tr -d '"' | sort -u)
for op in $calls; do
    grep -qx "MPI_$op" <<<"$regions" || missing_regions="${missing_regions:-}$op "
done
check_eq "trace: a region for each call" "" "${missing_regions:-}"
check_eq "trace: Mrecv and Imrecv are receives (4 of each kind of receive, 8 per rank)" "32" \
    "$(otf2-print run/trace/traces.otf2 2>/dev/null | grep -cE '^MPI_(I)?RECV ')"
check_eq "trace: Accumulate, Raccumulate and the fetching atomics as RMA_ATOMIC (5 per rank)" \
    "20" "$(otf2-print run/trace/traces.otf2 2>/dev/null | grep -c '^RMA_ATOMIC ')"
events=$(otf2-print run/trace/traces.otf2 2>/dev/null)
check_eq "trace: MPI-IO as OTF2 I/O records: a handle per rank's open, created and destroyed" \
    "8" "$(grep -cE '^IO_(CREATE|DESTROY)_HANDLE ' <<<"$events")"
check_eq "trace: rank 0's 7 operations (mode, flags, bytes asked)" \
"WRITE {COLLECTIVE} 100
WRITE {NON_BLOCKING} 100
WRITE {NON_BLOCKING, COLLECTIVE} 100
WRITE NONE 100
WRITE {COLLECTIVE} 100
READ NONE 100
READ {NON_BLOCKING} 100" "$(grep -E '^IO_OPERATION_BEGIN +0 ' <<<"$events" |
        sed -E 's/.*Mode: ([A-Z]+), Operation Flags: (.*), Bytes Request: ([0-9]+),.*/\1 \2 \3/')"
check_eq "trace: each of the 28 operations completes with its 100 B" "28 28" \
    "$(grep -c '^IO_OPERATION_BEGIN ' <<<"$events") $(grep '^IO_OPERATION_COMPLETE ' <<<"$events" |
        grep -c 'Bytes Result: 100,')"
check_eq "trace: lock_all/unlock_all (RmaAcquireLock/ReleaseLock), flush_all and sync (RmaSync), \
post/start/complete and the Win_test that closes the epoch (RmaGroupSync), per 4 ranks" \
    "4 4 8 16" "$(for e in ACQUIRE_LOCK RELEASE_LOCK SYNC GROUP_SYNC; do
        grep -c "^RMA_$e " <<<"$events"; done | tr '\n' ' ' | sed 's/ $//')"
aout=$("$MPILENS" analyze run 2>&1)
check_eq "analyze reads the trace (exit 0)" "0" "$?"
check_match "analyze: summary line" "$aout" "^mpilens: analysis of [0-9]+ events on 4 ranks"

# A monitor-only run without collectives: W0.0 is still in the database and in the .prof
# lines, as Open MPI writes it.
"$MPILENS" run -m monitor -o p2ponly -- $launcher -np 4 "$APPS/monitor_app" p2p-only >/dev/null 2>&1
check_eq "monitor alone: W0.0 in communicators" "W0.0|4|0,1,2,3" \
    "$(sqlite3 p2ponly/mpilens.db "SELECT name, size, members FROM communicators")"
check_eq "monitor alone: W0.0's D lines in the .prof output, zeros" \
"D	W0.0	procs: 0,1,2,3
O2A	2	0 bytes	0 msgs sent
A2O	2	0 bytes	0 msgs sent
A2A	2	0 bytes	0 msgs sent" "$("$MPILENS" matrix p2ponly --format prof | grep --no-group-separator -A3 '^D' | sed -n 9,12p)"
finish
