/* SPDX-License-Identifier: BSD-3-Clause */
/* record_layout.c: a summary.json record's fields, in their order (record_layout.h). */
#include "record_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOP_OPERATIONS 20 /* operations named; the rest in one figure */

static const char *env_or_null(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static const char *null_if_empty(const char *s)
{
    return s && *s ? s : NULL;
}

static void iso_time(double t, char *out, size_t len)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "job": from Slurm's environment (null outside Slurm), with the user */
static void job(struct record_text *j, const struct record_facts *f)
{
    record_text_open(j, "job", '{');
    record_text_string(j, "id", env_or_null("SLURM_JOB_ID"));
    record_text_string(j, "step", env_or_null("SLURM_STEP_ID"));
    record_text_string(j, "name", env_or_null("SLURM_JOB_NAME"));
    record_text_string(j, "user", f->user);
    record_text_int(j, "uid", f->uid);
    record_text_string(j, "run_id", null_if_empty(f->run_id));
    record_text_string(j, "account", env_or_null("SLURM_JOB_ACCOUNT"));
    record_text_string(j, "partition", env_or_null("SLURM_JOB_PARTITION"));
    record_text_string(j, "cluster", env_or_null("SLURM_CLUSTER_NAME"));
    record_text_close(j, '}');
}

static void program(struct record_text *j, const struct record_facts *f)
{
    record_text_open(j, "program", '{');
    record_text_string(j, "path", f->path);
    record_text_string(j, "build_id", null_if_empty(f->build_id));
    record_text_string(j, "python_script", null_if_empty(f->script));
    record_text_close(j, '}');
    record_text_open(j, "mpi", '{');
    record_text_string(j, "library", f->library);
    record_text_string(j, "standard", f->standard);
    record_text_close(j, '}');
}

static void span(struct record_text *j, double start, double end)
{
    char when[32];
    iso_time(start, when, sizeof when);
    record_text_string(j, "start", when);
    iso_time(end, when, sizeof when);
    record_text_string(j, "end", when);
    record_text_epoch(j, "start_epoch", start);
    record_text_epoch(j, "end_epoch", end);
}

static void times(struct record_text *j, const struct record_facts *f)
{
    record_text_number(j, "run_seconds", f->run_seconds);
    record_text_string(j, "clock", f->clock);
    record_text_number(j, "mpi_seconds", f->mpi_seconds);
    record_text_number(j, "mpi_share", f->mpi_share);
    record_text_open(j, "efficiency", '{');
    record_text_number(j, "load_balance", f->load_balance);
    record_text_number(j, "communication_efficiency", f->communication_efficiency);
    record_text_number(j, "parallel_efficiency", f->parallel_efficiency);
    record_text_close(j, '}');
}

static int by_seconds(const void *a, const void *b)
{
    const struct record_op *x = a, *y = b;
    return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

static const char *comm_name(int comm_size, char *buf, size_t len)
{
    switch (comm_size) {
    case RECORD_COMM_WORLD:
        return "MPI_COMM_WORLD";
    case RECORD_COMM_NONE:
        return NULL;
    case RECORD_COMM_OTHER:
        return "other communicators";
    default:
        snprintf(buf, len, "communicators of %d ranks", comm_size);
        return buf;
    }
}

/* The costliest pairs, then every operation whatever its communicator (for a site's tables:
 * point-to-point against collectives), the first twenty named and the rest in one figure,
 * so that the record stays small. */
static void operations(struct record_text *j, const struct record_facts *f)
{
    qsort(f->pairs, (size_t)f->npairs, sizeof *f->pairs, by_seconds);
    record_text_open(j, "top_operations", '[');
    for (int i = 0; i < f->npairs && i < RECORD_TOP; i++) {
        const struct record_op *p = &f->pairs[i];
        char buf[64];
        record_text_open(j, NULL, '{');
        record_text_string(j, "operation", p->name);
        record_text_string(j, "communicator", comm_name(p->comm_size, buf, sizeof buf));
        record_text_int(j, "communicator_size",
                        p->comm_size == RECORD_COMM_WORLD ? f->ranks
                        : p->comm_size > 0                ? p->comm_size
                                                          : 0);
        record_text_uint(j, "calls", p->calls);
        record_text_number(j, "seconds", p->seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, ']');
    int n = 0;
    for (int i = 0; i < f->npairs; i++) {
        int k = 0;
        while (k < n && strcmp(f->scratch[k].name, f->pairs[i].name) != 0)
            k++;
        if (k == n)
            f->scratch[n++] = (struct record_op){f->pairs[i].name, RECORD_COMM_NONE, 0, 0};
        f->scratch[k].calls += f->pairs[i].calls;
        f->scratch[k].seconds += f->pairs[i].seconds;
    }
    qsort(f->scratch, (size_t)n, sizeof *f->scratch, by_seconds);
    double rest = 0;
    record_text_open(j, "operations", '{');
    for (int i = 0; i < n; i++) {
        if (i >= TOP_OPERATIONS) {
            rest += f->scratch[i].seconds;
            continue;
        }
        record_text_open(j, f->scratch[i].name, '{');
        record_text_uint(j, "calls", f->scratch[i].calls);
        record_text_number(j, "seconds", f->scratch[i].seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, '}');
    record_text_number(j, "other_operations_seconds", rest);
}

void record_layout_site(struct record_text *j, const char *operation, const char *file, int line,
                        const char *function, const char *object, double seconds)
{
    record_text_open(j, NULL, '{');
    record_text_string(j, "operation", operation);
    record_text_string(j, "file", null_if_empty(file));
    record_text_int(j, "line", line);
    record_text_string(j, "function", function);
    record_text_string(j, "object", object && strncmp(object, "python:", 7) != 0 ? object : NULL);
    record_text_number(j, "seconds", seconds);
    record_text_close(j, '}');
}

static void split(struct record_text *j, const char *key, int known, uint64_t messages,
                  uint64_t bytes)
{
    if (!known) {
        record_text_string(j, key, NULL);
        return;
    }
    record_text_open(j, key, '{');
    record_text_uint(j, "messages", messages);
    record_text_uint(j, "bytes", bytes);
    record_text_close(j, '}');
}

static void messages(struct record_text *j, const struct record_facts *f)
{
    record_text_open(j, "point_to_point", '{');
    record_text_uint(j, "messages", f->messages);
    record_text_uint(j, "bytes", f->bytes);
    split(j, "within_hosts", f->split_known, f->within_messages, f->within_bytes);
    split(j, "between_hosts", f->split_known, f->between_messages, f->between_bytes);
    record_text_close(j, '}');
    record_text_open(j, "message_sizes", '[');
    for (int b = 0; b < f->nbins; b++)
        if (f->bins[b].messages) {
            record_text_open(j, NULL, '{');
            record_text_uint(j, "min_bytes", f->bins[b].min);
            record_text_uint(j, "max_bytes", f->bins[b].max);
            record_text_uint(j, "messages", f->bins[b].messages);
            record_text_close(j, '}');
        }
    record_text_close(j, ']');
}

int record_layout_write(const struct record_facts *f, char *text, size_t cap)
{
    struct record_text j = {.text = text, .cap = cap < RECORD_MAX ? cap : RECORD_MAX};
    record_text_open(&j, NULL, '{');
    record_text_string(&j, "schema", "mpilens-summary");
    record_text_int(&j, "version", RECORD_SCHEMA_VERSION);
    if (f->source)
        record_text_string(&j, "source", f->source);
    job(&j, f);
    program(&j, f);
    record_text_int(&j, "ranks", f->ranks);
    record_text_uint(&j, "ranks_measured", f->ranks_measured);
    record_text_uint(&j, "nodes", f->nodes);
    record_text_open(&j, "ranks_per_node", '{');
    record_text_int(&j, "min", f->ranks_per_node_min);
    record_text_int(&j, "max", f->ranks_per_node_max);
    record_text_close(&j, '}');
    record_text_string(&j, "first_host", f->first_host);
    span(&j, f->start, f->end);
    times(&j, f);
    operations(&j, f);
    record_text_open(&j, "top_call_sites", '[');
    if (f->sites)
        f->sites(&j, f->sites_ctx);
    record_text_close(&j, ']');
    messages(&j, f);
    record_text_number(&j, "call_sites_unsampled_seconds", f->sites_unsampled_seconds);
    record_text_uint(&j, "operation_rows_dropped", f->rows_dropped);
    record_text_string(&j, "ended", f->ended);
    record_text_close(&j, '}');
    return j.failed ? -1 : 0;
}
