/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_defs_tree.c: the ranks' definitions merged along a binomial tree at MPI_Finalize
 * (trc_defs_tree.h), so that rank 0 receives log2(P) messages holding what the subtrees
 * share once (communicators, windows, groups and region names deduplicated on the way),
 * not every rank's definitions.
 *
 * Up (tree_merge.c): a rank merges its own blob, then each child's subtree packed in the
 * same form (trc_merged_pack), keeping for each child the map from the child's merged ids
 * to its own. Down: rank 0's merged ids are the global ones; each rank receives from its
 * parent the map from its merged ids to the global ones, composes its own map and each
 * child's with it, and sends each child its part. No rank holds another rank's map.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trc.h"
#include "trc_defs.h"
#include "trc_defs_tree.h"
#include "tree_merge.h"

#define TAG_MAP 7301 /* on the trace's own communicator */

/* The sizes of one merged set's sections, in the order of a map's ids. */
struct sections {
    uint32_t comms, windows, groups, names, files;
};

static struct sections sections_of(const struct trc_defs_head *h)
{
    return (struct sections){h->ncomms, h->nwindows, h->ngroups, h->nnames, h->nfiles};
}

struct child {
    int rank;
    struct sections sections; /* of the child's merged set */
    uint32_t *ids;            /* its merged ids -> ours (as trc_defs_merge maps a blob) */
};

struct node {
    int rank, world;
    struct trc_merged *m;
    struct child children[32];
    int nchildren, failed;
};

/* The packed subtree: its sender's rank, then its merged set in blob form. */
static void *pack_node(void *ctx, size_t *len)
{
    struct node *n = ctx;
    size_t blob_len = 0;
    char *blob = n->failed ? NULL : trc_merged_pack(n->m, n->rank, n->world, &blob_len);
    char *out = blob ? malloc(sizeof(int32_t) + blob_len) : NULL;
    if (!out) { /* an empty message: the parent fails the merge, said once on rank 0 */
        free(blob);
        *len = 0;
        return NULL;
    }
    int32_t me = n->rank;
    memcpy(out, &me, sizeof me);
    memcpy(out + sizeof me, blob, blob_len);
    free(blob);
    *len = sizeof me + blob_len;
    return out;
}

static void absorb_node(void *ctx, const void *data, size_t len)
{
    struct node *n = ctx;
    int32_t from;
    struct trc_rank_map map;
    if (!data || len < sizeof from || n->nchildren == 32) {
        n->failed = 1;
        return;
    }
    memcpy(&from, data, sizeof from);
    if (trc_defs_merge(n->m, (const char *)data + sizeof from, len - sizeof from, &map) != 0) {
        free(map.ids);
        n->failed = 1;
        return;
    }
    n->children[n->nchildren++] =
        (struct child){.rank = from, .sections = sections_of(&map.head), .ids = map.ids};
}

/* OUTER (this set's ids -> global; NULL: they are global) applied to each of IDS (ids of
 * a set of SECTIONS into this set, as trc_defs_merge gives them) into OUT. A region name's
 * id carries R_REGIONS. */
static void compose(const uint32_t *ids, struct sections s, const uint32_t *outer,
                    struct sections mine, uint32_t *out)
{
    uint32_t total = s.comms + s.windows + s.groups + s.names + s.files;
    uint32_t base_windows = mine.comms, base_groups = base_windows + mine.windows,
             base_names = base_groups + mine.groups, base_files = base_names + mine.names;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t v = ids[i];
        if (!outer) {
            out[i] = v;
            continue;
        }
        uint32_t at = i < s.comms                                    ? v
                      : i < s.comms + s.windows                      ? base_windows + v
                      : i < s.comms + s.windows + s.groups           ? base_groups + v
                      : i < s.comms + s.windows + s.groups + s.names ? base_names + v - R_REGIONS
                                                                     : base_files + v;
        out[i] = outer[at];
    }
}

/* Receives this rank's map (merged ids -> global) from PARENT: malloc'ed, or NULL when the
 * parent failed (or the map does not fit). */
static uint32_t *receive_map(MPI_Comm comm, int parent, uint32_t expected)
{
    MPI_Status status;
    int count = 0;
    PMPI_Probe(parent, TAG_MAP, comm, &status);
    PMPI_Get_count(&status, MPI_UINT32_T, &count);
    uint32_t *map = malloc(((size_t)(count > 0 ? count : 0) + 1) * sizeof *map);
    uint32_t byte;
    PMPI_Recv(map ? map : &byte, map ? count : 0, MPI_UINT32_T, parent, TAG_MAP, comm,
              MPI_STATUS_IGNORE);
    if (map && (uint32_t)count != expected + 1) { /* a failed parent sends one word */
        free(map);
        return NULL;
    }
    return map;
}

int trc_defs_tree_merge(MPI_Comm comm, const char *blob, size_t len, struct trc_merged *merged,
                        struct trc_rank_map *mine)
{
    int rank = 0, world = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &world);
    struct node n = {.rank = rank, .world = world, .m = merged};
    memset(mine, 0, sizeof *mine);
    struct trc_rank_map own = {0};
    if (!blob || trc_defs_merge(merged, blob, len, &own) != 0)
        n.failed = 1;
    if (blob && len >= sizeof mine->head) /* this rank's own counts, whatever happens */
        memcpy(&mine->head, blob, sizeof mine->head);
    static const struct lens_merge_ops ops = {pack_node, absorb_node};
    lens_tree_merge(comm, &n, &ops);

    /* down: this rank's map to the global ids, then each child's */
    struct trc_defs_head mh;
    memset(&mh, 0, sizeof mh);
    mh.ncomms = (uint32_t)merged->comms.ncomms;
    mh.nwindows = merged->nwindows;
    mh.ngroups = merged->ngroups;
    mh.nnames = merged->nnames;
    mh.nfiles = merged->nhandles;
    struct sections ms = sections_of(&mh);
    uint32_t nmerged = trc_defs_nids(&mh);
    uint32_t *outer = NULL; /* rank 0: the merged ids are the global ones */
    if (rank != 0) {
        int parent = rank - (rank & -rank);
        outer = receive_map(comm, parent, nmerged);
        if (!outer)
            n.failed = 1;
        else if (outer[nmerged] != 1) /* the last word: 1 when the parent's map is good */
            n.failed = 1;
    }
    for (int c = 0; c < n.nchildren; c++) {
        struct child *ch = &n.children[c];
        uint32_t total = ch->sections.comms + ch->sections.windows + ch->sections.groups +
                         ch->sections.names + ch->sections.files;
        uint32_t *part = total < INT_MAX ? malloc(((size_t)total + 1) * sizeof *part) : NULL;
        if (part && !n.failed)
            compose(ch->ids, ch->sections, outer, ms, part);
        uint32_t fail = 0;
        if (part)
            part[total] = !n.failed;
        PMPI_Send(part ? part : &fail, part ? (int)total + 1 : 1, MPI_UINT32_T, ch->rank, TAG_MAP,
                  comm);
        free(part);
        free(ch->ids);
    }
    /* a child whose message never arrived (out of memory) still waits for its map */
    for (int step = 1; step < world && !(rank & step); step <<= 1) {
        int child = rank + step, seen = 0;
        for (int c = 0; c < n.nchildren; c++)
            seen |= n.children[c].rank == child;
        uint32_t fail = 0;
        if (child < world && !seen)
            PMPI_Send(&fail, 1, MPI_UINT32_T, child, TAG_MAP, comm);
    }
    uint32_t nown = trc_defs_nids(&own.head);
    mine->ids = !n.failed ? malloc(((size_t)nown + 1) * sizeof *mine->ids) : NULL;
    if (mine->ids)
        compose(own.ids, sections_of(&own.head), outer, ms, mine->ids);
    free(own.ids);
    free(outer);
    int ok = mine->ids != NULL, all = ok;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(mine->ids);
        mine->ids = NULL;
    }
    return all;
}
