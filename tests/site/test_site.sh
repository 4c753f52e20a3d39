# SPDX-License-Identifier: BSD-3-Clause
# test_site.sh: the site store (src/site, docs/site.md) on PostgreSQL (a server the test
# starts itself: initdb and pg_ctl in its own directory, Unix socket only, peer
# authentication) and on SQLite. Jobs of two Unix users (nobody, daemon: users every Debian
# has) run the ring under the summary module into a sticky spool; ingested: each job once
# with the ring's exact bytes; a user's `site jobs` lists only their own, staff (man) and
# the store's owner every user's; a forged and a truncated record land in rejected/ with
# their reasons; ingest while the server is stopped moves nothing and exits non-zero, and
# after a restart everything arrives exactly once; no query can change the store; `site
# usage` on records of known operations gives their exact shares; `site trend` judges a
# fall a change; the page in Chromium; SQLite answers as PostgreSQL does.
[ "$(id -u)" = 0 ] || { echo "SKIP: two Unix users and a PostgreSQL server need root"; exit 77; }
source "$(dirname "$0")/../core/lib.sh"
source "$(dirname "$0")/pg_fixture.sh"
pg_available || { echo "FAIL no PostgreSQL server (apt-get install postgresql)"; exit 1; }
chmod 755 "$WORK"
PG_DIR=$WORK/pg
mkdir "$PG_DIR"
trap 'stop_pg; rm -rf "$WORK"' EXIT
start_pg || { echo "FAIL: the test's PostgreSQL server did not start"; exit 1; }
STORE=$(pg_store)
SPOOL=$WORK/spool
mkdir -m 1777 "$SPOOL"
site() { "$MPILENS" site "$@"; }

# ---- jobs of two users: the ring (4 ranks, 4 messages of 1 KiB) under the summary module
ring_as() { # USER: one ring job as USER, its record into the spool
    local home=$WORK/home-$1
    mkdir -p -m 777 "$home"
    (cd "$home" && timeout 120 runuser -u "$1" -- env TMPDIR="$home" MPILENS_SPOOL="$SPOOL" \
        "$MPILENS" run -m summary -o "$home/run$2" -- $MPIRUN -np 4 "$APPS/ring" >/dev/null 2>&1)
}
ring_as nobody 1
ring_as nobody 2
ring_as daemon 1
check_eq "three jobs, three records in the spool, owned by their users" "daemon nobody nobody" \
    "$(stat -c %U "$SPOOL"/*.json | sort | tr '\n' ' ' | sed 's/ $//')"
# a forged record (nobody's, claimed by daemon's file) and a truncated one
forged=$(ls "$SPOOL"/*.json | head -n 1)
cp "$forged" "$SPOOL/forged.summary.json"
chown daemon "$SPOOL/forged.summary.json"
sed -i 's/"user": "[a-z]*", "uid": [0-9]*/"user": "nobody", "uid": 65534/' "$SPOOL/forged.summary.json"
head -c 200 "$forged" >"$SPOOL/truncated.summary.json"
chown nobody "$SPOOL/truncated.summary.json"
# daemon's file says nobody: rewrite it so the claim is the other user's whatever the order
python3 - "$SPOOL/forged.summary.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["job"]["user"], r["job"]["uid"] = "nobody", 65534
r["start_epoch"] += 1; json.dump(r, open(sys.argv[1], "w"))
PY

# ---- the store: made by its owner (postgres), staff man, ingest as root
out=$(runuser -u postgres -- "$MPILENS" site init --store "$STORE" --staff man 2>&1)
check_eq "init: status 0, one line" "0 1" "$? $(wc -l <<<"$out")"
check_eq "init again (idempotent)" "0" \
    "$(runuser -u postgres -- "$MPILENS" site init --store "$STORE" --staff man >/dev/null 2>&1; echo $?)"

# ingest while the server is stopped: nothing moves, status 1
stop_pg
before=$(ls "$SPOOL" | sort)
out=$(site ingest "$SPOOL" --store "$STORE" 2>&1); status=$?
check_eq "ingest with the server stopped: status 1" "1" "$status"
check_match "... says it could not reach the store" "$out" "cannot reach the store.*nothing moved"
check_eq "... and moved nothing" "$before" "$(ls "$SPOOL" | sort)"
pg_start_server || { echo "FAIL: the server did not restart"; exit 1; }

out=$(site ingest "$SPOOL" --store "$STORE" 2>&1); status=$?
check_eq "ingest after the restart: status 0" "0" "$status"
check_has "... three stored, two rejected" "$out" \
    "mpilens: site ingest: 5 entries: 3 stored, 0 already there, 2 rejected (SPOOL/rejected/), 0 held (newer version), 0 left, 0 not records, 0 gone; into $STORE"
check_eq "the spool is empty but for rejected/" "rejected" "$(ls "$SPOOL")"
check_match "the forged record's reason" "$(cat "$SPOOL/rejected/forged.summary.json.reason")" \
    "^forged: the record names user nobody \(uid 65534\), the file belongs to daemon \(uid 1\)$"
check_match "the truncated record's reason" "$(cat "$SPOOL/rejected/truncated.summary.json.reason")" \
    "^not JSON: .* at byte [0-9]+$"
# the same records again: stored once
cp "$WORK"/home-*/run*/summary.json "$SPOOL/" 2>/dev/null
for d in "$WORK"/home-*/run*; do
    u=$(stat -c %U "$d/summary.json"); cp "$d/summary.json" "$SPOOL/again.$u.$(basename "$d").json"
    chown "$u" "$SPOOL/again.$u.$(basename "$d").json"
done
rm -f "$SPOOL"/summary.json
out=$(site ingest "$SPOOL" --store "$STORE" 2>&1)
check_has "ingest of the same jobs again: nothing new" "$out" \
    "mpilens: site ingest: 3 entries: 0 stored, 3 already there, 0 rejected, 0 held (newer version), 0 left, 0 not records, 0 gone; into $STORE"

jobs_as() { runuser -u "$1" -- "$MPILENS" site jobs --store "$STORE" --csv 2>/dev/null; }
cols() { awk -F, 'NR > 1 {print $3, $5, $6, $13, $14, $15}' | sort; }
check_eq "staff (man): every job once, 4 ranks, 1 node, the ring's 4096 bytes within the host" \
    "daemon 4 1 4096 4096 0
nobody 4 1 4096 4096 0
nobody 4 1 4096 4096 0" "$(jobs_as man | cols)"
check_eq "nobody: their own two jobs only" "nobody 4 1 4096 4096 0
nobody 4 1 4096 4096 0" "$(jobs_as nobody | cols)"
check_eq "daemon: their own job only" "daemon 4 1 4096 4096 0" "$(jobs_as daemon | cols)"
check_eq "the store's owner: every job" "3" "$(jobs_as postgres | cols | wc -l)"
check_match "site jobs says which store and which rows it read" \
    "$(runuser -u nobody -- "$MPILENS" site jobs --store "$STORE" 2>&1 >/dev/null)" \
    "^mpilens: site jobs: 2 jobs read from .* \(PostgreSQL as nobody: their own jobs only\)$"
check_eq "csv header" "job,step,user,app,ranks,nodes,start,length_s,core_hours,mpi_core_hours,mpi_share,parallel_efficiency,p2p_bytes,within_hosts_bytes,between_hosts_bytes,ended" \
    "$(jobs_as man | head -n 1)"
table=$(runuser -u man -- "$MPILENS" site jobs --store "$STORE" 2>/dev/null)
check_eq "the table fits 80 columns" "0" "$(awk 'length > 80' <<<"$table" | wc -l)"
check_eq "apps: the ring, 3 jobs" "ring,3" \
    "$(runuser -u man -- "$MPILENS" site apps --store "$STORE" --csv 2>/dev/null | awk -F, 'NR > 1 {print $1 "," $2}')"
# a query can never change the store: a user's own SQL is refused, and so is a write
# through a reading connection
out=$(runuser -u nobody -- "$PG_BIN/psql" -h "$PG_DIR" site -c "DELETE FROM jobs" 2>&1)
check_match "a user cannot delete rows" "$out" "permission denied"
out=$(runuser -u nobody -- "$PG_BIN/psql" -h "$PG_DIR" site -c \
    "INSERT INTO jobs (record_key, owner, app, ranks, start_epoch, run_seconds, core_seconds, mpi_seconds) VALUES ('x', 'daemon', 'x', 1, 0, 0, 0, 0)" 2>&1)
check_match "a user cannot insert a job for another" "$out" "permission denied"
check_eq "still three jobs" "3" "$(jobs_as man | cols | wc -l)"

# ---- site usage: records of known operations, exact shares (SQLite and PostgreSQL)
SYN=$WORK/syn
mkdir -m 1777 "$SYN"
python3 "$(dirname "$0")/make_records.py" "$SYN" 4 --ops \
    "MPI_Allreduce=30,MPI_Send=10;MPI_Allreduce=10,MPI_Wait=20" --user daemon --uid 1
chown daemon "$SYN"/*.json
cp -a "$SYN" "$WORK/syn2"
LITE=$WORK/site.db
check_eq "SQLite: init" "0" "$(site init --store "$LITE" >/dev/null 2>&1; echo $?)"
check_eq "SQLite: the store's file is not world-readable" "640" "$(stat -c %a "$LITE")"
chgrp daemon "$LITE" # the file's permissions decide who reads a SQLite store
site ingest "$SYN" --store "$LITE" >/dev/null 2>&1
site ingest "$WORK/syn2" --store "$STORE" >/dev/null 2>&1
usage() { # STORE: daemon's jobs of account acct0, as daemon
    runuser -u daemon -- "$MPILENS" site usage --store "$1" --user daemon --account acct0 --csv \
        2>/dev/null | grep -E "^(operations|kinds|total)"
}
# acct0: jobs 0 and 3 (i mod 3 = 0; 1 and 8 ranks of 100 s: 900 core-seconds): Allreduce
# 30 + 10, Send 10, Wait 20 of 70 s in MPI
check_eq "usage: operations and kinds by share of MPI core-hours, exact" \
    "total,core-hours,0.250000,1.000000
total,MPI core-hours,0.019444,0.077778
operations,MPI_Allreduce,0.011111,0.571429
operations,MPI_Wait,0.005556,0.285714
operations,MPI_Send,0.002778,0.142857
kinds,point-to-point,0.008333,0.428571
kinds,collective,0.011111,0.571429" "$(usage "$LITE")"
check_eq "usage: PostgreSQL gives the same" "$(usage "$LITE")" "$(usage "$STORE")"
# every job or one user's is answered from the totals the store keeps (docs/site.md); a
# window that holds every job reads the rows: the same answer
all_usage() { # STORE [ARGS]: as daemon
    local store=$1
    shift
    runuser -u daemon -- "$MPILENS" site usage --store "$store" --csv "$@" 2>/dev/null
}
since_all="--since 1970-01-02"
check_match "usage from the totals: daemon's operations" "$(all_usage "$LITE")" \
    "operations,MPI_Allreduce,"
check_eq "usage from the totals = usage from the rows (SQLite)" \
    "$(all_usage "$LITE" $since_all)" "$(all_usage "$LITE")"
check_eq "usage from the totals = usage from the rows (PostgreSQL, as daemon)" \
    "$(all_usage "$STORE" $since_all)" "$(all_usage "$STORE")"
check_eq "apps from the totals = apps from the rows (PostgreSQL, as daemon)" \
    "$(runuser -u daemon -- "$MPILENS" site apps --store "$STORE" --csv $since_all 2>/dev/null)" \
    "$(runuser -u daemon -- "$MPILENS" site apps --store "$STORE" --csv 2>/dev/null)"
check_match "usage: daemon's totals hold daemon's jobs only (1 ring, 4 synthetic)" \
    "$(runuser -u daemon -- "$MPILENS" site usage --store "$STORE" 2>&1 >/dev/null)" \
    "^mpilens: site usage: 5 jobs read from "
check_eq "usage: daemon's own totals = staff's totals of --user daemon" \
    "$(runuser -u man -- "$MPILENS" site usage --store "$STORE" --csv --user daemon 2>/dev/null)" \
    "$(all_usage "$STORE")"
check_eq "usage: the staff's totals = the rows of every user's jobs" \
    "$(runuser -u man -- "$MPILENS" site usage --store "$STORE" --csv $since_all 2>/dev/null)" \
    "$(runuser -u man -- "$MPILENS" site usage --store "$STORE" --csv 2>/dev/null)"
out=$(runuser -u nobody -- "$PG_BIN/psql" -h "$PG_DIR" site -c \
    "INSERT INTO usage_totals VALUES ('daemon', 'jobs', '', 0, 0, 1, 0, 0, 0, 0, 0)" 2>&1)
check_match "a user cannot write the totals" "$out" "permission denied"
# a store made before the totals (version 1): refused with the fix; site init sums them
cp "$LITE" "$WORK/old.db"
sqlite3 "$WORK/old.db" "UPDATE site_meta SET value = '1' WHERE key = 'store_version'; DELETE FROM usage_totals"
out=$(site usage --store "$WORK/old.db" 2>&1); status=$?
check_eq "a version 1 store: status 1" "1" "$status"
check_match "... one line naming the fix" "$out" \
    "^mpilens: site usage: .*old.db is a version 1 store; this mpilens reads version 2: bring it up to date with mpilens site init --store .*old.db"
site init --store "$WORK/old.db" >/dev/null 2>&1
check_eq "... after site init: the same usage as the store kept it" \
    "$(site usage --store "$LITE" --csv 2>/dev/null)" "$(site usage --store "$WORK/old.db" --csv 2>/dev/null)"
check_eq "jobs: SQLite and PostgreSQL list the same synthetic jobs" \
    "$(site jobs --store "$LITE" --user daemon --app app1 --csv 2>/dev/null)" \
    "$(runuser -u daemon -- "$MPILENS" site jobs --store "$STORE" --app app1 --csv 2>/dev/null)"
check_eq "--since/--until: jobs by start" "2" \
    "$(site jobs --store "$LITE" --since 2023-11-14T23:00:00 --until 2023-11-15T01:00:01 --csv 2>/dev/null | tail -n +2 | wc -l)"
# trend: one application's efficiency falls from about 0.80 to 0.60 on the third day, the
# first two days alike (noise)
TR=$WORK/trend
mkdir "$TR"
python3 "$(dirname "$0")/make_records.py" "$TR" 9 --app solver --start 1699920000 --hours 8 \
    --pe 0.80,0.82,0.78,0.81,0.79,0.80,0.60,0.62,0.59
site ingest "$TR" --store "$LITE" >/dev/null 2>&1
check_eq "trend: per day, the fall judged a change, the noise not" \
    "2023-11-14,3,0.800,
2023-11-15,3,0.800,within noise
2023-11-16,3,0.600,changed -0.197" \
    "$(site trend solver --store "$LITE" --by day --csv 2>/dev/null | awk -F, 'NR > 1 {print $1 "," $2 "," $3 "," $6}')"
# the page, in Chromium (headless): its tables and charts, the trends, and an
# application named like markup stays text
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    python3 "$(dirname "$0")/make_records.py" "$TR" 1 --app '<img src=x onerror=document.title=1>' \
        --start 1699000000
    site ingest "$TR" --store "$LITE" >/dev/null 2>&1
    out=$(site page --html "$WORK/site.html" --store "$LITE" 2>&1)
    check_eq "page: one line naming the page" "mpilens: site page: $WORK/site.html (from $LITE)" "$out"
    dom=$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$WORK/chromium" --dump-dom "file://$WORK/site.html" 2>/dev/null)
    check_has "page: chromium renders it, its title its own (no script from the data ran)" \
        "$(grep -o '<title>[^<]*</title>' <<<"$dom")" "<title>mpilens site</title>"
    check_eq "page: the applications' table, a row per application" \
        "$(site apps --store "$LITE" --csv 2>/dev/null | tail -n +2 | wc -l)" \
        "$(sed -n '/<table class="sortable" id="apps">/,/<\/table>/p' <<<"$dom" | grep -o '<tr>' | tail -n +2 | wc -l)"
    check_eq "page: the usage charts" "operations kinds message_sizes communicators ranks_per_job" \
        "$(grep -o 'data-section="[a-z_]*"' <<<"$dom" | cut -d'"' -f2 | tr '\n' ' ' | sed 's/ $//')"
    check_match "page: the solver's weekly trend drawn" "$dom" '<svg class="trend" data-app="solver"'
    check_lacks "page: the application named like markup is text" "$dom" "<img"
else
    echo "note: chromium not installed: the page is not checked in a browser"
fi
site init --store "$WORK/empty.db" >/dev/null 2>&1
out=$(site page --html "$WORK/empty.html" --store "$WORK/empty.db" 2>&1); status=$?
check_eq "the page of a store with no jobs yet: status 0" "0" "$status"
check_match "... it says there are none" "$(cat "$WORK/empty.html" 2>/dev/null)" \
    "over the last 26 weeks of their jobs \(no jobs yet\)"
out=$(site jobs --store "$WORK/none.db" 2>&1); status=$?
check_eq "a missing store: status 1, one line" "1 1" "$status $(wc -l <<<"$out")"
check_match "... naming the fix" "$out" "no such store \(make it with mpilens site init --store"
refused "no store given" \
    "mpilens: site jobs: no store given; add --store FILE (SQLite) or --store postgresql:///DB?host=SOCKETDIR, or set MPILENS_SITE_STORE" \
    env -u MPILENS_SITE_STORE "$MPILENS" site jobs
check_eq "python: mpilens.site(STORE).jobs() and usage() as DataFrames" "14 operations 3" \
    "$(MPILENS_CLI=$MPILENS PYTHONPATH="$SRC/python" /usr/bin/python3 -c "
import mpilens
s = mpilens.site('$LITE')
u = s.usage(account='acct0')
print(len(s.jobs()), u['section'][2], (u['section'] == 'operations').sum())")"
check_eq "site --help and each verb's" "0 0 0 0 0 0 0" \
    "$(for v in "" init ingest jobs apps usage trend; do site $v --help >/dev/null; printf '%s ' $?; done | sed 's/ $//')"
finish
