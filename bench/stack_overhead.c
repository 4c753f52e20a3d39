/* SPDX-License-Identifier: BSD-3-Clause */
/* stack_overhead.c: what the mpilens stack adds to an MPI call, measured inside one
 * process (run it through bench/stack_overhead.py, which varies the stack).
 *
 * The baseline is the MPI library's own PMPI_ function, found with dlopen + dlsym on
 * libmpi itself (no preloaded tool can intercept that); the measured path is the same
 * call through MPI_ (the application's path, through whatever stack is loaded). Blocks
 * of both alternate, so drifts of the machine hit both alike; the report takes medians.
 * Measured: MPI_Comm_rank (a cheap, local call) and a 0-byte ping-pong between ranks 0
 * and 1 (one-way time), plus the time MPI_Init and the core's start-up took.
 * Usage: stack_overhead [CALLS_PER_BLOCK] [ROUNDTRIPS_PER_BLOCK] [PAIRS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "mpilens.h"

typedef int (*comm_rank_fn)(MPI_Comm, int *);
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static double time_comm_rank(comm_rank_fn fn, long calls)
{
    int rank;
    double t = bench_now();
    for (long i = 0; i < calls; i++)
        fn(MPI_COMM_WORLD, &rank);
    return (bench_now() - t) / calls * 1e9;
}

/* One-way time in ns of a 0-byte ping-pong between ranks 0 and 1. */
static double time_pingpong(send_fn send, recv_fn recv, int rank, long trips)
{
    char byte = 0;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t = bench_now();
    for (long i = 0; i < trips && rank < 2; i++) {
        if (rank == 0) {
            send(&byte, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            recv(&byte, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            recv(&byte, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            send(&byte, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (bench_now() - t) / (2.0 * trips) * 1e9;
}

int main(int argc, char **argv)
{
    double t0 = bench_now();
    MPI_Init(&argc, &argv);
    double init_ms = (bench_now() - t0) * 1e3;
    long calls = argc > 1 ? atol(argv[1]) : 200000;
    long trips = argc > 2 ? atol(argv[2]) : 20000;
    int pairs = argc > 3 ? atoi(argv[3]) : 15, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* The application's path: what its calls to MPI_X resolve to (the stack's entry when
     * mpilens is preloaded, the library's MPI_X otherwise), called the same way. */
    comm_rank_fn stack_rank = MPI_Comm_rank;
    send_fn stack_send = MPI_Send;
    recv_fn stack_recv = MPI_Recv;
    comm_rank_fn lib_rank = (comm_rank_fn)bench_library_function("PMPI_Comm_rank");
    send_fn lib_send = (send_fn)bench_library_function("PMPI_Send");
    recv_fn lib_recv = (recv_fn)bench_library_function("PMPI_Recv");

    double rl[64], rs[64], rd[64], pl[64], ps[64], pd[64];
    if (pairs > 64)
        pairs = 64;
    time_comm_rank(lib_rank, calls); /* warm-up */
    time_comm_rank(stack_rank, calls);
    for (int p = 0; p < pairs; p++) {
        rl[p] = time_comm_rank(lib_rank, calls);
        rs[p] = time_comm_rank(stack_rank, calls);
        rd[p] = rs[p] - rl[p];
        pl[p] = time_pingpong(lib_send, lib_recv, rank, trips);
        ps[p] = time_pingpong(stack_send, stack_recv, rank, trips);
        pd[p] = ps[p] - pl[p];
    }
    if (rank == 0)
        printf("modules=%d comm_rank_lib_ns=%.2f comm_rank_stack_ns=%.2f comm_rank_added_ns=%.2f "
               "pingpong_lib_ns=%.1f pingpong_stack_ns=%.1f pingpong_added_ns=%.1f "
               "init_ms=%.2f boot_ms=%.2f\n",
               mpilens_loaded() ? mpilens_module_count() : -1, bench_median(rl, pairs),
               bench_median(rs, pairs), bench_median(rd, pairs), bench_median(pl, pairs),
               bench_median(ps, pairs), bench_median(pd, pairs), init_ms,
               mpilens_boot_seconds ? 1e3 * mpilens_boot_seconds() : 0.0);
    MPI_Finalize();
    return 0;
}
