# SPDX-License-Identifier: BSD-3-Clause
# test_third_party.sh: an ordinary PMPI tool (counter.so, built without any knowledge of
# mpilens) works as a module, stacked with another, preloaded alone without the core,
# and with the static-link option (-lmpilens before the MPI library).
source "$(dirname "$0")/lib.sh"

expected="counter: rank 0 messages 3 bytes 3072
counter: rank 1 messages 3 bytes 3072
counter: rank 2 messages 3 bytes 3072
counter: rank 3 messages 3 bytes 3072"

out=$(MPILENS_MODULES=counter mpi 4 "$APPS/ring" 3 2>&1)
check_eq "counter alone under the core" "$expected" "$(grep '^counter:' <<<"$out" | sort)"
check_has "ring ok under the core" "$out" "ring ok: 4 ranks, 3 rounds"

mkdir logs
out=$(TLOG_DIR=$WORK/logs MPILENS_MODULES=tlog_a,counter,tlog_b mpi 4 "$APPS/ring" 3 2>&1)
check_eq "counter stacked between two modules" "$expected" "$(grep '^counter:' <<<"$out" | sort)"
check_eq "tlog_a saw 3 sends" "tlog_a finalize sends=3" "$(grep finalize logs/rank-2.log | head -1)"

out=$(PRELOAD=0 LD_PRELOAD=$MODS/counter.so mpi 4 "$APPS/ring" 3 2>&1)
check_eq "counter preloaded alone, no core" "$expected" "$(grep '^counter:' <<<"$out" | sort)"

out=$(PRELOAD=0 MPILENS_MODULES=counter mpi 4 "$APPS/ring_linked" 3 2>&1)
check_eq "application linked with -lmpilens" "$expected" "$(grep '^counter:' <<<"$out" | sort)"
check_has "linked application result" "$out" "ring ok: 4 ranks, 3 rounds"

out=$("$MPILENS" run -m counter -o res -- $MPIRUN -np 4 "$APPS/ring" 3 2>&1)
check_eq "mpilens run -m counter" "$expected" "$(grep '^counter:' <<<"$out" | sort)"
finish
