# SPDX-License-Identifier: BSD-3-Clause
# test_summary.sh: the summary module's record (docs/summary.md) from real jobs: the ring's
# exact messages, sizes and bytes on one host; the efficiencies and shares between 0 and 1;
# the costliest call site a line of ring.c; a record in the spool and beside the run;
# how the job ended when it did not finalize (MPI_Abort, SIGTERM); a spool that cannot be
# written costs one line and never the job's status; a bad spool argument is refused
# before the job; a program without MPI leaves nothing; the monitor's and the profile's
# results are the same with the summary stacked on them; a run with neither the profile nor
# the summary gets the summary as its last layer (--no-record: not).
source "$(dirname "$0")/../core/lib.sh"
PY=/usr/bin/python3
field() { # field FILE EXPR: a Python expression over the record r
    $PY -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# ---- the ring, 3 rounds of 1 KiB to the right on 4 ranks, one host ----
mkdir -m 1777 spool
out=$(MPILENS_SPOOL=$WORK/spool timeout 120 "$MPILENS" run -m summary -o ring -- \
    $MPIRUN -np 4 "$APPS/ring" 300 2>&1)
check_has "ring: the program's line" "$out" "ring ok: 4 ranks, 300 rounds"
check_has "ring: the run's line" "$out" "mpilens: results in $WORK/ring (status 0)"
check_lacks "ring: nothing said by the summary" "$out" "mpilens: summary"
check_eq "ring: the record" "mpilens-summary 1 4 4 1 4-4" \
    "$(field ring/summary.json '" ".join(str(x) for x in (r["schema"], r["version"], r["ranks"], r["ranks_measured"], r["nodes"], "%d-%d" % (r["ranks_per_node"]["min"], r["ranks_per_node"]["max"])))')"
check_eq "ring: 1200 messages of 1 KiB, all within the host" \
    "1200 1228800 1200 1228800 0 0 [(1024, 2047, 1200)]" \
    "$(field ring/summary.json '" ".join(str(x) for x in (r["point_to_point"]["messages"], r["point_to_point"]["bytes"], r["point_to_point"]["within_hosts"]["messages"], r["point_to_point"]["within_hosts"]["bytes"], r["point_to_point"]["between_hosts"]["messages"], r["point_to_point"]["between_hosts"]["bytes"], [(s["min_bytes"], s["max_bytes"], s["messages"]) for s in r["message_sizes"]]))')"
check_eq "ring: calls of each operation" "MPI_Barrier 4 MPI_Recv 1200 MPI_Reduce 4 MPI_Send 1200" \
    "$(field ring/summary.json '" ".join("%s %d" % (k, v["calls"]) for k, v in sorted(r["operations"].items()))')"
check_eq "ring: shares and efficiencies between 0 and 1, PE = LB x CommE" "True" \
    "$(field ring/summary.json 'all(0 <= x <= 1 for x in [r["mpi_share"]] + list(r["efficiency"].values())) and abs(r["efficiency"]["parallel_efficiency"] - r["efficiency"]["load_balance"] * r["efficiency"]["communication_efficiency"]) < 1e-3')"
check_match "ring: the costliest call site is a line of ring.c" \
    "$(field ring/summary.json 'r["top_call_sites"][0]["file"] + " " + r["top_call_sites"][0]["function"]')" \
    "/tests/apps/ring\.c main$"
# the program's build id, as readelf reads it from the file (binutils)
ring_id=$(readelf -n "$APPS/ring" 2>/dev/null | awk '/Build ID:/ {print $3}')
check_eq "ring: the program's path and ELF build id, as readelf reads it" \
    "$(readlink -f "$APPS/ring") $ring_id None" \
    "$(field ring/summary.json '" ".join(str(x) for x in (r["program"]["path"], r["program"]["build_id"], r["program"]["python_script"]))')"
check_eq "ring: the same record in the spool" "$(cat ring/summary.json)" "$(cat spool/*.summary.json)"
check_eq "ring: under 16 KiB" "1" "$(( $(stat -c %s ring/summary.json) < 16384 ))"

# ---- stacked: the monitor's matrix and the profile's rows are the same with it ----
"$MPILENS" run -m monitor,profile -o alone -- $MPIRUN -np 4 "$APPS/ring" 20 >/dev/null 2>&1
"$MPILENS" run -m monitor,summary,profile -o stacked -- $MPIRUN -np 4 "$APPS/ring" 20 >/dev/null 2>&1
rows() { sqlite3 "$1/mpilens.db" "SELECT src, dst, messages, bytes FROM monitor_matrix ORDER BY 1, 2;
    SELECT rank, comm_id, operation_id, bucket, calls, volume FROM profile ORDER BY 1, 2, 3, 4" 2>&1; }
check_eq "stacked: the monitor's and the profile's results are the same" "$(rows alone)" "$(rows stacked)"
check_eq "stacked: the record beside them" "80" \
    "$(field stacked/summary.json 'r["point_to_point"]["messages"]')"

# ---- every run with the profile: its record, made from its database after the job ----
check_eq "profile run: a record from its database" "profile 4 4 1 MPI_Finalize" \
    "$(field alone/summary.json '" ".join(str(x) for x in (r["source"], r["ranks"], r["ranks_measured"], r["nodes"], r["ended"]))')"
check_eq "profile run: 80 messages of 1 KiB within the host, in the profile's bucket" \
    "80 81920 80 81920 0 0 [(129, 1024, 80)]" \
    "$(field alone/summary.json '" ".join(str(x) for x in (r["point_to_point"]["messages"], r["point_to_point"]["bytes"], r["point_to_point"]["within_hosts"]["messages"], r["point_to_point"]["within_hosts"]["bytes"], r["point_to_point"]["between_hosts"]["messages"], r["point_to_point"]["between_hosts"]["bytes"], [(s["min_bytes"], s["max_bytes"], s["messages"]) for s in r["message_sizes"]]))')"
check_eq "profile run: calls of each operation, as the module names them" \
    "MPI_Barrier 4 MPI_Recv 80 MPI_Reduce 4 MPI_Send 80" \
    "$(field alone/summary.json '" ".join("%s %d" % (k, v["calls"]) for k, v in sorted(r["operations"].items()))')"
check_eq "profile run: its efficiencies are the report's" \
    "$("$MPILENS" report alone --efficiency --csv | awk -F, '$1 ~ /^(load_balance|communication_efficiency|parallel_efficiency)$/ {printf "%s %.4f\n", $1, $2}' | sort)" \
    "$(field alone/summary.json '"\n".join("%s %.4f" % (k, v) for k, v in sorted(r["efficiency"].items()))')"
check_match "profile run: the program and its costliest site, a line of ring.c" \
    "$(field alone/summary.json 'r["program"]["path"] + " " + r["top_call_sites"][0]["operation"] + " " + r["top_call_sites"][0]["file"]')" \
    "/tests/apps/ring MPI_[A-Za-z]+ .*/tests/apps/ring\.c$"
check_eq "profile run: the program's build id, as the module's" "$ring_id" \
    "$(field alone/summary.json 'r["program"]["build_id"]')"
check_eq "profile and summary stacked: the module's own record stays" "no" \
    "$(field stacked/summary.json '"yes" if "source" in r else "no"')"

# ---- every other run: the summary module added as the last layer; --no-record: none ----
"$MPILENS" run -m monitor -o monitor_only -- $MPIRUN -np 4 "$APPS/ring" 20 >/dev/null 2>&1
"$MPILENS" run --no-record -m monitor -o monitor_bare -- $MPIRUN -np 4 "$APPS/ring" 20 >/dev/null 2>&1
check_eq "monitor run: the summary module's record, 80 messages of 1 KiB within the host" \
    "no 4 MPI_Finalize 80 81920 81920" \
    "$(field monitor_only/summary.json '" ".join(str(x) for x in ("yes" if "source" in r else "no", r["ranks"], r["ended"], r["point_to_point"]["messages"], r["point_to_point"]["bytes"], r["point_to_point"]["within_hosts"]["bytes"]))')"
check_eq "monitor run: the monitor's matrix is that of --no-record" \
    "$(sqlite3 monitor_bare/mpilens.db 'SELECT src, dst, messages, bytes FROM monitor_matrix ORDER BY 1, 2' 2>&1)" \
    "$(sqlite3 monitor_only/mpilens.db 'SELECT src, dst, messages, bytes FROM monitor_matrix ORDER BY 1, 2' 2>&1)"
check_eq "--no-record: no record" "mpilens.db report.html" \
    "$(ls monitor_bare | tr '\n' ' ' | sed 's/ $//')"
printf 'module trace buffer=1M\n' > trace.conf
"$MPILENS" run -c trace.conf -o trace_only -- $MPIRUN -np 4 "$APPS/ring" 20 >/dev/null 2>&1
check_eq "trace run from a config file: the trace and the record" "80 yes" \
    "$(field trace_only/summary.json 'r["point_to_point"]["messages"]') $([ -s trace_only/trace/traces.otf2 ] && echo yes)"
mkdir -m 1777 spool_profile && cp alone/summary.json spool_profile/alone.summary.json
"$MPILENS" site init --store profile_site.db 2>/dev/null
check_match "profile run: the site store takes its record" \
    "$("$MPILENS" site ingest spool_profile --store profile_site.db 2>&1)" "1 stored, 0 already there, 0 rejected"

# ---- a job that does not finalize: the rank that ends it writes what it knows ----
timeout 120 "$MPILENS" run -m summary -o abort -- $MPIRUN -np 4 "$APPS/long_app" 40 abort >/dev/null 2>&1
check_eq "MPI_Abort: the record says who and how, from the aborting rank's figures" \
    "MPI_Abort (rank 1, code 4) 4 1" \
    "$(field abort/summary.json 'r["ended"] + " %d %d" % (r["ranks"], r["ranks_measured"])')"

ln -sf "$APPS/long_app" "$WORK/summary_stopped" # a name of its own: other tests run long_app
"$MPILENS" run -m summary -o stopped -- $MPIRUN -np 4 "$WORK/summary_stopped" 600 > stopped.log 2>&1 &
run_pid=$!
for _ in $(seq 100); do grep -q "long_app step 10" stopped.log && break; sleep 0.2; done
kill -TERM $run_pid
wait $run_pid
# mpilens run asks the ranks to save first (SIGURG), then stops them (SIGTERM); under
# Slurm's time limit the tasks get SIGTERM itself (tests/slurm/test_always_on.sh)
check_eq "stopped: rank 0's figures and how" "stopped by a signal to mpilens run 4 1 True" \
    "$(field stopped/summary.json 'r["ended"] + " %d %d %s" % (r["ranks"], r["ranks_measured"], r["point_to_point"]["messages"] >= 10)')"
for _ in $(seq 150); do pgrep -f "$WORK/summary_stopped" > /dev/null || break; sleep 0.2; done
pkill -KILL -f "$WORK/summary_stopped" 2> /dev/null

# ---- a spool that cannot be written: one line, the job's status its own ----
out=$(MPILENS_SPOOL=$WORK/no/such/spool timeout 120 "$MPILENS" run -m summary -o missing -- \
    $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_eq "missing spool: exit 0" "0" "$?"
check_eq "missing spool: one line" "1" "$(grep -c "^mpilens: summary:" <<<"$out")"
check_match "missing spool: it names the spool and why" "$out" \
    "^mpilens: summary: the job's record is not in the spool: cannot create a file in $WORK/no/such/spool: No such file or directory \\(the job is not affected"
check_eq "missing spool: the record beside the run all the same" "MPI_Finalize" \
    "$(field missing/summary.json 'r["ended"]')"
out=$(timeout 60 "$MPILENS" run -m summary:spool=relative -o refused -- $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_eq "spool=relative: refused before the job" "2" "$?"
check_has "spool=relative: the reason" "$out" "mpilens: summary: spool='relative': give the spool as an absolute path"

# ---- no MPI: nothing at all ----
mkdir -m 1777 quiet
out=$(LD_PRELOAD=$CORE MPILENS_MODULES=summary MPILENS_SPOOL=$WORK/quiet timeout 30 /bin/echo plain 2>&1)
check_eq "no MPI: exactly the program's output" "plain" "$out"
check_eq "no MPI: no record" "" "$(ls quiet)"
finish
