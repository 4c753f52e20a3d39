#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# in_root.sh ROOT DIR CMD...: runs CMD inside the Debian root ROOT (scripts/debian13_root.sh),
# in DIR, which is the same directory as outside (bind-mounted at its own path, so a build
# made inside names the same paths). /proc, /sys, /dev and /tmp are the machine's (a tree
# under /tmp is seen there as it is: the emulated cluster's nodes bind /tmp itself, without
# its submounts); the root is a mount of its own (unshare --propagation, which the emulated
# cluster uses, needs its / to be one). The mounts live in a private mount namespace that
# ends with the command, so nothing is left mounted however it ends. Root only.
set -euo pipefail
root=$1 dir=$(cd "$2" && pwd)
shift 2
exec unshare --mount --propagation private bash -c '
    set -e
    root=$1 dir=$2
    shift 2
    mount --bind "$root" "$root" # a mount point: tests make mount namespaces of their own
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount --rbind /tmp "$root/tmp"
    mkdir -p "$root$dir"
    [ "$dir" = /tmp ] || case $dir in /tmp/*) ;; *) mount --bind "$dir" "$root$dir" ;; esac
    exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
' _ "$root" "$dir" "$@"
