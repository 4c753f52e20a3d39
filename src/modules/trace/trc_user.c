/* trc_user.c: user regions (program phases) in the trace, through MPI_Pcontrol.
 *
 * MPI_Pcontrol(1) enters a user region, MPI_Pcontrol(0) leaves the innermost one; the name
 * of the region the next MPI_Pcontrol(1) enters is set with mpilens_trace_region(name)
 * (include/mpilens.h, the service "trace.api"); without a name the region is "phase".
 * Other levels pass through untouched. Regions are OTF2 regions of paradigm USER with local
 * ids R_REGIONS + i while the run goes; at MPI_Finalize rank 0 merges the names of all ranks
 * and each rank writes a region mapping table (MPI regions map to themselves).
 */
#include <mpilens.h>
#include <stdlib.h>
#include <string.h>

#include "trc.h"

#define MAX_DEPTH 64

static char **names; /* local user region i is names[i] */
static uint32_t nnames;
static char *next_name;
static uint32_t stack[MAX_DEPTH], depth;
static uint32_t *region_global; /* after trc_user_merge: local user region -> global id */
static char **global_names;     /* rank 0: global user region j is R_REGIONS + j */
static uint32_t nglobal;

static int name_region(const char *name)
{
    free(next_name);
    next_name = name ? strdup(name) : NULL;
    return 0;
}

static struct mpilens_trace_api api = {name_region};

void trc_user_publish(void)
{
    mpilens_publish("trace.api", &api, sizeof api);
}

static uint32_t local_region(const char *name)
{
    for (uint32_t i = 0; i < nnames; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    names = realloc(names, (nnames + 1) * sizeof *names);
    names[nnames] = strdup(name);
    return nnames++;
}

int MPI_Pcontrol(const int level, ...)
{
    if (trc_on && level == 1 && depth < MAX_DEPTH) {
        uint32_t r = local_region(next_name ? next_name : "phase");
        stack[depth++] = r;
        trc_enter((int)(R_REGIONS + r), trc_now());
    } else if (trc_on && level == 0 && depth > 0) {
        trc_leave((int)(R_REGIONS + stack[--depth]));
    }
    return PMPI_Pcontrol(level);
}

/* Leaves the regions still open (at MPI_Finalize, before the event files close). */
void trc_user_close(void)
{
    while (depth > 0)
        trc_leave((int)(R_REGIONS + stack[--depth]));
}

static uint32_t global_region(const char *name)
{
    for (uint32_t j = 0; j < nglobal; j++)
        if (strcmp(global_names[j], name) == 0)
            return j;
    global_names = realloc(global_names, (nglobal + 1) * sizeof *global_names);
    global_names[nglobal] = strdup(name);
    return nglobal++;
}

/* Rank 0: the global id of the next serialized region name at *CURSOR. */
static uint32_t next_global(const char **cursor)
{
    uint32_t id = R_REGIONS + global_region(*cursor);
    *cursor += strlen(*cursor) + 1;
    return id;
}

void trc_user_merge(MPI_Comm world)
{
    int len = 0;
    for (uint32_t i = 0; i < nnames; i++)
        len += (int)strlen(names[i]) + 1;
    char *mine = malloc(len + 1), *p = mine;
    for (uint32_t i = 0; i < nnames; i++)
        p = stpcpy(p, names[i]) + 1;
    region_global = malloc((nnames + 1) * sizeof *region_global);
    trc_merge_ids(world, mine, len, nnames, next_global, region_global);
    free(mine);
}

void trc_user_write_mappings(OTF2_DefWriter *dw)
{
    if (nnames == 0)
        return;
    /* MPI regions keep their ids; user region i becomes its global id */
    uint32_t *map = malloc((R_REGIONS + nnames) * sizeof *map);
    for (uint32_t i = 0; i < R_REGIONS; i++)
        map[i] = i;
    for (uint32_t i = 0; i < nnames; i++)
        map[R_REGIONS + i] = region_global[i];
    trc_write_id_map(dw, OTF2_MAPPING_REGION, map, R_REGIONS + nnames);
    free(map);
}

uint32_t trc_user_write_global(OTF2_GlobalDefWriter *g, uint32_t s)
{
    for (uint32_t j = 0; j < nglobal; j++) {
        OTF2_GlobalDefWriter_WriteString(g, s, global_names[j]);
        OTF2_GlobalDefWriter_WriteRegion(g, R_REGIONS + j, s, s, 0, OTF2_REGION_ROLE_CODE,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_PHASE, 0, 0, 0);
        s++;
    }
    return s;
}
