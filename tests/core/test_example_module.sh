# SPDX-License-Identifier: BSD-3-Clause
# test_example_module.sh: the example module of docs/modules.md on the example application:
# exact counts in the summary it writes to the run's output directory, its argument read,
# and the same .so preloaded alone (without mpilens) still runs the application.
source "$(dirname "$0")/lib.sh"
export MPILENS_MODULE_PATH=$BUILD/examples

reference=$(PRELOAD=0 mpi 4 "$BUILD/examples/halo2d" 7 2>&1 | grep '^halo2d:')
check_eq "reference run without mpilens" "1" "$(grep -c 'checksum' <<<"$reference")"
out=$("$MPILENS" run -m hello_module:verbose=1 -o res -- $MPIRUN -np 4 "$BUILD/examples/halo2d" 7 2>&1)
check_has "application result unchanged under mpilens" "$out" "$reference"
check_has "argument verbose=1 reached the module" "$out" "hello_module: 4 ranks, rank 0 made 28 MPI_Sendrecv calls"
check_eq "summary: 4 Sendrecv per iteration per rank" "rank  MPI_Sendrecv calls
   0                  28
   1                  28
   2                  28
   3                  28" "$(cat res/hello-summary.txt)"

out=$(PRELOAD=0 LD_PRELOAD=$BUILD/examples/hello_module.so $MPIRUN -np 4 "$BUILD/examples/halo2d" 7 2>&1)
check_has "preloaded alone: application unchanged" "$out" "$reference"
finish
