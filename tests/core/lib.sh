# SPDX-License-Identifier: BSD-3-Clause
# lib.sh: helpers for the core's tests (sourced). Each test starts real MPI jobs with
# $MPIRUN and checks exact outcomes; every check prints what it expected and what it got.
# CTest passes BUILD, SRC, MPIRUN, MPI_FLAVOR and HAVE_FORTRAN.
set -u
: "${BUILD:?run through ctest}" "${MPIRUN:?run through ctest}"
CORE=$BUILD/lib/libmpilens.so
MODS=$BUILD/tests/modules
APPS=$BUILD/tests/apps
MPILENS=$BUILD/bin/mpilens
export MPILENS_MODULE_PATH=$MODS
unset MPILENS_MODULES MPILENS_CONF MPILENS_OUTPUT MPILENS_CLI
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
# Each test's MPI jobs keep their session files (Open MPI's /tmp/ompi.HOST.UID, PMIx's
# sockets) in its own directory: jobs of another test or another suite running at the same
# time cannot remove them under it ("A call to mkdir was unable to create the desired
# directory").
export TMPDIR=$WORK
failures=0

ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; failures=$((failures + 1)); }

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
    if [ "$2" == "$3" ]; then ok "$1"; else
        bad "$1"; printf -- '--- expected\n%s\n--- actual\n%s\n---\n' "$2" "$3"; fi
}

# check_has WHAT TEXT LINE: TEXT contains LINE as a whole line
check_has() {
    if grep -qxF -- "$3" <<<"$2"; then ok "$1"; else
        bad "$1"; printf -- '--- expected a line\n%s\n--- in\n%s\n---\n' "$3" "$2"; fi
}

# check_match WHAT TEXT REGEX: some line of TEXT matches the extended REGEX
check_match() {
    if grep -qE -- "$3" <<<"$2"; then ok "$1"; else
        bad "$1"; printf -- '--- expected a line matching\n%s\n--- in\n%s\n---\n' "$3" "$2"; fi
}

# check_lacks WHAT TEXT PATTERN: TEXT has no line containing PATTERN
check_lacks() {
    if grep -qF -- "$3" <<<"$2"; then
        bad "$1"; printf -- '--- unexpected\n%s\n--- in\n%s\n---\n' "$3" "$2"; else ok "$1"; fi
}

# refused WHAT TEXT CMD...: the command exits 2 and prints exactly TEXT.
refused() {
    local what=$1 text=$2; shift 2
    local out status
    out=$("$@" 2>&1); status=$?
    check_eq "$what: exit 2" "2" "$status"
    check_eq "$what: message" "$text" "$out"
}

# mpi NP CMD...: run an MPI job; the core is preloaded only if PRELOAD=1 (default).
mpi() {
    local np=$1; shift
    if [ "${PRELOAD:-1}" = 1 ]; then
        LD_PRELOAD=$CORE $MPIRUN -np "$np" "$@"
    else
        $MPIRUN -np "$np" "$@"
    fi
}

# Open MPI on the emulated cluster (tests/multinode) now and then loses a rank to a
# segfault at start-up, with or without mpilens: Open MPI 5 inside its own MPI_Init (ob1's
# fragment callback, a peer's first message arriving while the rank is still starting),
# Open MPI 4.1 in a Slurm step without mpilens. crashed_at_start TEXT: whether TEXT shows
# one. retry_crashed CLEAN CMD...: runs CMD into $out and $status, and when its output
# shows such a crash evaluates CLEAN (removing what the crashed try left) and runs it once
# more, with a note: a crash of mpilens's own would come again.
crashed_at_start() { grep -qE "Segmentation fault|Caught signal 11" <<<"$1"; }
retry_crashed() {
    local clean=$1
    shift
    out=$("$@" 2>&1)
    status=$?
    if crashed_at_start "$out"; then
        echo "note: a rank crashed at start-up on the emulated cluster: once more"
        eval "$clean"
        out=$("$@" 2>&1)
        status=$?
    fi
}

finish() {
    if [ "$failures" -eq 0 ]; then echo "PASS"; exit 0; fi
    echo "$failures check(s) failed"; exit 1
}
