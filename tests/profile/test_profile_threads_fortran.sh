# SPDX-License-Identifier: BSD-3-Clause
# test_profile_threads_fortran.sh: exact counts under MPI_THREAD_MULTIPLE (4 threads per
# rank, atomic counters) and from a Fortran (mpi_f08) program.
source "$(dirname "$0")/../core/lib.sh"
q() { sqlite3 -separator ' ' "$1" "$2"; }
per_op="SELECT o.operation, SUM(p.calls), SUM(p.volume) FROM profile p JOIN operations o ON o.id = p.operation_id JOIN communicators c ON c.id = p.comm_id WHERE c.name = 'W0.0' AND o.kind = 'p2p' GROUP BY o.id ORDER BY o.id"

out=$("$MPILENS" run -m profile -o threads -- $MPIRUN -np 2 "$APPS/threads" 4 500 2>&1)
if grep -q "threads SKIP" <<<"$out"; then echo "SKIP: no MPI_THREAD_MULTIPLE"; exit 77; fi
check_has "threads: payloads intact" "$out" "threads ok: 2 ranks x 4 threads x 500 messages"
check_eq "threads: every call counted once" "Recv 4000 16000
Isend 4000 16000
Wait 4000 0" "$(q threads/mpilens.db "$per_op")"

if [ "${HAVE_FORTRAN:-0}" = 1 ]; then
    out=$("$MPILENS" run -m profile -o fortran -- $MPIRUN -np 2 "$APPS/fring_f08" 2>&1)
    check_has "Fortran: program result" "$out" "fring_f08 ranks=2 ok=T"
    check_eq "Fortran: calls and bytes (MPI_BOTTOM send counted by its datatype)" "Send 6 6144
Recv 2 2048
Irecv 4 4096
Waitall 2 0
Wait 2 0" "$(q fortran/mpilens.db "$per_op")"
    check_eq "Fortran: Allreduce with MPI_IN_PLACE" "1 8" \
        "$(q fortran/mpilens.db "SELECT SUM(calls) / 2, SUM(volume) FROM profile p JOIN operations o ON o.id = p.operation_id WHERE o.operation = 'Allreduce'")"
fi
finish
