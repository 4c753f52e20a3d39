#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build.sh [openmpi|mpich] [DIR]: configure and build mpilens against one MPI, in build/
# (Open MPI, the primary) or build-mpich/, or in DIR (relative: to the source tree; the
# Debian 13 builds of scripts/test.sh). Prints the build directory on stdout.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:-openmpi}
case "$flavor" in
    openmpi) dir=$top/build; cc=mpicc.openmpi ;;
    mpich) dir=$top/build-mpich; cc=mpicc.mpich ;;
    *) echo "mpilens: build.sh: unknown MPI '$flavor'; use openmpi or mpich" >&2; exit 2 ;;
esac
if [ $# -ge 2 ]; then dir=$top/$2; fi
cmake -S "$top" -B "$dir" -DMPILENS_MPICC=$cc -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null
echo "$dir"
