#!/usr/bin/env bash
# test.sh [--debian12]: the whole test suite, on a fresh Debian 12 machine, on four MPIs:
# install what is missing, build against Debian 12's Open MPI 4.1 and MPICH 4.0 and run
# CTest in both builds; then the same in a Debian 13 root (Open MPI 5.0, MPICH 4.2, gcc 14,
# Slurm 24.11; scripts/debian13_root.sh makes it once into a cache folder) with builds in
# build-deb13/ and build-deb13-mpich/. The builds run one after another in the background
# at the lowest priority (nice 19), so that the next MPI's build overlaps the tests of the
# one before: the tests wait only for their own build. CTest runs three tests at a time,
# those that time something alone (tests/CMakeLists.txt). --debian12: the first pair only
# (a quicker check). The edit-compile-test loop is `ctest -L quick -j 2` in build/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
only_debian12=0
case "${1:-}" in
    --debian12) only_debian12=1 ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--debian12]" >&2; exit 2 ;;
esac
"$top/scripts/deps.sh"
LABELS=("Debian 12, Open MPI 4.1" "Debian 12, MPICH 4.0" "Debian 13, Open MPI 5.0" "Debian 13, MPICH 4.2")
FLAVORS=(openmpi mpich openmpi mpich)
DIRS=(build build-mpich build-deb13 build-deb13-mpich)
count=4
[ $only_debian12 = 1 ] && count=2
state=$(mktemp -d /tmp/mpilens-test.XXXXXX)
builder=
cleanup() {
    [ -n "$builder" ] && kill -- -"$builder" 2>/dev/null || true
    rm -rf "$state"
}
trap cleanup EXIT

# The builder: each build in turn; N.rc holds its status (written last), N.log its output,
# N.s its seconds, root the Debian 13 root's path (made before the first Debian 13 build).
build_all() {
    local i start root=
    for ((i = 0; i < count; i++)); do
        start=$SECONDS
        local run=()
        if [ $i -ge 2 ]; then
            if [ -z "$root" ] && ! root=$("$top/scripts/debian13_root.sh" 2>>"$state/$i.log"); then
                echo 1 >"$state/$i.rc"; echo 1 >"$state/$((i + 1)).rc"; return
            fi
            run=("$top/scripts/in_root.sh" "$root" "$top")
            echo "$root" >"$state/root"
        fi
        "${run[@]}" "$top/scripts/build.sh" "${FLAVORS[$i]}" "${DIRS[$i]}" >>"$state/$i.log" 2>&1 &&
            rc=0 || rc=$?
        echo $((SECONDS - start)) >"$state/$i.s"
        echo $rc >"$state/$i.rc"
    done
}
set -m # the builder gets a process group of its own, ended with it on exit
nice -n 19 bash -c "$(declare -f build_all); top=$top state=$state count=$count; \
    FLAVORS=(${FLAVORS[*]}); DIRS=(${DIRS[*]}); build_all" &
builder=$!
set +m

status=0
# suite N: wait for build N, then run CTest in it (inside the root for the Debian 13 pair).
suite() {
    local i=$1 start=$SECONDS
    echo "== ${LABELS[$i]}"
    while [ ! -f "$state/$i.rc" ]; do sleep 1; done
    if [ "$(cat "$state/$i.rc")" != 0 ]; then
        echo "== ${LABELS[$i]}: the build failed; its output:"
        tail -n 40 "$state/$i.log"
        status=1
        return
    fi
    echo "== ${LABELS[$i]}: built in $(cat "$state/$i.s") s (waited $((SECONDS - start)) s for it)"
    local run=()
    [ $i -ge 2 ] && run=("$top/scripts/in_root.sh" "$(cat "$state/root")" "$top")
    start=$SECONDS
    "${run[@]}" bash -c 'cd "$1" && ctest --output-on-failure -j 3' _ "$top/${DIRS[$i]}" || status=1
    echo "== ${LABELS[$i]}: tests ran in $((SECONDS - start)) s"
}
for ((n = 0; n < count; n++)); do suite $n; done
exit $status
