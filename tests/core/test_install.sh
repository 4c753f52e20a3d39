# SPDX-License-Identifier: BSD-3-Clause
# test_install.sh: what `cmake --install` gives other projects works: a program using
# dynbcast builds against the installed files through pkg-config (dynbcast.pc) and through
# the CMake package (find_package(mpilens): mpilens::dynbcast), links the shared
# libdynbcast.so.0, and runs; mpilens.pc names the module directory; a module built outside
# the tree with the installed snapshot API (mpilens::module, examples/saving_module.c)
# keeps its data when a rank aborts, and exports none of that API; the man pages and the
# bash completion are installed and work.
source "$(dirname "$0")/lib.sh"
cmake --install "$BUILD" --prefix "$WORK/inst" > install.log 2>&1
check_eq "cmake --install succeeds" 0 $?
lib=$(ls -d "$WORK"/inst/lib*/ | head -1)
check_eq "the shared library, its pkg-config files and CMake package are installed" "1 1 1 1" \
    "$(ls "$lib"libdynbcast.so.0 > /dev/null 2>&1 && echo 1 || echo 0) \
$(ls "$lib"pkgconfig/dynbcast.pc > /dev/null 2>&1 && echo 1 || echo 0) \
$(ls "$lib"pkgconfig/mpilens.pc > /dev/null 2>&1 && echo 1 || echo 0) \
$(ls "$lib"cmake/mpilens/mpilensConfig.cmake > /dev/null 2>&1 && echo 1 || echo 0)"
export PKG_CONFIG_PATH="${lib}pkgconfig"
check_match "mpilens.pc names the module directory" "$(pkg-config --variable=moduledir mpilens)" \
    '/mpilens$'
$MPICC -o bcast_pc "$SRC/tests/apps/dynb_bcast7.c" $(pkg-config --cflags --libs dynbcast) 2> pc.log
check_eq "pkg-config: a dynbcast program builds" 0 $?
check_has "pkg-config: it runs against the installed library" "$($MPIRUN -np 4 ./bcast_pc 2>&1)" \
    "dynb_bcast7 ok: rank 0 sent 2 messages"
check_match "it links the shared library" "$(ldd ./bcast_pc)" "libdynbcast\\.so\\.0 => ${lib}"

mkdir consumer && cp "$SRC/tests/apps/dynb_bcast7.c" consumer/
cat > consumer/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(mpilens 0.1 REQUIRED)
add_executable(bcast dynb_bcast7.c)
target_link_libraries(bcast PRIVATE mpilens::dynbcast mpilens::headers)
CMAKE
cmake -S consumer -B consumer/build -DCMAKE_PREFIX_PATH="$WORK/inst" -DCMAKE_C_COMPILER="$MPICC" \
    -DMPI_C_COMPILER="$MPICC" > cmake.log 2>&1 && cmake --build consumer/build >> cmake.log 2>&1
check_eq "find_package(mpilens): a dynbcast program builds" 0 $?
check_has "find_package(mpilens): it runs" "$($MPIRUN -np 4 consumer/build/bcast 2>&1)" \
    "dynb_bcast7 ok: rank 0 sent 2 messages"

py=$(ls -d "$WORK"/inst/lib/python3*/dist-packages 2> /dev/null | head -1)
check_eq "the Python package is installed where Debian's python3 looks (PREFIX/lib/python3.X)" \
    "ok" "$(cd / && PYTHONPATH=$py /usr/bin/python3 -c 'import mpilens; print("ok")' 2>&1)"

# man pages from the --help texts, and bash completion
check_match "man -M PREFIX/share/man mpilens-run: the page of --help" \
    "$(MANPAGER=cat man -M "$WORK/inst/share/man" mpilens-run 2>&1)" '^ +mpilens run \[-m MODULES\]'
check_eq "a page for mpilens and each verb" "14" "$(ls "$WORK"/inst/share/man/man1/mpilens*.1 | wc -l)"
completion=$WORK/inst/share/bash-completion/completions/mpilens
complete_words() { # WORDS...: what completing the last word offers
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mpilens;
        printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}
check_eq "completion: verbs" "diff" "$(complete_words "$MPILENS" di)"
check_eq "completion: a verb's options, from its --help" "--fail-if" \
    "$(complete_words "$MPILENS" diff --fa)"
check_eq "completion: module names after -m (after a comma too)" "profile
trace,profile" "$(complete_words "$MPILENS" run -m pro; complete_words "$MPILENS" run -m trace,pro)"

mkdir saving && cp "$SRC/examples/saving_module.c" saving/
cat > saving/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(saving C)
find_package(mpilens 0.1 REQUIRED)
add_library(saving_module SHARED saving_module.c)
target_link_libraries(saving_module PRIVATE MPI::MPI_C mpilens::module mpilens::headers)
set_target_properties(saving_module PROPERTIES PREFIX "")
CMAKE
cmake -S saving -B saving/build -DCMAKE_PREFIX_PATH="$WORK/inst" -DCMAKE_C_COMPILER="$MPICC" \
    -DMPI_C_COMPILER="$MPICC" > saving.log 2>&1 && cmake --build saving/build >> saving.log 2>&1
check_eq "find_package(mpilens): a module with snapshots builds outside the tree" 0 $?
check_eq "the snapshot API stays inside the module (nothing exported)" "" \
    "$(nm -D saving/build/saving_module.so | grep -E ' (mpilens_snapshot|mpilens_write_all|mpilens_emit|rundb_|lens_)')"
MPILENS_MODULE_PATH=$PWD/saving/build timeout 120 "$MPILENS" run -m saving_module -o aborted -- \
    $MPIRUN -np 4 "$APPS/long_app" 60 abort > aborted.log 2>&1
check_match "rank 1 aborts: the run says its results are partial" "$(tail -1 aborted.log)" \
    "partial results in .*/aborted \\(marked incomplete"
check_match "its count is recovered: rank 1's 30 Sendrecv, ended by MPI_Abort" \
    "$(cat aborted/saving-summary.txt 2>&1)" "   1                  30  MPI_Abort"
check_eq "every rank's count is recovered" 5 "$(wc -l < aborted/saving-summary.txt)"
finish
