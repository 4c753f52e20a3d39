/* mpit_app.c: drives the monitoring through the standard MPI_T interface, as programs
 * written for Open MPI's monitoring do (the paper's Figure 1, Open MPI's test/monitoring):
 * variable info, per-peer counts read on MPI_COMM_WORLD, stop halting recording, counters
 * cumulative across stop/start, collective kinds, the flush variable writing
 * PREFIX.RANK.prof, and the error codes of bad calls. Rank 0 prints "mpit:" lines.
 * Usage: mpit_app PREFIX   (4 ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void say(const char *fmt, unsigned long long a, unsigned long long b)
{
    if (rank == 0) {
        printf("mpit: ");
        printf(fmt, a, b);
        printf("\n");
    }
}

static void describe(const char *name, int cls)
{
    int index, nl = 128, dl = 256, verb, vcls, bind, ro, cont, atomic, tl = 64, count = -1;
    char vname[128], desc[256], tname[64] = "";
    MPI_Datatype type;
    MPI_T_enum en;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    if (MPI_T_pvar_get_index(name, cls, &index) != MPI_SUCCESS) {
        if (rank == 0)
            printf("mpit: %s not found\n", name);
        return;
    }
    MPI_T_pvar_get_info(index, vname, &nl, &verb, &vcls, &type, &en, desc, &dl, &bind, &ro, &cont,
                        &atomic);
    MPI_Type_get_name(type, tname, &tl);
    MPI_T_pvar_session_create(&s);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_T_pvar_handle_alloc(s, index, &comm, &h, &count);
    const char *cname = vcls == MPI_T_PVAR_CLASS_SIZE        ? "size"
                        : vcls == MPI_T_PVAR_CLASS_COUNTER   ? "counter"
                        : vcls == MPI_T_PVAR_CLASS_AGGREGATE ? "aggregate"
                        : vcls == MPI_T_PVAR_CLASS_GENERIC   ? "generic"
                                                             : "other";
    if (rank == 0)
        printf("mpit: %s class=%s type=%s bind=%s readonly=%d continuous=%d count=%d\n", vname,
               cname, tname, bind == MPI_T_BIND_MPI_COMM ? "comm" : "none", ro, cont, count);
    MPI_T_pvar_handle_free(s, &h);
    MPI_T_pvar_session_free(&s);
}

int main(int argc, char **argv)
{
    int provided, count, idx_count, idx_size, idx_flush, idx_o2a, num;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char buf[1024] = {0};

    static const char *const names[] = {"pml_monitoring_messages_count",
                                        "pml_monitoring_messages_size",
                                        "osc_monitoring_messages_sent_count",
                                        "osc_monitoring_messages_recv_size",
                                        "coll_monitoring_messages_count",
                                        "coll_monitoring_o2a_count",
                                        "coll_monitoring_a2a_size"};
    static const int classes[] = {MPI_T_PVAR_CLASS_SIZE,     MPI_T_PVAR_CLASS_SIZE,
                                  MPI_T_PVAR_CLASS_SIZE,     MPI_T_PVAR_CLASS_SIZE,
                                  MPI_T_PVAR_CLASS_SIZE,     MPI_T_PVAR_CLASS_COUNTER,
                                  MPI_T_PVAR_CLASS_AGGREGATE};
    for (int i = 0; i < 7; i++)
        describe(names[i], classes[i]);
    describe("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC);

    /* The paper's Figure 1. */
    MPI_T_pvar_session session;
    MPI_T_pvar_handle hcount, hsize, hflush, ho2a;
    MPI_T_pvar_session_create(&session);
    MPI_T_pvar_get_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, &idx_count);
    MPI_T_pvar_get_index("pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &idx_size);
    MPI_T_pvar_handle_alloc(session, idx_count, MPI_COMM_WORLD, &hcount, &count);
    MPI_T_pvar_handle_alloc(session, idx_size, MPI_COMM_WORLD, &hsize, &count);
    size_t *counts = calloc(count, sizeof *counts), *bytes = calloc(count, sizeof *bytes);
    MPI_T_pvar_start(session, hcount);
    for (int i = 0; i < 3; i++)
        MPI_Sendrecv(buf, 1024, MPI_BYTE, right, 0, buf, 1024, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    MPI_T_pvar_read(session, hcount, counts);
    MPI_T_pvar_read(session, hsize, bytes);
    MPI_Allreduce(MPI_IN_PLACE, counts, count, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    say("after 3 messages: count to rank 1 = %llu, bytes = %llu", counts[1], bytes[1]);

    MPI_T_pvar_stop(session, hcount);
    MPI_Sendrecv(buf, 1024, MPI_BYTE, right, 0, buf, 1024, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_T_pvar_read(session, hcount, counts);
    say("stopped, one more message: count to rank 1 = %llu (of %llu)", counts[1], 3);
    MPI_T_pvar_start(session, hcount);
    MPI_Sendrecv(buf, 1024, MPI_BYTE, right, 0, buf, 1024, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_T_pvar_read(session, hcount, counts);
    say("restarted, one more: count to rank 1 = %llu, to rank 2 = %llu", counts[1], counts[2]);

    /* Collective kinds on world: one Bcast of 100 B from rank 0 is one one-to-all. */
    MPI_T_pvar_get_index("coll_monitoring_o2a_size", MPI_T_PVAR_CLASS_AGGREGATE, &idx_o2a);
    MPI_T_pvar_handle_alloc(session, idx_o2a, MPI_COMM_WORLD, &ho2a, &count);
    MPI_Bcast(buf, 100, MPI_BYTE, 0, MPI_COMM_WORLD);
    unsigned long long o2a = 0;
    MPI_T_pvar_read(session, ho2a, &o2a);
    say("o2a bytes at the root after one Bcast of 100 B: %llu (count %llu)", o2a, count);

    /* Flush: allocating resets, stopping writes PREFIX.RANK.prof. */
    MPI_T_pvar_get_index("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC, &idx_flush);
    MPI_T_pvar_handle_alloc(session, idx_flush, MPI_COMM_WORLD, &hflush, &count);
    MPI_T_pvar_start(session, hflush);
    MPI_Sendrecv(buf, 512, MPI_BYTE, right, 0, buf, 512, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_T_pvar_write(session, hflush, argc > 1 ? argv[1] : "phase_1");
    MPI_T_pvar_stop(session, hflush);
    static const void *nullbuf = NULL;
    MPI_T_pvar_write(session, hflush, (void *)&nullbuf);
    MPI_T_pvar_read(session, hcount, counts);
    say("after the flush: count to rank 1 = %llu (reset), flushes %llu", counts[1], 1);

    /* Bad calls give MPI_T error codes. */
    MPI_T_pvar_get_num(&num);
    int nl = 0, verb, cls, bind, ro, cont, atomic;
    MPI_Datatype type;
    MPI_T_enum en;
    say("get_info(bad index) is MPI_T_ERR_INVALID_INDEX: %llu%llu",
        MPI_T_pvar_get_info(num + 5, NULL, &nl, &verb, &cls, &type, &en, NULL, &nl, &bind, &ro,
                            &cont, &atomic) == MPI_T_ERR_INVALID_INDEX,
        1);
    MPI_T_pvar_handle hbad;
    say("handle_alloc(bad index) is MPI_T_ERR_INVALID_INDEX: %llu%llu",
        MPI_T_pvar_handle_alloc(session, num + 5, MPI_COMM_WORLD, &hbad, &count) ==
            MPI_T_ERR_INVALID_INDEX,
        1);
    say("write(read-only) is MPI_T_ERR_PVAR_NO_WRITE: %llu%llu",
        MPI_T_pvar_write(session, hcount, counts) == MPI_T_ERR_PVAR_NO_WRITE, 1);
    say("reset(read-only) is MPI_T_ERR_PVAR_NO_WRITE: %llu%llu",
        MPI_T_pvar_reset(session, hcount) == MPI_T_ERR_PVAR_NO_WRITE, 1);

    MPI_T_pvar_handle_free(session, &hflush);
    MPI_T_pvar_handle_free(session, &ho2a);
    MPI_T_pvar_handle_free(session, &hsize);
    MPI_T_pvar_stop(session, hcount);
    MPI_T_pvar_handle_free(session, &hcount);
    MPI_T_pvar_session_free(&session);
    free(counts);
    free(bytes);
    if (rank == 0)
        printf("mpit_app ok: %d ranks\n", size);
    MPI_T_finalize(); /* before MPI_Finalize, as Open MPI's own tests do */
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
