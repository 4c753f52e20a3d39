/* SPDX-License-Identifier: BSD-3-Clause */
/* tune.c: `mpilens tune RUN -- LAUNCHER...`: collective algorithms chosen for what the
 * application really calls (docs/tune.md).
 *
 * From the run's profile, the collectives that add up to --share of the collective time,
 * each with its communicator size and the bytes a rank sent per call. The benchmark
 * (src/tune/tune_bench.c) runs under the given launcher once with the library's own choice
 * (the default, whatever the line and the environment force) and once per algorithm the
 * library offers (Open MPI: coll_tuned_OP_algorithm, MPICH: MPIR_CVAR_OP_INTRA_ALGORITHM),
 * the heaviest case first, within --budget seconds. An algorithm is recommended for a case
 * only when its slowest block beats the default's fastest. RUN/tune/ receives the table
 * (tune.txt), the settings (settings.env, and for Open MPI its rules file rules.conf),
 * which `mpilens run --tune RUN/tune` applies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "rundb_read.h"
#include "tune.h"
#include "tune_rules.h"

#define MAX_CASES 16
#define MAX_ALGS 24

static const char usage[] =
    "usage: mpilens tune RUN [--budget SECONDS] [--share PERCENT] -- LAUNCHER...\n"
    "\n"
    "Benchmarks the collectives RUN's profile spends its time in, on their communicator\n"
    "sizes and message sizes, under every algorithm the MPI library offers (Open MPI's coll\n"
    "tuned, MPICH's MPIR_CVAR_*_INTRA_ALGORITHM), in one job under LAUNCHER, and writes the\n"
    "settings that beat the library's default into RUN/tune/ (docs/tune.md).\n"
    "\n"
    "  LAUNCHER...         the run's launcher line without the program (mpirun -np 8,\n"
    "                      srun -n 8 --mpi=pmix, mpiexec -n 8); the program is dropped if given\n"
    "  --budget SECONDS    time for the benchmark (default 180), the heaviest case first\n"
    "  --share PERCENT     tune the collectives making up this share of the collective time\n"
    "                      (default 90)\n"
    "  -h, --help          this text\n"
    "\n"
    "Then: mpilens run --tune RUN/tune -- LAUNCHER PROGRAM ... applies the settings.\n";

/* One collective case of the application, and what each algorithm took. */
struct tune_case {
    char op[48];
    int size;
    long bytes;
    double app_time; /* seconds the run spent in it (summed over ranks) */
    double med[MAX_ALGS + 1], lo[MAX_ALGS + 1], hi[MAX_ALGS + 1]; /* [0]: default; us */
    double q3[MAX_ALGS + 1]; /* the upper quartile of the blocks, us */
    int measured[MAX_ALGS + 1], failed[MAX_ALGS + 1];
    int best; /* index into the op's algorithms + 1, 0: the default */
};

struct tune_alg {
    char op[48], value[64], name[64];
};

struct tune {
    enum tune_mpi mpi;
    struct tune_case cases[MAX_CASES];
    int ncases;
    struct tune_alg algs[256];
    int nalgs;
    char bench[4200];
    char **launcher;
    int nlauncher;
};

static const char *const tunable[] = {"Allreduce", "Alltoall",  "Bcast",
                                      "Reduce",    "Allgather", "Barrier"};

static int is_tunable(const char *op)
{
    for (size_t i = 0; i < sizeof tunable / sizeof *tunable; i++)
        if (strcmp(op, tunable[i]) == 0)
            return 1;
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const struct tune_case *x = a, *y = b;
    return x->app_time < y->app_time ? 1 : x->app_time > y->app_time ? -1 : 0;
}

/* The cases: tunable collectives by time, until SHARE of all collective time. */
static int read_cases(sqlite3 *db, struct tune *t, double share, char *skipped, size_t len)
{
    struct rundb_profile_filter f = {.kind = "coll", .rank = -1, .bucket = -1};
    struct rundb_profile_cell *cells;
    int n;
    if (rundb_profile_cells(db, &f, &cells, &n) != 0)
        return -1;
    double total = 0;
    struct tune_case all[256];
    int nall = 0;
    skipped[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (rundb_startup_op(cells[i].op))
            continue;
        total += cells[i].total_time;
        if (!is_tunable(cells[i].op) || cells[i].calls <= 0 || nall == 256) {
            if (!strstr(skipped, cells[i].op)) {
                size_t at = strlen(skipped);
                snprintf(skipped + at, len - at, "%s%s", at ? ", " : "", cells[i].op);
            }
            continue;
        }
        struct tune_case *c = &all[nall++];
        memset(c, 0, sizeof *c);
        snprintf(c->op, sizeof c->op, "%s", cells[i].op);
        c->size = cells[i].comm_size;
        /* calls of a collective are counted once per call of the communicator: the volume
         * of one rank's call (Alltoall, Allgather: count x type size, as mpisee counts) */
        c->bytes = cells[i].volume / (cells[i].calls * (c->size > 0 ? c->size : 1));
        c->app_time = cells[i].total_time;
    }
    free(cells);
    qsort(all, nall, sizeof *all, by_time);
    double sum = 0;
    for (int i = 0; i < nall && t->ncases < MAX_CASES && (sum < share / 100 * total || !i); i++) {
        int same = 0; /* the same (op, size, bytes) on several communicators: once */
        for (int k = 0; k < t->ncases; k++)
            if (strcmp(t->cases[k].op, all[i].op) == 0 && t->cases[k].size == all[i].size &&
                t->cases[k].bytes == all[i].bytes) {
                t->cases[k].app_time += all[i].app_time;
                same = 1;
            }
        if (!same)
            t->cases[t->ncases++] = all[i];
        sum += all[i].app_time;
    }
    return 0;
}

/* Runs ARGV with ENV_ADD ("NAME=VALUE", N of them) added; its standard output into *OUT
 * (malloc'ed). The exit status, or -1 when it could not start. */
static int capture(char **argv, char **env_add, int n, char **out)
{
    int fds[2];
    *out = NULL;
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        for (int i = 0; i < n; i++)
            putenv(env_add[i]);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    ssize_t got;
    while (buf && (got = read(fds[0], buf + used, cap - used - 1)) > 0) {
        used += (size_t)got;
        if (cap - used < 2) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                break;
            buf = grown;
        }
    }
    close(fds[0]);
    if (buf)
        buf[used] = '\0';
    *out = buf;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The launcher line, then the benchmark and ARGS (NARGS), NULL-ended (malloc'ed). */
static char **job_line(const struct tune *t, char **args, int nargs)
{
    char **line = calloc((size_t)(t->nlauncher + nargs + 2), sizeof *line);
    int k = 0;
    for (int i = 0; i < t->nlauncher; i++)
        line[k++] = t->launcher[i];
    line[k++] = (char *)t->bench;
    for (int i = 0; i < nargs; i++)
        line[k++] = args[i];
    return line;
}

/* Algorithm K (1-based) of OP, or NULL. */
static const struct tune_alg *nth(const struct tune *t, const char *op, int k)
{
    for (int i = 0; i < t->nalgs; i++)
        if (strcmp(t->algs[i].op, op) == 0 && --k == 0)
            return &t->algs[i];
    return NULL;
}

/* The index (1-based) of OP's algorithm of VALUE, 0 for VALUE 0 (as the job started). */
static int index_of(const struct tune *t, const char *op, const char *value)
{
    if (strcmp(value, "0") == 0)
        return 0;
    for (int k = 1; k <= MAX_ALGS; k++) {
        const struct tune_alg *a = nth(t, op, k);
        if (!a)
            break;
        if (strcmp(a->value, value) == 0)
            return k;
    }
    return -1;
}

/* The benchmark, once, every algorithm of every case inside it (tune_bench.c): the
 * library's lines and results into T. Its exit status. */
static int run_bench(struct tune *t, double seconds)
{
    char seconds_text[32], *args[2 + MAX_CASES], specs[MAX_CASES][96];
    snprintf(seconds_text, sizeof seconds_text, "%.1f", seconds);
    args[0] = "run";
    args[1] = seconds_text;
    for (int i = 0; i < t->ncases; i++) {
        snprintf(specs[i], sizeof specs[i], "%s:%d:%ld", t->cases[i].op, t->cases[i].size,
                 t->cases[i].bytes);
        args[2 + i] = specs[i];
    }
    char **line = job_line(t, args, 2 + t->ncases), *out;
    /* Open MPI applies a forced algorithm only with its dynamic rules on: on for the
     * benchmark (without a forced algorithm or a rules file it decides as by default) */
    char dynamic[] = "OMPI_MCA_coll_tuned_use_dynamic_rules=1", removed[512];
    const char *strip[] = {"OMPI_MCA_coll_tuned_use_dynamic_rules"};
    char *env[] = {dynamic};
    int nenv = t->mpi == TUNE_OPEN_MPI;
    if (nenv)
        tune_strip(line, strip, 1, removed, sizeof removed);
    int rc = capture(line, env, nenv, &out);
    free(line);
    for (char *l = out ? strtok(out, "\n") : NULL; l; l = strtok(NULL, "\n")) {
        char op[48], value[64];
        int size, blocks;
        long bytes;
        double med, lo, hi, q3 = -1;
        struct tune_alg *a = &t->algs[t->nalgs];
        if (t->nalgs < 256 &&
            sscanf(l, "algorithm %47s %63s %63s", a->op, a->value, a->name) == 3) {
            t->nalgs++;
            continue;
        }
        int failed = sscanf(l, "failed %47s %d %ld %63s", op, &size, &bytes, value) == 4;
        if (!failed && sscanf(l, "time %47s %d %ld %63s %lf %lf %lf %d %lf", op, &size, &bytes,
                              value, &med, &lo, &hi, &blocks, &q3) < 8)
            continue;
        int k = index_of(t, op, value);
        for (int i = 0; k >= 0 && i < t->ncases; i++) {
            struct tune_case *c = &t->cases[i];
            if (strcmp(c->op, op) != 0 || c->size != size || c->bytes != bytes)
                continue;
            c->failed[k] = failed;
            c->measured[k] = !failed;
            c->med[k] = failed ? 0 : med;
            c->lo[k] = failed ? 0 : lo;
            c->hi[k] = failed ? 0 : hi;
            c->q3[k] = failed ? 0 : q3 >= 0 ? q3 : hi;
        }
    }
    free(out);
    return rc;
}

/* An algorithm beats the default when three quarters of its blocks are faster than the
 * default's fastest (its upper quartile below the default's minimum: two slow blocks of
 * nine, a stall of a busy machine, do not hide a real gain; an algorithm no faster than the
 * default passes about once in 900 comparisons); the fastest such by median. */
static void choose(struct tune *t)
{
    for (int i = 0; i < t->ncases; i++) {
        struct tune_case *c = &t->cases[i];
        c->best = 0;
        for (int k = 1; k <= MAX_ALGS && c->measured[0]; k++)
            if (c->measured[k] && c->q3[k] < c->lo[0] &&
                (c->best == 0 || c->med[k] < c->med[c->best]))
                c->best = k;
    }
}

static void print_table(const struct tune *t, FILE *out)
{
    for (int i = 0; i < t->ncases; i++) {
        const struct tune_case *c = &t->cases[i];
        fprintf(out, "\n%s on %d ranks, %ld bytes a call (%.3f s of the run)\n", c->op, c->size,
                c->bytes, c->app_time);
        fprintf(out, "  %-28s %12s %12s %12s\n", "ALGORITHM", "MEDIAN us", "MIN us", "MAX us");
        for (int k = 0; k <= MAX_ALGS; k++) {
            const struct tune_alg *a = k ? nth(t, c->op, k) : NULL;
            if (k && !a)
                break;
            char label[96];
            snprintf(label, sizeof label, "%s%s", k ? a->name : "default (as the run)",
                     k && k == c->best ? " *" : "");
            if (c->failed[k])
                fprintf(out, "  %-28s %12s\n", label, "refused");
            else if (c->measured[k])
                fprintf(out, "  %-28s %12.1f %12.1f %12.1f\n", label, c->med[k], c->lo[k],
                        c->hi[k]);
            else
                fprintf(out, "  %-28s %12s\n", label, "not measured");
        }
        if (c->best)
            fprintf(out, "  -> %s: %.2fx faster than the default\n", nth(t, c->op, c->best)->name,
                    c->med[0] / c->med[c->best]);
        else
            fprintf(out, "  -> the default is already best (no algorithm beats it beyond the "
                         "spread)\n");
    }
}

/* RUN/tune/: tune.txt (the table), settings.env and, for Open MPI, rules.conf. */
static int write_settings(const struct tune *t, const char *dir, int *changed)
{
    char path[4400], rules_path[4400];
    *changed = 0;
    snprintf(path, sizeof path, "%s/tune.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    print_table(t, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/settings.env", dir);
    FILE *env = fopen(path, "w");
    if (!env)
        return -1;
    fprintf(env,
            "# mpilens tune: the collective algorithms that beat the library's default on\n"
            "# this run's cases (tune.txt); `mpilens run --tune %s` applies them\n",
            dir);
    if (t->mpi == TUNE_OPEN_MPI) {
        struct tune_rule rules[MAX_CASES];
        int n = 0;
        for (int i = 0; i < t->ncases; i++) {
            const struct tune_case *c = &t->cases[i];
            rules[n] = (struct tune_rule){.size = c->size,
                                          .msg = tune_ompi_msg(c->op, c->bytes, c->size),
                                          .alg = c->best ? atoi(nth(t, c->op, c->best)->value) : 0};
            snprintf(rules[n].op, sizeof rules[n].op, "%s", c->op);
            *changed += c->best != 0;
            n++;
        }
        snprintf(rules_path, sizeof rules_path, "%s/rules.conf", dir);
        FILE *r = fopen(rules_path, "w");
        if (!r || tune_write_ompi_rules(rules, n, r) != 0) {
            if (r)
                fclose(r);
            fclose(env);
            return -1;
        }
        fclose(r);
        if (*changed) {
            char real[4096];
            fprintf(env,
                    "OMPI_MCA_coll_tuned_use_dynamic_rules=1\n"
                    "OMPI_MCA_coll_tuned_dynamic_rules_filename=%s\n",
                    realpath(rules_path, real) ? real : rules_path);
            /* a forced algorithm wins over the rules file: none is forced */
            for (int i = 0; i < t->ncases; i++) {
                char name[128];
                tune_variable(t->mpi, t->cases[i].op, name, sizeof name);
                int before = 0;
                for (int k = 0; k < i; k++)
                    before |= strcmp(t->cases[k].op, t->cases[i].op) == 0;
                if (!before)
                    fprintf(env, "%s=0\n", name);
            }
        }
    } else { /* MPICH: one algorithm per collective, the one of its heaviest case */
        for (int i = 0; i < t->ncases; i++) {
            const struct tune_case *c = &t->cases[i];
            int before = 0;
            for (int k = 0; k < i; k++)
                before |= strcmp(t->cases[k].op, c->op) == 0;
            if (before || !c->best)
                continue;
            char name[128];
            tune_variable(t->mpi, c->op, name, sizeof name);
            fprintf(env, "%s=%s\n", name, nth(t, c->op, c->best)->name);
            (*changed)++;
        }
    }
    return fclose(env) == 0 ? 0 : -1;
}

/* The launcher line: ARGV without the program (the run's, from its metadata) and after. */
static int launcher_of(sqlite3 *db, char **argv, int argc)
{
    char command[8192] = "", program[4096] = "";
    rundb_metadata_get(db, "Run command", command, sizeof command);
    sscanf(command, "%4095s", program);
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    for (int i = 1; i < argc; i++) {
        const char *b = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        if (program[0] && (strcmp(argv[i], program) == 0 || strcmp(b, base) == 0))
            return i;
    }
    return argc;
}

int cli_tune(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    const char *run = NULL;
    double budget = 180, share = 90;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = atof(argv[++i]);
        else if (strcmp(argv[i], "--share") == 0 && i + 1 < argc)
            share = atof(argv[++i]);
        else if (argv[i][0] == '-')
            return cli_fail("tune", "unknown option '%s'%s (mpilens tune --help)", argv[i],
                            cli_option_hint(argv[i], usage));
        else if (!run)
            run = argv[i];
        else
            return cli_fail("tune", "more than one run given ('%s'); give one", argv[i]);
    }
    if (!run)
        return cli_fail("tune", "give the run directory: mpilens tune RUN -- LAUNCHER...");
    if (i + 1 >= argc)
        return cli_fail("tune",
                        "give the launcher line after --: mpilens tune %s -- mpirun -np "
                        "8",
                        run);
    if (budget <= 0 || share <= 0 || share > 100)
        return cli_fail("tune", "--budget must be positive and --share in (0, 100]");
    char path[4096];
    sqlite3 *db;
    int rc = cli_open_db(run, "tune", "profile", "profile", "profile", &db, path, sizeof path);
    if (rc)
        return rc;
    struct tune *t = calloc(1, sizeof *t);
    char library[512] = "", skipped[512];
    rundb_metadata_get(db, "MPI Library", library, sizeof library);
    if (strstr(library, "Open MPI"))
        t->mpi = TUNE_OPEN_MPI;
    else if (strstr(library, "MPICH"))
        t->mpi = TUNE_MPICH;
    else {
        rundb_close(db);
        free(t);
        return cli_fail("tune",
                        "%s: the run's MPI (%s) has no algorithm settings mpilens tune "
                        "knows; it tunes Open MPI (coll tuned) and MPICH "
                        "(MPIR_CVAR_*_INTRA_ALGORITHM)",
                        path, library[0] ? library : "unknown");
    }
    if (read_cases(db, t, share, skipped, sizeof skipped) != 0 || t->ncases == 0) {
        rundb_close(db);
        free(t);
        return cli_fail("tune", "%s: no collective this tool can tune in the profile%s%s", path,
                        skipped[0] ? " (only " : "", skipped[0] ? skipped : "");
    }
    t->launcher = argv + i + 1;
    t->nlauncher = launcher_of(db, argv + i, argc - i) - 1;
    rundb_close(db);
    snprintf(t->bench, sizeof t->bench, "%s/mpilens/tune_bench", cli_libdir());
    if (skipped[0])
        fprintf(stderr,
                "mpilens: tune: not tuned: %s (blocking Allreduce, Alltoall, Bcast, "
                "Reduce, Allgather and Barrier are)\n",
                skipped);
    fprintf(stderr,
            "mpilens: tune: %d case%s, every algorithm in one job under %s ... "
            "(--budget %.0f s)\n",
            t->ncases, t->ncases > 1 ? "s" : "", argv[i + 1], budget);
    int status = run_bench(t, budget);
    if (status != 0 || !t->cases[0].measured[0]) {
        free(t);
        return cli_fail("tune",
                        "the benchmark under the launcher line did not run (exit status "
                        "%d); check that `%s ... PROGRAM` runs an MPI program",
                        status, argv[i + 1]);
    }
    choose(t);
    print_table(t, stdout);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/tune", cli_is_directory(run) ? run : ".");
    int changed = 0;
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || write_settings(t, dir, &changed) != 0) {
        free(t);
        return cli_fail("tune",
                        "%s: cannot write the settings (%s); choose a writable run "
                        "directory",
                        dir, strerror(errno));
    }
    if (changed)
        printf("\nmpilens: tune: %d case%s faster; settings in %s; rerun with:\n  mpilens run "
               "--tune %s -- %s ... PROGRAM\n",
               changed, changed > 1 ? "s" : "", dir, dir, argv[i + 1]);
    else
        printf("\nmpilens: tune: the library's default is already best for every case (table "
               "in %s/tune.txt)\n",
               dir);
    free(t);
    return 0;
}
