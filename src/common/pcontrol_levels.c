/* SPDX-License-Identifier: BSD-3-Clause */
/* pcontrol_levels.c: mpiP's MPI_Pcontrol levels (pcontrol_levels.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mpilens_snapshot.h"
#include "pcontrol_levels.h"
#include "run_output.h"

static void write_intermediate(const char *module, int level)
{
    char where[4400];
    if (mpilens_snapshot_intermediate(level, where, sizeof where) >= 0)
        return;
    static int said;
    if (!said++)
        lens_run_problem(module,
                         "%s: MPI_Pcontrol(%d): the intermediate result could not be written "
                         "(%s); the run's final result is not affected",
                         module, level, strerror(errno));
}

void lens_pcontrol(const char *module, int level, const struct lens_pcontrol_ops *ops)
{
    switch (level) {
    case 0:
        ops->stop();
        break;
    case 1:
        ops->resume();
        break;
    case 2:
        ops->reset();
        break;
    case 3:
        write_intermediate(module, level);
        break;
    case 4:
        write_intermediate(module, level);
        ops->reset();
        break;
    default:
        break;
    }
}

int lens_pcontrol_check(const char *module, const char *value, char *why, size_t len)
{
    if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0)
        return 0;
    snprintf(why, len,
             "%s: pcontrol='%s': give pcontrol=1 (MPI_Pcontrol levels as in mpiP: 0 stop, 1 "
             "resume, 2 reset, 3 write, 4 write and reset) or pcontrol=0 (ignore them)",
             module, value);
    return -1;
}
