#!/usr/bin/env bash
# demo.sh: build mpilens, run the example application (a 2D halo exchange on 4 ranks)
# under mpilens, and show what was measured.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
build=$("$top/scripts/build.sh" openmpi)
out=${1:-$top/demo-run}
rm -rf "$out"
export MPILENS_MODULE_PATH=$build/examples
"$build/bin/mpilens" run -m hello_module:verbose=1 -o "$out" -- \
    mpirun --allow-run-as-root --oversubscribe -np 4 "$build/examples/halo2d" 20
echo
echo "== $out/hello-summary.txt"
cat "$out/hello-summary.txt"
