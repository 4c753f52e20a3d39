#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# debian13_root.sh: a Debian 13 (trixie) root with the MPIs users have today (Open MPI 5.0,
# MPICH 4.2), gcc 14, Slurm 24.11, OTF2 3.0 and Python 3.13, for the suite's second pair of
# MPIs (scripts/test.sh). Made with debootstrap from Debian's archive into a cache folder
# (MPILENS_CACHE, default /var/cache/mpilens), named by a hash of this script (its package
# list): the second run reuses it, a changed list makes a new one. Built beside its final
# name and renamed when complete, so an interrupted build is never used. Prints the root's
# path. Root only (debootstrap, chroot).
set -euo pipefail
# deps.sh's packages, with Debian 13's names (clang 19; SimGrid's library without its
# tools package, which trixie does not have; six, which its python3-otf2 needs and does not
# pull in).
PACKAGES=(build-essential cmake python3 gfortran openmpi-bin libopenmpi-dev mpich libmpich-dev
          libsqlite3-dev sqlite3 valgrind pkg-config libhwloc-dev hwloc libscotch-dev zlib1g-dev
          libopenblas-dev liblapacke-dev libopen-trace-format2-dev otf2-tools libdw-dev
          clang libclang-rt-19-dev chromium libsimgrid-dev
          python3-pandas python3-matplotlib python3-pytest python3-otf2
          python3-mpi4py python3-numpy python3-dev python3-venv python3-pip python3-setuptools
          python3-wheel python3-six tmux man-db slurm-wlm libslurm-dev iproute2 util-linux procps file
          libpq-dev postgresql)
MIRROR=${MPILENS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${MPILENS_CACHE:-/var/cache/mpilens}
hash=$( (cat "$0"; echo "$MIRROR") | sha256sum | cut -c1-12)
root=$cache/trixie-$hash
if [ -x "$root/usr/bin/mpicc.openmpi" ] && [ -f "$root/.complete" ]; then
    echo "$root"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "mpilens: debian13_root.sh: making the Debian 13 root needs root (debootstrap, chroot)" >&2
    exit 1
fi
if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
fi
mkdir -p "$cache"
rm -rf "$cache"/trixie-*.partial
partial=$root.partial
echo "mpilens: making a Debian 13 root in $root (once; about 3 minutes)" >&2
debootstrap --variant=minbase trixie "$partial" "$MIRROR" >"$cache/debootstrap.log" 2>&1 || {
    echo "mpilens: debootstrap failed; its log: $cache/debootstrap.log" >&2; exit 1; }
# apt inside, with /proc and /dev of a private mount namespace (gone with the command)
unshare --mount --propagation private bash -c '
    set -e
    mount -t proc proc "$1/proc"
    mount --rbind /dev "$1/dev"
    cp /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
    shift
    root=$1; shift
    # no service starts inside the root (PostgreSQL'"'"'s package would start its server)
    printf "#!/bin/sh\nexit 101\n" >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    chroot "$root" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "$@" >/dev/null
    chroot "$root" apt-get clean
' _ "$partial" "$partial" "${PACKAGES[@]}" >"$cache/apt.log" 2>&1 || {
    echo "mpilens: installing Debian 13's packages failed; its log: $cache/apt.log" >&2; exit 1; }
touch "$partial/.complete"
rm -rf "$root"
mv "$partial" "$root"
for old in "$cache"/trixie-*; do # roots of earlier package lists
    [ "$old" = "$root" ] || rm -rf "$old"
done
echo "$root"
