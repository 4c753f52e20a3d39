# SPDX-License-Identifier: BSD-3-Clause
# test_threads.sh: MPI_THREAD_MULTIPLE through a stack of 10 empty layers (kept as layers)
# and the counter: 4 threads per rank exchanging 2000 messages each; payloads and counts
# must be exact.
source "$(dirname "$0")/lib.sh"

list=$(ls "$MODS"/stack/empty*.so | head -10 | paste -sd, -)
# kept as layers (else their wrappers, which only jump to PMPI_X, are left out)
out=$(MPILENS_EMPTY_LAYERS=keep MPILENS_MODULES=$list,counter mpi 2 "$APPS/threads" 4 2000 2>&1)
if grep -q "threads SKIP" <<<"$out"; then
    echo "$out"; echo "SKIP: this MPI does not provide MPI_THREAD_MULTIPLE"; exit 77
fi
check_has "threads: payloads intact" "$out" "threads ok: 2 ranks x 4 threads x 2000 messages"
check_eq "threads: every send counted once" "counter: rank 0 messages 8000 bytes 32000
counter: rank 1 messages 8000 bytes 32000" "$(grep '^counter:' <<<"$out" | sort)"
finish
