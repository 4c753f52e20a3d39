/* SPDX-License-Identifier: BSD-3-Clause */
/* type_sizes.h: datatype sizes cached by handle, for the hot paths of the modules that count
 * bytes (each keeps its own cache: modules share code, never state). A direct-mapped table
 * of LENS_TYPE_SLOTS; use it from one thread only, and empty it at MPI_Type_free (a freed
 * handle may come back as another type).
 */
#ifndef LENS_TYPE_SIZES_H
#define LENS_TYPE_SIZES_H

#include <mpi.h>
#include <stdint.h>

struct lens_type_slot {
    MPI_Datatype type;
    uint64_t size;
};
#define LENS_TYPE_SLOTS 64

static inline struct lens_type_slot *lens_type_slot(struct lens_type_slot *cache, MPI_Datatype type)
{
    uintptr_t h = (uintptr_t)type;
    return &cache[((h >> 3) ^ (h >> 9)) % LENS_TYPE_SLOTS];
}

/* count (> 0) x the size of type from CACHE into *bytes: 1, or 0 on a miss. */
static inline int lens_type_bytes_cached(struct lens_type_slot *cache, int64_t count,
                                         MPI_Datatype type, uint64_t *bytes)
{
    const struct lens_type_slot *s = lens_type_slot(cache, type);
    if (s->type != type)
        return 0;
    *bytes = (uint64_t)count * s->size;
    return 1;
}

/* count x the size of type through PMPI_Type_size (0 for MPI_DATATYPE_NULL, a count <= 0 or
 * an error), kept in CACHE if KEEP. */
static inline uint64_t lens_type_bytes_fill(struct lens_type_slot *cache, int64_t count,
                                            MPI_Datatype type, int keep)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    if (keep)
        *lens_type_slot(cache, type) = (struct lens_type_slot){type, (uint64_t)size};
    return (uint64_t)count * (uint64_t)size;
}

#endif
