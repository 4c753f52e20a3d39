/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_mpit.c: the monitor's performance variables through the standard MPI_T interface.
 *
 * The module intercepts MPI_T_pvar_* and appends its variables after the library's, with
 * the names, types, classes, bindings and counts Open MPI's monitoring uses, so programs
 * written for Open MPI (its test/monitoring programs, the paper's Figure 1) run unchanged
 * on any MPI. Lookups by name find ours first (Open MPI 4.1 registers inert osc/coll
 * variables of the same names when its own monitoring is off). Semantics as Open MPI's:
 *  - per-peer variables (bound to a communicator) return, for each rank of it, the
 *    counters toward that process since MPI_Init or the last flush (cumulative across
 *    stop/start); starting one starts recording, stopping one halts all recording;
 *  - the o2a/a2o/a2a variables return the counters of the bound communicator;
 *  - pml_monitoring_flush: allocating a handle resets the counters; writing a string sets
 *    a file prefix (a NULL pointer clears it); stopping the handle writes PREFIX.RANK.prof
 *    as Open MPI does, closes a phase of that name in the run database, and resets.
 * Handles of ours are our own objects; everything else goes to the library.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mon.h"

enum { V_FLUSH, V_PER_PEER, V_KINDS };

struct pvar {
    const char *name, *desc;
    int cls, form, kind; /* form: V_*; kind: enum mon_kind, or 2*coll kind (+1 for size) */
    int bytes;           /* per-peer: 1 for the size variable */
};

static const struct pvar pvars[] = {
    {"pml_monitoring_flush", "Flush the monitoring information in the provided file",
     MPI_T_PVAR_CLASS_GENERIC, V_FLUSH, 0, 0},
    {"pml_monitoring_messages_count", "Number of messages sent to each peer in a communicator",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_P2P, 0},
    {"pml_monitoring_messages_size", "Size of messages sent to each peer in a communicator",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_P2P, 1},
    {"osc_monitoring_messages_sent_count", "Number of one-sided messages sent to each peer",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_RMA_SENT, 0},
    {"osc_monitoring_messages_sent_size", "Size of one-sided messages sent to each peer",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_RMA_SENT, 1},
    {"osc_monitoring_messages_recv_count", "Number of one-sided messages received from each peer",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_RMA_RECV, 0},
    {"osc_monitoring_messages_recv_size", "Size of one-sided messages received from each peer",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_RMA_RECV, 1},
    {"coll_monitoring_messages_count", "Number of collective messages sent to each peer",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_COLL, 0},
    {"coll_monitoring_messages_size", "Size of collective messages sent to each peer",
     MPI_T_PVAR_CLASS_SIZE, V_PER_PEER, MON_COLL, 1},
    {"coll_monitoring_o2a_count", "Number of one-to-all operations", MPI_T_PVAR_CLASS_COUNTER,
     V_KINDS, 0, 0},
    {"coll_monitoring_o2a_size", "Bytes of one-to-all operations", MPI_T_PVAR_CLASS_AGGREGATE,
     V_KINDS, 1, 0},
    {"coll_monitoring_a2o_count", "Number of all-to-one operations", MPI_T_PVAR_CLASS_COUNTER,
     V_KINDS, 2, 0},
    {"coll_monitoring_a2o_size", "Bytes of all-to-one operations", MPI_T_PVAR_CLASS_AGGREGATE,
     V_KINDS, 3, 0},
    {"coll_monitoring_a2a_count", "Number of all-to-all operations", MPI_T_PVAR_CLASS_COUNTER,
     V_KINDS, 4, 0},
    {"coll_monitoring_a2a_size", "Bytes of all-to-all operations", MPI_T_PVAR_CLASS_AGGREGATE,
     V_KINDS, 5, 0},
};
#define NPVARS ((int)(sizeof pvars / sizeof *pvars))

struct handle {
    const struct pvar *var;
    MPI_T_pvar_session session;
    MPI_Comm comm;
    int count;
    struct handle *next;
};

static struct handle *handles;
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static char flush_prefix[4096];

static int library_count(int *n)
{
    return PMPI_T_pvar_get_num(n);
}

/* Our variable behind an index, or NULL for the library's (or a bad index: *rc). */
static const struct pvar *ours(int index, int *rc)
{
    int n = 0;
    *rc = library_count(&n);
    if (*rc != MPI_SUCCESS || index < n)
        return NULL;
    if (index - n >= NPVARS) {
        *rc = MPI_T_ERR_INVALID_INDEX;
        return NULL;
    }
    return &pvars[index - n];
}

static struct handle *our_handle(MPI_T_pvar_handle h)
{
    pthread_mutex_lock(&handles_lock);
    struct handle *found = NULL;
    for (struct handle *x = handles; x && !found; x = x->next)
        if ((void *)x == (void *)h)
            found = x;
    pthread_mutex_unlock(&handles_lock);
    return found;
}

int MPI_T_pvar_get_num(int *num)
{
    int rc = MPILENS_DOWN(T_pvar_get_num)(num);
    if (rc == MPI_SUCCESS)
        *num += NPVARS;
    return rc;
}

static void copy_out(char *dst, int *len, const char *src)
{
    if (len && dst && *len > 0)
        snprintf(dst, *len, "%s", src);
    if (len)
        *len = (int)strlen(src) + 1;
}

int MPI_T_pvar_get_info(int index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *readonly, int *continuous, int *atomic)
{
    int rc;
    const struct pvar *v = ours(index, &rc);
    if (!v)
        return rc != MPI_SUCCESS
                   ? rc
                   : MPILENS_DOWN(T_pvar_get_info)(index, name, name_len, verbosity, var_class,
                                                   datatype, enumtype, desc, desc_len, bind,
                                                   readonly, continuous, atomic);
    copy_out(name, name_len, v->name);
    copy_out(desc, desc_len, v->desc);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class)
        *var_class = v->cls;
    if (datatype)
        *datatype = v->form == V_FLUSH                            ? MPI_CHAR
                    : v->form == V_PER_PEER && v->kind == MON_P2P ? MPI_UNSIGNED_LONG
                                                                  : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = v->form == V_FLUSH ? MPI_T_BIND_NO_OBJECT : MPI_T_BIND_MPI_COMM;
    if (readonly)
        *readonly = v->form != V_FLUSH;
    if (continuous)
        *continuous = 0;
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}

int MPI_T_pvar_get_index(const char *name, int var_class, int *index)
{
    int n = 0, rc = library_count(&n);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; name && i < NPVARS; i++) {
        if (strcmp(pvars[i].name, name) == 0 && pvars[i].cls == var_class) {
            *index = n + i;
            return MPI_SUCCESS;
        }
    }
    return MPILENS_DOWN(T_pvar_get_index)(name, var_class, index);
}

/* The communicator an MPI_T object argument names. The standard passes a pointer to the
 * handle (&comm); Open MPI also accepts the communicator itself (MPI_COMM_WORLD, as in the
 * paper's Figure 1). So when the argument's own value is a known communicator handle (an
 * object address in Open MPI, an integer in MPICH), it is that communicator. */
static MPI_Comm comm_of(void *obj)
{
    MPI_Comm direct;
    uintptr_t bits = (uintptr_t)obj;
    if (sizeof direct <= sizeof bits) {
        memcpy(&direct, &bits, sizeof direct); /* little-endian: the low bytes */
        if (lens_handle_get(lens_handle_key(&direct, sizeof direct)))
            return direct;
    }
    return *(MPI_Comm *)obj;
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int index, void *obj,
                            MPI_T_pvar_handle *handle, int *count)
{
    int rc;
    const struct pvar *v = ours(index, &rc);
    if (!v)
        return rc != MPI_SUCCESS
                   ? rc
                   : MPILENS_DOWN(T_pvar_handle_alloc)(session, index, obj, handle, count);
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct handle *h = calloc(1, sizeof *h);
    h->var = v;
    h->session = session;
    h->comm = MPI_COMM_NULL;
    if (v->form != V_FLUSH) {
        if (!obj || comm_of(obj) == MPI_COMM_NULL) {
            free(h);
            return MPI_T_ERR_INVALID_HANDLE;
        }
        h->comm = comm_of(obj);
        h->count = v->form == V_KINDS ? 1 : lens_comm(h->comm)->peers;
    } else {
        mon_reset(); /* as Open MPI: binding the flush variable resets the counters */
        h->count = (int)strlen(flush_prefix);
    }
    pthread_mutex_lock(&handles_lock);
    h->next = handles;
    handles = h;
    pthread_mutex_unlock(&handles_lock);
    *handle = (MPI_T_pvar_handle)(void *)h;
    *count = h->count;
    return MPI_SUCCESS;
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    struct handle *h = handle ? our_handle(*handle) : NULL;
    if (!h)
        return MPILENS_DOWN(T_pvar_handle_free)(session, handle);
    pthread_mutex_lock(&handles_lock);
    for (struct handle **p = &handles; *p; p = &(*p)->next) {
        if (*p == h) {
            *p = h->next;
            break;
        }
    }
    pthread_mutex_unlock(&handles_lock);
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

static void flush_now(void)
{
    if (!flush_prefix[0])
        return;
    if (mon_write_prof(flush_prefix) != 0)
        fprintf(stderr, "mpilens: monitor: cannot write %s.%d.prof; check the directory\n",
                flush_prefix, mon_rank);
    mon_flush(flush_prefix);
}

static void start_or_stop(struct handle *h, int start)
{
    if (h->var->form == V_FLUSH) {
        if (start)
            mon_set_on(1);
        else
            flush_now();
    } else {
        mon_set_on(start);
    }
}

/* Applies to every handle of ours in session (MPI_T_PVAR_ALL_HANDLES). */
static void all_of_session(MPI_T_pvar_session session, int start)
{
    pthread_mutex_lock(&handles_lock);
    for (struct handle *h = handles; h; h = h->next)
        if (h->session == session)
            start_or_stop(h, start);
    pthread_mutex_unlock(&handles_lock);
}

/* Start (START = 1) or stop one of our handles, all handles of a session, or pass a handle
 * of the library's own variables on to the library (LIBRARY: its start or stop). */
static int pvar_start_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int start,
                           int (*library)(MPI_T_pvar_session, MPI_T_pvar_handle))
{
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        all_of_session(session, start);
        return library(session, handle);
    }
    struct handle *h = our_handle(handle);
    if (!h)
        return library(session, handle);
    start_or_stop(h, start);
    return MPI_SUCCESS;
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_start_stop(session, handle, 1, MPILENS_DOWN(T_pvar_start));
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_start_stop(session, handle, 0, MPILENS_DOWN(T_pvar_stop));
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    struct handle *h = our_handle(handle);
    if (!h)
        return MPILENS_DOWN(T_pvar_read)(session, handle, buf);
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (h->var->form == V_FLUSH)
        return MPI_SUCCESS;
    uint64_t *out = buf;
    if (h->var->form == V_KINDS) {
        uint64_t v[6];
        mon_coll_kinds(h->comm, v);
        out[0] = v[h->var->kind];
        return MPI_SUCCESS;
    }
    uint64_t *c = calloc(2 * (size_t)mon_nprocs + 1, sizeof *c), *b = c + mon_nprocs;
    mon_read(h->var->kind, c, b, mon_nprocs);
    for (int i = 0; i < h->count; i++) {
        int peer = mon_world_rank(h->comm, i);
        out[i] = peer < 0 ? 0 : (h->var->bytes ? b : c)[peer];
    }
    free(c);
    return MPI_SUCCESS;
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    struct handle *h = our_handle(handle);
    if (!h)
        return MPILENS_DOWN(T_pvar_write)(session, handle, buf);
    if (h->var->form != V_FLUSH)
        return MPI_T_ERR_PVAR_NO_WRITE;
    /* As Open MPI: a pointer to a NULL pointer clears the prefix, else buf is the string. */
    if (!buf || *(char *const *)buf == NULL)
        flush_prefix[0] = '\0';
    else
        snprintf(flush_prefix, sizeof flush_prefix, "%s", (const char *)buf);
    return MPI_SUCCESS;
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    struct handle *h = our_handle(handle);
    if (!h)
        return MPILENS_DOWN(T_pvar_reset)(session, handle);
    return h->var->form == V_FLUSH ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    struct handle *h = our_handle(handle);
    if (!h)
        return MPILENS_DOWN(T_pvar_readreset)(session, handle, buf);
    return h->var->form == V_FLUSH ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    pthread_mutex_lock(&handles_lock);
    for (struct handle **p = &handles; *p;) {
        if (session && (*p)->session == *session) {
            struct handle *dead = *p;
            *p = dead->next;
            free(dead);
        } else {
            p = &(*p)->next;
        }
    }
    pthread_mutex_unlock(&handles_lock);
    return MPILENS_DOWN(T_pvar_session_free)(session);
}
