#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# starpu_cholesky.sh [BUILD_DIR]: StarPU-MPI's own Cholesky (Debian starpu-examples,
# mpi_cholesky) beside ours (dynbcast-cholesky) at the same n, tile and ranks on this machine,
# GFlop/s side by side, best of 3 runs each, the two alternating.
# StarPU out of the box starts a worker per core in every rank plus its MPI thread: 2 ranks on
# 2 cores run 4 busy threads or more and fight for the cores. Fair here means what ours has:
# one worker a rank (STARPU_NCPU=1), sequential BLAS (OPENBLAS_NUM_THREADS=1, as ours), and a
# scheduler without performance models to calibrate (lws; dmdas needs calibration runs).
build=${1:-build}
starpu=/usr/lib/x86_64-linux-gnu/starpu/mpi/mpi_cholesky
ours=$build/bin/dynbcast-cholesky
if [ ! -x "$starpu" ] || [ ! -x "$ours" ]; then
    echo "starpu_cholesky.sh: needs $starpu (apt-get install starpu-examples) and $ours (scripts/build.sh)" >&2
    exit 2
fi
starpu_gf() { # RANKS N NBLOCKS [ENV...]
    env OPENBLAS_NUM_THREADS=1 STARPU_SILENT=1 "${@:4}" timeout 300 \
        mpirun --allow-run-as-root --oversubscribe -np "$1" "$starpu" -size "$2" -nblocks "$3" 2>&1 |
        sed -n 's/^Synthetic GFlops : \([0-9.]*\).*/\1/p' | head -1
}
ours_gf() { # RANKS N TILE
    OPENBLAS_NUM_THREADS=1 timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$1" "$ours" -n "$2" -b "$3" --no-check 2>&1 |
        sed -n 's/.*GFlop\/s=\([0-9.]*\).*/\1/p'
}
best() { tr ' ' '\n' | grep . | sort -g | tail -1; }
printf '%-6s %-6s %-6s %18s %18s %14s\n' ranks n tile "StarPU default" "StarPU fair" "dynbcast"
for ranks in 2 4; do
    for n in 2048 4096; do
        tile=256
        d="" f="" o=""
        for r in 1 2 3; do
            d="$d $(starpu_gf $ranks $n $((n / tile)))"
            f="$f $(starpu_gf $ranks $n $((n / tile)) STARPU_NCPU=1 STARPU_SCHED=lws)"
            o="$o $(ours_gf $ranks $n $tile)"
        done
        printf '%-6s %-6s %-6s %18s %18s %14s\n' $ranks $n $tile "$(best <<<"$d")" "$(best <<<"$f")" "$(best <<<"$o")"
    done
done
echo "(GFlop/s, best of 3; $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p'))"
