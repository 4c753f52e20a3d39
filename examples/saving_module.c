/* saving_module.c: the example of docs/modules.md, "Keeping your data when the run does
 * not end well": a module built outside mpilens's tree that keeps its data however a rank
 * ends, with the installed snapshot API (mpilens_snapshot.h, libmpilens_module.a).
 *
 * It counts MPI_Sendrecv calls per rank. At a normal MPI_Finalize rank 0 writes
 * saving-summary.txt into the run's output directory. When the job ends otherwise (a rank's
 * MPI_Abort, exit or crash, a signal), every rank's last saved count is in
 * DIR/partial/saving_module.RANK, and mpilens_module_recover (called by `mpilens run` or
 * `mpilens recover DIR` after the job) writes the same summary from them, with how each
 * rank ended, and marks the run incomplete.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mpilens.h"
#include "mpilens_snapshot.h"

const char mpilens_module_description[] =
    "example: counts MPI_Sendrecv calls per rank, kept however the run ends";

/* What a rank saves: written by the writer, read back by the recovery. */
struct saved {
    int32_t rank, size;
    int64_t calls;
};

static struct saved mine;

static int write_mine(int fd) /* async-signal-safe: one write */
{
    return mpilens_write_all(fd, &mine, sizeof mine);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &mine.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &mine.size);
    mpilens_snapshot_install("saving_module", mine.rank, write_mine);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    mine.calls++;
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                         status);
}

int MPI_Abort(MPI_Comm comm, int code)
{
    mpilens_snapshot_save("MPI_Abort");
    return PMPI_Abort(comm, code);
}

static int write_summary(const char *dir, const int64_t *calls, const char **how, int size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/saving-summary.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "rank  MPI_Sendrecv calls  ended\n");
    for (int r = 0; r < size; r++)
        fprintf(f, "%4d  %18lld  %s\n", r, (long long)calls[r], how[r]);
    return fclose(f);
}

int MPI_Finalize(void)
{
    int64_t all[mine.size];
    const char *how[mine.size];
    PMPI_Gather(&mine.calls, 1, MPI_INT64_T, all, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    const char *dir = mpilens_output_dir ? mpilens_output_dir() : ".";
    int written = 1;
    if (mine.rank == 0) {
        for (int r = 0; r < mine.size; r++)
            how[r] = "MPI_Finalize";
        written = write_summary(dir, all, how, mine.size) == 0;
    }
    mpilens_snapshot_end(written, "MPI_Finalize"); /* kept for recovery if not written */
    return PMPI_Finalize();
}

/* ---- after the job, in mpilens's own process (no MPI) ---- */

struct gathered {
    int64_t calls[4096];
    int size;
};

static int absorb(void *ctx, const char *data, size_t len, int32_t *world)
{
    struct gathered *g = ctx;
    struct saved s;
    if (len != sizeof s)
        return -1; /* damaged: skipped, and said by the caller */
    memcpy(&s, data, sizeof s);
    if (s.rank < 0 || s.rank >= s.size || s.size > 4096)
        return -1;
    g->calls[s.rank] = s.calls;
    g->size = s.size;
    *world = s.size;
    return 0;
}

int mpilens_module_recover(const char *dir, char *err, size_t errlen)
{
    static struct gathered g;
    struct mpilens_snapshot_endings endings = {0};
    if (mpilens_snapshot_gather(dir, "saving_module", absorb, &g, &endings) <= 0) {
        snprintf(err, errlen, "saving: %s/partial: no rank's count could be read", dir);
        mpilens_snapshot_endings_free(&endings);
        return -1;
    }
    const char *how[g.size];
    for (int r = 0; r < g.size; r++)
        how[r] = "nothing saved";
    for (int i = 0; i < endings.count; i++)
        how[endings.at[i].rank] = endings.at[i].how;
    int rc = write_summary(dir, g.calls, how, g.size);
    if (rc != 0)
        snprintf(err, errlen, "saving: %s/saving-summary.txt: cannot be written", dir);
    else if (mpilens_snapshot_all_finalized(&endings))
        rc = 1;
    else if (mpilens_snapshot_mark_incomplete(dir, &endings, err, errlen) != 0)
        rc = -1;
    mpilens_snapshot_endings_free(&endings);
    return rc;
}
/* SPDX-License-Identifier: BSD-3-Clause */
