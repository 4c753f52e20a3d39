/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_core.c: the monitor's counters, histograms, phases and files, and its control. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mon.h"
#include "mon_set.h"
#include "run_output.h"

int mon_on, mon_threaded, mon_nprocs, mon_rank;
unsigned mon_fast_peers;
MPI_Comm mon_fast_world = (MPI_Comm)0; /* a null pointer (Open MPI), an invalid handle (MPICH) */

void mon_set_on(int on)
{
    mon_on = on;
    int fast = on && !mon_threaded && mon_nprocs > 0;
    mon_fast_peers = fast ? (unsigned)mon_nprocs : 0;
    mon_fast_world = fast ? MPI_COMM_WORLD : (MPI_Comm)0;
}

uint64_t *mon_counts[MON_KINDS], *mon_sizes[MON_KINDS];
struct mon_peer *_Atomic *mon_peers;
struct lens_type_slot mon_type_cache[LENS_TYPE_SLOTS];
struct lens_type_slot mon_last_type;

static struct mon_file *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
struct mon_set mon_local; /* closed phases of this rank */

struct lens_comm *mon_world;
struct mon_comm_data *mon_world_data;
uint64_t mon_world_fast[2];

void mon_fold_world(void)
{
    if (!mon_world_data || mon_world_fast[0] == 0)
        return;
    uint64_t n = mon_world_fast[0], b = mon_world_fast[1];
    mon_world_fast[0] = mon_world_fast[1] = 0;
    mon_world_data->uniform[0] += n;
    mon_world_data->uniform[1] += b;
    mon_world_data->v[2 * MON_A2A] += n;
    mon_world_data->v[2 * MON_A2A + 1] += b * (uint64_t)(mon_nprocs - 1);
}

const struct mon_comm_data *mon_comm_view(const struct lens_comm *c, const struct mon_comm_data *d,
                                          struct mon_comm_data *out)
{
    if (c != mon_world || mon_world_fast[0] == 0)
        return d;
    if (d)
        *out = *d;
    else
        memset(out, 0, sizeof *out);
    out->uniform[0] += mon_world_fast[0];
    out->uniform[1] += mon_world_fast[1];
    out->v[2 * MON_A2A] += mon_world_fast[0];
    out->v[2 * MON_A2A + 1] += mon_world_fast[1] * (uint64_t)(mon_nprocs - 1);
    return out;
}

void mon_setup(void)
{
    PMPI_Comm_size(MPI_COMM_WORLD, &mon_nprocs);
    PMPI_Comm_rank(MPI_COMM_WORLD, &mon_rank);
    /* point-to-point traffic is in the peers' records (mon_peers); the kinds after it, one
     * block of arrays */
    _Static_assert(MON_P2P == 0, "the dense kinds follow MON_P2P");
    uint64_t *all = calloc((size_t)2 * (MON_KINDS - 1) * mon_nprocs, sizeof *all);
    for (int k = MON_P2P + 1; k < MON_KINDS; k++) {
        mon_counts[k] = all + (size_t)2 * (k - 1) * mon_nprocs;
        mon_sizes[k] = mon_counts[k] + mon_nprocs;
    }
    mon_peers = calloc(mon_nprocs, sizeof *mon_peers);
}

void mon_record(int kind, int peer, uint64_t size)
{
    if (peer < 0 || peer >= mon_nprocs)
        return;
    if (__builtin_expect(mon_capture != NULL, 0) && mon_captured(0, kind, peer, NULL, size))
        return;
    if (kind != MON_P2P) {
        mon_add(&mon_counts[kind][peer], 1);
        mon_add(&mon_sizes[kind][peer], size);
        return;
    }
    struct mon_peer *r = atomic_load_explicit(&mon_peers[peer], memory_order_acquire);
    if (!r) {
        struct mon_peer *fresh = calloc(1, sizeof *fresh), *expected = NULL;
        if (!fresh) { /* counted nowhere: said */
            static int said;
            if (!said++)
                lens_run_problem("monitor", "monitor: out of memory for a peer's message "
                                            "counters: messages to it are not counted (the "
                                            "matrix is incomplete)");
            return;
        }
        r = atomic_compare_exchange_strong(&mon_peers[peer], &expected, fresh) ? fresh : expected;
        if (r != fresh)
            free(fresh);
    }
    mon_add(&r->messages, 1);
    mon_add(&r->bytes, size);
    mon_add(&r->bins[mon_bin_of(size)], 1);
}

void mon_count_send_slow(MPI_Comm comm, int dest, int64_t count, MPI_Datatype type)
{
    if (!mon_counting())
        return;
    mon_record(MON_P2P, mon_world_rank(comm, dest), mon_bytes(count, type));
}

void mon_record_coll_kind(struct lens_comm *rec, int which, uint64_t size)
{
    if (__builtin_expect(mon_capture != NULL, 0) && mon_captured(1, which, 0, rec, size))
        return;
    struct mon_comm_data *d = lens_comm_payload(rec, sizeof *d);
    mon_add(&d->v[2 * which], 1);
    mon_add(&d->v[2 * which + 1], size);
}

void mon_record_coll_uniform(struct lens_comm *rec, uint64_t each)
{
    if (__builtin_expect(mon_capture != NULL, 0) && mon_captured(2, 0, 0, rec, each))
        return;
    struct mon_comm_data *d = lens_comm_payload(rec, sizeof *d);
    mon_add(&d->uniform[0], 1);
    mon_add(&d->uniform[1], each);
}

void mon_coll_values(const struct mon_comm_data *d, uint64_t v[8])
{
    memcpy(v, d->v, sizeof d->v);
    v[6] = d->uniform[0];
    v[7] = d->uniform[1];
}

/* Adds the uniform traffic of every communicator to C and B (per peer), as a reader of the
 * matrix sees it; the counters stay as they are. */
static void add_uniform(uint64_t *c, uint64_t *b)
{
    for (struct lens_comm *rec = lens_comm_all(); rec; rec = rec->next) {
        struct mon_comm_data *d = atomic_load(&rec->payload);
        uint64_t n = d ? __atomic_load_n(&d->uniform[0], __ATOMIC_RELAXED) : 0;
        uint64_t bytes = d ? __atomic_load_n(&d->uniform[1], __ATOMIC_RELAXED) : 0;
        for (int i = 0; n && rec->members && i < rec->size; i++) {
            int peer = rec->members[i];
            if (i == rec->rank || peer < 0 || peer >= mon_nprocs)
                continue;
            if (c)
                c[peer] += n;
            if (b)
                b[peer] += bytes;
        }
    }
}

void mon_coll_kinds(MPI_Comm comm, uint64_t v[6])
{
    mon_fold_world();
    struct mon_comm_data *d = lens_comm_payload(lens_comm(comm), sizeof *d);
    memcpy(v, d->v, sizeof d->v);
}

uint64_t mon_bytes_slow(int64_t count, MPI_Datatype type)
{
    return lens_type_bytes_fill(mon_type_cache, count, type, !mon_threaded);
}

void mon_forget_types(void)
{
    memset(mon_type_cache, 0, sizeof mon_type_cache);
    memset(&mon_last_type, 0, sizeof mon_last_type);
}

int mon_world_rank_of(const struct lens_comm *rec, MPI_Comm comm, int r)
{
    if (!rec->inter)
        return r < rec->size ? rec->members[r] : -1;
    return lens_comm_peer_world_rank(comm, r);
}

int mon_world_rank_slow(MPI_Comm comm, int r)
{
    return mon_world_rank_of(lens_comm(comm), comm, r);
}

static struct mon_file *file_of(uintptr_t key)
{
    for (struct mon_file *f = files; f; f = f->next)
        if (f->key == key)
            return f;
    return NULL;
}

const struct mon_file *mon_files_unlocked(void)
{
    return __atomic_load_n(&files, __ATOMIC_ACQUIRE);
}

void mon_file_opened(MPI_File fh, const char *name)
{
    struct mon_file *f = calloc(1, sizeof *f);
    f->key = lens_handle_key(&fh, sizeof fh);
    snprintf(f->name, sizeof f->name, "%s", name);
    pthread_mutex_lock(&files_lock);
    f->next = files;
    __atomic_store_n(&files, f, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&files_lock);
}

void mon_file_closed(MPI_File fh)
{
    pthread_mutex_lock(&files_lock);
    struct mon_file *f = file_of(lens_handle_key(&fh, sizeof fh));
    if (f)
        f->key = 0; /* keeps its counters for the database */
    pthread_mutex_unlock(&files_lock);
}

void mon_record_io(MPI_File fh, int write, uint64_t size)
{
    pthread_mutex_lock(&files_lock);
    struct mon_file *f = file_of(lens_handle_key(&fh, sizeof fh));
    if (f) {
        f->v[2 * write] += 1;
        f->v[2 * write + 1] += size;
    }
    pthread_mutex_unlock(&files_lock);
}

int mon_read(int kind, uint64_t *c, uint64_t *b, int n)
{
    if (kind < 0 || kind >= MON_KINDS || n < mon_nprocs)
        return -1;
    if (kind == MON_COLL)
        mon_fold_world();
    for (int p = 0; p < mon_nprocs; p++) {
        uint64_t count, bytes;
        mon_cell(kind, p, &count, &bytes);
        if (c)
            c[p] = count;
        if (b)
            b[p] = bytes;
    }
    if (kind == MON_COLL)
        add_uniform(c, b);
    return 0;
}

void mon_read_histogram(int peer, uint64_t *bins)
{
    struct mon_peer *r = peer >= 0 && peer < mon_nprocs ? atomic_load(&mon_peers[peer]) : NULL;
    for (int b = 0; b < MON_BINS; b++)
        bins[b] = r ? r->bins[b] : 0;
}

void mon_reset(void)
{
    for (int k = MON_P2P + 1; k < MON_KINDS; k++) {
        memset(mon_counts[k], 0, mon_nprocs * sizeof *mon_counts[k]);
        memset(mon_sizes[k], 0, mon_nprocs * sizeof *mon_sizes[k]);
    }
    for (int p = 0; p < mon_nprocs; p++) {
        struct mon_peer *r = atomic_load(&mon_peers[p]);
        if (r)
            memset(r, 0, sizeof *r);
    }
    mon_world_fast[0] = mon_world_fast[1] = 0;
    for (struct lens_comm *c = lens_comm_all(); c; c = c->next) {
        struct mon_comm_data *d = atomic_load(&c->payload);
        if (d)
            memset(d, 0, sizeof *d);
    }
    pthread_mutex_lock(&files_lock);
    for (struct mon_file *f = files; f; f = f->next)
        memset(f->v, 0, sizeof f->v);
    pthread_mutex_unlock(&files_lock);
}

int mon_flush(const char *name)
{
    int phase = mon_set_phase(&mon_local, name && *name ? name : "run");
    mon_fold_world();
    for (int k = 0; k < MON_KINDS; k++)
        for (int p = 0; p < mon_nprocs; p++) {
            uint64_t count, bytes;
            mon_cell(k, p, &count, &bytes);
            if (count)
                mon_set_add_row(&mon_local, &(struct mon_row){phase, k, mon_rank, p, count, bytes});
        }
    for (int p = 0; p < mon_nprocs; p++) {
        struct mon_peer *r = atomic_load(&mon_peers[p]);
        for (int b = 0; r && b < MON_BINS; b++)
            if (r->bins[b])
                mon_set_add_hist(&mon_local,
                                 &(struct mon_hist_row){phase, mon_rank, p, b, r->bins[b]});
    }
    for (struct lens_comm *c = lens_comm_all(); c; c = c->next) {
        struct mon_comm_data *d = atomic_load(&c->payload);
        if (!d || !(d->v[0] | d->v[2] | d->v[4] | d->uniform[0]))
            continue;
        int index = lens_comm_set_add_local(&mon_local.comms, c, mon_rank);
        if (index < 0) /* out of memory: said */
            continue;
        struct mon_coll_row row = {phase, index, mon_rank, {0}};
        mon_coll_values(d, row.v);
        mon_set_add_coll(&mon_local, &row);
    }
    pthread_mutex_lock(&files_lock);
    for (struct mon_file *f = files; f; f = f->next) {
        if (!(f->v[0] | f->v[2]))
            continue;
        struct mon_io_row row = {phase, mon_rank, "", {0}};
        snprintf(row.file, sizeof row.file, "%s", f->name);
        memcpy(row.v, f->v, sizeof row.v);
        mon_set_add_io(&mon_local, &row);
    }
    pthread_mutex_unlock(&files_lock);
    mon_reset();
    return 0;
}
