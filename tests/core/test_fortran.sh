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

out=$(MPILENS_MODULES=counter mpi 2 "$APPS/fring_f08" 2>&1)
check_eq "f08: third-party counter sees the 3 sends" "counter: rank 0 messages 3 bytes 3072
counter: rank 1 messages 3 bytes 3072" "$(grep '^counter:' <<<"$out" | sort)"
finish
