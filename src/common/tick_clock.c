/* SPDX-License-Identifier: BSD-3-Clause */
/* tick_clock.c: the time-stamp counter's flags, read from /proc/cpuinfo (tick_clock.h). */
#include <stdio.h>
#include <string.h>

#include "tick_clock.h"

int lens_tsc_constant(void)
{
    int constant = 0;
#if defined(__x86_64__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    while (f && !constant && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0)
            constant = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
    if (f)
        fclose(f);
#endif
    return constant;
}
