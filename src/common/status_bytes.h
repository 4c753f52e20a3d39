/* SPDX-License-Identifier: BSD-3-Clause */
/* status_bytes.h: the bytes a completed receive (or file access) moved, read from its
 * status without a library call where the MPI's status layout is known (Open MPI keeps the
 * byte count in _ucount, MPICH in count_lo and the high bits of count_hi_and_cancelled:
 * exactly what their MPI_Get_count divides by the type's size), else through
 * PMPI_Get_count with MPI_BYTE. The hot paths of profile and trace use it for every
 * receive; tests compare its bytes with what the programs sent.
 */
#ifndef LENS_STATUS_BYTES_H
#define LENS_STATUS_BYTES_H

#include <mpi.h>
#include <stdint.h>

static inline uint64_t lens_status_bytes(const MPI_Status *st)
{
#if defined(OPEN_MPI) && OPEN_MPI
    return (uint64_t)st->_ucount;
#elif defined(MPICH_VERSION)
    return ((uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32) | (unsigned)st->count_lo;
#else
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
        return 0;
    return (uint64_t)n;
#endif
}

#endif
