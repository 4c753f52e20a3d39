# SPDX-License-Identifier: BSD-3-Clause
# test_always_on.sh: every MPI job step recorded by the Slurm plugin (src/slurm), on the
# emulated two-node cluster (tests/multinode/cluster.sh) with the plugin in Slurm's
# plugstack.conf (default=summary, a sticky world-writable spool). A batch job's srun of
# the ring over both nodes leaves exactly one record (the job, its user, 4 ranks on 2
# nodes, the ring's bytes within and between hosts) and the script's own commands print
# what they print; a step ended by SIGTERM leaves rank 0's figures and the signal;
# --mpilens=off leaves none; srun hostname prints exactly what it prints
# without the plugin and leaves none; a read-only spool costs one line and never the job's
# status; --mpilens=profile,monitor gives the full results too; a Python job leaves its
# record; a second user's job leaves its own, and `mpilens site ingest` stores the spool
# with the ring's exact bytes. docs/slurm.md, docs/summary.md, docs/site.md.
[ "$(id -u)" = 0 ] || { echo "SKIP: the emulated cluster needs root (namespaces)"; exit 77; }
export TMPDIR=/var/tmp # the nodes hide this machine's /tmp: the test's files stay visible
source "$(dirname "$0")/../core/lib.sh"
PLUGIN=$BUILD/lib/mpilens/mpilens_spank.so
[ -f "$PLUGIN" ] || { echo "FAIL no $PLUGIN (apt-get install libslurm-dev, then rebuild)"; exit 1; }
CLUSTER=$WORK/cluster
NODES="$SRC/tests/multinode/cluster.sh"
SPOOL=$WORK/spool
mkdir -m 1777 "$SPOOL"
export SLURM_PLUGSTACK=$WORK/plugstack.conf
plugstack() { echo "required $PLUGIN default=summary spool=$1" >"$SLURM_PLUGSTACK"; }
plugstack "$SPOOL"
source "$(dirname "$0")/slurm_fixture.sh"
trap 'stop_slurm; "$NODES" down "$CLUSTER"; rm -rf "$WORK"' EXIT
CLUSTER_SHARED="$BUILD:$SRC" "$NODES" up "$CLUSTER" 0 0 || { echo "FAIL: the emulated cluster did not start"; exit 1; }
start_slurm
on() { local node=$1; shift; "$NODES" on "$CLUSTER" "$node" "$@"; }
if [ "$MPI_FLAVOR" = openmpi ]; then plugin=pmix; else
    plugin=pmi2
    export UCX_NET_DEVICES=eth0
fi
SRUN="srun --mpi=$plugin -N 2"
records() { find "$SPOOL" -maxdepth 1 -name '*.summary.json' | sort; }
# Open MPI on the emulated cluster now and then loses a rank to a segfault at start-up
# (crashed_at_start, tests/core/lib.sh): a step whose output shows one is run once more.
# forget_since LIST: removes the records not in LIST (the crashed try's).
forget_since() { comm -13 <(echo "$1") <(records) | xargs -r rm -f; }
# step CMD...: runs CMD on node1 into $out and $status, once more after such a crash
step() {
    local before
    before=$(records)
    out=$(cd "$WORK" && on node1 "$@" 2>&1)
    status=$?
    if crashed_at_start "$out"; then
        echo "note: a rank crashed at start-up on the emulated cluster: once more"
        forget_since "$before"
        out=$(cd "$WORK" && on node1 "$@" 2>&1)
        status=$?
    fi
}
# a first step across both slurmds, unchecked (tests/multinode/test_multinode_slurm.sh)
on node1 timeout 60 $SRUN -n 2 --mpilens=off "$APPS/ring" 1 >/dev/null 2>&1

# ---- 1. a batch job: its own commands, and one record of its MPI step ----
batch() {
    on node1 timeout 120 sbatch --parsable --wait -N 2 -n 4 --ntasks-per-node=2 \
        -o "$WORK/batch.out" -e "$WORK/batch.err" --wrap \
        "echo script-start; hostname; $SRUN -n 4 '$APPS/ring'; echo script-end"
}
before=$(records)
job=$(batch)
if crashed_at_start "$(cat "$WORK/batch.err")"; then
    echo "note: a rank crashed at start-up on the emulated cluster: once more"
    forget_since "$before"
    job=$(batch)
fi
check_eq "batch: the script printed what it prints" "script-start
node1
ring ok: 4 ranks, 1 rounds
script-end" "$(cat "$WORK/batch.out")"
check_eq "batch: nothing on stderr" "" "$(cat "$WORK/batch.err")"
record=$(records)
check_match "batch: one record, the MPI step's (JOB.STEP.USER.RUNID: a name nobody guesses)" \
    "$record" "^$SPOOL/$job\.0\.$(id -un)\.[0-9a-f]{32}\.summary\.json$"
check_eq "the record: job, user, ranks, nodes, bytes within and between hosts" \
"schema mpilens-summary 1
job $job step 0 user $(id -un)
program $APPS/ring
ranks 4 nodes 2 per node 2-2
within 2 2048 between 2 2048
sizes [(1024, 2047, 4)]
ended MPI_Finalize" "$(/usr/bin/python3 - "$record" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("schema", r["schema"], r["version"])
print("job", r["job"]["id"], "step", r["job"]["step"], "user", r["job"]["user"])
print("program", r["program"]["path"])
print("ranks", r["ranks"], "nodes", r["nodes"], "per node",
      "%d-%d" % (r["ranks_per_node"]["min"], r["ranks_per_node"]["max"]))
p = r["point_to_point"]
print("within", p["within_hosts"]["messages"], p["within_hosts"]["bytes"],
      "between", p["between_hosts"]["messages"], p["between_hosts"]["bytes"])
print("sizes", [(s["min_bytes"], s["max_bytes"], s["messages"]) for s in r["message_sizes"]])
print("ended", r["ended"])
EOF
)"
check_match "the record: the ring's Send and Recv among the costliest operations" \
    "$(/usr/bin/python3 -c 'import json,sys; print(" ".join(sorted(o["operation"] for o in json.load(open(sys.argv[1]))["top_operations"])))' "$record")" \
    "MPI_Recv.*MPI_Send"
check_eq "the record: under 16 KiB, readable by its user alone" "1 $(id -un) 600" \
    "$(( $(stat -c %s "$record") < 16384 )) $(stat -c '%U %a' "$record")"

# ---- 1b. a step ended by SIGTERM (what a time limit sends): rank 0's figures, the signal ----
ln -sf "$APPS/long_app" "$WORK/always_long" # a name of its own: other tests run long_app
long_job() {
    long=$(on node1 sbatch --parsable -N 2 -n 4 --ntasks-per-node=2 -o "$WORK/long.out" --wrap \
        "$SRUN -n 4 '$WORK/always_long' 600")
    for _ in $(seq 150); do
        grep -q "long_app step 10" "$WORK/long.out" 2>/dev/null && return 0
        crashed_at_start "$(cat "$WORK/long.out" 2>/dev/null)" && return 1
        sleep 0.2
    done
}
before=$(records)
if ! long_job; then
    echo "note: a rank crashed at start-up on the emulated cluster: once more"
    wait_job_gone 150 0.2 "$long" on node1 || true
    forget_since "$before"
    long_job
fi
on node1 scancel -s TERM "$long"
gone=no
wait_job_gone 150 0.2 "$long" on node1 && gone=yes
long_record=$(ls "$SPOOL"/$long.0.$(id -un).*.summary.json 2>/dev/null | head -n 1)
long_record=${long_record:-$SPOOL/$long.0.$(id -un).summary.json}
if [ ! -f "$long_record" ]; then # seen once (Open MPI 5, a busy suite)
    echo "note: no record of job $long; ended: $gone; squeue: $(on node1 squeue -h -j "$long" -o %T 2>&1)"
    echo "note: the spool: $(ls "$SPOOL" | tr '\n' ' ')"
    sed 's/^/note: long.out: /' "$WORK/long.out" | tail -n 20
fi
check_eq "SIGTERM: rank 0's record of the step, and how it ended" "signal 15 4 1" \
    "$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["ended"], r["ranks"], r["ranks_measured"])' "$long_record" 2>&1)"
rm -f "$SPOOL/$long".*

# ---- 2. --mpilens=off: no record ----
before=$(records)
step timeout 60 $SRUN -n 4 --mpilens=off "$APPS/ring"
check_eq "--mpilens=off: the job ran" "ring ok: 4 ranks, 1 rounds" "$out"
check_eq "--mpilens=off: no record" "$before" "$(records)"

# ---- 3. a program without MPI: exactly its output, no record ----
plain=$(on node1 timeout 60 srun -Q -N 2 -n 2 --mpilens=off hostname 2>&1 | sort)
out=$(on node1 timeout 60 srun -Q -N 2 -n 2 hostname 2>&1 | sort)
check_eq "srun hostname: exactly what it prints without the plugin" "$plain" "$out"
check_eq "srun hostname: node1 and node2" "node1
node2" "$out"
check_eq "srun hostname: no record" "$before" "$(records)"

# ---- 4. a read-only spool: one line, the job's status its own ----
RO=$WORK/rospool
mkdir -m 1777 "$RO"
on node1 mount -t tmpfs -o ro,size=1m tmpfs "$RO"
on node2 mount -t tmpfs -o ro,size=1m tmpfs "$RO"
plugstack "$RO"
step timeout 60 $SRUN -n 4 "$APPS/ring"
plugstack "$SPOOL"
check_eq "read-only spool: the job's status" "0" "$status"
check_has "read-only spool: the job ran" "$out" "ring ok: 4 ranks, 1 rounds"
check_eq "read-only spool: one line" "1" "$(grep -c '^mpilens: ' <<<"$out")"
check_match "read-only spool: the line names the spool and why" "$out" \
    "^mpilens: summary: the job's record is not in the spool: cannot create a file in $RO: Read-only file system"

# ---- 5. the full modules on srun: results where the line says, and the record ----
step timeout 120 $SRUN -n 4 --mpilens=profile,monitor "$APPS/ring"
dir=$(sed -n 's/^mpilens: results in \(.*\)$/\1/p' <<<"$out")
check_match "--mpilens=profile,monitor: one line names the results" "$out" \
    "^mpilens: results in $WORK/ring-job[0-9]+-[0-9]{8}-[0-9]{6}$"
check_eq "--mpilens=profile,monitor: the ring's matrix" "4 4096" \
    "$(sqlite3 -separator ' ' "$dir/mpilens.db" "SELECT SUM(messages), SUM(bytes)
        FROM monitor_matrix WHERE kind = 'p2p'")"
check_eq "--mpilens=profile,monitor: the record beside them and in the spool" "2048 2048" \
    "$(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["point_to_point"]; print(p["within_hosts"]["bytes"], p["between_hosts"]["bytes"])' "$dir/summary.json")"
check_eq "--mpilens=profile,monitor: a record in the spool" "2" "$(records | wc -l)"

# ---- 6. a Python job (mpi4py loads Open MPI at run time: the Open MPI build only) ----
if [ "$MPI_FLAVOR" = openmpi ]; then
    step timeout 120 $SRUN -n 4 --mpilens=monitor /usr/bin/python3 "$SRC/tests/python/apps/ring.py"
    check_has "python: the program ran" "$out" "0 {'rank': 3} 6 2"
    dir=$(sed -n 's/^mpilens: results in \(.*\)$/\1/p' <<<"$out")
    # mpi4py's pickled allreduce sends point-to-point too: the monitor's matrix says how much
    check_eq "python: its record names the script, its bytes the monitor's matrix's" \
        "$SRC/tests/python/apps/ring.py 4 $(sqlite3 "$dir/mpilens.db" \
            "SELECT SUM(bytes) FROM monitor_matrix WHERE kind = 'p2p'")" \
        "$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["program"]["python_script"], r["ranks"], r["point_to_point"]["bytes"])' "$dir/summary.json")"
    check_eq "python: its record in the spool too" "3" "$(records | wc -l)"
fi
# ---- 6b. optout=no: the user's environment cannot bend the site's record (issue 72) ----
# MPILENS_MODULES names the summary with a spool of the user's, and LD_PRELOAD holds a
# library whose name merely contains libmpilens.so: the site's library is preloaded all the
# same, and the record reaches the site's spool as well as the user's.
echo "required $PLUGIN default=summary spool=$SPOOL optout=no" >"$SLURM_PLUGSTACK"
mkdir -m 700 "$WORK/mine"
ln -sf "$(ldconfig -p | awk '$1 == "libm.so.6" {print $NF; exit}')" "$WORK/my-libmpilens.so.keep"
before=$(records | wc -l)
step timeout 60 env MPILENS_MODULES="summary:spool=$WORK/mine" \
    LD_PRELOAD="$WORK/my-libmpilens.so.keep" $SRUN -n 4 "$APPS/ring"
plugstack "$SPOOL"
check_has "optout=no: the job ran" "$out" "ring ok: 4 ranks, 1 rounds"
check_eq "optout=no: the record in the site's spool despite spool= and LD_PRELOAD" \
    "$((before + 1))" "$(records | wc -l)"
check_eq "optout=no: ... and in the user's own spool" "1" \
    "$(find "$WORK/mine" -name '*.summary.json' | wc -l)"
# ---- 7. a second user's job, then the spool into the site store (docs/site.md) ----
chmod 755 "$WORK" # the job's directory, for the other user, and a TMPDIR it may write
mkdir -m 1777 "$WORK/tmp-nobody"
step timeout 60 runuser -u nobody -- env TMPDIR="$WORK/tmp-nobody" $SRUN -n 4 "$APPS/ring"
check_eq "a job of another user (nobody): it ran" "ring ok: 4 ranks, 1 rounds" "$out"
check_eq "... its record in the spool, owned by nobody" "nobody" \
    "$(stat -c %U "$SPOOL"/*.nobody.*.summary.json 2>&1)"
n=$(records | wc -l)
cp -a "$SPOOL" "$WORK/spool-pg" # the same records, owners kept, for PostgreSQL below
"$MPILENS" site init --store "$WORK/site.db" >/dev/null 2>&1
out=$("$MPILENS" site ingest "$SPOOL" --store "$WORK/site.db" 2>&1)
check_has "site ingest: every record of the spool stored once" "$out" \
    "mpilens: site ingest: $n entries: $n stored, 0 already there, 0 rejected, 0 held (newer version), 0 left, 0 not records, 0 gone; into $WORK/site.db"
site_row() { # AWK-CONDITION: user, app, ranks, nodes and the bytes of the matching jobs
    "$MPILENS" site jobs --store "$WORK/site.db" --csv 2>/dev/null |
        awk -F, -v job="$job" "NR > 1 && ($1) {print \$3, \$4, \$5, \$6, \$13, \$14, \$15}"
}
check_eq "site jobs: the batch job's ring: 4 ranks on 2 nodes, the bytes within and between hosts" \
    "$(id -un) ring 4 2 4096 2048 2048" "$(site_row '$1 == job')"
check_eq "site jobs: the other user's ring, the same bytes" "nobody ring 4 2 4096 2048 2048" \
    "$(site_row '$3 == "nobody"')"
# the same spool into PostgreSQL (a server of the test's own, tests/site/pg_fixture.sh):
# each user reads only their own jobs
source "$SRC/tests/site/pg_fixture.sh"
if pg_available; then
    PG_DIR=$WORK/pg
    mkdir "$PG_DIR"
    trap 'stop_pg; stop_slurm; "$NODES" down "$CLUSTER"; rm -rf "$WORK"' EXIT
    if start_pg; then
        store=$(pg_store)
        runuser -u postgres -- "$MPILENS" site init --store "$store" --staff man >/dev/null 2>&1
        out=$("$MPILENS" site ingest "$WORK/spool-pg" --store "$store" 2>&1)
        check_has "PostgreSQL: every record stored once" "$out" \
            "mpilens: site ingest: $n entries: $n stored, 0 already there, 0 rejected, 0 held (newer version), 0 left, 0 not records, 0 gone; into $store"
        users_as() { runuser -u "$1" -- "$MPILENS" site jobs --store "$store" --csv 2>/dev/null |
            awk -F, 'NR > 1 {print $3}' | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' '; }
        check_eq "PostgreSQL: nobody reads their own job only" "nobody:1 " "$(users_as nobody)"
        check_eq "PostgreSQL: root (the ingester) its own jobs only" "root:$((n - 1)) " "$(users_as root)"
        check_eq "PostgreSQL: staff (man) every user's" "nobody:1 root:$((n - 1)) " "$(users_as man)"
    else
        bad "the test's PostgreSQL server did not start"
    fi
else
    bad "no PostgreSQL server (apt-get install postgresql)"
fi
finish
