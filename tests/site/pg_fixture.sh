# SPDX-License-Identifier: BSD-3-Clause
# pg_fixture.sh: a PostgreSQL server of the test's own (sourced by the site tests): initdb
# into PG_DIR (a directory the caller made), Unix socket only (no TCP: listen_addresses
# empty), peer authentication (a Unix user connects as the role of its own name), run as
# the postgres user. start_pg, stop_pg, pg_store (the store's URI), as_user USER CMD...
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
pg_available() { [ -x "$PG_BIN/initdb" ] && id postgres >/dev/null 2>&1; }
as_user() { local u=$1; shift; runuser -u "$u" -- "$@"; }
start_pg() {
    chown postgres: "$PG_DIR" && chmod 755 "$PG_DIR"
    as_user postgres "$PG_BIN/initdb" -D "$PG_DIR/data" --auth-local=peer --auth-host=reject \
        -U postgres >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log"; return 1; }
    pg_start_server && as_user postgres "$PG_BIN/createdb" -h "$PG_DIR" site
}
pg_start_server() {
    as_user postgres timeout 60 "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -l "$PG_DIR/server.log" \
        -o "-k $PG_DIR -c listen_addresses=''" start >/dev/null || { cat "$PG_DIR/server.log"; return 1; }
}
stop_pg() { as_user postgres timeout 60 "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true; }
pg_store() { echo "postgresql:///site?host=$PG_DIR"; }
