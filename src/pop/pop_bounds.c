/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_bounds.c: the POP metrics within their definitions (pop_bounds.h). */
#include "pop_bounds.h"

double pop_within_unit(double v)
{
    if (v < -0.5)
        return v; /* absent */
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

void pop_replay_within(double *serialization, double *transfer)
{
    if (*serialization < 0 || *transfer < 0)
        return;
    if (*transfer > 1) { /* the ideal run taken as long as the real one */
        *serialization *= *transfer;
        *transfer = 1;
    }
    *serialization = pop_within_unit(*serialization);
    *transfer = pop_within_unit(*transfer);
}
