#!/usr/bin/env bash
# test.sh: the whole test suite, on a fresh Debian 12 machine: install what is missing,
# build against Open MPI and MPICH, and run CTest in both builds: two tests at a time, those
# that time something alone (tests/CMakeLists.txt). About 12 minutes on 2 cores; the
# edit-compile-test loop is `ctest -L quick -j 2` in build/ (under 3 minutes).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
status=0
for flavor in openmpi mpich; do
    echo "== $flavor"
    start=$SECONDS
    dir=$("$top/scripts/build.sh" "$flavor")
    echo "== $flavor: built in $((SECONDS - start)) s"
    start=$SECONDS
    (cd "$dir" && ctest --output-on-failure -j 2) || status=1
    echo "== $flavor: tests ran in $((SECONDS - start)) s"
done
exit $status
