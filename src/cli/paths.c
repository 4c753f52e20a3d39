/* SPDX-License-Identifier: BSD-3-Clause */
/* paths.c: locate the installation (or build tree) the running `mpilens` belongs to. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rundb.h"
#include "rundb_read.h"

const char *cli_libdir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return ".";
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../lib", exe);
    char real[PATH_MAX];
    if (realpath(dir, real))
        snprintf(dir, sizeof dir, "%s", real);
    return dir;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

int cli_fail(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpilens: %s%s", verb ? verb : "", verb ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int cli_help(int argc, char **argv, const char *usage)
{
    if (!cli_wants_help(argc, argv))
        return 0;
    fputs(usage, stdout);
    return 1;
}

int cli_need_input(int given, const char *verb)
{
    return given ? 0
                 : cli_fail(verb, "no database given; write mpilens %s RUN_DIR/mpilens.db", verb);
}

int cli_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cli_module_is(const char *name, const char *module)
{
    if (strcmp(name, module) == 0)
        return 1;
    const char *slash = strrchr(name, '/');
    size_t n = strlen(module);
    return slash && strncmp(slash + 1, module, n) == 0 && strcmp(slash + 1 + n, ".so") == 0;
}

/* 1 with OUT the metadata `Incomplete` of DB (how the ranks of an interrupted run ended,
 * include/mpilens_snapshot.h, or a write that failed), or 0 for a run that ended normally. */
static int incomplete_ending(sqlite3 *db, char *out, size_t len)
{
    return rundb_metadata_get(db, "Incomplete", out, len);
}

/* "; it holds: the profile (mpilens report PATH), ..." for what DB has, or "". */
static void what_it_holds(sqlite3 *db, const char *path, char *out, size_t len)
{
    static const struct {
        const char *table, *what, *verb;
    } kinds[] = {{"profile", "the profile", "mpilens report"},
                 {"callsites", "call sites", "mpilens report --callsites"},
                 {"monitor_matrix", "the communication matrix", "mpilens matrix"},
                 {"monitor_io", "MPI-IO traffic", "mpilens matrix --kind io"},
                 {"waits", "wait states", "mpilens report --waits"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (strcmp(kinds[i].table, "profile") == 0 ? !rundb_profile_has_rows(db)
                                                   : !rundb_table_has_rows(db, kinds[i].table))
            continue;
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s (%s %s)", at ? ", " : "; it holds ", kinds[i].what,
                 kinds[i].verb, path);
    }
}

int cli_run_has_trace(const char *arg, char *run, size_t n)
{
    snprintf(run, n, "%s", arg);
    if (!cli_is_directory(run)) {
        char *slash = strrchr(run, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(run, n, ".");
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/trace", run);
    return cli_is_directory(path);
}

/* The wait states of RUN, which has a trace, are still to come: the line that says how. */
static int not_analyzed(const char *verb, const char *run)
{
    fprintf(stderr,
            "mpilens: %s: %s has a trace but no wait-state analysis yet; run mpilens analyze %s\n",
            verb, run, run);
    return 2;
}

int cli_open_db(const char *arg, const char *verb, const char *table, const char *what,
                const char *module, sqlite3 **db, char *path, size_t pathlen)
{
    char err[1024], run[4096];
    snprintf(path, pathlen, "%s", arg);
    if (cli_is_directory(path))
        snprintf(path, pathlen, "%s/%s", arg, RUNDB_FILE);
    /* the wait states come from the trace through analyze: the advice is that command */
    int waits_to_come = strcmp(table, "waits") == 0 && cli_run_has_trace(arg, run, sizeof run);
    if (waits_to_come && access(path, F_OK) != 0)
        return not_analyzed(verb, run);
    if (rundb_open_read(path, db, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: %s: %s\n", verb, err);
        return 2;
    }
    if (waits_to_come && !rundb_has_table(*db, table)) {
        rundb_close(*db);
        *db = NULL;
        return not_analyzed(verb, run);
    }
    /* a profile table without rows (a run whose ranks recorded nothing) is no profile; one
     * reduced over ranks (profile_summary, the rows in shards) is */
    if (!rundb_has_table(*db, table) ||
        (strcmp(table, "profile") == 0 && !rundb_profile_has_rows(*db))) {
        char holds[512];
        what_it_holds(*db, path, holds, sizeof holds);
        fprintf(stderr,
                "mpilens: %s: %s has no %s; run with the %s module (mpilens run -m %s ...)%s\n",
                verb, path, what, module, module, holds);
        rundb_close(*db);
        *db = NULL;
        return 2;
    }
    /* a run that did not reach MPI_Finalize everywhere says so before anything else */
    char ending[4096];
    if (incomplete_ending(*db, ending, sizeof ending))
        fprintf(stderr,
                "mpilens: %s: incomplete run (the ranks' data end where they stopped): %s\n", path,
                ending);
    return 0;
}

int cli_incomplete_run(const char *run, char *ending, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", run, RUNDB_FILE);
    sqlite3 *db = NULL;
    char err[1024];
    if (access(path, R_OK) != 0 || rundb_open_read(path, &db, err, sizeof err) != 0)
        return 0;
    int found = incomplete_ending(db, ending, n);
    rundb_close(db);
    return found;
}

void cli_program_of(const char *command, char *out, size_t len)
{
    char first[1024];
    snprintf(first, sizeof first, "%s", command);
    first[strcspn(first, " \t")] = '\0';
    const char *slash = strrchr(first, '/');
    snprintf(out, len, "%s", slash ? slash + 1 : first);
}
