# SPDX-License-Identifier: BSD-3-Clause
# test_fuzz_replay.sh: every kept input (fuzz/regressions/) and every seed (fuzz/corpus/)
# replayed through the libFuzzer targets, built with clang's address and undefined-behaviour
# sanitizers (scripts/fuzz.sh 0). Nothing is fuzzed at random here, so the verdict is the
# same on every run; timed fuzzing is the developer's `scripts/fuzz.sh SECONDS`, and what it
# finds is fixed and kept in fuzz/regressions/. Skipped where clang is not installed, and in
# the MPICH build (the targets do not depend on the MPI; the Open MPI build runs them).
command -v clang > /dev/null || { echo "SKIP: clang is not installed"; exit 77; }
[ "${MPI_FLAVOR:-}" = mpich ] && { echo "SKIP: replayed in the Open MPI build"; exit 77; }
: "${SRC:?run through ctest}" "${BUILD:?run through ctest}"
MPILENS_FUZZ_BUILD=$BUILD/fuzz exec bash "$SRC/scripts/fuzz.sh" 0
