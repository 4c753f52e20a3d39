/* SPDX-License-Identifier: BSD-3-Clause */
/* site_schema.c: the site store's schema (site_schema.h). One statement text serves both
 * databases; PostgreSQL gets roles, grants and row-level security besides. Every table
 * carries the row's owner (the Unix user the record belongs to), which the policies test.
 */
#include "site_schema.h"

#include "site_totals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tables_sql[] =
    "CREATE TABLE IF NOT EXISTS site_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS jobs (\n"
    "  record_key TEXT PRIMARY KEY, owner TEXT NOT NULL, uid BIGINT, job_id TEXT, step TEXT,\n"
    "  job_name TEXT, account TEXT, partition_name TEXT, cluster TEXT, app TEXT NOT NULL,\n"
    "  program TEXT, build_id TEXT, python_script TEXT, mpi_library TEXT, mpi_standard TEXT,\n"
    "  ranks BIGINT NOT NULL, ranks_measured BIGINT, nodes BIGINT, rpn_min BIGINT,\n"
    "  rpn_max BIGINT, first_host TEXT, start_epoch DOUBLE PRECISION NOT NULL,\n"
    "  end_epoch DOUBLE PRECISION, run_seconds DOUBLE PRECISION NOT NULL,\n"
    "  core_seconds DOUBLE PRECISION NOT NULL, mpi_seconds DOUBLE PRECISION NOT NULL,\n"
    "  mpi_share DOUBLE PRECISION, load_balance DOUBLE PRECISION,\n"
    "  comm_efficiency DOUBLE PRECISION, parallel_efficiency DOUBLE PRECISION,\n"
    "  p2p_messages DOUBLE PRECISION, p2p_bytes DOUBLE PRECISION,\n"
    "  within_messages DOUBLE PRECISION, within_bytes DOUBLE PRECISION,\n"
    "  between_messages DOUBLE PRECISION, between_bytes DOUBLE PRECISION,\n"
    "  other_ops_seconds DOUBLE PRECISION, clock TEXT, ended TEXT, version INTEGER,\n"
    "  ingested_epoch DOUBLE PRECISION);\n"
    /* each order of `site jobs` read from an index in its order, its first rows only */
    "CREATE INDEX IF NOT EXISTS jobs_by_start ON jobs (start_epoch DESC, record_key);\n"
    /* an application's jobs in start order (`site trend`, `--app`), read from the index
     * alone: the row's owner (for the row policy) and the figures a trend reads */
    "DROP INDEX IF EXISTS jobs_by_app;\n"
    "CREATE INDEX IF NOT EXISTS jobs_by_app_time ON jobs (app, start_epoch, record_key, owner,\n"
    "  parallel_efficiency, core_seconds, mpi_seconds);\n"
    "CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs (owner, start_epoch);\n"
    "CREATE INDEX IF NOT EXISTS jobs_by_mpi ON jobs (mpi_seconds DESC, start_epoch, record_key);\n"
    "CREATE INDEX IF NOT EXISTS jobs_by_efficiency ON jobs (parallel_efficiency, start_epoch,\n"
    "  record_key);\n"
    "CREATE INDEX IF NOT EXISTS jobs_by_length ON jobs (run_seconds DESC, start_epoch, "
    "record_key);\n"
    /* `site apps`: its sums read from this index alone, each application's median
     * efficiency found in it by position and its worst job (the first in start order) as
     * its first entry */
    "CREATE INDEX IF NOT EXISTS jobs_by_app_efficiency ON jobs (app, parallel_efficiency,\n"
    "  start_epoch, record_key, core_seconds, mpi_seconds);\n"
    "CREATE TABLE IF NOT EXISTS job_operations (record_key TEXT NOT NULL, owner TEXT NOT NULL,\n"
    "  operation TEXT NOT NULL, calls DOUBLE PRECISION, seconds DOUBLE PRECISION,\n"
    "  PRIMARY KEY (record_key, operation));\n"
    "CREATE TABLE IF NOT EXISTS job_top_operations (record_key TEXT NOT NULL,\n"
    "  owner TEXT NOT NULL, position INTEGER NOT NULL, operation TEXT, communicator TEXT,\n"
    "  communicator_size BIGINT, calls DOUBLE PRECISION, seconds DOUBLE PRECISION,\n"
    "  PRIMARY KEY (record_key, position));\n"
    "CREATE TABLE IF NOT EXISTS job_message_sizes (record_key TEXT NOT NULL,\n"
    "  owner TEXT NOT NULL, min_bytes DOUBLE PRECISION NOT NULL, max_bytes DOUBLE PRECISION,\n"
    "  messages DOUBLE PRECISION, PRIMARY KEY (record_key, min_bytes));\n"
    "CREATE TABLE IF NOT EXISTS job_call_sites (record_key TEXT NOT NULL, owner TEXT NOT NULL,\n"
    "  position INTEGER NOT NULL, operation TEXT, file TEXT, line BIGINT, function_name TEXT,\n"
    "  object TEXT, seconds DOUBLE PRECISION, PRIMARY KEY (record_key, position));\n"
    /* the usage summed per user, kept by triggers (site_totals.c); item, low and high are
     * the section's key (an operation; a size bin; ranks and nodes), the rest its sums */
    "CREATE TABLE IF NOT EXISTS usage_totals (owner TEXT NOT NULL, section TEXT NOT NULL,\n"
    "  item TEXT NOT NULL, low DOUBLE PRECISION NOT NULL, high DOUBLE PRECISION NOT NULL,\n"
    "  jobs DOUBLE PRECISION NOT NULL, rated DOUBLE PRECISION NOT NULL,\n"
    "  messages DOUBLE PRECISION NOT NULL, seconds DOUBLE PRECISION NOT NULL,\n"
    "  core_seconds DOUBLE PRECISION NOT NULL, other_seconds DOUBLE PRECISION NOT NULL,\n"
    "  PRIMARY KEY (owner, section, item, low, high));\n"
    "INSERT INTO site_meta (key, value) VALUES ('store_version', '0') ON CONFLICT DO NOTHING;\n";

static const char *const row_tables[] = {"jobs", "job_operations", "job_top_operations",
                                         "job_message_sizes", "job_call_sites"};

static const char roles_sql[] =
    "DO $$ BEGIN\n"
    "  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mpilens_ingest') THEN\n"
    "    CREATE ROLE mpilens_ingest NOLOGIN; END IF;\n"
    "  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mpilens_staff') THEN\n"
    "    CREATE ROLE mpilens_staff NOLOGIN; END IF;\n"
    "END $$;\n"
    "REVOKE ALL ON site_meta FROM PUBLIC;\n"
    "GRANT SELECT ON site_meta TO PUBLIC;\n"
    /* a login role for a user stored for the first time: the only thing ingest may do
     * besides inserting rows; a name as Unix allows it, nothing else */
    "CREATE OR REPLACE FUNCTION mpilens_add_user(name TEXT) RETURNS void\n"
    "  LANGUAGE plpgsql SECURITY DEFINER SET search_path = " SITE_DEFINER_PATH " AS $f$\n"
    "BEGIN\n"
    "  IF name !~ '^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,62}$' OR name LIKE 'pg\\_%'\n"
    "     OR name LIKE 'mpilens\\_%' THEN\n"
    "    RAISE EXCEPTION 'not a user name mpilens makes a role for: %', name; END IF;\n"
    "  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = name) THEN\n"
    "    EXECUTE format('CREATE ROLE %I LOGIN', name); END IF;\n"
    "END $f$;\n"
    "REVOKE ALL ON FUNCTION mpilens_add_user(TEXT) FROM PUBLIC;\n"
    "GRANT EXECUTE ON FUNCTION mpilens_add_user(TEXT) TO mpilens_ingest;\n";

/* The store's schema version as stored ("" for none), into VERSION (32 bytes). */
static int stored_version(struct site_store *s, char version[32], char *err, size_t n)
{
    return site_query_text(s, "SELECT value FROM site_meta WHERE key = 'store_version'", 0, NULL,
                           version, 32, err, n);
}

/* A LOGIN role NAME (made if missing), made a member of GROUP. */
static int grant_login(struct site_store *s, const char *name, const char *group, char *err,
                       size_t n)
{
    const char *p[] = {name, group};
    char stmt[512] = "";
    if (site_query_text(s,
                        "SELECT format(CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                        "$1) THEN 'GRANT %2$I TO %1$I' ELSE 'CREATE ROLE %1$I LOGIN IN ROLE %2$I' "
                        "END, $1::text, $2::text)",
                        2, p, stmt, sizeof stmt, err, n))
        return -1;
    return site_exec(s, stmt, err, n);
}

int site_schema_init(struct site_store *s, const char *const *ingesters, int n_ingesters,
                     const char *const *staff, int n_staff, char *err, size_t n)
{
    if (site_exec(s, "BEGIN", err, n))
        return -1;
    if (site_exec(s, tables_sql, err, n))
        goto fail;
    /* a new store (version 0 until now) or one made before the totals: they are summed
     * from the rows stored, once */
    char version[32] = "";
    if (stored_version(s, version, err, n))
        goto fail;
    int refill = atoi(version) < SITE_STORE_VERSION;
    if (site_is_pg(s)) {
        if (site_exec(s, roles_sql, err, n))
            goto fail;
        for (size_t t = 0; t < sizeof row_tables / sizeof *row_tables; t++) {
            char sql[1024];
            snprintf(sql, sizeof sql,
                     "REVOKE ALL ON %1$s FROM PUBLIC; GRANT SELECT ON %1$s TO PUBLIC;\n"
                     "GRANT INSERT ON %1$s TO mpilens_ingest;\n"
                     "ALTER TABLE %1$s ENABLE ROW LEVEL SECURITY;\n"
                     "DROP POLICY IF EXISTS mpilens_read ON %1$s;\n"
                     "CREATE POLICY mpilens_read ON %1$s FOR SELECT USING (owner = current_user "
                     "OR pg_has_role(current_user, 'mpilens_staff', 'MEMBER'));\n"
                     "DROP POLICY IF EXISTS mpilens_insert ON %1$s;\n"
                     "CREATE POLICY mpilens_insert ON %1$s FOR INSERT TO mpilens_ingest "
                     "WITH CHECK (true);\n",
                     row_tables[t]);
            if (site_exec(s, sql, err, n))
                goto fail;
        }
        for (int i = 0; i < n_ingesters; i++)
            if (grant_login(s, ingesters[i], "mpilens_ingest", err, n))
                goto fail;
        for (int i = 0; i < n_staff; i++)
            if (grant_login(s, staff[i], "mpilens_staff", err, n))
                goto fail;
    }
    if (site_totals_install(s, refill, err, n))
        goto fail;
    if (refill) {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE site_meta SET value = '%d' WHERE key = 'store_version'",
                 SITE_STORE_VERSION);
        if (site_exec(s, sql, err, n))
            goto fail;
    }
    return site_exec(s, "COMMIT", err, n);
fail:;
    char ignore[64];
    site_exec(s, "ROLLBACK", ignore, sizeof ignore);
    return -1;
}

int site_schema_check(struct site_store *s, char *err, size_t n)
{
    char version[32] = "";
    char why[256];
    if (stored_version(s, version, why, sizeof why) || !version[0]) {
        snprintf(err, n,
                 "%s holds no mpilens site store (%s); make one with mpilens site init "
                 "--store %s",
                 site_name(s), version[0] ? why : "no store_version", site_name(s));
        return -1;
    }
    if (atoi(version) < SITE_STORE_VERSION) {
        snprintf(err, n,
                 "%s is a version %s store; this mpilens reads version %d: bring it up to date "
                 "with mpilens site init --store %s (as the store's owner; it keeps every job)",
                 site_name(s), version, SITE_STORE_VERSION, site_name(s));
        return -1;
    }
    if (atoi(version) > SITE_STORE_VERSION) {
        snprintf(err, n, "%s is a version %s store; this mpilens reads version %d: update mpilens",
                 site_name(s), version, SITE_STORE_VERSION);
        return -1;
    }
    return 0;
}
