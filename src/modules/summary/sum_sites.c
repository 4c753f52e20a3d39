/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_sites.c: the sampled call-site table (sum_sites.h). Only sum_sample, the cold path
 * taken when the sampling clock has ticked during a call, reaches it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpilens.h"
#include "sum.h"
#include "sum_sites.h"

#define SLOTS 1024 /* a power of two */
#define PROBES 16
static struct {
    void *site; /* NULL: free */
    int op;
    uint64_t ticks;
} table[SLOTS];
static uint64_t dropped_ticks;

void sum_sites_add(int op, void *return_address, uint64_t ticks)
{
    void *site = mpilens_site ? mpilens_site(return_address) : return_address;
    uintptr_t h = ((uintptr_t)site >> 2) * 31 + (uintptr_t)op;
    for (int p = 0; p < PROBES; p++) {
        unsigned s = (unsigned)((h + (uintptr_t)p) & (SLOTS - 1));
        void *seen = __atomic_load_n(&table[s].site, __ATOMIC_ACQUIRE);
        if (seen == NULL) {
            if (!__atomic_compare_exchange_n(&table[s].site, &seen, site, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE) &&
                seen != site)
                continue;
            table[s].op = op; /* the claiming thread's op: a collision of ops is rare */
        } else if (seen != site || table[s].op != op) {
            continue;
        }
        __atomic_fetch_add(&table[s].ticks, ticks, __ATOMIC_RELAXED);
        return;
    }
    __atomic_fetch_add(&dropped_ticks, ticks, __ATOMIC_RELAXED);
}

static int by_seconds(const void *a, const void *b)
{
    const struct sum_site_row *x = a, *y = b;
    return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

/* SITE as (object, offset) or a label. */
static void where(void *site, struct sum_site_row *row)
{
    const char *label = mpilens_site_label ? mpilens_site_label(site) : NULL;
    if (label) {
        snprintf(row->path, sizeof row->path, "%s", label);
        row->offset = 0;
        return;
    }
    Dl_info info;
    if (!dladdr(site, &info) || !info.dli_fbase) {
        snprintf(row->path, sizeof row->path, "?");
        row->offset = (uint64_t)(uintptr_t)site;
        return;
    }
    row->offset = (uint64_t)((uintptr_t)site - (uintptr_t)info.dli_fbase);
    /* the object's real path, looked up once per object: a site's path is its object's */
    static const void *last_base;
    static char last_path[PATH_MAX];
    if (info.dli_fbase != last_base) {
        const char *path = info.dli_fname && info.dli_fname[0] ? info.dli_fname : "/proc/self/exe";
        if (!realpath(path, last_path))
            snprintf(last_path, sizeof last_path, "%s", path);
        last_base = info.dli_fbase;
    }
    snprintf(row->path, sizeof row->path, "%s", last_path);
}

static int by_ticks(const void *a, const void *b)
{
    uint64_t x = table[*(const int *)a].ticks, y = table[*(const int *)b].ticks;
    return (x < y) - (x > y);
}

int sum_sites_top(struct sum_site_row *rows, double seconds_per_tick, double *dropped)
{
    static int used[SLOTS];
    int n = 0;
    for (int s = 0; s < SLOTS; s++)
        if (table[s].site && table[s].ticks > 0)
            used[n++] = s;
    qsort(used, (size_t)n, sizeof *used, by_ticks);
    n = n < SUM_TOP_SITES ? n : SUM_TOP_SITES;
    for (int i = 0; i < n; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].seconds = (double)table[used[i]].ticks * seconds_per_tick;
        rows[i].op = table[used[i]].op;
        where(table[used[i]].site, &rows[i]);
    }
    *dropped = (double)dropped_ticks * seconds_per_tick;
    return n;
}

void sum_sites_merge(struct sum_site_row *a, int *na, const struct sum_site_row *b, int nb)
{
    struct sum_site_row all[2 * SUM_TOP_SITES];
    int n = *na;
    memcpy(all, a, (size_t)n * sizeof *a);
    for (int i = 0; i < nb; i++) {
        int j = 0;
        while (j < n && !(all[j].op == b[i].op && all[j].offset == b[i].offset &&
                          strcmp(all[j].path, b[i].path) == 0))
            j++;
        if (j < n)
            all[j].seconds += b[i].seconds;
        else
            all[n++] = b[i];
    }
    qsort(all, (size_t)n, sizeof *all, by_seconds);
    *na = n < SUM_TOP_SITES ? n : SUM_TOP_SITES;
    memcpy(a, all, (size_t)*na * sizeof *a);
}
