/* dynb_random.c: random dynbcast patterns (2-8 ranks): every handle has a random owner and
 * random destinations (with repeats); sends come before or after readiness, receives are
 * posted before or after the data arrives; every receiver checks every byte. Then a handle
 * sent twice to one destination (sent once), and a broadcast to all other ranks.
 * Usage: dynb_random [HANDLES] [dynamic|p2p] [SEED]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynbcast.h"

static unsigned char pattern(int h, size_t i)
{
    return (unsigned char)(h * 31 + i * 7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, handles = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct dynb_options opt = {
        argc > 2 && strcmp(argv[2], "p2p") == 0 ? DYNB_P2P : DYNB_BINOMIAL, 0, 0, 1, 1, 0};
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1; /* same on every rank */
    dynb_t *d;
    dynb_create(MPI_COMM_WORLD, &opt, &d);
    unsigned char **bufs = calloc(handles, sizeof *bufs);
    int *owner = calloc(handles, sizeof *owner), *expect = calloc(handles, sizeof *expect);
    size_t *bytes = calloc(handles, sizeof *bytes);
    int *before = calloc(handles, sizeof *before), *late_recv = calloc(handles, sizeof *late_recv);
    int dests[16][64], ndests[4096];
    for (int h = 0; h < handles; h++) {
        owner[h] = rand_r(&seed) % size;
        bytes[h] = (size_t[]){0, 1, 100, 4096, 70000}[rand_r(&seed) % 5];
        ndests[h] = 1 + rand_r(&seed) % (2 * size);
        for (int k = 0; k < ndests[h] && k < 64; k++)
            dests[h % 16][k] = rand_r(&seed) % size;
        before[h] = rand_r(&seed) % 2;
        late_recv[h] = rand_r(&seed) % 2;
        bufs[h] = malloc(bytes[h] + 1);
        int wanted = 0;
        for (int k = 0; k < ndests[h] && k < 64; k++)
            wanted |= dests[h % 16][k] == rank && rank != owner[h];
        expect[h] = wanted;
        if (rank == owner[h]) {
            for (size_t i = 0; i < bytes[h]; i++)
                bufs[h][i] = pattern(h, i);
            dynb_declare(d, (uint64_t)h, owner[h], bufs[h], bytes[h]);
            for (int k = 0; before[h] && k < ndests[h] && k < 64; k++)
                dynb_send(d, (uint64_t)h, dests[h % 16][k]);
            dynb_ready(d, (uint64_t)h);
            for (int k = 0; !before[h] && k < ndests[h] && k < 64; k++)
                dynb_send(d, (uint64_t)h, dests[h % 16][k]);
        } else if (wanted && !late_recv[h]) {
            memset(bufs[h], 0xff, bytes[h]);
            dynb_declare(d, (uint64_t)h, owner[h], bufs[h], bytes[h]);
            dynb_recv(d, (uint64_t)h);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* late receivers post after the data may have arrived */
    int received = 0, bad = 0;
    for (int h = 0; h < handles; h++) {
        if (!expect[h])
            continue;
        if (late_recv[h]) {
            memset(bufs[h], 0xff, bytes[h]);
            dynb_declare(d, (uint64_t)h, owner[h], bufs[h], bytes[h]);
            dynb_recv(d, (uint64_t)h);
        }
        dynb_wait(d, (uint64_t)h);
        for (size_t i = 0; i < bytes[h]; i++)
            bad += bufs[h][i] != pattern(h, i);
        received++;
    }
    /* A handle sent twice to one destination goes once. */
    struct dynb_stats before_twice, after_twice;
    dynb_get_stats(d, &before_twice);
    char one = 42, got = 0;
    uint64_t twice = 1000000;
    if (rank == 0) {
        dynb_declare(d, twice, 0, &one, 1);
        dynb_send(d, twice, size - 1);
        dynb_send(d, twice, size - 1);
        dynb_ready(d, twice);
        dynb_send(d, twice, size - 1);
    } else if (rank == size - 1) {
        dynb_declare(d, twice, 0, &got, 1);
        dynb_recv(d, twice);
        dynb_wait(d, twice);
        bad += got != 42;
    }
    dynb_get_stats(d, &after_twice);
    int twice_sent = (int)(after_twice.messages_sent - before_twice.messages_sent);
    MPI_Barrier(MPI_COMM_WORLD);
    dynb_destroy(d);
    int totals[2] = {received, bad}, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dynb_random %s: %d ranks, %d handles, %d receives checked, same destination "
               "twice: %d message\n",
               sums[1] ? "CORRUPT" : "ok", size, handles, sums[0], twice_sent);
    MPI_Finalize();
    return sums[1] != 0 && rank == 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
