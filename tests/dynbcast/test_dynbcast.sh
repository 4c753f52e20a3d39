# SPDX-License-Identifier: BSD-3-Clause
# test_dynbcast.sh: random send/receive patterns on 2 to 8 ranks (every byte checked; sends
# before and after readiness; receives before and after arrival; one or many
# destinations), a handle sent twice to one destination goes once, the source of a
# broadcast to 7 destinations sends 3 transfers along a tree (seen by the monitor module,
# and by the library's default choice), and the
# Cholesky demo's residual in both modes, with and without network emulation.
source "$(dirname "$0")/../core/lib.sh"

for np in 2 3 5 8; do
    for mode in dynamic p2p; do
        out=$(PRELOAD=0 mpi $np "$APPS/dynb_random" 60 $mode $np 2>&1)
        check_match "random patterns, $np ranks, $mode" "$out" "^dynb_random ok: $np ranks, 60 handles, [0-9]+ receives checked, same destination twice: 1 message$"
    done
done

out=$("$MPILENS" run -m monitor -o run -- $MPIRUN -np 8 "$APPS/dynb_bcast7" 2>&1)
check_has "broadcast to 7: the library counts 3 messages at the source" "$out" "dynb_bcast7 ok: rank 0 sent 3 messages"
# Each transfer is a header (24 bytes + 4 per node of the receiver's subtree: 4 forwards to
# 5,6,7; 2 to 3) and the 64 KiB of data: two messages.
check_eq "the monitor sees rank 0 send 64 KiB to 4, 2, 1 (header + data each)" "0,1,2,65560 0,2,2,65564 0,4,2,65572 " \
    "$("$MPILENS" matrix run --format csv | tail -n +2 | cut -d, -f2- | grep '^0,' | tr '\n' ' ')"
out=$("$MPILENS" run -m monitor -o run2 -- $MPIRUN -np 8 "$APPS/dynb_bcast7" p2p 2>&1)
check_has "point-to-point mode: 7 messages" "$out" "dynb_bcast7 ok: rank 0 sent 7 messages"
out=$(PRELOAD=0 mpi 8 "$APPS/dynb_bcast7" default 2>&1)
check_has "the library's choice for 7 x 64 KiB: a tree (above the threshold)" "$out" "dynb_bcast7 ok: rank 0 sent 3 messages"

CHOL=$BUILD/bin/dynbcast-cholesky
if [ -x "$CHOL" ]; then
    export OPENBLAS_NUM_THREADS=1
    for mode in dynamic p2p; do
        out=$(PRELOAD=0 mpi 4 "$CHOL" -n 384 -b 48 --bcast $mode 2>&1)
        check_match "Cholesky 4 ranks, $mode: residual" "$out" "bcast=$mode net=none .* residual=[0-9.e+-]+ ok$"
        out=$(PRELOAD=0 mpi 4 "$CHOL" -n 256 -b 32 --bcast $mode --net 20,2000 2>&1)
        check_match "Cholesky 4 ranks, $mode, emulated network: residual" "$out" "bcast=$mode net=emulated .* ok$"
    done
    out=$(PRELOAD=0 mpi 2 "$CHOL" -n 100 -b 32 2>&1)
    check_has "bad size refused" "$out" "dynbcast-cholesky: -n 100 is not a multiple of -b 32; choose N = TILE x tiles"
fi
finish
