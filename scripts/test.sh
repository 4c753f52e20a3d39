#!/usr/bin/env bash
# test.sh [--debian12]: the whole test suite, on a fresh Debian 12 machine, on four MPIs:
# install what is missing, build against Debian 12's Open MPI 4.1 and MPICH 4.0 and run
# CTest in both builds; then the same in a Debian 13 root (Open MPI 5.0, MPICH 4.2, gcc 14,
# Slurm 24.11; scripts/debian13_root.sh makes it once into a cache folder) with builds in
# build-deb13/ and build-deb13-mpich/. CTest runs two tests at a time, those that time
# something alone (tests/CMakeLists.txt). --debian12: the first pair only (a quicker check).
# The edit-compile-test loop is `ctest -L quick -j 2` in build/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
only_debian12=0
case "${1:-}" in
    --debian12) only_debian12=1 ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--debian12]" >&2; exit 2 ;;
esac
"$top/scripts/deps.sh"
status=0
# suite LABEL FLAVOR BUILD_DIR [ROOT]: build and run CTest, on the machine or inside ROOT.
suite() {
    local label=$1 flavor=$2 dir=$3 root=${4:-} start=$SECONDS
    local run=()
    [ -n "$root" ] && run=("$top/scripts/in_root.sh" "$root" "$top")
    echo "== $label"
    if ! "${run[@]}" "$top/scripts/build.sh" "$flavor" "$dir" >/dev/null; then
        echo "== $label: the build failed"
        status=1
        return
    fi
    echo "== $label: built in $((SECONDS - start)) s"
    start=$SECONDS
    "${run[@]}" bash -c 'cd "$1" && ctest --output-on-failure -j 2' _ "$top/$dir" || status=1
    echo "== $label: tests ran in $((SECONDS - start)) s"
}
suite "Debian 12, Open MPI 4.1" openmpi build
suite "Debian 12, MPICH 4.0" mpich build-mpich
if [ $only_debian12 = 0 ]; then
    if root=$("$top/scripts/debian13_root.sh"); then
        suite "Debian 13, Open MPI 5.0" openmpi build-deb13 "$root"
        suite "Debian 13, MPICH 4.2" mpich build-deb13-mpich "$root"
    else
        echo "== Debian 13: no root (above: why)"
        status=1
    fi
fi
exit $status
