/* summary_record.c: a summary.json record read into struct summary_record (summary_record.h): the
 * schema name and version checked, the fields the store needs required, strings truncated
 * to their columns, the lists bounded. The application's name is the Python script's last
 * component for a Python job, else the program's.
 */
#include "summary_record.h"

#include <stdio.h>
#include <string.h>

#include "record_json.h"

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
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

int summary_record_read(const char *text, size_t len, struct summary_record *r, char *why, size_t n)
{
    memset(r, 0, sizeof *r);
    char err[160];
    struct json *root = json_parse(text, len, err, sizeof err);
    if (!root) {
        snprintf(why, n, "not JSON: %s", err);
        return -1;
    }
    int rc = -1;
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
    if (read_lists(root, r, why, n))
        goto out;
    /* identity: a Slurm step by cluster, job, step and start (a requeued job starts
     * again); outside Slurm the host and start of rank 0 */
    snprintf(r->key, sizeof r->key, "%s|%s|%s|%s|%s|%.3f", r->user, r->cluster, r->job_id, r->step,
             r->job_id[0] ? "" : r->first_host, r->start_epoch);
    rc = 0;
out:
    json_free(root);
    return rc;
}
