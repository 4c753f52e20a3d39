/* SPDX-License-Identifier: BSD-3-Clause */
/* tick_clock.h: whether the CPU's time-stamp counter runs at a constant rate (x86-64 with
 * constant_tsc and nonstop_tsc in /proc/cpuinfo), so that a module may time calls with it
 * and convert ticks to seconds once, over the whole run. Each module compiles its own copy.
 */
#ifndef LENS_TICK_CLOCK_H
#define LENS_TICK_CLOCK_H

#include "lens_hidden.h"

LENS_HIDDEN int lens_tsc_constant(void); /* 1: use the counter; 0: clock_gettime */

#endif
