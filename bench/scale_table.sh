#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scale_table.sh: the table of docs/scaling.md. For each job size P, scale_app (bench/
# scale_app.c) runs without the tool and under `mpilens run -m profile,monitor` (or the
# modules in MODULES: MODULES=summary for the always-on record, docs/summary.md); printed:
# MPI_Finalize's time on rank 0 (and the difference the tool adds), rank 0's peak memory,
# the bytes rank 0 received in the modules' tree merges (MPILENS_MERGE_STATS), the run
# database's size and its rows (profile rows, summary rows, stored monitor cells,
# collective rows), and the bytes of the per-rank detail written beside it in shards (the
# default `profile:detail=auto` keeps every rank's rows in mpilens.db up to 64 ranks), and
# the size of the summary record (summary.json) and the summary's own work in rank 0's
# MPI_Finalize (merge and record, MPILENS_SUMMARY_STATS) when it is among the modules.
# Oversubscribed on this machine: the times are noisy, the sizes exact.
# Usage: bench/scale_table.sh [SHAPE [P...]]   (SHAPE: fixed (default) or C communicators
# per rank; P default: 8 16 32 64 128). Build first: scripts/build.sh openmpi.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
SHAPE=${1:-fixed}
MODULES=${MODULES:-profile,monitor}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(8 16 32 64 128)
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "# CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1); $(nproc) cores; shape $SHAPE"
echo "# modules: $MODULES"
printf '%6s %10s %10s %9s %9s %9s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n' ranks fin_bare_s \
    fin_tool_s added_s rss0_bare rss0_tool recv0_bytes db_bytes prof_rows summ_rows mon_cells \
    coll_rows shard_bytes record_bytes sum_fin_ms
rows() { [ -f "$1" ] && sqlite3 "$1" "$2" 2>/dev/null || echo 0; }
for p in "${SIZES[@]}"; do
    bare=$("${MPIRUN[@]}" -np "$p" "$BUILD/bench/scale_app" "$SHAPE" 2>/dev/null | grep '^scale_app')
    out=$(MPILENS_MERGE_STATS=1 MPILENS_SUMMARY_STATS=1 "$BUILD/bin/mpilens" run -m "$MODULES" -o "$WORK/r$p" -- \
        "${MPIRUN[@]}" -np "$p" "$BUILD/bench/scale_app" "$SHAPE" 2> "$WORK/err$p" | grep '^scale_app')
    db=$WORK/r$p/mpilens.db
    read -r _ _ _ fb _ rb <<<"$bare"
    read -r _ _ _ ft _ rt <<<"$out"
    printf '%6d %10.3f %10.3f %9.3f %9d %9d %10d %10d %10d %10d %10d %10d %10d %10d %10s\n' "$p" "$fb" \
        "$ft" "$(awk -v a="$ft" -v b="$fb" 'BEGIN { print a - b }')" "$rb" "$rt" \
        "$(awk '/rank 0 received/ { n += $6 } END { print n + 0 }' "$WORK/err$p")" \
        "$(stat -c %s "$db" 2>/dev/null || echo 0)" \
        "$(rows "$db" 'SELECT COUNT(*) FROM profile')" \
        "$(rows "$db" 'SELECT COUNT(*) FROM profile_summary')" \
        "$(rows "$db" 'SELECT COUNT(*) FROM monitor_matrix')" \
        "$(rows "$db" 'SELECT COUNT(*) FROM monitor_collectives')" \
        "$(cat "$WORK/r$p"/profile-detail/*.db 2> /dev/null | wc -c)" \
        "$(stat -c %s "$WORK/r$p/summary.json" 2>/dev/null || echo 0)" \
        "$(sed -n 's/^mpilens: summary: MPI_Finalize on rank 0: \([0-9.]*\) ms.*/\1/p' "$WORK/err$p" | head -1)"
done
