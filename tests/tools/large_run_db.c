/* large_run_db.c: writes DIR/mpilens.db as a run of N ranks would leave it, through src/db's
 * writers (the modules' own), for the tests that need a job larger than two cores can run
 * in a test's time (the page of a 1024-rank run: tests/profile/test_page.sh). The workload
 * it stands for: a ring of MPI_Sendrecv (100 x 8 KiB to the next rank) and 100
 * MPI_Allreduce on the world, 32 ranks per host, every 7th rank computing half as long
 * again; the profile (per rank), the monitor's matrix and hosts, and analyze's waits.
 * Usage: large_run_db DIR N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "rundb_write.h"

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (n < 2) {
        fprintf(stderr, "usage: large_run_db DIR N (N >= 2)\n");
        return 2;
    }
    struct rundb run;
    char err[1024], text[64];
    mkdir(argv[1], 0755); /* or it is there: rundb_begin says what is wrong */
    if (rundb_begin(&run, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "large_run_db: %s\n", err);
        return 2;
    }
    int rc = rundb_profile_create(&run) | rundb_monitor_create(&run) | rundb_waits_create(&run);
    snprintf(text, sizeof text, "%d", n);
    rc |= rundb_put_metadata(&run, "Processes", text);
    rc |= rundb_put_metadata(&run, "Run command", "mpirun -np N ./ring_allreduce (generated)");
    rc |= rundb_put_metadata(&run, "Profile detail", "ranks");
    rc |= rundb_put_metadata(&run, "Buckets", "128,1024,8192,65536");
    static const int64_t bounds[][2] = {{0, 128}, {129, 1024}, {1025, 8192}};
    for (int b = 0; b < 3; b++)
        rc |= rundb_put_bucket(&run, b, bounds[b][0], bounds[b][1]);
    rc |= rundb_put_operation(&run, 0, "Init", "coll") |
          rundb_put_operation(&run, 1, "Sendrecv", "p2p") |
          rundb_put_operation(&run, 2, "Allreduce", "coll");
    int32_t *members = malloc((size_t)n * sizeof *members);
    for (int r = 0; members && r < n; r++)
        members[r] = r;
    int world = 0;
    rc |= !members ||
          rundb_put_communicator(&run, "W0.0", n, "MPI_COMM_WORLD", members, NULL, &world);
    rc |= rundb_put_phase(&run, 0, "run");
    for (int r = 0; r < n && rc == 0; r++) {
        double useful = r % 7 == 0 ? 1.5 : 1.0, sendrecv = 0.05, allreduce = 0.5 - 0.05 * (r % 7);
        char host[32];
        snprintf(host, sizeof host, "node%d", r / 32 + 1);
        rc |= rundb_put_rank(&run, r, host, 0.3 + useful + sendrecv + allreduce,
                             0.3 + sendrecv + allreduce, 0.3);
        rc |= rundb_put_profile(&run, r, world, 0, 0, 1, 0.3, 0.3, 0);
        rc |= rundb_put_profile(&run, r, world, 1, 2, 100, sendrecv, 0.001, 819200);
        rc |= rundb_put_profile(&run, r, world, 2, 0, 100, allreduce, 0.01, 800);
        rc |= rundb_put_rank_host(&run, r, host);
        rc |= rundb_put_matrix(&run, 0, "p2p", r, (r + 1) % n, 100, 819200);
        rc |= rundb_put_wait(&run, "MPI", "MPI_Allreduce", r, allreduce, NULL);
        rc |= rundb_put_wait(&run, "Wait at N x N", "MPI_Allreduce", r, allreduce - 0.01, NULL);
        rc |= rundb_put_wait_time(&run, r, 0.3 + useful + sendrecv + allreduce);
    }
    free(members);
    if (rundb_finish(&run, rc != 0, "the generated run", err, sizeof err) != 0) {
        fprintf(stderr, "large_run_db: %s\n", err);
        return 2;
    }
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
