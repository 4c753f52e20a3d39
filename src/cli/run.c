/* SPDX-License-Identifier: BSD-3-Clause */
/* run.c: `mpilens run`: start an MPI job with modules stacked, then say where the
 * results went (run_job.c starts it and stops it with mpilens run).
 *
 * The module list is checked here first (every name must resolve to a .so), so a typo
 * never starts a job. The job gets LD_PRELOAD=libmpilens.so and the MPILENS_* variables;
 * for Open MPI's mpirun, `-x` flags forward them to remote nodes as well. With
 * --ompi-monitoring, Open MPI's own pml monitoring runs too (external and internal tags
 * apart, PREFIX.RANK.prof files in DIR/ompi-monitoring/) and its matrix is imported into
 * the run database after the job (ompi_import.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mpilens.h>
#include "cli.h"
#include "tune.h"
#include "modspec.h"
#include "ompi_import.h"
#include "size_buckets.h"
#include "run_claim.h"
#include "page.h"
#include "run_job.h"
#include "summary_of_run.h"
#include "rundb.h"

static const char usage[] =
    "usage: mpilens run [-m MODULES] [-c CONFIG] [-o DIR] -- LAUNCHER ARGS...\n"
    "\n"
    "Runs an unmodified, dynamically linked MPI program with modules stacked in order.\n"
    "\n"
    "  -m, --modules LIST  name1,name2:key=value,...  (a name or a path to a .so)\n"
    "                      (a value's commas stay where a digit follows:\n"
    "                      -m profile:buckets=128,1024,trace)\n"
    "                      profile:buckets=B1,B2,...  message-size bucket bounds (bytes)\n"
    "                      profile:pcontrol=0, monitor:pcontrol=0  ignore MPI_Pcontrol's\n"
    "                      levels (default: mpiP's; docs/pcontrol.md)\n"
    "                      trace:buffer=SIZE  event buffers of each rank (default 4M)\n"
    "                      trace:convert=finalize  the ranks write OTF2 at MPI_Finalize\n"
    "                      (default: this command converts after the job, in\n"
    "                      MPILENS_CONVERT_JOBS processes, default one per processor)\n"
    "  -c, --config FILE   read `module NAME [key=value ...]` lines from FILE\n"
    "                      (without -m or -c: MPILENS_MODULES, MPILENS_CONF,\n"
    "                      ./.mpilens.conf, ~/.mpilens.conf)\n"
    "  -o, --output DIR    where results go; refused if it already holds results\n"
    "                      (default: ./PROGRAM-YYYYmmdd-HHMMSS, -2, -3... if taken;\n"
    "                      in a Slurm allocation ./PROGRAM-jobID-YYYYmmdd-HHMMSS)\n"
    "  --snapshot SECONDS  each rank saves what it recorded this often (default 60, 0: never),\n"
    "                      so a killed job still leaves its data (MPILENS_SNAPSHOT)\n"
    "  --live              watch the job as it runs (mpilens top beside it: snapshots every\n"
    "                      second unless --snapshot says otherwise; the job's output goes\n"
    "                      to DIR/job.log; q closes the view, the job goes on)\n"
    "  --tune DIR          apply the collective algorithms `mpilens tune` chose (DIR: RUN/tune)\n"
    "                      ahead of the environment, site files and the launcher line's own\n"
    "                      settings, saying which it overrode (docs/tune.md)\n"
    "  --ranks LIST        the same run at each rank count of LIST (1,2,4,8), {} in the\n"
    "                      launcher line replaced by it, into DIR/ranks-N; then the\n"
    "                      scaling table (mpilens scaling) and its page, DIR/scaling.html\n"
    "  --ompi-monitoring   also run Open MPI's own pml monitoring and import its matrix\n"
    "                      (`mpilens matrix DIR --kind lib_coll`: collectives as the\n"
    "                      library transported them; lib_p2p: the point-to-point it saw)\n"
    "  --no-record         no summary.json unless the modules make one (below)\n"
    "  -h, --help          this text\n"
    "\n"
    "DIR holds the modules' results (mpilens.db, trace/), its page (report.html)\n"
    "and its record, summary.json (docs/summary.md): made from the profile after the\n"
    "job, or the summary module's. A run with neither module (-m monitor, -m trace)\n"
    "gets the summary module as its last layer, as under the Slurm plugin (about 15 ns\n"
    "a message; --no-record leaves it out).\n"
    "\n"
    "Exit status: the application's when it failed; otherwise 0, or 3 when its results\n"
    "are incomplete (a write failed, for example a full disk, or a rank did not reach\n"
    "MPI_Finalize: the last line says why; `mpilens recover DIR` finishes once there is\n"
    "room); 2 when mpilens refused to start the job (nothing was run).\n"
    "\n"
    "examples: mpilens run -m monitor -- mpirun -np 4 ./app\n"
    "          mpilens run --ranks 1,2,4,8 -m profile -- mpirun -np {} ./app\n"
    "          mpilens run -m profile -- srun -n 64 --mpi=pmix ./app  (Slurm: docs/slurm.md;\n"
    "          in a batch script `exec mpilens run ...`, so a time limit keeps the data)\n";

struct run_options {
    const char *modules;
    const char *config;
    const char *output;
    const char *tune;
    int ompi_monitoring, live, no_record;
    char **command;
    char with_record[4096]; /* the modules and the summary, for MPILENS_MODULES; "" if as given */
};

#define fail(...) cli_fail(NULL, __VA_ARGS__)

static int parse_options(int argc, char **argv, struct run_options *opt)
{
    int i = 1, snapshot_given = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if ((strcmp(a, "-m") == 0 || strcmp(a, "--modules") == 0) && has_value)
            opt->modules = argv[++i];
        else if ((strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0) && has_value)
            opt->config = argv[++i];
        else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && has_value)
            opt->output = argv[++i];
        else if (strcmp(a, "--ompi-monitoring") == 0)
            opt->ompi_monitoring = 1;
        else if (strcmp(a, "--tune") == 0 && has_value)
            opt->tune = argv[++i];
        else if (strcmp(a, "--live") == 0)
            opt->live = 1;
        else if (strcmp(a, "--no-record") == 0)
            opt->no_record = 1;
        else if (strcmp(a, "--snapshot") == 0 && has_value) {
            char *end;
            long seconds = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || seconds < 0 || seconds > 86400 * 365)
                return fail("run --snapshot '%s': give whole seconds (0: no periodic "
                            "snapshots)%s",
                            argv[i], "");
            setenv("MPILENS_SNAPSHOT", argv[i], 1);
            snapshot_given = 1;
        } else
            return fail("run: unknown or incomplete option '%s'%s; see `mpilens run --help`", a,
                        cli_option_hint(a, usage));
    }
    if (i >= argc)
        return fail(
            "run: no command to run%s%s; write mpilens run -m MODULES -- mpirun -np 4 ./app", "",
            "");
    opt->command = argv + i;
    if (opt->tune && tune_apply(opt->tune, opt->command) != 0)
        return 2;
    if (opt->live && !snapshot_given)
        setenv("MPILENS_SNAPSHOT", "1", 1);     /* the view's figures change as often as this */
    const char *env = getenv("MPILENS_OUTPUT"); /* as a preloaded run would use it */
    if (!opt->output && env && *env)
        opt->output = env;
    return 0;
}

static void default_output(char **command, char *out, size_t len)
{
    lens_run_name(cli_program_name(command), out, len);
}

/* The profile's bucket list (its buckets= argument, else MPILENS_BUCKETS), checked before
 * launch: a module that refuses it on every rank at start-up would race the launcher's
 * output forwarding for its message. 0, or -1 with ERR. */
static int check_profile_buckets(const struct lens_modspec *spec, const char *path, char *err)
{
    if (!cli_module_is(path, "profile"))
        return 0;
    const char *list = getenv("MPILENS_BUCKETS"), *from = "MPILENS_BUCKETS";
    for (int k = 0; k < spec->nargs; k++)
        if (strcmp(spec->keys[k], "buckets") == 0) {
            list = spec->values[k];
            from = "buckets";
        }
    int64_t bounds[LENS_MAX_BUCKETS];
    int count;
    char why[256];
    if (!list || !*list || lens_buckets_parse(list, bounds, &count, why, sizeof why) == 0)
        return 0;
    if (strcmp(from, "buckets") == 0)
        snprintf(err, LENS_ERR_LEN, "%s: module '%s': buckets='%s': %s",
                 spec->line ? spec->origin : "-m", spec->name, list, why);
    else
        snprintf(err, LENS_ERR_LEN, "MPILENS_BUCKETS='%s': %s", list, why);
    return -1;
}

/* The module's arguments against those it declares, and each value as the module judges it
 * (mpilens_module_check), before launch (the core checks them again in every rank, for runs
 * without the CLI). 0, or -1 with ERR. */
static int check_declared_arguments(const struct lens_modspec *spec, const char *path, char *err)
{
    if (spec->nargs == 0)
        return 0;
    void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    int rc = handle ? lens_modspec_check_arguments(
                          spec, lens_own_symbol(handle, "mpilens_module_arguments"), err)
                    : 0;
    mpilens_module_check_fn check =
        handle ? (mpilens_module_check_fn)lens_own_symbol(handle, "mpilens_module_check") : NULL;
    for (int k = 0; rc == 0 && check && k < spec->nargs; k++)
        rc = check(spec->keys[k], spec->values[k], err, LENS_ERR_LEN) != 0 ? -1 : 0;
    if (handle)
        dlclose(handle);
    return rc;
}

/* LIST written as MPILENS_MODULES, followed by the summary, into OUT; 0, or -1 when a value
 * would not read back the same (a comma or colon of its own) or OUT is too small. */
static int list_with_summary(const struct lens_modlist *list, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < list->count; i++) {
        const struct lens_modspec *spec = &list->items[i];
        at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%s", spec->name);
        for (int k = 0; k < spec->nargs; k++)
            at += (size_t)snprintf(out + at, at < len ? len - at : 0, ":%s=%s", spec->keys[k],
                                   spec->values[k]);
        at += (size_t)snprintf(out + at, at < len ? len - at : 0, ",");
    }
    at += (size_t)snprintf(out + at, at < len ? len - at : 0, "summary");
    if (at >= len)
        return -1;
    struct lens_modlist back;
    char err[LENS_ERR_LEN];
    if (lens_modlist_parse_env(out, &back, err) != 0)
        return -1;
    int same = back.count == list->count + 1;
    for (int i = 0; same && i < list->count; i++) {
        const struct lens_modspec *a = &list->items[i], *b = &back.items[i];
        same = strcmp(a->name, b->name) == 0 && a->nargs == b->nargs;
        for (int k = 0; same && k < a->nargs; k++)
            same = strcmp(a->keys[k], b->keys[k]) == 0 && strcmp(a->values[k], b->values[k]) == 0;
    }
    lens_modlist_free(&back);
    return same ? 0 : -1;
}

/* Every run that measures leaves its record (docs/summary.md): the profile's, made after
 * the job, or the summary module's. A list with the monitor or the trace and neither of
 * those gets the summary, last (the innermost layer, so the modules asked for keep the
 * application's view), as the Slurm plugin does. Third-party tools stacked alone keep
 * their stack as written (the core as a tool stacker adds nothing of its own). A list
 * that cannot be written as MPILENS_MODULES keeps its own way and the run has no record,
 * said in one line. */
static void add_record_module(const struct lens_modlist *list, struct run_options *opt, char *err)
{
    opt->with_record[0] = '\0';
    int measures = 0;
    for (int i = 0; i < list->count; i++) {
        const char *name = list->items[i].name;
        if (cli_module_is(name, "profile") || cli_module_is(name, "summary"))
            return;
        measures |= cli_module_is(name, "monitor") || cli_module_is(name, "trace");
    }
    if (opt->no_record || !measures)
        return;
    char path[PATH_MAX];
    struct lens_modspec summary = {.name = "summary"};
    if (lens_module_find(&summary, cli_libdir(), path, sizeof path, err) != 0)
        fprintf(stderr, "mpilens: this run leaves no summary.json: %s\n", err);
    else if (list_with_summary(list, opt->with_record, sizeof opt->with_record) != 0) {
        opt->with_record[0] = '\0';
        fprintf(stderr,
                "mpilens: this run leaves no summary.json: the modules of %s cannot be "
                "extended; add the summary module to them for one (docs/summary.md)\n",
                list->source);
    }
}

static int check_modules(struct run_options *opt)
{
    struct lens_modlist list;
    char err[LENS_ERR_LEN], path[PATH_MAX];
    int rc;
    if (opt->modules && !*opt->modules)
        return fail("run -m: empty module list%s%s; name at least one module (`mpilens modules` "
                    "lists them)",
                    "", "");
    if (opt->modules)
        rc = lens_modlist_parse_env(opt->modules, &list, err);
    else if (opt->config)
        rc = lens_modlist_parse_file(opt->config, &list, err);
    else
        rc = lens_modlist_configured(&list, err);
    if (rc != 0)
        return fail("%s%s", opt->modules ? "-m: " : "", err);
    for (int i = 0; i < list.count && rc == 0; i++)
        if (lens_module_find(&list.items[i], cli_libdir(), path, sizeof path, err) != 0)
            rc = fail("%s%s", opt->modules ? "-m: " : "", err);
        else if (lens_elf_problem(path, err, LENS_ERR_LEN))
            rc = fail("%s%s", opt->modules ? "-m: " : "", err);
        else if (check_profile_buckets(&list.items[i], path, err) != 0 ||
                 check_declared_arguments(&list.items[i], path, err) != 0)
            rc = fail("%s%s", "", err);
    if (rc == 0 && list.count == 0)
        fprintf(stderr, "mpilens: no module named (-m, -c or a config file): the program runs "
                        "under the bare core\n");
    if (rc == 0)
        add_record_module(&list, opt, err);
    lens_modlist_free(&list);
    return rc;
}

/* Creates OUT (PROGRAM-DATE-TIME) or, when a run started in the same second made it,
 * OUT-2, OUT-3, ...: two runs never share the default directory. 0, or -1 with errno. */
static int new_default_directory(char *out, size_t len)
{
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s", out);
    for (int n = 1; n < 10000; n++) {
        if (n > 1)
            snprintf(out, len, "%s-%d", base, n);
        if (mkdir(out, 0777) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* 1 if PATH holds nothing but the claim file (run_claim.h). */
static int directory_is_empty(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return 1;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(dir)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                strcmp(e->d_name, LENS_CLAIM_FILE) == 0;
    closedir(dir);
    return empty;
}

/* The problems the ranks recorded (run_claim.h): the first one, and how many. */
struct problems {
    char first[LENS_CLAIM_SLOT];
    int count;
};

/* Each problem not printed by its rank (the second of a kind; 3 at most) is said here. */
static void add_problem(const char *key, const char *text, int said, void *ctx)
{
    (void)key;
    struct problems *p = ctx;
    if (!p->count++)
        snprintf(p->first, sizeof p->first, "%s", text);
    if (!said && p->count <= 4)
        fprintf(stderr, "mpilens: %s\n", text);
}

/* When a write failed but the database can be written, it says that the run is incomplete
 * and why (metadata `Incomplete`, added to what is there). */
static void mark_incomplete(const char *output, const char *why)
{
    char path[PATH_MAX + 32], err[1024];
    snprintf(path, sizeof path, "%s/%s", output, RUNDB_FILE);
    if (access(path, F_OK) != 0)
        return;
    if (rundb_note_incomplete(path, why, err, sizeof err) != 0)
        fprintf(stderr, "mpilens: %s\n", err);
}

static int set_environment(const struct run_options *opt, const char *output)
{
    char core[PATH_MAX + 32], preload[2 * PATH_MAX];
    snprintf(core, sizeof core, "%s/libmpilens.so", cli_libdir());
    if (access(core, R_OK) != 0)
        return fail("run: %s is missing%s; rebuild or reinstall mpilens", core, "");
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", core, old && *old ? ":" : "", old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    if (opt->with_record[0]) {
        setenv("MPILENS_MODULES", opt->with_record, 1);
    } else if (opt->modules) {
        setenv("MPILENS_MODULES", opt->modules, 1);
    } else if (opt->config) {
        char conf[PATH_MAX];
        unsetenv("MPILENS_MODULES");
        setenv("MPILENS_CONF", realpath(opt->config, conf) ? conf : opt->config, 1);
    }
    setenv("MPILENS_OUTPUT", output, 1);
    setenv("MPILENS_CLI", "1", 1);
    /* The trace's conversion to OTF2 after the job, by this process (several at once:
     * trc_recover.c), so the application pays for recording only; trace:convert=finalize
     * (the module's argument wins over this) or the variable set before keeps it in the ranks. */
    setenv("MPILENS_TRACE_CONVERT", "after", 0);
    char launcher[4096];
    cli_launcher_part(opt->command, launcher, sizeof launcher);
    if (launcher[0])
        setenv("MPILENS_LAUNCHER", launcher, 1);
    else
        unsetenv("MPILENS_LAUNCHER");
    return 0;
}

/* Open MPI's pml monitoring for this job: external and internal tags apart (2), its
 * .prof files written at MPI_Finalize (3) under DIR/ompi-monitoring/pml. */
static int ask_ompi_monitoring(const char *output, char *prefix, size_t len)
{
    snprintf(prefix, len, "%s/ompi-monitoring", output);
    if (lens_make_dirs(prefix) != 0)
        return fail("run --ompi-monitoring: cannot create %s (%s); choose a writable -o DIR",
                    prefix, strerror(errno));
    snprintf(prefix, len, "%s/ompi-monitoring/pml", output);
    setenv("OMPI_MCA_pml_monitoring_enable", "2", 1);
    setenv("OMPI_MCA_pml_monitoring_enable_output", "3", 1);
    setenv("OMPI_MCA_pml_monitoring_filename", prefix, 1);
    return 0;
}

/* The refusal of an -o directory that holds an earlier run's results; 2. */
static int refuse_used(const char *output)
{
    return fail("run -o %s: already holds results (of an earlier run?); give a new directory, "
                "or remove this one first",
                output);
}

/* `mpilens top OUTPUT` in a child of this command, on its terminal (--live); the child
 * lets go of the run's CLAIM (only this command holds it). */
static pid_t start_view(const char *output, int claim)
{
    fflush(NULL);
    pid_t view = fork();
    if (view == 0) {
        close(claim);
        char *argv[] = {"top", (char *)output, NULL};
        _exit(cli_top(2, argv));
    }
    return view;
}

int cli_run(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--ranks") == 0)
            return cli_run_sweep(argc, argv);
    struct run_options opt = {0};
    int rc = parse_options(argc, argv, &opt);
    if (rc == 0)
        rc = check_modules(&opt);
    if (rc == 0 && opt.ompi_monitoring && !cli_is_open_mpi_launcher(opt.command[0]))
        rc = fail("run --ompi-monitoring: '%s' is not Open MPI's mpirun%s; drop the option or "
                  "launch with Open MPI",
                  opt.command[0], "");
    if (rc != 0)
        return rc;
    char output[PATH_MAX], absolute[PATH_MAX];
    if (opt.output)
        snprintf(output, sizeof output, "%s", opt.output);
    else
        default_output(opt.command, output, sizeof output);
    struct stat st;
    if (opt.output && stat(output, &st) == 0 && !S_ISDIR(st.st_mode))
        return fail("run -o %s: not a directory (an existing file has that name); give a "
                    "directory, made if missing%s",
                    output, "");
    int existed = opt.output && access(output, F_OK) == 0;
    if (existed && !directory_is_empty(output))
        return refuse_used(output);
    if (opt.output ? lens_make_dirs(output) != 0
                   : new_default_directory(output, sizeof output) != 0)
        return fail("run -o %s: cannot create or write the output directory (%s); choose a "
                    "writable directory",
                    output, strerror(errno));
    if (realpath(output, absolute))
        snprintf(output, sizeof output, "%s", absolute);
    /* the claim: held until this command ends; a second run into DIR is refused here */
    int claim = -1;
    char holder[LENS_CLAIM_SLOT];
    int taken = lens_claim_take(output, &claim, holder, sizeof holder);
    if (taken < 0) {
        int why = errno;
        if (!existed)
            rmdir(output);
        return fail("run -o %s: cannot write in the output directory (%s); free space or "
                    "choose a writable directory",
                    output, strerror(why));
    }
    if (taken > 0)
        return fail("run -o %s: in use by %s; wait for it, or give another directory", output,
                    holder);
    if (existed && !directory_is_empty(output)) { /* a run that ended just before */
        close(claim);
        return refuse_used(output);
    }
    if ((rc = set_environment(&opt, output)) != 0)
        return rc;
    char ompi_prefix[PATH_MAX + 64] = "";
    if (opt.ompi_monitoring &&
        (rc = ask_ompi_monitoring(output, ompi_prefix, sizeof ompi_prefix)) != 0)
        return rc;
    char **command = cli_forwarding_command(opt.command);
    int signal_received = 0;
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s/job.log", output);
    pid_t view = opt.live ? start_view(output, claim) : 0;
    int code = run_job(command, opt.live ? log : NULL, &signal_received);
    free(command);
    if (signal_received && code == 0)
        code = 128 + signal_received;
    if (*ompi_prefix) {
        char err[1024];
        int rows = ompi_import(output, ompi_prefix, err, sizeof err);
        if (rows < 0)
            fprintf(stderr, "mpilens: run --ompi-monitoring: %s\n", err);
        else
            fprintf(stderr,
                    "mpilens: Open MPI's own monitoring: %d matrix rows imported (kinds "
                    "lib_p2p, lib_coll)\n",
                    rows);
    }
    char partial[PATH_MAX + 16], left[4096] = "";
    snprintf(partial, sizeof partial, "%s/partial", output);
    /* records left on other nodes (node-local DIR) first, else nothing is merged yet */
    int collected = cli_collect_after_job(output, opt.command, code, left, sizeof left);
    int recovered = collected >= 0 && access(partial, F_OK) == 0 ? cli_recover_run(output, NULL)
                    : collected < 0                              ? 1
                                                                 : 0;
    int first_step = 0, last_step = 0;
    int intermediate = cli_recover_intermediate(output, &first_step, &last_step);
    struct problems problems = {"", 0};
    lens_problems_read(output, add_problem, &problems);
    if (collected < 0 && !problems.count++)
        snprintf(problems.first, sizeof problems.first, "%s", left);
    if (recovered < 0 && !problems.count++)
        snprintf(problems.first, sizeof problems.first,
                 "what the ranks saved could not be merged (said above); it stays in %s for "
                 "`mpilens recover %s`",
                 partial, output);
    if (intermediate < 0 && !problems.count++)
        snprintf(problems.first, sizeof problems.first,
                 "an intermediate result (MPI_Pcontrol) could not be merged (said above); it "
                 "stays in %s/pcontrol for `mpilens recover %s`",
                 output, output);
    if (problems.count)
        mark_incomplete(output, problems.first);
    cli_say_intermediate(output, intermediate, first_step, last_step);
    int incomplete = recovered != 0 || problems.count > 0;
    if (incomplete && code == 0)
        code = LENS_EXIT_INCOMPLETE;   /* the application succeeded; its results did not all */
    lens_claim_release(output, claim); /* the problems are read: the run is over */
    char page[PATH_MAX + 16];
    int paged = page_write_run(output, page, sizeof page);
    if (paged < 0) /* the results stand; only their page is missing */
        fprintf(stderr,
                "mpilens: the run's page %s could not be written (%s); `mpilens report %s "
                "--html FILE` writes it elsewhere\n",
                page, strerror(errno), output);
    char record_why[1024];
    if (summary_of_run_write(output, record_why, sizeof record_why) < 0) /* results stand */
        fprintf(stderr,
                "mpilens: %s/summary.json, the run's record, could not be written: %s (the "
                "results are unchanged)\n",
                output, record_why);
    if (view > 0) { /* it shows the final figures; the summary comes after it */
        while (waitpid(view, NULL, 0) < 0 && errno == EINTR)
            ;
        fprintf(stderr, "mpilens: the job's output is in %s\n", log);
    }
    if (paged == 0)
        fprintf(stderr, "mpilens: the run's page: %s (open it in a browser)\n", page);
    if (directory_is_empty(output)) {
        if (!existed)
            rmdir(output);
        if (code == 0)
            fprintf(stderr, "mpilens: run finished (status 0); the modules wrote no results\n");
        else
            fprintf(stderr, "mpilens: job ended abnormally (status %d%s); no results were kept\n",
                    code, signal_received ? ", stopped by a signal" : "");
    } else if (problems.count) {
        char more[64] = "";
        if (problems.count > 1)
            snprintf(more, sizeof more, " (and %d more problem%s)", problems.count - 1,
                     problems.count > 2 ? "s" : "");
        fprintf(stderr, "mpilens: results incomplete in %s (status %d): %s%s\n", output, code,
                problems.first, more);
    } else if (code == 0) {
        fprintf(stderr, "mpilens: results in %s (status 0)\n", output);
    } else {
        fprintf(stderr, "mpilens: job ended abnormally (status %d%s); partial results in %s%s\n",
                code, signal_received ? ", stopped by a signal" : "", output,
                recovered > 0 ? " (marked incomplete: mpilens report says which ranks)" : "");
    }
    return code;
}
