/* ompi_import.c: the importer of ompi_import.h. */
#include "ompi_import.h"

#include <stdio.h>
#include <stdlib.h>

#include "ompi_prof.h"
#include "rundb.h"

static int insert_rows(sqlite3 *db, const struct prof_entry *e, int n)
{
    sqlite3_stmt *st;
    int failed = 0;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO monitor_matrix SELECT id, ?1, ?2, ?3, ?4, ?5"
                           " FROM monitor_phases WHERE name = 'run'",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    for (int i = 0; i < n; i++) {
        sqlite3_bind_text(st, 1, e[i].internal ? "lib_coll" : "lib_p2p", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, e[i].src);
        sqlite3_bind_int(st, 3, e[i].dst);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)e[i].count);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)e[i].bytes);
        failed |= sqlite3_step(st) != SQLITE_DONE;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
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
    int rc = rundb_begin(&run, dir, err, errlen);
    if (rc == 0)
        rc = rundb_exec(run.db, rundb_monitor_schema, err, errlen);
    if (rc == 0)
        rc = rundb_exec(run.db,
                        "INSERT OR IGNORE INTO monitor_phases (name) VALUES ('run');"
                        "DELETE FROM monitor_matrix WHERE kind IN ('lib_p2p', 'lib_coll');",
                        err, errlen);
    if (rc == 0 && (rc = insert_rows(run.db, e, n)) != 0)
        snprintf(err, errlen, "%s/%s: cannot write the library's matrix: %s", dir, RUNDB_FILE,
                 sqlite3_errmsg(run.db));
    free(e);
    if (rc != 0) {
        rundb_abort(&run);
        return -1;
    }
    return rundb_commit(&run, err, errlen) == 0 ? n : -1;
}
