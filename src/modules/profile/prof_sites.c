/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_sites.c: the profile by call site (mpiP's view): which line of the application
 * spends the MPI time.
 *
 * The core stores the application's return address when a call enters the stack
 * (mpilens_caller()); each profiled call adds to the (call site, operation) cell of a
 * fixed open-addressing table (4096 cells, no allocation, no lock: a cell is claimed with
 * one compare-and-swap of its key under MPI_THREAD_MULTIPLE). At MPI_Finalize every rank
 * turns its addresses into (object file, offset in it) with dladdr, so that address-space
 * randomization does not matter, and sends its cells to rank 0, which names each site
 * (function, file, line) from the object's debug information with libdw (elfutils) and
 * writes the tables callsites and callsite_profile into mpilens.db (docs/database.md).
 * Calls made when the table is full are counted in the metadata (`Call sites dropped`).
 * A call from Python (mpi4py) has a Python line for its site, not an address: the core's
 * label (mpilens_site_label, "python:FILE:FUNCTION:LINE") travels in place of the object's
 * path, with offset 0, and names itself at rank 0.
 * A run that ends without MPI_Finalize keeps its sites too: the profile's snapshot carries
 * the cells in the same form (objects resolved from a table of the loaded objects made at
 * MPI_Init, as dladdr may not run in a signal handler), and the recovery writes them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"
#include "rundb_write.h"
#include "mpilens_snapshot.h"
#include "run_output.h"
#include "site_names.h"
#include "tree_merge.h"

#define SITES 4096 /* a power of two */
#define PROBES 32

static struct prof_site_cell cells[SITES];
static uint64_t dropped;

static void update_min(uint64_t *min, uint64_t v)
{
    uint64_t cur = __atomic_load_n(min, __ATOMIC_RELAXED);
    while ((cur == 0 || v < cur) &&
           !__atomic_compare_exchange_n(min, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void update_max(uint64_t *max, uint64_t v)
{
    uint64_t cur = __atomic_load_n(max, __ATOMIC_RELAXED);
    while (v > cur &&
           !__atomic_compare_exchange_n(max, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

struct prof_site_cell *prof_site_cell(void *site, int op)
{
    uint64_t key = ((uint64_t)(uintptr_t)site & 0x00ffffffffffffffull) | ((uint64_t)op << 56);
    if (!site)
        return NULL;
    uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> 52;
    for (int probe = 0; probe < PROBES; probe++) {
        struct prof_site_cell *c = &cells[(h + (uint64_t)probe) & (SITES - 1)];
        uint64_t cur = __atomic_load_n(&c->key, __ATOMIC_ACQUIRE), expected = 0;
        if (cur == 0 && __atomic_compare_exchange_n(&c->key, &expected, key, 0, __ATOMIC_ACQ_REL,
                                                    __ATOMIC_ACQUIRE))
            cur = key;
        else if (cur == 0)
            cur = expected; /* another thread claimed it first */
        if (cur == key)
            return c;
    }
    return NULL;
}

void prof_site_add(void *site, int op, uint64_t bytes, uint64_t ticks)
{
    if (!site)
        return;
    struct prof_site_cell *c = prof_site_cell(site, op);
    if (!c) {
        __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    if (!prof_threaded) {
        c->calls++;
        c->ticks += ticks;
        c->volume += bytes;
        c->max_ticks = ticks > c->max_ticks ? ticks : c->max_ticks;
        c->min_ticks = c->min_ticks == 0 || ticks < c->min_ticks ? ticks : c->min_ticks;
        return;
    }
    __atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->ticks, ticks, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->volume, bytes, __ATOMIC_RELAXED);
    update_max(&c->max_ticks, ticks);
    update_min(&c->min_ticks, ticks ? ticks : 1);
}

void prof_sites_reset(void)
{
    for (int i = 0; i < SITES; i++)
        if (cells[i].key) /* the cell stays claimed for its site */
            cells[i].calls = cells[i].ticks = cells[i].max_ticks = cells[i].min_ticks =
                cells[i].volume = 0;
}

/* ---- at MPI_Finalize ---- */

/* One cell as it travels to rank 0, followed by its object's path (path_len bytes). */
struct wire_site {
    uint64_t offset;
    int32_t rank, op, path_len, spare;
    uint64_t calls;
    double seconds, max_s, min_s;
    uint64_t volume;
};

/* This rank's cells, serialized (*LEN bytes). */
static char *pack(int rank, int *len)
{
    size_t cap = 4096, used = 0;
    char *out = malloc(cap);
    for (int i = 0; out && i < SITES; i++) {
        const struct prof_site_cell *c = &cells[i];
        if (!c->key || !c->calls)
            continue;
        void *site = (void *)(uintptr_t)(c->key & 0x00ffffffffffffffull);
        Dl_info info = {0};
        const char *label = mpilens_site_label ? mpilens_site_label(site) : NULL;
        const char *path = label                                   ? label
                           : dladdr(site, &info) && info.dli_fname ? info.dli_fname
                                                                   : "?";
        uintptr_t base = label ? (uintptr_t)site : info.dli_fbase ? (uintptr_t)info.dli_fbase : 0;
        struct wire_site w = {(uint64_t)((uintptr_t)site - base),
                              rank,
                              (int32_t)(c->key >> 56),
                              (int32_t)strlen(path),
                              0,
                              c->calls,
                              c->ticks * prof_seconds_per_tick,
                              c->max_ticks * prof_seconds_per_tick,
                              c->min_ticks * prof_seconds_per_tick,
                              c->volume};
        if (used + sizeof w + strlen(path) > cap &&
            lens_grow("profile", &out, cap = 2 * cap + sizeof w + strlen(path), 1) != 0)
            break; /* said once: the sites so far are sent, the rest dropped */
        memcpy(out + used, &w, sizeof w);
        memcpy(out + used + sizeof w, path, strlen(path));
        used += sizeof w + strlen(path);
    }
    *len = (int)used;
    return out;
}

/* ---- in a snapshot (maybe in a signal handler: no dladdr, no allocation) ---- */

struct site_object {
    uintptr_t lo, hi, base; /* executable segment; base as dladdr's dli_fbase */
    char path[1024];
};
static struct site_object site_objects[256];
static int nsite_objects;

static int collect_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t first = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_vaddr < first)
            first = info->dlpi_phdr[i].p_vaddr;
    for (int i = 0; i < info->dlpi_phnum && nsite_objects < 256; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        struct site_object *o = &site_objects[nsite_objects++];
        o->lo = info->dlpi_addr + ph->p_vaddr;
        o->hi = o->lo + ph->p_memsz;
        o->base = info->dlpi_addr + (first & ~(uintptr_t)4095);
        if (info->dlpi_name && info->dlpi_name[0]) {
            snprintf(o->path, sizeof o->path, "%s", info->dlpi_name);
        } else { /* the executable */
            ssize_t n = readlink("/proc/self/exe", o->path, sizeof o->path - 1);
            o->path[n > 0 ? n : 0] = '\0';
        }
    }
    return 0;
}

void prof_sites_prepare(void)
{
    nsite_objects = 0;
    dl_iterate_phdr(collect_object, NULL);
}

uint64_t prof_sites_emit(struct mpilens_emitter *e, int rank)
{
    uint64_t n = 0;
    for (int i = 0; i < SITES; i++) {
        if (!cells[i].key)
            continue;
        const struct prof_site_cell now = prof_site_now(&cells[i], (int)(cells[i].key >> 56)),
                                    *c = &now;
        if (!c->calls)
            continue;
        uintptr_t a = (uintptr_t)(c->key & 0x00ffffffffffffffull);
        const struct site_object *o = NULL;
        for (int k = 0; k < nsite_objects && !o; k++)
            if (a >= site_objects[k].lo && a < site_objects[k].hi)
                o = &site_objects[k];
        /* a Python line's label is static text in the core: safe here */
        const char *label = !o && mpilens_site_label ? mpilens_site_label((void *)a) : NULL;
        const char *path = o ? o->path : label ? label : "?";
        uintptr_t base = o ? o->base : label ? a : 0; /* a label's offset is 0 */
        size_t len = strlen(path);
        struct wire_site w = {(uint64_t)(a - base),
                              rank,
                              (int32_t)(c->key >> 56),
                              (int32_t)len,
                              0,
                              c->calls,
                              c->ticks * prof_seconds_per_tick,
                              c->max_ticks * prof_seconds_per_tick,
                              c->min_ticks * prof_seconds_per_tick,
                              c->volume};
        mpilens_emit(e, &w, sizeof w);
        mpilens_emit(e, path, len);
        n++;
    }
    return n;
}

int prof_sites_check(const char *data, size_t len, uint64_t count)
{
    size_t at = 0;
    for (uint64_t i = 0; i < count; i++) {
        struct wire_site w;
        if (at + sizeof w > len)
            return -1;
        memcpy(&w, data + at, sizeof w);
        if (w.path_len < 0 || w.path_len > 1024 || at + sizeof w + (size_t)w.path_len > len ||
            w.op < 0 || w.op >= prof_op_count)
            return -1;
        at += sizeof w + (size_t)w.path_len;
    }
    return at == len ? 0 : -1;
}

/* Rank 0 (or the CLI's recovery): the ranks' cells of BLOB named and written into RUN, in
 * the caller's transaction. */
int prof_sites_write(struct rundb *run, const struct prof_sites_blob *blob, int summary)
{
    if (rundb_callsites_create(run) != 0)
        return -1;
    const char *all = blob->all ? blob->all : "";
    size_t len = blob->len;
    int rc = 0;
    struct lens_site_namer *namer = lens_site_namer_new();
    for (size_t at = 0; rc == 0 && at + sizeof(struct wire_site) <= len;) {
        struct wire_site w;
        memcpy(&w, all + at, sizeof w);
        at += sizeof w;
        if (w.path_len < 0 || at + (size_t)w.path_len > len)
            break;
        char object[4096];
        snprintf(object, sizeof object, "%.*s", w.path_len, all + at);
        at += (size_t)w.path_len;
        int64_t id = rundb_callsite_id(run, object, w.offset);
        if (id < 0) {
            struct lens_site_name n;
            lens_site_name(namer, object, w.offset, &n);
            id = rundb_put_callsite(run, object, w.offset, n.function, n.file, n.line);
            rc |= id < 0;
        }
        if (summary)
            rc |= rundb_put_callsite_summary(run, w.spare > 0 ? w.spare : 1, id, w.op, w.calls,
                                             w.seconds, w.max_s, w.min_s, w.volume);
        else
            rc |= rundb_put_callsite_profile(run, w.rank, id, w.op, w.calls, w.seconds, w.max_s,
                                             w.min_s, w.volume);
    }
    lens_site_namer_free(namer);
    char lost[32];
    snprintf(lost, sizeof lost, "%llu", (unsigned long long)blob->lost);
    if (rc == 0 && !summary)
        rc = rundb_put_metadata(run, "Call sites dropped", lost);
    return rc ? -1 : 0;
}

/* The call sites travel along the profile's binomial tree (tree_merge.h), so rank 0 talks
 * to log2(P) ranks, not to every one (a flat Gatherv connected it to all: about 40 KB of
 * rank 0's memory a rank with Open MPI's shared-memory transport). A state is the count of
 * sites dropped, then the records of prof_sites.c's form, in rank order; reduced (REDUCE),
 * the records of one (object, offset, operation) are combined after each receive, their
 * `spare` field counting the ranks. */
struct sites_state {
    char *records;
    size_t len;
    uint64_t lost;
    int reduce;
};

/* One record of a state: where it starts, its header, its object's path. */
struct site_ref {
    const char *at;
    struct wire_site w;
};

static int by_site(const void *a, const void *b)
{
    const struct site_ref *x = a, *y = b;
    int32_t n = x->w.path_len < y->w.path_len ? x->w.path_len : y->w.path_len;
    int c = memcmp(x->at + sizeof x->w, y->at + sizeof y->w, (size_t)n);
    if (c || x->w.path_len != y->w.path_len)
        return c ? c : (x->w.path_len < y->w.path_len ? -1 : 1);
    if (x->w.offset != y->w.offset)
        return x->w.offset < y->w.offset ? -1 : 1;
    return x->w.op < y->w.op ? -1 : x->w.op > y->w.op;
}

/* RECORDS (*LEN bytes) with the records of one site and operation combined: sums, the
 * longest and shortest call, the count of ranks in `spare` (a rank's own record: 1). */
static void reduce_records(char *records, size_t *len)
{
    size_t n = 0, cap = 64;
    struct site_ref *refs = malloc(cap * sizeof *refs);
    for (size_t at = 0; refs && at + sizeof(struct wire_site) <= *len;) {
        if (n == cap && lens_grow("profile", &refs, cap *= 2, sizeof *refs) != 0) {
            free(refs); /* said; the records stay as they are (correct, only longer) */
            return;
        }
        refs[n].at = records + at;
        memcpy(&refs[n].w, records + at, sizeof refs[n].w);
        if (refs[n].w.spare <= 0)
            refs[n].w.spare = 1;
        at += sizeof refs[n].w + (size_t)refs[n].w.path_len;
        n++;
    }
    if (!refs)
        return;
    qsort(refs, n, sizeof *refs, by_site);
    char *out = malloc(*len + 1);
    size_t used = 0;
    for (size_t i = 0; out && i < n;) {
        struct wire_site w = refs[i].w;
        size_t j = i + 1;
        for (; j < n && by_site(&refs[i], &refs[j]) == 0; j++) {
            w.calls += refs[j].w.calls;
            w.seconds += refs[j].w.seconds;
            w.max_s = refs[j].w.max_s > w.max_s ? refs[j].w.max_s : w.max_s;
            w.min_s = refs[j].w.min_s < w.min_s ? refs[j].w.min_s : w.min_s;
            w.volume += refs[j].w.volume;
            w.spare += refs[j].w.spare;
            w.rank = refs[j].w.rank < w.rank ? refs[j].w.rank : w.rank;
        }
        memcpy(out + used, &w, sizeof w);
        memcpy(out + used + sizeof w, refs[i].at + sizeof w, (size_t)w.path_len);
        used += sizeof w + (size_t)w.path_len;
        i = j;
    }
    if (out) {
        memcpy(records, out, used);
        *len = used;
    }
    free(out);
    free(refs);
}

void prof_sites_subset(const struct prof_sites_blob *in, int first, int last,
                       struct prof_sites_blob *out)
{
    memset(out, 0, sizeof *out);
    if (!in->len || lens_grow("profile", &out->all, in->len + 1, 1) != 0)
        return;
    for (size_t at = 0; at + sizeof(struct wire_site) <= in->len;) {
        struct wire_site w;
        memcpy(&w, in->all + at, sizeof w);
        size_t bytes = sizeof w + (size_t)(w.path_len > 0 ? w.path_len : 0);
        if (at + bytes > in->len)
            break;
        if (w.rank >= first && w.rank <= last) {
            memcpy(out->all + out->len, in->all + at, bytes);
            out->len += bytes;
        }
        at += bytes;
    }
}

void prof_sites_summarize(const struct prof_sites_blob *in, struct prof_sites_blob *out)
{
    memset(out, 0, sizeof *out);
    out->lost = in->lost;
    if (!in->len || lens_grow("profile", &out->all, in->len + 1, 1) != 0)
        return;
    memcpy(out->all, in->all, in->len);
    out->len = in->len;
    reduce_records(out->all, &out->len);
}

static void *pack_sites(void *ctx, size_t *len)
{
    struct sites_state *s = ctx;
    char *out = malloc(sizeof s->lost + s->len);
    if (!out) { /* an empty message: the subtree's sites are dropped, said */
        lens_run_problem("profile",
                         "profile: out of memory sending %zu bytes of call sites to "
                         "the merge: they are not written (the profile itself is)",
                         s->len);
        *len = 0;
        return NULL;
    }
    memcpy(out, &s->lost, sizeof s->lost);
    if (s->len)
        memcpy(out + sizeof s->lost, s->records, s->len);
    *len = sizeof s->lost + s->len;
    return out;
}

static void absorb_sites(void *ctx, const void *data, size_t len)
{
    struct sites_state *s = ctx;
    uint64_t lost;
    if (!data || len < sizeof lost) /* a sender ran out of memory: said there */
        return;
    memcpy(&lost, data, sizeof lost);
    s->lost += lost;
    size_t more = len - sizeof lost;
    if (more && lens_grow("profile", &s->records, s->len + more + 1, 1) == 0) {
        memcpy(s->records + s->len, (const char *)data + sizeof lost, more);
        s->len += more;
        if (s->reduce)
            reduce_records(s->records, &s->len);
    }
}

void prof_sites_gather(MPI_Comm comm, int reduce, struct prof_sites_blob *blob)
{
    int rank = 0, len = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank); /* records carry world ranks, whatever COMM */
    memset(blob, 0, sizeof *blob);
    struct sites_state state = {pack(rank, &len), 0, dropped, reduce};
    state.len = state.records ? (size_t)len : 0;
    if (reduce)
        reduce_records(state.records, &state.len);
    static const struct lens_merge_ops ops = {pack_sites, absorb_sites};
    if (lens_tree_merge(comm, &state, &ops)) {
        blob->all = state.records;
        blob->len = state.len;
        blob->lost = state.lost;
        state.records = NULL;
    }
    free(state.records);
}
