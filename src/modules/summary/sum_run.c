/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_run.c: the summary module's life: recording from MPI_Init, and one record per job
 * step from rank 0 at MPI_Finalize (or from the rank that ends the job otherwise: its own
 * figures, and how the job ended), into the site's spool (MPILENS_SITE_SPOOL: the Slurm
 * plugin sets it, and whatever else the user chose, the record goes there), into the
 * user's spool (spool=DIR, MPILENS_SPOOL) and, in a run with an output directory,
 * DIR/summary.json. The run's identifier (job.run_id, in the record and in its name in a
 * spool) is made by rank 0 at MPI_Init and sent to every rank: unique to the run, and a
 * name in a shared spool that no other user can guess and take first.
 * A job ended by SIGTERM (a time limit), SIGINT, SIGHUP, SIGUSR1 or SIGXCPU leaves rank 0's
 * figures with the signal. Writing it can fail (a spool full, missing or read-only): one
 * line on stderr, and the job's status stays its own.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lens_down.h"
#include "mpilens.h"
#include "sum.h"
#include "sum_merge.h"
#include "record_file.h"
#include "sum_record.h"

const char mpilens_module_description[] =
    "one small record of the job step (summary.json: docs/summary.md), cheap enough to leave on";
/* Alone, entered without the core's runners; chained when stacked (mpilens.h). */
const int mpilens_module_direct = 1;
const int mpilens_module_chained = 1;
const char mpilens_module_arguments[] =
    "spool=DIR  also write the record into the site's spool DIR (default: $MPILENS_SPOOL)\n";

static const char *spool, *site_spool;
static char run_id[33];
static MPI_Comm merge_comm = MPI_COMM_NULL;
static int running; /* MPI_Init done, MPI_Finalize not begun */

int mpilens_module_check(const char *key, const char *value, char *why, size_t len)
{
    if (strcmp(key, "spool") == 0 && value[0] != '/') {
        snprintf(why, len, "summary: spool='%s': give the spool as an absolute path", value);
        return -1;
    }
    return 0;
}

int mpilens_module_init(const struct mpilens_module_args *args)
{
    spool = mpilens_module_arg ? mpilens_module_arg(args, "spool", getenv("MPILENS_SPOOL"))
                               : getenv("MPILENS_SPOOL");
    site_spool = getenv("MPILENS_SITE_SPOOL");
    if (site_spool && site_spool[0] != '/')
        site_spool = NULL;
    return 0;
}

/* Where the record goes besides the spool: the run's output directory, when the run has
 * one (mpilens run, other modules stacked), or when there is no spool at all. */
static const char *output_dir(void)
{
    int with_others = mpilens_module_count && mpilens_module_count() > 1;
    int spooled = (spool && *spool) || (site_spool && *site_spool);
    if (!mpilens_output_dir || !(getenv("MPILENS_OUTPUT") || with_others || !spooled))
        return NULL;
    return mpilens_output_dir();
}

/* One line on stderr, written at once (a signal handler may say it). */
static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
    char line[5120];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
        return;
}

/* Who and what ran: read at MPI_Init on rank 0 (a signal handler must not look users up),
 * and by a rank that calls MPI_Abort. */
static struct sum_program program;
static int program_read;
static char text[SUM_RECORD_MAX];

static void write_records(const struct sum_merged *m, const char *ended, int keep_first)
{
    if (!program_read) {
        sum_program_read(&program);
        program_read = 1;
    }
    snprintf(program.run_id, sizeof program.run_id, "%s", run_id);
    if (sum_record_text(m, &program, sum_size, sum_init_wall, sum_final_wall, ended, text) != 0) {
        say("mpilens: summary: the job's record is larger than %d bytes: not written (the job is "
            "not affected)\n",
            SUM_RECORD_MAX);
        return;
    }
    char why[4608];
    const char *spools[2] = {site_spool, spool};
    char name[512];
    sum_record_spool_name(&program, name, sizeof name);
    for (int i = 0; i < 2; i++) {
        if (!spools[i] || !*spools[i] || (i == 1 && site_spool && !strcmp(spool, site_spool)))
            continue;
        int rc = record_file_write(spools[i], name, text, keep_first, why, sizeof why);
        if (rc < 0)
            say("mpilens: summary: the job's record is not in the spool: %s (the job is not "
                "affected; the site's spool is MPILENS_SITE_SPOOL, the user's the spool= "
                "argument or MPILENS_SPOOL)\n",
                why);
        else if (rc > 0)
            say("mpilens: summary: %s\n", why);
    }
    const char *dir = output_dir();
    int rc = dir ? record_file_write(dir, "summary.json", text, keep_first, why, sizeof why) : 0;
    if (rc)
        say("mpilens: summary: %s%s\n", why, rc < 0 ? " (the job is not affected)" : "");
}

/* The figures of this rank alone, written by it: the job did not finalize. SITES: name
 * the call sites (not in a signal handler). */
static struct sum_merged alone;
static pid_t started_pid; /* a child forked by the application writes nothing */
static void write_alone(const char *ended, int sites)
{
    if (!running || getpid() != started_pid)
        return;
    running = 0;
    sum_stop();
    sum_merged_mine(&alone, sites);
    write_records(&alone, ended, 1);
}

static void at_exit(void)
{
    if (running && sum_rank == 0)
        write_alone("exit without MPI_Finalize", 1);
}

/* The signals a batch system ends a job with: rank 0 writes its own figures and the
 * signal, then the handler that was there before runs (or the default action). Under
 * `mpilens run`, SIGURG too: the command asks the ranks to save with it before it stops
 * the job (mpilens_snapshot.h), since a launcher kills the other ranks as soon as one has
 * died. */
static const int ending_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGXCPU, SIGURG};
#define ENDINGS (sizeof ending_signals / sizeof ending_signals[0])
static struct sigaction before[ENDINGS];

static void ending(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    char how[48];
    snprintf(how, sizeof how, sig == SIGURG ? "stopped by a signal to mpilens run" : "signal %d",
             sig);
    write_alone(how, 0);
    for (size_t i = 0; i < ENDINGS; i++) {
        if (ending_signals[i] != sig)
            continue;
        if (before[i].sa_flags & SA_SIGINFO) {
            before[i].sa_sigaction(sig, info, context);
        } else if (before[i].sa_handler != SIG_DFL && before[i].sa_handler != SIG_IGN) {
            before[i].sa_handler(sig);
        } else if (before[i].sa_handler == SIG_DFL) {
            sigaction(sig, &before[i], NULL);
            raise(sig);
        }
    }
    errno = saved;
}

static void catch_endings(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = ending;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    int cli = getenv("MPILENS_CLI") != NULL;
    for (size_t i = 0; i < ENDINGS; i++) {
        if (ending_signals[i] == SIGURG && !cli)
            continue;
        sigaction(ending_signals[i], NULL, &before[i]);
        if (before[i].sa_handler != SIG_IGN) /* an ignored signal stays ignored */
            sigaction(ending_signals[i], &sa, NULL);
    }
}

static void started(int provided)
{
    sum_start(provided);
    PMPI_Comm_dup(MPI_COMM_WORLD, &merge_comm);
    if (sum_rank == 0)
        record_random_hex(run_id, 16);
    PMPI_Bcast(run_id, sizeof run_id, MPI_CHAR, 0, merge_comm);
    if (mpilens_site_range) { /* chained below another module: the core stores the site */
        unsigned long lo, span;
        mpilens_site_range(&lo, &span);
    }
    running = 1;
    started_pid = getpid();
    atexit(at_exit);
    if (sum_rank == 0) {
        sum_program_read(&program);
        program_read = 1;
        catch_endings();
    }
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = MPILENS_DOWN(Init)(argc, argv);
    if (rc == MPI_SUCCESS)
        started(MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = MPILENS_DOWN(Init_thread)(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        started(*provided);
    return rc;
}

int MPI_Abort(MPI_Comm comm, int code)
{
    char ended[96];
    snprintf(ended, sizeof ended, "MPI_Abort (rank %d, code %d)", sum_rank, code);
    write_alone(ended, 1);
    return MPILENS_DOWN(Abort)(comm, code);
}

int MPI_Finalize(void)
{
    if (!running || merge_comm == MPI_COMM_NULL)
        return MPILENS_DOWN(Finalize)();
    running = 0;
    sum_stop();
    /* bench/scale_table.sh: the ranks' arrival first (the bare MPI_Finalize waits for it
     * too), so that what is timed is the summary's own work */
    int stats = getenv("MPILENS_SUMMARY_STATS") != NULL;
    double barrier = 0;
    if (stats) {
        PMPI_Barrier(merge_comm);
        barrier = sum_wall_now();
        PMPI_Barrier(merge_comm); /* what one more collective costs here, for comparison */
        barrier = sum_wall_now() - barrier;
    }
    double begun = sum_wall_now(), merged = begun;
    struct sum_merged *m = malloc(sizeof *m);
    if (m) {
        sum_merged_mine(m, 1);
        int root = sum_merge_all(merge_comm, m) == 1;
        merged = sum_wall_now();
        if (root)
            write_records(m, "MPI_Finalize", 0);
    }
    free(m);
    if (sum_rank == 0 && stats)
        fprintf(stderr,
                "mpilens: summary: MPI_Finalize on rank 0: %.3f ms (merge %.3f ms; a barrier "
                "%.3f ms)\n",
                1e3 * (sum_wall_now() - begun), 1e3 * (merged - begun), 1e3 * barrier);
    PMPI_Comm_free(&merge_comm);
    return MPILENS_DOWN(Finalize)();
}
