/* SPDX-License-Identifier: BSD-3-Clause */
/* pcontrol_levels.h: mpiP's MPI_Pcontrol levels for a module that counts (the profile, the
 * monitor): 0 stops recording, 1 resumes, 2 resets what was recorded, 3 writes an
 * intermediate result now (DIR/pcontrol/K, include/mpilens_snapshot.h), 4 writes and
 * resets. Other levels change nothing. The trace gives 1 and 0 its own meaning (a user
 * region opens, closes): docs/pcontrol.md.
 */
#ifndef LENS_PCONTROL_LEVELS_H
#define LENS_PCONTROL_LEVELS_H

#include "lens_hidden.h"

#include <stddef.h>

struct lens_pcontrol_ops {
    void (*stop)(void);
    void (*resume)(void);
    void (*reset)(void);
};

/* Acts on LEVEL for MODULE; a write that fails is said once as a problem of the run. */
LENS_HIDDEN void lens_pcontrol(const char *module, int level, const struct lens_pcontrol_ops *ops);

/* Checks a module's "pcontrol=" argument: "1" (mpiP's levels, the default) or "0" (ignored);
 * 0, or -1 with the reason in WHY. */
LENS_HIDDEN int lens_pcontrol_check(const char *module, const char *value, char *why, size_t len);

#endif
