#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# site_store.sh [N] [BUILD]: the site store at the size of a centre (docs/site.md): N
# synthetic records (default 1000000; tests/site/make_records.py, the project's own
# generator) ingested into SQLite and into PostgreSQL (a server of its own: initdb in a
# temporary directory, Unix socket only, as tests/site/pg_fixture.sh starts it), then each
# question timed on both stores. Prints records per second, each query's seconds and both
# stores' sizes. Root (the server runs as postgres). Takes about N / 1000 seconds a store.
set -euo pipefail
N=${1:-1000000}
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${2:-$top/build}
MPILENS=$BUILD/bin/mpilens
[ "$(id -u)" = 0 ] || { echo "site_store.sh: run as root (the server runs as postgres)" >&2; exit 2; }
WORK=$(mktemp -d /var/tmp/mpilens-site-bench.XXXXXX)
chmod 755 "$WORK"
PG_DIR=$WORK/pg
mkdir "$PG_DIR"
source "$top/tests/site/pg_fixture.sh"
trap 'stop_pg; rm -rf "$WORK"' EXIT
start_pg >/dev/null
STORE=$(pg_store)
LITE=$WORK/site.db
now() { date +%s.%N; }
echo "site store benchmark: $N records, $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed "s/^ //"), $(nproc) cores"
start=$(now)
mkdir "$WORK/spool"
python3 "$top/tests/site/make_records.py" "$WORK/spool" "$N" --ops \
    "MPI_Allreduce=30,MPI_Send=10,MPI_Wait=5;MPI_Alltoall=10,MPI_Wait=20;MPI_Bcast=3,MPI_Recv=8"
printf "generated in %.1f s (%s on disk)\n" "$(echo "$(now) - $start" | bc)" "$(du -sh "$WORK/spool" | cut -f1)"
cp -r "$WORK/spool" "$WORK/spool2"
runuser -u postgres -- "$MPILENS" site init --store "$STORE" 2>/dev/null
"$MPILENS" site init --store "$LITE" 2>/dev/null
printf "%-12s %10s %10s %10s\n" "STORE" "RECORDS" "SECONDS" "RECORDS/S"
for kind in sqlite postgresql; do
    [ $kind = sqlite ] && store=$LITE spool=$WORK/spool || store=$STORE spool=$WORK/spool2
    start=$(now)
    "$MPILENS" site ingest "$spool" --store "$store" 2>/dev/null
    t=$(echo "$(now) - $start" | bc)
    printf "%-12s %10d %10.1f %10.0f\n" $kind "$N" "$t" "$(echo "$N / $t" | bc -l)"
done
printf "\n%-34s %10s %10s\n" "QUESTION (seconds)" "SQLITE" "POSTGRESQL"
q() { # LABEL ARGS...: the question timed on both stores (as postgres: every user's jobs)
    local label=$1 a b
    shift
    start=$(now); "$MPILENS" site "$@" --store "$LITE" >/dev/null 2>"$WORK/err" || cat "$WORK/err" >&2; a=$(echo "$(now) - $start" | bc)
    rm -f "$WORK/pages/page.html"
    start=$(now); runuser -u postgres -- "$MPILENS" site "$@" --store "$STORE" >/dev/null 2>"$WORK/err" || cat "$WORK/err" >&2
    b=$(echo "$(now) - $start" | bc)
    printf "%-34s %10.2f %10.2f\n" "$label" "$a" "$b"
}
q "jobs (top 20 by MPI core-hours)" jobs
q "jobs --sort efficiency" jobs --sort efficiency
q "jobs --user root --since (a month)" jobs --user root --since 2024-01-01 --until 2024-02-01
q "apps" apps
q "usage" usage
q "trend app1 (by week)" trend app1
mkdir -m 1777 "$WORK/pages"
q "page --html" page --html "$WORK/pages/page.html"
printf "\nsizes: SQLite %s, PostgreSQL %s\n" "$(du -h "$LITE" | cut -f1)" \
    "$(runuser -u postgres -- "$PG_BIN/psql" -h "$PG_DIR" site -Atc "SELECT pg_size_pretty(pg_database_size('site'))")"
