# SPDX-License-Identifier: BSD-3-Clause
# test_stack_order.sh: two modules stacked in order write to one log; the log shows the
# stack order, PMPI_ reaching the next module, a module's own MPI_ call (tlog_b's
# MPI_Comm_size inside its MPI_Send) reaching the library unseen by the others, calls that
# only one module wraps visiting only that module, module arguments, services, Pcontrol,
# the shortcut (no module) for unwrapped functions, and MPI called by another library's
# constructor before the core's own (the call boots the core and reaches the library).
source "$(dirname "$0")/lib.sh"

expected_log="tlog_a init level=1 tag=hello
tlog_b init level=2 tag=none
tlog_a enter MPI_Init
tlog_b enter MPI_Init
tlog_b lookup tlog.sends found=1 size=4
tlog_b exit MPI_Init
tlog_a exit MPI_Init
tlog_a enter MPI_Comm_size
tlog_a exit MPI_Comm_size
tlog_a enter MPI_Send count=1024
tlog_b enter MPI_Send count=1024
tlog_b exit MPI_Send
tlog_a exit MPI_Send
tlog_b enter MPI_Recv
tlog_b exit MPI_Recv
tlog_a enter MPI_Barrier
tlog_a exit MPI_Barrier
tlog_a pcontrol 1
tlog_b pcontrol 1
tlog_a finalize sends=1
tlog_b finalize"

mkdir logs
out=$(TLOG_DIR=$WORK/logs MPILENS_MODULES=tlog_a:tag=hello,tlog_b mpi 2 "$APPS/ring" 2>&1)
check_has "ring result unchanged" "$out" "ring ok: 2 ranks, 1 rounds"
check_eq "rank 0 log: stack order" "$expected_log" "$(cat logs/rank-0.log)"
# Rank 1 receives first; its Send/Recv blocks swap places.
check_eq "rank 1 log has the same lines" "$(sort <<<"$expected_log")" "$(sort logs/rank-1.log)"

rm -f logs/*
out=$(TLOG_DIR=$WORK/logs MPILENS_MODULES=tlog_b,tlog_a mpi 2 "$APPS/ring" 2>&1)
check_eq "reversed order: B's Send wraps A's, B's own MPI_Comm_size is not A's business" "tlog_b enter MPI_Send count=1024
tlog_a enter MPI_Send count=1024
tlog_a exit MPI_Send
tlog_b exit MPI_Send" "$(grep -A3 'tlog_b enter MPI_Send' logs/rank-0.log)"

out=$(MPILENS_MODULES=tlog_a,tlog_b mpi 2 "$APPS/chain_probe" 2>&1)
check_eq "dispatch chains (0 = shortcut to the library)" "chain: modules=2
chain: MPI_Send=2
chain: MPI_Recv=1
chain: MPI_Barrier=1
chain: MPI_Allreduce=0
chain: MPI_Wtime=0
chain: MPI_Pcontrol=2" "$(grep '^chain:' <<<"$out")"

out=$(mpi 2 "$APPS/chain_probe" 2>&1)
check_has "core without modules: everything is a shortcut" "$out" "chain: MPI_Send=0"
check_has "core without modules: no module" "$out" "chain: modules=0"
rm -f logs/*
out=$(TLOG_DIR=$WORK/logs MPILENS_MODULES=tlog_a mpi 2 "$APPS/early_call" 2>&1)
check_eq "a constructor's MPI calls before boot reach the library (both ranks)" \
    "early: rc=0 initialized=0 version_ok=1
early: rc=0 initialized=0 version_ok=1" "$(grep '^early:' <<<"$out")"
check_has "then the run goes on" "$out" "early_call ok"
check_eq "and the stack is whole: the module sees the application's calls" "tlog_a enter MPI_Init
tlog_a enter MPI_Barrier" "$(grep -E 'enter MPI_(Init|Barrier)' logs/rank-0.log)"
finish
