/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_objects.c: Open MPI's predefined objects, found in the library at boot
 * (mpi_objects.h says why).
 */
#include "mpi_objects.h"

#ifdef OPEN_MPI
void *lens_ompi_objects[LENS_OMPI_COUNT];
static const char *const object_names[LENS_OMPI_COUNT] = {
#define LENS_OBJECT_NAME(name, kind) "ompi_mpi_" #name,
    LENS_MPI_OBJECTS(LENS_OBJECT_NAME)
#undef LENS_OBJECT_NAME
};
#endif

int lens_mpi_objects_resolve(void *(*lookup)(void *, const char *), void *handle,
                             const char **missing)
{
#ifdef OPEN_MPI
    for (int i = 0; i < LENS_OMPI_COUNT; i++) {
        lens_ompi_objects[i] = lookup(handle, object_names[i]);
        if (!lens_ompi_objects[i]) {
            *missing = object_names[i];
            return -1;
        }
    }
#else
    (void)lookup;
    (void)handle;
    (void)missing;
#endif
    return 0;
}
