/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_defs.c: the ranks' local definitions (the blob trc_core.c writes) merged into global
 * ones, and written as OTF2 definitions (trc_defs.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpilens_snapshot.h"
#include "trace_defs.h"
#include "trc.h"
#include "trc_convert.h"
#include "trc_defs.h"

/* ---- the merge ---- */

/* *TABLE grown to hold N + 1 items of SIZE; 0, or -1 with M marked failed. */
static int grow(struct trc_merged *m, void *table, uint32_t n, size_t size)
{
    void **at = table;
    void *grown = realloc(*at, ((size_t)n + 1) * size);
    if (!grown) {
        m->failed = 1;
        return -1;
    }
    *at = grown;
    return 0;
}

static uint32_t window_id(struct trc_merged *m, uint64_t comm, uint64_t ordinal)
{
    for (uint32_t i = 0; i < m->nwindows; i++)
        if (m->windows[i][0] == comm && m->windows[i][1] == ordinal)
            return i;
    if (grow(m, &m->windows, m->nwindows, sizeof *m->windows) != 0)
        return 0;
    m->windows[m->nwindows][0] = comm;
    m->windows[m->nwindows][1] = ordinal;
    return m->nwindows++;
}

static uint32_t group_id(struct trc_merged *m, const uint64_t *g)
{
    for (uint32_t i = 0; i < m->ngroups; i++)
        if (m->groups[i][0] == g[0] && memcmp(m->groups[i], g, (g[0] + 1) * sizeof *g) == 0)
            return i;
    uint64_t *copy = malloc((g[0] + 1) * sizeof *g);
    if (!copy || grow(m, &m->groups, m->ngroups, sizeof *m->groups) != 0) {
        free(copy);
        m->failed = 1;
        return 0;
    }
    m->groups[m->ngroups] = copy;
    memcpy(copy, g, (g[0] + 1) * sizeof *g);
    return m->ngroups++;
}

/* The index of NAME in the string table *TABLE of *N entries, added when new. */
static uint32_t intern(struct trc_merged *m, char ***table, uint32_t *n, const char *name)
{
    for (uint32_t j = 0; j < *n; j++)
        if (strcmp((*table)[j], name) == 0)
            return j;
    char *copy = strdup(name);
    if (!copy || grow(m, table, *n, sizeof **table) != 0) {
        free(copy);
        m->failed = 1;
        return 0;
    }
    (*table)[*n] = copy;
    return (*n)++;
}

/* The merged id of user region NAME. */
static uint32_t name_id(struct trc_merged *m, const char *name)
{
    return intern(m, &m->names, &m->nnames, name);
}

/* The merged id of file NAME (one IoRegularFile per distinct name). */
static uint32_t file_id(struct trc_merged *m, const char *name)
{
    return intern(m, &m->files, &m->nfiles, name);
}

/* A new I/O handle (each open of each rank is one) on FILE and global communicator COMM. */
static uint32_t handle_id(struct trc_merged *m, uint32_t file, uint32_t comm)
{
    if (grow(m, &m->handles, m->nhandles, sizeof *m->handles) != 0)
        return 0;
    m->handles[m->nhandles][0] = file;
    m->handles[m->nhandles][1] = comm;
    return m->nhandles++;
}

/* A cursor over a blob that refuses to read past its end. */
struct cursor {
    const char *p, *end;
};

static const void *take(struct cursor *c, size_t n)
{
    if ((size_t)(c->end - c->p) < n)
        return NULL;
    const void *at = c->p;
    c->p += n;
    return at;
}

int trc_defs_merge(struct trc_merged *m, const char *blob, size_t len, struct trc_rank_map *map)
{
    struct cursor c = {blob, blob + len};
    const struct trc_defs_head *h = take(&c, sizeof *h);
    memset(map, 0, sizeof *map);
    if (!h || memcmp(h->magic, TRC_DEFS_MAGIC, sizeof h->magic) != 0 || h->world_size <= 0 ||
        h->rank < 0 || h->rank >= h->world_size)
        return -1;
    map->head = *h;
    const struct lens_wire_comm *comms = take(&c, (size_t)h->ncomms * sizeof *comms);
    const int32_t *members = take(&c, (size_t)(h->nmembers + (h->nmembers & 1)) * sizeof *members);
    const uint32_t *windows = take(&c, (size_t)h->nwindows * 2 * sizeof *windows);
    if (!comms || !members || !windows || !lens_comm_wire_ok(comms, h->ncomms, h->nmembers))
        return -1;
    size_t total = trc_defs_nids(h);
    uint32_t *ids = map->ids = malloc((total + 1) * sizeof *ids);
    if (!ids)
        return -1;
    for (uint32_t i = 0; i < h->ncomms; i++) {
        int id = lens_comm_set_add(&m->comms, &comms[i], members + comms[i].members_off);
        if (id < 0) /* out of memory: this rank's definitions are refused, as if damaged */
            return -1;
        *ids++ = (uint32_t)id;
    }
    for (uint32_t i = 0; i < h->nwindows; i++) {
        if (windows[2 * i] >= h->ncomms)
            return -1;
        *ids++ = window_id(m, map->ids[windows[2 * i]], windows[2 * i + 1]);
    }
    for (uint32_t i = 0; i < h->ngroups; i++) {
        const uint64_t *n = take(&c, sizeof *n);
        if (!n || *n > (uint64_t)h->world_size || !take(&c, *n * sizeof *n))
            return -1;
        *ids++ = group_id(m, n);
    }
    for (uint32_t i = 0; i < h->nnames; i++) {
        const char *name = c.p, *nul = memchr(c.p, '\0', (size_t)(c.end - c.p));
        if (!nul)
            return -1;
        c.p = nul + 1;
        *ids++ = R_REGIONS + name_id(m, name);
    }
    for (uint32_t i = 0; i < h->nfiles; i++) {
        uint32_t pair[2];
        const void *p = take(&c, sizeof pair);
        const char *name = c.p, *nul = p ? memchr(c.p, '\0', (size_t)(c.end - c.p)) : NULL;
        if (!nul)
            return -1;
        memcpy(pair, p, sizeof pair);
        c.p = nul + 1;
        if (pair[0] >= h->ncomms)
            return -1;
        *ids++ = handle_id(m, file_id(m, name), map->ids[pair[0]]);
    }
    if (m->failed)
        return -1; /* out of memory: this rank's definitions are refused, as if damaged */
    uint64_t start = trc_root_time(h, h->time_start), end = trc_root_time(h, h->time_end);
    if (h->time_start && (m->t_min == 0 || start < m->t_min))
        m->t_min = start;
    if (h->time_end && end > m->t_max)
        m->t_max = end;
    if (h->clock_residual_ns > m->clock_residual_ns)
        m->clock_residual_ns = h->clock_residual_ns;
    if (h->offset_error_ns > m->offset_error_ns)
        m->offset_error_ns = h->offset_error_ns;
    return 0;
}

/* A growing buffer for trc_merged_pack; FAILED once memory ran out. */
struct out {
    char *p;
    size_t len, cap;
    int failed;
};

static void put(struct out *o, const void *item, size_t n)
{
    if (o->failed)
        return;
    if (o->len + n > o->cap) {
        size_t cap = 2 * o->cap + n + 4096;
        char *grown = realloc(o->p, cap);
        if (!grown) {
            o->failed = 1;
            return;
        }
        o->p = grown;
        o->cap = cap;
    }
    memcpy(o->p + o->len, item, n);
    o->len += n;
}

char *trc_merged_pack(const struct trc_merged *m, int rank, int world, size_t *len)
{
    struct trc_defs_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, TRC_DEFS_MAGIC, sizeof h.magic);
    h.world_size = world;
    h.rank = rank;
    h.time_start = m->t_min;
    h.time_end = m->t_max;
    h.clock_residual_ns = m->clock_residual_ns;
    h.offset_error_ns = m->offset_error_ns;
    h.ncomms = (uint32_t)m->comms.ncomms;
    h.nmembers = (uint32_t)m->comms.nmembers;
    h.nwindows = m->nwindows;
    h.ngroups = m->ngroups;
    h.nnames = m->nnames;
    h.nfiles = m->nhandles;
    struct out o = {0};
    put(&o, &h, sizeof h);
    put(&o, m->comms.comms, m->comms.ncomms * sizeof *m->comms.comms);
    put(&o, m->comms.members, m->comms.nmembers * sizeof *m->comms.members);
    int32_t pad = 0;
    if (m->comms.nmembers & 1)
        put(&o, &pad, sizeof pad);
    for (uint32_t i = 0; i < m->nwindows; i++) {
        uint32_t pair[2] = {(uint32_t)m->windows[i][0], (uint32_t)m->windows[i][1]};
        put(&o, pair, sizeof pair);
    }
    for (uint32_t i = 0; i < m->ngroups; i++)
        put(&o, m->groups[i], (m->groups[i][0] + 1) * sizeof *m->groups[i]);
    for (uint32_t j = 0; j < m->nnames; j++)
        put(&o, m->names[j], strlen(m->names[j]) + 1);
    for (uint32_t i = 0; i < m->nhandles; i++) {
        uint32_t pair[2] = {(uint32_t)m->handles[i][1], 0}; /* communicator, access mode */
        const char *name = m->files[m->handles[i][0]];
        put(&o, pair, sizeof pair);
        put(&o, name, strlen(name) + 1);
    }
    if (o.failed) {
        free(o.p);
        return NULL;
    }
    *len = o.len;
    return o.p;
}

void trc_merged_free(struct trc_merged *m)
{
    lens_comm_set_free(&m->comms);
    free(m->windows);
    for (uint32_t i = 0; i < m->ngroups; i++)
        free(m->groups[i]);
    free(m->groups);
    for (uint32_t j = 0; j < m->nnames; j++)
        free(m->names[j]);
    free(m->names);
    for (uint32_t j = 0; j < m->nfiles; j++)
        free(m->files[j]);
    free(m->files);
    free(m->handles);
    memset(m, 0, sizeof *m);
}

uint32_t trc_defs_first_group(const struct trc_merged *m)
{
    return (uint32_t)m->comms.ncomms + 1; /* group 0: all locations; c + 1: communicator c */
}

/* ---- OTF2 definitions ---- */

/* The mapping table local id i -> MAP[i] (i < N) of TYPE, plus ADD (nothing if N is 0). */
static void write_id_map(OTF2_DefWriter *dw, OTF2_MappingType type, const uint32_t *map, uint32_t n,
                         uint32_t add)
{
    if (n == 0)
        return;
    OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, n);
    for (uint32_t i = 0; i < n; i++)
        OTF2_IdMap_AddIdPair(m, i, map[i] + add);
    OTF2_DefWriter_WriteMappingTable(dw, type, m);
    OTF2_IdMap_Free(m);
}

void trc_defs_write_local(OTF2_Archive *archive, const struct trc_rank_map *map, uint32_t thread,
                          uint32_t first_group)
{
    const struct trc_defs_head *h = &map->head;
    OTF2_DefWriter *dw =
        OTF2_Archive_GetDefWriter(archive, trc_location(h->rank, thread, map->first_extra));
    const uint32_t *ids = map->ids;
    write_id_map(dw, OTF2_MAPPING_COMM, ids, h->ncomms, 0);
    ids += h->ncomms;
    write_id_map(dw, OTF2_MAPPING_RMA_WIN, ids, h->nwindows, 0);
    ids += h->nwindows;
    write_id_map(dw, OTF2_MAPPING_GROUP, ids, h->ngroups, first_group);
    ids += h->ngroups;
    if (h->nnames) { /* MPI regions keep their ids; user region i gets its global id */
        uint32_t *regions = malloc((R_REGIONS + h->nnames) * sizeof *regions);
        if (!regions) /* the archive is then failed: the logs stay for mpilens recover */
            trc_otf2_note(OTF2_ERROR_MEM_ALLOC_FAILED);
        for (uint32_t i = 0; regions && i < R_REGIONS; i++)
            regions[i] = i;
        if (regions) {
            memcpy(regions + R_REGIONS, ids, h->nnames * sizeof *ids);
            write_id_map(dw, OTF2_MAPPING_REGION, regions, R_REGIONS + h->nnames, 0);
        }
        free(regions);
    }
    write_id_map(dw, OTF2_MAPPING_IO_HANDLE, ids + h->nnames, h->nfiles, 0);
    /* OTF2's offset is the other way round: global time = local time + offset */
    OTF2_DefWriter_WriteClockOffset(dw, h->time_start, -h->offset_start, h->offset_error_ns);
    if (h->time_end)
        OTF2_DefWriter_WriteClockOffset(dw, h->time_end, -h->offset_end, h->offset_error_ns);
    OTF2_Archive_CloseDefWriter(archive, dw);
}

void trc_defs_write_global(OTF2_Archive *archive, const struct trc_merged *m, int nranks,
                           const uint32_t *nthreads, const uint64_t *events)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
    uint64_t t_max = m->t_max > m->t_min ? m->t_max : m->t_min;
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, m->t_min, t_max - m->t_min,
                                              OTF2_UNDEFINED_TIMESTAMP);
    char residual[16]; /* how far the ranks' counters strayed from their linear map, ns */
    snprintf(residual, sizeof residual, "%u", m->clock_residual_ns);
    OTF2_Archive_SetProperty(archive, MPILENS_TRACE_CLOCK_RESIDUAL_PROPERTY, residual, true);
    snprintf(residual, sizeof residual, "%u", m->offset_error_ns);
    OTF2_Archive_SetProperty(archive, MPILENS_TRACE_OFFSET_ERROR_PROPERTY, residual, true);
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(g, s++, "");
    OTF2_GlobalDefWriter_WriteString(g, s++, "machine");
    OTF2_GlobalDefWriter_WriteString(g, s++, "MPI");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < nranks; r++) {
        char name[48];
        snprintf(name, sizeof name, "MPI rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s++, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        uint64_t first_extra = trc_first_extra(r, nthreads, nranks);
        for (uint32_t t = 0; t < (nthreads[r] ? nthreads[r] : 1); t++) {
            uint64_t l = trc_location(r, t, first_extra);
            if (t == 0) /* thread 0 keeps the rank's own name, as before threads were traced */
                snprintf(name, sizeof name, "MPI rank %d", r);
            else
                snprintf(name, sizeof name, "MPI rank %d thread %u", r, t);
            OTF2_GlobalDefWriter_WriteString(g, s, name);
            OTF2_GlobalDefWriter_WriteLocation(g, l, s++, OTF2_LOCATION_TYPE_CPU_THREAD, events[l],
                                               r);
        }
    }
    for (int i = 0; i < R_REGIONS; i++) {
        int flush = i == R_FLUSH; /* the trace's own work, not the application's */
        OTF2_GlobalDefWriter_WriteString(g, s, trc_region_names[i]);
        OTF2_GlobalDefWriter_WriteRegion(g, i, s, s, 0, trc_region_roles[i],
                                         flush ? OTF2_PARADIGM_MEASUREMENT_SYSTEM
                                               : OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
        s++;
    }
    uint64_t *members = malloc((nranks + 1) * sizeof *members);
    if (!members) /* the archive is then failed: the logs stay for mpilens recover */
        trc_otf2_note(OTF2_ERROR_MEM_ALLOC_FAILED);
    for (int r = 0; members && r < nranks; r++)
        members[r] = r;
    if (members)
        OTF2_GlobalDefWriter_WriteGroup(g, 0, 2, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, nranks, members);
    free(members);
    for (size_t c = 0; c < m->comms.ncomms; c++) {
        const struct lens_wire_comm *w = &m->comms.comms[c];
        char name[64];
        lens_comm_name(w, name, sizeof name);
        uint64_t *mm = malloc((w->size + 1) * sizeof *mm);
        if (!mm) {
            trc_otf2_note(OTF2_ERROR_MEM_ALLOC_FAILED);
            continue;
        }
        for (int i = 0; i < w->size; i++)
            mm[i] = (uint64_t)m->comms.members[w->members_off + i];
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteGroup(g, c + 1, s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, w->size, mm);
        OTF2_GlobalDefWriter_WriteComm(g, c, s++, c + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        free(mm);
    }
    uint32_t first_group = trc_defs_first_group(m);
    for (uint32_t i = 0; i < m->ngroups; i++) {
        char name[48];
        snprintf(name, sizeof name, "RMA group %u", i);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteGroup(g, first_group + i, s++, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)m->groups[i][0], m->groups[i] + 1);
    }
    for (uint32_t i = 0; i < m->nwindows; i++) {
        char name[48];
        snprintf(name, sizeof name, "window %llu", (unsigned long long)m->windows[i][1]);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteRmaWin(g, i, s++, (OTF2_CommRef)m->windows[i][0],
                                         OTF2_RMA_WIN_FLAG_NONE);
    }
    for (uint32_t j = 0; j < m->nnames; j++) {
        OTF2_GlobalDefWriter_WriteString(g, s, m->names[j]);
        OTF2_GlobalDefWriter_WriteRegion(g, R_REGIONS + j, s, s, 0, OTF2_REGION_ROLE_CODE,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_PHASE, 0, 0, 0);
        s++;
    }
    if (m->nhandles) { /* MPI-IO: one paradigm, a file per name, a handle per rank's open */
        OTF2_GlobalDefWriter_WriteString(g, s, "MPI-IO");
        OTF2_GlobalDefWriter_WriteIoParadigm(g, 0, s, s, OTF2_IO_PARADIGM_CLASS_PARALLEL,
                                             OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL, NULL);
        s++;
        uint32_t first_file = s;
        for (uint32_t j = 0; j < m->nfiles; j++) {
            OTF2_GlobalDefWriter_WriteString(g, s++, m->files[j]);
            OTF2_GlobalDefWriter_WriteIoRegularFile(g, j, first_file + j, 0);
        }
        for (uint32_t i = 0; i < m->nhandles; i++)
            OTF2_GlobalDefWriter_WriteIoHandle(
                g, i, first_file + (uint32_t)m->handles[i][0], (OTF2_IoFileRef)m->handles[i][0], 0,
                OTF2_IO_HANDLE_FLAG_NONE, (OTF2_CommRef)m->handles[i][1], OTF2_UNDEFINED_IO_HANDLE);
    }
    static const struct {
        const char *name, *description;
        OTF2_Type type;
    } attrs[TRACE_ATTRS] = {
        {"MPILENS::NBC_COMM", "the communicator of a nonblocking collective", OTF2_TYPE_COMM},
        {"MPILENS::NBC_OP", "the OTF2_CollectiveOp of a nonblocking collective", OTF2_TYPE_UINT32},
        {"MPILENS::NBC_ROOT", "the root of a nonblocking collective", OTF2_TYPE_UINT32}};
    for (int i = 0; i < TRACE_ATTRS; i++) {
        OTF2_GlobalDefWriter_WriteString(g, s, attrs[i].name);
        OTF2_GlobalDefWriter_WriteString(g, s + 1, attrs[i].description);
        OTF2_GlobalDefWriter_WriteAttribute(g, i, s, s + 1, attrs[i].type);
        s += 2;
    }
    OTF2_Archive_CloseGlobalDefWriter(archive, g);
}
