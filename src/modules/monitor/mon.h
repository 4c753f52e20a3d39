/* mon.h: the monitor module's state: who sends how much to whom.
 *
 * Per rank, indexed by MPI_COMM_WORLD rank whatever communicator a call used: messages
 * and bytes sent point-to-point (user calls), in collectives (as Open MPI's coll
 * monitoring decomposes them), one-sided (origin side: sent to / received from the
 * target), a 66-bin size histogram per peer for point-to-point (allocated on the first
 * message to that peer), collectives per communicator by kind (one-to-all, all-to-one,
 * all-to-all), and I/O bytes per file. Counters use atomics under MPI_THREAD_MULTIPLE.
 * A flush closes a named phase (snapshot, then reset); MPI_Finalize closes phase "run".
 */
#ifndef MON_H
#define MON_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "commtrack.h"

enum mon_kind { MON_P2P, MON_COLL, MON_RMA_SENT, MON_RMA_RECV, MON_KINDS };
#define MON_BINS 66
enum mon_coll_kind { MON_O2A, MON_A2O, MON_A2A };

extern int mon_on;       /* recording (start/stop) */
extern int mon_threaded; /* MPI_THREAD_MULTIPLE: atomic updates */
extern int mon_nprocs, mon_rank;

/* Recording (mon_core.c). peer is a world rank; negative peers are ignored. */
void mon_record(int kind, int peer, uint64_t bytes);
void mon_record_coll_kind(MPI_Comm comm, int which, uint64_t bytes);
void mon_record_io(MPI_File fh, int write, uint64_t bytes);
void mon_file_opened(MPI_File fh, const char *name);
void mon_file_closed(MPI_File fh);
uint64_t mon_bytes(int count, MPI_Datatype type);
/* World rank of rank r of comm (its remote group for intercommunicators), or -1. */
int mon_world_rank(MPI_Comm comm, int r);

/* Control (mon_core.c): also what the C API and MPI_T use. */
void mon_setup(void);
void mon_reset(void);
/* Copies the current counters of kind into counts[] and bytes[] (n world ranks). */
int mon_read(int kind, uint64_t *counts, uint64_t *bytes, int n);
/* The histogram of messages to world rank peer (MON_BINS counters; zeros if none). */
void mon_read_histogram(int peer, uint64_t *bins);
/* Writes PREFIX.RANK.prof as Open MPI's monitoring does (mon_prof.c). 0 or -1. */
int mon_write_prof(const char *prefix);
/* Closes the current phase under name: snapshot, then reset. */
int mon_flush(const char *name);
/* Collective-kind counters of comm: v[0..5] = o2a count, size, a2o count, size, a2a ... */
void mon_coll_kinds(MPI_Comm comm, uint64_t v[6]);

/* New rank of this process in *comm from the traffic so far (mon_place.c). */
int mon_reorder(const void *comm, int *new_rank);

/* Finalize (mon_finalize.c): snapshot, merge, write. */
void mon_finalize(void);

#endif
