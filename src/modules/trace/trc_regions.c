/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_regions.c: a region (Enter and Leave) for every function of the classification
 * (lens_classes.h) that the trace does not record more of by hand. Each wrapper here is a
 * weak definition: where trc_wrap.c or trc_rma.c defines the same function (with its
 * messages, collective or RMA events), the linker takes that one. So a data-moving call
 * the trace has no events for yet (nonblocking collectives, probes, file I/O, partitioned
 * calls) still shows as time in its MPI region, and a new function of mpi.h is traced as
 * soon as the classification lists it.
 */
#include "trc.h"

#define REGION_ONLY(N, F, M, P, A, FL, R)                                                          \
    __attribute__((weak)) int MPI_##N P                                                            \
    {                                                                                              \
        if (!trc_on)                                                                               \
            return mpilens_down_MPI_##N A;                                                         \
        trc_enter(R_##N);                                                                          \
        int rc = mpilens_down_MPI_##N A;                                                           \
        trc_leave(R_##N);                                                                          \
        return rc;                                                                                 \
    }
LENS_CLASSIFIED(REGION_ONLY)
