/* SPDX-License-Identifier: BSD-3-Clause */
/* run_sweep.c: `mpilens run --ranks 1,2,4,8 ... -- mpirun -np {} ./app`: the same run at each
 * rank count, `{}` in the launcher line replaced by it, each into DIR/ranks-N (DIR: -o, or
 * PROGRAM-scaling-DATE as a run's default is named), a progress line before each; then the scaling
 * table of those that ran (src/pop) and its page, DIR/scaling.html. Each run is `mpilens run`
 * itself, started again with the same options, so a run in the sweep is a run like any other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "modspec.h"
#include "pop_cli.h"

#define MAX_COUNTS 64

static int fail(const char *what, const char *value)
{
    fprintf(stderr, "mpilens: run --ranks: %s%s\n", what, value);
    return 2;
}

/* LIST ("1,2,4,8") into COUNTS; their number, or -1. */
static int parse_counts(const char *list, int *counts)
{
    int n = 0;
    const char *at = list;
    while (*at) {
        char *end;
        long v = strtol(at, &end, 10);
        if (end == at || v < 1 || v > 1 << 24 || (*end && *end != ',') || n == MAX_COUNTS)
            return -1;
        for (int i = 0; i < n; i++)
            if (counts[i] == v)
                return -1;
        counts[n++] = (int)v;
        at = *end ? end + 1 : end;
    }
    return n;
}

/* WORD with every {} replaced by N (malloc'ed). */
static char *with_count(const char *word, int n)
{
    char number[16];
    snprintf(number, sizeof number, "%d", n);
    size_t len = strlen(word) + 1;
    for (const char *p = strstr(word, "{}"); p; p = strstr(p + 2, "{}"))
        len += strlen(number);
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    for (const char *p = word; *p;)
        if (p[0] == '{' && p[1] == '}') {
            o = stpcpy(o, number);
            p += 2;
        } else {
            *o++ = *p++;
        }
    *o = 0;
    return out;
}

/* 1 when the module list MODULES (as -m and MPILENS_MODULES write it, read by the core's
 * own parser) names the profile, by name or as a path to profile.so. */
static int lists_profile(const char *modules)
{
    struct lens_modlist list;
    char err[LENS_ERR_LEN];
    if (!modules || lens_modlist_parse_env(modules, &list, err) != 0)
        return 0;
    int found = 0;
    for (int i = 0; i < list.count && !found; i++)
        found = cli_module_is(list.items[i].name, "profile");
    lens_modlist_free(&list);
    return found;
}

/* Runs `mpilens run OPTIONS -o DIR -- LINE` with {} as COUNT; its exit status (128+signal). */
static int run_one(char **options, int noptions, char **line, const char *dir, int count)
{
    int nline = 0;
    while (line[nline])
        nline++;
    char **argv = calloc((size_t)(noptions + nline + 6), sizeof *argv);
    if (!argv)
        return 2;
    int a = 0;
    static char name[] = "mpilens", verb[] = "run", dash_o[] = "-o", dashes[] = "--";
    argv[a++] = name;
    argv[a++] = verb;
    for (int i = 0; i < noptions; i++)
        argv[a++] = options[i];
    argv[a++] = dash_o;
    argv[a++] = (char *)dir;
    argv[a++] = dashes;
    for (int i = 0; i < nline; i++)
        if (!(argv[a++] = with_count(line[i], count)))
            return 2;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    for (int i = noptions + 5; i < a; i++)
        free(argv[i]);
    free(argv);
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 2;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cli_run_sweep(int argc, char **argv)
{
    const char *list = NULL, *base = NULL, *modules = NULL;
    char **options = calloc((size_t)argc, sizeof *options);
    int noptions = 0, i = 1, counts[MAX_COUNTS], configured = 0;
    if (!options)
        return 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        int value = i + 1 < argc;
        if (strcmp(argv[i], "--ranks") == 0 && value)
            list = argv[++i];
        else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && value)
            base = argv[++i];
        else {
            if ((strcmp(argv[i], "-m") == 0 || strcmp(argv[i], "--modules") == 0) && value)
                modules = argv[i + 1];
            if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0 ||
                strcmp(argv[i], "--live") == 0)
                configured = 1;
            options[noptions++] = argv[i];
        }
    }
    char **line = i < argc ? argv + i + 1 : NULL;
    int n = list ? parse_counts(list, counts) : -1;
    if (n < 1)
        return fail("give distinct rank counts, comma-separated: --ranks 1,2,4,8", "");
    if (!line || !line[0])
        return fail("no command to run; write mpilens run --ranks 1,2,4 -- mpirun -np {} ./app",
                    "");
    int placeholder = 0;
    for (int k = 0; line[k]; k++)
        placeholder |= strstr(line[k], "{}") != NULL;
    if (!placeholder)
        return fail("the launcher line has no {} for the rank count; write it where the count "
                    "goes: mpirun -np {} ./app",
                    "");
    if (configured)
        return fail("-c and --live are not for a sweep; give the modules with -m", "");
    if (!modules && !getenv("MPILENS_MODULES")) {
        static char dash_m[] = "-m", profile[] = "profile";
        options[noptions++] = dash_m;
        options[noptions++] = profile;
    } else if (modules ? !lists_profile(modules) : !lists_profile(getenv("MPILENS_MODULES"))) {
        return fail("the scaling table needs the profile module; add it: -m profile,",
                    modules ? modules : getenv("MPILENS_MODULES"));
    }
    char dir[PATH_MAX];
    if (base) {
        snprintf(dir, sizeof dir, "%s", base);
    } else { /* as a run's default (run_name.c): PROGRAM-scaling[-jobID]-DATE */
        char program[PATH_MAX];
        snprintf(program, sizeof program, "%s-scaling", cli_program_name(line));
        lens_run_name(program, dir, sizeof dir);
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return fail("cannot create the sweep's directory: ", dir);
    char(*runs)[PATH_MAX + 32] = calloc((size_t)n, sizeof *runs);
    char **ran = calloc((size_t)n, sizeof *ran);
    if (!runs || !ran)
        return 2;
    int done = 0, status = 0;
    for (int k = 0; k < n; k++) {
        snprintf(runs[k], sizeof runs[k], "%s/ranks-%d", dir, counts[k]);
        fprintf(stderr, "mpilens: run --ranks: run %d of %d, %d rank%s, into %s\n", k + 1, n,
                counts[k], counts[k] == 1 ? "" : "s", runs[k]);
        int rc = run_one(options, noptions, line, runs[k], counts[k]);
        if (rc == 0) {
            ran[done++] = runs[k];
            continue;
        }
        fprintf(stderr, "mpilens: run --ranks: the run on %d ranks ended with status %d%s\n",
                counts[k], rc, rc == 3 ? " (incomplete: left out of the table)" : "");
        if (!status)
            status = rc;
        if (rc > 128 || rc == 2) /* stopped by a signal, or refused: the rest would be too */
            break;
    }
    if (done > 0) {
        char page[PATH_MAX + 32];
        snprintf(page, sizeof page, "%s/scaling.html", dir);
        struct pop_scaling_options o = {.html = page};
        int rc = pop_scaling_runs(ran, done, &o, stdout);
        if (rc && !status)
            status = rc;
        fprintf(stderr,
                "mpilens: run --ranks: %d of %d runs in %s; the table again: mpilens "
                "scaling %s/ranks-*\n",
                done, n, dir, dir);
    }
    free(runs);
    free(ran);
    free(options);
    return status;
}
