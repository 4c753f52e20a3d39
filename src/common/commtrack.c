/* SPDX-License-Identifier: BSD-3-Clause */
/* commtrack.c: the handle-to-record table and the registry of communicators, in constant
 * expected time however many communicators were created and freed before.
 *
 * Lookups (every MPI call of a module) read the table without a lock; registrations and
 * releases take a mutex and publish entries with release stores. A released handle leaves
 * a tombstone that a later insertion on its probe path reuses; when live entries and
 * tombstones fill half the table, it is rebuilt at four times the live count (tombstones
 * dropped), so each insertion costs O(1) amortized. The table it replaces is freed at once
 * unless other threads may be reading it (MPI_THREAD_MULTIPLE, or before MPI_Init): then it
 * is kept, never freed, on the new table's retired list. Creation ordinals (records with the same
 * root and members) are counted per key, not by a scan. A freed communicator that holds no module
 * data and no other handle (a window or file made on it) is unlinked and freed; one with data keeps
 * its record, so its data and name survive until MPI_Finalize.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "commtrack.h"
#include "run_output.h"

static struct lens_comm *all_records; /* doubly linked, newest first */

struct slot {
    uintptr_t key; /* 0: empty, UINTPTR_MAX: deleted */
    struct lens_comm *rec;
};
struct table {
    size_t mask, used, live; /* used: live entries and tombstones */
    struct table *retired;   /* older tables kept for concurrent readers */
    struct slot slots[];
};

static struct table *_Atomic comm_table;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int creation_counter;
static struct lens_comm *mixed_record;

static void release_if_unused(struct lens_comm *rec);

#define TOMBSTONE UINTPTR_MAX
#define TABLE_MIN 64

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
    if (t)
        t->mask = capacity - 1;
    return t;
}

/* 1 when a thread other than the caller may be inside table_get right now. */
static int readers_may_race(void)
{
    int initialized = 0, finalized = 0, level = MPI_THREAD_MULTIPLE;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (!initialized || finalized)
        return 1;
    PMPI_Query_thread(&level);
    return level == MPI_THREAD_MULTIPLE;
}

/* Caller holds registry_lock: T rebuilt without tombstones, at 4x its live entries. */
static struct table *table_rebuild(struct table *t)
{
    size_t capacity = TABLE_MIN;
    while (capacity < 4 * (t->live + 1))
        capacity *= 2;
    struct table *fresh = table_new(capacity);
    if (!fresh)
        return t; /* keep probing the old one */
    for (size_t i = 0; i <= t->mask; i++) {
        uintptr_t k = t->slots[i].key;
        if (k == 0 || k == TOMBSTONE)
            continue;
        size_t j = hash_key(k) & fresh->mask;
        while (fresh->slots[j].key)
            j = (j + 1) & fresh->mask;
        fresh->slots[j] = t->slots[i];
    }
    fresh->used = fresh->live = t->live;
    if (readers_may_race()) {
        fresh->retired = t;
    } else {
        fresh->retired = t->retired;
        free(t);
    }
    atomic_store_explicit(&comm_table, fresh, memory_order_release);
    return fresh;
}

struct lens_handle_hooks lens_handle_hooks_now;

void lens_handle_hooks_set(const struct lens_handle_hooks *hooks)
{
    lens_handle_hooks_now = *hooks;
}

/* Caller holds registry_lock. */
static void table_put(uintptr_t key, struct lens_comm *rec)
{
    if (lens_handle_hooks_now.handles_changed)
        lens_handle_hooks_now.handles_changed();
    struct table *t = atomic_load(&comm_table);
    if (!t) {
        t = table_new(TABLE_MIN);
        atomic_store_explicit(&comm_table, t, memory_order_release);
    }
    if (2 * (t->used + 1) > t->mask + 1)
        t = table_rebuild(t);
    size_t i = hash_key(key) & t->mask, reuse = SIZE_MAX;
    for (;; i = (i + 1) & t->mask) {
        uintptr_t k = t->slots[i].key;
        if (k == key) { /* the library reused a handle we still knew: replace */
            struct lens_comm *old = t->slots[i].rec;
            __atomic_store_n(&t->slots[i].rec, rec, __ATOMIC_RELEASE);
            rec->handles++;
            old->handles--;
            release_if_unused(old);
            return;
        }
        if (k == TOMBSTONE && reuse == SIZE_MAX)
            reuse = i;
        if (k == 0)
            break;
    }
    if (reuse != SIZE_MAX)
        i = reuse;
    else
        t->used++;
    t->live++;
    rec->handles++;
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
            return __atomic_load_n(&t->slots[i].rec, __ATOMIC_ACQUIRE);
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

/* ---- creation ordinals: records so far per (root, members), under registry_lock ---- */

struct ordinal_slot {
    uint64_t hash; /* members hash */
    int root, count, used;
};
static struct ordinal_slot *ordinals;
static size_t ordinal_mask, ordinal_used;

static size_t ordinal_index(struct ordinal_slot *table, size_t mask, int root, uint64_t hash)
{
    size_t i = hash_key(hash ^ (uint64_t)(uint32_t)root * 0x9e3779b97f4a7c15ULL) & mask;
    while (table[i].used && !(table[i].root == root && table[i].hash == hash))
        i = (i + 1) & mask;
    return i;
}

/* The number of earlier records with ROOT and HASH, counting this one from now on. */
static int ordinal_next(int root, uint64_t hash)
{
    if (2 * (ordinal_used + 1) > ordinal_mask + 1) {
        size_t capacity = ordinals ? 2 * (ordinal_mask + 1) : TABLE_MIN;
        struct ordinal_slot *bigger = calloc(capacity, sizeof *bigger);
        if (!bigger)
            return 0;
        for (size_t i = 0; ordinals && i <= ordinal_mask; i++)
            if (ordinals[i].used)
                bigger[ordinal_index(bigger, capacity - 1, ordinals[i].root, ordinals[i].hash)] =
                    ordinals[i];
        free(ordinals);
        ordinals = bigger;
        ordinal_mask = capacity - 1;
    }
    struct ordinal_slot *o = &ordinals[ordinal_index(ordinals, ordinal_mask, root, hash)];
    if (!o->used) {
        *o = (struct ordinal_slot){.hash = hash, .root = root, .used = 1};
        ordinal_used++;
    }
    return o->count++;
}

/* ---- records ---- */

static void link_record(struct lens_comm *rec)
{
    rec->next = all_records;
    rec->prev = NULL;
    if (all_records)
        all_records->prev = rec;
    __atomic_store_n(&all_records, rec, __ATOMIC_RELEASE);
}

/* Caller holds registry_lock: REC lost a handle; free it if nothing remains of it. */
static void release_if_unused(struct lens_comm *rec)
{
    if (rec->handles > 0 || atomic_load(&rec->payload) || rec->letter == 'W' || rec == mixed_record)
        return;
    if (rec->prev)
        rec->prev->next = rec->next;
    else
        all_records = rec->next;
    if (rec->next)
        rec->next->prev = rec->prev;
    free(rec->members);
    free(rec);
}

/* Says once that a communicator is kept without its members (out of memory). */
static void members_lost(void)
{
    static int said;
    if (!said++)
        lens_run_problem("mpilens", "mpilens: out of memory recording a communicator's members: "
                                    "it is kept as an empty group (the results are incomplete)");
}

/* World ranks of comm's local group; out of memory, NULL and a size of 0 (said). */
static int *world_members(MPI_Comm comm, int *size)
{
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_size(group, size);
    int *local = malloc((*size + 1) * sizeof *local), *out = malloc((*size + 1) * sizeof *out);
    if (local && out) {
        for (int i = 0; i < *size; i++)
            local[i] = i;
        PMPI_Group_translate_ranks(group, *size, local, world, out);
    } else {
        free(out);
        out = NULL;
        *size = 0;
        members_lost();
    }
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    free(local);
    return out;
}

struct lens_comm *lens_comm_register(MPI_Comm comm, char letter, const struct lens_comm *like)
{
    struct lens_comm *rec = calloc(1, sizeof *rec);
    if (!rec) { /* the handle stays unknown: its calls count for no communicator of theirs */
        members_lost();
        return lens_comm_mixed();
    }
    rec->letter = letter;
    if (like) { /* a duplicate: same group as its parent, no query on the new handle */
        rec->size = like->size;
        rec->members = malloc((rec->size + 1) * sizeof *rec->members);
        if (rec->members)
            memcpy(rec->members, like->members, rec->size * sizeof *rec->members);
        else {
            rec->size = 0;
            members_lost();
        }
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
    rec->ordinal = ordinal_next(rec->root, rec->members_hash);
    link_record(rec);
    table_put(handle_key(comm), rec);
    pthread_mutex_unlock(&registry_lock);
    return rec;
}

void lens_handle_set(uintptr_t key, struct lens_comm *rec)
{
    pthread_mutex_lock(&registry_lock);
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
    if (lens_handle_hooks_now.handles_changed)
        lens_handle_hooks_now.handles_changed();
    pthread_mutex_lock(&registry_lock);
    struct table *t = atomic_load(&comm_table);
    for (size_t i = t ? hash_key(key) & t->mask : 0; t && t->slots[i].key != 0;
         i = (i + 1) & t->mask) {
        if (t->slots[i].key == key) {
            struct lens_comm *rec = t->slots[i].rec;
            __atomic_store_n(&t->slots[i].key, TOMBSTONE, __ATOMIC_RELEASE);
            t->live--;
            rec->handles--;
            release_if_unused(rec);
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
        static struct lens_comm mixed_storage; /* static: no allocation to fail */
        mixed_record = &mixed_storage;
        mixed_record->letter = 'M';
        mixed_record->root = -1;
        link_record(mixed_record);
    }
    pthread_mutex_unlock(&registry_lock);
    return mixed_record;
}

struct lens_comm *lens_comm_all_unlocked(void)
{
    return __atomic_load_n(&all_records, __ATOMIC_ACQUIRE);
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
