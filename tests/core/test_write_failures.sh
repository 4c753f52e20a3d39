# SPDX-License-Identifier: BSD-3-Clause
# test_write_failures.sh: results are never lost or mixed silently when writing fails
# (issue 32): an -o naming a regular file is refused before launch; a run on a full file
# system (a 200 KiB tmpfs) ends non-zero with the system's error and the word "incomplete",
# and what database is left there is whole; two runs started together into one -o give one
# refusal and one result identical to a run alone; SQLite's real error text is passed on.
source "$(dirname "$0")/lib.sh"
TRACED=""
[ -f "$BUILD/lib/mpilens/trace.so" ] && TRACED=",trace"

# -o FILE: refused with one line, exit 2, and the ring never starts
echo "not a directory" > FILE
out=$(timeout 60 "$MPILENS" run -m profile -o FILE -- $MPIRUN -np 4 "$APPS/ring" 2>&1); status=$?
check_eq "-o FILE: exit 2" 2 $status
check_eq "-o FILE: one line naming the file" \
    "mpilens: run -o FILE: not a directory (an existing file has that name); give a directory, made if missing" \
    "$out"
check_lacks "-o FILE: the application never ran" "$out" "ring ok"
check_eq "-o FILE: the file is untouched" "not a directory" "$(cat FILE)"

# a directory that cannot be created (its parent is a file)
out=$(timeout 60 "$MPILENS" run -m profile -o FILE/sub -- $MPIRUN -np 4 "$APPS/ring" 2>&1); status=$?
check_eq "-o FILE/sub: exit 2" 2 $status
check_match "-o FILE/sub: says why" "$out" "^mpilens: run -o FILE/sub: cannot create or write the output directory \\(Not a directory\\)"
check_lacks "-o FILE/sub: the application never ran" "$out" "ring ok"
MPILENS_OUTPUT=FILE timeout 60 "$MPILENS" run -m profile -- $MPIRUN -np 4 "$APPS/ring" > env.log 2>&1
check_eq "MPILENS_OUTPUT=FILE: refused before launch" "0" "$(grep -c 'ring ok' env.log)"

# two runs started together into one new -o: one refusal, one result as a run alone (the
# second starts once the first holds the directory; on a fast machine the first may be
# over by then, and the second is refused for the results it finds: either way the check
# holds, so the ring is short)
timeout 120 "$MPILENS" run -m profile,monitor -o alone -- $MPIRUN -np 4 "$APPS/ring" 300 > alone.log 2>&1
timeout 120 "$MPILENS" run -m profile,monitor -o same -- $MPIRUN -np 4 "$APPS/ring" 300 > a.log 2>&1 &
a_pid=$!
for _ in $(seq 100); do [ -e same/.mpilens-run ] && break; sleep 0.1; done
timeout 120 "$MPILENS" run -m profile,monitor -o same -- $MPIRUN -np 4 "$APPS/ring" 300 > b.log 2>&1
b_status=$?
wait $a_pid; a_status=$?
check_eq "two runs into one -o: one ends 0, the other is refused (2)" "0 2" \
    "$(printf '%s\n' $a_status $b_status | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_eq "two runs into one -o: one refusal, in one line" 1 \
    "$(cat a.log b.log | grep -cE '^mpilens: run -o .*same: (in use by mpilens run \(pid [0-9]+ on |already holds results)')"
check_eq "two runs into one -o: the refused one never started its job" 1 \
    "$(cat a.log b.log | grep -c 'ring ok')"
# calls and volume per communicator, operation and bucket (times differ from run to run)
counts() { "$MPILENS" report "$1" --csv 2>&1 | cut -d, -f1-9,13 | sort; }
check_eq "two runs into one -o: the profile is the one of a run alone" "$(counts alone)" "$(counts same)"
check_eq "two runs into one -o: the matrix is the one of a run alone" \
    "$("$MPILENS" matrix alone --format csv --metric count)" "$("$MPILENS" matrix same --format csv --metric count)"
check_eq "two runs into one -o: the run table says 4 processes" "4" \
    "$(sqlite3 same/mpilens.db "SELECT value FROM metadata WHERE key = 'Processes'")"

# without mpilens run (preloaded), rank 0 claims the directory at MPI_Init: a second run
# started while the first runs (long_app: 100 steps of 50 ms) writes next door, DIR-2, and
# says so; no claim file is left
pre() { LD_PRELOAD=$CORE MPILENS_MODULES=profile,monitor MPILENS_OUTPUT=$1 timeout 120 \
        $MPIRUN -np 4 "$APPS/long_app" 100; }
pre pre-alone > pre-alone.log 2>&1
pre pre > pa.log 2>&1 &
pa_pid=$!
for _ in $(seq 100); do [ -e pre/.mpilens-run ] && break; sleep 0.1; done
pre pre > pb.log 2>&1
wait $pa_pid
check_eq "preloaded, two runs into one MPILENS_OUTPUT: one of them moved next door, said" 1 \
    "$(cat pa.log pb.log | grep -cE "^mpilens: $WORK/pre: in use by a run of long_app \(pid [0-9]+ on .*\); this run's results go to $WORK/pre-2$")"
check_eq "preloaded: each directory holds one run's database, and nothing else" "mpilens.db mpilens.db" \
    "$(ls -A pre pre-2 | grep -v '^pre' | grep . | tr '\n' ' ' | sed 's/ $//')"
for d in pre pre-2; do
    check_eq "preloaded: $d's matrix is the one of a run alone" \
        "$("$MPILENS" matrix pre-alone --format csv --metric count)" "$("$MPILENS" matrix $d --format csv --metric count)"
done

# readers say what is there: a monitor run whose only traffic is MPI-IO
timeout 120 "$MPILENS" run -m monitor -o io -- $MPIRUN -np 4 "$APPS/io_only" "$WORK/io.out" > io.log 2>&1
out=$("$MPILENS" matrix io 2>&1); status=$?
check_eq "matrix of an I/O-only run: exit 2" 2 $status
check_eq "matrix of an I/O-only run: lists the kinds it has" \
    "mpilens: matrix: io/mpilens.db: no p2p traffic recorded; it has io (give --kind io)" "$out"
check_eq "matrix --kind io of it: each rank's 1024 bytes written" "1024 1024 1024 1024" \
    "$("$MPILENS" matrix io --kind io | awk '$1 ~ /^[0-9]+$/ {print $NF}' | tr '\n' ' ' | sed 's/ $//')"
out=$("$MPILENS" report io 2>&1); status=$?
check_eq "report of a run without the profile: exit 2" 2 $status
check_eq "report of a run without the profile: says what it holds" \
    "mpilens: report: io/mpilens.db has no profile; run with the profile module (mpilens run -m profile ...); it holds MPI-IO traffic (mpilens matrix --kind io io/mpilens.db)" "$out"

# a full file system: 200 KiB of tmpfs (needs root and mount; skipped without)
mkdir -p full
if mount -t tmpfs -o size=200k tmpfs full 2> /dev/null; then
    trap 'umount "$WORK/full" 2> /dev/null; rm -rf "$WORK"' EXIT
    # a traced ring of 1000 rounds leaves about 460 KiB (MPICH 4.0), over the 200 KiB; untraced, 3000
    rounds=3000
    [ -n "$TRACED" ] && rounds=1000
    timeout 180 "$MPILENS" run -m profile,monitor$TRACED -o full/run -- $MPIRUN -np 4 "$APPS/ring" $rounds > full.log 2>&1
    status=$?
    check_eq "full disk: mpilens run exits 3 (the ring succeeded, its results are incomplete)" 3 $status
    check_match "full disk: the system's error is said" "$(cat full.log)" "No space left on device|disk is full"
    check_match "full disk: the last line says incomplete, where, and why" "$(tail -1 full.log)" \
        "^mpilens: results incomplete in .*/full/run \\(status 3\\): .*(No space left on device|disk is full)"
    check_eq "full disk: the application's own output is there" 1 "$(grep -c "ring ok: 4 ranks, $rounds rounds" full.log)"
    if [ -f full/run/mpilens.db ]; then
        check_eq "full disk: the database left there is whole" "ok" \
            "$(sqlite3 full/run/mpilens.db 'PRAGMA integrity_check')"
    else
        ok "full disk: no database was left (nothing half-written)"
    fi
    umount full
    # profile and monitor alone on 40 KiB: their snapshots stay for mpilens recover
    mount -t tmpfs -o size=40k tmpfs full
    timeout 180 "$MPILENS" run -m profile,monitor -o full/run -- $MPIRUN -np 4 "$APPS/ring" 30 > small.log 2>&1
    check_eq "40 KiB: exit 3" 3 $?
    check_match "40 KiB: SQLite's own error text, not 'not an error'" "$(cat small.log)" \
        "mpilens.db: SQLite: database or disk is full"
    check_lacks "40 KiB: no error text taken from the wrong place" "$(cat small.log)" "not an error"
    check_match "40 KiB: the last line says incomplete" "$(tail -1 small.log)" "^mpilens: results incomplete in"
    umount full
    # the CLI's own files (HTML, text, rankfiles) on a full disk: said, nothing cut short kept
    mount -t tmpfs -o size=16k tmpfs full
    dd if=/dev/zero of=full/fill bs=1k count=16 2> /dev/null
    for cmd in "report alone --html full/r.html" "matrix alone -o full/m.txt" \
               "place alone -o full/rf --oversubscribe"; do
        out=$("$MPILENS" $cmd 2>&1 > /dev/null); status=$?
        check_eq "full disk: mpilens $cmd: exit 2" 2 $status
        check_match "full disk: mpilens $cmd: the system's error" "$out" "No space left on device"
    done
    check_eq "full disk: no file cut short is left" "fill" "$(ls full)"
    umount full
    # the directory read-only once the job is over (a bind mount over it, made by the
    # launcher's line): the page and the run's record each cost one line, never the status
    mkdir -p ro/run
    launcher="$MPIRUN -np 2 $APPS/ring 1 && mount --bind $WORK/ro/run $WORK/ro/run && mount -o remount,bind,ro $WORK/ro/run"
    out=$(timeout 120 "$MPILENS" run -m profile -o ro/run -- sh -c "$launcher" 2>&1); status=$?
    umount "$WORK/ro/run" 2> /dev/null
    check_eq "read-only after the job: status 0" 0 $status
    check_eq "read-only after the job: one line for the record, naming it and why" 1 \
        "$(grep -c "^mpilens: $WORK/ro/run/summary.json, the run's record, could not be written: .*Read-only file system (the results are unchanged)$" <<<"$out")"
    check_eq "read-only after the job: the profile is whole" "ok" "$(sqlite3 ro/run/mpilens.db 'PRAGMA integrity_check')"
else
    echo "SKIP full-disk checks: cannot mount a tmpfs here (needs root)"
fi
finish
