/* session_app.c: an MPI-4 program (issue 51). Its communicator comes from a session
 * (MPI_Session_init, MPI_Group_from_session_pset "mpi://WORLD", MPI_Comm_create_from_group);
 * with argument "init" it calls MPI_Init first and MPI_Finalize last as well, otherwise it
 * never does. On that communicator: a ring of MPI_Send_c/MPI_Recv_c of 1000 bytes, 3
 * rounds; an MPI_Allreduce_init started 7 times; a partitioned transfer (4 partitions of
 * 256 bytes) from each rank to the next, with MPI_Pready and MPI_Parrived. Checks the
 * payloads and the sums; prints "session_app ok".
 */
#include <mpi.h>

/* The ring's sends: MPI-4's large-count MPI_Send_c/MPI_Recv_c where the library has them
 * (MPICH 4); Open MPI 5.0 has sessions, persistent collectives and partitioned
 * communication but not these (tests/CMakeLists.txt: MPILENS_MPILENS_HAS_LARGE_COUNT). */
#ifdef MPILENS_HAS_LARGE_COUNT
#define SEND MPI_Send_c
#define RECV MPI_Recv_c
#define COUNT MPI_Count
#else
#define SEND MPI_Send
#define RECV MPI_Recv
#define COUNT int
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "session_app: %s wrong\n", what);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int with_init = argc > 1 && strcmp(argv[1], "init") == 0;
    if (with_init)
        MPI_Init(&argc, &argv);
    MPI_Session session;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &session);
    MPI_Group group;
    MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
    MPI_Comm comm;
    MPI_Comm_create_from_group(group, "org.mpilens.session_app", MPI_INFO_NULL,
                               MPI_ERRORS_ARE_FATAL, &comm);
    MPI_Group_free(&group);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    char out[1000], in[1000];
    for (int round = 0; round < 3; round++) {
        memset(out, 'a' + rank, sizeof out);
        if (rank % 2 == 0) {
            SEND(out, (COUNT)sizeof out, MPI_CHAR, right, round, comm);
            RECV(in, (COUNT)sizeof in, MPI_CHAR, left, round, comm, MPI_STATUS_IGNORE);
        } else {
            RECV(in, (COUNT)sizeof in, MPI_CHAR, left, round, comm, MPI_STATUS_IGNORE);
            SEND(out, (COUNT)sizeof out, MPI_CHAR, right, round, comm);
        }
        check(in[0] == 'a' + left && in[sizeof in - 1] == 'a' + left, "ring payload");
    }

    long value = rank + 1, sum = 0;
    MPI_Request all;
    MPI_Allreduce_init(&value, &sum, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &all);
    for (int i = 0; i < 7; i++) {
        MPI_Start(&all);
        MPI_Wait(&all, MPI_STATUS_IGNORE);
        check(sum == (long)size * (size + 1) / 2, "persistent Allreduce");
    }
    MPI_Request_free(&all);

    enum { PARTS = 4, PART = 256 };
    char pout[PARTS * PART], pin[PARTS * PART];
    MPI_Request send, recv;
    MPI_Psend_init(pout, PARTS, PART, MPI_CHAR, right, 99, comm, MPI_INFO_NULL, &send);
    MPI_Precv_init(pin, PARTS, PART, MPI_CHAR, left, 99, comm, MPI_INFO_NULL, &recv);
    MPI_Start(&recv);
    MPI_Start(&send);
    for (int p = 0; p < PARTS; p++) {
        memset(pout + p * PART, 'A' + rank, PART);
        MPI_Pready(p, send);
    }
    for (int p = 0; p < PARTS; p++) {
        int arrived = 0;
        while (!arrived)
            MPI_Parrived(recv, p, &arrived);
    }
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    check(pin[0] == 'A' + left && pin[sizeof pin - 1] == 'A' + left, "partitioned payload");
    MPI_Request_free(&send);
    MPI_Request_free(&recv);

    MPI_Barrier(comm);
    MPI_Comm_free(&comm);
    MPI_Session_finalize(&session);
    if (with_init)
        MPI_Finalize();
    if (rank == 0)
        printf("session_app ok\n");
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
