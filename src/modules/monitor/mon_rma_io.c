/* mon_rma_io.c: one-sided transfers (origin side: data sent to the target, or received
 * from it for Get and the result of the fetching operations) and file I/O (bytes read and
 * written per rank and file; the status's count when there is one).
 */
#include "mon.h"

static int target_of(MPI_Win win, int target)
{
    struct lens_comm *rec = lens_comm_of_win(win);
    return target >= 0 && target < rec->size ? rec->members[target] : -1;
}

static void rma(MPI_Win win, int target, int kind, int count, MPI_Datatype type)
{
    if (mon_on)
        mon_record(kind, target_of(win, target), mon_bytes(count, type));
}

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
    rma(win, target, MON_RMA_SENT, ocount, otype);
    return PMPI_Put(obuf, ocount, otype, target, disp, tcount, ttype, win);
}
int MPI_Rput(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
             int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
    rma(win, target, MON_RMA_SENT, ocount, otype);
    return PMPI_Rput(obuf, ocount, otype, target, disp, tcount, ttype, win, req);
}
int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
    rma(win, target, MON_RMA_RECV, ocount, otype);
    return PMPI_Get(obuf, ocount, otype, target, disp, tcount, ttype, win);
}
int MPI_Rget(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
             MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
    rma(win, target, MON_RMA_RECV, ocount, otype);
    return PMPI_Rget(obuf, ocount, otype, target, disp, tcount, ttype, win, req);
}
int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                   int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    rma(win, target, MON_RMA_SENT, ocount, otype);
    return PMPI_Accumulate(obuf, ocount, otype, target, disp, tcount, ttype, op, win);
}
int MPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
    rma(win, target, MON_RMA_SENT, ocount, otype);
    return PMPI_Raccumulate(obuf, ocount, otype, target, disp, tcount, ttype, op, win, req);
}
int MPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf, int rcount,
                       MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
                       MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    rma(win, target, MON_RMA_SENT, ocount, otype);
    rma(win, target, MON_RMA_RECV, rcount, rtype);
    return PMPI_Get_accumulate(obuf, ocount, otype, rbuf, rcount, rtype, target, disp, tcount,
                               ttype, op, win);
}
int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype type, int target, MPI_Aint disp,
                     MPI_Op op, MPI_Win win)
{
    rma(win, target, MON_RMA_SENT, 1, type);
    rma(win, target, MON_RMA_RECV, 1, type);
    return PMPI_Fetch_and_op(obuf, rbuf, type, target, disp, op, win);
}
int MPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype type,
                         int target, MPI_Aint disp, MPI_Win win)
{
    rma(win, target, MON_RMA_SENT, 1, type);
    rma(win, target, MON_RMA_RECV, 1, type);
    return PMPI_Compare_and_swap(obuf, cbuf, rbuf, type, target, disp, win);
}

/* ---- files ---- */

int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    int rc = PMPI_File_open(comm, name, amode, info, fh);
    if (rc == MPI_SUCCESS)
        mon_file_opened(*fh, name);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    mon_file_closed(*fh);
    return PMPI_File_close(fh);
}

static uint64_t done(const MPI_Status *status, int count, MPI_Datatype type)
{
    int got = MPI_UNDEFINED;
    if (status != MPI_STATUS_IGNORE && PMPI_Get_count(status, type, &got) == MPI_SUCCESS &&
        got != MPI_UNDEFINED)
        return mon_bytes(got, type);
    return mon_bytes(count, type);
}

#define FILE_IO(NAME, WRITE, CONST)                                                                \
    int MPI_File_##NAME(MPI_File fh, CONST void *buf, int count, MPI_Datatype type,                \
                        MPI_Status *status)                                                        \
    {                                                                                              \
        int rc = PMPI_File_##NAME(fh, buf, count, type, status);                                   \
        if (mon_on && rc == MPI_SUCCESS)                                                           \
            mon_record_io(fh, WRITE, done(status, count, type));                                   \
        return rc;                                                                                 \
    }
#define FILE_IO_AT(NAME, WRITE, CONST)                                                             \
    int MPI_File_##NAME(MPI_File fh, MPI_Offset offset, CONST void *buf, int count,                \
                        MPI_Datatype type, MPI_Status *status)                                     \
    {                                                                                              \
        int rc = PMPI_File_##NAME(fh, offset, buf, count, type, status);                           \
        if (mon_on && rc == MPI_SUCCESS)                                                           \
            mon_record_io(fh, WRITE, done(status, count, type));                                   \
        return rc;                                                                                 \
    }

FILE_IO(read, 0, )
FILE_IO(read_all, 0, )
FILE_IO(read_shared, 0, )
FILE_IO(read_ordered, 0, )
FILE_IO(write, 1, const)
FILE_IO(write_all, 1, const)
FILE_IO(write_shared, 1, const)
FILE_IO(write_ordered, 1, const)
FILE_IO_AT(read_at, 0, )
FILE_IO_AT(read_at_all, 0, )
FILE_IO_AT(write_at, 1, const)
FILE_IO_AT(write_at_all, 1, const)
