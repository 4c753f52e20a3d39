/* trc.h: the trace module: an OTF2 event trace per rank (trc_core.c: the archive, clocks
 * and definitions; trc_wrap.c: the wrappers that record events).
 */
#ifndef TRC_H
#define TRC_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <stdint.h>
#include <time.h>

#include "commtrack.h"

/* Regions (one per traced MPI function), in the order of trc_region_names. */
enum trc_region {
    R_SEND,
    R_SSEND,
    R_BSEND,
    R_RSEND,
    R_RECV,
    R_ISEND,
    R_ISSEND,
    R_IRECV,
    R_SENDRECV,
    R_WAIT,
    R_WAITALL,
    R_BARRIER,
    R_BCAST,
    R_REDUCE,
    R_ALLREDUCE,
    R_ALLGATHER,
    R_ALLTOALL,
    R_GATHER,
    R_SCATTER,
    R_WIN_FENCE,
    R_WIN_START,
    R_WIN_COMPLETE,
    R_WIN_POST,
    R_WIN_WAIT,
    R_WIN_LOCK,
    R_WIN_UNLOCK,
    R_PUT,
    R_GET,
    R_ACCUMULATE,
    R_WIN_FLUSH,
    R_WIN_FLUSH_ALL,
    R_WIN_FLUSH_LOCAL,
    R_WIN_FLUSH_LOCAL_ALL,
    R_WAITANY,
    R_WAITSOME,
    R_TEST,
    R_TESTANY,
    R_TESTALL,
    R_TESTSOME,
    R_START,
    R_STARTALL,
    R_GATHERV,
    R_SCATTERV,
    R_ALLGATHERV,
    R_ALLTOALLV,
    R_REDUCE_SCATTER,
    R_REDUCE_SCATTER_BLOCK,
    R_SCAN,
    R_EXSCAN,
    R_IBSEND,
    R_IRSEND,
    R_SENDRECV_REPLACE,
    R_REGIONS
};
extern const char *const trc_region_names[R_REGIONS];

extern int trc_on;
extern OTF2_EvtWriter *trc_writer;

static inline uint64_t trc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The trace's id of a communicator (local to this rank, mapped at finalize). */
uint32_t trc_comm(MPI_Comm comm);
/* The same from the communicator's record (one lookup fewer where the caller has it). */
uint32_t trc_comm_of(struct lens_comm *rec);
/* The world ranks of the remote group of the intercommunicator comm (n of them), cached
 * with its record (so still valid after the communicator is freed). */
const uint32_t *trc_remote_world(MPI_Comm comm, uint32_t *n);
/* Collective over WORLD (trc_merge.c): the NLOCAL definitions this rank made on its own,
 * serialized in MINE (LEN bytes), meet on rank 0, where NEXT_GLOBAL reads one of them at
 * *CURSOR, moves the cursor past it and returns its global id; every rank gets the global
 * ids of its own definitions back in IDS[NLOCAL], in order. */
void trc_merge_ids(MPI_Comm world, const void *mine, int len, uint32_t nlocal,
                   uint32_t (*next_global)(const char **cursor), uint32_t *ids);
/* Writes the mapping table local id i -> MAP[i] (i < N) of TYPE into DW (nothing if N is 0). */
void trc_write_id_map(OTF2_DefWriter *dw, OTF2_MappingType type, const uint32_t *map, uint32_t n);

/* One-sided definitions (trc_rma.c): at finalize, windows and groups are merged on rank 0
 * (collective over world); each rank then writes its local-to-global mapping tables into
 * DW, and rank 0 writes the global definitions into G (groups numbered from FIRST_GROUP).
 * COMM_GLOBAL maps this rank's local communicator ids to global ones. */
void trc_rma_merge(MPI_Comm world, const uint32_t *comm_global, uint32_t first_group);
void trc_rma_write_mappings(OTF2_DefWriter *dw);
uint32_t trc_rma_write_global(OTF2_GlobalDefWriter *g, uint32_t first_string);

/* User regions through MPI_Pcontrol (trc_user.c): the service, closing the regions left
 * open at finalize, and merging their names like trc_rma_merge (region ids R_REGIONS on). */
void trc_user_publish(void);
void trc_user_close(void);
void trc_user_merge(MPI_Comm world);
void trc_user_write_mappings(OTF2_DefWriter *dw);
uint32_t trc_user_write_global(OTF2_GlobalDefWriter *g, uint32_t first_string);

/* The bytes of COUNT elements of TYPE. */
static inline uint64_t trc_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * size;
}

static inline void trc_enter(int region, uint64_t t)
{
    OTF2_EvtWriter_Enter(trc_writer, NULL, t, (OTF2_RegionRef)region);
}

static inline void trc_leave(int region)
{
    OTF2_EvtWriter_Leave(trc_writer, NULL, trc_now(), (OTF2_RegionRef)region);
}

/* Starts tracing after MPI_Init; writes everything at MPI_Finalize. */
void trc_start(void);
void trc_finish(void);

#endif
