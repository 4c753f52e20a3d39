# SPDX-License-Identifier: BSD-3-Clause
# test_simgrid.sh: the dynbcast Cholesky on the simulated cluster (bench/dynbcast_simgrid.sh
# --quick --check): the simulation with kernels computed gives the right residual, every
# result line is there (16 and 64 nodes, two sizes), dynamic broadcasts beat point-to-point
# at 64 nodes and lose by no more than 2 % anywhere, and the figure is an SVG with its axes.
source "$(dirname "$0")/../core/lib.sh"
# SimGrid's smpicc builds its own binaries, whatever MPI the build is for: run once, in the
# Open MPI build.
[ "${MPI_FLAVOR:-}" = mpich ] && { echo "SKIP: simulated in the Open MPI build"; exit 77; }

out=$("$SRC/bench/dynbcast_simgrid.sh" --quick --check --out "$WORK/sim" 2>&1)
check_match "simulated run with kernels computed: residual ok" "$out" "^check: 16 nodes, n=2048, kernels computed: residual ok \([0-9.]+ s simulated\)$"
for p in 16 64; do
    for n in 4096 16384; do
        check_match "result line: $p nodes, n=$n" "$out" "^nodes=$p n=$n b=512 p2p_s=[0-9.]+ dynamic_s=[0-9.]+ gain=-?[0-9.]+%$"
    done
done
check_eq "dynamic broadcasts beat point-to-point at 64 nodes" "yes" \
    "$(awk -F'gain=' '/^nodes=64 / { if ($2 + 0 <= 0) bad = 1 } END { print bad ? "no" : "yes" }' <<<"$out")"
check_eq "dynamic broadcasts lose by no more than 2 % anywhere" "yes" \
    "$(awk -F'gain=' '/^nodes=/ { if ($2 + 0 < -2) bad = 1 } END { print bad ? "no" : "yes" }' <<<"$out")"
svg=$WORK/sim/dynbcast_simgrid.svg
check_eq "the figure has a curve per node count and its axis titles" "2 1 1" \
    "$(grep -c '<polyline' "$svg") $(grep -c 'matrix size n' "$svg") $(grep -c 'gain in GFlop/s' "$svg")"
out=$("$SRC/bench/dynbcast_simgrid.sh" --sizes 1000 --nodes 4 --out "$WORK/sim" 2>&1)
check_has "a size that is not a multiple of the tile: one line" "$out" "dynbcast_simgrid.sh: size 1000 is not a multiple of the tile 512"
finish
