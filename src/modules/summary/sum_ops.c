/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_ops.c: the names of the summary module's operations ("MPI_Send"), by sum_op. */
#include "sum_ops.h"

#define SUM_NAME_CLASSIFIED(N, F, M, P, A, FL, R) "MPI_" #N,
#define SUM_NAME_HAND(N) "MPI_" #N,
const char *const sum_op_names[SUM_OPS] = {LENS_CLASSIFIED(SUM_NAME_CLASSIFIED)
                                               SUM_HAND_OPS(SUM_NAME_HAND)};
