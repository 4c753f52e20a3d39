# SPDX-License-Identifier: BSD-3-Clause
# test_hundred_modules.sh: 100 empty layers (distinct .so files) above the counter
# module. By default their wrappers, which only jump to PMPI_X, are left out of the
# dispatch (src/core/forwarders.c): calls visit the counter alone, with exact results.
# Kept as layers (MPILENS_EMPTY_LAYERS=keep): results stay exact, every call visits all
# layers, unwrapped calls still take the shortcut; the same with every level passing the
# core's one shared step instead of its own (MPILENS_LEVEL_STEPS=off, src/core/levels.c),
# and for 16 layers, where every level has its own step.
source "$(dirname "$0")/lib.sh"

list=$(ls "$MODS"/stack/empty*.so | head -100 | paste -sd, -)
out=$(MPILENS_MODULES=$list,counter mpi 4 "$APPS/ring" 10 2>&1)
check_eq "counter below 100 empty layers left out" "4" \
    "$(grep -c '^counter: rank [0-3] messages 10 bytes 10240$' <<<"$out")"
out=$(MPILENS_MODULES=$list,counter mpi 2 "$APPS/chain_probe" 2>&1)
check_has "empty layers left out: 101 modules loaded" "$out" "chain: modules=101"
check_has "empty layers left out: MPI_Send visits the counter alone" "$out" "chain: MPI_Send=1"
check_has "empty layers left out: MPI_Recv is a shortcut" "$out" "chain: MPI_Recv=0"
out=$(MPILENS_MODULES=$MODS/empty_noplt.so,counter mpi 2 "$APPS/chain_probe" 2>&1)
check_has "an empty layer built with -fno-plt is left out too" "$out" "chain: MPI_Send=1"
out=$(MPILENS_EMPTY_LAYERS=keep MPILENS_MODULES=$MODS/empty_noplt.so,counter mpi 2 \
    "$APPS/chain_probe" 2>&1)
check_has "MPILENS_EMPTY_LAYERS=keep keeps it" "$out" "chain: MPI_Send=2"
export MPILENS_EMPTY_LAYERS=keep

check_eq "100 copies of the empty module" "100" "$(tr ',' '\n' <<<"$list" | wc -l)"
out=$(MPILENS_MODULES=$list,counter mpi 4 "$APPS/ring" 10 2>&1)
check_has "ring through 100 layers" "$out" "ring ok: 4 ranks, 10 rounds"
check_eq "counter below 100 layers" "counter: rank 0 messages 10 bytes 10240
counter: rank 1 messages 10 bytes 10240
counter: rank 2 messages 10 bytes 10240
counter: rank 3 messages 10 bytes 10240" "$(grep '^counter:' <<<"$out" | sort)"

out=$(MPILENS_MODULES=$list,counter mpi 2 "$APPS/chain_probe" 2>&1)
check_has "101 modules loaded" "$out" "chain: modules=101"
check_has "MPI_Send visits 101 modules" "$out" "chain: MPI_Send=101"
check_has "MPI_Recv visits the 100 empty ones" "$out" "chain: MPI_Recv=100"
check_has "MPI_Barrier is a shortcut" "$out" "chain: MPI_Barrier=0"

out=$(MPILENS_LEVEL_STEPS=off MPILENS_MODULES=$list,counter mpi 4 "$APPS/ring" 10 2>&1)
check_eq "the shared step (MPILENS_LEVEL_STEPS=off): the same counts below 100 layers" \
    "4" "$(grep -c '^counter: rank [0-3] messages 10 bytes 10240$' <<<"$out")"
sixteen=$(ls "$MODS"/stack/empty*.so | head -15 | paste -sd, -)
out=$(MPILENS_MODULES=$sixteen,counter mpi 4 "$APPS/ring" 10 2>&1)
check_eq "16 layers, each level its own step: the same counts" \
    "4" "$(grep -c '^counter: rank [0-3] messages 10 bytes 10240$' <<<"$out")"
out=$(MPILENS_MODULES=$sixteen,counter mpi 2 "$APPS/chain_probe" 2>&1)
check_has "16 layers: MPI_Send visits 16 modules" "$out" "chain: MPI_Send=16"
check_has "16 layers: MPI_Recv visits the 15 empty ones" "$out" "chain: MPI_Recv=15"
# A level's step passes what it does not take itself to the generic step by a tail call
# (the return address the generic step reads must stay the module's): no step calls.
steps=$(objdump -d --no-show-raw-insn "$CORE" | awk '/^[0-9a-f]+ <.*>:$/ {
    f = ($2 ~ /^<lens_l[0-9]+_/); n += f } f && /\tcall/ {c++} END {print n + 0, c + 0}')
check_match "the level steps end in jumps, never calls (steps, calls)" "$steps" '^[1-9][0-9]+ 0$'
finish
