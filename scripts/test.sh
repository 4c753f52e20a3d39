#!/usr/bin/env bash
# test.sh: the whole test suite, on a fresh Debian 12 machine: install what is missing,
# build against Open MPI and MPICH, and run CTest in both builds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
status=0
for flavor in openmpi mpich; do
    echo "== $flavor"
    dir=$("$top/scripts/build.sh" "$flavor")
    (cd "$dir" && ctest --output-on-failure -j 1) || status=1
done
exit $status
