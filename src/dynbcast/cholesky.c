/* SPDX-License-Identifier: BSD-3-Clause */
/* cholesky.c: dynbcast-cholesky, a distributed tiled Cholesky factorization (A = L L^T)
 * on a 2D block-cyclic grid of ranks, run by a small task runtime on top of dynbcast.
 *
 * Submission: every rank walks the task graph (POTRF, TRSM, SYRK, GEMM per step k) in the
 * same order; the owner of each tile the factorization produces posts its sends to every
 * rank that will need it (before the tile exists: dynbcast gathers them into broadcasts),
 * and those ranks post their receives. Execution: each rank runs its own tasks as soon as
 * their inputs are there (remote tiles arrived, earlier updates of the tile done), calling
 * into dynbcast between tasks so messages progress and forwards leave.
 * Usage: dynbcast-cholesky -n N -b TILE [--bcast dynamic|p2p|tree] [--net LAT_US,BW_MBPS]
 *        [--no-check]
 *
 * Built with smpicc -DDYNB_SMPI (bench/dynbcast_simgrid.sh), each kernel is charged to the
 * simulated host by its flop count (run it with smpi/simulate-computation off, so nothing
 * else the rank does on the real processor counts as compute); with --no-check the kernels
 * are not run at all and the tiles share memory (SMPI_SHARED_MALLOC): only their sizes and
 * the task graph matter then, so large matrices fit on one machine.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynbcast.h"

#ifdef DYNB_SMPI
#include <smpi/smpi.h>
#define CHARGE(flops) smpi_execute_flops(flops)
#else
#define CHARGE(flops) ((void)0)
#endif

enum kind { POTRF, TRSM, SYRK, GEMM };

struct task {
    enum kind kind;
    int i, j, k, done;
};

static int n, b, nt, P, Q, rank, size;
static double **tile;   /* tile[i * nt + j] (i >= j), owned tiles only */
static double **remote; /* received L tiles, by handle */
static int *updates;    /* owned tiles: updates applied (k of the next one) */
static int *final;      /* owned tiles: factor applied */
static dynb_t *dynb;
static int skip_kernels; /* simulated and unchecked: charge the flops, compute nothing */

/* A tile's memory. Unchecked simulations compute nothing, so every tile of a rank is one
 * scratch tile: messages still carry b x b doubles, and 100 simulated ranks of a large
 * matrix fit in one machine's memory. */
static double *tile_alloc(void)
{
    static double *scratch;
    if (skip_kernels)
        return scratch ? scratch : (scratch = malloc((size_t)b * b * sizeof(double)));
    return malloc((size_t)b * b * sizeof(double));
}

/* The process grid P x Q, as square as the rank count allows, P >= Q (Open MPI's
 * MPI_Dims_create; SimGrid's gives 25 x 4 for 100). */
static void grid(int ranks, int *p, int *q)
{
    *q = 1;
    for (int d = 1; d * d <= ranks; d++)
        if (ranks % d == 0)
            *q = d;
    *p = ranks / *q;
}

static int owner(int i, int j)
{
    return (i % P) * Q + (j % Q);
}
static uint64_t handle(int i, int k)
{
    return (uint64_t)i * nt + k;
}

static double element(int r, int c)
{
    int lo = r < c ? r : c, hi = r < c ? c : r;
    unsigned x = (unsigned)(lo * 7919 + hi * 104729 + 12345);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return (x % 1000) / 1000.0 + (r == c ? n : 0);
}

static void generate(double *t, int ti, int tj)
{
    for (int c = 0; c < b; c++)
        for (int r = 0; r < b; r++)
            t[c * b + r] = element(ti * b + r, tj * b + c);
}

/* The ranks that need L(i,k) (a final tile), without its owner. */
static int needers(int i, int k, int *out)
{
    int count = 0;
    char *seen = calloc(size, 1);
#define NEED(r)                                                                                    \
    do {                                                                                           \
        int r_ = (r);                                                                              \
        if (r_ != owner(i, k) && !seen[r_]) {                                                      \
            seen[r_] = 1;                                                                          \
            out[count++] = r_;                                                                     \
        }                                                                                          \
    } while (0)
    if (i == k) {
        for (int m = k + 1; m < nt; m++)
            NEED(owner(m, k));
    } else {
        NEED(owner(i, i));
        for (int j = k + 1; j < i; j++)
            NEED(owner(i, j));
        for (int m = i + 1; m < nt; m++)
            NEED(owner(m, i));
    }
#undef NEED
    free(seen);
    return count;
}

/* L(i,k) if it is available here (own and final, or arrived), else NULL. */
static const double *input(int i, int k)
{
    if (owner(i, k) == rank)
        return final[i * nt + k] ? tile[i * nt + k] : NULL;
    int done = 0;
    dynb_test(dynb, handle(i, k), &done);
    return done ? remote[i * nt + k] : NULL;
}

static int run_if_ready(struct task *t)
{
    double *a = tile[t->i * nt + t->j];
    if (updates[t->i * nt + t->j] != t->k)
        return 0;
    const double *x, *y;
    switch (t->kind) {
    case POTRF:
        CHARGE((double)b * b * b / 3.0);
        if (!skip_kernels && LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', b, a, b) != 0) {
            fprintf(stderr, "dynbcast-cholesky: the matrix is not positive definite\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        final[t->i * nt + t->j] = 1;
        dynb_ready(dynb, handle(t->i, t->j));
        break;
    case TRSM:
        if (!(x = input(t->k, t->k)))
            return 0;
        CHARGE((double)b * b * b);
        if (!skip_kernels)
            cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, b, b, 1.0,
                        x, b, a, b);
        final[t->i * nt + t->j] = 1;
        dynb_ready(dynb, handle(t->i, t->j));
        break;
    case SYRK:
        if (!(x = input(t->i, t->k)))
            return 0;
        CHARGE((double)b * b * (b + 1));
        if (!skip_kernels)
            cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, b, b, -1.0, x, b, 1.0, a, b);
        updates[t->i * nt + t->j]++;
        break;
    case GEMM:
        if (!(x = input(t->i, t->k)) || !(y = input(t->j, t->k)))
            return 0;
        CHARGE(2.0 * b * b * b);
        if (!skip_kernels)
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1.0, x, b, y, b, 1.0, a,
                        b);
        updates[t->i * nt + t->j]++;
        break;
    }
    t->done = 1;
    return 1;
}

/* ||A - L L^T||_F / ||A||_F on rank 0, with every tile of L gathered there. */
static double residual(void)
{
    double *l = rank == 0 ? calloc((size_t)n * n, sizeof *l) : NULL;
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) {
            int o = owner(i, j);
            double *t = malloc((size_t)b * b * sizeof *t);
            if (o == rank)
                memcpy(t, tile[i * nt + j], (size_t)b * b * sizeof *t);
            if (o != 0 && rank == o)
                MPI_Send(t, b * b, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD);
            if (rank == 0) {
                if (o != 0)
                    MPI_Recv(t, b * b, MPI_DOUBLE, o, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int c = 0; c < b; c++)
                    for (int r = 0; r < b; r++)
                        if (i != j || r >= c)
                            l[(size_t)(j * b + c) * n + i * b + r] = t[c * b + r];
            }
            free(t);
        }
    if (rank != 0)
        return 0;
    double *a = malloc((size_t)n * n * sizeof *a), norm = 0, diff = 0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            a[(size_t)c * n + r] = element(r, c);
    for (size_t k = 0; k < (size_t)n * n; k++)
        norm += a[k] * a[k];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, l, n, l, n, 1.0, a, n);
    for (size_t k = 0; k < (size_t)n * n; k++)
        diff += a[k] * a[k];
    free(a);
    free(l);
    return sqrt(diff / norm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct dynb_options opt = {DYNB_BINOMIAL, 0, 0, 0, 0, 0};
    int check = 1;
    n = 1024;
    b = 128;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
            n = atoi(argv[++a]);
        else if (strcmp(argv[a], "-b") == 0 && a + 1 < argc)
            b = atoi(argv[++a]);
        else if (strcmp(argv[a], "--bcast") == 0 && a + 1 < argc) {
            const char *m = argv[++a];
            opt.tree = strcmp(m, "p2p") == 0 ? DYNB_P2P : DYNB_BINOMIAL;
            if (strcmp(m, "tree") == 0) /* a tree whatever the size: the threshold off */
                opt.tree_min_destinations = 1;
        } else if (strcmp(argv[a], "--net") == 0 && a + 1 < argc)
            sscanf(argv[++a], "%lf,%lf", &opt.latency_us, &opt.bandwidth_mbps);
        else if (strcmp(argv[a], "--no-check") == 0)
            check = 0;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: dynbcast-cholesky -n N -b TILE [--bcast dynamic|p2p|tree] "
                                "[--net LAT_US,BW_MBPS] [--no-check]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (b <= 0 || n <= 0 || n % b) {
        if (rank == 0)
            fprintf(stderr,
                    "dynbcast-cholesky: -n %d is not a multiple of -b %d; choose N = "
                    "TILE x tiles\n",
                    n, b);
        MPI_Finalize();
        return 2;
    }
    nt = n / b;
#ifdef DYNB_SMPI
    skip_kernels = !check;
#endif
    grid(size, &P, &Q);
    tile = calloc((size_t)nt * nt, sizeof *tile);
    remote = calloc((size_t)nt * nt, sizeof *remote);
    updates = calloc((size_t)nt * nt, sizeof *updates);
    final = calloc((size_t)nt * nt, sizeof *final);
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++)
            if (owner(i, j) == rank) {
                tile[i * nt + j] = tile_alloc();
                if (!skip_kernels)
                    generate(tile[i * nt + j], i, j);
            }
    dynb_create(MPI_COMM_WORLD, &opt, &dynb);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();

    /* Submission: declare every communicated tile, post its sends and receives. */
    int *need = malloc(size * sizeof *need);
    for (int k = 0; k < nt; k++)
        for (int i = k; i < nt; i++) {
            int o = owner(i, k), count = needers(i, k, need);
            if (o == rank) {
                dynb_declare(dynb, handle(i, k), o, tile[i * nt + k],
                             (size_t)b * b * sizeof(double));
                for (int r = 0; r < count; r++)
                    dynb_send(dynb, handle(i, k), need[r]);
            } else {
                for (int r = 0; r < count; r++)
                    if (need[r] == rank) {
                        remote[i * nt + k] = tile_alloc();
                        dynb_declare(dynb, handle(i, k), o, remote[i * nt + k],
                                     (size_t)b * b * sizeof(double));
                        dynb_recv(dynb, handle(i, k));
                    }
            }
        }
    struct task *tasks = NULL;
    int ntasks = 0, left;
#define ADD(K, I, J, KK)                                                                           \
    do {                                                                                           \
        if (owner(I, J) == rank) {                                                                 \
            tasks = realloc(tasks, (ntasks + 1) * sizeof *tasks);                                  \
            tasks[ntasks++] = (struct task){K, I, J, KK, 0};                                       \
        }                                                                                          \
    } while (0)
    for (int k = 0; k < nt; k++) {
        ADD(POTRF, k, k, k);
        for (int i = k + 1; i < nt; i++)
            ADD(TRSM, i, k, k);
        for (int i = k + 1; i < nt; i++) {
            ADD(SYRK, i, i, k);
            for (int j = k + 1; j < i; j++)
                ADD(GEMM, i, j, k);
        }
    }
    /* Execution: run what is ready, in submission order, progressing between tasks. */
    left = ntasks;
    while (left > 0) {
        int ran = 0;
        for (int t = 0; t < ntasks; t++) {
            if (!tasks[t].done && run_if_ready(&tasks[t])) {
                left--;
                ran = 1;
                dynb_progress(dynb);
            }
        }
        if (!ran)
            dynb_idle(dynb); /* only a message can make a task ready now */
    }
    dynb_destroy(dynb);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - t0;
    double res = check ? residual() : 0;
    if (rank == 0)
        printf("dynbcast-cholesky: n=%d b=%d ranks=%d grid=%dx%d bcast=%s net=%s time=%.6f s "
               "GFlop/s=%.2f residual=%.2e %s\n",
               n, b, size, P, Q,
               opt.tree == DYNB_P2P             ? "p2p"
               : opt.tree_min_destinations == 1 ? "tree"
                                                : "dynamic",
               opt.bandwidth_mbps > 0 || opt.latency_us > 0 ? "emulated" : "none", seconds,
               (double)n * n * n / 3.0 / seconds * 1e-9, res,
               !check        ? "(not checked)"
               : res < 1e-12 ? "ok"
                             : "FAIL");
    MPI_Finalize();
    return check && rank == 0 && res >= 1e-12;
}
