# SPDX-License-Identifier: BSD-3-Clause
# slurm_fixture.sh: a private Slurm for one test (sourced after core/lib.sh). start_slurm
# makes, in $WORK/slurm: a munge key and its own munged (own socket), a slurm.conf for this
# host (one node with 8 CPUs, oversubscribed, ports no other Slurm uses), and starts
# slurmctld and slurmd in the foreground in the background, so that their pids are ours:
# the EXIT trap stops them by pid and waits. Every Slurm command of the test reads
# SLURM_CONF. If a daemon cannot start, the test fails with its log's last lines (it is
# not skipped). On an emulated cluster (CLUSTER and NODES set: tests/multinode/cluster.sh)
# slurmctld runs on node1 and one slurmd on each node, each at its node's address; the
# test then runs Slurm's commands on node1 ($SLURM_AT). SLURM_PLUGSTACK, when set, names
# the plugstack.conf of the Slurm (SPANK plugins: tests/slurm/test_always_on.sh).
SLURM_DIR=$WORK/slurm
SLURM_PIDS=()
SLURM_AT=() # the command prefix that reaches slurmctld: nothing, or "NODES on CLUSTER node1"
# Job ids from a base of this fixture's own (FirstJobId), never those of an earlier run's
# leftovers; the ids it may use, for the cleanup.
SLURM_FIRST_JOB=$(shuf -i 100000-900000 -n 1)
SLURM_JOB_IDS=($(seq "$SLURM_FIRST_JOB" $((SLURM_FIRST_JOB + 50))))

# The step daemons our jobs left (a step whose launch failed can outlive slurmd: its pmix
# directory in /tmp then makes the next Slurm's step of the same id fail): the slurmstepd
# processes working in $WORK, and their pmix directories.
stray_steps() {
    local pid
    for pid in $(pgrep -x slurmstepd 2>/dev/null; pgrep -f '^slurmstepd:' 2>/dev/null); do
        case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in "$WORK"*) echo "$pid" ;; esac
    done | sort -u
}

stop_slurm() {
    local pid
    for pid in "${SLURM_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${SLURM_PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    SLURM_PIDS=()
    for pid in $(stray_steps); do pkill -9 -P "$pid" 2>/dev/null; kill -9 "$pid" 2>/dev/null; done
    local id
    for id in "${SLURM_JOB_IDS[@]}"; do rm -rf /tmp/spmix_appdir_*_"$id".*; done
}
trap 'stop_slurm; rm -rf "$WORK"' EXIT

# A TCP port nobody listens on, from a range Slurm's defaults (6817-6819) do not use.
free_port() {
    local p
    for p in $(shuf -i 20000-40000 -n 50); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
    done
    echo 0
}

# job_gone JOB [PREFIX...]: true once Slurm lists JOB as neither waiting, running nor
# completing (or no longer knows it: MinJobAge below purges it). A squeue that fails for
# another reason (a busy slurmctld's timeout) proves nothing: false, and the caller asks
# again (an empty answer taken for "ended" let a test read a run that was still saving).
# PREFIX: how to reach the cluster ("on node1" on the emulated one).
job_gone() {
    local job=$1 out rc
    shift
    out=$("$@" squeue -h -j "$job" -o %T 2>&1) && rc=0 || rc=$?
    if [ $rc = 0 ]; then
        ! grep -qE '^(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|STOPPED|SIGNALING|STAGE_OUT|RESIZING|REQUEUE)' <<<"$out"
    else
        grep -q "Invalid job id" <<<"$out"
    fi
}

# wait_job_gone TRIES PAUSE JOB [PREFIX...]: asks job_gone up to TRIES times, PAUSE seconds
# apart; true once the job has ended, false if it still had not.
wait_job_gone() {
    local tries=$1 pause=$2
    shift 2
    for _ in $(seq "$tries"); do
        job_gone "$@" && return 0
        sleep "$pause"
    done
    return 1
}

slurm_failed() {
    echo "FAIL private Slurm: $1"
    for log in "$SLURM_DIR"/*.log; do
        [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
    done
    exit 1
}

start_slurm() {
    local host key
    host=$(hostname -s)
    for cmd in munged slurmctld slurmd srun sinfo; do
        command -v "$cmd" >/dev/null ||
            slurm_failed "$cmd not found: apt-get install slurm-wlm (scripts/deps.sh installs it)"
    done
    mkdir -p "$SLURM_DIR"/{state,spool,munge}
    chmod 755 "$SLURM_DIR/munge"
    key=$SLURM_DIR/munge/munge.key
    head -c 1024 /dev/urandom >"$key"
    chmod 400 "$key"
    export MUNGE_SOCKET=$SLURM_DIR/munge/munge.socket
    munged --force --socket="$MUNGE_SOCKET" --key-file="$key" \
        --pid-file="$SLURM_DIR/munge/munged.pid" --log-file="$SLURM_DIR/munged.log" \
        --seed-file="$SLURM_DIR/munge/munged.seed" --foreground >"$SLURM_DIR/munged.out" 2>&1 &
    SLURM_PIDS+=($!)
    for _ in $(seq 100); do [ -S "$MUNGE_SOCKET" ] && break; sleep 0.1; done
    [ -S "$MUNGE_SOCKET" ] || slurm_failed "munged did not start"
    local ctld_port slurmd_port nodes ctld_addr=127.0.0.1 node_lines=() names=() i=0 n
    ctld_port=$(free_port)
    slurmd_port=$(free_port)
    if [ -n "${CLUSTER:-}" ]; then
        mapfile -t names <"$CLUSTER/nodes"
        for n in "${names[@]}"; do
            i=$((i + 1))
            node_lines+=("NodeName=$n NodeAddr=10.77.0.$i CPUs=4 State=UNKNOWN")
        done
        host=${names[0]} ctld_addr=10.77.0.1
        SLURM_AT=("$NODES" on "$CLUSTER" "${names[0]}")
    else
        names=("$host")
        node_lines=("NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN")
    fi
    nodes=$(IFS=,; echo "${names[*]}")
    cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=mpilens-test
FirstJobId=$SLURM_FIRST_JOB
SlurmctldHost=$host($ctld_addr)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.%n.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
KillWait=120
InactiveLimit=0
MinJobAge=10
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
${SLURM_PLUGSTACK:+PlugStackConfig=$SLURM_PLUGSTACK}
$(printf '%s\n' "${node_lines[@]}")
PartitionName=test Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
    export SLURM_CONF=$SLURM_DIR/slurm.conf
    for n in "${names[@]}"; do mkdir -p "$SLURM_DIR/spool/$n"; done
    "${SLURM_AT[@]}" slurmctld -D -i -f "$SLURM_CONF" >>"$SLURM_DIR/slurmctld.out" 2>&1 &
    SLURM_PIDS+=($!)
    for n in "${names[@]}"; do
        ${CLUSTER:+"$NODES" on "$CLUSTER" "$n"} slurmd -D -f "$SLURM_CONF" -N "$n" \
            >>"$SLURM_DIR/slurmd.$n.out" 2>&1 &
        SLURM_PIDS+=($!)
    done
    local state=""
    for _ in $(seq 120); do
        state=$("${SLURM_AT[@]}" sinfo -h -N -o %t 2>/dev/null | sort -u | tr '\n' ' ')
        [ "$state" = "idle " ] && break
        sleep 0.5
    done
    [ "$state" = "idle " ] ||
        slurm_failed "the nodes are not idle after 60 s (state '${state:-none}')"
    echo "ok   private Slurm up on $nodes (ports $ctld_port, $slurmd_port)"
}
