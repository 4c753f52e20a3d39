/* SPDX-License-Identifier: BSD-3-Clause */
/* tune_bench.c: the benchmark `mpilens tune` runs under the application's own launcher
 * (docs/tune.md). Rank 0 prints one line per result.
 *
 *   tune_bench run SECONDS OP:SIZE:BYTES...
 *     First the algorithms the library offers for each collective OP, read through MPI_T
 *     (Open MPI: the enum of coll_tuned_OP_algorithm; MPICH: MPIR_CVAR_OP_INTRA_ALGORITHM,
 *     whose values its description names in order):
 *       algorithm OP VALUE NAME
 *     then each case, on a communicator of the first SIZE ranks, BYTES a call's volume as
 *     the profile counts it (a rank's send buffer; Alltoall and Allgather: what it sends
 *     each rank, count x type size), under every algorithm in the same
 *     job: the control variable is written through MPI_T before a communicator is made for
 *     each block (Open MPI reads it when a communicator is made, MPICH at each call), the
 *     algorithms interleaved block by block so that a change of the machine's load falls
 *     on all of them. A block is k calls (k doubled until a block lasts 1 ms), its time the
 *     slowest rank's; up to 9 blocks an algorithm, within the case's share of SECONDS.
 *     VALUE 0 is the variable as the job started (the library's default, or what the
 *     launcher line or the environment forced):
 *       time OP SIZE BYTES VALUE MEDIAN_US MIN_US MAX_US BLOCKS Q3_US
 *     (Q3: the upper quartile of the blocks, which `mpilens tune` judges by)
 *       failed OP SIZE BYTES VALUE        (the library refused it for this case)
 */
#include <ctype.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 9
#define MAX_ALGS 32

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

static void upper(char *s)
{
    for (; *s; s++)
        *s = (char)toupper((unsigned char)*s);
}

/* One collective's control variable and the values to try (values[0]: as the job started). */
struct control {
    MPI_T_cvar_handle handle;
    int found, nvalues, values[MAX_ALGS + 1];
};

/* MPICH names its algorithms in the variable's description: "... NAME   - Force ...", in
 * the order of their values (0 is "auto"). */
static void mpich_names(const char *op, const char *desc, struct control *c, int print)
{
    int value = 0;
    for (const char *at = strstr(desc, "- Force"); at; at = strstr(at + 1, "- Force")) {
        const char *end = at;
        while (end > desc && end[-1] == ' ')
            end--;
        const char *start = end;
        while (start > desc && (islower((unsigned char)start[-1]) || start[-1] == '_'))
            start--;
        if (end - start > 9 && strncmp(start, "algorithm", 9) == 0) /* "...algorithmNAME" */
            start += 9;
        value++;
        if (end > start && c->nvalues <= MAX_ALGS) {
            c->values[c->nvalues++] = value;
            if (print)
                printf("algorithm %s %d %.*s\n", op, value, (int)(end - start), start);
        }
    }
}

/* OP's control variable into C, its algorithms printed when PRINT. */
static void find_control(const char *op, struct control *c, int print)
{
    int n = 0;
    char ompi[128], mpich[128];
    memset(c, 0, sizeof *c);
    c->nvalues = 1;
    snprintf(ompi, sizeof ompi, "coll_tuned_%s_algorithm", op);
    snprintf(mpich, sizeof mpich, "MPIR_CVAR_%s_INTRA_ALGORITHM", op);
    lower(ompi);
    upper(mpich);
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n && !c->found; i++) {
        char name[256], desc[8192];
        int nlen = sizeof name, dlen = sizeof desc, verbosity, bind, scope, count;
        MPI_Datatype type;
        MPI_T_enum values;
        if (MPI_T_cvar_get_info(i, name, &nlen, &verbosity, &type, &values, desc, &dlen, &bind,
                                &scope) != MPI_SUCCESS ||
            type != MPI_INT || (strcmp(name, ompi) != 0 && strcmp(name, mpich) != 0))
            continue;
        if (MPI_T_cvar_handle_alloc(i, NULL, &c->handle, &count) != MPI_SUCCESS)
            continue;
        c->found = 1;
        MPI_T_cvar_read(c->handle, &c->values[0]);
        if (strcmp(name, ompi) == 0 && values != MPI_T_ENUM_NULL) {
            int items = 0, elen = 256;
            char ename[256];
            MPI_T_enum_get_info(values, &items, ename, &elen);
            for (int j = 0; j < items && c->nvalues <= MAX_ALGS; j++) {
                int value, ilen = 256;
                char item[256];
                MPI_T_enum_get_item(values, j, &value, item, &ilen);
                if (value <= 0) /* 0: "ignore", the library's own decision */
                    continue;
                c->values[c->nvalues++] = value;
                if (print)
                    printf("algorithm %s %d %s\n", op, value, item);
            }
        } else if (strcmp(name, mpich) == 0) {
            mpich_names(op, desc, c, print);
        }
    }
}

/* One call of OP on COMM with buffers of BYTES (a rank's send buffer); MPI's result. */
static int call(const char *op, MPI_Comm comm, long bytes, char *in, char *out)
{
    int doubles = (int)(bytes / 8 > 0 ? bytes / 8 : 1);
    int block = (int)(bytes > 0 ? bytes : 1); /* Alltoall: what one rank sends each rank */
    if (strcmp(op, "Allreduce") == 0)
        return MPI_Allreduce(in, out, doubles, MPI_DOUBLE, MPI_SUM, comm);
    if (strcmp(op, "Reduce") == 0)
        return MPI_Reduce(in, out, doubles, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (strcmp(op, "Alltoall") == 0)
        return MPI_Alltoall(in, block, MPI_BYTE, out, block, MPI_BYTE, comm);
    if (strcmp(op, "Allgather") == 0)
        return MPI_Allgather(in, (int)(bytes > 0 ? bytes : 1), MPI_BYTE, out,
                             (int)(bytes > 0 ? bytes : 1), MPI_BYTE, comm);
    if (strcmp(op, "Bcast") == 0)
        return MPI_Bcast(in, (int)(bytes > 0 ? bytes : 1), MPI_BYTE, 0, comm);
    return MPI_Barrier(comm);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One block of K calls under algorithm VALUE on a fresh duplicate of COMM: the slowest
 * rank's seconds per call, or -1 when the library refused the algorithm. */
static double block(struct control *c, int value, MPI_Comm comm, const char *op, long bytes, long k,
                    char *in, char *out)
{
    MPI_Comm use;
    if (c->found)
        MPI_T_cvar_write(c->handle, &value);
    MPI_Comm_dup(comm, &use); /* Open MPI reads the variable when a communicator is made */
    int failed = 0, any;
    MPI_Barrier(use);
    double t0 = MPI_Wtime();
    for (long i = 0; i < k && !failed; i++)
        failed = call(op, use, bytes, in, out) != MPI_SUCCESS;
    double t = (MPI_Wtime() - t0) / k, slowest;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Comm_free(&use);
    return any ? -1 : slowest;
}

static void run_case(const char *spec, double seconds, int rank)
{
    char op[64];
    int size = 0;
    long bytes = 0;
    if (sscanf(spec, "%63[^:]:%d:%ld", op, &size, &bytes) != 3 || size < 1)
        return;
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (size > world)
        size = world;
    struct control c;
    find_control(op, &c, 0);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size ? 0 : MPI_UNDEFINED, rank, &comm);
    if (comm != MPI_COMM_NULL) {
        /* an algorithm the library refuses for this case (Open MPI's two_proc on more than
         * two ranks) returns its error: reported, the others go on */
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        size_t room = (size_t)(bytes > 0 ? bytes : 8) *
                          (strcmp(op, "Allgather") == 0 || strcmp(op, "Alltoall") == 0 ? size : 1) +
                      64;
        char *in = calloc(room, 1), *out = calloc(room, 1);
        long k = 1;
        while (k < 1 << 20) { /* calls per block: a block of at least 1 ms (as started) */
            double t = block(&c, c.values[0], comm, op, bytes, k, in, out);
            if (t < 0 || t * k >= 1e-3)
                break;
            k *= 2;
        }
        double times[MAX_ALGS + 1][BLOCKS], start = MPI_Wtime();
        int refused[MAX_ALGS + 1] = {0}, blocks = 0, go = 1;
        while (go) {
            for (int a = 0; a < c.nvalues; a++)
                if (!refused[a]) {
                    times[a][blocks] = block(&c, c.values[a], comm, op, bytes, k, in, out);
                    refused[a] = times[a][blocks] < 0;
                }
            blocks++;
            go = blocks < BLOCKS && (blocks < 3 || MPI_Wtime() - start < seconds);
            MPI_Bcast(&go, 1, MPI_INT, 0, comm); /* every rank stops at the same block */
        }
        for (int a = 0; rank == 0 && a < c.nvalues; a++) {
            int value = a ? c.values[a] : 0;
            if (refused[a]) {
                printf("failed %s %d %ld %d\n", op, size, bytes, value);
                continue;
            }
            qsort(times[a], blocks, sizeof times[a][0], by_value);
            printf("time %s %d %ld %d %.3f %.3f %.3f %d %.3f\n", op, size, bytes, value,
                   times[a][blocks / 2] * 1e6, times[a][0] * 1e6, times[a][blocks - 1] * 1e6,
                   blocks, times[a][(3 * blocks) / 4] * 1e6);
        }
        fflush(stdout);
        if (c.found)
            MPI_T_cvar_write(c.handle, &c.values[0]);
        free(in);
        free(out);
        MPI_Comm_free(&comm);
    }
    if (c.found)
        MPI_T_cvar_handle_free(&c.handle);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc >= 3 && strcmp(argv[1], "run") == 0) {
        char seen[1024] = " ";
        for (int i = 3; i < argc && rank == 0; i++) { /* the algorithms, once per collective */
            char op[64], key[80];
            struct control c;
            if (sscanf(argv[i], "%63[^:]", op) != 1)
                continue;
            snprintf(key, sizeof key, " %s ", op);
            if (strstr(seen, key) || strlen(seen) + strlen(key) >= sizeof seen)
                continue;
            strcat(seen, key + 1);
            find_control(op, &c, 1);
            if (c.found)
                MPI_T_cvar_handle_free(&c.handle);
        }
        fflush(stdout);
        double seconds = atof(argv[2]) / (argc - 3 > 0 ? argc - 3 : 1);
        for (int i = 3; i < argc; i++) {
            if (rank == 0) /* progress, on the terminal (mpilens reads the standard output) */
                fprintf(stderr, "mpilens: tune: case %d/%d: %s\n", i - 2, argc - 3, argv[i]);
            run_case(argv[i], seconds, rank);
        }
    } else if (rank == 0) {
        fprintf(stderr, "usage: tune_bench run SECONDS OP:SIZE:BYTES...\n");
    }
    fflush(stdout);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
