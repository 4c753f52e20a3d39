/* site_ingest.h: a spool of summary.json records into the site store. */
#ifndef SITE_INGEST_H
#define SITE_INGEST_H

#include "site_store.h"

struct site_ingest_counts {
    long stored, already, rejected, newer, failed_moves;
};

/* Stores every record of SPOOL (regular files named *.json, not hidden) in S, in
 * transactions of BATCH records; a record leaves the spool (deleted) only once its
 * transaction committed. Malformed, oversized or forged records (the user they name is not
 * the file's owner) move to SPOOL/rejected/ with NAME.reason beside them; a record of a
 * newer version stays, said on stderr. 0, or -1 with ERR (the store failed: what was not
 * committed stays in the spool). */
int site_ingest(struct site_store *s, const char *spool, int batch,
                struct site_ingest_counts *counts, char *err, size_t n);

#endif
