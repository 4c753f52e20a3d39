#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# deps.sh: make sure the Debian packages mpilens needs are installed. As root it installs
# what is missing with apt-get; otherwise it prints the exact apt-get line and fails.
# Sourced or run by scripts/demo.sh and scripts/test.sh.
set -euo pipefail
PACKAGES=(build-essential cmake python3 gfortran openmpi-bin libopenmpi-dev mpich libmpich-dev
          libsqlite3-dev sqlite3 valgrind pkg-config libhwloc-dev hwloc libscotch-dev zlib1g-dev
          libopenblas-dev liblapacke-dev libopen-trace-format2-dev otf2-tools libdw-dev
          clang libclang-rt-14-dev chromium simgrid libsimgrid-dev
          python3-pandas python3-matplotlib python3-pytest python3-otf2
          python3-mpi4py python3-numpy python3-dev python3-venv python3-pip python3-setuptools python3-wheel tmux man-db slurm-wlm libslurm-dev
          iproute2 util-linux libpq-dev postgresql)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "mpilens: missing Debian packages; as root run: apt-get update && $line" >&2
    exit 1
fi
echo "mpilens: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
