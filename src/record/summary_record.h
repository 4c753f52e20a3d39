/* SPDX-License-Identifier: BSD-3-Clause */
/* summary_record.h: one summary.json record (docs/summary.md, schema version 1) as the site
 * store keeps it: the job step's identity, its figures, and its bounded lists. Reading a
 * record checks what the store relies on; everything else in the record is optional.
 */
#ifndef SUMMARY_RECORD_H
#define SUMMARY_RECORD_H

#include <stddef.h>

#define SUMMARY_RECORD_MAX_BYTES 65536 /* a record is under 16 KiB; four times that is refused */
#define SUMMARY_SCHEMA_VERSION 1       /* the newest record version this reader knows */
#define SUMMARY_MAX_OPS 24
#define SUMMARY_MAX_TOP 8
#define SUMMARY_MAX_BINS 72
#define SUMMARY_MAX_SITES 8

struct summary_op {
    char operation[64];
    char communicator[48]; /* top operations only; "" for none */
    long long comm_size;   /* top operations: 0 for none */
    double calls, seconds;
};

struct summary_bin {
    double min_bytes, max_bytes, messages;
};

struct summary_site {
    char operation[64], file[256], function[128], object[256];
    long long line;
    double seconds;
};

struct summary_record {
    int version;
    char key[400]; /* the job step's identity: one row per key, however often ingested */
    char job_id[32], step[32], job_name[128], user[64], account[64], partition[64], cluster[64];
    char run_id[40]; /* job.run_id: made at MPI_Init, unique to the run; "" in older records */
    long long uid;
    char program[512], build_id[80], python_script[256], app[128];
    char mpi_library[128], mpi_standard[16];
    long long ranks, ranks_measured, nodes, rpn_min, rpn_max;
    char first_host[128], ended[96], clock[32];
    double start_epoch, end_epoch, run_seconds, mpi_seconds, mpi_share;
    double load_balance, comm_efficiency, parallel_efficiency; /* -1 when absent */
    double p2p_messages, p2p_bytes, within_messages, within_bytes, between_messages, between_bytes,
        other_ops_seconds;
    int n_ops, n_top, n_bins, n_sites;
    struct summary_op ops[SUMMARY_MAX_OPS], top[SUMMARY_MAX_TOP];
    struct summary_bin bins[SUMMARY_MAX_BINS];
    struct summary_site sites[SUMMARY_MAX_SITES];
};

/* Reads TEXT (LEN bytes) into REC. 0; or -1 with WHY (why the record is refused: one line);
 * or -2 when the record's version is newer than this reader's (WHY names both). */
int summary_record_read(const char *text, size_t len, struct summary_record *rec, char *why,
                        size_t n);

#endif
