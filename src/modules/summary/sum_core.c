/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_core.c: the summary module's counters, their cold paths, the call-site sample, and
 * where this rank's host neighbours are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sum.h"
#include "sum_sites.h"
#include "tick_clock.h"

struct sum_cell sum_cells[SUM_OPS][SUM_CLASSES];
int sum_class_size[SUM_CLASSES];
MPI_Comm sum_fast_world = (MPI_Comm)0; /* a null pointer (Open MPI), an invalid handle (MPICH) */
unsigned sum_world_peers;
int sum_on, sum_threaded, sum_rank, sum_size;
int sum_node_lo;
unsigned sum_node_span;
uint64_t sum_bins[SUM_BINS];
uint64_t sum_messages[2], sum_bytes[2];
struct lens_type_slot sum_types[LENS_TYPE_SLOTS];
int sum_use_tsc;
double sum_seconds_per_tick = 1e-9;
uint64_t sum_next_sample = UINT64_MAX, sum_t0;
struct sum_key sum_keys[SUM_OPS];
double sum_init_wall, sum_final_wall;

static int *node_ranks; /* this host's world ranks, sorted (when not consecutive) */
static int node_count, host_first = 1;
static uint64_t start_ticks, start_ns;

double sum_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_fast(void)
{
    int fast = sum_on && !sum_threaded;
    sum_fast_world = fast ? MPI_COMM_WORLD : (MPI_Comm)0;
    sum_world_peers = fast ? (unsigned)sum_size : 0;
}

/* ---- communicator classes: a direct-mapped cache of handles ---- */
#define COMM_SLOTS 64
static struct {
    MPI_Comm comm;
    int cls;
} comm_cache[COMM_SLOTS];

static unsigned comm_slot(MPI_Comm comm)
{
    uintptr_t h = (uintptr_t)comm;
    return (unsigned)(((h >> 3) ^ (h >> 11)) % COMM_SLOTS);
}

static int class_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return SUM_WORLD;
    if (comm == MPI_COMM_NULL)
        return SUM_NO_COMM;
    unsigned s = comm_slot(comm);
    if (!sum_threaded && comm_cache[s].comm == comm)
        return comm_cache[s].cls;
    int size = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &size);
    else
        PMPI_Comm_size(comm, &size);
    int cls = SUM_OTHER;
    for (int c = SUM_SIZED; c < SUM_OTHER; c++) {
        int seen = __atomic_load_n(&sum_class_size[c], __ATOMIC_RELAXED);
        if (seen == size) {
            cls = c;
            break;
        }
        int free_slot = 0;
        if (seen == 0 && __atomic_compare_exchange_n(&sum_class_size[c], &free_slot, size, 0,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            cls = c;
            break;
        }
        if (seen == 0 && free_slot == size) { /* another thread claimed it for this size */
            cls = c;
            break;
        }
    }
    if (!sum_threaded) {
        comm_cache[s].comm = comm;
        comm_cache[s].cls = cls;
    }
    return cls;
}

struct sum_cell *sum_cell_of(int op, MPI_Comm comm)
{
    return &sum_cells[op][class_of(comm)];
}

void sum_forget_comm(MPI_Comm comm)
{
    unsigned s = comm_slot(comm);
    if (comm_cache[s].comm == comm)
        comm_cache[s].comm = MPI_COMM_NULL;
}

/* A key's pending messages into the sizes and bytes. */
static void flush_key(struct sum_key *k)
{
    uint64_t n = k->pending[0] + k->pending[1];
    if (n == 0)
        return;
    sum_bins[sum_bin_of(k->bytes)] += n;
    for (int local = 0; local < 2; local++) {
        sum_messages[local] += k->pending[local];
        sum_bytes[local] += k->pending[local] * k->bytes;
    }
    k->pending[0] = k->pending[1] = 0;
}

void sum_flush_keys(void)
{
    for (int op = 0; op < SUM_OPS; op++)
        flush_key(&sum_keys[op]);
}

void sum_forget_types(void)
{
    sum_flush_keys();
    memset(sum_types, 0, sizeof sum_types);
    for (int op = 0; op < SUM_OPS; op++)
        sum_keys[op].type = MPI_DATATYPE_NULL;
}

static void add(uint64_t *counter, uint64_t v)
{
    if (sum_threaded)
        __atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
    else
        *counter += v;
}

void sum_record_slow(int op, MPI_Comm comm, void *return_address, uint64_t t0, uint64_t t1)
{
    if (!sum_on)
        return;
    struct sum_cell *c = sum_cell_of(op, comm);
    add(&c->calls, 1);
    add(&c->ticks, t1 - t0);
    if (t1 >= __atomic_load_n(&sum_next_sample, __ATOMIC_RELAXED))
        sum_sample(op, return_address, t0, t1);
}

/* Whether world rank R shares this rank's host. */
static int on_this_host(int r)
{
    if (sum_node_span)
        return (unsigned)(r - sum_node_lo) < sum_node_span;
    int lo = 0, hi = node_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (node_ranks[mid] == r)
            return 1;
        if (node_ranks[mid] < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

/* DEST of COMM as a world rank, or -1 (MPI_PROC_NULL, an error). */
static int world_rank_of(MPI_Comm comm, int dest)
{
    if (dest < 0)
        return -1;
    if (comm == MPI_COMM_WORLD)
        return dest < sum_size ? dest : -1;
    MPI_Group group, world;
    int inter = 0, out = MPI_UNDEFINED;
    PMPI_Comm_test_inter(comm, &inter);
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) !=
        MPI_SUCCESS)
        return -1;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, 1, &dest, world, &out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return out == MPI_UNDEFINED ? -1 : out;
}

void sum_send_slow(int op, int64_t count, MPI_Datatype type, int dest, MPI_Comm comm)
{
    if (!sum_on || dest < 0)
        return;
    uint64_t bytes;
    if (sum_threaded || !lens_type_bytes_cached(sum_types, count, type, &bytes))
        bytes = lens_type_bytes_fill(sum_types, count, type, !sum_threaded);
    int peer = world_rank_of(comm, dest);
    if (peer < 0)
        return;
    int local = on_this_host(peer);
    if (!sum_threaded && comm == MPI_COMM_WORLD && type != MPI_DATATYPE_NULL) {
        /* the next send like this one takes the fast path */
        struct sum_key *k = &sum_keys[op];
        flush_key(k);
        *k = (struct sum_key){type, count, bytes, {0, 0}};
        k->pending[local] = 1;
        return;
    }
    add(&sum_bins[sum_bin_of(bytes)], 1);
    add(&sum_messages[local], 1);
    add(&sum_bytes[local], bytes);
}

/* ---- the call-site sample ---- */
#define FIRST_PERIOD 20000 /* ticks: ~5-20 us on a 1-4 GHz counter, 20 us in nanoseconds */
#define SAMPLES_BEFORE_DOUBLING 4096
static uint64_t period = FIRST_PERIOD, samples;

void sum_sample(int op, void *return_address, uint64_t t0, uint64_t t1)
{
    if (sum_threaded) { /* one thread samples at a time; the others' calls go unsampled */
        static int busy;
        if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
            return;
        uint64_t next = sum_next_sample;
        if (t1 >= next) {
            uint64_t first = next >= t0 ? next : next + (t0 - next + period - 1) / period * period;
            uint64_t n = first <= t1 ? (t1 - first) / period + 1 : 0;
            if (n)
                sum_sites_add(op, return_address, n * period);
            __atomic_store_n(&sum_next_sample, first + n * period, __ATOMIC_RELAXED);
        }
        __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
        return;
    }
    /* the sampling ticks in [t0, t1]: those before t0 fell outside MPI */
    uint64_t next = sum_next_sample;
    uint64_t first = next >= t0 ? next : next + (t0 - next + period - 1) / period * period;
    uint64_t n = first <= t1 ? (t1 - first) / period + 1 : 0;
    if (n) {
        sum_sites_add(op, return_address, n * period);
        samples += n;
    }
    sum_next_sample = first + n * period;
    if (samples >= SAMPLES_BEFORE_DOUBLING) {
        samples /= 2;
        period *= 2;
    }
}

int sum_sampled(int rc, int op, void *return_address, uint64_t t1)
{
    sum_sample(op, return_address, sum_t0, t1);
    return rc;
}

/* ---- life ---- */

/* This host's world ranks: consecutive ones as a range, else a sorted list. */
static void find_host_ranks(void)
{
    MPI_Comm host;
    MPI_Group host_group, world;
    node_count = 1; /* alone on the host until MPI says otherwise */
    sum_node_lo = sum_rank;
    sum_node_span = 1;
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) !=
        MPI_SUCCESS)
        return;
    PMPI_Comm_size(host, &node_count);
    PMPI_Comm_group(host, &host_group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int *mine = malloc(2 * (size_t)node_count * sizeof *mine);
    if (mine) {
        int *theirs = mine + node_count;
        for (int i = 0; i < node_count; i++)
            mine[i] = i;
        PMPI_Group_translate_ranks(host_group, node_count, mine, world, theirs);
        int lo = theirs[0], hi = theirs[0];
        for (int i = 0; i < node_count; i++) {
            lo = theirs[i] < lo ? theirs[i] : lo;
            hi = theirs[i] > hi ? theirs[i] : hi;
        }
        host_first = lo == sum_rank;
        if (hi - lo + 1 == node_count) {
            sum_node_lo = lo;
            sum_node_span = (unsigned)node_count;
            free(mine);
        } else {
            memmove(mine, theirs, (size_t)node_count * sizeof *mine);
            for (int i = 1; i < node_count; i++) /* insertion sort: a host's ranks are few */
                for (int j = i; j > 0 && mine[j - 1] > mine[j]; j--) {
                    int t = mine[j];
                    mine[j] = mine[j - 1];
                    mine[j - 1] = t;
                }
            node_ranks = mine;
        }
    }
    PMPI_Group_free(&host_group);
    PMPI_Group_free(&world);
    PMPI_Comm_free(&host);
}

int sum_host_size(void)
{
    return node_count;
}

int sum_host_first(void)
{
    return host_first;
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sum_start(int provided)
{
    sum_threaded = provided == MPI_THREAD_MULTIPLE;
    PMPI_Comm_rank(MPI_COMM_WORLD, &sum_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &sum_size);
    find_host_ranks();
    sum_use_tsc = lens_tsc_constant();
    start_ns = clock_ns();
    start_ticks = sum_now();
    const char *sites = getenv("MPILENS_SUMMARY_SITES"); /* off: no call-site sample */
    sum_next_sample = sites && strcmp(sites, "off") == 0 ? UINT64_MAX : start_ticks + period;
    sum_init_wall = sum_wall_now();
    sum_on = 1;
    set_fast();
}

void sum_stop(void)
{
    sum_flush_keys();
    sum_final_wall = sum_wall_now();
    sum_on = 0;
    set_fast();
    uint64_t ticks = sum_now() - start_ticks, ns = clock_ns() - start_ns;
    sum_seconds_per_tick = ticks > 0 ? 1e-9 * (double)ns / (double)ticks : 1e-9;
}
