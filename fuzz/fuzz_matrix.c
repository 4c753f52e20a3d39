/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_matrix.c: libFuzzer target for the traffic-matrix readers of `mpilens place` and
 * `mpilens run --ompi-monitoring`: the input as a src,dst,value CSV file (triples.c) and
 * as an Open MPI monitoring .prof file (ompi_prof.c). Every rank they accept must be in
 * range and every value finite, so nothing downstream allocates without bound.
 */
#include <math.h>

#include "../src/cli/ompi_prof.h"
#include "../src/cli/triples.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct triples t = {0};
    char err[1024];
    if (triples_read_csv(fuzz_file("m.csv", data, size), &t, err, sizeof err) == 0) {
        for (size_t i = 0; i < t.count; i++)
            if (t.src[i] < 0 || t.dst[i] < 0 || t.src[i] >= t.n || t.dst[i] >= t.n ||
                t.n > TRIPLES_MAX_RANKS || !isfinite(t.value[i]) || t.value[i] < 0)
                abort();
    }
    triples_free(&t);
    struct prof_entry *e = NULL;
    int ranks;
    fuzz_file("p.0.prof", data, size);
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s/p", fuzz_dir());
    int n = ompi_prof_load(prefix, &e, &ranks, err, sizeof err);
    for (int i = 0; i < n; i++)
        if (e[i].src < 0 || e[i].dst < 0 || e[i].src >= ranks || e[i].dst >= ranks ||
            ranks > OMPI_PROF_MAX_RANKS)
            abort();
    free(e);
    return 0;
}
