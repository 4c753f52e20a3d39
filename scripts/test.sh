#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test.sh [--debian12]: the whole test suite, on a fresh Debian 12 machine, on four MPIs:
# install what is missing, then build and run CTest against Debian 12's Open MPI 4.1 and
# MPICH 4.0 (build/, build-mpich/) and, in a Debian 13 root (scripts/debian13_root.sh makes
# it once into a cache folder), Open MPI 5.0 and MPICH 4.2 with gcc 14 and Slurm 24.11
# (build-deb13/, build-deb13-mpich/). The builds run one after another in the background
# under the idle scheduling policy (SCHED_IDLE: a CPU goes to them only when no test wants
# it, and any test that wakes takes it back at once), so that each overlaps the tests before
# it: a suite waits only for its own build, and while it waits, the build runs under the
# normal policy (schedule_builder: a machine busy with anything else would starve it).
# CTest runs four tests at a time, then those that time something (label `timed`,
# tests/CMakeLists.txt) one by one, the builds going on beside them, except beside those
# that need a quiet machine (label `quiet`).
# --debian12: the Debian 12 pair only (a quicker check). --repeat N LABEL...: chosen tests
# N times beside two busy loops, with each test's failures counted (scripts/repeat.sh).
# The edit-compile-test loop is
# `ctest -L quick -j 2` in build/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
only_debian12=0
case "${1:-}" in
    --debian12) only_debian12=1 ;;
    --repeat) shift; exec "$top/scripts/repeat.sh" "$@" ;; # the flakes, known (repeat.sh)
    "") ;;
    *) echo "usage: scripts/test.sh [--debian12] | --repeat [--mpich] [--no-load] N LABEL..." >&2; exit 2 ;;
esac
"$top/scripts/deps.sh"
# Debian 12's pair, then Debian 13's. (The Open MPI suites first was tried: their ranks
# yield when oversubscribed but still take the CPU a build at nice 19 would use, so the
# MPICH builds came late: 1640 s against 1566 s, the Debian 13 root's making aside.)
LABELS=("Debian 12, Open MPI 4.1" "Debian 12, MPICH 4.0" "Debian 13, Open MPI 5.0" "Debian 13, MPICH 4.2")
FLAVORS=(openmpi mpich openmpi mpich)
DIRS=(build build-mpich build-deb13 build-deb13-mpich)
IN_ROOT=(0 0 1 1)
ORDER="0 1 2 3"
[ $only_debian12 = 1 ] && ORDER="0 1"
state=$(mktemp -d /tmp/mpilens-test.XXXXXX)
builder=
# The builder's processes: its process group, and every descendant of it by parent, since
# some leave the group (apt-get runs dpkg in a session of its own while the Debian 13 root
# is made; stopping the group alone left it running beside the quiet tests).
descendants() {
    local child
    for child in $(grep -l "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null | cut -d/ -f3); do
        echo "$child"
        descendants "$child"
    done
}
# each_builder_process CMD...: CMD ... PID for the builder and each of its descendants, all
# found before CMD runs on any (an orphan is no longer found), twice over (a process forked
# during the first pass is caught by the second).
each_builder_process() {
    local pass pid tree
    for pass in 1 2; do
        tree="$builder $(descendants "$builder")"
        for pid in $tree; do "$@" "$pid" >/dev/null 2>&1 || true; done
    done
}
# signal_builder SIG: to the group (named by the builder's pid) and to each descendant (a
# stopped process forks no more).
signal_builder() { each_builder_process signal_process "$1"; }
signal_process() {
    [ "$2" != "$builder" ] || kill -"$1" -- -"$2"
    kill -"$1" "$2"
}
# schedule_builder idle|other: the builder's processes under SCHED_IDLE, or back under the
# normal policy while a suite waits for its build (nothing of the suite's own runs then:
# under SCHED_IDLE, a machine kept busy by anything else would starve the build, and the
# suite with it). A process forked later inherits its parent's policy.
schedule_builder() {
    [ "${idle[0]}" = chrt ] || return 0
    each_builder_process chrt "--$1" -p 0
}
cleanup() {
    if [ -n "$builder" ]; then
        signal_builder CONT
        signal_builder TERM
    fi
    rm -rf "$state"
}
trap cleanup EXIT

# The builder: each build in turn; N.rc holds its status (written last), N.log its output,
# N.s its seconds, root the Debian 13 root's path (made before the first Debian 13 build).
build_all() {
    local i start root= noroot=0
    for i in $ORDER; do
        start=$SECONDS
        local run=()
        if [ "${IN_ROOT[$i]}" = 1 ]; then
            if [ $noroot = 1 ] || { [ -z "$root" ] &&
                ! root=$("$top/scripts/debian13_root.sh" 2>>"$state/$i.log"); }; then
                noroot=1
                echo 1 >"$state/$i.rc"
                continue
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
# SCHED_IDLE rather than nice 19: a compiler at nice 19 holds a core for a while when a
# test's rank wakes, which moved the timed tests, so the builder used to be paused while
# they ran; the builds then came last on the suite's critical path (174 s of waiting for
# them in a run of 1565 s). Under SCHED_IDLE most timed tests pass with the same figures
# while a build goes on beside them; the `quiet` ones are still run with it stopped.
set -m # the builder gets a process group of its own, ended with it on exit
idle=(nice -n 19)
chrt -i 0 true 2>/dev/null && idle=(chrt -i 0)
"${idle[@]}" bash -c "$(declare -f build_all); top=$top state=$state ORDER='$ORDER'; \
    FLAVORS=(${FLAVORS[*]}); DIRS=(${DIRS[*]}); IN_ROOT=(${IN_ROOT[*]}); build_all" &
builder=$!
set +m

status=0
# suite N: wait for build N, then run CTest in it (inside the root for the Debian 13 pair).
suite() {
    local i=$1 start=$SECONDS
    echo "== ${LABELS[$i]}"
    [ -f "$state/$i.rc" ] || schedule_builder other
    while [ ! -f "$state/$i.rc" ]; do sleep 1; done
    schedule_builder idle
    if [ "$(cat "$state/$i.rc")" != 0 ]; then
        echo "== ${LABELS[$i]}: the build failed; its output:"
        tail -n 40 "$state/$i.log"
        status=1
        return
    fi
    echo "== ${LABELS[$i]}: built in $(cat "$state/$i.s") s (waited $((SECONDS - start)) s for it)"
    local run=()
    [ "${IN_ROOT[$i]}" = 1 ] && run=("$top/scripts/in_root.sh" "$(cat "$state/root")" "$top")
    start=$SECONDS
    "${run[@]}" bash -c 'cd "$1" && ctest --output-on-failure -j 4 -LE timed' _ "$top/${DIRS[$i]}" ||
        status=1
    # The timed tests one at a time: the builder beside them takes only idle time, and
    # stops for those that need a quiet machine (label quiet).
    "${run[@]}" bash -c 'cd "$1" && ctest --output-on-failure -L timed -LE quiet' _ \
        "$top/${DIRS[$i]}" || status=1
    signal_builder STOP
    "${run[@]}" bash -c 'cd "$1" && ctest --output-on-failure -L quiet' _ "$top/${DIRS[$i]}" ||
        status=1
    signal_builder CONT
    echo "== ${LABELS[$i]}: tests ran in $((SECONDS - start)) s"
}
for n in $ORDER; do suite $n; done
exit $status
