/* SPDX-License-Identifier: BSD-3-Clause */
/* commtrack.h: communicators as mpilens modules track them, with globally consistent
 * names and no collective at creation (the mpisee scheme, docs/database.md).
 *
 * Each module that needs communicators links these files (an object library: each module
 * gets its own copy of the state, nothing is shared between modules). The creation
 * wrappers (commtrack_wrap.c) register every new communicator; lens_comm() finds the
 * record of a handle on every call; a module keeps its own data in the record's payload.
 * At MPI_Finalize, commtrack_wire.c gives the records a wire form that merges across
 * ranks and resolves the names, and writes them into the run database.
 */
#ifndef LENS_COMMTRACK_H
#define LENS_COMMTRACK_H

#include "lens_hidden.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct lens_comm {
    char letter;           /* creating call (W, s, t, d, ...) */
    int root;              /* world rank of local rank 0 (-1 for the mixed entry) */
    int counter;           /* this process's creation counter when it was created */
    int ordinal;           /* earlier records here with the same root and members */
    uint64_t members_hash; /* hash of the member list */
    int size;
    int inter;              /* an intercommunicator (peers are in the remote group) */
    int rank;               /* this process's rank in it */
    int peers;              /* size, or the remote group's size for an intercommunicator */
    int *members;           /* world ranks of the local group */
    void *_Atomic payload;  /* the module's data, see lens_comm_payload() */
    int handles;            /* handles that name it (itself, windows, files made on it) */
    struct lens_comm *next; /* all records of this process, newest first */
    struct lens_comm *prev;
};

/* The record of comm, registered on demand (MPI_COMM_SELF as 'f', others 'n'). */
LENS_HIDDEN struct lens_comm *lens_comm(MPI_Comm comm);
/* Registers a new communicator; like: the parent of a duplicate (members copied). */
LENS_HIDDEN struct lens_comm *lens_comm_register(MPI_Comm comm, char letter,
                                                 const struct lens_comm *like);
/* The marked entry for request arrays spanning several communicators. */
LENS_HIDDEN struct lens_comm *lens_comm_mixed(void);
LENS_HIDDEN struct lens_comm *lens_comm_all(void);
/* The same without the registry's lock, for a signal handler (mpilens_snapshot.h). */
LENS_HIDDEN struct lens_comm *lens_comm_all_unlocked(void);
/* The module's payload of rec (size bytes, zeroed, allocated once, thread-safe). */
LENS_HIDDEN void *lens_comm_payload(struct lens_comm *rec, size_t size);
/* World rank of rank `rank` of comm's remote group (local group for intracommunicators). */
LENS_HIDDEN int lens_comm_peer_world_rank(MPI_Comm comm, int rank);

/* Other handles (windows, files) remembered against a communicator record. */
LENS_HIDDEN void lens_handle_set(uintptr_t key, struct lens_comm *rec);
LENS_HIDDEN struct lens_comm *lens_handle_get(uintptr_t key);
LENS_HIDDEN void lens_handle_drop(uintptr_t key);
LENS_HIDDEN uintptr_t lens_handle_key(const void *handle, size_t size);
/* Forget comm at MPI_Comm_free: its record stays if a module keeps data on it or another
 * handle (a window, a file) still names it, and is freed otherwise. */
LENS_HIDDEN void lens_comm_forget(MPI_Comm comm);
/* What a module wants to hear of handles; NULL members: nothing. Set once by the module at
 * its MPI_Init (lens_handle_hooks_set), before it registers a communicator: common code
 * calls the module through these, never by name. */
struct lens_handle_hooks {
    void (*window_made)(MPI_Win win, MPI_Comm comm); /* a window was made on COMM */
    void (*window_freed)(MPI_Win win);               /* a window is being freed */
    /* A handle (communicator, window, file) was given a record or lost it: a module that
     * caches by handle value forgets what it cached (a freed handle may come back as
     * another object). */
    void (*handles_changed)(void);
};
LENS_HIDDEN void lens_handle_hooks_set(const struct lens_handle_hooks *hooks);
/* The hooks set (all NULL until then): read by commtrack.c and commtrack_wrap.c. */
extern LENS_HIDDEN struct lens_handle_hooks lens_handle_hooks_now;
/* The communicator a window was made on (MPI_COMM_WORLD's record if unknown). */
LENS_HIDDEN struct lens_comm *lens_comm_of_win(MPI_Win win);

/* ---- wire form (commtrack_wire.c) ---- */

struct lens_wire_comm {
    int32_t root, ordinal;
    uint64_t hash;
    int32_t letter;
    int32_t root_counter; /* the root's creation counter, -1 until the root's copy is merged */
    int32_t size;
    int32_t members_off; /* into the members pool */
};

struct lens_comm_set {
    struct lens_wire_comm *comms;
    int32_t *members;
    size_t ncomms, nmembers;
    /* Index of comms by (root, hash, ordinal): open addressing, slot = comms index + 1 (0:
     * empty), rebuilt at half full, so that merging C communicators is O(C), not O(C^2). */
    uint32_t *index;
    size_t index_slots;
};

/* Adds a communicator (deduplicated by root, members and ordinal); returns its index, or -1
 * when out of memory (said once, as a problem of the run). */
LENS_HIDDEN int lens_comm_set_add(struct lens_comm_set *set, const struct lens_wire_comm *c,
                                  const int32_t *members);
/* The wire form of this process's record REC (its members at MEMBERS_OFF of a pool);
 * async-signal-safe. */
LENS_HIDDEN struct lens_wire_comm lens_comm_wire_of(const struct lens_comm *rec, int my_world_rank,
                                                    int32_t members_off);
/* 1 when the N wire communicators' members lie within a pool of NMEMBERS (a saved or
 * received set checked before it is merged). */
LENS_HIDDEN int lens_comm_wire_ok(const struct lens_wire_comm *comms, uint64_t n,
                                  uint64_t nmembers);
/* Adds this process's record rec. */
LENS_HIDDEN int lens_comm_set_add_local(struct lens_comm_set *set, const struct lens_comm *rec,
                                        int my_world_rank);
LENS_HIDDEN void lens_comm_set_free(struct lens_comm_set *set);
/* "s0.1", "W0.0", "mixed". */
LENS_HIDDEN void lens_comm_name(const struct lens_wire_comm *c, char *out, size_t len);
/* Inserts the set into table communicators (INSERT OR IGNORE by name); ids[i] receives
 * the row id of set->comms[i]. 0 or -1. */
struct rundb;
LENS_HIDDEN int lens_comm_set_write(struct rundb *run, const struct lens_comm_set *set, int *ids);

#endif
