/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_cli.c: `mpilens scaling RUN RUN...`: the POP scaling table of runs of one program at
 * different rank counts (pop_scaling.h), read from each run's profile (pop_run.h), or from
 * its summary.json (docs/summary.md, read by src/record) when it has no profile or
 * --summary says so: the record the site store keeps, so that a site's table and one of
 * the same runs' directories agree. Runs of different programs are refused, naming them,
 * unless --force. main.c hands the verb over;
 * `mpilens run --ranks` (src/cli/run_sweep.c) shows its sweep through pop_scaling_runs.
 */
#include "pop_cli.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pop_run.h"
#include "pop_scaling.h"
#include "rundb.h"
#include "rundb_read.h"
#include "summary_record.h"

static const char usage[] =
    "usage: mpilens scaling RUN RUN... [--weak] [--ref RUN] [--force] [--summary]\n"
    "                       [--csv | --json] [--html FILE]\n"
    "\n"
    "The POP scaling table of runs of one program at different rank counts (each run with\n"
    "the profile or the summary module): one column per rank count, rows speedup, global\n"
    "efficiency, parallel efficiency, load balance, communication efficiency,\n"
    "serialization and transfer (runs traced and analyzed), computation scalability. Read\n"
    "it top to bottom: each efficiency is the product of those under it\n"
    "(docs/efficiency.md).\n"
    "\n"
    "options:\n"
    "  --weak       weak scaling: each rank's useful time compared (default: strong, the\n"
    "               total useful time)\n"
    "  --ref RUN    the reference column (default: the run with the fewest ranks)\n"
    "  --force      compare runs of different programs\n"
    "  --summary    read each run's summary.json (the summary module: -m summary), as the\n"
    "               site store does, even where it has a profile (without a profile, always)\n"
    "  --csv        rows metric,ranks,value (names as report --efficiency --csv)\n"
    "  --json       one object: the columns with every metric\n"
    "  --html FILE  a page: the efficiencies against ranks, the table, each run's page linked\n"
    "  -h, --help   this text\n"
    "\n"
    "The sweep itself: mpilens run --ranks 1,2,4,8 -m profile -- mpirun -np {} ./app\n"
    "From the site store: mpilens site scaling APP --store STORE\n";

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "mpilens: scaling: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 2;
}

/* What ran: the run command's program, and a Python interpreter's script after it. */
static void program_of(sqlite3 *db, char *out, size_t n)
{
    char line[4096];
    out[0] = 0;
    if (!rundb_metadata_get(db, "Run command", line, sizeof line))
        return;
    char *save, *program = strtok_r(line, " ", &save);
    if (!program)
        return;
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    char *script = strncmp(base, "python", 6) == 0 ? strtok_r(NULL, " ", &save) : NULL;
    snprintf(out, n, "%s%s%s", program, script ? " " : "", script ? script : "");
}

/* The column of a run's summary.json (PATH); 0, or 2 with the reason said. */
static int read_summary(const char *path, struct pop_point *p, char *program, size_t n)
{
    static char text[SUMMARY_RECORD_MAX_BYTES + 1];
    struct summary_record *rec = malloc(sizeof *rec);
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    int bad = !f || ferror(f) || len == sizeof text - 1;
    if (f)
        fclose(f);
    char why[512] = "cannot be read";
    if (!rec || bad || summary_record_read(text, len, rec, why, sizeof why) != 0 ||
        rec->parallel_efficiency < 0 || rec->run_seconds <= 0) {
        free(rec);
        return fail("%s: %s; give a run with the profile or a whole summary.json", path,
                    bad ? "cannot be read" : why);
    }
    p->ranks = (int)rec->ranks;
    p->run = rec->run_seconds;
    p->load_balance = rec->load_balance;
    p->communication = rec->comm_efficiency;
    p->parallel = rec->parallel_efficiency;
    p->sum_useful = rec->parallel_efficiency * rec->run_seconds * (double)rec->ranks;
    p->serialization = p->transfer = -1;
    snprintf(program, n, "%s%s%s", rec->program, rec->python_script[0] ? " " : "",
             rec->python_script);
    free(rec);
    return 0;
}

/* One run's column from DIR (or DIR/mpilens.db): its profile, or its summary.json when it
 * has none or SUMMARY; 0, or 2 with the reason said. */
static int read_run(const char *arg, int summary, struct pop_point *p, char *program, size_t n)
{
    char path[PATH_MAX + 16], dir[PATH_MAX], err[1024], record[PATH_MAX + 16];
    struct stat st;
    snprintf(dir, sizeof dir, "%s", arg);
    if (stat(arg, &st) != 0)
        return fail("%s: no such run (give a run's directory)%s", arg, "");
    if (S_ISDIR(st.st_mode)) {
        snprintf(path, sizeof path, "%s/%s", arg, RUNDB_FILE);
    } else {
        snprintf(path, sizeof path, "%s", arg);
        char *slash = strrchr(dir, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - dir) : 1, slash ? arg : ".");
    }
    snprintf(record, sizeof record, "%s/summary.json", dir);
    memset(p, 0, sizeof *p);
    sqlite3 *db = NULL;
    struct pop_factors f;
    int profiled = !summary && access(path, F_OK) == 0;
    if (profiled && rundb_open_read(path, &db, err, sizeof err) != 0)
        return fail("%s%s", err, "");
    if (profiled && (!rundb_profile_has_rows(db) || pop_run_factors(db, &f) != 0)) {
        rundb_close(db);
        profiled = 0;
    }
    if (!profiled) {
        if (access(record, F_OK) != 0)
            return fail("%s has no profile and no summary.json; run with the profile module "
                        "(mpilens run -m profile ...)%s",
                        arg, "");
        if (read_summary(record, p, program, n) != 0)
            return 2;
    } else {
        program_of(db, program, n);
        rundb_close(db);
        pop_point_of_run(p, &f);
    }
    p->parallel_low = p->parallel_high = p->parallel; /* a run is its own spread */
    snprintf(p->source, sizeof p->source, "%s", arg);
    char page[PATH_MAX + 16], absolute[PATH_MAX];
    snprintf(page, sizeof page, "%s/report.html", dir);
    if (access(page, R_OK) == 0 && realpath(page, absolute))
        snprintf(p->page, sizeof p->page, "%s", absolute);
    return 0;
}

/* The program's name as runs compare it: its file name (the run command may name it by a
 * relative path, the record by its absolute one), and a Python interpreter's script. */
static const char *base_name(const char *program)
{
    const char *space = strchr(program, ' ');
    const char *slash = program;
    for (const char *c = program; *c && (!space || c < space); c++)
        if (*c == '/')
            slash = c + 1;
    return slash;
}

int pop_scaling_runs(char **runs, int n, const struct pop_scaling_options *o, FILE *out)
{
    struct pop_point *points = calloc((size_t)(n > 0 ? n : 1), sizeof *points);
    char(*programs)[1024] = calloc((size_t)(n > 0 ? n : 1), sizeof *programs);
    int rc = 0, ref_ranks = 0;
    if (!points || !programs)
        rc = fail("out of memory%s%s", "", "");
    for (int i = 0; i < n && rc == 0; i++)
        rc = read_run(runs[i], o->summary, &points[i], programs[i], sizeof programs[i]);
    for (int i = 1; i < n && rc == 0 && !o->force; i++)
        if (strcmp(base_name(programs[i]), base_name(programs[0])) != 0) {
            fprintf(stderr,
                    "mpilens: scaling: the runs are of different programs: %s (%s), %s (%s); "
                    "give runs of one program, or --force\n",
                    runs[0], programs[0][0] ? programs[0] : "unknown", runs[i],
                    programs[i][0] ? programs[i] : "unknown");
            rc = 2;
        }
    if (rc == 0 && o->ref) {
        struct pop_point ref;
        char program[1024];
        rc = read_run(o->ref, o->summary, &ref, program, sizeof program);
        ref_ranks = ref.ranks;
    }
    struct pop_table t;
    char err[1200];
    if (rc == 0 && pop_scaling_table(points, n, ref_ranks, o->weak, &t, err, sizeof err) != 0)
        rc = fail("%s%s", err, "");
    if (rc == 0) {
        snprintf(t.program, sizeof t.program, "%s", programs[0][0] ? programs[0] : "the runs");
        if (o->csv)
            pop_print_csv(&t, out);
        else if (o->json)
            pop_print_json(&t, out);
        else
            pop_print_text(&t, out);
        if (o->html) {
            if (pop_write_page(&t, o->html) != 0) {
                perror("mpilens: scaling: the page");
                fprintf(stderr,
                        "mpilens: scaling: %s: cannot write the page; choose a "
                        "writable place\n",
                        o->html);
                rc = 2;
            } else {
                fprintf(stderr, "mpilens: scaling: the page: %s (open it in a browser)\n", o->html);
            }
        }
        pop_scaling_free(&t);
    }
    free(points);
    free(programs);
    return rc;
}

int cli_scaling(int argc, char **argv)
{
    static const struct option longs[] = {
        {"weak", 0, 0, 'w'}, {"ref", 1, 0, 'r'},     {"force", 0, 0, 'f'},
        {"csv", 0, 0, 'c'},  {"json", 0, 0, 'j'},    {"html", 1, 0, 'H'},
        {"help", 0, 0, 'h'}, {"summary", 0, 0, 's'}, {0, 0, 0, 0}};
    struct pop_scaling_options o = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'w':
            o.weak = 1;
            break;
        case 'r':
            o.ref = optarg;
            break;
        case 'f':
            o.force = 1;
            break;
        case 's':
            o.summary = 1;
            break;
        case 'c':
            o.csv = 1;
            break;
        case 'j':
            o.json = 1;
            break;
        case 'H':
            o.html = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            return fail("unknown or incomplete option '%s'%s; see mpilens scaling --help",
                        argv[optind - 1], "");
        }
    }
    if (o.csv && o.json)
        return fail("give --csv or --json, not both%s%s", "", "");
    if (optind >= argc)
        return fail("no runs given%s%s; write mpilens scaling RUN_1 RUN_2 ... (runs of one "
                    "program at different rank counts)",
                    "", "");
    return pop_scaling_runs(argv + optind, argc - optind, &o, stdout);
}
