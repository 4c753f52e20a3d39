/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_record.c: summary.json, built and written (sum_record.h, docs/summary.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "site_names.h"
#include "record_layout.h"
#include "sum_record.h"

/* The call sites, named at rank 0 from the debug information. */
static void sites(struct record_text *j, void *ctx)
{
    const struct sum_merged *m = ctx;
    struct lens_site_namer *namer = m->nsites > 0 ? lens_site_namer_new() : NULL;
    for (int i = 0; i < m->nsites && i < RECORD_TOP; i++) {
        const struct sum_site_row *s = &m->sites[i];
        struct lens_site_name n;
        lens_site_name(namer, s->path, s->offset, &n);
        record_layout_site(j, sum_op_names[s->op], n.file, n.line, n.function, s->path, s->seconds);
    }
    lens_site_namer_free(namer);
}

/* Static: a signal handler may write the record, on whatever stack it has. */
static struct record_op pairs[SUM_MAX_ROWS], scratch[SUM_MAX_ROWS];
static struct record_bin bins[SUM_BINS];

int sum_record_text(const struct sum_merged *m, const struct sum_program *p, int ranks,
                    double start, double end, const char *ended, char *text)
{
    const struct sum_totals *t = &m->t;
    for (int i = 0; i < m->nrows; i++)
        pairs[i] = (struct record_op){sum_op_names[m->rows[i].op], m->rows[i].comm_size,
                                      m->rows[i].calls, m->rows[i].seconds};
    int nbins = 0; /* powers of two; the first bin holds 0 and 1 byte */
    for (int b = 1; b < SUM_BINS; b++)
        if (t->bins[b])
            bins[nbins++] = (struct record_bin){b == 1 ? 0 : 1ull << (b - 1),
                                                b == 64 ? UINT64_MAX : (1ull << b) - 1, t->bins[b]};
    double T = t->elapsed_max, mean_useful = t->ranks ? t->useful_sum / (double)t->ranks : 0;
    struct record_facts f = {
        .user = p->user,
        .uid = p->uid,
        .run_id = p->run_id,
        .path = p->path,
        .build_id = p->build_id,
        .script = p->script,
        .library = p->library,
        .standard = p->mpi_version,
        .ranks = ranks,
        .ranks_measured = t->ranks, /* fewer when the job did not finalize */
        .nodes = t->hosts,
        .ranks_per_node_min = t->host_min,
        .ranks_per_node_max = t->host_max,
        .first_host = p->host,
        .start = start,
        .end = end,
        .run_seconds = T,
#if defined(__x86_64__)
        /* a counter whose rate varies is read at its average rate over the run */
        .clock = sum_use_tsc ? "tsc" : "tsc-varying-rate",
#else
        .clock = "monotonic",
#endif
        .mpi_seconds = t->mpi_sum,
        /* src/pop's pop_mpi_share, the one definition (the module links no src/pop) */
        .mpi_share = T > 0 && t->ranks ? t->mpi_sum / (T * (double)t->ranks) : 0,
        .load_balance = t->useful_max > 0 ? mean_useful / t->useful_max : 1,
        .communication_efficiency = T > 0 ? t->useful_max / T : 1,
        .parallel_efficiency = T > 0 ? mean_useful / T : 1,
        .pairs = pairs,
        .scratch = scratch,
        .npairs = m->nrows,
        .sites = sites,
        .sites_ctx = (void *)m,
        .messages = t->messages[0] + t->messages[1],
        .bytes = t->bytes[0] + t->bytes[1],
        .split_known = 1,
        .within_messages = t->messages[1],
        .within_bytes = t->bytes[1],
        .between_messages = t->messages[0],
        .between_bytes = t->bytes[0],
        .bins = bins,
        .nbins = nbins,
        .sites_unsampled_seconds = t->sites_dropped,
        .rows_dropped = t->rows_dropped,
        .ended = ended,
    };
    return record_layout_write(&f, text, SUM_RECORD_MAX);
}

void sum_record_spool_name(const struct sum_program *p, char *out, size_t len)
{
    const char *run_id = p->run_id;
    const char *id = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID"),
               *restart = getenv("SLURM_RESTART_COUNT");
    if (id && *id && restart && *restart && strcmp(restart, "0") != 0) /* a requeued job */
        snprintf(out, len, "%s.%s.%s.r%s.%s.summary.json", id, step && *step ? step : "0", p->user,
                 restart, run_id);
    else if (id && *id)
        snprintf(out, len, "%s.%s.%s.%s.summary.json", id, step && *step ? step : "0", p->user,
                 run_id);
    else
        snprintf(out, len, "%s.%s.%s.summary.json", p->host, p->user, run_id);
}
