/* commtrack.c: the handle-to-record table and the registry of communicators.
 *
 * Lookups (every MPI call of a module) read the table without a lock; registrations
 * (communicator creation, rare) take a mutex and publish entries with release stores. Old
 * tables are never freed when the table grows (a reader may still hold one). A freed
 * communicator leaves the table; its record stays in the list, so its data and name
 * survive until MPI_Finalize.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "commtrack.h"

static struct lens_comm *all_records;

struct slot {
    uintptr_t key; /* 0: empty, UINTPTR_MAX: deleted */
    struct lens_comm *rec;
};
struct table {
    size_t mask;
    struct slot slots[];
};

static struct table *_Atomic comm_table;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int creation_counter;
static struct lens_comm *mixed_record;

uintptr_t lens_handle_key(const void *handle, size_t size)
{
    uintptr_t key = 0;
    memcpy(&key, handle, size < sizeof key ? size : sizeof key);
    return key;
}

static uintptr_t handle_key(MPI_Comm comm)
{
    return lens_handle_key(&comm, sizeof comm);
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
static void table_put(uintptr_t key, struct lens_comm *rec)
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

static struct lens_comm *table_get(uintptr_t key)
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

struct lens_comm *lens_comm_register(MPI_Comm comm, char letter, const struct lens_comm *like)
{
    struct lens_comm *rec = calloc(1, sizeof *rec);
    rec->letter = letter;
    if (like) { /* a duplicate: same group as its parent, no query on the new handle */
        rec->size = like->size;
        rec->members = malloc(rec->size * sizeof *rec->members);
        memcpy(rec->members, like->members, rec->size * sizeof *rec->members);
    } else {
        rec->members = world_members(comm, &rec->size);
    }
    if (like)
        rec->inter = like->inter;
    else
        PMPI_Comm_test_inter(comm, &rec->inter);
    rec->peers = rec->size;
    if (like) {
        rec->rank = like->rank;
        rec->peers = like->peers;
    } else if (comm != MPI_COMM_NULL) {
        PMPI_Comm_rank(comm, &rec->rank);
        if (rec->inter)
            PMPI_Comm_remote_size(comm, &rec->peers);
    }
    rec->root = rec->size > 0 ? rec->members[0] : -1;
    rec->members_hash = hash_members(rec->members, rec->size);
    pthread_mutex_lock(&registry_lock);
    rec->counter = creation_counter++;
    for (struct lens_comm *o = all_records; o; o = o->next)
        rec->ordinal +=
            o->root == rec->root && o->members_hash == rec->members_hash && o->letter != 'M';
    rec->next = all_records;
    all_records = rec;
    if (!atomic_load(&comm_table))
        atomic_store(&comm_table, table_new(64));
    table_put(handle_key(comm), rec);
    pthread_mutex_unlock(&registry_lock);
    return rec;
}

void lens_handle_set(uintptr_t key, struct lens_comm *rec)
{
    pthread_mutex_lock(&registry_lock);
    if (!atomic_load(&comm_table))
        atomic_store(&comm_table, table_new(64));
    table_put(key, rec);
    pthread_mutex_unlock(&registry_lock);
}

struct lens_comm *lens_handle_get(uintptr_t key)
{
    return table_get(key);
}

void lens_comm_forget(MPI_Comm comm)
{
    lens_handle_drop(handle_key(comm));
}

void lens_handle_drop(uintptr_t key)
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

struct lens_comm *lens_comm(MPI_Comm comm)
{
    struct lens_comm *rec = table_get(handle_key(comm));
    if (rec)
        return rec;
    if (comm == MPI_COMM_NULL)
        return lens_comm_mixed();
    /* Created where we could not see it (spawn, connect/accept, before MPI_Init). */
    return lens_comm_register(comm, comm == MPI_COMM_SELF ? 'f' : 'n', NULL);
}

struct lens_comm *lens_comm_mixed(void)
{
    pthread_mutex_lock(&registry_lock);
    if (!mixed_record) {
        mixed_record = calloc(1, sizeof *mixed_record);
        mixed_record->letter = 'M';
        mixed_record->root = -1;
        mixed_record->next = all_records;
        all_records = mixed_record;
    }
    pthread_mutex_unlock(&registry_lock);
    return mixed_record;
}

struct lens_comm *lens_comm_all(void)
{
    pthread_mutex_lock(&registry_lock);
    struct lens_comm *head = all_records;
    pthread_mutex_unlock(&registry_lock);
    return head;
}

void *lens_comm_payload(struct lens_comm *rec, size_t size)
{
    void *p = atomic_load_explicit(&rec->payload, memory_order_acquire);
    if (p)
        return p;
    void *fresh = calloc(1, size), *expected = NULL;
    if (atomic_compare_exchange_strong(&rec->payload, &expected, fresh))
        return fresh;
    free(fresh);
    return expected;
}

int lens_comm_peer_world_rank(MPI_Comm comm, int rank)
{
    int inter = 0, out = MPI_UNDEFINED;
    MPI_Group group, world;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_group(comm, &group);
    else
        PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, 1, &rank, world, &out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return out;
}
