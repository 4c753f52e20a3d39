# SPDX-License-Identifier: BSD-3-Clause
# test_mpisee_compat.sh: the database offers mpisee's schema (metadata, mappings,
# exectimes, operations in mpisee's order, comms, data with buffer_size_min/max), so the
# queries of mpisee's analysis script (replayed by mpisee_compat.py) work unchanged.
source "$(dirname "$0")/../core/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

"$MPILENS" run -m profile -o run -- $MPIRUN -np 8 "$APPS/comms_app" > run.log 2>&1
out=$(python3 "$here/mpisee_compat.py" run/mpilens.db 2>&1)
check_has "metadata" "$out" "processes 8"
check_has "exectimes by rank" "$out" "exectimes [0, 1, 2, 3, 4, 5, 6, 7]"
check_has "mpi_time_sum created and filled by the script" "$out" "mpi_time_sum ranks [0, 1, 2, 3, 4, 5, 6, 7] positive True"
check_has "mpisee's operation order: Sendrecv" "$out" "operation id Sendrecv 4"
check_has "mpisee's operation order: Ibsend" "$out" "operation id Ibsend 11"
check_has "mpisee's operation order: Bcast" "$out" "operation id Bcast 30"
check_has "mpisee's operation order: Init" "$out" "operation id Init 74"
check_has "Listing 1 as mpisee-through shows it: world" "$out" "row W0.0 8 Allreduce 0 128 30 1920 [0, 1, 2, 3, 4, 5, 6, 7]"
check_has "Listing 1 as mpisee-through shows it: first half" "$out" "row s0.1 4 Allreduce 0 128 100 3200 [0, 1, 2, 3]"
check_has "Listing 1 as mpisee-through shows it: second half" "$out" "row s4.1 4 Allreduce 0 128 100 3200 [4, 5, 6, 7]"
check_has "bucket bounds pass its default filter" "$out" "max buffer within mpisee-through's default filter True"
finish
