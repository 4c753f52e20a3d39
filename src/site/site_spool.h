/* SPDX-License-Identifier: BSD-3-Clause */
/* site_spool.h: the spool as the site's ingest (root) touches it. The spool is a directory
 * every user may write (sticky: each may remove only their own files); ingest reads its
 * records and removes them, and moves what it refuses into a directory of its own, made
 * and checked by it (owner, mode, no link), where nobody else can write: rejected records
 * with NAME.reason beside them, kept for a number of days, and records of a newer version
 * than this mpilens reads, held in newer/ until an mpilens that reads them runs. Every
 * name is opened relative to a directory descriptor, without following a link, and every
 * file ingest makes is made new (O_EXCL) or replaces nothing (docs/site.md, Install and
 * threat model).
 */
#ifndef SITE_SPOOL_H
#define SITE_SPOOL_H

#include <stddef.h>
#include <sys/types.h>

struct site_spool {
    char path[4096];
    int fd;
    char rejected_path[4096]; /* the ingest's own directory */
    int rejected_fd, held_fd; /* -1: not usable (problem says why and the fix) */
    char problem[1024];
};

/* One entry the listing saw: a candidate record in the spool, or a held one. */
struct spool_file {
    char *name;
    int held;       /* in REJECTED/newer/ (named vN.NAME), not in the spool */
    int not_record; /* a directory, a hidden temporary, another name: counted, not read */
};

/* Opens SPOOL, refusing one that a user could turn against ingest (a link, not owned by
 * root or this user, writable by others without the sticky bit), and the ingest's
 * directory REJECTED (NULL: SPOOL/rejected), made if missing. 0; -1 with ERR (the spool
 * is refused: nothing is touched). A refused REJECTED leaves the spool usable: records to
 * reject stay where they are, and SP->problem says why. */
int site_spool_open(struct site_spool *sp, const char *spool, const char *rejected, char *err,
                    size_t n);
void site_spool_close(struct site_spool *sp);

/* Every entry of the spool (but the ingest's own directory) and the held records that this
 * mpilens reads (version <= VERSION), sorted by name, in *FILES (site_spool_free_list);
 * held records of a newer version are only counted, in *WAITING. The count, or -1. */
long site_spool_list(struct site_spool *sp, int version, struct spool_file **files, long *waiting);
void site_spool_free_list(struct spool_file *files, long count);

/* The file's text (malloc'ed, NUL-ended) and owner. 0; -1 refused (WHY); -3 gone; -4 it
 * cannot be read by this user (WHY): it stays. */
int site_spool_read(const struct site_spool *sp, const struct spool_file *f, size_t max_bytes,
                    char **text, size_t *len, uid_t *owner, char *why, size_t n);

/* Moves the file into the ingest's directory with NAME.reason (WHY, controls escaped)
 * beside it: 0; -1 when it could not (it stays; the reason in WHY_NOT). */
int site_spool_reject(const struct site_spool *sp, const struct spool_file *f, const char *why,
                      char *why_not, size_t n);
/* Moves a record of version VERSION into REJECTED/newer/: 0; -1 (it stays). */
int site_spool_hold(const struct site_spool *sp, const struct spool_file *f, int version);
/* Removes a stored record: 0, or -1 with errno. */
int site_spool_remove(const struct site_spool *sp, const struct spool_file *f);
/* Removes rejected records and reasons that arrived more than DAYS days ago (0: none):
 * how many files. */
long site_spool_expire(const struct site_spool *sp, int days);

#endif
