/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_files.c: MPI_File_open and MPI_File_close, timed and charged to the file's
 * communicator (which the file handle remembers for the I/O operations) and their site.
 */
#include <string.h>

#include "prof.h"

int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    if (!prof_on)
        return MPILENS_DOWN(File_open)(comm, name, amode, info, fh);
    void *site = prof_caller();
    uint64_t t0 = prof_now();
    int rc = MPILENS_DOWN(File_open)(comm, name, amode, info, fh);
    struct lens_comm *rec = prof_comm(comm);
    prof_record_slow(PROF_OP_File_open, site, rec, 0, 0, prof_now() - t0);
    if (rc == MPI_SUCCESS)
        lens_handle_set(lens_handle_key(fh, sizeof *fh), rec);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    if (!prof_on)
        return MPILENS_DOWN(File_close)(fh);
    void *site = prof_caller();
    struct lens_comm *rec = prof_file(*fh);
    lens_handle_drop(lens_handle_key(fh, sizeof *fh));
    uint64_t t0 = prof_now();
    int rc = MPILENS_DOWN(File_close)(fh);
    prof_record_slow(PROF_OP_File_close, site, rec, 0, 0, prof_now() - t0);
    return rc;
}

struct lens_comm *prof_file(MPI_File fh)
{
    struct lens_comm *rec = lens_handle_get(lens_handle_key(&fh, sizeof fh));
    return rec ? rec : prof_comm(MPI_COMM_WORLD);
}
