#!/usr/bin/env bash
# demo.sh: build mpilens, run the example application (a 2D halo exchange on 4 ranks)
# under the profile and monitor modules, and show the report read back from the run
# database (and, in Python, docs/python.md: PYTHONPATH=python examples/python_example.py).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
build=$("$top/scripts/build.sh" openmpi)
out=${1:-$top/demo-run}
rm -rf "$out"
"$build/bin/mpilens" run -m profile,monitor -o "$out" -- \
    mpirun --allow-run-as-root --oversubscribe -np 4 "$build/examples/halo2d" 20
echo
"$build/bin/mpilens" report "$out/mpilens.db" --html "$out/report.html"
