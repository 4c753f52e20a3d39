/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_core.c: size buckets, the per-call accounting and the size helpers of the profile
 * module. Communicator records come from commtrack.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"
#include "tick_clock.h"
#include "status_bytes.h"

int prof_on;
int prof_threaded;
int prof_nbuckets = 8;
int64_t prof_bounds[LENS_MAX_BUCKETS] = {128, 1024, 8192, 65536, 262144, 1048576, 33554432};
uint64_t prof_mpi_ticks;
int prof_use_tsc;
double prof_seconds_per_tick = 1e-9;

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
    char why[256];
    if (lens_buckets_parse(env, prof_bounds, &n, why, sizeof why) != 0) {
        if (launcher_rank() == 0)
            fprintf(stderr, "mpilens: MPILENS_BUCKETS='%s': %s\n", env, why);
        exit(2);
    }
    prof_nbuckets = n + 1;
}

static int bucket_of(uint64_t bytes)
{
    int b = 0;
    while (b < prof_nbuckets - 1 && (int64_t)bytes > prof_bounds[b])
        b++;
    return b;
}

static struct prof_cell *row_of(struct lens_comm *comm, int op)
{
    struct prof_rows *rec = lens_comm_payload(comm, sizeof *rec);
    struct prof_cell *row = atomic_load_explicit(&rec->rows[op], memory_order_acquire);
    if (row)
        return row;
    struct prof_cell *fresh = calloc(prof_nbuckets, sizeof *fresh), *expected = NULL;
    if (atomic_compare_exchange_strong(&rec->rows[op], &expected, fresh))
        return fresh;
    free(fresh);
    return expected;
}

void prof_add(struct lens_comm *rec, int op, uint64_t bytes, int vw, uint64_t ns /* ticks */)
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

struct lens_type_slot prof_type_cache[LENS_TYPE_SLOTS];
struct prof_last prof_last[PROF_MAX_OPS];
int prof_keys_on;
__attribute__((constructor)) static void prof_last_start(void)
{
    for (int op = 0; op < PROF_MAX_OPS; op++)
        prof_last[op].min_ticks = UINT64_MAX;
}
struct lens_comm *prof_world;

uint64_t prof_bytes_slow(int64_t count, MPI_Datatype type)
{
    return lens_type_bytes_fill(prof_type_cache, count, type, !prof_threaded);
}

void prof_last_forget(void)
{
    for (int op = 0; op < PROF_MAX_OPS; op++) {
        prof_last[op].ra = NULL;
        prof_last[op].keyed = 0;
    }
}

void prof_handle_hooks_install(void)
{
    /* a communicator, window or file handle changed meaning: the keyed calls forget */
    static const struct lens_handle_hooks hooks = {.handles_changed = prof_last_forget};
    lens_handle_hooks_set(&hooks);
}

/* A freed datatype's handle may be reused for another type: forget the cached sizes. */
int MPI_Type_free(MPI_Datatype *type)
{
    memset(prof_type_cache, 0, sizeof prof_type_cache);
    prof_last_forget();
    return MPILENS_DOWN(Type_free)(type);
}

static uint64_t max_of(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The shortest of a site cell's (0: none yet) and pending's (UINT64_MAX: none). */
static uint64_t min_of(uint64_t cell, uint64_t pending)
{
    return cell == 0 || pending < cell ? pending : cell;
}

/* L's pending calls added to a copy of (or to) its cells. */
static void add_pending(struct prof_cell *c, const struct prof_last *l)
{
    c->calls += l->calls;
    c->time_ticks += l->ticks;
    c->volume += prof_pending_volume(l);
    c->max_ticks = max_of(c->max_ticks, l->max_ticks);
}

static void add_pending_site(struct prof_site_cell *s, const struct prof_last *l)
{
    s->calls += l->calls;
    s->ticks += l->ticks;
    s->volume += prof_pending_volume(l);
    s->max_ticks = max_of(s->max_ticks, l->max_ticks);
    s->min_ticks = min_of(s->min_ticks, l->min_ticks);
}

void prof_fold(struct prof_last *l)
{
    if (!l->calls)
        return;
    add_pending(l->cell, l);
    add_pending_site(l->site_cell, l);
    prof_mpi_ticks += l->ticks;
    l->calls = l->ticks = l->volume_off = l->max_ticks = 0;
    l->min_ticks = UINT64_MAX;
}

void prof_fold_all(void)
{
    for (int op = 0; op < PROF_MAX_OPS; op++)
        prof_fold(&prof_last[op]);
}

struct prof_cell prof_cell_now(const struct prof_cell *c, int op)
{
    struct prof_cell now = *c;
    if (prof_last[op].cell == c && prof_last[op].calls)
        add_pending(&now, &prof_last[op]);
    return now;
}

struct prof_site_cell prof_site_now(const struct prof_site_cell *c, int op)
{
    struct prof_site_cell now = *c;
    if (prof_last[op].site_cell == c && prof_last[op].calls)
        add_pending_site(&now, &prof_last[op]);
    return now;
}

uint64_t prof_mpi_ticks_now(void)
{
    uint64_t ticks = prof_mpi_ticks;
    for (int op = 0; op < PROF_MAX_OPS; op++)
        ticks += prof_last[op].ticks;
    return ticks;
}

int prof_record_slow(int op, void *site, struct lens_comm *rec, uint64_t bytes, int vw,
                     uint64_t ticks)
{
    prof_add(rec, op, bytes, vw, ticks);
    prof_site_add(site, op, bytes, ticks);
    if (prof_threaded)
        return 0;
    struct prof_site_cell *s = prof_site_cell(site, op);
    if (!s)
        return 0; /* no site, or the table is full: the slow path counts the drop */
    int b = vw ? 0 : bucket_of(bytes);
    struct prof_last *l = &prof_last[op];
    prof_fold(l);
    l->ra = NULL;
    l->keyed = 0;
    l->rec = rec;
    l->site = site;
    l->lo = vw || b == 0 ? INT64_MIN : prof_bounds[b - 1];
    l->hi = vw || b == prof_nbuckets - 1 ? INT64_MAX : prof_bounds[b];
    l->cell = &row_of(rec, op)[b];
    l->site_cell = s;
    return prof_keys_on;
}

void prof_received_other(int op, struct prof_last *l, const MPI_Status *status, int64_t count,
                         MPI_Datatype type, uint64_t ticks)
{
    prof_record(op, l->site, l->rec, prof_received(status, count, type), 0, ticks);
}

/* As MPI_Get_count: whole elements of TYPE received, else (a partial element) the posted
 * count. The status's bytes are read without a library call (status_bytes.h). */
uint64_t prof_received_slow(const MPI_Status *status, int64_t count, MPI_Datatype type)
{
    uint64_t size = prof_bytes(1, type);
    if (status == MPI_STATUS_IGNORE)
        return (uint64_t)(count > 0 ? count : 0) * size;
    uint64_t got = lens_status_bytes(status);
    if (size && got % size != 0)
        return (uint64_t)(count > 0 ? count : 0) * size;
    return got;
}

uint64_t prof_sum_counts_of(struct lens_counts counts, MPI_Datatype type, int n)
{
    uint64_t total = 0;
    for (int i = 0; lens_has_counts(counts) && i < n; i++) {
        int64_t c = lens_count_at(counts, i);
        total += c > 0 ? (uint64_t)c : 0;
    }
    return total * prof_bytes(1, type);
}

uint64_t prof_sum_w_of(struct lens_counts counts, const MPI_Datatype types[], int n)
{
    uint64_t total = 0;
    for (int i = 0; lens_has_counts(counts) && types && i < n; i++)
        total += prof_bytes(lens_count_at(counts, i), types[i]);
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
    prof_use_tsc = lens_tsc_constant();
    start_ns = clock_ns();
    start_ticks = prof_now();
}

void prof_clock_stop(void)
{
    uint64_t ticks = prof_now() - start_ticks, ns = clock_ns() - start_ns;
    prof_seconds_per_tick = prof_use_tsc && ticks > 0 ? 1e-9 * (double)ns / (double)ticks : 1e-9;
}
