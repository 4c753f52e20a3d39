/* SPDX-License-Identifier: BSD-3-Clause */
/* services.c: what the core offers modules and applications through mpilens.h: named
 * services between modules, module arguments, and a view of the dispatch tables.
 * None of this is on a hot path; a mutex keeps the service table safe for threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

struct service {
    char *name;
    void *pointer;
    size_t size;
};

static struct service *services;
static int nservices;
static pthread_mutex_t services_lock = PTHREAD_MUTEX_INITIALIZER;

int mpilens_service_publish(const char *name, void *pointer, size_t size)
{
    int rc = 0;
    pthread_mutex_lock(&services_lock);
    for (int i = 0; i < nservices; i++)
        if (strcmp(services[i].name, name) == 0)
            rc = -1;
    if (rc == 0) {
        struct service *grown = realloc(services, (nservices + 1) * sizeof *grown);
        if (grown) {
            services = grown;
            services[nservices++] = (struct service){strdup(name), pointer, size};
        } else {
            rc = -1;
        }
    }
    pthread_mutex_unlock(&services_lock);
    return rc;
}

void *mpilens_service_lookup(const char *name, size_t *size)
{
    void *found = NULL;
    pthread_mutex_lock(&services_lock);
    for (int i = 0; i < nservices && !found; i++) {
        if (strcmp(services[i].name, name) == 0) {
            found = services[i].pointer;
            if (size)
                *size = services[i].size;
        }
    }
    pthread_mutex_unlock(&services_lock);
    return found;
}

const char *mpilens_module_arg(const struct mpilens_module_args *args, const char *key,
                               const char *fallback)
{
    for (int i = 0; args && i < args->count; i++)
        if (strcmp(args->keys[i], key) == 0)
            return args->values[i];
    return fallback;
}

int mpilens_chain_length(const char *name)
{
    int k = lens_function_index(name);
    if (k < 0)
        return -1;
    lens_boot();
    /* Walk the dispatch table from the application's level (a module alone in the stack is
     * entered by a direct top hop, solo.c, but it is still visited). */
    int length = 0;
    for (const struct lens_hop *hop = &lens_slots[k].hops[0];
         !hop->direct && length <= lens_nmodules; hop = &lens_slots[k].hops[hop->level])
        length++;
    return length;
}

int mpilens_module_count(void)
{
    lens_boot();
    return lens_nmodules;
}

const char *mpilens_version(void)
{
    return MPILENS_VERSION;
}
