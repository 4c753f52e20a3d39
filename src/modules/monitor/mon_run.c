/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_run.c: the monitor's life and its C API.
 *
 * Recording starts at MPI_Init (unless MPILENS_MONITOR_START=0 or the module argument
 * start=0: then the application starts it through the API or MPI_T). The API is published
 * as the service "monitor.api" (mpilens.h's mpilens_monitor_* helpers look it up, so an
 * application calling them runs unchanged without mpilens). At MPI_Finalize the open
 * phase is closed as "run", the ranks merge along a binomial tree on a private duplicate
 * of MPI_COMM_WORLD, and rank 0 writes the monitor tables into DIR/mpilens.db.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mon.h"
#include "mon_hosts.h"
#include "mon_set.h"
#include "module_life.h"
#include "mpilens_snapshot.h"
#include "pcontrol_levels.h"
#include "mpilens.h"
#include "run_output.h"
#include "tree_merge.h"

const char mpilens_module_description[] =
    "who sends how much to whom: per-peer matrices (p2p, coll, rma, io), size histograms";
/* Alone in the stack, entered without the core's runners (mpilens.h): the monitor needs neither
 * call sites nor levels. */
const int mpilens_module_direct = 1;
/* Chained (mpilens.h): the application's calls go on through MPILENS_DOWN, the module's
 * own calls through PMPI_ functions. */
const int mpilens_module_chained = 1;

static int start_at_init = 1;
static MPI_Comm merge_comm = MPI_COMM_NULL;

static int api_start(void)
{
    mon_set_on(1);
    return 0;
}
static int api_stop(void)
{
    mon_set_on(0);
    return 0;
}
static int api_reset(void)
{
    mon_reset();
    return 0;
}
static int api_read(int kind, unsigned long long *counts, unsigned long long *bytes, int n)
{
    return mon_read(kind, (uint64_t *)counts, (uint64_t *)bytes, n);
}

static struct mpilens_monitor_api api = {api_start, api_stop,  api_reset,
                                         api_read,  mon_flush, mon_reorder};

const char mpilens_module_arguments[] =
    "start=0|1  1 (default): count from MPI_Init; 0: only once the application starts it "
    "(MPI_T or include/mpilens.h)\n"
    "pcontrol=1|0  1 (default): MPI_Pcontrol levels as in mpiP (0 stop, 1 resume, 2 reset, "
    "3 write an intermediate result, 4 write and reset); 0: ignore them\n";

static int pcontrol_levels = 1, running; /* running: MPI_Init done, MPI_Finalize not begun */

static void stop_counting(void)
{
    mon_set_on(0);
}
static void resume_counting(void)
{
    mon_set_on(1);
}

int MPI_Pcontrol(const int level, ...)
{
    static const struct lens_pcontrol_ops ops = {stop_counting, resume_counting, mon_reset};
    if (running && pcontrol_levels)
        lens_pcontrol("monitor", level, &ops);
    return MPILENS_DOWN(Pcontrol)(level);
}

int mpilens_module_check(const char *key, const char *value, char *why, size_t len)
{
    if (strcmp(key, "pcontrol") == 0)
        return lens_pcontrol_check("monitor", value, why, len);
    if (strcmp(key, "start") == 0 && strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
        snprintf(why, len,
                 "monitor: start='%s': give start=1 (count from MPI_Init) or start=0 (only once "
                 "the application starts it)",
                 value);
        return -1;
    }
    return 0;
}

int mpilens_module_init(const struct mpilens_module_args *args)
{
    const char *start = mpilens_module_arg(args, "start", getenv("MPILENS_MONITOR_START"));
    if (start && strcmp(start, "0") != 0 && strcmp(start, "1") != 0) {
        fprintf(stderr,
                "mpilens: monitor: start='%s': give start=1 (count from MPI_Init) or "
                "start=0 (only once the application starts it)\n",
                start);
        return -1;
    }
    start_at_init = !(start && strcmp(start, "0") == 0);
    pcontrol_levels = strcmp(mpilens_module_arg(args, "pcontrol", "1"), "0") != 0;
    mpilens_publish("monitor.api", &api, sizeof api);
    return 0;
}

static void started(int provided)
{
    mon_threaded = provided == MPI_THREAD_MULTIPLE;
    mon_setup();
    mon_world = lens_comm_register(MPI_COMM_WORLD, 'W', NULL);
    mon_world_data = lens_comm_payload(mon_world, sizeof *mon_world_data);
    PMPI_Comm_dup(MPI_COMM_WORLD, &merge_comm);
    if (!mpilens_lookup("monitor.api", NULL)) /* preloaded alone: publish failed quietly */
        start_at_init =
            !(getenv("MPILENS_MONITOR_START") && strcmp(getenv("MPILENS_MONITOR_START"), "0") == 0);
    mon_set_on(start_at_init);
    mon_snapshot_install();
    running = 1;
}

LENS_MODULE_LIFE(started)

static int finalize_run(void)
{
    if (merge_comm == MPI_COMM_NULL)
        return MPILENS_DOWN(Finalize)();
    running = 0;
    mon_set_on(0);
    mon_flush("run");
    static const struct lens_merge_ops ops = {mon_set_pack, mon_set_absorb};
    /* merged into a copy: mon_local stays this rank's own, for the snapshot kept when
     * the database cannot be written */
    struct mon_set merged;
    memset(&merged, 0, sizeof merged);
    size_t len = 0;
    void *mine = mon_set_pack(&mon_local, &len);
    mon_set_absorb(&merged, mine, len);
    free(mine);
    int written = 1;
    struct mon_hosts hosts; /* on rank 0 */
    int have_hosts = mon_hosts_gather(merge_comm, &hosts) == 0;
    if (lens_tree_merge(merge_comm, &merged, &ops)) {
        char err[1024] = "";
        const char *dir = lens_run_output_dir();
        if (mon_set_write(&merged, have_hosts ? &hosts : NULL, dir, err, sizeof err) != 0) {
            written = 0;
            lens_run_problem("monitor",
                             "monitor: %s; every rank's record is kept in %s/partial for "
                             "`mpilens recover %s` once there is room",
                             err, dir, dir);
        }
    }
    mon_set_free(&merged);
    mon_hosts_free(&hosts);
    PMPI_Bcast(&written, 1, MPI_INT, 0, merge_comm);
    /* the database is the result: this rank's snapshot goes (and no save reads mon_local
     * once it is freed); kept for `mpilens recover` when the database could not be written */
    mpilens_snapshot_end(written, "results not written at MPI_Finalize");
    mon_set_free(&mon_local);
    PMPI_Comm_free(&merge_comm);
    return MPILENS_DOWN(Finalize)();
}

int MPI_Finalize(void)
{
    return finalize_run();
}

LENS_SESSION_LIFE(lens_life_init_thread, finalize_run)
