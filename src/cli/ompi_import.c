/* SPDX-License-Identifier: BSD-3-Clause */
/* ompi_import.c: the importer of ompi_import.h. */
#include "ompi_import.h"

#include <stdio.h>
#include <stdlib.h>

#include "ompi_prof.h"
#include "rundb_write.h"

static int insert_rows(struct rundb *run, const struct prof_entry *e, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++)
        failed |= rundb_put_lib_matrix(run, e[i].internal ? "lib_coll" : "lib_p2p", e[i].src,
                                       e[i].dst, e[i].count, e[i].bytes) != 0;
    return failed ? -1 : 0;
}

int ompi_import(const char *dir, const char *prefix, char *err, size_t errlen)
{
    struct prof_entry *e;
    int ranks, n = ompi_prof_load(prefix, &e, &ranks, err, errlen);
    if (n == -2)
        return -1;
    if (n < 0) {
        snprintf(err, errlen,
                 "%s.0.prof: missing; Open MPI's monitoring wrote nothing (is the launcher Open "
                 "MPI's mpirun, with its pml monitoring component installed?)",
                 prefix);
        return -1;
    }
    struct rundb run;
    if (rundb_begin(&run, dir, err, errlen) != 0) {
        free(e);
        return -1;
    }
    int failed = rundb_monitor_create(&run) != 0 || rundb_lib_matrix_reset(&run) != 0 ||
                 insert_rows(&run, e, n) != 0;
    free(e);
    return rundb_finish(&run, failed, "the library's matrix", err, errlen) == 0 ? n : -1;
}
