# SPDX-License-Identifier: BSD-3-Clause
# test_fortran.sh: Fortran programs (mpif.h, use mpi, use mpi_f08) are intercepted and
# reach the same C module, which sees C's MPI_IN_PLACE, MPI_BOTTOM and
# MPI_STATUS_IGNORE. (Open MPI's Waitall binding passes a scratch status array to C even
# for MPI_STATUSES_IGNORE, so that line is not checked.)
source "$(dirname "$0")/lib.sh"
[ "${HAVE_FORTRAN:-0}" = 1 ] || { echo "SKIP: no MPI Fortran compiler"; exit 77; }

for kind in mpifh mpi f08; do
    out=$(MPILENS_MODULES=argcheck mpi 2 "$APPS/fring_$kind" 2>&1)
    lines=$(grep '^argcheck: rank 0' <<<"$out" | grep -v waitall | sort)
    check_eq "$kind: the C module sees Fortran's calls and constants" \
"argcheck: rank 0 allreduce in_place=1 count=1
argcheck: rank 0 recv status_ignore=1 count=1024
argcheck: rank 0 send bytes=1024 bottom=0
argcheck: rank 0 send bytes=1024 bottom=0
argcheck: rank 0 send bytes=1024 bottom=1" "$lines"
    check_has "$kind: program result" "$out" "fring_$kind ranks=2 ok=T"
done

# The families of issue 14 from Fortran (use mpi, mpif.h): nonblocking collectives, a
# matched probe and receive, file I/O; the profile, the monitor and the trace see them.
mods=profile,monitor
[ -e "$BUILD/lib/mpilens/trace.so" ] && mods=profile,monitor,trace
for kind in mpi mpifh; do
    out=$("$MPILENS" run -m $mods -o "cover_$kind" -- $MPIRUN -np 4 "$APPS/fcover_$kind" \
        "$WORK/cover_$kind.dat" 2>&1)
    check_has "$kind: I/O and nonblocking collectives program" "$out" "fcover ranks=4 ok=T"
    check_eq "$kind: profile rows (calls, bytes over 4 ranks)" \
"File_iread_at|4|400
File_iwrite_at|4|400
File_read_at|4|400
File_write_at_all|4|400
File_write_shared|4|400
Iallreduce|4|16
Ibarrier|4|0
Ibcast|4|16
Mprobe|4|0
Mrecv|4|256" "$(sqlite3 "cover_$kind/mpilens.db" "SELECT o.operation, SUM(calls), SUM(volume)
        FROM data d JOIN operations o ON o.id = d.operation_id WHERE o.operation LIKE 'File_%'
        AND o.operation NOT IN ('File_open', 'File_close') OR o.operation IN ('Iallreduce',
        'Ibarrier', 'Ibcast', 'Mprobe', 'Mrecv') GROUP BY 1 ORDER BY 1")"
    check_eq "$kind: monitor's I/O table: 3 writes and 2 reads of 100 B per rank" \
"0,3,300,2,200
1,3,300,2,200
2,3,300,2,200
3,3,300,2,200" "$(sqlite3 -separator , "cover_$kind/mpilens.db" "SELECT rank, writes,
        bytes_written, reads, bytes_read FROM monitor_io ORDER BY rank")"
    if [ "$mods" = profile,monitor,trace ]; then
        regions=$(otf2-print "cover_$kind/trace/traces.otf2" 2>/dev/null |
            grep -oE '^ENTER .*Region: "MPI_[A-Za-z_]+"' | grep -oE 'MPI_[A-Za-z_]+' | sort -u |
            grep -E 'File_|^MPI_I[ab]|Mrecv' | tr '\n' ' ')
        check_eq "$kind: trace regions" "MPI_File_close MPI_File_iread_at MPI_File_iwrite_at \
MPI_File_open MPI_File_read_at MPI_File_write_at_all MPI_File_write_shared MPI_Iallreduce \
MPI_Ibarrier MPI_Ibcast MPI_Mrecv " "$regions"
        check_eq "$kind: trace: 5 file operations per rank, each completed (OTF2 I/O records)" \
            "20 20" "$(otf2-print "cover_$kind/trace/traces.otf2" 2>/dev/null |
                grep -cE '^IO_OPERATION_BEGIN ') $(otf2-print "cover_$kind/trace/traces.otf2" \
                2>/dev/null | grep -cE '^IO_OPERATION_COMPLETE .*Bytes Result: 100,')"
    fi
done

# the C ring and the same ring in mpi_f08: the same profile (operations, buckets, calls,
# bytes) and the same matrix
for prog in ring ring_f08; do
    "$MPILENS" run -m profile,monitor -o "same_$prog" -- $MPIRUN -np 4 "$APPS/$prog" 5 \
        > "same_$prog.log" 2>&1
    check_match "$prog: ran" "$(cat "same_$prog.log")" "^$prog ok: 4 ranks, 5 rounds"
done
ROWS="SELECT c.name, o.operation, p.bucket, SUM(p.calls), SUM(p.volume) FROM profile p
    JOIN operations o ON o.id = p.operation_id JOIN communicators c ON c.id = p.comm_id
    WHERE o.operation NOT IN ('Init', 'Init_thread') GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
check_eq "f08 ring: the C ring's profile" "$(sqlite3 same_ring/mpilens.db "$ROWS")" \
    "$(sqlite3 same_ring_f08/mpilens.db "$ROWS")"
MATRIX="SELECT kind, src, dst, messages, bytes FROM monitor_matrix ORDER BY 1, 2, 3"
check_eq "f08 ring: the C ring's matrix" "$(sqlite3 same_ring/mpilens.db "$MATRIX")" \
    "$(sqlite3 same_ring_f08/mpilens.db "$MATRIX")"

out=$(MPILENS_MODULES=counter mpi 2 "$APPS/fring_f08" 2>&1)
check_eq "f08: third-party counter sees the 3 sends" "counter: rank 0 messages 3 bytes 3072
counter: rank 1 messages 3 bytes 3072" "$(grep '^counter:' <<<"$out" | sort)"
finish
