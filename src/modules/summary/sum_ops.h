/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_ops.h: the summary module's operations: every data-moving function of the installed
 * mpi.h (the classification, lens_classes.h) and the completion calls, numbered here.
 */
#ifndef SUM_OPS_H
#define SUM_OPS_H

#include "lens_classes.h"

/* The completion and start calls, wrapped by hand (sum_waits.c). */
#define SUM_HAND_OPS(X)                                                                            \
    X(Wait)                                                                                        \
    X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome) X(Start) X(Startall)

#define SUM_OP_CLASSIFIED(N, F, M, P, A, FL, R) SUM_OP_##N,
#define SUM_OP_HAND(N) SUM_OP_##N,
enum sum_op { LENS_CLASSIFIED(SUM_OP_CLASSIFIED) SUM_HAND_OPS(SUM_OP_HAND) SUM_OPS };
#undef SUM_OP_CLASSIFIED
#undef SUM_OP_HAND

__attribute__((visibility("hidden"))) extern const char *const sum_op_names[SUM_OPS];

#endif
