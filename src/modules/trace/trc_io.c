/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_io.c: MPI-IO in the trace as OTF2 I/O records, as Score-P records them.
 *
 * MPI_File_open defines an I/O handle of this rank (its file's name, communicator and access
 * mode) and records IoCreateHandle; MPI_File_close records IoDestroyHandle. Every read and
 * write of the classification (lens_classes.h) records IoOperationBegin (read or write, the
 * bytes asked, flags: collective for the _all and _ordered ones, non-blocking for the
 * I-variants and split collectives) and IoOperationComplete (the bytes the status reports):
 * a blocking call both inside its region; a nonblocking one IoOperationIssued at the call and
 * the completion in the Wait/Test call that completes its request (trc_wrap.c); a split
 * collective its completion at its _end. Handles are local to a rank while the run goes; the
 * merge (trc_defs.c) makes one IoRegularFile per file name and one IoHandle per rank's open,
 * all under the I/O paradigm "MPI-IO".
 */
#include <stdlib.h>
#include <string.h>

#include "run_output.h"
#include "trc.h"

struct io_handle {
    MPI_File fh;
    int open;
    uint32_t comm, amode;
    uint64_t split_id; /* the split collective in progress (one per handle at a time) */
    char *name;
};
static struct io_handle *handles;
static uint32_t nhandles, handles_cap;

/* The open handle of fh (its local id), or OTF2_UNDEFINED_UINT32. */
static uint32_t handle_of(MPI_File fh)
{
    uint32_t found = OTF2_UNDEFINED_UINT32;
    pthread_mutex_lock(&trc_lock);
    for (uint32_t i = nhandles; i-- > 0 && found == OTF2_UNDEFINED_UINT32;)
        if (handles[i].open && handles[i].fh == fh)
            found = i;
    pthread_mutex_unlock(&trc_lock);
    return found;
}

static OTF2_IoAccessMode access_of(int amode)
{
    if (amode & MPI_MODE_RDONLY)
        return OTF2_IO_ACCESS_MODE_READ_ONLY;
    if (amode & MPI_MODE_WRONLY)
        return OTF2_IO_ACCESS_MODE_WRITE_ONLY;
    return OTF2_IO_ACCESS_MODE_READ_WRITE;
}

static OTF2_IoCreationFlag creation_of(int amode)
{
    OTF2_IoCreationFlag f = OTF2_IO_CREATION_FLAG_NONE;
    if (amode & MPI_MODE_CREATE)
        f |= OTF2_IO_CREATION_FLAG_CREATE;
    if (amode & MPI_MODE_EXCL)
        f |= OTF2_IO_CREATION_FLAG_EXCLUSIVE;
    return f;
}

int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    if (!trc_on)
        return MPILENS_DOWN(File_open)(comm, name, amode, info, fh);
    trc_enter(R_File_open);
    int rc = MPILENS_DOWN(File_open)(comm, name, amode, info, fh);
    if (rc == MPI_SUCCESS) {
        uint32_t c = trc_comm(comm);
        char *copy = strdup(name ? name : "");
        pthread_mutex_lock(&trc_lock);
        uint32_t cap = handles_cap ? 2 * handles_cap : 8;
        if (!copy ||
            (nhandles == handles_cap && lens_grow("trace", &handles, cap, sizeof *handles) != 0)) {
            pthread_mutex_unlock(&trc_lock); /* said once by lens_grow; this file goes untraced */
            free(copy);
            trc_leave(R_File_open);
            return rc;
        }
        if (nhandles == handles_cap)
            handles_cap = cap;
        uint32_t id = nhandles;
        handles[id] = (struct io_handle){*fh, 1, c, (uint32_t)amode, 0, copy};
        nhandles++;
        pthread_mutex_unlock(&trc_lock);
        trc_put(TK_IO_CREATE, (uint8_t)access_of(amode), trc_now(), id, 0, creation_of(amode), 0, 0,
                0);
    }
    trc_leave(R_File_open);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    if (!trc_on)
        return MPILENS_DOWN(File_close)(fh);
    uint32_t id = handle_of(*fh);
    trc_enter(R_File_close);
    int rc = MPILENS_DOWN(File_close)(fh);
    if (id != OTF2_UNDEFINED_UINT32) {
        pthread_mutex_lock(&trc_lock);
        handles[id].open = 0;
        pthread_mutex_unlock(&trc_lock);
        trc_put(TK_IO_DESTROY, 0, trc_now(), id, 0, 0, 0, 0, 0);
    }
    trc_leave(R_File_close);
    return rc;
}

/* ---- operations ---- */

static uint64_t status_bytes(const MPI_Status *st)
{
    int got = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &got) != MPI_SUCCESS || got == MPI_UNDEFINED || got < 0)
        return 0;
    return (uint64_t)got;
}

/* The operation's flags: collective for the _all and _ordered calls. */
static OTF2_IoOperationFlag flags_of(const char *name, OTF2_IoOperationFlag more)
{
    return more |
           (strstr(name, "_all") || strstr(name, "_ordered") ? OTF2_IO_OPERATION_FLAG_COLLECTIVE
                                                             : OTF2_IO_OPERATION_FLAG_NONE);
}

/* IoOperationBegin of the call on fh; its matching id, or 0 if fh is not traced. */
static uint64_t begin(MPI_File fh, uint32_t *handle, uint64_t t, int write, const char *name,
                      OTF2_IoOperationFlag more, int64_t count, MPI_Datatype type)
{
    *handle = handle_of(fh);
    if (*handle == OTF2_UNDEFINED_UINT32)
        return 0;
    uint64_t id = trc_me()->next_id++;
    trc_put(TK_IO_BEGIN,
            (uint8_t)(write ? OTF2_IO_OPERATION_MODE_WRITE : OTF2_IO_OPERATION_MODE_READ), t,
            *handle, 0, flags_of(name, more), trc_bytes(count, type), id, 0);
    return id;
}

/* A blocking read or write: Begin and Complete inside the call. */
#define BLOCKING_IO(N, P, A, FH, COUNT, TYPE, STATUS, WRITE)                                       \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        if (!trc_on)                                                                               \
            return mpilens_down_MPI_##N A;                                                         \
        MPI_Status local_;                                                                         \
        if ((STATUS) == MPI_STATUS_IGNORE)                                                         \
            STATUS = &local_;                                                                      \
        uint32_t h_;                                                                               \
        uint64_t id_ =                                                                             \
            begin(FH, &h_, trc_enter(R_##N), WRITE, #N, OTF2_IO_OPERATION_FLAG_NONE, COUNT, TYPE); \
        int rc_ = mpilens_down_MPI_##N A;                                                          \
        if (id_)                                                                                   \
            trc_put(TK_IO_COMPLETE, 0, trc_now(), h_, 0, 0, status_bytes(STATUS), id_, 0);         \
        trc_leave(R_##N);                                                                          \
        return rc_;                                                                                \
    }
/* The begin of a split collective: the handle keeps its matching id for the _end. */
static void split_started(uint32_t handle, uint64_t id)
{
    pthread_mutex_lock(&trc_lock);
    handles[handle].split_id = id;
    pthread_mutex_unlock(&trc_lock);
}

/* A nonblocking read or write, or the begin of a split collective: Begin and Issued at the
 * call; ISSUED(h_, id_) then says where the completion will come from. */
#define ISSUED_IO(N, P, A, FH, COUNT, TYPE, WRITE, ISSUED)                                         \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        if (!trc_on)                                                                               \
            return mpilens_down_MPI_##N A;                                                         \
        uint32_t h_;                                                                               \
        uint64_t id_ = begin(FH, &h_, trc_enter(R_##N), WRITE, #N,                                 \
                             OTF2_IO_OPERATION_FLAG_NON_BLOCKING, COUNT, TYPE);                    \
        int rc_ = mpilens_down_MPI_##N A;                                                          \
        if (id_) {                                                                                 \
            trc_put(TK_IO_ISSUED, 0, trc_now(), h_, 0, 0, 0, id_, 0);                              \
            if (rc_ == MPI_SUCCESS)                                                                \
                ISSUED;                                                                            \
        }                                                                                          \
        trc_leave(R_##N);                                                                          \
        return rc_;                                                                                \
    }
#define NONBLOCKING_IO(N, P, A, FH, COUNT, TYPE, REQ, WRITE)                                       \
    ISSUED_IO(N, P, A, FH, COUNT, TYPE, WRITE, trc_remember_io(*(REQ), h_, id_))
#define SPLIT_BEGIN(N, P, A, FH, COUNT, TYPE, WRITE)                                               \
    ISSUED_IO(N, P, A, FH, COUNT, TYPE, WRITE, split_started(h_, id_))
#define SPLIT_END(N, F, M, P, A, FL, R)                                                            \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        if (!trc_on)                                                                               \
            return mpilens_down_MPI_##N A;                                                         \
        MPI_Status local_;                                                                         \
        if (a2 == MPI_STATUS_IGNORE)                                                               \
            a2 = &local_;                                                                          \
        uint32_t h_ = handle_of(a0);                                                               \
        trc_enter(R_##N);                                                                          \
        int rc_ = mpilens_down_MPI_##N A;                                                          \
        if (h_ != OTF2_UNDEFINED_UINT32) {                                                         \
            pthread_mutex_lock(&trc_lock);                                                         \
            uint64_t id_ = handles[h_].split_id;                                                   \
            pthread_mutex_unlock(&trc_lock);                                                       \
            if (id_)                                                                               \
                trc_put(TK_IO_COMPLETE, 0, trc_now(), h_, 0, 0, status_bytes(a2), id_, 0);         \
        }                                                                                          \
        trc_leave(R_##N);                                                                          \
        return rc_;                                                                                \
    }

/* The shapes: (file, buf, count, type, status|request) and with an offset after the file. */
#define IO(N, F, M, P, A, FL, R) BLOCKING_IO(N, P, A, a0, a2, a3, a4, FL)
#define IO_AT(N, F, M, P, A, FL, R) BLOCKING_IO(N, P, A, a0, a3, a4, a5, FL)
#define IIO(N, F, M, P, A, FL, R) NONBLOCKING_IO(N, P, A, a0, a2, a3, a4, FL)
#define IIO_AT(N, F, M, P, A, FL, R) NONBLOCKING_IO(N, P, A, a0, a3, a4, a5, FL)
#define IO_BEGIN(N, F, M, P, A, FL, R) SPLIT_BEGIN(N, P, A, a0, a2, a3, FL)
#define IO_AT_BEGIN(N, F, M, P, A, FL, R) SPLIT_BEGIN(N, P, A, a0, a3, a4, FL)
LENS_SHAPE_io(IO) LENS_SHAPE_io_at(IO_AT) LENS_SHAPE_iio(IIO) LENS_SHAPE_iio_at(IIO_AT)
    LENS_SHAPE_io_begin(IO_BEGIN) LENS_SHAPE_io_at_begin(IO_AT_BEGIN) LENS_SHAPE_io_end(SPLIT_END)

    /* ---- local definitions (async-signal-safe) ---- */

    uint32_t trc_io_count(void)
{
    return nhandles;
}

void trc_io_emit(struct mpilens_emitter *e, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pair[2] = {handles[i].comm, handles[i].amode};
        mpilens_emit(e, pair, sizeof pair);
        for (const char *p = handles[i].name;; p++) { /* byte by byte: a name may be long */
            mpilens_emit(e, p, 1);
            if (!*p)
                break;
        }
    }
}
