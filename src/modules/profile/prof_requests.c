/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_requests.c: requests remember their communicator, so the Wait and Test families
 * are charged to it; an array of requests from several communicators is charged to the
 * marked "mixed" entry. Persistent requests also remember their size, charged at Start.
 *
 * A request is known by where the application keeps it: the address of the MPI_Request
 * variable the creating call filled, with the handle it was given. Handle values alone are
 * not unique: Open MPI returns one shared handle (&ompi_request_empty) for every send that
 * completed inline, so two such requests on different communicators compare equal. A
 * completion call finds each request by its address (when the handle there is still the
 * one remembered), else by its handle value (the application copied the handle into
 * another variable: a request given that handle that is still where it was kept). Both
 * maps are open-addressing tables under a mutex, rebuilt without their tombstones when
 * half full; the handle map holds one entry per (handle, place).
 *
 * Without threads (the hot path of issue 16), a request is first kept in a direct-mapped
 * table by its place: remembering, finding and forgetting it there is a few instructions
 * and takes no lock. A place whose slot holds another live request goes to the maps; a copy
 * of a handle is looked for in the maps and then among the table's entries (a scan, only
 * when the request is not where it was made).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"
#include "run_output.h"

#define EMPTY 0
#define TOMBSTONE UINTPTR_MAX

/* An entry (struct prof_req, prof.h): key is where (by_place, the direct table) or the
 * handle value (by_handle); other is the handle value (by_place) or where (by_handle). */
#define req_entry prof_req

struct req_map {
    struct req_entry *slots;
    size_t mask, used, live;
};

static struct req_map by_place, by_handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The maps' lock, taken only under MPI_THREAD_MULTIPLE (set before any request exists). */
#define LOCK()                                                                                     \
    do {                                                                                           \
        if (prof_threaded)                                                                         \
            pthread_mutex_lock(&lock);                                                             \
    } while (0)
#define UNLOCK()                                                                                   \
    do {                                                                                           \
        if (prof_threaded)                                                                         \
            pthread_mutex_unlock(&lock);                                                           \
    } while (0)

#define DIRECT PROF_DIRECT
#define direct prof_direct
#define direct_live prof_direct_live
struct prof_req prof_direct[PROF_DIRECT];
size_t prof_direct_live, prof_mapped_live;

static inline struct req_entry *direct_slot(uintptr_t place)
{
    return prof_direct_slot((const MPI_Request *)place);
}

#define handle_value prof_handle_value

static size_t slot_of(const struct req_map *m, uintptr_t key)
{
    key ^= key >> 31;
    key *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(key >> 17) & m->mask;
}

/* The slot holding KEY in M, or NULL. */
static struct req_entry *map_find(struct req_map *m, uintptr_t key)
{
    if (!m->slots)
        return NULL;
    for (size_t i = slot_of(m, key); m->slots[i].key != EMPTY; i = (i + 1) & m->mask)
        if (m->slots[i].key == key)
            return &m->slots[i];
    return NULL;
}

/* Says once that requests go untracked: their completions are charged to no communicator
 * of theirs (the results of the run incomplete). */
static void untracked(const char *what)
{
    static int said;
    if (!said++)
        lens_run_problem("profile",
                         "profile: out of memory for %s: some requests are not tracked, "
                         "their completions may be charged to another communicator",
                         what);
}

/* Rebuilds M at a quarter full; out of memory, M stays as it was. 0, or -1. */
static int map_rebuild(struct req_map *m)
{
    struct req_map old = *m;
    size_t capacity = 256;
    while (capacity < 4 * (old.live + 1))
        capacity *= 2;
    struct req_entry *slots = calloc(capacity, sizeof *slots);
    if (!slots) {
        untracked("the request maps");
        return -1;
    }
    m->slots = slots;
    m->mask = capacity - 1;
    m->used = m->live = 0;
    for (size_t i = 0; old.slots && i <= old.mask; i++) {
        if (old.slots[i].key == EMPTY || old.slots[i].key == TOMBSTONE)
            continue;
        size_t j = slot_of(m, old.slots[i].key);
        while (m->slots[j].key != EMPTY)
            j = (j + 1) & m->mask;
        m->slots[j] = old.slots[i];
        m->used++, m->live++;
    }
    free(old.slots);
    return 0;
}

/* The slot of M holding KEY with OTHER (by_handle may hold a key several times). */
static struct req_entry *map_find_pair(struct req_map *m, uintptr_t key, uintptr_t other)
{
    if (!m->slots)
        return NULL;
    for (size_t i = slot_of(m, key); m->slots[i].key != EMPTY; i = (i + 1) & m->mask)
        if (m->slots[i].key == key && m->slots[i].other == other)
            return &m->slots[i];
    return NULL;
}

/* Adds E to M under E->key (the caller knows it is not there). */
static void map_insert(struct req_map *m, const struct req_entry *e)
{
    if ((!m->slots || 2 * (m->used + 1) > m->mask + 1) && map_rebuild(m) != 0 &&
        (!m->slots || m->used + 1 > m->mask)) /* no room left at all */
        return;
    size_t i = slot_of(m, e->key);
    while (m->slots[i].key != EMPTY && m->slots[i].key != TOMBSTONE)
        i = (i + 1) & m->mask;
    m->used += m->slots[i].key == EMPTY;
    m->live++;
    m->slots[i] = *e;
    prof_mapped_live = by_place.live;
}

static void map_drop(struct req_map *m, struct req_entry *slot)
{
    slot->key = TOMBSTONE;
    m->live--;
    prof_mapped_live = by_place.live;
}

static void drop(struct req_entry *e);

void prof_request_remember_slow(MPI_Request *where, struct lens_comm *rec, uint64_t bytes,
                                int persistent)
{
    if (!where || *where == MPI_REQUEST_NULL)
        return;
    uintptr_t place = (uintptr_t)where, handle = handle_value(*where);
    struct req_entry e = {place, handle, rec, prof_req_start(bytes, persistent)};
    if (!prof_threaded) {
        struct req_entry *d = direct_slot(place);
        if (d->key == EMPTY || d->key == place) {
            direct_live += d->key == EMPTY;
            if (by_place.live) { /* an older request of this place kept in the maps */
                struct req_entry *old = map_find(&by_place, place);
                if (old)
                    drop(old);
            }
            *d = e;
            return;
        }
    }
    LOCK();
    struct req_entry *old = map_find(&by_place, place); /* a request never completed */
    if (old) {
        struct req_entry *old_handle = map_find_pair(&by_handle, old->other, place);
        if (old_handle)
            map_drop(&by_handle, old_handle);
        *old = e;
    } else
        map_insert(&by_place, &e);
    map_insert(&by_handle, &(struct req_entry){handle, place, rec, e.start});
    UNLOCK();
}

/* Caller holds lock: the by_place entry of the request with HANDLE kept at PLACE, or
 * NULL. */
static struct req_entry *find_at(uintptr_t place, uintptr_t handle)
{
    struct req_entry *d = direct_slot(place);
    if (d->key == place && d->other == handle)
        return d;
    struct req_entry *e = map_find(&by_place, place);
    if (e && e->other == handle)
        return e;
    /* a copy of the handle: a request given that handle and still kept where it was */
    for (size_t i = by_handle.slots ? slot_of(&by_handle, handle) : 0;
         by_handle.slots && by_handle.slots[i].key != EMPTY; i = (i + 1) & by_handle.mask) {
        if (by_handle.slots[i].key != handle)
            continue;
        e = map_find(&by_place, by_handle.slots[i].other);
        if (e && e->other == handle)
            return e;
    }
    for (size_t i = 0; direct_live && i < DIRECT; i++)
        if (direct[i].key != EMPTY && direct[i].other == handle)
            return &direct[i];
    return NULL;
}

/* Caller holds lock: the by_place entry of the request now in *WHERE, or NULL. */
static struct req_entry *find(const MPI_Request *where)
{
    return *where == MPI_REQUEST_NULL ? NULL : find_at((uintptr_t)where, handle_value(*where));
}

/* Caller holds lock: forget the request of by_place entry E. */
static void drop(struct req_entry *e)
{
    if (e >= direct && e < direct + DIRECT) {
        e->key = EMPTY;
        direct_live--;
        return;
    }
    struct req_entry *h = map_find_pair(&by_handle, e->other, e->key);
    if (h)
        map_drop(&by_handle, h);
    map_drop(&by_place, e);
}

/* The entry of the request in *WHERE (copied into OUT), or 0. */
static int lookup(const MPI_Request *where, struct req_entry *out)
{
    LOCK();
    struct req_entry *e = find(where);
    if (e)
        *out = *e;
    UNLOCK();
    return e != NULL;
}

static void forget(const MPI_Request *where)
{
    LOCK();
    struct req_entry *e = find(where);
    if (e)
        drop(e);
    UNLOCK();
}

struct lens_comm *prof_request_comm(MPI_Request req)
{
    struct req_entry e;
    return lookup(&req, &e) ? e.rec : prof_mixed();
}

/* The record a set of requests is charged to: their common communicator, "mixed" if
 * they come from several, or MPI_COMM_WORLD's if none is known (as mpisee). */
static struct lens_comm *charge_of(const MPI_Request reqs[], int n)
{
    struct lens_comm *rec = NULL;
    struct req_entry e;
    for (int i = 0; i < n; i++) {
        if (!lookup(&reqs[i], &e))
            continue;
        if (rec && rec != e.rec)
            return prof_mixed();
        rec = e.rec;
    }
    return rec ? rec : prof_comm(MPI_COMM_WORLD);
}

/* After completion: requests of REQS (which held BEFORE) that became MPI_REQUEST_NULL are
 * done; a persistent request stays known until MPI_Request_free. */
static void drop_completed(const MPI_Request before[], const MPI_Request reqs[], int n)
{
    LOCK();
    for (int i = 0; i < n; i++) {
        if (before[i] == MPI_REQUEST_NULL || reqs[i] != MPI_REQUEST_NULL)
            continue;
        struct req_entry *e = find_at((uintptr_t)&reqs[i], handle_value(before[i]));
        if (e && !e->start) /* not persistent */
            drop(e);
    }
    UNLOCK();
}

#define SMALL 64

/* Runs CALL on an array of requests: charge, time, drop the completed ones. */
#define ARRAY_CALL(OP, N, REQS, CALL)                                                              \
    if (!prof_on)                                                                                  \
        return CALL;                                                                               \
    void *site_ = prof_caller();                                                                   \
    MPI_Request small_[SMALL], *before_ = (N) <= SMALL ? small_ : malloc((N) * sizeof *before_);   \
    if (before_)                                                                                   \
        memcpy(before_, REQS, (N) * sizeof *before_);                                              \
    else                                                                                           \
        untracked("a request array");                                                              \
    struct lens_comm *rec_ = charge_of(REQS, N);                                                   \
    uint64_t t0_ = prof_now();                                                                     \
    int rc_ = CALL;                                                                                \
    uint64_t t1_ = prof_now();                                                                     \
    prof_record(OP, site_, rec_, 0, 0, t1_ - t0_);                                                 \
    if (before_)                                                                                   \
        drop_completed(before_, REQS, N);                                                          \
    if (before_ != small_)                                                                         \
        free(before_);                                                                             \
    return rc_

/* A single request (the common case): found once before the call, and dropped after it
 * if it completed (found again: the call may have run callbacks that changed the maps). */
static void single_done(MPI_Request *req, MPI_Request before)
{
    if (*req != MPI_REQUEST_NULL || before == MPI_REQUEST_NULL)
        return;
    LOCK();
    struct req_entry *e = find_at((uintptr_t)req, handle_value(before));
    if (e && !e->start) /* not persistent */
        drop(e);
    UNLOCK();
}

static struct lens_comm *single_charge(const MPI_Request *req)
{
    struct req_entry e;
    return lookup(req, &e) ? e.rec : prof_comm(MPI_COMM_WORLD);
}

/* The request in its direct slot, whose communicator is that of prof_last L_'s cells: the
 * call, timed with CLOCK, adds itself to the pending sums and, completed, is forgotten
 * (the slot is still this place's: nothing can store another request at this place while
 * the call runs). A slot holds a live request (never MPI_REQUEST_NULL), so a matching
 * handle is one. */
#define SINGLE_IN_SLOT(REQ)                                                                        \
    (d_->key == (uintptr_t)(REQ) && d_->other == prof_handle_raw(*(REQ)) && l_->rec == d_->rec)
#define SINGLE_PENDING(REQ, CALL, CLOCK)                                                           \
    do {                                                                                           \
        uint64_t t0_ = CLOCK();                                                                    \
        int rc_ = CALL;                                                                            \
        uint64_t t1_ = CLOCK();                                                                    \
        prof_pend(l_, t1_ - t0_); /* 0 bytes */                                                    \
        if (*(REQ) == MPI_REQUEST_NULL && !d_->start) {                                            \
            d_->key = EMPTY;                                                                       \
            prof_direct_live--;                                                                    \
        }                                                                                          \
        return rc_;                                                                                \
    } while (0)

/* Without threads, such a request called from the operation's keyed call site (prof.h)
 * takes SINGLE_PENDING inline; anything else takes SLOW (SINGLE_GENERAL in a function of its
 * own, which makes the call the operation's key). */
#define SINGLE_CALL(OP, REQ, CALL, SLOW)                                                           \
    void *ra_ = __builtin_return_address(0);                                                       \
    struct prof_req *d_ = prof_direct_slot(REQ);                                                   \
    __asm__("" : "+r"(d_)); /* one register across the call, not its parts (3 fewer saved) */      \
    struct prof_last *l_ = &prof_last[OP];                                                         \
    if (LENS_LIKELY_PROF(prof_key_is(l_->ra, ra_) && SINGLE_IN_SLOT(REQ)))                         \
        SINGLE_PENDING(REQ, CALL, prof_tick);                                                      \
    return SLOW

/* The general Wait or Test of one request; a call charged to the communicator of the
 * operation's last cells from a return address that is its own call site becomes the key.
 * A call site only the core can name (stacked, Fortran) is recognised here by the site. */
#define SINGLE_GENERAL(OP, REQ, CALL)                                                              \
    if (!prof_on)                                                                                  \
        return CALL;                                                                               \
    void *site_ = prof_site_of(ra_);                                                               \
    struct prof_req *d_ = prof_direct_slot(REQ);                                                   \
    struct prof_last *l_ = &prof_last[OP];                                                         \
    if (!prof_threaded && l_->site == site_ && SINGLE_IN_SLOT(REQ))                                \
        SINGLE_PENDING(REQ, CALL, prof_now);                                                       \
    MPI_Request before_ = *(REQ);                                                                  \
    struct lens_comm *rec_ = single_charge(REQ);                                                   \
    uint64_t t0_ = prof_now();                                                                     \
    int rc_ = CALL;                                                                                \
    uint64_t t1_ = prof_now();                                                                     \
    void *key_ = prof_key_to_set(ra_);                                                             \
    if (prof_record_cells(OP, site_, rec_, 0, 0, t1_ - t0_) && key_)                               \
        prof_last[OP].ra = key_;                                                                   \
    single_done(REQ, before_);                                                                     \
    return rc_

static __attribute__((noinline)) int wait_slow(MPI_Request *req, MPI_Status *status, void *ra_)
{
    SINGLE_GENERAL(PROF_OP_Wait, req, MPILENS_DOWN(Wait)(req, status));
}

static __attribute__((noinline)) int test_slow(MPI_Request *req, int *flag, MPI_Status *status,
                                               void *ra_)
{
    SINGLE_GENERAL(PROF_OP_Test, req, MPILENS_DOWN(Test)(req, flag, status));
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    SINGLE_CALL(PROF_OP_Wait, req, MPILENS_DOWN(Wait)(req, status), wait_slow(req, status, ra_));
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    SINGLE_CALL(PROF_OP_Test, req, MPILENS_DOWN(Test)(req, flag, status),
                test_slow(req, flag, status, ra_));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Waitall, n, reqs, MPILENS_DOWN(Waitall)(n, reqs, statuses));
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Testall, n, reqs, MPILENS_DOWN(Testall)(n, reqs, flag, statuses));
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    ARRAY_CALL(PROF_OP_Waitany, n, reqs, MPILENS_DOWN(Waitany)(n, reqs, index, status));
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    ARRAY_CALL(PROF_OP_Testany, n, reqs, MPILENS_DOWN(Testany)(n, reqs, index, flag, status));
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Waitsome, n, reqs,
               MPILENS_DOWN(Waitsome)(n, reqs, outcount, indices, statuses));
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Testsome, n, reqs,
               MPILENS_DOWN(Testsome)(n, reqs, outcount, indices, statuses));
}

int MPI_Start(MPI_Request *req)
{
    if (!prof_on)
        return MPILENS_DOWN(Start)(req);
    void *site = prof_caller();
    struct req_entry e = {0, 0, NULL, 0};
    int known = lookup(req, &e);
    uint64_t t0 = prof_now();
    int rc = MPILENS_DOWN(Start)(req);
    uint64_t t1 = prof_now();
    /* a persistent collective's start counts as its collective (marked persistent) */
    prof_record(known ? prof_req_started_op(&e, PROF_OP_Start) : PROF_OP_Start, site,
                known ? e.rec : prof_comm(MPI_COMM_WORLD), prof_req_bytes(&e), 0, t1 - t0);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    if (!prof_on)
        return MPILENS_DOWN(Startall)(n, reqs);
    void *site = prof_caller();
    uint64_t bytes = 0;
    struct req_entry e;
    for (int i = 0; i < n; i++)
        if (lookup(&reqs[i], &e))
            bytes += prof_req_bytes(&e);
    struct lens_comm *rec = charge_of(reqs, n);
    uint64_t t0 = prof_now();
    int rc = MPILENS_DOWN(Startall)(n, reqs);
    uint64_t t1 = prof_now();
    prof_record(PROF_OP_Startall, site, rec, bytes, 0, t1 - t0);
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    forget(req);
    return MPILENS_DOWN(Request_free)(req);
}
