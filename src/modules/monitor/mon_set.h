/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_set.h: the monitor's data in wire form: closed phases of one or more ranks, merged
 * along the binomial tree at MPI_Finalize and written by rank 0 (mon_set.c).
 */
#ifndef MON_SET_H
#define MON_SET_H

#include <stddef.h>
#include <stdint.h>

#include "commtrack.h"

struct mon_row { /* kind is enum mon_kind */
    int32_t phase, kind, src, dst;
    uint64_t count, bytes;
};
struct mon_hist_row {
    int32_t phase, src, dst, bin;
    uint64_t count;
};
/* comm: index into comms. v: o2a, a2o, a2a (count and bytes), then the uniform all-to-all
 * traffic (messages and bytes to each other member): kept per communicator and rank, O(p),
 * and spread over peer cells only by readers (the monitor_cells view, docs/database.md). */
struct mon_coll_row {
    int32_t phase, comm, rank;
    uint64_t v[8];
};
struct mon_io_row {
    int32_t phase, rank;
    char file[256];
    uint64_t v[4];
};
struct mon_phase_name {
    char name[64];
};

struct mon_set {
    struct mon_phase_name *phases;
    struct mon_row *rows;
    struct mon_hist_row *hist;
    struct mon_coll_row *coll;
    struct mon_io_row *io;
    size_t nphases, nrows, nhist, ncoll, nio;
    struct lens_comm_set comms;
};

int mon_set_phase(struct mon_set *s, const char *name); /* index, added if new */
void mon_set_add_row(struct mon_set *s, const struct mon_row *r);
void mon_set_add_hist(struct mon_set *s, const struct mon_hist_row *r);
void mon_set_add_coll(struct mon_set *s, const struct mon_coll_row *r);
void mon_set_add_io(struct mon_set *s, const struct mon_io_row *r);
void *mon_set_pack(void *set, size_t *len);
void mon_set_absorb(void *set, const void *data, size_t len);
void mon_set_free(struct mon_set *s);
/* Writes the set, and HOSTS (where the ranks ran; NULL: not known) into DIR/mpilens.db; 0 or
 * -1 with err. */
struct mon_hosts;
int mon_set_write(const struct mon_set *s, const struct mon_hosts *hosts, const char *dir,
                  char *err, size_t errlen);

extern struct mon_set mon_local;

#endif
