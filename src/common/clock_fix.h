/* clock_fix.h: the linear clock correction of a traced rank: its offset to rank 0's clock
 * was measured at the start and at the end of the run (ClockOffset records of its OTF2
 * definitions); between them, the offset is interpolated. Used by export and analyze.
 */
#ifndef LENS_CLOCK_FIX_H
#define LENS_CLOCK_FIX_H

#include <stdint.h>

struct clock_fix {
    int points;
    uint64_t time[2];
    int64_t offset[2];
};

static inline void clock_fix_add(struct clock_fix *c, uint64_t time, int64_t offset)
{
    if (c->points < 2) {
        c->time[c->points] = time;
        c->offset[c->points++] = offset;
    }
}

/* t on rank 0's clock. */
static inline uint64_t clock_fix_apply(const struct clock_fix *c, uint64_t t)
{
    if (c->points == 0)
        return t;
    double o = (double)c->offset[0];
    if (c->points == 2 && c->time[1] > c->time[0])
        o += ((double)c->offset[1] - (double)c->offset[0]) * ((double)t - (double)c->time[0]) /
             (double)(c->time[1] - c->time[0]);
    /* a damaged trace may hold any offset: the result stays a time (0..2^64) */
    double fixed = (double)t - o;
    return fixed > 0 ? fixed < 18446744073709549568.0 ? (uint64_t)fixed : UINT64_MAX : 0;
}

#endif
