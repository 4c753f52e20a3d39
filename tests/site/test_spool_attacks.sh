# SPDX-License-Identifier: BSD-3-Clause
# test_spool_attacks.sh: the always-on pipeline as a site's security staff would attack it
# (issue 72, docs/site.md "Threat model"): two Unix users the test makes, mpl_honest and
# mpl_hostile, sharing one primary group and the documented sticky spool; root ingests
# into SQLite and into a PostgreSQL server of the test's own. Each attack must fail:
#  1. links planted in a rejected/ the user made: root writes nothing through them
#  2. a record with invalid UTF-8 stops nothing; a name of 64 x "é" is kept whole-charactered
#  3. a non-finite number is rejected, and the questions still answer
#  4. a user cannot take the name of another's record, nor its directory
#  5. a user cannot read another's record, though they share a group
#  6. a public.sum() planted for the SECURITY DEFINER triggers gains nothing
#  7. eight quick runs of one user are eight jobs
#  8. control characters reach no terminal or log raw; CSV quotes a carriage return
# and ingest's last line accounts for every entry, a record it cannot read included.
[ "$(id -u)" = 0 ] || { echo "SKIP: two Unix users and root's ingest need root"; exit 77; }
source "$(dirname "$0")/../core/lib.sh"
source "$(dirname "$0")/pg_fixture.sh"
chmod 755 "$WORK"
GROUP=mpl_users
H=mpl_honest
X=mpl_hostile
drop_users() {
    userdel "$H" 2>/dev/null
    userdel "$X" 2>/dev/null
    groupdel "$GROUP" 2>/dev/null
    true
}
drop_users
groupadd "$GROUP" && useradd -M -N -g "$GROUP" -d /nonexistent -s /bin/sh "$H" &&
    useradd -M -N -g "$GROUP" -d /nonexistent -s /bin/sh "$X" ||
    { echo "FAIL: the test's users could not be made"; exit 1; }
PG_DIR=$WORK/pg
mkdir "$PG_DIR"
pg_up=no
trap '[ $pg_up = yes ] && stop_pg; drop_users; rm -rf "$WORK"' EXIT
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
SPOOL=$WORK/spool
mkdir -m 1777 "$SPOOL"
LITE=$WORK/site.db
"$MPILENS" site init --store "$LITE" >/dev/null 2>&1
ingest() { "$MPILENS" site ingest "$@" 2>&1; }

# honest's ring (4 ranks, 1 KiB each way) under the summary module: its record in the spool
home=$WORK/home-$H
mkdir -m 700 "$home" && chown "$H" "$home"
ring() { # DIR: one ring job of honest's, its record into the spool and DIR
    (cd "$home" && timeout 120 runuser -u "$H" -- env TMPDIR="$home" MPILENS_SPOOL="$SPOOL" \
        "$MPILENS" run -m summary -o "$home/$1" -- $MPIRUN -np 4 "$APPS/ring" >/dev/null 2>&1)
}
# ---- 4. hostile takes every name it can guess, and a directory named after honest ----
for name in "0.0.$H.summary.json" "$(hostname).$H.summary.json" "705.0.$H.summary.json"; do
    as "$X" touch "$SPOOL/$name"
done
as "$X" mkdir "$SPOOL/$H"
ring run1
honest_record=$(find "$SPOOL" -maxdepth 1 -user "$H" -name '*.summary.json')
check_eq "4: honest's record arrives despite hostile's names and directory" "1" \
    "$(grep -c . <<<"$honest_record")"
check_match "4: ... under a name nobody could guess (HOST.USER.RUNID)" "$honest_record" \
    "/$(hostname)\.$H\.[0-9a-f]{32}\.summary\.json$"
# ---- 5. the record is honest's alone ----
check_eq "5: the record is mode 0600" "600 $H" "$(stat -c '%a %U' "$honest_record")"
check_match "5: hostile (same group) cannot read it" \
    "$(as "$X" cat "$honest_record" 2>&1)" "Permission denied"
find "$SPOOL" -maxdepth 1 -name '*.json' -delete
cp "$home/run1/summary.json" "$WORK/honest.json"
honest_record=$WORK/honest.json

# ---- 1. links in a rejected/ made by hostile ----
mkdir -m 700 "$WORK/root-only"
echo "the secret" >"$WORK/root-only/secret"
as "$X" mkdir -m 777 "$SPOOL/rejected"
as "$X" ln -s "$WORK/root-only/secret" "$SPOOL/rejected/evil.json.reason"
as "$X" ln -s "$WORK/newfile" "$SPOOL/rejected/x.json.reason"
forge() { # NAME USER UID: a copy of honest's record naming USER, owned by hostile
    python3 - "$honest_record" "$SPOOL/$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["job"]["user"], r["job"]["uid"] = sys.argv[3], int(sys.argv[4])
json.dump(r, open(sys.argv[2], "w"))
PY
    chown "$X" "$SPOOL/$1"
}
forge evil.json "$H" "$(id -u "$H")"
forge x.json "$H" "$(id -u "$H")"
as "$H" cp "$home/run1/summary.json" "$SPOOL/honest1.json"
out=$(ingest "$SPOOL" --store "$LITE"); status=$?
check_eq "1: the root-only file unchanged" "the secret" "$(cat "$WORK/root-only/secret")"
check_eq "1: no file made through the dangling link" "no" "$([ -e "$WORK/newfile" ] && echo yes || echo no)"
check_match "1: hostile's rejected/ refused, in one line naming it and the fix" "$out" \
    "^mpilens: site ingest: $SPOOL/rejected belongs to $X \(uid [0-9]+\), not to the ingest's user: another user made it; .*rm -r $SPOOL/rejected"
check_eq "1: status 1 (the forged records wait in the spool)" "1" "$status"
check_match "1: honest's record stored all the same; the forged ones left" "$out" \
    "entries: 1 stored, 0 already there, 0 rejected, 0 held \(newer version\), 2 left"
rm -rf "$SPOOL/rejected" # what the line says to do
out=$(ingest "$SPOOL" --store "$LITE"); status=$?
check_eq "1: then the forged records are rejected into root's own directory" "0 2 700 root" \
    "$status $(ls "$SPOOL/rejected" | grep -c 'json$') $(stat -c '%a %U' "$SPOOL/rejected")"
check_match "1: ... with their reasons" "$(cat "$SPOOL/rejected/evil.json.reason")" "^forged: "
ln -s "$SPOOL" "$WORK/spool-link"
out=$(ingest "$WORK/spool-link" --store "$LITE"); status=$?
check_match "1: a spool that is a link is refused" "$status $out" "^1 .*symbolic link"
mkdir -m 777 "$WORK/open-spool"
out=$(ingest "$WORK/open-spool" --store "$LITE"); status=$?
check_match "1: a world-writable spool that is not sticky is refused with the fix" "$status $out" \
    "^1 .*not sticky .*chmod 1777 $WORK/open-spool"

# ---- 2, 3, 8: records that try to stop, break or forge the store's output ----
craft() { # NAME PYTHON-EXPR-ON-r: honest's record changed, written as honest (raw bytes)
    python3 - "$honest_record" "$SPOOL/$1" "$2" <<'PY'
import json, sys, os
r = json.load(open(sys.argv[1]))
r["job"]["run_id"] = os.urandom(16).hex()
exec(sys.argv[3])
text = r if isinstance(r, bytes) else json.dumps(r).encode()
open(sys.argv[2], "wb").write(text)
PY
    chown "$H" "$SPOOL/$1"
    chmod 600 "$SPOOL/$1"
}
craft 0000.json 'r = json.dumps(r).replace("\"name\": null", "\"name\": \"XA\"").encode().replace(b"XA", b"\xffA")'
craft 0001.json 'r["job"]["name"] = "\u00e9" * 64'
craft 0002.json 'r = json.dumps(r).replace("\"mpi_seconds\": ", "\"mpi_seconds\": 1e999, \"was\": ").encode()'
craft 0003.json 'r["program"]["path"] = "/apps/esc\u001b[2Jcr\rx"'
craft 0004.json 'r["job"]["user"] = "evil\nmpilens: site ingest: 99 stored"'
cp -a "$SPOOL" "$WORK/spool-pg"
rm -rf "$WORK/spool-pg/rejected"
out=$(ingest "$SPOOL" --store "$LITE"); status=$?
check_match "2: invalid UTF-8 rejected, with the byte" "$(cat "$SPOOL/rejected/0000.json.reason")" \
    "^not UTF-8: byte 0xff at byte [0-9]+$"
check_match "3: 1e999 rejected" "$(cat "$SPOOL/rejected/0002.json.reason")" \
    "^out of range: 'mpi_seconds' is not a finite number$"
check_match "2: the records behind them stored (SQLite)" "$out" "entries: 2 stored, 0 already there, 3 rejected"
check_eq "2: 64 x é kept as 63 whole characters" "63" \
    "$(sqlite3 "$LITE" "SELECT length(job_name) FROM jobs WHERE job_name LIKE 'é%'")"
check_eq "8: a forged line in ingest's log stays in its line" "0" \
    "$(grep -c '^mpilens: site ingest: 99 stored' <<<"$out")"
check_match "8: ... escaped" "$out" 'evil\\x0ampilens: site ingest: 99 stored'
jobs=$("$MPILENS" site jobs --store "$LITE" 2>/dev/null); status=$?
check_eq "3: site jobs still answers" "0" "$status"
check_eq "8: no escape character reaches the terminal" "0" "$(grep -c $'\x1b' <<<"$jobs")"
check_match "8: ... it is shown escaped" "$jobs" 'esc\\x1b\[2'
check_match "8: CSV quotes a carriage return" "$("$MPILENS" site jobs --store "$LITE" --csv 2>/dev/null)" \
    $'"esc\x1b\\[2Jcr\r'
check_eq "3: site page still answers" "0" \
    "$("$MPILENS" site page --html "$WORK/site.html" --store "$LITE" >/dev/null 2>&1; echo $?)"

# ---- 7. eight quick runs of one user are eight jobs ----
QUICK=$WORK/quick
mkdir -m 1777 "$QUICK"
for i in 1 2 3 4 5 6 7 8; do
    (cd "$home" && timeout 120 runuser -u "$H" -- env TMPDIR="$home" "$MPILENS" run -m profile \
        -o "$home/q$i" -- $MPIRUN -np 2 "$APPS/ring" >/dev/null 2>&1)
    as "$H" cp "$home/q$i/summary.json" "$QUICK/q$i.json"
done
"$MPILENS" site init --store "$WORK/quick.db" >/dev/null 2>&1
check_match "7: eight runs, eight jobs" "$(ingest "$QUICK" --store "$WORK/quick.db")" \
    "entries: 8 stored, 0 already there"
as "$H" cp "$home/q1/summary.json" "$QUICK/again.json"
check_match "7: the same record again is 'already there'" \
    "$(ingest "$QUICK" --store "$WORK/quick.db")" "entries: 0 stored, 1 already there"

# ---- a record of a newer version: held in the ingest's own newer/, not read every run ----
craft 0005.json 'r["version"] = 9'
out=$(ingest "$SPOOL" --store "$LITE")
check_match "a newer record: held, said with both versions" "$out" \
    "0005.json: held in rejected/newer/ until an mpilens that reads it ingests: record version 9 is newer than this mpilens reads \(1\)"
check_eq "... in root's newer/ as v9.NAME" "v9.0005.json" "$(ls "$SPOOL/rejected/newer")"
out=$(ingest "$SPOOL" --store "$LITE")
check_match "... the next run only counts it, without reading it" "$out" \
    "^mpilens: site ingest: 1 records of a newer version than this mpilens reads wait in $SPOOL/rejected/newer/"
check_match "... and the spool holds nothing more" "$out" "entries: 0 stored"

# ---- every entry accounted for: ingest run by a user who cannot read a record ----
UNREAD=$WORK/unread
mkdir -m 1777 "$UNREAD"
mkdir -m 700 "$WORK/hx" && chown "$X" "$WORK/hx"
as "$H" cp "$home/q2/summary.json" "$UNREAD/q2.json"
as "$X" "$MPILENS" site init --store "$WORK/hx/own.db" >/dev/null 2>&1
out=$(as "$X" "$MPILENS" site ingest "$UNREAD" --store "$WORK/hx/own.db" --rejected "$WORK/hx/rej" 2>&1)
status=$?
check_match "a record this user cannot read: said, and counted as left" "$status $out" \
    "^1 .*q2.json: left in the spool: cannot be read: Permission denied"
check_match "... in the last line" "$out" "1 entries: 0 stored, 0 already there, 0 rejected, 0 held \(newer version\), 1 left"
check_eq "... and it stays" "yes" "$([ -f "$UNREAD/q2.json" ] && echo yes)"

# ---- PostgreSQL: 2, 3 and 6 ----
if ! pg_available; then
    echo "FAIL no PostgreSQL server (apt-get install postgresql)"
    finish
fi
start_pg || { echo "FAIL: the test's PostgreSQL server did not start"; exit 1; }
pg_up=yes
STORE=$(pg_store)
as postgres "$MPILENS" site init --store "$STORE" >/dev/null 2>&1
out=$(ingest "$WORK/spool-pg" --store "$STORE"); status=$?
check_match "2: PostgreSQL: the valid records stored behind the invalid UTF-8 one" "$out" \
    "entries: 2 stored, 0 already there, 3 rejected"
check_eq "2: PostgreSQL: status 0" "0" "$status"
psql_as() { local u=$1; shift; as "$u" "$PG_BIN/psql" -h "$PG_DIR" -X -A -t site -c "$*" 2>&1; }
check_eq "3: PostgreSQL: site jobs answers the store's owner" "0" \
    "$(as postgres "$MPILENS" site jobs --store "$STORE" >/dev/null 2>&1; echo $?)"
# ---- 6. every SECURITY DEFINER function searches pg_catalog first and nothing a user owns
check_eq "6: every SECURITY DEFINER function's search_path" \
    "mpilens_add_user {search_path=pg_catalog,pg_temp}
mpilens_totals_job_message_sizes {search_path=pg_catalog,pg_temp}
mpilens_totals_job_operations {search_path=pg_catalog,pg_temp}
mpilens_totals_job_top_operations {search_path=pg_catalog,pg_temp}
mpilens_totals_jobs {search_path=pg_catalog,pg_temp}" \
    "$(psql_as postgres "SELECT proname || ' ' || COALESCE(proconfig::text, '') FROM pg_proc
        WHERE prosecdef ORDER BY proname" | sed 's/"//g; s/, /,/g')"
# hostile gets a role by a record of its own, then plants public.sum(float8)
mkdir -m 700 "$WORK/xh" && chown "$X" "$WORK/xh"
(cd "$WORK/xh" && timeout 120 runuser -u "$X" -- env TMPDIR="$WORK/xh" MPILENS_SPOOL="$WORK/spool-pg" \
    "$MPILENS" run -m summary -o "$WORK/xh/run" -- $MPIRUN -np 2 "$APPS/ring" >/dev/null 2>&1)
ingest "$WORK/spool-pg" --store "$STORE" >/dev/null
psql_as postgres "GRANT CREATE ON SCHEMA public TO PUBLIC" >/dev/null
planted=$(psql_as "$X" "CREATE FUNCTION public.evil_sf(float8, float8) RETURNS float8
    LANGUAGE plpgsql AS \$\$ BEGIN
    BEGIN EXECUTE 'GRANT mpilens_staff TO $X'; EXCEPTION WHEN OTHERS THEN NULL; END;
    RETURN COALESCE(\$1, 0) + COALESCE(\$2, 0); END \$\$;
    CREATE AGGREGATE public.sum(float8) (sfunc = public.evil_sf, stype = float8);")
check_match "6: hostile planted public.sum(float8)" "$planted" "CREATE AGGREGATE"
ring run2
as "$H" cp "$home/run2/summary.json" "$WORK/spool-pg/honest2.json"
check_match "6: the next ingest stores honest's job" "$(ingest "$WORK/spool-pg" --store "$STORE")" \
    "entries: 1 stored"
as postgres "$MPILENS" site usage --store "$STORE" >/dev/null 2>&1 # the owner asks too
check_eq "6: hostile is no member of mpilens_staff" "f" \
    "$(psql_as postgres "SELECT pg_has_role('$X', 'mpilens_staff', 'MEMBER')")"
check_eq "6: hostile's site jobs lists hostile's jobs only" "$X" \
    "$(as "$X" "$MPILENS" site jobs --store "$STORE" --csv 2>/dev/null | awk -F, 'NR > 1 {print $3}' | sort -u)"
finish
