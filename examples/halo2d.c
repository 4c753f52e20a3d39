/* halo2d.c: the example application of the README and the demo. A 2D Jacobi-style halo
 * exchange on a periodic process grid: every iteration exchanges 8 KiB halos with the four
 * neighbours (MPI_Sendrecv on a Cartesian communicator), reduces a residual over the
 * grid's rows (MPI_Allreduce on a Cart_sub communicator), and every 5 iterations
 * broadcasts a parameter along the columns. Several communicators, several message
 * sizes, collectives and point-to-point: what the profile and monitor modules report on.
 * Between exchanges each rank relaxes its part of the grid; rank 0's part is half as large
 * again as the others' (an uneven decomposition), so the others wait for it: the load
 * imbalance the report and its page point at.
 * Usage: halo2d [ITERATIONS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HALO 1024       /* doubles per halo: 8 KiB */
#define CELLS (1 << 19) /* the local grid's cells (rank 0: half as many again) */

/* A few smoothing sweeps over the local grid; returns its middle cell. */
static double relax(double *grid, int cells)
{
    for (int sweep = 0; sweep < 4; sweep++)
        for (int i = 1; i < cells - 1; i++)
            grid[i] = 0.25 * (grid[i - 1] + 2 * grid[i] + grid[i + 1]);
    return grid[cells / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iterations = argc > 1 ? atoi(argv[1]) : 10, size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid, rows, cols;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_sub(grid, (int[]){0, 1}, &rows);
    MPI_Cart_sub(grid, (int[]){1, 0}, &cols);

    double *out = malloc(4 * HALO * sizeof *out), *in = malloc(4 * HALO * sizeof *in);
    double value = rank, param = 1.0;
    int cells = rank == 0 ? CELLS + CELLS / 2 : CELLS;
    double *local_grid = calloc(cells, sizeof *local_grid);
    for (int i = 0; i < cells; i++)
        local_grid[i] = (double)(i % 97);
    for (int it = 0; it < iterations; it++) {
        for (int i = 0; i < 4 * HALO; i++)
            out[i] = value + i;
        for (int dim = 0; dim < 2; dim++) {
            int lo, hi;
            MPI_Cart_shift(grid, dim, 1, &lo, &hi);
            MPI_Sendrecv(out + 2 * dim * HALO, HALO, MPI_DOUBLE, hi, 0, in + 2 * dim * HALO, HALO,
                         MPI_DOUBLE, lo, 0, grid, MPI_STATUS_IGNORE);
            MPI_Sendrecv(out + (2 * dim + 1) * HALO, HALO, MPI_DOUBLE, lo, 1,
                         in + (2 * dim + 1) * HALO, HALO, MPI_DOUBLE, hi, 1, grid,
                         MPI_STATUS_IGNORE);
        }
        value += 1e-12 * relax(local_grid, cells);
        double local = 0, residual;
        for (int i = 0; i < 4 * HALO; i++)
            local += in[i] * 1e-6;
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, rows);
        if (it % 5 == 0)
            MPI_Bcast(&param, 1, MPI_DOUBLE, 0, cols);
        value = 0.5 * value + 1e-3 * residual * param;
    }
    double total;
    MPI_Reduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("halo2d: %d ranks (%dx%d grid), %d iterations, checksum %.6f\n", size, dims[0],
               dims[1], iterations, total);
    free(out);
    free(in);
    free(local_grid);
    MPI_Comm_free(&rows);
    MPI_Comm_free(&cols);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
