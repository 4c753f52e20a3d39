/* SPDX-License-Identifier: BSD-3-Clause */
/* summary_record.c: a summary.json record read into struct summary_record (summary_record.h): the
 * schema name and version checked, the fields the store needs required, the text UTF-8 and
 * its strings cut to their columns between characters, every number finite and each field
 * within the range the store keeps, the lists bounded. The application's name is the
 * Python script's last component for a Python job, else the program's.
 */
#include "summary_record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "record_json.h"
#include "text_utf8.h"

static void copy(char *dst, size_t n, const char *src)
{
    lens_utf8_copy(dst, n, src);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A number member, or -1 (absent or null). */
static double opt_num(const struct json *obj, const char *key)
{
    return json_num(obj, key, -1);
}

static int need_num(const struct json *obj, const char *key, double *out, char *why, size_t n)
{
    const struct json *v = json_get(obj, key);
    if (!v || v->kind != JSON_NUMBER) {
        snprintf(why, n, "'%s' is missing or not a number", key);
        return -1;
    }
    *out = v->number;
    return 0;
}

/* A Slurm field (a string or a number, or null) as text. */
static void id_text(const struct json *obj, const char *key, char *dst, size_t n)
{
    const struct json *v = json_get(obj, key);
    if (v && v->kind == JSON_STRING)
        copy(dst, n, v->string);
    else if (v && v->kind == JSON_NUMBER)
        snprintf(dst, n, "%.0f", v->number);
    else
        dst[0] = 0;
}

static void read_op(const struct json *e, struct summary_op *op, const char *name)
{
    copy(op->operation, sizeof op->operation, name ? name : json_str(e, "operation"));
    copy(op->communicator, sizeof op->communicator, json_str(e, "communicator"));
    op->comm_size = (long long)json_num(e, "communicator_size", 0);
    op->calls = json_num(e, "calls", 0);
    op->seconds = json_num(e, "seconds", 0);
}

static int read_lists(const struct json *root, struct summary_record *r, char *why, size_t n)
{
    const struct json *ops = json_get(root, "operations");
    if (ops && ops->kind == JSON_OBJECT)
        for (const struct json *m = ops->child; m && r->n_ops < SUMMARY_MAX_OPS; m = m->next)
            read_op(m, &r->ops[r->n_ops++], m->key);
    const struct json *top = json_get(root, "top_operations");
    for (const struct json *e = top && top->kind == JSON_ARRAY ? top->child : NULL;
         e && r->n_top < SUMMARY_MAX_TOP; e = e->next)
        read_op(e, &r->top[r->n_top++], NULL);
    const struct json *bins = json_get(root, "message_sizes");
    for (const struct json *e = bins && bins->kind == JSON_ARRAY ? bins->child : NULL; e;
         e = e->next) {
        if (r->n_bins == SUMMARY_MAX_BINS) {
            snprintf(why, n, "more than %d message-size bins", SUMMARY_MAX_BINS);
            return -1;
        }
        struct summary_bin *b = &r->bins[r->n_bins++];
        b->min_bytes = json_num(e, "min_bytes", 0);
        b->max_bytes = json_num(e, "max_bytes", 0);
        b->messages = json_num(e, "messages", 0);
    }
    const struct json *sites = json_get(root, "top_call_sites");
    for (const struct json *e = sites && sites->kind == JSON_ARRAY ? sites->child : NULL;
         e && r->n_sites < SUMMARY_MAX_SITES; e = e->next) {
        struct summary_site *s = &r->sites[r->n_sites++];
        copy(s->operation, sizeof s->operation, json_str(e, "operation"));
        copy(s->file, sizeof s->file, json_str(e, "file"));
        copy(s->function, sizeof s->function, json_str(e, "function"));
        copy(s->object, sizeof s->object, json_str(e, "object"));
        s->line = (long long)json_num(e, "line", 0);
        s->seconds = json_num(e, "seconds", 0);
    }
    return 0;
}

/* The first number of the tree at V that is not finite (its key in *KEY), or NULL. */
static const struct json *not_finite(const struct json *v, const char **key)
{
    for (; v; v = v->next) {
        if (v->kind == JSON_NUMBER && !isfinite(v->number)) {
            *key = v->key ? v->key : "(an array element)";
            return v;
        }
        const struct json *bad = not_finite(v->child, key);
        if (bad)
            return bad;
    }
    return NULL;
}

/* Whether every figure lies where a job's can: the store's columns (BIGINT, and the sums
 * its questions make) keep them, and no reader's arithmetic overflows. */
#define MAX_COUNT 1e18   /* messages, bytes, calls: an exabyte */
#define MAX_SECONDS 1e10 /* three centuries */
#define MAX_EPOCH 1e11   /* the year 5138 */
#define MAX_RANKS 1e9
static int in_range(const struct summary_record *r, char *why, size_t n)
{
    struct {
        const char *name;
        double v, lo, hi;
    } f[] = {
        {"ranks", (double)r->ranks, 1, MAX_RANKS},
        {"ranks_measured", (double)r->ranks_measured, 0, MAX_RANKS},
        {"nodes", (double)r->nodes, 0, MAX_RANKS},
        {"ranks_per_node.min", (double)r->rpn_min, 0, MAX_RANKS},
        {"ranks_per_node.max", (double)r->rpn_max, 0, MAX_RANKS},
        {"job.uid", (double)r->uid, 0, 4294967295.0},
        {"start_epoch", r->start_epoch, 0, MAX_EPOCH},
        {"end_epoch", r->end_epoch, 0, MAX_EPOCH},
        {"run_seconds", r->run_seconds, 0, MAX_SECONDS},
        {"mpi_seconds", r->mpi_seconds, 0, MAX_SECONDS * MAX_RANKS},
        {"mpi_share", r->mpi_share, 0, 1e6},
        {"efficiency.load_balance", r->load_balance, -1, 1e6},
        {"efficiency.communication_efficiency", r->comm_efficiency, -1, 1e6},
        {"efficiency.parallel_efficiency", r->parallel_efficiency, -1, 1e6},
        {"point_to_point.messages", r->p2p_messages, 0, MAX_COUNT},
        {"point_to_point.bytes", r->p2p_bytes, 0, MAX_COUNT},
        {"point_to_point.within_hosts.messages", r->within_messages, 0, MAX_COUNT},
        {"point_to_point.within_hosts.bytes", r->within_bytes, 0, MAX_COUNT},
        {"point_to_point.between_hosts.messages", r->between_messages, 0, MAX_COUNT},
        {"point_to_point.between_hosts.bytes", r->between_bytes, 0, MAX_COUNT},
        {"other_operations_seconds", r->other_ops_seconds, 0, MAX_SECONDS * MAX_RANKS},
    };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (!(f[i].v >= f[i].lo && f[i].v <= f[i].hi)) {
            snprintf(why, n, "out of range: '%s' is %g (a job's lies in [%g, %g])", f[i].name,
                     f[i].v, f[i].lo, f[i].hi);
            return 0;
        }
    const struct summary_op *lists[] = {r->ops, r->top};
    const int counts[] = {r->n_ops, r->n_top};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < counts[l]; i++) {
            const struct summary_op *op = &lists[l][i];
            if (!(op->calls >= 0 && op->calls <= MAX_COUNT && op->seconds >= 0 &&
                  op->seconds <= MAX_SECONDS * MAX_RANKS && op->comm_size >= 0 &&
                  op->comm_size <= MAX_RANKS)) {
                snprintf(why, n, "out of range: operation '%s' (calls %g, seconds %g)",
                         op->operation, op->calls, op->seconds);
                return 0;
            }
        }
    for (int i = 0; i < r->n_bins; i++) {
        const struct summary_bin *b = &r->bins[i];
        if (!(b->min_bytes >= 0 && b->min_bytes <= MAX_COUNT && b->max_bytes >= 0 &&
              b->max_bytes <= MAX_COUNT && b->messages >= 0 && b->messages <= MAX_COUNT)) {
            snprintf(why, n, "out of range: message_sizes[%d]", i);
            return 0;
        }
    }
    for (int i = 0; i < r->n_sites; i++) {
        const struct summary_site *c = &r->sites[i];
        if (!(c->line >= 0 && c->line <= 2147483647LL && c->seconds >= 0 &&
              c->seconds <= MAX_SECONDS * MAX_RANKS)) {
            snprintf(why, n, "out of range: top_call_sites[%d]", i);
            return 0;
        }
    }
    return 1;
}

int summary_record_read(const char *text, size_t len, struct summary_record *r, char *why, size_t n)
{
    memset(r, 0, sizeof *r);
    size_t bad_at;
    if (!lens_utf8_valid(text, len, &bad_at)) { /* RFC 8259: JSON text is UTF-8 */
        snprintf(why, n, "not UTF-8: byte 0x%02x at byte %zu", (unsigned char)text[bad_at], bad_at);
        return -1;
    }
    char err[160];
    struct json *root = json_parse(text, len, err, sizeof err);
    if (!root) {
        snprintf(why, n, "not JSON: %s", err);
        return -1;
    }
    int rc = -1;
    const char *bad_key;
    if (not_finite(root, &bad_key)) {
        snprintf(why, n, "out of range: '%.64s' is not a finite number", bad_key);
        goto out;
    }
    const char *schema = json_str(root, "schema");
    double version = json_num(root, "version", 0);
    const struct json *job = json_get(root, "job"), *program = json_get(root, "program");
    if (root->kind != JSON_OBJECT || !schema || strcmp(schema, "mpilens-summary") != 0) {
        snprintf(why, n, "not an mpilens summary record (no \"schema\": \"mpilens-summary\")");
        goto out;
    }
    if (version < 1 || version != (int)version) {
        snprintf(why, n, "'version' is missing or not a whole number");
        goto out;
    }
    r->version = (int)version;
    if (r->version > SUMMARY_SCHEMA_VERSION) {
        snprintf(why, n, "record version %d is newer than this mpilens reads (%d): update mpilens",
                 r->version, SUMMARY_SCHEMA_VERSION);
        rc = -2;
        goto out;
    }
    if (!job || job->kind != JSON_OBJECT || !json_str(job, "user") ||
        json_num(job, "uid", -1) < 0) {
        snprintf(why, n, "'job' has no user or uid");
        goto out;
    }
    id_text(job, "id", r->job_id, sizeof r->job_id);
    copy(r->run_id, sizeof r->run_id, json_str(job, "run_id"));
    id_text(job, "step", r->step, sizeof r->step);
    copy(r->job_name, sizeof r->job_name, json_str(job, "name"));
    copy(r->user, sizeof r->user, json_str(job, "user"));
    copy(r->account, sizeof r->account, json_str(job, "account"));
    copy(r->partition, sizeof r->partition, json_str(job, "partition"));
    copy(r->cluster, sizeof r->cluster, json_str(job, "cluster"));
    r->uid = (long long)json_num(job, "uid", -1);
    copy(r->program, sizeof r->program, json_str(program, "path"));
    copy(r->build_id, sizeof r->build_id, json_str(program, "build_id"));
    copy(r->python_script, sizeof r->python_script, json_str(program, "python_script"));
    if (!r->program[0]) {
        snprintf(why, n, "'program' has no path");
        goto out;
    }
    copy(r->app, sizeof r->app, base_name(r->python_script[0] ? r->python_script : r->program));
    const struct json *mpi = json_get(root, "mpi");
    copy(r->mpi_library, sizeof r->mpi_library, json_str(mpi, "library"));
    copy(r->mpi_standard, sizeof r->mpi_standard, json_str(mpi, "standard"));
    double v;
    if (need_num(root, "ranks", &v, why, n))
        goto out;
    r->ranks = (long long)v;
    r->ranks_measured = (long long)json_num(root, "ranks_measured", v);
    r->nodes = (long long)json_num(root, "nodes", 1);
    const struct json *rpn = json_get(root, "ranks_per_node");
    r->rpn_min = (long long)json_num(rpn, "min", 0);
    r->rpn_max = (long long)json_num(rpn, "max", 0);
    copy(r->first_host, sizeof r->first_host, json_str(root, "first_host"));
    copy(r->clock, sizeof r->clock, json_str(root, "clock"));
    copy(r->ended, sizeof r->ended, json_str(root, "ended"));
    if (need_num(root, "start_epoch", &r->start_epoch, why, n) ||
        need_num(root, "run_seconds", &r->run_seconds, why, n) ||
        need_num(root, "mpi_seconds", &r->mpi_seconds, why, n))
        goto out;
    r->end_epoch = json_num(root, "end_epoch", r->start_epoch + r->run_seconds);
    r->mpi_share = json_num(root, "mpi_share", 0);
    if (r->ranks < 1 || r->run_seconds < 0 || r->mpi_seconds < 0) {
        snprintf(why, n, "'ranks', 'run_seconds' or 'mpi_seconds' out of range");
        goto out;
    }
    const struct json *eff = json_get(root, "efficiency");
    r->load_balance = opt_num(eff, "load_balance");
    r->comm_efficiency = opt_num(eff, "communication_efficiency");
    r->parallel_efficiency = opt_num(eff, "parallel_efficiency");
    const struct json *p2p = json_get(root, "point_to_point");
    r->p2p_messages = json_num(p2p, "messages", 0);
    r->p2p_bytes = json_num(p2p, "bytes", 0);
    r->within_messages = json_num(json_get(p2p, "within_hosts"), "messages", 0);
    r->within_bytes = json_num(json_get(p2p, "within_hosts"), "bytes", 0);
    r->between_messages = json_num(json_get(p2p, "between_hosts"), "messages", 0);
    r->between_bytes = json_num(json_get(p2p, "between_hosts"), "bytes", 0);
    r->other_ops_seconds = json_num(root, "other_operations_seconds", 0);
    if (read_lists(root, r, why, n) || !in_range(r, why, n))
        goto out;
    /* identity: a Slurm step by cluster, job, step and start (a requeued job starts
     * again); outside Slurm the host and start of rank 0; and the run's own identifier,
     * made at MPI_Init (job.run_id: two runs started in one second are
     * two jobs; a record without one keeps the key it always had) */
    int at = snprintf(r->key, sizeof r->key, "%s|%s|%s|%s|%s|%.3f", r->user, r->cluster, r->job_id,
                      r->step, r->job_id[0] ? "" : r->first_host, r->start_epoch);
    if (r->run_id[0] && at > 0 && (size_t)at < sizeof r->key)
        snprintf(r->key + at, sizeof r->key - (size_t)at, "|%s", r->run_id);
    rc = 0;
out:
    json_free(root);
    return rc;
}
