/* replay_coll.c: collectives in the replay: each runs a matching reduction of enter times
 * on the replay copy of its communicator: Wait at Barrier, Wait at N x N (max enter - own
 * enter), Late Broadcast (root enter - own enter, non-roots of one-to-all), Early Reduce
 * (latest enter of the others - root enter, at the root of all-to-one), Early Scan (latest
 * enter of the ranks up to this one - own enter, in MPI_Scan and MPI_Exscan).
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

OTF2_CallbackCode on_collective_end(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received)
{
    (void)pos;
    (void)l, (void)t, (void)u, (void)a, (void)sent, (void)received;
    if (comm >= ncomms)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = comms[comm].forward;
    uint64_t mine = cur.enter, other = 0;
    int me;
    MPI_Comm_rank(c, &me);
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        MPI_Allreduce(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, c);
        later(other, WAIT_BARRIER);
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        other = mine;
        MPI_Bcast(&other, 1, MPI_UINT64_T, (int)root, c);
        if ((uint32_t)me != root)
            later(other, LATE_BROADCAST);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: {
        uint64_t contribution = (uint32_t)me == root ? 0 : mine;
        MPI_Reduce(&contribution, &other, 1, MPI_UINT64_T, MPI_MAX, (int)root, c);
        if ((uint32_t)me == root)
            later(other, EARLY_REDUCE);
        break;
    }
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN: /* waits for the ranks before it */
        MPI_Scan(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, c);
        later(other, EARLY_SCAN);
        break;
    default: /* all-to-all kinds */
        MPI_Allreduce(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, c);
        later(other, WAIT_NXN);
    }
    return OTF2_CALLBACK_SUCCESS;
}
