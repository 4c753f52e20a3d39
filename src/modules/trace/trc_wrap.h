/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_wrap.h: what the trace's wrapper files share (trc_wrap.c: point-to-point and the
 * requests, the Wait and Test families; trc_mprobe.c, trc_persistent.c: matched probes,
 * persistent requests; trc_coll.c: collectives).
 */
#ifndef TRC_WRAP_H
#define TRC_WRAP_H

#include <mpi.h>
#include <stdint.h>

#include "trc.h"

#pragma GCC visibility push(hidden)

/* Where a message goes: communicator id and peer as recorded. */
struct where {
    uint32_t comm, peer;
    const uint32_t *remote; /* an intercommunicator: its remote group's world ranks, */
    uint32_t nremote;       /* (trc_remote_world), else NULL */
};
/* Other than MPI_COMM_WORLD (a lookup of the communicator's record). */
struct where trc_where_other(MPI_Comm comm, int peer);
/* Inline for MPI_COMM_WORLD, which nearly every message names. */
static inline struct where trc_where(MPI_Comm comm, int peer)
{
    if (__builtin_expect(comm == MPI_COMM_WORLD, 1))
        return (struct where){trc_world_id(), (uint32_t)peer, NULL, 0};
    return trc_where_other(comm, peer);
}
/* 1 with *ID the local id of COMM if it is an intracommunicator, else 0 (inline: every
 * collective asks). */
static inline int trc_intra_id(MPI_Comm comm, uint32_t *id)
{
    if (comm == MPI_COMM_WORLD) {
        *id = trc_world_id();
        return 1;
    }
    struct lens_comm *rec = lens_comm(comm);
    *id = rec->inter ? 0 : trc_comm_of(rec);
    return !rec->inter;
}
/* REQ kept in flight with the calling thread's next request id (its completion recorded in
 * the Wait and Test families as a receive if IS_RECV, else a send); the id, 0 if not kept. */
uint64_t trc_remember(MPI_Request req, int is_recv, const struct where *w);
/* A nonblocking collective on the intracommunicator COMM (local id): requested now,
 * completed in the Wait and Test families. */
void trc_remember_collective(MPI_Request req, uint64_t t, uint32_t op, uint32_t comm, uint32_t root,
                             uint64_t sent, uint64_t received);

#pragma GCC visibility pop

#endif
