/* tracelog.c: a test module that logs every call it wraps, so tests can see the stack.
 *
 * Built twice (tlog_a and tlog_b) with a different TLOG_NAME and set of wrapped
 * functions. Each line goes to $TLOG_DIR/rank-R.log, appended with one write(2), so the
 * order of lines from several modules is the order of the calls. tlog_a also publishes a
 * service and reads its `tag` argument; tlog_b looks the service up at MPI_Init and calls
 * MPI_Comm_size (not PMPI_) inside its MPI_Send: its own call, which no other module sees.
 * With TLOG_OUTPUT set, each rank writes a file into the run's output directory.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpilens.h"

#define STR2(x) #x
#define STR(x) STR2(x)

const char mpilens_module_description[] = "test module " STR(TLOG_NAME) ": logs the calls it wraps";

static int log_fd = -1;

static void tlog(const char *fmt, ...)
{
    if (log_fd < 0) {
        const char *dir = getenv("TLOG_DIR");
        const char *rank = getenv("OMPI_COMM_WORLD_RANK");
        if (!rank)
            rank = getenv("PMI_RANK");
        if (!dir)
            return;
        char path[4096];
        snprintf(path, sizeof path, "%s/rank-%s.log", dir, rank ? rank : "0");
        log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
    char line[512];
    int n = snprintf(line, sizeof line, "%s ", STR(TLOG_NAME));
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    line[n++] = '\n';
    if (write(log_fd, line, n) != n)
        abort();
}

int mpilens_module_init(const struct mpilens_module_args *args)
{
    tlog("init level=%d tag=%s", args->level, mpilens_module_arg(args, "tag", "none"));
#ifdef TLOG_PUBLISH
    static int sends;
    mpilens_publish("tlog.sends", &sends, sizeof sends);
#endif
    return 0;
}

int MPI_Init(int *argc, char ***argv)
{
    tlog("enter MPI_Init");
    int rc = PMPI_Init(argc, argv);
#ifdef TLOG_LOOKUP
    size_t size = 0;
    int *sends = mpilens_lookup("tlog.sends", &size);
    tlog("lookup tlog.sends found=%d size=%zu", sends != NULL, size);
#endif
    tlog("exit MPI_Init");
    return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    tlog("enter MPI_Send count=%d", count);
#ifdef TLOG_REENTER
    int size;
    MPI_Comm_size(comm, &size);
#endif
#ifdef TLOG_PUBLISH
    int *sends = mpilens_lookup("tlog.sends", NULL);
    if (sends)
        (*sends)++;
#endif
    int rc = PMPI_Send(buf, count, type, dest, tag, comm);
    tlog("exit MPI_Send");
    return rc;
}

#ifdef TLOG_WRAP_A
int MPI_Barrier(MPI_Comm comm)
{
    tlog("enter MPI_Barrier");
    int rc = PMPI_Barrier(comm);
    tlog("exit MPI_Barrier");
    return rc;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    tlog("enter MPI_Comm_size");
    int rc = PMPI_Comm_size(comm, size);
    tlog("exit MPI_Comm_size");
    return rc;
}

int MPI_Pcontrol(const int level, ...)
{
    tlog("pcontrol %d", level);
    return PMPI_Pcontrol(level);
}
#endif

#ifdef TLOG_WRAP_B
int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    tlog("enter MPI_Recv");
    int rc = PMPI_Recv(buf, count, type, src, tag, comm, status);
    tlog("exit MPI_Recv");
    return rc;
}

int MPI_Pcontrol(const int level, ...)
{
    tlog("pcontrol %d", level);
    return PMPI_Pcontrol(level);
}
#endif

/* With TLOG_OUTPUT set, each rank leaves a file in the run's output directory. */
static void write_output_file(void)
{
    if (!getenv("TLOG_OUTPUT") || !mpilens_output_dir)
        return;
    const char *dir = mpilens_output_dir();
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-rank-%d.txt", dir, STR(TLOG_NAME), rank);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", rank);
        fclose(f);
    }
}

int MPI_Finalize(void)
{
    write_output_file();
#ifdef TLOG_PUBLISH
    int *sends = mpilens_lookup("tlog.sends", NULL);
    tlog("finalize sends=%d", sends ? *sends : -1);
#else
    tlog("finalize");
#endif
    return PMPI_Finalize();
}
/* SPDX-License-Identifier: BSD-3-Clause */
