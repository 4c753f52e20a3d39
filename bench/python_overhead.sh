#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# python_overhead.sh: what mpilens costs a Python (mpi4py) program per MPI call: the call
# site read from the interpreter's frame (docs/python.md) and the modules' recording, on 2
# ranks: bench/python_loop.py without mpilens, with the profile alone (which reads the
# Python call site of every call), with profile and monitor, alternating runs, the medians
# of ROUNDS. Prints ns per call and the ratio to the run without mpilens. Open MPI
# (Debian's mpi4py).
#
# Usage: bench/python_overhead.sh [BUILD_DIR] [ITERATIONS] [ROUNDS]
set -eu
build=$(realpath "${1:-build}") iterations=${2:-20000} rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
launcher="mpirun --allow-run-as-root --oversubscribe -np 2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
run() { # MODULES: the loop's lines, or without mpilens for "none"
    if [ "$1" = none ]; then
        $launcher /usr/bin/python3 "$here/python_loop.py" "$iterations"
    else
        rm -rf "$work/run"
        "$build/bin/mpilens" run -m "$1" -o "$work/run" -- $launcher /usr/bin/python3 \
            "$here/python_loop.py" "$iterations" 2>/dev/null
    fi
}
configs=(none profile profile,monitor)
for r in $(seq "$rounds"); do
    for c in "${configs[@]}"; do run "$c" > "$work/$c.$r"; done
done
cpu=$(cd "$here" && /usr/bin/python3 -c "from cpu_name import cpu_name; print(cpu_name())")
echo "mpi4py on $cpu, $iterations calls a run, median of $rounds runs"
printf '%-18s %12s %12s %8s %16s %8s\n' operation "none ns" "profile ns" ratio "profile,monitor" ratio
for op in "send+recv" "Allreduce" "pickled sendrecv"; do
    declare -A ns=()
    for c in "${configs[@]}"; do
        ns[$c]=$(cat "$work/$c".* | grep "^$op ns_per_call=" | sed 's/.*=//' | median)
    done
    awk -v op="$op" -v a="${ns[none]}" -v b="${ns[profile]}" -v c="${ns[profile,monitor]}" \
        'BEGIN { printf "%-18s %12.0f %12.0f %8.2f %16.0f %8.2f\n", op, a, b, b / a, c, c / a }'
done
