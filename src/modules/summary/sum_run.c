/* sum_run.c: the summary module's life: recording from MPI_Init, and one record per job
 * step from rank 0 at MPI_Finalize (or from the rank that ends the job otherwise: its own
 * figures, and how the job ended), into the site's spool (spool=DIR, MPILENS_SPOOL: the
 * Slurm plugin sets it) and, in a run with an output directory, DIR/summary.json.
 * Writing it can fail (a spool full, missing or read-only): one line on stderr, and the
 * job's status stays its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lens_down.h"
#include "mpilens.h"
#include "sum.h"
#include "sum_merge.h"
#include "sum_record.h"

const char mpilens_module_description[] =
    "one small record of the job step (summary.json: docs/summary.md), cheap enough to leave on";
/* Alone, entered without the core's runners; chained when stacked (mpilens.h). */
const int mpilens_module_direct = 1;
const int mpilens_module_chained = 1;
const char mpilens_module_arguments[] =
    "spool=DIR  also write the record into the site's spool DIR (default: $MPILENS_SPOOL)\n";

static const char *spool;
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
    return 0;
}

/* Where the record goes besides the spool: the run's output directory, when the run has
 * one (mpilens run, other modules stacked), or when there is no spool at all. */
static const char *output_dir(void)
{
    int with_others = mpilens_module_count && mpilens_module_count() > 1;
    if (!mpilens_output_dir || !(getenv("MPILENS_OUTPUT") || with_others || !spool || !*spool))
        return NULL;
    return mpilens_output_dir();
}

static void write_records(const struct sum_merged *m, const char *ended)
{
    struct sum_program p;
    sum_program_read(&p);
    char *text = sum_record_text(m, &p, sum_size, sum_init_wall, sum_final_wall, ended);
    if (!text) {
        fprintf(stderr, "mpilens: summary: no memory for the job's record (the job is not "
                        "affected)\n");
        return;
    }
    char why[4608];
    if (spool && *spool) {
        char name[512];
        sum_record_spool_name(&p, sum_init_wall, name, sizeof name);
        if (sum_record_write(spool, name, text, why, sizeof why) != 0)
            fprintf(stderr,
                    "mpilens: summary: the job's record is not in the spool: %s (the job is not "
                    "affected; the site's spool is the spool= argument or MPILENS_SPOOL)\n",
                    why);
    }
    const char *dir = output_dir();
    if (dir && sum_record_write(dir, "summary.json", text, why, sizeof why) != 0)
        fprintf(stderr, "mpilens: summary: %s (the job is not affected)\n", why);
    free(text);
}

static void started(int provided)
{
    sum_start(provided);
    PMPI_Comm_dup(MPI_COMM_WORLD, &merge_comm);
    if (mpilens_site_range) { /* chained below another module: the core stores the site */
        unsigned long lo, span;
        mpilens_site_range(&lo, &span);
    }
    running = 1;
}

/* The figures of this rank alone, written by it: the job did not finalize. */
static void write_alone(const char *ended)
{
    if (!running)
        return;
    running = 0;
    sum_stop();
    struct sum_merged *m = malloc(sizeof *m);
    if (!m)
        return;
    sum_merged_mine(m);
    write_records(m, ended);
    free(m);
}

static void at_exit(void)
{
    if (running && sum_rank == 0)
        write_alone("exit without MPI_Finalize");
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = MPILENS_DOWN(Init)(argc, argv);
    if (rc == MPI_SUCCESS) {
        started(MPI_THREAD_SINGLE);
        atexit(at_exit);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = MPILENS_DOWN(Init_thread)(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        started(*provided);
        atexit(at_exit);
    }
    return rc;
}

int MPI_Abort(MPI_Comm comm, int code)
{
    char ended[96];
    snprintf(ended, sizeof ended, "MPI_Abort (rank %d, code %d)", sum_rank, code);
    write_alone(ended);
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
        sum_merged_mine(m);
        int root = sum_merge_all(merge_comm, m) == 1;
        merged = sum_wall_now();
        if (root)
            write_records(m, "MPI_Finalize");
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
