# test_hundred_modules.sh: 100 empty layers (distinct .so files) above the counter
# module: results stay exact, every call visits all layers, unwrapped calls still take
# the shortcut.
source "$(dirname "$0")/lib.sh"

list=$(ls "$MODS"/stack/empty*.so | head -100 | paste -sd, -)
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
finish
