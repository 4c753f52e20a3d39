/* SPDX-License-Identifier: BSD-3-Clause */
/* run_output.c: the module side of the run's output directory (run_output.h). */
#include <stdlib.h>

#include "mpilens.h"
#include "run_output.h"

const char *lens_run_output_dir(void)
{
    const char *dir = mpilens_output_dir ? mpilens_output_dir() : NULL;
    if (!dir)
        dir = getenv("MPILENS_OUTPUT");
    return dir && *dir ? dir : ".";
}
