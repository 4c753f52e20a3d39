/* SPDX-License-Identifier: BSD-3-Clause */
/* module_overhead.c: what a module (profile, monitor) adds to real communication,
 * measured inside one process: blocks through MPI_ (the stack, with the module) alternate
 * with blocks through the MPI library's own PMPI_ (bench_common.c), medians reported.
 * Measured: 0-byte and 1 KiB ping-pong between ranks 0 and 1 (one way), MPI_Allreduce of
 * one double and MPI_Alltoall of one int per peer over all ranks.
 * With --finalize C, it first creates C duplicates of MPI_COMM_WORLD and does 5
 * operations on each (Barrier, Allreduce, Bcast, Allgather, a Sendrecv ring), then times
 * MPI_Finalize (the module's merge and write). Run it through bench/module_overhead.py.
 * With --only lib|stack OP N (one rank), it runs only operations OP (0 = 0-byte, 1 = 1 KiB
 * message to itself: Isend, Recv, Wait; 2 = Allreduce; 3 = Alltoall) through one path: N
 * to warm up, then N in counted_block, whose instructions bench/module_overhead.py
 * --callgrind counts (valgrind --toggle-collect=counted_block: the steady state alone, no
 * start-up or MPI_Finalize).
 * Usage: module_overhead [--finalize C | --only lib|stack OP N] [BLOCK_ITERATIONS] [PAIRS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*alltoall_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*barrier_fn)(MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*wait_fn)(MPI_Request *, MPI_Status *);

struct path {
    send_fn send;
    recv_fn recv;
    isend_fn isend;
    wait_fn wait;
    allreduce_fn allreduce;
    alltoall_fn alltoall;
};

static int rank, size;
static char buf[2048];
static int *a2a_out, *a2a_in;

/* ns per operation (one way for ping-pong) of one block. */
static double block(const struct path *p, int what, long n)
{
    ((barrier_fn)bench_library_function("PMPI_Barrier"))(MPI_COMM_WORLD);
    double t = bench_now(), x = 1, y;
    for (long i = 0; i < n; i++) {
        if (what <= 1) {
            int bytes = what == 0 ? 0 : 1024;
            if (size == 1) { /* to itself, for instruction counts */
                MPI_Request req;
                p->isend(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req);
                p->recv(buf + 1024, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                p->wait(&req, MPI_STATUS_IGNORE);
            } else if (rank == 0) {
                p->send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                p->recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                p->recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                p->send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        } else if (what == 2) {
            p->allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else {
            p->alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD);
        }
    }
    return (bench_now() - t) / n * 1e9 / (what <= 1 ? 2 : 1);
}

static void finalize_load(int comms)
{
    int x = rank, y[1024];
    for (int c = 0; c < comms; c++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Barrier(dup);
        MPI_Allreduce(&x, y, 1, MPI_INT, MPI_SUM, dup);
        MPI_Bcast(&x, 1, MPI_INT, 0, dup);
        MPI_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, dup);
        MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, y, 1, MPI_INT, (rank + size - 1) % size,
                     0, dup, MPI_STATUS_IGNORE);
        MPI_Comm_free(&dup);
    }
}

/* N operations WHAT through P: the block callgrind counts in --only mode. */
static __attribute__((noinline, noipa)) double counted_block(const struct path *p, int what, long n)
{
    volatile double ns = block(p, what, n); /* not a tail call: callgrind counts till here */
    return ns;
}

int main(int argc, char **argv)
{
    int finalize_comms = 0, a = 1, only = -1, only_op = 0;
    if (argc > 2 && strcmp(argv[1], "--finalize") == 0) {
        finalize_comms = atoi(argv[2]);
        a = 3;
    } else if (argc > 4 && strcmp(argv[1], "--only") == 0) {
        only = strcmp(argv[2], "stack") == 0;
        only_op = atoi(argv[3]);
        a = 4;
    }
    long n = argc > a ? atol(argv[a]) : 5000;
    int pairs = argc > a + 1 ? atoi(argv[a + 1]) : 9;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (finalize_comms > 0) {
        finalize_load(finalize_comms);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = bench_now();
        MPI_Finalize();
        if (rank == 0)
            printf("finalize_ms=%.2f comms=%d ranks=%d\n", (bench_now() - t) * 1e3, finalize_comms,
                   size);
        return 0;
    }
    a2a_out = calloc(size, sizeof *a2a_out);
    a2a_in = calloc(size, sizeof *a2a_in);
    struct path stack = {MPI_Send, MPI_Recv, MPI_Isend, MPI_Wait, MPI_Allreduce, MPI_Alltoall};
    struct path lib = {(send_fn)bench_library_function("PMPI_Send"),
                       (recv_fn)bench_library_function("PMPI_Recv"),
                       (isend_fn)bench_library_function("PMPI_Isend"),
                       (wait_fn)bench_library_function("PMPI_Wait"),
                       (allreduce_fn)bench_library_function("PMPI_Allreduce"),
                       (alltoall_fn)bench_library_function("PMPI_Alltoall")};
    if (only >= 0) {
        block(only ? &stack : &lib, only_op, n);
        counted_block(only ? &stack : &lib, only_op, n);
        MPI_Finalize();
        return 0;
    }
    static const char *const names[] = {"pingpong0", "pingpong1k", "allreduce", "alltoall"};
    if (pairs > 64)
        pairs = 64;
    for (int what = 0; what < 4; what++) {
        double l[64], s[64], d[64];
        block(&lib, what, n / 10);
        block(&stack, what, n / 10);
        for (int p = 0; p < pairs; p++) {
            l[p] = block(&lib, what, n);
            s[p] = block(&stack, what, n);
            d[p] = s[p] - l[p];
        }
        if (rank == 0)
            printf("%s_lib_ns=%.1f %s_stack_ns=%.1f %s_added_ns=%.1f ", names[what],
                   bench_median(l, pairs), names[what], bench_median(s, pairs), names[what],
                   bench_median(d, pairs));
    }
    if (rank == 0)
        printf("ranks=%d\n", size);
    MPI_Finalize();
    return 0;
}
