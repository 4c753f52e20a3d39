/* prof_requests.c: requests remember their communicator, so the Wait and Test families
 * are charged to it; an array of requests from several communicators is charged to the
 * marked "mixed" entry. Persistent requests also remember their size, charged at Start.
 *
 * The map is a small open-addressing table under a mutex (request creation and completion
 * come in pairs; a lock-free design is not worth its complexity here).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

struct req_entry {
    uintptr_t key; /* 0 empty, UINTPTR_MAX deleted */
    struct lens_comm *rec;
    uint64_t bytes;
    int persistent;
};

static struct req_entry *entries;
static size_t mask = 0, used = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t req_key(MPI_Request req)
{
    uintptr_t key = 0;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key;
}

static size_t slot_of(uintptr_t key)
{
    key ^= key >> 31;
    key *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(key >> 17) & mask;
}

static void grow(void)
{
    size_t old_mask = mask;
    struct req_entry *old = entries;
    mask = old ? 2 * (old_mask + 1) - 1 : 255;
    entries = calloc(mask + 1, sizeof *entries);
    used = 0;
    for (size_t i = 0; old && i <= old_mask; i++) {
        if (old[i].key && old[i].key != UINTPTR_MAX) {
            size_t j = slot_of(old[i].key);
            while (entries[j].key)
                j = (j + 1) & mask;
            entries[j] = old[i];
            used++;
        }
    }
    free(old);
}

void prof_request_remember(MPI_Request req, struct lens_comm *rec, uint64_t bytes, int persistent)
{
    if (req == MPI_REQUEST_NULL)
        return;
    uintptr_t key = req_key(req);
    pthread_mutex_lock(&lock);
    if (!entries || 2 * (used + 1) > mask + 1)
        grow();
    size_t i = slot_of(key);
    while (entries[i].key && entries[i].key != UINTPTR_MAX && entries[i].key != key)
        i = (i + 1) & mask;
    used += entries[i].key == 0;
    entries[i] = (struct req_entry){key, rec, bytes, persistent};
    pthread_mutex_unlock(&lock);
}

/* The entry of req (copied into out), or 0. drop_done: remove it unless persistent. */
static int lookup(MPI_Request req, struct req_entry *out, int drop)
{
    if (!entries || req == MPI_REQUEST_NULL)
        return 0;
    uintptr_t key = req_key(req);
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = slot_of(key); entries[i].key; i = (i + 1) & mask) {
        if (entries[i].key == key) {
            *out = entries[i];
            found = 1;
            if (drop && !entries[i].persistent)
                entries[i].key = UINTPTR_MAX;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static void forget(MPI_Request req)
{
    struct req_entry e;
    if (lookup(req, &e, 1) && e.persistent) {
        pthread_mutex_lock(&lock);
        uintptr_t key = req_key(req);
        for (size_t i = slot_of(key); entries[i].key; i = (i + 1) & mask)
            if (entries[i].key == key)
                entries[i].key = UINTPTR_MAX;
        pthread_mutex_unlock(&lock);
    }
}

/* The record a set of requests is charged to: their common communicator, "mixed" if
 * they come from several, or MPI_COMM_WORLD's if none is known (as mpisee). */
static struct lens_comm *charge_of(const MPI_Request reqs[], int n)
{
    struct lens_comm *rec = NULL;
    struct req_entry e;
    for (int i = 0; i < n; i++) {
        if (!lookup(reqs[i], &e, 0))
            continue;
        if (rec && rec != e.rec)
            return prof_mixed();
        rec = e.rec;
    }
    return rec ? rec : prof_comm(MPI_COMM_WORLD);
}

/* After completion: requests that became MPI_REQUEST_NULL are done. */
static void drop_completed(const MPI_Request before[], const MPI_Request after[], int n)
{
    struct req_entry e;
    for (int i = 0; i < n; i++)
        if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL)
            lookup(before[i], &e, 1);
}

#define SMALL 64

/* Runs CALL on an array of requests: charge, time, drop the completed ones. */
#define ARRAY_CALL(OP, N, REQS, CALL)                                                              \
    if (!prof_on)                                                                                  \
        return CALL;                                                                               \
    MPI_Request small_[SMALL], *before_ = (N) <= SMALL ? small_ : malloc((N) * sizeof *before_);   \
    memcpy(before_, REQS, (N) * sizeof *before_);                                                  \
    struct lens_comm *rec_ = charge_of(before_, N);                                                \
    uint64_t t0_ = prof_now();                                                                     \
    int rc_ = CALL;                                                                                \
    prof_add(rec_, OP, 0, 0, prof_now() - t0_);                                                    \
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
    struct req_entry e = {0, NULL, 0, 0};
    int known = lookup(*req, &e, 0);
    uint64_t t0 = prof_now();
    int rc = PMPI_Start(req);
    prof_add(known ? e.rec : prof_comm(MPI_COMM_WORLD), PROF_OP_Start, e.bytes, 0, prof_now() - t0);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    if (!prof_on)
        return PMPI_Startall(n, reqs);
    uint64_t bytes = 0;
    struct req_entry e;
    for (int i = 0; i < n; i++)
        if (lookup(reqs[i], &e, 0))
            bytes += e.bytes;
    struct lens_comm *rec = charge_of(reqs, n);
    uint64_t t0 = prof_now();
    int rc = PMPI_Startall(n, reqs);
    prof_add(rec, PROF_OP_Startall, bytes, 0, prof_now() - t0);
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    forget(*req);
    return PMPI_Request_free(req);
}
