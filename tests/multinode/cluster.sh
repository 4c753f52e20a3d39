#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cluster.sh: an emulated cluster on this one machine, for the multinode tests and by hand
# (docs/multinode.md). Each node is a process holding namespaces of its own: a network (lo
# and eth0, a veth on a bridge that lives in a namespace of the cluster's own), a hostname
# (node1, node2, ...), a mount namespace whose /tmp and /dev/shm are empty tmpfs (node-local
# disk) and whose /etc/hosts names the nodes, and a time namespace whose CLOCK_MONOTONIC and
# CLOCK_BOOTTIME are shifted by the node's offset in seconds. The rest of the file system is
# shared, as on a cluster's shared file system, and so are the paths under /tmp named in
# CLUSTER_SHARED (colon-separated: a build or checkout in /tmp). DIR must not be under /tmp.
# Root only (namespaces, veth).
#
#   cluster.sh up DIR OFFSET...   one node per OFFSET (node1 gets the first); DIR: state
#   cluster.sh on DIR NODE CMD... run CMD on NODE, with this environment
#   cluster.sh rsh DIR [-opts] NODE WORDS...  what ssh would do: WORDS run by sh on NODE,
#                                 in a login-like environment (PATH, HOME, and nothing else)
#   cluster.sh down DIR           stop every node (pids in DIR/*.pid) and remove DIR's state
#
# `up` writes DIR/rsh (an rsh agent for Open MPI's plm_rsh_agent and hydra's
# -launcher-exec), DIR/hosts and DIR/nodes (one name per line). Nothing outside DIR and
# the namespaces it made is touched; `down` leaves no process, link or mount behind.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
subnet=10.77.0

usage() { grep -E '^#   cluster.sh' "$here" | sed 's/^# *//' >&2; exit 2; }

# hold NAME SETUP ARGS...: a process in new namespaces running SETUP, then sleeping; its
# pid (in DIR/NAME.pid) is the handle nsenter takes.
hold() {
    local dir=$1 name=$2; shift 2
    rm -f "$dir/$name.pid"
    setsid unshare "$@" --fork -- bash -c "$HOLD_SETUP"'
        echo $$ >"$0/$1.pid.new" && mv "$0/$1.pid.new" "$0/$1.pid"
        exec sleep 86400' "$dir" "$name" </dev/null >"$dir/$name.log" 2>&1 &
    for _ in $(seq 100); do [ -s "$dir/$name.pid" ] && return 0; sleep 0.05; done
    echo "cluster.sh: $name did not start: $(cat "$dir/$name.log")" >&2
    return 1
}

up() {
    local dir=$1; shift
    [ $# -ge 1 ] || usage
    [ "$(id -u)" = 0 ] || { echo "cluster.sh: needs root (namespaces, veth)" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    case $dir in /tmp | /tmp/*)
        echo "cluster.sh: $dir: the nodes hide /tmp; put the cluster's directory elsewhere" >&2
        exit 1 ;;
    esac
    local n=$# i offset
    : >"$dir/nodes"
    {
        echo "127.0.0.1 localhost"
        for i in $(seq "$n"); do echo "$subnet.$i node$i"; done
    } >"$dir/hosts"
    HOLD_SETUP='ip link set lo up && ip link add br0 type bridge && ip link set br0 up || exit 1'
    # paths under /tmp that stay shared (CLUSTER_SHARED: the build, the sources): bound back
    # over the node's empty /tmp from this machine's, reached through DIR/.host-tmp
    local keep="" path
    mkdir -p "$dir/.host-tmp"
    IFS=: read -ra kept <<<"${CLUSTER_SHARED:-}"
    for path in "${kept[@]}"; do
        case $path in /tmp/?*) ;; *) continue ;; esac
        keep+="mkdir -p '$path' && mount --bind '$dir/.host-tmp/${path#/tmp/}' '$path' && "
    done
    hold "$dir" switch --net
    i=0
    for offset in "$@"; do
        i=$((i + 1))
        HOLD_SETUP="hostname node$i && mount --bind /tmp $dir/.host-tmp &&
            mount -t tmpfs -o size=1g tmpfs /tmp && $keep
            mount -t tmpfs -o size=1g tmpfs /dev/shm && mount --bind $dir/hosts /etc/hosts &&
            ip link set lo up || exit 1"
        hold "$dir" "node$i" --net --uts --mount --propagation private --time \
            --monotonic "$offset" --boottime "$offset"
        local pid sw
        pid=$(cat "$dir/node$i.pid")
        sw=$(cat "$dir/switch.pid")
        nsenter -t "$sw" -n ip link add "v$i" type veth peer name eth0 netns "$pid"
        nsenter -t "$sw" -n ip link set "v$i" master br0 up
        nsenter -t "$pid" -n ip addr add "$subnet.$i/24" dev eth0
        nsenter -t "$pid" -n ip link set eth0 up
        echo "node$i" >>"$dir/nodes"
    done
    cat >"$dir/rsh" <<AGENT
#!/bin/sh
# rsh agent of the emulated cluster in $dir: [-options] NODE WORDS...
exec "$here" rsh "$dir" "\$@"
AGENT
    chmod +x "$dir/rsh"
    # The links come up within a second: wait until every eth0 has its carrier.
    for i in $(seq "$n"); do
        for _ in $(seq 50); do
            nsenter -t "$(cat "$dir/node$i.pid")" -n ip -o link show eth0 | grep -q LOWER_UP &&
                break
            sleep 0.1
        done
    done
}

# on DIR NODE CMD...: CMD in the node's namespaces (network, hostname, mounts, clock) and
# under its root (-r: entering a mount namespace would leave a chroot, scripts/in_root.sh).
on() {
    local dir=$1 node=$2; shift 2
    local pidfile=$dir/$node.pid
    [ -s "$pidfile" ] || { echo "cluster.sh: no node $node in $dir" >&2; exit 1; }
    exec nsenter -t "$(cat "$pidfile")" -n -u -m -T -r --wd="$PWD" -- "$@"
}

# rsh DIR [-opts...] NODE WORDS...: as ssh runs a command: the words joined, run by sh, in
# the node, with a login's environment (the caller's environment does not travel).
rsh() {
    local dir=$1; shift
    while [ $# -gt 0 ]; do case $1 in -l | -p | -o) shift 2 ;; -*) shift ;; *) break ;; esac; done
    local node=$1; shift
    node=${node#*@}
    local pidfile=$dir/$node.pid
    [ -s "$pidfile" ] || { echo "cluster.sh: no node $node in $dir" >&2; exit 255; }
    exec nsenter -t "$(cat "$pidfile")" -n -u -m -T -r --wd=/ -- \
        env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        USER=root LOGNAME=root SHELL=/bin/sh /bin/sh -c "$*"
}

down() {
    local dir=$1 f pid
    [ -d "$dir" ] || return 0
    for f in "$dir"/*.pid; do
        [ -s "$f" ] || continue
        pid=$(cat "$f")
        # Anything still running in the node (a job's leftover) goes with it.
        for p in $(ls /proc | grep -E '^[0-9]+$'); do
            [ "$p" != "$pid" ] && [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = \
                "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" ] && kill -9 "$p" 2>/dev/null
        done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$f"
    done
    return 0
}

[ $# -ge 2 ] || usage
cmd=$1; shift
case $cmd in
up) up "$@" ;;
on) [ $# -ge 3 ] || usage; on "$@" ;;
rsh) rsh "$@" ;;
down) down "$@" ;;
*) usage ;;
esac
