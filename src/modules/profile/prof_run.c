/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_run.c: the profile module's life: start at MPI_Init, gather and write at
 * MPI_Finalize.
 *
 * Net execution time runs from the start of MPI_Init to the start of MPI_Finalize (as
 * mpisee counts it); MPI time is the sum of the time spent in the operations recorded.
 * At MPI_Finalize the ranks merge along a binomial tree on a private duplicate of
 * MPI_COMM_WORLD (made at MPI_Init, so no message of the application can be mistaken for
 * ours) and rank 0 writes DIR/mpilens.db (with every rank's rows, or reduced over ranks
 * while the shards of the detail are written in parallel: prof_detail.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_life.h"
#include "mpilens.h"
#include "prof.h"
#include "pcontrol_levels.h"
#include "prof_detail.h"
#include "prof_merge.h"
#include "run_output.h"
#include "mpilens_snapshot.h"

const char mpilens_module_description[] =
    "communicator-centric profile (calls, time, volume per communicator, operation and size) "
    "into mpilens.db";
/* Alone in the stack, entered without the core's runners (mpilens.h): call sites come from
 * mpilens_site() (prof.h). */
const int mpilens_module_direct = 1;
/* Chained (mpilens.h): the application's calls go on through MPILENS_DOWN, the module's
 * own calls through PMPI_ functions. */
const int mpilens_module_chained = 1;

uint64_t prof_start_ticks;
unsigned long prof_site_lo, prof_site_span = ~0ul;
static void *prof_no_slot = PROF_NO_KEY;
void **prof_caller_slot = &prof_no_slot;
static int one_thread = 1; /* MPI_THREAD_SINGLE or FUNNELED: one thread makes MPI calls */
static MPI_Comm merge_comm = MPI_COMM_NULL;

const char mpilens_module_arguments[] =
    "buckets=B1,B2,...  message-size bucket bounds in bytes, increasing, at most 31 "
    "(default 128,1024,8192,65536,262144,1048576,33554432)\n"
    "pcontrol=1|0       1 (default): MPI_Pcontrol levels as in mpiP (0 stop, 1 resume, "
    "2 reset, 3 write an intermediate result, 4 write and reset); 0: ignore them\n"
    "detail=auto|ranks|shards|summary  every rank's rows: in mpilens.db (ranks), in shards "
    "of the run directory written in parallel (shards), or only reduced over ranks "
    "(summary); auto (default): ranks up to 64 ranks, shards beyond\n"
    "shard=N            ranks per shard with detail=shards (default 64)\n";

int mpilens_module_check(const char *key, const char *value, char *why, size_t len)
{
    if (strcmp(key, "pcontrol") == 0)
        return lens_pcontrol_check("profile", value, why, len);
    return prof_detail_check(key, value, why, len);
}

int mpilens_module_init(const struct mpilens_module_args *args)
{
    const char *buckets = mpilens_module_arg(args, "buckets", NULL);
    if (buckets)
        setenv("MPILENS_BUCKETS", buckets, 1);
    const char *detail = mpilens_module_arg(args, "detail", NULL);
    const char *shard = mpilens_module_arg(args, "shard", NULL);
    if (detail)
        setenv("MPILENS_PROFILE_DETAIL", detail, 1);
    if (shard)
        setenv("MPILENS_PROFILE_SHARD", shard, 1);
    prof_pcontrol_levels = strcmp(mpilens_module_arg(args, "pcontrol", "1"), "0") != 0;
    prof_setup(); /* a bad bucket list stops the run here, before main() */
    if (mpilens_site_range)
        mpilens_site_range(&prof_site_lo, &prof_site_span);
    return 0;
}

static void started(uint64_t t0, int op, void *site)
{
    prof_setup();
    lens_comm_register(MPI_COMM_WORLD, 'W', NULL);
    prof_world = lens_comm(MPI_COMM_WORLD);
    PMPI_Comm_dup(MPI_COMM_WORLD, &merge_comm);
    prof_start_ticks = t0;
#if defined(__x86_64__)
    prof_keys_on = !prof_threaded && prof_use_tsc;
#else
    prof_keys_on = !prof_threaded;
#endif
    void **slot = one_thread && mpilens_caller_slot ? mpilens_caller_slot() : NULL;
    prof_caller_slot = slot ? slot : &prof_no_slot;
    prof_on = 1;
    prof_started = 1;
    prof_record_slow(op, site, prof_comm(MPI_COMM_WORLD), 0, 0, prof_now() - t0);
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    prof_snapshot_install(rank, size);
}

int MPI_Abort(MPI_Comm comm, int code)
{
    mpilens_snapshot_save("MPI_Abort");
    return MPILENS_DOWN(Abort)(comm, code);
}

int MPI_Init(int *argc, char ***argv)
{
    void *site = prof_caller();
    prof_handle_hooks_install();
    prof_clock_start();
    uint64_t t0 = prof_now();
    int rc = MPILENS_DOWN(Init)(argc, argv);
    if (rc == MPI_SUCCESS)
        started(t0, PROF_OP_Init, site);
    return rc;
}

/* inlined: its call site is the MPI_Init_thread wrapper's caller */
static inline __attribute__((always_inline)) int init_thread(int *argc, char ***argv, int required,
                                                             int *provided)
{
    void *site = prof_caller();
    prof_handle_hooks_install();
    prof_clock_start();
    uint64_t t0 = prof_now();
    int rc = MPILENS_DOWN(Init_thread)(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        prof_threaded = *provided == MPI_THREAD_MULTIPLE;
        one_thread = *provided <= MPI_THREAD_FUNNELED;
        started(t0, PROF_OP_Init_thread, site);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return init_thread(argc, argv, required, provided);
}

static int finalize_run(void)
{
    if (!prof_started)
        return MPILENS_DOWN(Finalize)();
    uint64_t now = prof_now();
    prof_started = 0;
    prof_on = 0;
    prof_keys_on = 0;
    prof_caller_slot = &prof_no_slot;
    prof_last_forget(); /* every call goes the general way, which sees prof_on */
    prof_fold_all();
    prof_clock_stop();
    double net = (now - prof_start_ticks) * prof_seconds_per_tick;
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct profile_set set;
    prof_collect(&set, rank, net);
    double wall = net;
    PMPI_Reduce(&net, &wall, 1, MPI_DOUBLE, MPI_MAX, 0, merge_comm);
    int written = prof_detail_finalize(&set, merge_comm, wall);
    prof_set_free(&set);
    PMPI_Comm_free(&merge_comm);
    /* the database is the result: this rank's snapshot goes, unless it could not be written */
    mpilens_snapshot_end(written, "results not written at MPI_Finalize");
    return MPILENS_DOWN(Finalize)();
}

int MPI_Finalize(void)
{
    return finalize_run();
}

LENS_SESSION_LIFE(init_thread, finalize_run)
