/* SPDX-License-Identifier: BSD-3-Clause */
/* commtrack_wire.c: communicators across ranks: a wire form that merges (deduplicated by
 * root, members and creation order, all known locally), the names resolved from the root's
 * creation counter, and the rows of the run database's communicators table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commtrack.h"
#include "run_output.h"
#include "rundb_write.h"

static uint64_t identity_hash(int32_t root, uint64_t hash, int32_t ordinal)
{
    uint64_t h = hash ^ ((uint64_t)(uint32_t)root << 32 | (uint32_t)ordinal);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* The slot of (root, hash, ordinal) in S's index: the one holding it, or the empty one
 * where it goes. */
static size_t slot_of(const struct lens_comm_set *s, int32_t root, uint64_t hash, int32_t ordinal)
{
    size_t mask = s->index_slots - 1, i = identity_hash(root, hash, ordinal) & mask;
    for (; s->index[i]; i = (i + 1) & mask) {
        const struct lens_wire_comm *c = &s->comms[s->index[i] - 1];
        if (c->root == root && c->hash == hash && c->ordinal == ordinal)
            break;
    }
    return i;
}

/* Room in S's index for one more communicator; 0, or -1 out of memory (said). */
static int index_room(struct lens_comm_set *s)
{
    if (s->index && 2 * (s->ncomms + 1) <= s->index_slots)
        return 0;
    size_t slots = 64;
    while (slots < 4 * (s->ncomms + 1))
        slots *= 2;
    uint32_t *index = NULL; /* a new table: lens_grow says it once when memory runs out */
    if (lens_grow("merge", &index, slots, sizeof *index) != 0)
        return -1;
    memset(index, 0, slots * sizeof *index);
    free(s->index);
    s->index = index;
    s->index_slots = slots;
    for (size_t k = 0; k < s->ncomms; k++)
        s->index[slot_of(s, s->comms[k].root, s->comms[k].hash, s->comms[k].ordinal)] =
            (uint32_t)(k + 1);
    return 0;
}

int lens_comm_set_add(struct lens_comm_set *s, const struct lens_wire_comm *c,
                      const int32_t *members)
{
    if (index_room(s) != 0)
        return -1;
    size_t slot = slot_of(s, c->root, c->hash, c->ordinal);
    if (s->index[slot]) {
        int i = (int)s->index[slot] - 1;
        if (s->comms[i].root_counter < 0)
            s->comms[i].root_counter = c->root_counter;
        return i;
    }
    if (lens_grow("merge", &s->comms, s->ncomms + 2, sizeof *s->comms) != 0 ||
        lens_grow("merge", &s->members, s->nmembers + (size_t)c->size + 1, sizeof *s->members) != 0)
        return -1;
    s->comms[s->ncomms] = *c;
    s->comms[s->ncomms].members_off = (int32_t)s->nmembers;
    memcpy(s->members + s->nmembers, members, c->size * sizeof *members);
    s->nmembers += c->size;
    s->index[slot] = (uint32_t)(s->ncomms + 1);
    return (int)s->ncomms++;
}

struct lens_wire_comm lens_comm_wire_of(const struct lens_comm *rec, int my_world_rank,
                                        int32_t members_off)
{
    return (struct lens_wire_comm){rec->root,
                                   rec->ordinal,
                                   rec->members_hash,
                                   rec->letter,
                                   rec->root == my_world_rank ? rec->counter : -1,
                                   rec->size,
                                   members_off};
}

int lens_comm_wire_ok(const struct lens_wire_comm *comms, uint64_t n, uint64_t nmembers)
{
    for (uint64_t i = 0; i < n; i++)
        if (comms[i].size < 0 || comms[i].members_off < 0 ||
            (uint64_t)comms[i].members_off + (uint64_t)comms[i].size > nmembers)
            return 0;
    return 1;
}

int lens_comm_set_add_local(struct lens_comm_set *set, const struct lens_comm *rec,
                            int my_world_rank)
{
    struct lens_wire_comm w = lens_comm_wire_of(rec, my_world_rank, 0);
    return lens_comm_set_add(set, &w, rec->members);
}

void lens_comm_set_free(struct lens_comm_set *set)
{
    free(set->comms);
    free(set->members);
    free(set->index);
    memset(set, 0, sizeof *set);
}

static const char *creator_of(int letter)
{
    switch (letter) {
    case 'W':
        return "MPI_COMM_WORLD";
    case 'f':
        return "MPI_COMM_SELF";
    case 's':
        return "MPI_Comm_split";
    case 't':
        return "MPI_Comm_split_type";
    case 'd':
        return "MPI_Comm_dup";
    case 'e':
        return "MPI_Comm_dup_with_info";
    case 'i':
        return "MPI_Comm_idup";
    case 'o':
        return "MPI_Comm_idup_with_info";
    case 'c':
        return "MPI_Comm_create";
    case 'u':
        return "MPI_Comm_create_group";
    case 'p':
        return "MPI_Comm_create_from_group";
    case 'q':
        return "MPI_Intercomm_create_from_groups";
    case 'a':
        return "MPI_Cart_create";
    case 'b':
        return "MPI_Cart_sub";
    case 'r':
        return "MPI_Graph_create";
    case 'g':
        return "MPI_Dist_graph_create";
    case 'j':
        return "MPI_Dist_graph_create_adjacent";
    case 'x':
        return "MPI_Intercomm_create";
    case 'm':
        return "MPI_Intercomm_merge";
    case 'M':
        return "(requests of several communicators)";
    default:
        return "(created out of sight: spawn, connect, accept)";
    }
}

void lens_comm_name(const struct lens_wire_comm *c, char *out, size_t len)
{
    if (c->letter == 'M')
        snprintf(out, len, "mixed");
    else if (c->letter == 'W') /* whoever's record it is */
        snprintf(out, len, "W0.0");
    else if (c->root_counter >= 0)
        snprintf(out, len, "%c%d.%d", c->letter, c->root, c->root_counter);
    else /* the root's record is not in this set (a shard): named by identity, unique */
        snprintf(out, len, "%c%d.?%d.%016llx", c->letter, c->root, c->ordinal,
                 (unsigned long long)c->hash);
}

int lens_comm_set_write(struct rundb *run, const struct lens_comm_set *set, int *ids)
{
    int rc = 0;
    for (size_t i = 0; i < set->ncomms; i++) {
        const struct lens_wire_comm *c = &set->comms[i];
        char name[64];
        lens_comm_name(c, name, sizeof name);
        struct rundb_comm_identity identity = {c->root, c->ordinal, c->hash};
        rc |= rundb_put_communicator(run, name, c->size, creator_of(c->letter),
                                     set->members + c->members_off, &identity, &ids[i]);
    }
    return rc ? -1 : 0;
}
