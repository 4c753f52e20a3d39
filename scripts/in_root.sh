#!/usr/bin/env bash
# in_root.sh ROOT DIR CMD...: runs CMD inside the Debian root ROOT (scripts/debian13_root.sh),
# in DIR, which is the same directory as outside (bind-mounted at its own path, so a build
# made inside names the same paths). /proc, /sys and /dev are the machine's, /tmp is a
# private tmpfs; the root is a mount of its own (unshare --propagation, which the emulated
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
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root$dir"
    mount --bind "$dir" "$root$dir"
    exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
' _ "$root" "$dir" "$@"
