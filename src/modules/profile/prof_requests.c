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
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

#define EMPTY 0
#define TOMBSTONE UINTPTR_MAX

struct req_entry {
    uintptr_t key;   /* where (by_place) or the handle value (by_handle) */
    uintptr_t other; /* the handle value (by_place) or where (by_handle) */
    struct lens_comm *rec;
    uint64_t bytes;
    int persistent;
};

struct req_map {
    struct req_entry *slots;
    size_t mask, used, live;
};

static struct req_map by_place, by_handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t handle_value(MPI_Request req)
{
    uintptr_t key = 0;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key == EMPTY || key == TOMBSTONE ? key ^ 1 : key;
}

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

static void map_rebuild(struct req_map *m)
{
    struct req_map old = *m;
    size_t capacity = 256;
    while (capacity < 4 * (old.live + 1))
        capacity *= 2;
    m->slots = calloc(capacity, sizeof *m->slots);
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
    if (!m->slots || 2 * (m->used + 1) > m->mask + 1)
        map_rebuild(m);
    size_t i = slot_of(m, e->key);
    while (m->slots[i].key != EMPTY && m->slots[i].key != TOMBSTONE)
        i = (i + 1) & m->mask;
    m->used += m->slots[i].key == EMPTY;
    m->live++;
    m->slots[i] = *e;
}

static void map_drop(struct req_map *m, struct req_entry *slot)
{
    slot->key = TOMBSTONE;
    m->live--;
}

void prof_request_remember(MPI_Request *where, struct lens_comm *rec, uint64_t bytes,
                           int persistent)
{
    if (!where || *where == MPI_REQUEST_NULL)
        return;
    uintptr_t place = (uintptr_t)where, handle = handle_value(*where);
    struct req_entry e = {place, handle, rec, bytes, persistent};
    pthread_mutex_lock(&lock);
    struct req_entry *old = map_find(&by_place, place); /* a request never completed */
    if (old) {
        struct req_entry *old_handle = map_find_pair(&by_handle, old->other, place);
        if (old_handle)
            map_drop(&by_handle, old_handle);
        *old = e;
    } else
        map_insert(&by_place, &e);
    map_insert(&by_handle, &(struct req_entry){handle, place, rec, bytes, persistent});
    pthread_mutex_unlock(&lock);
}

/* Caller holds lock: the by_place entry of the request with HANDLE kept at PLACE, or
 * NULL. */
static struct req_entry *find_at(uintptr_t place, uintptr_t handle)
{
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
    struct req_entry *h = map_find_pair(&by_handle, e->other, e->key);
    if (h)
        map_drop(&by_handle, h);
    map_drop(&by_place, e);
}

/* The entry of the request in *WHERE (copied into OUT), or 0. */
static int lookup(const MPI_Request *where, struct req_entry *out)
{
    pthread_mutex_lock(&lock);
    struct req_entry *e = find(where);
    if (e)
        *out = *e;
    pthread_mutex_unlock(&lock);
    return e != NULL;
}

static void forget(const MPI_Request *where)
{
    pthread_mutex_lock(&lock);
    struct req_entry *e = find(where);
    if (e)
        drop(e);
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n; i++) {
        if (before[i] == MPI_REQUEST_NULL || reqs[i] != MPI_REQUEST_NULL)
            continue;
        struct req_entry *e = find_at((uintptr_t)&reqs[i], handle_value(before[i]));
        if (e && !e->persistent)
            drop(e);
    }
    pthread_mutex_unlock(&lock);
}

#define SMALL 64

/* Runs CALL on an array of requests: charge, time, drop the completed ones. */
#define ARRAY_CALL(OP, N, REQS, CALL)                                                              \
    if (!prof_on)                                                                                  \
        return CALL;                                                                               \
    void *site_ = prof_caller();                                                                   \
    MPI_Request small_[SMALL], *before_ = (N) <= SMALL ? small_ : malloc((N) * sizeof *before_);   \
    memcpy(before_, REQS, (N) * sizeof *before_);                                                  \
    struct lens_comm *rec_ = charge_of(REQS, N);                                                   \
    uint64_t t0_ = prof_now();                                                                     \
    int rc_ = CALL;                                                                                \
    uint64_t t1_ = prof_now();                                                                     \
    prof_add(rec_, OP, 0, 0, t1_ - t0_);                                                           \
    prof_site_add(site_, OP, 0, t1_ - t0_);                                                        \
    drop_completed(before_, REQS, N);                                                              \
    if (before_ != small_)                                                                         \
        free(before_);                                                                             \
    return rc_

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    ARRAY_CALL(PROF_OP_Wait, 1, req, PMPI_Wait(req, status));
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    ARRAY_CALL(PROF_OP_Test, 1, req, PMPI_Test(req, flag, status));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Waitall, n, reqs, PMPI_Waitall(n, reqs, statuses));
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Testall, n, reqs, PMPI_Testall(n, reqs, flag, statuses));
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    ARRAY_CALL(PROF_OP_Waitany, n, reqs, PMPI_Waitany(n, reqs, index, status));
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    ARRAY_CALL(PROF_OP_Testany, n, reqs, PMPI_Testany(n, reqs, index, flag, status));
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Waitsome, n, reqs, PMPI_Waitsome(n, reqs, outcount, indices, statuses));
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    ARRAY_CALL(PROF_OP_Testsome, n, reqs, PMPI_Testsome(n, reqs, outcount, indices, statuses));
}

int MPI_Start(MPI_Request *req)
{
    if (!prof_on)
        return PMPI_Start(req);
    void *site = prof_caller();
    struct req_entry e = {0, 0, NULL, 0, 0};
    int known = lookup(req, &e);
    uint64_t t0 = prof_now();
    int rc = PMPI_Start(req);
    uint64_t t1 = prof_now();
    prof_add(known ? e.rec : prof_comm(MPI_COMM_WORLD), PROF_OP_Start, e.bytes, 0, t1 - t0);
    prof_site_add(site, PROF_OP_Start, e.bytes, t1 - t0);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    if (!prof_on)
        return PMPI_Startall(n, reqs);
    void *site = prof_caller();
    uint64_t bytes = 0;
    struct req_entry e;
    for (int i = 0; i < n; i++)
        if (lookup(&reqs[i], &e))
            bytes += e.bytes;
    struct lens_comm *rec = charge_of(reqs, n);
    uint64_t t0 = prof_now();
    int rc = PMPI_Startall(n, reqs);
    uint64_t t1 = prof_now();
    prof_add(rec, PROF_OP_Startall, bytes, 0, t1 - t0);
    prof_site_add(site, PROF_OP_Startall, bytes, t1 - t0);
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    forget(req);
    return PMPI_Request_free(req);
}
