/* SPDX-License-Identifier: BSD-3-Clause */
/* trc.h: the trace module: an OTF2 event trace per rank. trc_wrap.c, trc_rma.c and
 * trc_user.c record events into the event log (trc_log.h); trc_core.c starts and ends the
 * trace (clocks, the merge of definitions, the conversion to OTF2); trc_defs.c,
 * trc_convert.c and trc_recover.c make the OTF2 archive, at MPI_Finalize or after a run
 * that did not reach it. Under MPI_THREAD_MULTIPLE each thread records into its own log and
 * becomes an OTF2 location of its rank.
 */
#ifndef TRC_H
#define TRC_H

#include <mpi.h>
#include <pthread.h>
#include <otf2/otf2.h>
#include <stdint.h>

#include "commtrack.h"
#include "lens_down.h" /* MPILENS_DOWN: the pass-down of a chained module (chain.c) */
#include "lens_classes.h"
#include "mpilens_snapshot.h"
#include "trc_defs.h"
#include "trc_log.h"

/* Nothing here is for other libraries: one load fewer for each variable the hot path reads. */
#pragma GCC visibility push(hidden)

/* Regions: one per MPI function the trace records: the request completion calls it
 * wraps by hand, then every function of the classification (lens_classes.h: each
 * data-moving call, its synchronisation and probes), then the trace's own buffer flush. */
/* (clang-format reflows this list differently on each pass: left as written) */
/* clang-format off */
#define TRC_HAND_REGIONS(X)                                                                        \
    X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testany) X(Testall) X(Testsome)            \
    X(Start) X(Startall) X(File_open) X(File_close)
/* clang-format on */
#define TRC_HAND_REGION(N) R_##N,
#define TRC_CLASS_REGION(N, F, M, P, A, FL, R) R_##N,
enum trc_region {
    TRC_HAND_REGIONS(TRC_HAND_REGION) LENS_CLASSIFIED(TRC_CLASS_REGION) R_FLUSH,
    R_REGIONS
};
extern const char *const trc_region_names[R_REGIONS];
/* Each region's OTF2 role (point-to-point, a collective's shape, RMA, file I/O). */
extern const OTF2_RegionRole trc_region_roles[R_REGIONS];

extern int trc_on;
/* trc_on with the time-stamp counter as the log's clock (trc_use_tsc): the hottest wrappers
 * (Send, Isend, Recv, Wait families) test this one flag and run a copy of themselves that
 * reads the counter without testing which clock is in use (trc_now_as); else they test
 * trc_on and run the copy for any clock. Set and cleared with trc_on. */
extern int trc_tsc_on;
/* Guards the definitions threads share (communicator, window, group and user region ids,
 * persistent requests); the recording itself takes no lock (each thread its own log). */
extern pthread_mutex_t trc_lock;

/* The trace's id of a communicator (local to this rank, mapped at finalize). */
uint32_t trc_comm(MPI_Comm comm);
/* The same from the communicator's record (one lookup fewer where the caller has it). */
uint32_t trc_comm_of(struct lens_comm *rec);
/* The world ranks of the remote group of the intercommunicator comm (n of them), cached
 * with its record (so still valid after the communicator is freed). */
const uint32_t *trc_remote_world(MPI_Comm comm, uint32_t *n);

/* This rank's local definitions for the blob (trc_defs.h), async-signal-safe: the header's
 * identity, times and counts (trc_core.c), then each kind's items, exactly as many as the
 * header counts: communicators and their members (trc_core.c), windows and groups
 * (trc_rma.c), user region names (trc_user.c). */
void trc_local_head(struct trc_defs_head *h);
void trc_comms_emit(struct mpilens_emitter *e, uint32_t ncomms, int rank);
void trc_rma_counts(uint32_t *nwindows, uint32_t *ngroups);
void trc_rma_emit(struct mpilens_emitter *e, uint32_t nwindows, uint32_t ngroups);
uint32_t trc_user_count(void);
void trc_user_emit(struct mpilens_emitter *e, uint32_t nnames);
uint32_t trc_io_count(void);
void trc_io_emit(struct mpilens_emitter *e, uint32_t nfiles);

/* A nonblocking file operation's request (trc_io.c): its IoOperationComplete (HANDLE, ID, the
 * status's bytes) is recorded by the Wait or Test call that completes it (trc_wrap.c). */
void trc_remember_io(MPI_Request req, uint32_t handle, uint64_t id);

/* User regions through MPI_Pcontrol (trc_user.c): the service, and closing the regions
 * left open at finalize. */
void trc_user_publish(void);
void trc_user_close(void);

/* Bumped by MPI_Type_free (a freed handle may come back as another type). */
extern unsigned trc_types_generation;
/* The size of TYPE asked of the library, remembered as ME's last type (trc_core.c; out of
 * line: the wrappers keep no registers for it). */
__attribute__((cold)) uint64_t trc_type_size_asked(struct trc_thread *me, MPI_Datatype type);
/* The bytes of COUNT elements of TYPE: the thread's last type is remembered (a loop sends
 * the same type again), the library asked otherwise. */
static inline uint64_t trc_bytes_in(struct trc_thread *me, int64_t count, MPI_Datatype type)
{
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    if (__builtin_expect(type == me->last_type && me->types_generation == trc_types_generation, 1))
        return (uint64_t)count * me->last_type_size;
    return (uint64_t)count * trc_type_size_asked(me, type);
}
/* Whether the bytes of COUNT elements of TYPE are known without a call (a hot wrapper's
 * fast copy): TYPE is ME's last type, or COUNT none. */
static inline int trc_bytes_known(const struct trc_thread *me, int64_t count, MPI_Datatype type,
                                  uint64_t *bytes)
{
    *bytes = (uint64_t)(count > 0 ? count : 0) * me->last_type_size;
    return (type == me->last_type && me->types_generation == trc_types_generation) || count <= 0;
}
static inline uint64_t trc_bytes(int64_t count, MPI_Datatype type)
{
    return trc_bytes_in(trc_me(), count, type);
}

/* The local id of MPI_COMM_WORLD, which nearly every call names: kept once known. */
extern uint32_t trc_world_id_plus_one;
static inline uint32_t trc_world_id(void)
{
    uint32_t id = __atomic_load_n(&trc_world_id_plus_one, __ATOMIC_RELAXED);
    if (__builtin_expect(id == 0, 0)) {
        id = trc_comm(MPI_COMM_WORLD) + 1;
        __atomic_store_n(&trc_world_id_plus_one, id, __ATOMIC_RELAXED);
    }
    return id - 1;
}

/* Whether MPI_COMM_WORLD's local id is known (in *ID): a hot wrapper's fast copy; the
 * general copy numbers it on first use (trc_world_id). */
static inline int trc_world_id_known(uint32_t *id)
{
    uint32_t plus_one = __atomic_load_n(&trc_world_id_plus_one, __ATOMIC_RELAXED);
    *id = plus_one - 1;
    return plus_one != 0;
}

/* Starts tracing after MPI_Init; makes the OTF2 archive at MPI_Finalize. */
void trc_start(void);
/* The windows made and freed, as commtrack's window wrappers see them (trc_rma.c); set
 * by trc_start. */
extern const struct lens_handle_hooks trc_handle_hooks;
void trc_finish(void);

#pragma GCC visibility pop

#endif
