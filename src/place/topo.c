/* SPDX-License-Identifier: BSD-3-Clause */
/* topo.c: the machine as a balanced tree, from hwloc: this machine, an hwloc XML export,
 * or a synthetic description. Levels with one child per object (caches over one core...)
 * do not change any distance and are dropped; the tree ends at cores.
 */
#define _GNU_SOURCE
#include <hwloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "place.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int place_topo_load(struct place_topo *t, const char *spec, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->host_level = t->package_level = -1;
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    int synthetic = 0;
    if (spec && strcmp(spec, "this") != 0) {
        if (ends_with(spec, ".xml")) {
            if (access(spec, R_OK) != 0 || hwloc_topology_set_xml(topo, spec) != 0) {
                snprintf(err, errlen,
                         "%s: cannot read this hwloc XML topology; export one with "
                         "`lstopo FILE.xml` on the target machine",
                         spec);
                hwloc_topology_destroy(topo);
                return -1;
            }
        } else {
            char desc[1024];
            snprintf(desc, sizeof desc, "%s%s", spec, strcasestr(spec, "pu:") ? "" : " pu:1");
            if (hwloc_topology_set_synthetic(topo, desc) != 0) {
                snprintf(err, errlen,
                         "--topology '%s': not an hwloc synthetic description; "
                         "write e.g. \"node:4 package:2 core:4\"",
                         spec);
                hwloc_topology_destroy(topo);
                return -1;
            }
            synthetic = 1;
        }
    }
    if (hwloc_topology_load(topo) != 0) {
        snprintf(err, errlen, "%s: hwloc could not load the topology", spec ? spec : "this");
        hwloc_topology_destroy(topo);
        return -1;
    }
    int bottom = hwloc_get_type_depth(topo, HWLOC_OBJ_CORE);
    if (bottom < 0)
        bottom = hwloc_get_type_depth(topo, HWLOC_OBJ_PU);
    t->leaves = 1;
    for (int d = 1; d <= bottom; d++) {
        unsigned above = hwloc_get_nbobjs_by_depth(topo, d - 1),
                 here = hwloc_get_nbobjs_by_depth(topo, d);
        if (above == 0 || here % above != 0) {
            snprintf(err, errlen,
                     "%s: the topology is not balanced (%u objects under %u at depth "
                     "%d); TreeMatch needs a balanced tree",
                     spec ? spec : "this", here, above, d);
            hwloc_topology_destroy(topo);
            return -1;
        }
        if (here / above == 1 || t->nlevels == PLACE_MAX_LEVELS)
            continue;
        hwloc_obj_type_t type = hwloc_get_depth_type(topo, d);
        t->arity[t->nlevels] = (int)(here / above);
        snprintf(t->name[t->nlevels], sizeof t->name[0], "%s", hwloc_obj_type_string(type));
        if (type == HWLOC_OBJ_PACKAGE && t->package_level < 0)
            t->package_level = t->nlevels;
        if ((type == HWLOC_OBJ_GROUP || type == HWLOC_OBJ_MACHINE) && synthetic &&
            t->host_level < 0 && t->nlevels == 0)
            t->host_level = t->nlevels;
        t->leaves *= t->arity[t->nlevels];
        t->nlevels++;
    }
    if (t->nlevels == 0) { /* a single core */
        t->arity[0] = 1;
        snprintf(t->name[0], sizeof t->name[0], "Core");
        t->nlevels = 1;
    }
    if (t->host_level >= 0) {
        t->nhosts = t->arity[t->host_level] < 64 ? t->arity[t->host_level] : 64;
        for (int h = 0; h < t->nhosts; h++)
            snprintf(t->hosts[h], sizeof t->hosts[h], "node%d", h);
    } else {
        const char *name = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "HostName");
        char here[64] = "localhost";
        if (!name && !synthetic && gethostname(here, sizeof here) == 0)
            name = here;
        snprintf(t->hosts[0], sizeof t->hosts[0], "%s", name ? name : "localhost");
        t->nhosts = 1;
    }
    hwloc_topology_destroy(topo);
    return 0;
}

int place_topo_hosts(struct place_topo *t, const char (*hosts)[64], int n, char *err, size_t errlen)
{
    if (n > 64 || t->nlevels + 1 > PLACE_MAX_LEVELS) {
        snprintf(err, errlen,
                 "%d hosts of %d levels: more than this placement handles (64 hosts, "
                 "%d levels); give --topology",
                 n, t->nlevels, PLACE_MAX_LEVELS);
        return -1;
    }
    if (t->nlevels == 1 && t->arity[0] == 1) /* one core: the hosts are the tree */
        t->nlevels = 0, t->leaves = 1;
    memmove(t->arity + 1, t->arity, t->nlevels * sizeof *t->arity);
    memmove(t->name + 1, t->name, t->nlevels * sizeof *t->name);
    t->arity[0] = n;
    snprintf(t->name[0], sizeof t->name[0], "Host");
    t->nlevels++;
    t->leaves *= n;
    t->package_level += t->package_level >= 0;
    t->host_level = 0;
    t->nhosts = n;
    for (int h = 0; h < n; h++)
        snprintf(t->hosts[h], sizeof t->hosts[h], "%s", hosts[h]);
    return 0;
}

void place_topo_oversubscribe(struct place_topo *t, int k)
{
    if (k <= 1 || t->nlevels == PLACE_MAX_LEVELS)
        return;
    t->arity[t->nlevels] = k;
    snprintf(t->name[t->nlevels], sizeof t->name[0], "slot");
    t->nlevels++;
    t->leaves *= k;
}
