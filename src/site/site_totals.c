/* SPDX-License-Identifier: BSD-3-Clause */
/* site_totals.c: usage_totals kept by the database (site_totals.h). Each section's sum is
 * one SELECT written once and used three ways: over a row table (the refill), over a
 * PostgreSQL statement's new rows (its transition table) and over one SQLite row (NEW).
 */
#include "site_totals.h"

#include <stdio.h>
#include <string.h>

#include "site_query.h"
#include "site_schema.h"

static const char totals_cols[] =
    "owner, section, item, low, high, jobs, rated, messages, seconds, core_seconds, "
    "other_seconds";

static const char add_on_conflict[] =
    " ON CONFLICT (owner, section, item, low, high) DO UPDATE SET "
    "jobs = usage_totals.jobs + excluded.jobs, rated = usage_totals.rated + excluded.rated, "
    "messages = usage_totals.messages + excluded.messages, "
    "seconds = usage_totals.seconds + excluded.seconds, "
    "core_seconds = usage_totals.core_seconds + excluded.core_seconds, "
    "other_seconds = usage_totals.other_seconds + excluded.other_seconds";

/* A section's sum over a source: %1$s qualifies a column (NEW. for one SQLite row), %2$s is
 * the FROM clause (none for one SQLite row). Columns in totals_cols' order. */
struct section_sum {
    const char *table, *select;
};

static const struct section_sum sums[] = {
    {"jobs", "SELECT %1$sowner, 'jobs', '', 0, 0, COUNT(*), 0, 0, SUM(%1$smpi_seconds), "
             "SUM(%1$score_seconds), COALESCE(SUM(%1$sother_ops_seconds), 0)%2$s "
             "GROUP BY %1$sowner"},
    {"jobs", "SELECT %1$sowner, 'app', %1$sapp, 0, 0, COUNT(*), COUNT(%1$sparallel_efficiency), "
             "0, SUM(%1$smpi_seconds), SUM(%1$score_seconds), 0%2$s GROUP BY %1$sowner, %1$sapp"},
    {"jobs", "SELECT %1$sowner, 'shape', '', %1$sranks, COALESCE(%1$snodes, 0), COUNT(*), 0, 0, "
             "0, 0, 0%2$s GROUP BY %1$sowner, %1$sranks, COALESCE(%1$snodes, 0)"},
    {"job_operations", "SELECT %1$sowner, 'operation', %1$soperation, 0, 0, 0, 0, 0, "
                       "COALESCE(SUM(%1$sseconds), 0), 0, 0%2$s GROUP BY %1$sowner, %1$soperation"},
    {"job_message_sizes",
     "SELECT %1$sowner, 'message_size', '', %1$smin_bytes, COALESCE(%1$smax_bytes, 0), 0, 0, "
     "COALESCE(SUM(%1$smessages), 0), 0, 0, 0%2$s GROUP BY %1$sowner, %1$smin_bytes, "
     "COALESCE(%1$smax_bytes, 0)"},
    {"job_top_operations",
     "SELECT %1$sowner, 'communicator', '', COALESCE(%1$scommunicator_size, 0), 0, 0, 0, 0, "
     "COALESCE(SUM(%1$sseconds), 0), 0, 0%2$s GROUP BY %1$sowner, "
     "COALESCE(%1$scommunicator_size, 0)"},
};
#define N_SUMS (sizeof sums / sizeof *sums)
static const char *const sources[] = {"jobs", "job_operations", "job_message_sizes",
                                      "job_top_operations"};
#define N_SOURCES (sizeof sources / sizeof *sources)

/* Appends "INSERT INTO SCHEMAusage_totals (...) <sum over FROM> ON CONFLICT ...;" to OUT
 * (SCHEMA: "" or a quoted name and a dot). */
static void add_insert(char *out, size_t n, const struct section_sum *sum, const char *qualify,
                       const char *from, const char *schema)
{
    size_t at = strlen(out);
    at +=
        (size_t)snprintf(out + at, n - at, "INSERT INTO %susage_totals (%s) ", schema, totals_cols);
    at += (size_t)snprintf(out + at, n - at, sum->select, qualify, from);
    /* one order for every insert: two ingests at once lock the rows they add to in the
     * same order, so neither waits for the other in a circle */
    snprintf(out + at, n - at, " ORDER BY 1, 2, 3, 4, 5%s;\n", add_on_conflict);
}

/* SQLite: a row trigger on each source table adds its one row. */
static int sqlite_triggers(struct site_store *s, char *err, size_t n)
{
    for (size_t t = 0; t < N_SOURCES; t++) {
        char sql[8192];
        snprintf(sql, sizeof sql,
                 "DROP TRIGGER IF EXISTS mpilens_totals_%1$s;\n"
                 "CREATE TRIGGER mpilens_totals_%1$s AFTER INSERT ON %1$s BEGIN\n",
                 sources[t]);
        for (size_t i = 0; i < N_SUMS; i++)
            if (strcmp(sums[i].table, sources[t]) == 0)
                add_insert(sql, sizeof sql, &sums[i], "NEW.", "", "");
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "END;\n");
        if (site_exec(s, sql, err, n))
            return -1;
    }
    return 0;
}

/* PostgreSQL: a statement trigger on each source table, run as the store's owner (ingest
 * may not write the totals), sums the statement's new rows; readers see their own totals
 * as they see their own rows. Running as the owner, it finds functions and operators in
 * pg_catalog alone (search_path pg_catalog, pg_temp: nothing a user created in a schema
 * can stand in for SUM) and names its table with its schema. */
static int pg_triggers(struct site_store *s, char *err, size_t n)
{
    char schema[256] = "";
    if (site_query_text(s, "SELECT quote_ident(current_schema()) || '.'", 0, NULL, schema,
                        sizeof schema, err, n))
        return -1;
    if (site_exec(
            s,
            "REVOKE ALL ON usage_totals FROM PUBLIC; GRANT SELECT ON usage_totals TO PUBLIC;\n"
            "ALTER TABLE usage_totals ENABLE ROW LEVEL SECURITY;\n"
            "DROP POLICY IF EXISTS mpilens_read ON usage_totals;\n"
            "CREATE POLICY mpilens_read ON usage_totals FOR SELECT USING (owner = "
            "current_user OR pg_has_role(current_user, 'mpilens_staff', 'MEMBER'));\n",
            err, n))
        return -1;
    for (size_t t = 0; t < N_SOURCES; t++) {
        char sql[8192];
        snprintf(sql, sizeof sql,
                 "CREATE OR REPLACE FUNCTION mpilens_totals_%1$s() RETURNS trigger LANGUAGE "
                 "plpgsql SECURITY DEFINER SET search_path = " SITE_DEFINER_PATH " AS $f$\nBEGIN\n",
                 sources[t]);
        for (size_t i = 0; i < N_SUMS; i++)
            if (strcmp(sums[i].table, sources[t]) == 0)
                add_insert(sql, sizeof sql, &sums[i], "", " FROM new_rows", schema);
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql),
                 "RETURN NULL;\nEND $f$;\n"
                 "REVOKE ALL ON FUNCTION mpilens_totals_%1$s() FROM PUBLIC;\n"
                 "DROP TRIGGER IF EXISTS mpilens_totals ON %1$s;\n"
                 "CREATE TRIGGER mpilens_totals AFTER INSERT ON %1$s REFERENCING NEW TABLE AS "
                 "new_rows FOR EACH STATEMENT EXECUTE FUNCTION mpilens_totals_%1$s();\n",
                 sources[t]);
        if (site_exec(s, sql, err, n))
            return -1;
    }
    return 0;
}

int site_totals_install(struct site_store *s, int refill, char *err, size_t n)
{
    if (site_is_pg(s) ? pg_triggers(s, err, n) : sqlite_triggers(s, err, n))
        return -1;
    if (!refill)
        return 0;
    if (site_exec(s, "DELETE FROM usage_totals", err, n))
        return -1;
    for (size_t i = 0; i < N_SUMS; i++) {
        char from[64], sql[4096] = "";
        snprintf(from, sizeof from, " FROM %s", sums[i].table);
        add_insert(sql, sizeof sql, &sums[i], "", from, "");
        if (site_exec(s, sql, err, n))
            return -1;
    }
    return 0;
}

int site_totals_answer(const struct site_filter *f)
{
    return !f->account && !f->app && f->since <= 0 && f->until <= 0;
}

void site_totals_from(const struct site_filter *f, const char *section, char *out, size_t n)
{
    snprintf(out, n, " FROM usage_totals WHERE section = '%s'%s", section,
             f->user ? " AND owner = $1" : "");
}
