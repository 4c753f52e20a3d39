/* SPDX-License-Identifier: BSD-3-Clause */
/* prof.h: the profile module's state and helpers, shared by its files.
 *
 * The profile module is a PMPI tool (it works stacked by mpilens or preloaded alone). For
 * every communicator it keeps, per operation and send-buffer-size bucket, the number of
 * calls, total and maximum time and volume of this rank (struct lens_comm). At
 * MPI_Finalize the ranks merge their records along a binomial tree and rank 0 writes the
 * run database (prof_merge.c, prof_db.c). Counters are updated with atomics, so the module
 * is correct under MPI_THREAD_MULTIPLE.
 */
#ifndef PROF_H
#define PROF_H

#include <mpi.h>
#include <mpilens.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "commtrack.h"
#include "status_bytes.h"
#include "lens_counts.h"
#include "type_sizes.h"
#include "prof_op_ids.h"
#include "lens_down.h" /* MPILENS_DOWN: the pass-down of a chained module (chain.c) */

#include "size_buckets.h" /* LENS_MAX_BUCKETS */

/* Everything below is internal to profile.so: hidden, so the wrappers reach it without the
 * PLT or the GOT. The MPI_ wrappers keep mpi.h's default visibility. */
#pragma GCC visibility push(hidden)
#define PROF_MAX_OPS 256

struct prof_op {
    const char *name; /* without the MPI_ prefix, as mpisee names it */
    const char *kind; /* p2p, coll, rma, io */
    int vw;           /* [v,w] operation: always the first bucket */
};
extern const int prof_op_count;
extern const struct prof_op prof_ops[];

struct prof_cell {
    uint64_t calls, time_ticks, max_ticks, volume;
};

/* The profile's data in a communicator record (commtrack.h payload). */
struct prof_rows {
    struct prof_cell *_Atomic rows[PROF_MAX_OPS]; /* per operation, lazily: nbuckets cells */
};

/* Names the generated wrappers use. */
#define prof_win lens_comm_of_win
#define prof_mixed lens_comm_mixed

extern int prof_on;              /* recording (between MPI_Init and MPI_Finalize, unless stopped) */
extern int prof_started;         /* MPI_Init done, MPI_Finalize not begun */
extern int prof_pcontrol_levels; /* MPI_Pcontrol's levels obeyed (prof_pcontrol.c) */
extern int prof_threaded;        /* MPI_THREAD_MULTIPLE: update counters atomically */
extern int prof_nbuckets;        /* bounds + 1 */
extern int64_t prof_bounds[LENS_MAX_BUCKETS]; /* upper bounds (inclusive) of buckets */
extern struct lens_comm *prof_all;            /* list of all records */

/* Timestamps are clock ticks: the CPU's time-stamp counter where it runs at a constant
 * rate (x86-64 with constant_tsc: ~8 ns cheaper a call than clock_gettime), nanoseconds
 * otherwise. prof_run.c measures ticks per second over the whole run and converts once,
 * when the profile is collected. */
extern int prof_use_tsc;
static inline uint64_t prof_now(void)
{
#if defined(__x86_64__)
    if (prof_use_tsc)
        return __builtin_ia32_rdtsc();
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
extern double prof_seconds_per_tick; /* set at MPI_Finalize */
void prof_clock_start(void);         /* at MPI_Init, before the first prof_now() */
void prof_clock_stop(void);          /* at MPI_Finalize: calibrates prof_seconds_per_tick */

/* prof_core.c */
void prof_setup(void);               /* buckets from MPILENS_BUCKETS; 0 or -1 */
extern struct lens_comm *prof_world; /* MPI_COMM_WORLD's record, set at MPI_Init */
/* The record of comm (registered on demand); MPI_COMM_WORLD's without a lookup. */
static inline struct lens_comm *prof_comm(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD && prof_world ? prof_world : lens_comm(comm);
}
struct lens_comm *prof_mixed(void); /* the marked entry for mixed request arrays */
/* The record of the request whose handle is REQ (MPI_Pready and MPI_Parrived take a copy):
 * its communicator's, or the "mixed" entry if the request is not known. */
struct lens_comm *prof_request_comm(MPI_Request req);
struct lens_comm *prof_register(MPI_Comm comm, char letter, const struct lens_comm *like);
void prof_forget(MPI_Comm comm); /* after MPI_Comm_free: the record stays */
void prof_add(struct lens_comm *rec, int op, uint64_t bytes, int vw, uint64_t ticks);

/* count x the size of type. Sizes are cached by handle without threads (the cache is
 * emptied at MPI_Type_free, whose handle may come back as another type). */
extern struct lens_type_slot prof_type_cache[LENS_TYPE_SLOTS];
uint64_t prof_bytes_slow(int64_t count, MPI_Datatype type);
static inline uint64_t prof_bytes(int64_t count, MPI_Datatype type)
{
    uint64_t bytes;
    if (count <= 0)
        return 0;
    if (!prof_threaded && lens_type_bytes_cached(prof_type_cache, count, type, &bytes))
        return bytes;
    return prof_bytes_slow(count, type);
}
/* Bytes a receive got: from the status if there is one, else the posted count. */
uint64_t prof_received_slow(const MPI_Status *status, int64_t count, MPI_Datatype type);
static inline uint64_t prof_received(const MPI_Status *status, int64_t count, MPI_Datatype type)
{
    return status == MPI_STATUS_IGNORE ? prof_bytes(count, type)
                                       : prof_received_slow(status, count, type);
}
/* The bytes of counts[0..n) elements of type (or of types[i]); counts of int or, in a
 * large-count binding, MPI_Count (lens_counts.h). */
uint64_t prof_sum_counts_of(struct lens_counts counts, MPI_Datatype type, int n);
uint64_t prof_sum_w_of(struct lens_counts counts, const MPI_Datatype types[], int n);
#define prof_sum_counts(counts, type, n) prof_sum_counts_of(LENS_COUNTS(counts), type, n)
#define prof_sum_w(counts, types, n) prof_sum_w_of(LENS_COUNTS(counts), types, n)
int prof_rank(MPI_Comm comm);
int prof_size(MPI_Comm comm);
int prof_outdegree(MPI_Comm comm);
extern uint64_t prof_mpi_ticks;   /* time inside MPI on this rank (atomic adds) */
extern uint64_t prof_start_ticks; /* prof_now() at the start of MPI_Init */

/* prof_sites.c: the profile by call site (the application's return address). */
struct prof_site_cell {
    uint64_t key; /* the return address, the operation in the top byte; 0: free */
    uint64_t calls, ticks, max_ticks, min_ticks, volume;
};
void prof_site_add(void *site, int op, uint64_t bytes, uint64_t ticks);
/* The cell of (site, op), claimed if new; NULL without a site or when the table is full. */
struct prof_site_cell *prof_site_cell(void *site, int op);
/* The ranks' call sites as written into the database: every rank's cells one after the
 * other (ALL, LEN bytes), and how many cells the full tables dropped. */
struct prof_sites_blob {
    char *all;
    size_t len;
    uint64_t lost;
};
/* At MPI_Finalize, collective over COMM: every rank's cells gathered into the BLOB of
 * COMM's rank 0, or (REDUCE) combined over ranks on the way (a count of ranks each). */
void prof_sites_gather(MPI_Comm comm, int reduce, struct prof_sites_blob *blob);
/* IN's records of ranks FIRST..LAST into OUT (malloc'ed). */
void prof_sites_subset(const struct prof_sites_blob *in, int first, int last,
                       struct prof_sites_blob *out);
/* IN's records combined over ranks into OUT (malloc'ed). */
void prof_sites_summarize(const struct prof_sites_blob *in, struct prof_sites_blob *out);
/* Names the sites of BLOB and writes them into RUN (table callsite_profile, or SUMMARY:
 * callsite_summary), inside the caller's transaction. 0, or -1 (rundb_failure_take says
 * why). */
struct rundb;
int prof_sites_write(struct rundb *run, const struct prof_sites_blob *blob, int summary);
/* Snapshots (prof_snapshot.c): the table of loaded objects (at MPI_Init); the cells as
 * records into an emitter, signal-safe (returns how many); a recovered section's check;
 * writing recovered records (ranks' sections one after the other) into DIR's database. */
struct mpilens_emitter;
void prof_sites_prepare(void);
void prof_sites_reset(void); /* every call site's counts to zero (MPI_Pcontrol(2)) */
uint64_t prof_sites_emit(struct mpilens_emitter *e, int rank);
int prof_sites_check(const char *data, size_t len, uint64_t count);
/* The application's call site of the call being made, read in the MPI_X wrapper itself
 * (a macro: its return address is the one that counts; mpilens.h, mpilens_module_direct). */
#define prof_caller() prof_site_of(__builtin_return_address(0))
/* Return addresses that need the core to name their call site (mpilens_site_range): set at
 * mpilens_module_init; until then every one asks the core, if there is one. */
extern unsigned long prof_site_lo, prof_site_span;
/* Stacked with other modules (return addresses inside the core's runners, or inside the
 * module above in a chained stack), the core's stored call site of this thread
 * (mpilens_caller_slot), read without a call: set at MPI_Init when only that thread makes
 * MPI calls (MPI_THREAD_SINGLE or FUNNELED) and no Fortran bindings are loaded; else it
 * points to PROF_NO_KEY (never NULL: no test on the way). */
extern void **prof_caller_slot;
/* The key of a call (prof_last.ra): its call site when that is known without a call to the
 * core (the return address itself, or the core's stored site when stacked), else
 * PROF_NO_KEY, which no key holds. */
#define PROF_NO_KEY ((void *)1)
static inline __attribute__((always_inline)) void *prof_key_of(void *ra)
{
    if (__builtin_expect((uintptr_t)ra - prof_site_lo >= prof_site_span, 1) || !mpilens_site)
        return ra;
    return *prof_caller_slot;
}
/* The call site of a call from return address RA: its key, or what the core names. */
static inline __attribute__((always_inline)) void *prof_site_of(void *ra)
{
    void *key = prof_key_of(ra);
    return key != PROF_NO_KEY ? key : mpilens_site(ra);
}
/* Whether a call from return address RA has L's key: the common case, alone in the stack,
 * costs one compare (a key is never an address of the core, so a return address inside
 * the core's runners only matches through the stored site). */
static inline __attribute__((always_inline)) int prof_key_is(const void *key, void *ra)
{
    if (__builtin_expect(key == ra, 1))
        return 1;
    return key == *prof_caller_slot && (uintptr_t)ra - prof_site_lo < prof_site_span;
}
/* What a call sets as its key: prof_key_of, or NULL (no key) for PROF_NO_KEY. */
static inline void *prof_key_to_set(void *ra)
{
    void *key = prof_key_of(ra);
    return key == PROF_NO_KEY ? NULL : key;
}

/* One call: its (communicator, operation, size bucket) cell and its (call site, operation)
 * cell. Without threads, the last cells of each operation are kept with what chose them
 * (record, site, the bucket's bounds), and the calls that go to them are added up in
 * prof_last itself (calls, ticks, volume, longest and shortest: "pending") and folded into
 * both cells only when the operation's cells change, at MPI_Finalize (prof_fold_all) or,
 * without writing, when a snapshot reads them (prof_cell_now, prof_site_now): a call like
 * the one before (the common case: a loop) costs a few additions, no lookup. */
struct prof_last {
    /* The generated wrappers' key (gen_profile.py): the application's return address and
     * the call's own arguments that chose rec and bytes (the handle of its communicator,
     * window or file; count and datatype), so that a call like the one before is
     * recognised before it computes anything. ra is the call site (prof_key_of: the
     * return address, or the core's stored site when stacked). NULL: no key (none is set
     * under threads, without the time-stamp counter on x86-64, before MPI_Init or after
     * MPI_Finalize, or for a call whose site only a call to the core can name). Forgotten
     * whenever a handle or a datatype may change meaning. */
    void *ra;
    int keyed; /* handle, type, count, bytes, size_mask hold a key (ra may be NULL) */
    uintptr_t handle, type;
    int64_t count;
    uint64_t bytes;       /* of a call with the key (receives: see posted_in_bucket) */
    uint64_t size_mask;   /* receives: the datatype's size - 1 if a power of two, else ~0 */
    int posted_in_bucket; /* receives: bytes are the posted count's (in the cells' bucket) */
    /* The cells and what chose them. */
    struct lens_comm *rec;
    void *site;
    int64_t lo, hi; /* the bucket: lo < bytes <= hi */
    struct prof_cell *cell;
    struct prof_site_cell *site_cell;
    /* Pending: the calls added to cell and site_cell since they were last folded. Their
     * volume is calls x bytes + volume_off (prof_pending_volume): a call with the key's
     * bytes adds nothing to it, any other its difference to them (prof_pend_bytes); the
     * key's bytes change only with no call pending (prof_key_bytes). */
    uint64_t calls, ticks, volume_off, max_ticks, min_ticks /* UINT64_MAX: none */;
};
extern struct prof_last prof_last[PROF_MAX_OPS];
/* Adds the call and, when it can, makes prof_last[op] its cells: returns 1 then, if a key
 * may be set too (prof_keys_on). */
int prof_record_slow(int op, void *site, struct lens_comm *rec, uint64_t bytes, int vw,
                     uint64_t ticks);
void prof_last_forget(void); /* every generated key: a handle or a datatype was freed */
/* At MPI_Init, before any communicator is registered: prof_last_forget hears of every
 * handle that changes meaning (commtrack.h's hooks). */
void prof_handle_hooks_install(void);
void prof_fold_all(void); /* every operation's pending calls into its cells */
/* Keys may be set: no threads, and on x86-64 the time-stamp counter (a keyed call reads
 * prof_tick() without testing prof_use_tsc). Set at MPI_Init. */
extern int prof_keys_on;
static inline uint64_t prof_tick(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return prof_now();
#endif
}

/* Adds a call of the key's bytes (L->bytes) to prof_last L's pending calls. The longest
 * and shortest are stored only when they change (a compare with memory and a branch each,
 * where an unconditional store of the larger took a load, a compare, a conditional move and
 * a store). */
static inline __attribute__((always_inline)) void prof_pend(struct prof_last *l, uint64_t ticks)
{
    l->calls++;
    l->ticks += ticks;
    if (__builtin_expect(ticks > l->max_ticks, 0))
        l->max_ticks = ticks;
    if (__builtin_expect(ticks < l->min_ticks, 0))
        l->min_ticks = ticks;
}
/* The same for a call of any BYTES (modulo 2^64, as the volume itself). The call is
 * counted first, so a snapshot taken by a signal in between sees it with the key's bytes,
 * never a volume below the one before. */
static inline __attribute__((always_inline)) void prof_pend_bytes(struct prof_last *l,
                                                                  uint64_t bytes, uint64_t ticks)
{
    prof_pend(l, ticks);
    atomic_signal_fence(memory_order_seq_cst);
    l->volume_off += bytes - l->bytes;
}
/* The volume of L's pending calls. */
static inline uint64_t prof_pending_volume(const struct prof_last *l)
{
    return l->calls * l->bytes + l->volume_off;
}
void prof_fold(struct prof_last *l); /* L's pending calls into its cells */
/* Makes BYTES the key's bytes of L: its pending calls are folded into their cells first
 * (no pending volume is recomputed, so a snapshot never sees it half changed). */
static inline void prof_key_bytes(struct prof_last *l, uint64_t bytes)
{
    if (l->bytes != bytes) {
        prof_fold(l);
        l->bytes = bytes;
    }
}
/* A cell as it is now: with the pending calls of prof_last[op] if they go to it (read only:
 * snapshots may run in a signal handler or beside the application's thread). */
struct prof_cell prof_cell_now(const struct prof_cell *c, int op);
struct prof_site_cell prof_site_now(const struct prof_site_cell *c, int op);
uint64_t prof_mpi_ticks_now(void);

/* Whether BYTES fall in the bucket of L's cells. */
static inline __attribute__((always_inline)) int prof_in_bucket(const struct prof_last *l,
                                                                uint64_t bytes)
{
    return (int64_t)bytes > l->lo && (int64_t)bytes <= l->hi;
}
/* Returns 1 when prof_last[op] holds the call's cells afterwards and a key may be set. */
static inline __attribute__((always_inline)) int
prof_record_cells(int op, void *site, struct lens_comm *rec, uint64_t bytes, int vw, uint64_t ticks)
{
    struct prof_last *l = &prof_last[op];
    if (__builtin_expect(
            l->rec == rec && l->site == site && prof_in_bucket(l, bytes) && !prof_threaded, 1)) {
        prof_pend_bytes(l, bytes, ticks);
        return prof_keys_on;
    }
    return prof_record_slow(op, site, rec, bytes, vw, ticks);
}
#define prof_record(op, site, rec, bytes, vw, ticks)                                               \
    ((void)prof_record_cells(op, site, rec, bytes, vw, ticks))
/* A keyed receive whose bytes (from its status) are not a whole number of elements of a
 * size that is a power of two, or fall outside the key's bucket: recorded the general way. */
void prof_received_other(int op, struct prof_last *l, const MPI_Status *status, int64_t count,
                         MPI_Datatype type, uint64_t ticks);
/* The size mask of a receive's key (struct prof_last). */
static inline uint64_t prof_size_mask(MPI_Datatype type)
{
    uint64_t size = prof_bytes(1, type);
    return size & (size - 1) ? ~(uint64_t)0 : size ? size - 1 : 0;
}

/* prof_snapshot.c: this rank's profile saved however the rank ends (mpilens_snapshot.h) */
void prof_snapshot_install(int rank, int size);

/* Files remember the communicator they were opened on (prof_files.c). */
struct lens_comm *prof_file(MPI_File fh);

#define LENS_LIKELY_PROF(x) __builtin_expect(!!(x), 1)

/* prof_requests.c: requests remember their communicator (and bytes, for Start). Without
 * threads a request is kept in a direct-mapped table by the place the application keeps it
 * (key: that address, other: the handle), else in locked maps (prof_requests.c). */
struct prof_req {
    uintptr_t key, other;
    struct lens_comm *rec;
    uint64_t start; /* persistent: 1 + the bytes of each start, in the low 56 bits, and in
                       the top 8 the operation its starts count as, plus one (0: MPI_Start);
                       0: not persistent (32 bytes a slot, and a request that is not
                       persistent stores a constant) */
};
#define PROF_REQ_BYTES_MASK ((UINT64_C(1) << 56) - 1)
/* PERSISTENT: 0 not, 1 its starts are MPI_Start's, 2 + OP: its starts count as operation OP
 * (a persistent collective's: "Allreduce persistent"). */
static inline uint64_t prof_req_start(uint64_t bytes, int persistent)
{
    return persistent ? ((bytes + 1) & PROF_REQ_BYTES_MASK) | ((uint64_t)(persistent - 1) << 56)
                      : 0;
}
static inline uint64_t prof_req_bytes(const struct prof_req *e)
{
    return e->start ? (e->start & PROF_REQ_BYTES_MASK) - 1 : 0;
}
/* The operation a start of E counts as, or OTHERWISE (MPI_Start, MPI_Startall). */
static inline int prof_req_started_op(const struct prof_req *e, int otherwise)
{
    return e->start >> 56 ? (int)(e->start >> 56) - 1 : otherwise;
}
#define PROF_DIRECT 256 /* a power of two */
extern struct prof_req prof_direct[PROF_DIRECT];
extern size_t prof_direct_live, prof_mapped_live;
static inline struct prof_req *prof_direct_slot(const MPI_Request *where)
{
    return &prof_direct[((uintptr_t)where >> 3) & (PROF_DIRECT - 1)];
}
/* A live request's handle as it is (Open MPI's are pointers, MPICH's have their kind bits
 * set: never 0 or all ones): what the keyed paths store and compare in the direct table. */
static inline uintptr_t prof_handle_raw(MPI_Request req)
{
    uintptr_t key = 0;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key;
}
/* A handle as a key (never 0 or all ones, which mark free and dropped slots): for a live
 * request, prof_handle_raw's value. */
static inline uintptr_t prof_handle_value(MPI_Request req)
{
    uintptr_t key = prof_handle_raw(req);
    return key == 0 || key == UINTPTR_MAX ? key ^ 1 : key;
}
void prof_request_remember_slow(MPI_Request *where, struct lens_comm *rec, uint64_t bytes,
                                int persistent);
static inline void prof_request_remember(MPI_Request *where, struct lens_comm *rec, uint64_t bytes,
                                         int persistent)
{
    struct prof_req *d = prof_direct_slot(where);
    if (LENS_LIKELY_PROF(!prof_threaded && d->key == 0 && prof_mapped_live == 0 && where &&
                         *where != MPI_REQUEST_NULL)) {
        *d = (struct prof_req){(uintptr_t)where, prof_handle_value(*where), rec,
                               prof_req_start(bytes, persistent)};
        prof_direct_live++;
        return;
    }
    prof_request_remember_slow(where, rec, bytes, persistent);
}
/* The same after a keyed call (no threads) that succeeded: the call filled *where with a
 * live request. */
static inline __attribute__((always_inline)) void prof_request_remember_keyed(MPI_Request *where,
                                                                              struct lens_comm *rec,
                                                                              uint64_t bytes,
                                                                              int persistent)
{
    struct prof_req *d = prof_direct_slot(where);
    if (LENS_LIKELY_PROF(d->key == 0 && prof_mapped_live == 0)) {
        d->key = (uintptr_t)where;
        d->other = prof_handle_raw(*where);
        d->rec = rec;
        d->start = prof_req_start(bytes, persistent);
        prof_direct_live++;
        return;
    }
    prof_request_remember_slow(where, rec, bytes, persistent);
}

#pragma GCC visibility pop

#endif
