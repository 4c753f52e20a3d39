/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_objects.h: Open MPI's predefined handles as the core uses them.
 *
 * Open MPI's MPI_COMM_WORLD, MPI_CHAR... are addresses of objects in libmpi. libmpilens does
 * not link libmpi (mpirun inherits LD_PRELOAD too and must not load the MPI library because
 * of us), and a library that an interpreter dlopens RTLD_LOCAL after our start is in no
 * scope a link-time reference could bind to. So the objects the core uses are looked up in
 * the library found at boot (lens_mpi_objects_resolve), and their names below stand for
 * those addresses: MPI_COMM_WORLD and the rest of mpi.h's macros work unchanged. Include it
 * after mpi.h, in each core file that uses one of them. MPICH's handles are integers: there
 * is nothing to do.
 */
#ifndef LENS_MPI_OBJECTS_H
#define LENS_MPI_OBJECTS_H

#include <mpi.h>

#include "lens_hidden.h"

#ifdef OPEN_MPI
/* clang-format off */
#define LENS_MPI_OBJECTS(X) \
    X(comm_world, communicator) X(comm_null, communicator) \
    X(char, datatype) X(byte, datatype) X(int, datatype) X(uint64_t, datatype) \
    X(op_min, op) X(info_null, info)
/* clang-format on */
enum {
#define LENS_OBJECT_INDEX(name, kind) LENS_OMPI_##name,
    LENS_MPI_OBJECTS(LENS_OBJECT_INDEX) LENS_OMPI_COUNT
#undef LENS_OBJECT_INDEX
};
extern LENS_HIDDEN void *lens_ompi_objects[LENS_OMPI_COUNT];
#define ompi_mpi_comm_world                                                                        \
    (*(struct ompi_predefined_communicator_t *)lens_ompi_objects[LENS_OMPI_comm_world])
#define ompi_mpi_comm_null                                                                         \
    (*(struct ompi_predefined_communicator_t *)lens_ompi_objects[LENS_OMPI_comm_null])
#define ompi_mpi_char (*(struct ompi_predefined_datatype_t *)lens_ompi_objects[LENS_OMPI_char])
#define ompi_mpi_byte (*(struct ompi_predefined_datatype_t *)lens_ompi_objects[LENS_OMPI_byte])
#define ompi_mpi_int (*(struct ompi_predefined_datatype_t *)lens_ompi_objects[LENS_OMPI_int])
#define ompi_mpi_uint64_t                                                                          \
    (*(struct ompi_predefined_datatype_t *)lens_ompi_objects[LENS_OMPI_uint64_t])
#define ompi_mpi_op_min (*(struct ompi_predefined_op_t *)lens_ompi_objects[LENS_OMPI_op_min])
#define ompi_mpi_info_null                                                                         \
    (*(struct ompi_predefined_info_t *)lens_ompi_objects[LENS_OMPI_info_null])
#endif

/* Looks the objects up with LOOKUP (dlsym on the library's handle, or RTLD_NEXT); 0, or -1
 * and the name of the first one missing in *MISSING. */
LENS_HIDDEN int lens_mpi_objects_resolve(void *(*lookup)(void *, const char *), void *handle,
                                         const char **missing);

#endif
