#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dynbcast_simgrid.sh: the dynbcast Cholesky (src/dynbcast/cholesky.c, unchanged) on a
# simulated cluster like the paper's (bench/simgrid/inti.xml), point-to-point against dynamic
# broadcasts, for the paper's node counts and several matrix sizes. SimGrid SMPI compiles it
# with smpicc and runs every rank in one process on simulated time:
# - compute is charged by flop count (each kernel's, at the platform's host speed; the
#   program is built with -DDYNB_SMPI), and nothing the rank really does on this machine
#   counts (smpi/simulate-computation off): polling, copies and the simulator's own work
#   cost no simulated time, so the results are the same on every machine and every run;
# - a test or probe that finds nothing costs 0.1 us of simulated time (smpi/iprobe,
#   smpi/test), about what it costs on InfiniBand; an idle rank blocks in MPI_Waitany;
# - the network is SMPI's default model (piecewise-linear corrections of latency and
#   bandwidth by message size, calibrated by SimGrid on InfiniBand clusters).
# Each run prints one line: nodes=64 n=16384 b=512 p2p_s=X dynamic_s=Y gain=Z%, where gain
# is the GFlop/s improvement p2p_s / dynamic_s - 1 (the paper's Figure 2 plots GFlop/s).
# Results also go to OUT/dynbcast_simgrid.csv and the figure to OUT/dynbcast_simgrid.svg.
#
# Usage: bench/dynbcast_simgrid.sh [--quick] [--nodes "16 36 64 100"] [--sizes "8192 ..."]
#        [-b TILE] [--mode dynamic|tree] [--out DIR] [--check] [--crossover [BUSY_US]]
#        [--sequential]
#   --quick   16 and 64 nodes, two sizes (well under 5 minutes on 2 cores)
#   --mode    dynamic: the library's default choice (a tree only where one can win);
#             tree: a tree for every broadcast of 3 or more destinations (the threshold off)
#   --crossover  instead: one source to 2..63 destinations of 256 B to 4 MiB, tree against
#             point-to-point, destinations busy BUSY_US (default 0) between looks
#             (bench/dynbcast_crossover.c), on 64 nodes: where the library's threshold comes from
#   --sequential  with --crossover: the tree's children served one after the other
#   --check   also runs one small simulation with the kernels computed, and fails unless its
#             residual is right
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
nodes="16 36 64 100"
sizes="4096 8192 16384 24576 32768"
tile=512
mode=dynamic
out=${OUT:-$root/build-simgrid}
check=0
crossover=
sequential=
while [ $# -gt 0 ]; do
    case $1 in
    --quick) nodes="16 64"; sizes="4096 16384"; shift ;;
    --nodes) nodes=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    -b) tile=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=1; shift ;;
    --sequential) sequential=sequential; shift ;;
    --crossover) crossover=0; shift; if [[ ${1:-} =~ ^[0-9.]+$ ]]; then crossover=$1; shift; fi ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dynbcast_simgrid.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
    esac
done
case $mode in dynamic|tree) ;; *) echo "dynbcast_simgrid.sh: --mode is dynamic or tree, not '$mode'" >&2; exit 2 ;; esac
if ! command -v smpicc >/dev/null || ! command -v smpirun >/dev/null; then
    echo "dynbcast_simgrid.sh: SimGrid is not installed; as root: apt-get install simgrid libsimgrid-dev" >&2
    exit 2
fi
mkdir -p "$out"
platform=$here/simgrid/inti.xml
hosts=$out/hosts
sed -n 's/.*radical="0-\([0-9]*\)".*/\1/p' "$platform" | { read -r last; seq -f 'node-%g' 0 "$last"; } >"$hosts"

# Build (again when a source is newer than the program).
prog=$out/dynbcast-cholesky
src=$root/src/dynbcast
if [ ! -x "$prog" ] || [ -n "$(find "$src" "$root/include/dynbcast.h" -newer "$prog" -name '*.[ch]')" ]; then
    smpicc -O2 -DDYNB_SMPI -I"$root/include" -o "$prog" "$src/cholesky.c" "$src/dynb_core.c" \
        "$src/dynb_tree.c" -llapacke -lopenblas -lm
fi

if [ -n "$crossover" ]; then
    cross=$out/dynbcast_crossover
    smpicc -O2 -DDYNB_SMPI -I"$root/include" -o "$cross" "$here/dynbcast_crossover.c" \
        "$src/dynb_core.c" "$src/dynb_tree.c"
    exec smpirun -np 64 -platform "$platform" -hostfile "$hosts" --cfg=smpi/simulate-computation:no \
        --cfg=smpi/iprobe:1e-7 --cfg=smpi/test:1e-7 --cfg=smpi/grow-injected-times:no \
        --cfg=smpi/tmpdir:"$out" --log=root.thres:warning "$cross" "$crossover" $sequential
fi

cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/iprobe:1e-7 --cfg=smpi/test:1e-7
     --cfg=smpi/grow-injected-times:no --cfg=smpi/tmpdir:"$out" --log=root.thres:warning)
simulate() { # NODES N MODE [--no-check]: prints the simulated seconds
    local line
    line=$(OPENBLAS_NUM_THREADS=1 smpirun -np "$1" -platform "$platform" -hostfile "$hosts" \
        "${cfg[@]}" "$prog" -n "$2" -b "$tile" --bcast "$3" "${@:4}" 2>&1 | grep '^dynbcast-cholesky:') || {
        echo "dynbcast_simgrid.sh: the simulation of $1 nodes, n=$2, $3 failed" >&2
        return 1
    }
    case $line in *FAIL*) echo "dynbcast_simgrid.sh: wrong result: $line" >&2; return 1 ;; esac
    sed -n 's/.* time=\([0-9.]*\) s .*/\1/p' <<<"$line"
}

if [ "$check" = 1 ]; then
    t=$(simulate 16 2048 "$mode") || exit 1
    echo "check: 16 nodes, n=2048, kernels computed: residual ok (${t} s simulated)"
fi

csv=$out/dynbcast_simgrid.csv
echo "nodes,n,b,p2p_s,dynamic_s,gain_percent" >"$csv"
worst=1000
for p in $nodes; do
    for n in $sizes; do
        if [ $((n % tile)) -ne 0 ]; then
            echo "dynbcast_simgrid.sh: size $n is not a multiple of the tile $tile" >&2
            exit 2
        fi
        tp=$(simulate "$p" "$n" p2p --no-check)
        td=$(simulate "$p" "$n" "$mode" --no-check)
        gain=$(awk -v p="$tp" -v d="$td" 'BEGIN { printf "%.1f", 100 * (p / d - 1) }')
        echo "nodes=$p n=$n b=$tile p2p_s=$tp dynamic_s=$td gain=$gain%"
        echo "$p,$n,$tile,$tp,$td,$gain" >>"$csv"
        worst=$(awk -v a="$worst" -v b="$gain" 'BEGIN { print (b < a ? b : a) }')
    done
done
python3 "$here/dynbcast_plot.py" "$csv" "$out/dynbcast_simgrid.svg"
echo "worst gain ${worst}%; results: $csv, figure: $out/dynbcast_simgrid.svg"
