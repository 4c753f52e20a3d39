/* dlopen_ring.c: tests/apps/ring.c for a program that is not linked with MPI, as an
 * interpreter's binding runs it: the MPI library is dlopened at run time (RTLD_LOCAL, or
 * RTLD_GLOBAL with `global`) and every function is taken from it with dlsym. Usage:
 * dlopen_ring LIBRARY [ROUNDS [global [late]]]; `late` first works a while without MPI (the
 * library is loaded only inside a function called late). Prints ring.c's line.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *lib;

static void *fn(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "dlopen_ring: %s: %s\n", name, dlerror());
        exit(1);
    }
    return f;
}
#define CALL(name, ...) ((int (*)())fn(#name))(__VA_ARGS__)

#ifdef OPEN_MPI /* the handles are objects in the library */
#define WORLD ((MPI_Comm)fn("ompi_mpi_comm_world"))
#define CHAR ((MPI_Datatype)fn("ompi_mpi_char"))
#define INT ((MPI_Datatype)fn("ompi_mpi_int"))
#define SUM ((MPI_Op)fn("ompi_mpi_op_sum"))
#else
#define WORLD MPI_COMM_WORLD
#define CHAR MPI_CHAR
#define INT MPI_INT
#define SUM MPI_SUM
#endif

static int ring(int argc, char **argv, int rounds)
{
    CALL(MPI_Init, &argc, &argv);
    int rank, size, bad = 0;
    CALL(MPI_Comm_rank, WORLD, &rank);
    CALL(MPI_Comm_size, WORLD, &size);
    char out[1024], in[1024];
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 1024; i++)
            out[i] = (char)(rank + i + r);
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        if (rank % 2 == 0) {
            CALL(MPI_Send, out, 1024, CHAR, right, r, WORLD);
            CALL(MPI_Recv, in, 1024, CHAR, left, r, WORLD, MPI_STATUS_IGNORE);
        } else {
            CALL(MPI_Recv, in, 1024, CHAR, left, r, WORLD, MPI_STATUS_IGNORE);
            CALL(MPI_Send, out, 1024, CHAR, right, r, WORLD);
        }
        for (int i = 0; i < 1024; i++)
            bad += in[i] != (char)(left + i + r);
    }
    CALL(MPI_Barrier, WORLD);
    CALL(MPI_Pcontrol, 1);
    int total = 0;
    CALL(MPI_Reduce, &bad, &total, 1, INT, SUM, 0, WORLD);
    if (rank == 0)
        printf("ring %s: %d ranks, %d rounds\n", total == 0 ? "ok" : "CORRUPT", size, rounds);
    CALL(MPI_Finalize);
    return total != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlopen_ring LIBRARY [ROUNDS [global [late]]]\n");
        return 2;
    }
    int global = argc > 3 && strcmp(argv[3], "global") == 0;
    if (argc > 4 && strcmp(argv[4], "late") == 0) { /* work before MPI exists */
        volatile double x = 0;
        for (int i = 0; i < 1000000; i++)
            x += i * 0.5;
    }
    lib = dlopen(argv[1], RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (!lib) {
        fprintf(stderr, "dlopen_ring: %s\n", dlerror());
        return 1;
    }
    return ring(argc, argv, argc > 2 ? atoi(argv[2]) : 1);
}
/* SPDX-License-Identifier: BSD-3-Clause */
