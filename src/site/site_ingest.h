/* SPDX-License-Identifier: BSD-3-Clause */
/* site_ingest.h: a spool of summary.json records into the site store. */
#ifndef SITE_INGEST_H
#define SITE_INGEST_H

#include "site_store.h"

struct site_ingest_options {
    int batch;            /* records per transaction */
    const char *rejected; /* the ingest's own directory; NULL: SPOOL/rejected */
    int keep_days;        /* rejected records older than this are removed (0: never) */
};

/* What ingest did with every entry it saw: ENTRIES = STORED + ALREADY + REJECTED + HELD +
 * LEFT + NOT_RECORDS + GONE (files removed by their owner while ingest ran). */
struct site_ingest_counts {
    long entries, stored, already, rejected, held, left, not_records, gone;
    long waiting; /* records held from earlier runs, of a version still too new */
    long expired; /* rejected files removed for their age */
    int unsafe;   /* the ingest's directory could not be used (said on stderr) */
    char rejected_path[4096];
};

/* Stores every record of SPOOL (regular files named *.json, not hidden) and the held
 * records this mpilens now reads in S, in transactions of O->batch records; a record
 * leaves the spool (deleted) only once its transaction committed. Malformed, oversized,
 * forged records (the user they name is not the file's owner), and those the store itself
 * refuses, move to the ingest's directory with NAME.reason beside them; a record of a newer
 * version is held in its newer/ (site_spool.h). 0; -1 with ERR (the store failed: what was
 * not committed stays where it was); -2 with ERR: the spool is refused, nothing touched. */
int site_ingest(struct site_store *s, const char *spool, const struct site_ingest_options *o,
                struct site_ingest_counts *counts, char *err, size_t n);

#endif
