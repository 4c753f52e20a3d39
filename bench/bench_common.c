/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_common.c: clock, median and the library's own functions for the benchmarks. */
#define _GNU_SOURCE
#include "bench_common.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int find_libmpi(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libmpi.so", 9) == 0 || strncmp(base, "libmpich.so", 11) == 0) {
        snprintf(out, 4096, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

void *bench_library_function(const char *name)
{
    static void *lib;
    if (!lib) {
        char path[4096] = "";
        dl_iterate_phdr(find_libmpi, path);
        lib = dlopen(path, RTLD_NOLOAD | RTLD_NOW);
        if (!lib) {
            fprintf(stderr, "bench: cannot find the MPI library (%s)\n", path);
            exit(1);
        }
    }
    return dlsym(lib, name);
}
