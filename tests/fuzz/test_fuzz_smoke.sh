# test_fuzz_smoke.sh: scripts/fuzz.sh for a few seconds per target (clang's libFuzzer with
# address and undefined-behaviour sanitizers): the kept crashers replay clean and a short
# fuzzing run finds nothing new. Skipped where clang is not installed, and in the MPICH
# build (the targets do not depend on the MPI; the Open MPI build runs them).
command -v clang > /dev/null || { echo "SKIP: clang is not installed"; exit 77; }
[ "${MPI_FLAVOR:-}" = mpich ] && { echo "SKIP: fuzzed in the Open MPI build"; exit 77; }
: "${SRC:?run through ctest}" "${BUILD:?run through ctest}"
MPILENS_FUZZ_BUILD=$BUILD/fuzz exec bash "$SRC/scripts/fuzz.sh" "${FUZZ_SECONDS:-10}"
