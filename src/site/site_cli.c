/* SPDX-License-Identifier: BSD-3-Clause */
/* site_cli.c: `mpilens site VERB`: the site store's command (docs/site.md): init makes
 * the store, ingest brings a spool's records in, jobs, apps and usage answer the site's
 * questions as a table, CSV or JSON. Which store and which rows a question read is said on
 * stderr, so that the output itself stays clean for scripts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "site_ingest.h"
#include "site_page.h"
#include "site_query.h"
#include "site_scaling.h"
#include "site_schema.h"
#include "site_store.h"

int cli_site(int argc, char **argv);

static const char usage[] =
    "usage: mpilens site VERB [--store STORE] [options]\n"
    "\n"
    "One store for a site's jobs: the summary.json records that every job leaves (the Slurm\n"
    "plugin's spool, docs/slurm.md) brought together, and the site's questions answered.\n"
    "STORE is a SQLite file (the default kind, nothing to install) or a PostgreSQL URI,\n"
    "postgresql:///DB?host=SOCKETDIR for a Unix socket; default $MPILENS_SITE_STORE.\n"
    "\n"
    "verbs:\n"
    "  init     make the store: tables, and on PostgreSQL roles and row policies\n"
    "  ingest   store a spool's records: mpilens site ingest SPOOL --store STORE\n"
    "  jobs     the jobs, by MPI core-hours (or --sort efficiency|length|start)\n"
    "  apps     per application: jobs, core-hours, MPI share, median and worst efficiency\n"
    "  usage    the site's MPI usage: operations, kinds, message and communicator sizes\n"
    "  trend    one application's efficiency and MPI share over time: mpilens site trend APP\n"
    "  scaling  one application's POP scaling table by rank count: mpilens site scaling APP\n"
    "  page     all of the above on one page with charts: mpilens site page --html FILE\n"
    "\n"
    "mpilens site VERB --help: the verb's options. docs/site.md: how a site runs it.\n";

static const char init_usage[] =
    "usage: mpilens site init --store STORE [--staff ROLE]... [--ingester ROLE]...\n"
    "\n"
    "Makes the store's tables (idempotent; run once by the store's owner). On PostgreSQL\n"
    "also: the role mpilens_ingest, which may only insert rows and give a user stored for\n"
    "the first time a login role; the role mpilens_staff, which reads every user's jobs;\n"
    "row-level security, so that every other role reads only its own jobs (a user who\n"
    "connects as themselves over the Unix socket, by peer authentication).\n"
    "\n"
    "options:\n"
    "  --store STORE    the store (a SQLite file, made mode 0640; or postgresql://...)\n"
    "  --staff ROLE     a login role (made if missing) that reads every user's jobs\n"
    "  --ingester ROLE  the login role that runs ingest (default: root on PostgreSQL)\n"
    "  -h, --help       this text\n";

static const char ingest_usage[] =
    "usage: mpilens site ingest SPOOL --store STORE [--batch N] [--rejected DIR]\n"
    "                           [--keep-rejected DAYS]\n"
    "\n"
    "Stores every record of SPOOL (files named *.json: summary.json records, whatever their\n"
    "names) in the store, once however often it runs. A record leaves the spool (deleted)\n"
    "only after its transaction commits. A malformed, oversized (over 64 KiB), forged (the\n"
    "user it names does not own the file) or out-of-range record, and one the store\n"
    "refuses, moves to the ingest's own directory (SPOOL/rejected/, made and checked by\n"
    "ingest: no other user may write it) with NAME.reason beside it; one of a newer version\n"
    "than this mpilens reads is held in its newer/ until an mpilens that reads it runs. A\n"
    "spool or directory a user could turn against ingest (a link, another owner, a spool\n"
    "writable by all but not sticky) is refused with the fix. A store that cannot be\n"
    "reached moves nothing and exits 1. The last line accounts for every entry of SPOOL.\n"
    "\n"
    "options:\n"
    "  --store STORE         the store (mpilens site init made it)\n"
    "  --batch N             records per transaction (default 500)\n"
    "  --rejected DIR        the ingest's own directory (default SPOOL/rejected)\n"
    "  --keep-rejected DAYS  rejected records are removed after DAYS days (default 30;\n"
    "                        0: kept)\n"
    "  -h, --help            this text\n";

static const char query_usage[] =
    "usage: mpilens site %s --store STORE [--user U] [--account A] [--app APP]\n"
    "                 [--since DATE] [--until DATE]%s [--limit N] [--csv|--json]\n"
    "\n"
    "%s"
    "\n"
    "On PostgreSQL a user reads their own jobs only, staff every user's; on SQLite the\n"
    "file's permissions decide. The store and the jobs read are said on stderr.\n"
    "\n"
    "options:\n"
    "  --store STORE  the store (default $MPILENS_SITE_STORE)\n"
    "  --user U, --account A, --app APP: only those jobs (APP: the program's name, or the\n"
    "                 Python script's)\n"
    "  --since DATE, --until DATE: jobs started in [since, until) (YYYY-MM-DD, or\n"
    "                 YYYY-MM-DDTHH:MM:SS, UTC; or seconds since the epoch)\n"
    "%s"
    "  --limit N      at most N rows (default 20 in the table, all in CSV and JSON)\n"
    "  --csv          CSV with a header row\n"
    "  --json         JSON\n"
    "  -h, --help     this text\n";

struct options {
    const char *store, *staff[16], *ingesters[16], *html, *rejected;
    int n_staff, n_ingesters, batch, format, limit_given, weak, ref_ranks, keep_days;
    long limit;
    enum site_job_order order;
    enum site_period by;
    struct site_filter filter;
};

static int fail(const char *verb, const char *msg)
{
    fprintf(stderr, "mpilens: site%s%s: %s\n", verb ? " " : "", verb ? verb : "", msg);
    return 2;
}

/* DATE as epoch seconds (UTC), or -1. */
static double parse_date(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (*end == 0 && end != text && v > 100000)
        return v;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest || *rest) {
        memset(&tm, 0, sizeof tm);
        rest = strptime(text, "%Y-%m-%d", &tm);
        if (!rest || *rest)
            return -1;
    }
    return (double)timegm(&tm);
}

static int parse(const char *verb, int argc, char **argv, struct options *o, const char **spool)
{
    static const struct option longs[] = {
        {"store", 1, 0, 's'},    {"staff", 1, 0, 'S'},         {"ingester", 1, 0, 'I'},
        {"batch", 1, 0, 'b'},    {"user", 1, 0, 'u'},          {"account", 1, 0, 'a'},
        {"app", 1, 0, 'p'},      {"since", 1, 0, 'f'},         {"until", 1, 0, 't'},
        {"sort", 1, 0, 'o'},     {"limit", 1, 0, 'l'},         {"csv", 0, 0, 'c'},
        {"json", 0, 0, 'j'},     {"help", 0, 0, 'h'},          {"by", 1, 0, 'B'},
        {"html", 1, 0, 'H'},     {"weak", 0, 0, 'w'},          {"ref", 1, 0, 'r'},
        {"rejected", 1, 0, 'R'}, {"keep-rejected", 1, 0, 'K'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->store = getenv("MPILENS_SITE_STORE");
    o->batch = 500;
    o->keep_days = 30;
    o->limit = 20;
    o->by = SITE_BY_WEEK;
    optind = 1;
    opterr = 0;
    int c;
    char msg[600];
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 's':
            o->store = optarg;
            break;
        case 'S':
            if (o->n_staff < 16)
                o->staff[o->n_staff++] = optarg;
            break;
        case 'I':
            if (o->n_ingesters < 16)
                o->ingesters[o->n_ingesters++] = optarg;
            break;
        case 'b':
            if ((o->batch = atoi(optarg)) < 1)
                return fail(verb, "--batch takes a number of records, at least 1");
            break;
        case 'R':
            o->rejected = optarg;
            break;
        case 'K': {
            char *end;
            long days = strtol(optarg, &end, 10);
            if (*end || end == optarg || days < 0 || days > 100000)
                return fail(verb, "--keep-rejected takes a number of days (0: kept)");
            o->keep_days = (int)days;
            break;
        }
        case 'u':
            o->filter.user = optarg;
            break;
        case 'a':
            o->filter.account = optarg;
            break;
        case 'p':
            o->filter.app = optarg;
            break;
        case 'f':
        case 't': {
            double at = parse_date(optarg);
            if (at < 0) {
                snprintf(msg, sizeof msg,
                         "--%s %s: give YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or epoch seconds",
                         c == 'f' ? "since" : "until", optarg);
                return fail(verb, msg);
            }
            *(c == 'f' ? &o->filter.since : &o->filter.until) = at;
            break;
        }
        case 'o':
            if (strcmp(optarg, "mpi-core-hours") == 0)
                o->order = SITE_BY_MPI_CORE_HOURS;
            else if (strcmp(optarg, "efficiency") == 0)
                o->order = SITE_BY_EFFICIENCY;
            else if (strcmp(optarg, "length") == 0)
                o->order = SITE_BY_LENGTH;
            else if (strcmp(optarg, "start") == 0)
                o->order = SITE_BY_START;
            else {
                snprintf(msg, sizeof msg,
                         "--sort %s: give mpi-core-hours, efficiency, length or start", optarg);
                return fail(verb, msg);
            }
            break;
        case 'l':
            o->limit = atol(optarg);
            o->limit_given = 1;
            if (o->limit < 0)
                return fail(verb, "--limit takes a number of rows");
            break;
        case 'B':
            if (strcmp(optarg, "day") == 0)
                o->by = SITE_BY_DAY;
            else if (strcmp(optarg, "week") == 0)
                o->by = SITE_BY_WEEK;
            else if (strcmp(optarg, "month") == 0)
                o->by = SITE_BY_MONTH;
            else {
                snprintf(msg, sizeof msg, "--by %s: give day, week or month", optarg);
                return fail(verb, msg);
            }
            break;
        case 'H':
            o->html = optarg;
            break;
        case 'w':
            o->weak = 1;
            break;
        case 'r':
            if ((o->ref_ranks = atoi(optarg)) < 1)
                return fail(verb, "--ref takes the reference's rank count (a number of ranks)");
            break;
        case 'c':
            o->format = SITE_CSV;
            break;
        case 'j':
            o->format = SITE_JSON;
            break;
        default:
            snprintf(msg, sizeof msg, "unknown option '%s'; mpilens site %s --help lists them",
                     argv[optind - 1], verb);
            return fail(verb, msg);
        }
    }
    if (spool) {
        if (optind >= argc)
            return fail(verb,
                        strcmp(verb, "trend") == 0
                            ? "no application given; write mpilens site trend APP --store STORE"
                        : strcmp(verb, "scaling") == 0
                            ? "no application given; write mpilens site scaling APP --store STORE"
                            : "no spool given; write mpilens site ingest SPOOL --store STORE");
        *spool = argv[optind++];
    }
    if (optind < argc) {
        snprintf(msg, sizeof msg, "unexpected argument '%s'", argv[optind]);
        return fail(verb, msg);
    }
    if (!o->store || !*o->store)
        return fail(verb, "no store given; add --store FILE (SQLite) or --store "
                          "postgresql:///DB?host=SOCKETDIR, or set MPILENS_SITE_STORE");
    if (o->format != SITE_TEXT && !o->limit_given)
        o->limit = 0;
    return 0;
}

static int first_cell(void *arg, int ncol, const char *const *values)
{
    snprintf(arg, 16, "%s", ncol > 0 && values[0] ? values[0] : "");
    return 1;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

static int do_init(int argc, char **argv)
{
    struct options o;
    int rc = parse("init", argc, argv, &o, NULL);
    if (rc)
        return rc;
    char err[1024];
    struct site_store *s = NULL;
    if (site_open(o.store, SITE_CREATE, &s, err, sizeof err))
        return fprintf(stderr, "mpilens: site init: %s\n", err), 1;
    if (site_is_pg(s) && !o.n_ingesters)
        o.ingesters[o.n_ingesters++] = "root";
    rc = site_schema_init(s, o.ingesters, o.n_ingesters, o.staff, o.n_staff, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mpilens: site init: %s: %s\n", site_name(s), err);
        site_close(s);
        return 1;
    }
    if (site_is_pg(s)) {
        char roles[512] = "";
        for (int i = 0; i < o.n_staff; i++)
            snprintf(roles + strlen(roles), sizeof roles - strlen(roles), ", %s", o.staff[i]);
        fprintf(stderr,
                "mpilens: site init: %s ready (PostgreSQL): ingest as %s; staff (%s) read every "
                "user's jobs, every other role its own\n",
                site_name(s), o.ingesters[0], o.n_staff ? roles + 2 : "none yet");
    } else {
        fprintf(stderr,
                "mpilens: site init: %s ready (SQLite: its file permissions decide who "
                "reads it)\n",
                site_name(s));
    }
    site_close(s);
    return 0;
}

static int do_ingest(int argc, char **argv)
{
    struct options o;
    const char *spool;
    int rc = parse("ingest", argc, argv, &o, &spool);
    if (rc)
        return rc;
    char err[1024];
    struct site_store *s = NULL;
    if (site_open(o.store, SITE_WRITE, &s, err, sizeof err) ||
        site_schema_check(s, err, sizeof err)) {
        fprintf(stderr, "mpilens: site ingest: %s; nothing moved\n", err);
        if (s)
            site_close(s);
        return 1;
    }
    struct site_ingest_counts c;
    struct site_ingest_options io = {o.batch, o.rejected, o.keep_days};
    rc = site_ingest(s, spool, &io, &c, err, sizeof err);
    if (rc == -2) {
        fprintf(stderr, "mpilens: site ingest: %s; nothing moved\n", err);
        site_close(s);
        return 1;
    }
    if (rc)
        fprintf(stderr, "mpilens: site ingest: %s: %s; the records not stored stay in %s\n",
                site_name(s), err, spool);
    if (c.expired)
        fprintf(stderr,
                "mpilens: site ingest: %ld rejected files older than %d days removed from %s\n",
                c.expired, o.keep_days, c.rejected_path);
    if (c.waiting)
        fprintf(stderr,
                "mpilens: site ingest: %ld records of a newer version than this mpilens reads wait "
                "in %s/newer/ (update mpilens)\n",
                c.waiting, c.rejected_path);
    const char *rejected = !c.rejected ? "" : o.rejected ? " (--rejected)" : " (SPOOL/rejected/)";
    const char *left = c.left ? " (said above)" : "";
    fprintf(stderr,
            "mpilens: site ingest: %ld entries: %ld stored, %ld already there, %ld rejected%s, %ld "
            "held (newer version), %ld left%s, %ld not records, %ld gone; into %s\n",
            c.entries, c.stored, c.already, c.rejected, rejected, c.held, c.left, left,
            c.not_records, c.gone, site_name(s));
    site_close(s);
    return rc || c.left || c.unsafe ? 1 : 0;
}

static const char page_usage[] =
    "usage: mpilens site page --html FILE --store STORE [--user U] [--account A] [--app APP]\n"
    "                 [--since DATE] [--until DATE]\n"
    "\n"
    "One self-contained page (no other file) of the site's questions: the applications and\n"
    "the 50 jobs with the most MPI core-hours as tables sorted by a click, the usage as bar\n"
    "charts, the five largest applications' weekly trends over the last 26 weeks of the\n"
    "jobs as lines with their judged changes. Open it in a browser.\n"
    "\n"
    "options:\n"
    "  --html FILE    where the page goes\n"
    "  --store STORE  the store (default $MPILENS_SITE_STORE)\n"
    "  --user U, --account A, --app APP, --since DATE, --until DATE: as mpilens site jobs\n"
    "  -h, --help     this text\n";

static int do_page(int argc, char **argv)
{
    struct options o;
    int rc = parse("page", argc, argv, &o, NULL);
    if (rc)
        return rc;
    if (!o.html)
        return fail("page", "no page given; write mpilens site page --html FILE --store STORE");
    char err[1024];
    struct site_store *s = NULL;
    if (site_open(o.store, SITE_READ, &s, err, sizeof err) ||
        site_schema_check(s, err, sizeof err) ||
        site_page_write(s, &o.filter, o.html, err, sizeof err)) {
        fprintf(stderr, "mpilens: site page: %s\n", err);
        if (s)
            site_close(s);
        return 1;
    }
    fprintf(stderr, "mpilens: site page: %s (from %s)\n", o.html, site_name(s));
    site_close(s);
    return 0;
}

static const char scaling_usage[] =
    "usage: mpilens site scaling APP --store STORE [--weak] [--ref RANKS] [--user U]\n"
    "                 [--account A] [--since DATE] [--until DATE] [--csv|--json] [--html FILE]\n"
    "\n"
    "APP's POP scaling table (as mpilens scaling draws one of runs: docs/efficiency.md): its\n"
    "jobs that reached MPI_Finalize, grouped by rank count, each column the median of its\n"
    "group, with the number of jobs and the lowest and highest parallel efficiency.\n"
    "Serialization and transfer are not in the records (they need a traced run).\n"
    "\n"
    "options:\n"
    "  --store STORE  the store (default $MPILENS_SITE_STORE)\n"
    "  --weak         weak scaling: useful time per rank compared (default: strong)\n"
    "  --ref RANKS    the reference column's rank count (default: the fewest)\n"
    "  --user U, --account A, --since DATE, --until DATE: as mpilens site jobs\n"
    "  --csv          rows metric,ranks,value\n"
    "  --json         one object\n"
    "  --html FILE    a page: the efficiencies against ranks and the table\n"
    "  -h, --help     this text\n";

static int do_scaling(int argc, char **argv)
{
    struct options o;
    const char *app = NULL;
    int rc = parse("scaling", argc, argv, &o, &app);
    if (rc)
        return rc;
    o.filter.app = app;
    char err[1024];
    struct site_store *s = NULL;
    if (site_open(o.store, SITE_READ, &s, err, sizeof err) ||
        site_schema_check(s, err, sizeof err)) {
        fprintf(stderr, "mpilens: site scaling: %s\n", err);
        if (s)
            site_close(s);
        return 1;
    }
    struct pop_point *points = NULL;
    int n = 0;
    long read = 0;
    struct pop_table t;
    rc = site_scaling_points(s, &o.filter, &points, &n, &read, err, sizeof err);
    if (rc == 0 && n == 0) {
        snprintf(err, sizeof err,
                 "no finished job of %s in the store (mpilens site apps lists "
                 "the applications)",
                 app);
        rc = -1;
    }
    if (rc == 0)
        rc = pop_scaling_table(points, n, o.ref_ranks, o.weak, &t, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mpilens: site scaling: %s: %s\n", site_name(s), err);
        free(points);
        site_close(s);
        return 1;
    }
    snprintf(t.program, sizeof t.program, "%s (site store)", app);
    if (o.format == SITE_CSV)
        pop_print_csv(&t, stdout);
    else if (o.format == SITE_JSON)
        pop_print_json(&t, stdout);
    else
        pop_print_text(&t, stdout);
    if (o.html && pop_write_page(&t, o.html) != 0) {
        fprintf(stderr,
                "mpilens: site scaling: %s: cannot write the page (%s); choose a "
                "writable place\n",
                o.html, strerror(errno));
        rc = 1;
    }
    fprintf(stderr, "mpilens: site scaling: %ld jobs of %s in %d rank counts read from %s%s%s\n",
            read, app, n, site_name(s), o.html && !rc ? "; the page: " : "",
            o.html && !rc ? o.html : "");
    pop_scaling_free(&t);
    free(points);
    site_close(s);
    return rc;
}

static int do_query(const char *verb, int argc, char **argv)
{
    struct options o;
    const char *app = NULL;
    int trend = strcmp(verb, "trend") == 0;
    int rc = parse(verb, argc, argv, &o, trend ? &app : NULL);
    if (rc)
        return rc;
    if (trend)
        o.filter.app = app;
    char err[1024];
    struct site_store *s = NULL;
    if (site_open(o.store, SITE_READ, &s, err, sizeof err) ||
        site_schema_check(s, err, sizeof err)) {
        fprintf(stderr, "mpilens: site %s: %s\n", verb, err);
        if (s)
            site_close(s);
        return 1;
    }
    struct site_table t;
    long read = 0;
    if (strcmp(verb, "jobs") == 0)
        rc = site_query_jobs(s, &o.filter, o.order, o.limit, &t, &read, err, sizeof err);
    else if (strcmp(verb, "apps") == 0)
        rc = site_query_apps(s, &o.filter, o.limit, &t, &read, err, sizeof err);
    else if (trend)
        rc = site_query_trend(s, &o.filter, o.by, &t, &read, err, sizeof err);
    else
        rc = site_query_usage(s, &o.filter, &t, &read, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mpilens: site %s: %s: %s\n", verb, site_name(s), err);
        site_close(s);
        return 1;
    }
    site_table_print(&t, o.format, stdout);
    if (o.format == SITE_JSON)
        putchar('\n');
    char who[256] = "SQLite: every job the file holds";
    if (site_is_pg(s)) {
        char all[16] = "";
        site_query(s,
                   "SELECT CASE WHEN pg_has_role(current_user, 'mpilens_staff', 'MEMBER') OR "
                   "EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR "
                   "rolbypassrls)) OR EXISTS (SELECT 1 FROM pg_tables WHERE tablename = 'jobs' "
                   "AND tableowner = current_user) THEN 'all' ELSE 'own' END",
                   0, NULL, first_cell, all, err, sizeof err);
        snprintf(who, sizeof who, "PostgreSQL as %s: %s", site_role(s),
                 strcmp(all, "all") == 0 ? "every user's jobs" : "their own jobs only");
    }
    fprintf(stderr, "mpilens: site %s: %ld jobs read from %s (%s)%s\n", verb, read, site_name(s),
            who,
            o.format == SITE_TEXT && o.limit && t.nrows == o.limit ? "; --limit N for more" : "");
    site_table_free(&t);
    site_close(s);
    return 0;
}

int cli_site(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *verb = argv[1];
    if (strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    int help = wants_help(argc - 1, argv + 1);
    if (strcmp(verb, "init") == 0)
        return help ? (fputs(init_usage, stdout), 0) : do_init(argc - 1, argv + 1);
    if (strcmp(verb, "ingest") == 0)
        return help ? (fputs(ingest_usage, stdout), 0) : do_ingest(argc - 1, argv + 1);
    if (strcmp(verb, "page") == 0)
        return help ? (fputs(page_usage, stdout), 0) : do_page(argc - 1, argv + 1);
    if (strcmp(verb, "scaling") == 0)
        return help ? (fputs(scaling_usage, stdout), 0) : do_scaling(argc - 1, argv + 1);
    static const char *const texts[][3] = {
        {"jobs",
         "The jobs, by MPI core-hours (the time in MPI summed over ranks), largest first:\n"
         "job, step, user, application, ranks, nodes, start, length, core-hours (ranks x\n"
         "length), MPI core-hours, MPI share, parallel efficiency, how the job ended.\n",
         "  --sort KEY     mpi-core-hours (default), efficiency (lowest first), length, start\n"
         "                 (newest first)\n"},
        {"apps",
         "Per application, by core-hours: its jobs, core-hours, MPI core-hours and their\n"
         "share, the median and the worst parallel efficiency, and its worst job.\n",
         ""},
        {"usage",
         "The site's MPI usage: operations by share of MPI core-hours; point-to-point,\n"
         "collectives, one-sided and file I/O; the point-to-point message sizes;\n"
         "communicator sizes (of each job's five costliest operation and communicator\n"
         "pairs); ranks and nodes per job. Rows: section, item, value, share.\n",
         ""},
        {"trend",
         "APP's parallel efficiency and MPI share over time, per period: its jobs, the\n"
         "median, lowest and highest efficiency, the median MPI share, and each judged\n"
         "against the period before as mpilens diff judges runs (docs/diff.md): changed\n"
         "beyond the run-to-run noise (by how much), within it, or not judged (one job).\n",
         "  --by PERIOD    day, week (default; from Monday) or month, UTC\n"}};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (strcmp(verb, texts[i][0]) == 0) {
            if (help) {
                printf(query_usage, i == 3 ? "trend APP" : verb,
                       i == 0   ? " [--sort KEY]"
                       : i == 3 ? " [--by PERIOD]"
                                : "",
                       texts[i][1], texts[i][2]);
                return 0;
            }
            return do_query(verb, argc - 1, argv + 1);
        }
    fprintf(stderr, "mpilens: site: unknown verb '%s'; mpilens site --help lists them\n", verb);
    return 2;
}
