/* SPDX-License-Identifier: BSD-3-Clause */
/* commtrack_wrap.c: the wrappers that register communicators and windows.
 *
 * Every creating call registers the new communicator with the letter of Table 1 of the
 * mpisee paper (docs/database.md lists them all, with our choices for the calls the
 * paper does not name). No collective is added anywhere: members are read from the new
 * communicator's group (a local call), or copied from the parent for duplicates (whose
 * handle may not be used before an idup completes). MPI_Comm_free stays local; the
 * record keeps its data. Windows remember the communicator they were made on.
 */
#include <string.h>

#include "commtrack.h"
#include "lens_down.h"

static int registered(int rc, MPI_Comm *newcomm, char letter, const struct lens_comm *like)
{
    if (rc == MPI_SUCCESS && newcomm && *newcomm != MPI_COMM_NULL)
        lens_comm_register(*newcomm, letter, like);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_split)(comm, color, key, newcomm), newcomm, 's', NULL);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_split_type)(comm, type, key, info, newcomm), newcomm, 't',
                      NULL);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_dup)(comm, newcomm), newcomm, 'd', lens_comm(comm));
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_dup_with_info)(comm, info, newcomm), newcomm, 'e',
                      lens_comm(comm));
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
    return registered(MPILENS_DOWN(Comm_idup)(comm, newcomm, req), newcomm, 'i', lens_comm(comm));
}

#ifdef MPILENS_HAS_SESSIONS /* MPI-4 (CMakeLists.txt: Open MPI 5 says 3.1) */
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *req)
{
    return registered(MPILENS_DOWN(Comm_idup_with_info)(comm, info, newcomm, req), newcomm, 'o',
                      lens_comm(comm));
}
#endif

#ifdef MPILENS_HAS_SESSIONS /* MPI-4 (CMakeLists.txt: Open MPI 5 says 3.1) */
/* MPI-4's communicators made from a group (of a session's process set, or any) */
int MPI_Comm_create_from_group(MPI_Group group, const char *tag, MPI_Info info,
                               MPI_Errhandler handler, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_create_from_group)(group, tag, info, handler, newcomm),
                      newcomm, 'p', NULL);
}

int MPI_Intercomm_create_from_groups(MPI_Group local, int local_leader, MPI_Group remote,
                                     int remote_leader, const char *tag, MPI_Info info,
                                     MPI_Errhandler handler, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Intercomm_create_from_groups)(
                          local, local_leader, remote, remote_leader, tag, info, handler, newcomm),
                      newcomm, 'q', NULL);
}
#endif

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_create)(comm, group, newcomm), newcomm, 'c', NULL);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Comm_create_group)(comm, group, tag, newcomm), newcomm, 'u',
                      NULL);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Cart_create)(comm, ndims, dims, periods, reorder, newcomm),
                      newcomm, 'a', NULL);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Cart_sub)(comm, remain, newcomm), newcomm, 'b', NULL);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Graph_create)(comm, nnodes, index, edges, reorder, newcomm),
                      newcomm, 'r', NULL);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int dests[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Dist_graph_create)(comm, n, sources, degrees, dests, weights,
                                                      info, reorder, newcomm),
                      newcomm, 'g', NULL);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int dests[],
                                   const int destweights[], MPI_Info info, int reorder,
                                   MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Dist_graph_create_adjacent)(comm, indegree, sources,
                                                               sourceweights, outdegree, dests,
                                                               destweights, info, reorder, newcomm),
                      newcomm, 'j', NULL);
}

int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                         int tag, MPI_Comm *newcomm)
{
    return registered(
        MPILENS_DOWN(Intercomm_create)(local, local_leader, peer, remote_leader, tag, newcomm),
        newcomm, 'x', NULL);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newcomm)
{
    return registered(MPILENS_DOWN(Intercomm_merge)(inter, high, newcomm), newcomm, 'm', NULL);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm && *comm != MPI_COMM_NULL)
        lens_comm_forget(*comm);
    return MPILENS_DOWN(Comm_free)(comm);
}

/* ---- windows ---- */

static int window_made(int rc, MPI_Comm comm, MPI_Win *win)
{
    if (rc == MPI_SUCCESS) {
        lens_handle_set(lens_handle_key(win, sizeof *win), lens_comm(comm));
        if (lens_handle_hooks_now.window_made)
            lens_handle_hooks_now.window_made(*win, comm);
    }
    return rc;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return window_made(MPILENS_DOWN(Win_create)(base, size, disp, info, comm, win), comm, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, void *base,
                     MPI_Win *win)
{
    return window_made(MPILENS_DOWN(Win_allocate)(size, disp, info, comm, base, win), comm, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, void *base,
                            MPI_Win *win)
{
    return window_made(MPILENS_DOWN(Win_allocate_shared)(size, disp, info, comm, base, win), comm,
                       win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return window_made(MPILENS_DOWN(Win_create_dynamic)(info, comm, win), comm, win);
}

int MPI_Win_free(MPI_Win *win)
{
    lens_handle_drop(lens_handle_key(win, sizeof *win));
    if (lens_handle_hooks_now.window_freed)
        lens_handle_hooks_now.window_freed(*win);
    return MPILENS_DOWN(Win_free)(win);
}

struct lens_comm *lens_comm_of_win(MPI_Win win)
{
    struct lens_comm *rec = lens_handle_get(lens_handle_key(&win, sizeof win));
    return rec ? rec : lens_comm(MPI_COMM_WORLD);
}
