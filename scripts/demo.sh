#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh: build mpilens, run the example application (a 2D halo exchange on 4 ranks, rank 0
# with half as much work again) under the profile, monitor and trace modules, replay its
# trace (wait states, efficiencies on an ideal network), export the timeline for Perfetto,
# and write the run's page, demo-run/report.html (docs/page.md), with every section. The
# report is also printed; in Python: PYTHONPATH=python examples/python_example.py.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
build=$("$top/scripts/build.sh" openmpi)
out=${1:-$top/demo-run}
rm -rf "$out"
"$build/bin/mpilens" run -m profile,monitor,trace -o "$out" -- \
    mpirun --allow-run-as-root --oversubscribe -np 4 "$build/examples/halo2d" 100
"$build/bin/mpilens" analyze "$out"
"$build/bin/mpilens" export "$out" --chrome "$out/trace.json"
echo
"$build/bin/mpilens" report "$out" --html "$out/report.html"
