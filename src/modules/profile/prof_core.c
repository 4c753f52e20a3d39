/* prof_core.c: communicator records, the handle-to-record table, size buckets and the
 * per-call accounting of the profile module.
 *
 * The table maps a communicator handle to its record. Lookups (every MPI call) read it
 * without a lock; registrations (communicator creation, rare) take a mutex and publish
 * entries with release stores. A freed communicator leaves the table but its record stays
 * in prof_all, so its data and name survive until MPI_Finalize.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

int prof_on;
int prof_threaded;
int prof_nbuckets = 8;
int64_t prof_bounds[PROF_MAX_BUCKETS] = {128, 1024, 8192, 65536, 262144, 1048576, 33554432};
struct prof_comm *prof_all;
uint64_t prof_mpi_ticks;
int prof_use_tsc;
double prof_seconds_per_tick = 1e-9;

struct slot {
    uintptr_t key; /* 0: empty, UINTPTR_MAX: deleted */
    struct prof_comm *rec;
};
struct table {
    size_t mask;
    struct slot slots[];
};

static struct table *_Atomic comm_table;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int creation_counter;
static struct prof_comm *mixed_record;

static uintptr_t handle_key(MPI_Comm comm)
{
    uintptr_t key = 0;
    memcpy(&key, &comm, sizeof comm < sizeof key ? sizeof comm : sizeof key);
    return key;
}

static size_t hash_key(uintptr_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key;
}

static struct table *table_new(size_t capacity)
{
    struct table *t = calloc(1, sizeof *t + capacity * sizeof(struct slot));
    t->mask = capacity - 1;
    return t;
}

/* Caller holds registry_lock. Old tables are never freed: readers may still hold them. */
static void table_put(uintptr_t key, struct prof_comm *rec)
{
    struct table *t = atomic_load(&comm_table);
    size_t used = 0;
    for (size_t i = 0; i <= t->mask; i++)
        used += t->slots[i].key != 0;
    if (2 * (used + 1) > t->mask + 1) {
        struct table *bigger = table_new(2 * (t->mask + 1));
        for (size_t i = 0; i <= t->mask; i++) {
            uintptr_t k = t->slots[i].key;
            if (k != 0 && k != UINTPTR_MAX) {
                size_t j = hash_key(k) & bigger->mask;
                while (bigger->slots[j].key)
                    j = (j + 1) & bigger->mask;
                bigger->slots[j] = t->slots[i];
            }
        }
        atomic_store(&comm_table, bigger);
        t = bigger;
    }
    size_t i = hash_key(key) & t->mask;
    while (t->slots[i].key != 0 && t->slots[i].key != UINTPTR_MAX && t->slots[i].key != key)
        i = (i + 1) & t->mask;
    t->slots[i].rec = rec;
    __atomic_store_n(&t->slots[i].key, key, __ATOMIC_RELEASE);
}

static struct prof_comm *table_get(uintptr_t key)
{
    struct table *t = atomic_load_explicit(&comm_table, memory_order_acquire);
    if (!t)
        return NULL;
    for (size_t i = hash_key(key) & t->mask;; i = (i + 1) & t->mask) {
        uintptr_t k = __atomic_load_n(&t->slots[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return t->slots[i].rec;
        if (k == 0)
            return NULL;
    }
}

static uint64_t hash_members(const int *members, int n)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uint32_t)members[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* World ranks of comm's local group. */
static int *world_members(MPI_Comm comm, int *size)
{
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_size(group, size);
    int *local = malloc(*size * sizeof *local), *out = malloc(*size * sizeof *out);
    for (int i = 0; i < *size; i++)
        local[i] = i;
    PMPI_Group_translate_ranks(group, *size, local, world, out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    free(local);
    return out;
}

struct prof_comm *prof_register(MPI_Comm comm, char letter, const struct prof_comm *like)
{
    struct prof_comm *rec = calloc(1, sizeof *rec);
    rec->letter = letter;
    if (like) { /* a duplicate: same group as its parent, no query on the new handle */
        rec->size = like->size;
        rec->members = malloc(rec->size * sizeof *rec->members);
        memcpy(rec->members, like->members, rec->size * sizeof *rec->members);
    } else {
        rec->members = world_members(comm, &rec->size);
    }
    rec->root = rec->size > 0 ? rec->members[0] : -1;
    rec->members_hash = hash_members(rec->members, rec->size);
    pthread_mutex_lock(&registry_lock);
    rec->counter = creation_counter++;
    for (struct prof_comm *o = prof_all; o; o = o->next)
        rec->ordinal +=
            o->root == rec->root && o->members_hash == rec->members_hash && o->letter != 'M';
    rec->next = prof_all;
    prof_all = rec;
    if (!atomic_load(&comm_table))
        atomic_store(&comm_table, table_new(64));
    table_put(handle_key(comm), rec);
    pthread_mutex_unlock(&registry_lock);
    return rec;
}

void prof_handle_set(uintptr_t key, struct prof_comm *rec)
{
    pthread_mutex_lock(&registry_lock);
    if (!atomic_load(&comm_table))
        atomic_store(&comm_table, table_new(64));
    table_put(key, rec);
    pthread_mutex_unlock(&registry_lock);
}

struct prof_comm *prof_handle_get(uintptr_t key)
{
    return table_get(key);
}

void prof_forget(MPI_Comm comm)
{
    prof_handle_drop(handle_key(comm));
}

void prof_handle_drop(uintptr_t key)
{
    pthread_mutex_lock(&registry_lock);
    struct table *t = atomic_load(&comm_table);
    for (size_t i = hash_key(key) & t->mask; t && t->slots[i].key != 0; i = (i + 1) & t->mask) {
        if (t->slots[i].key == key) {
            __atomic_store_n(&t->slots[i].key, UINTPTR_MAX, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

struct prof_comm *prof_comm(MPI_Comm comm)
{
    struct prof_comm *rec = table_get(handle_key(comm));
    if (rec)
        return rec;
    if (comm == MPI_COMM_NULL)
        return prof_mixed();
    /* Created where we could not see it (spawn, connect/accept, before MPI_Init). */
    return prof_register(comm, comm == MPI_COMM_SELF ? 'f' : 'n', NULL);
}

struct prof_comm *prof_mixed(void)
{
    pthread_mutex_lock(&registry_lock);
    if (!mixed_record) {
        mixed_record = calloc(1, sizeof *mixed_record);
        mixed_record->letter = 'M';
        mixed_record->root = -1;
        mixed_record->next = prof_all;
        prof_all = mixed_record;
    }
    pthread_mutex_unlock(&registry_lock);
    return mixed_record;
}

/* Rank from the launcher's environment (errors before MPI_Init are said once, by rank 0). */
static int launcher_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    return r ? atoi(r) : 0;
}

void prof_setup(void)
{
    static int done;
    const char *env = getenv("MPILENS_BUCKETS");
    if (done++ || !env || !*env)
        return;
    int n = 0;
    char *copy = strdup(env), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && n < PROF_MAX_BUCKETS - 1;
         tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long long v = strtoll(tok, &end, 10);
        if (*end || v < 0 || (n > 0 && v <= prof_bounds[n - 1])) {
            if (launcher_rank() == 0)
                fprintf(stderr,
                        "mpilens: MPILENS_BUCKETS='%s': '%s' is not an increasing byte "
                        "count; write e.g. MPILENS_BUCKETS=128,1024,8192\n",
                        env, tok);
            exit(2);
        }
        prof_bounds[n++] = v;
    }
    free(copy);
    prof_nbuckets = n + 1;
}

static int bucket_of(uint64_t bytes)
{
    int b = 0;
    while (b < prof_nbuckets - 1 && (int64_t)bytes > prof_bounds[b])
        b++;
    return b;
}

static struct prof_cell *row_of(struct prof_comm *rec, int op)
{
    struct prof_cell *row = atomic_load_explicit(&rec->rows[op], memory_order_acquire);
    if (row)
        return row;
    struct prof_cell *fresh = calloc(prof_nbuckets, sizeof *fresh), *expected = NULL;
    if (atomic_compare_exchange_strong(&rec->rows[op], &expected, fresh))
        return fresh;
    free(fresh);
    return expected;
}

void prof_add(struct prof_comm *rec, int op, uint64_t bytes, int vw, uint64_t ns /* ticks */)
{
    struct prof_cell *cell = &row_of(rec, op)[vw ? 0 : bucket_of(bytes)];
    if (!prof_threaded) {
        cell->calls++;
        cell->time_ticks += ns;
        cell->volume += bytes;
        if (ns > cell->max_ticks)
            cell->max_ticks = ns;
        prof_mpi_ticks += ns;
        return;
    }
    __atomic_fetch_add(&cell->calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cell->time_ticks, ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cell->volume, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&prof_mpi_ticks, ns, __ATOMIC_RELAXED);
    uint64_t max = __atomic_load_n(&cell->max_ticks, __ATOMIC_RELAXED);
    while (ns > max && !__atomic_compare_exchange_n(&cell->max_ticks, &max, ns, 1, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED))
        ;
}

uint64_t prof_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t prof_received(const MPI_Status *status, int count, MPI_Datatype type)
{
    int got = MPI_UNDEFINED;
    if (status == MPI_STATUS_IGNORE || PMPI_Get_count(status, type, &got) != MPI_SUCCESS ||
        got == MPI_UNDEFINED)
        return prof_bytes(count, type);
    return prof_bytes(got, type);
}

uint64_t prof_sum_counts(const int counts[], MPI_Datatype type, int n)
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        total += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return total * prof_bytes(1, type);
}

uint64_t prof_sum_w(const int counts[], const MPI_Datatype types[], int n)
{
    uint64_t total = 0;
    for (int i = 0; counts && types && i < n; i++)
        total += prof_bytes(counts[i], types[i]);
    return total;
}

int prof_rank(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

int prof_size(MPI_Comm comm)
{
    int inter = 0, size = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &size);
    else
        PMPI_Comm_size(comm, &size);
    return size;
}

int prof_outdegree(MPI_Comm comm)
{
    int topo = MPI_UNDEFINED, n = 0, in = 0, weighted = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, prof_rank(comm), &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH)
        PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    return n;
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t start_ticks, start_ns;

void prof_clock_start(void)
{
#if defined(__x86_64__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    while (f && !prof_use_tsc && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0)
            prof_use_tsc = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
    if (f)
        fclose(f);
#endif
    start_ns = clock_ns();
    start_ticks = prof_now();
}

void prof_clock_stop(void)
{
    uint64_t ticks = prof_now() - start_ticks, ns = clock_ns() - start_ns;
    prof_seconds_per_tick = prof_use_tsc && ticks > 0 ? 1e-9 * (double)ns / (double)ticks : 1e-9;
}
