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
#include "sum_json.h"
#include "sum_record.h"

#define TOP 5
#define TOP_OPERATIONS 20

static void iso_time(double t, char *out, size_t len)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *env_or_null(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static void job(struct sum_json *j, const struct sum_program *p)
{
    sum_json_open(j, "job", '{');
    sum_json_string(j, "id", env_or_null("SLURM_JOB_ID"));
    sum_json_string(j, "step", env_or_null("SLURM_STEP_ID"));
    sum_json_string(j, "name", env_or_null("SLURM_JOB_NAME"));
    sum_json_string(j, "user", p->user);
    sum_json_int(j, "uid", p->uid);
    sum_json_string(j, "account", env_or_null("SLURM_JOB_ACCOUNT"));
    sum_json_string(j, "partition", env_or_null("SLURM_JOB_PARTITION"));
    sum_json_string(j, "cluster", env_or_null("SLURM_CLUSTER_NAME"));
    sum_json_close(j, '}');
}

static void program(struct sum_json *j, const struct sum_program *p)
{
    sum_json_open(j, "program", '{');
    sum_json_string(j, "path", p->path);
    sum_json_string(j, "build_id", p->build_id[0] ? p->build_id : NULL);
    sum_json_string(j, "python_script", p->script[0] ? p->script : NULL);
    sum_json_close(j, '}');
    sum_json_open(j, "mpi", '{');
    sum_json_string(j, "library", p->library);
    sum_json_string(j, "standard", p->mpi_version);
    sum_json_close(j, '}');
}

static const char *comm_name(int comm_size, char *buf, size_t len)
{
    switch (comm_size) {
    case SUM_COMM_WORLD:
        return "MPI_COMM_WORLD";
    case SUM_COMM_NONE:
        return NULL;
    case SUM_COMM_OTHER:
        return "other communicators";
    default:
        snprintf(buf, len, "communicators of %d ranks", comm_size);
        return buf;
    }
}

static int by_seconds(const void *a, const void *b)
{
    const struct sum_op_row *x = *(const struct sum_op_row *const *)a,
                            *y = *(const struct sum_op_row *const *)b;
    return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

static void operations(struct sum_json *j, const struct sum_merged *m)
{
    const struct sum_op_row *order[SUM_MAX_ROWS];
    for (int i = 0; i < m->nrows; i++)
        order[i] = &m->rows[i];
    qsort(order, (size_t)m->nrows, sizeof *order, by_seconds);
    sum_json_open(j, "top_operations", '[');
    for (int i = 0; i < m->nrows && i < TOP; i++) {
        char buf[64];
        sum_json_open(j, NULL, '{');
        sum_json_string(j, "operation", sum_op_names[order[i]->op]);
        sum_json_string(j, "communicator", comm_name(order[i]->comm_size, buf, sizeof buf));
        sum_json_int(j, "communicator_size",
                     order[i]->comm_size == SUM_COMM_WORLD ? (int64_t)m->t.ranks
                     : order[i]->comm_size > 0             ? order[i]->comm_size
                                                           : 0);
        sum_json_uint(j, "calls", order[i]->calls);
        sum_json_number(j, "seconds", order[i]->seconds);
        sum_json_close(j, '}');
    }
    sum_json_close(j, ']');
    /* the costliest operations whatever the communicator, for a site's tables (point-to-point
     * against collectives); the rest in one figure, so the record stays small */
    double per_op[SUM_OPS];
    uint64_t calls[SUM_OPS];
    memset(per_op, 0, sizeof per_op);
    memset(calls, 0, sizeof calls);
    for (int i = 0; i < m->nrows; i++) {
        per_op[m->rows[i].op] += m->rows[i].seconds;
        calls[m->rows[i].op] += m->rows[i].calls;
    }
    struct sum_op_row ops[SUM_OPS];
    const struct sum_op_row *by_op[SUM_OPS];
    int n = 0;
    for (int op = 0; op < SUM_OPS; op++)
        if (calls[op]) {
            ops[n] = (struct sum_op_row){op, 0, calls[op], per_op[op]};
            by_op[n] = &ops[n];
            n++;
        }
    qsort(by_op, (size_t)n, sizeof *by_op, by_seconds);
    double rest = 0;
    sum_json_open(j, "operations", '{');
    for (int i = 0; i < n; i++) {
        if (i >= TOP_OPERATIONS) {
            rest += by_op[i]->seconds;
            continue;
        }
        sum_json_open(j, sum_op_names[by_op[i]->op], '{');
        sum_json_uint(j, "calls", by_op[i]->calls);
        sum_json_number(j, "seconds", by_op[i]->seconds);
        sum_json_close(j, '}');
    }
    sum_json_close(j, '}');
    sum_json_number(j, "other_operations_seconds", rest);
}

static void sites(struct sum_json *j, const struct sum_merged *m)
{
    struct lens_site_namer *namer = m->nsites > 0 ? lens_site_namer_new() : NULL;
    sum_json_open(j, "top_call_sites", '[');
    for (int i = 0; i < m->nsites && i < TOP; i++) {
        const struct sum_site_row *s = &m->sites[i];
        struct lens_site_name n;
        lens_site_name(namer, s->path, s->offset, &n);
        sum_json_open(j, NULL, '{');
        sum_json_string(j, "operation", sum_op_names[s->op]);
        sum_json_string(j, "file", n.file[0] ? n.file : NULL);
        sum_json_int(j, "line", n.line);
        sum_json_string(j, "function", n.function);
        sum_json_string(j, "object", strncmp(s->path, "python:", 7) == 0 ? NULL : s->path);
        sum_json_number(j, "seconds", s->seconds);
        sum_json_close(j, '}');
    }
    sum_json_close(j, ']');
    lens_site_namer_free(namer);
}

static void messages(struct sum_json *j, const struct sum_merged *m)
{
    const struct sum_totals *t = &m->t;
    sum_json_open(j, "point_to_point", '{');
    sum_json_uint(j, "messages", t->messages[0] + t->messages[1]);
    sum_json_uint(j, "bytes", t->bytes[0] + t->bytes[1]);
    sum_json_open(j, "within_hosts", '{');
    sum_json_uint(j, "messages", t->messages[1]);
    sum_json_uint(j, "bytes", t->bytes[1]);
    sum_json_close(j, '}');
    sum_json_open(j, "between_hosts", '{');
    sum_json_uint(j, "messages", t->messages[0]);
    sum_json_uint(j, "bytes", t->bytes[0]);
    sum_json_close(j, '}');
    sum_json_close(j, '}');
    sum_json_open(j, "message_sizes", '[');
    for (int b = 1; b < SUM_BINS; b++)
        if (t->bins[b]) {
            sum_json_open(j, NULL, '{');
            sum_json_uint(j, "min_bytes", b == 1 ? 0 : 1ull << (b - 1));
            sum_json_uint(j, "max_bytes", b == 64 ? UINT64_MAX : (1ull << b) - 1);
            sum_json_uint(j, "messages", t->bins[b]);
            sum_json_close(j, '}');
        }
    sum_json_close(j, ']');
}

int sum_record_text(const struct sum_merged *m, const struct sum_program *p, int ranks,
                    double start, double end, const char *ended, char *text)
{
    const struct sum_totals *t = &m->t;
    struct sum_json j = {.text = text, .cap = SUM_RECORD_MAX};
    char when[32];
    sum_json_open(&j, NULL, '{');
    sum_json_string(&j, "schema", "mpilens-summary");
    sum_json_int(&j, "version", SUM_SCHEMA_VERSION);
    job(&j, p);
    program(&j, p);
    sum_json_int(&j, "ranks", ranks);
    sum_json_uint(&j, "ranks_measured", t->ranks); /* fewer when the job did not finalize */
    sum_json_uint(&j, "nodes", t->hosts);
    sum_json_open(&j, "ranks_per_node", '{');
    sum_json_int(&j, "min", t->host_min);
    sum_json_int(&j, "max", t->host_max);
    sum_json_close(&j, '}');
    sum_json_string(&j, "first_host", p->host);
    iso_time(start, when, sizeof when);
    sum_json_string(&j, "start", when);
    iso_time(end, when, sizeof when);
    sum_json_string(&j, "end", when);
    sum_json_epoch(&j, "start_epoch", start);
    sum_json_epoch(&j, "end_epoch", end);
    double T = t->elapsed_max, mean_useful = t->ranks ? t->useful_sum / (double)t->ranks : 0;
    sum_json_number(&j, "run_seconds", T);
#if defined(__x86_64__)
    /* a counter whose rate varies is read at its average rate over the run */
    sum_json_string(&j, "clock", sum_use_tsc ? "tsc" : "tsc-varying-rate");
#else
    sum_json_string(&j, "clock", "monotonic");
#endif
    sum_json_number(&j, "mpi_seconds", t->mpi_sum);
    sum_json_number(&j, "mpi_share", T > 0 && t->ranks ? t->mpi_sum / (T * (double)t->ranks) : 0);
    sum_json_open(&j, "efficiency", '{');
    sum_json_number(&j, "load_balance", t->useful_max > 0 ? mean_useful / t->useful_max : 1);
    sum_json_number(&j, "communication_efficiency", T > 0 ? t->useful_max / T : 1);
    sum_json_number(&j, "parallel_efficiency", T > 0 ? mean_useful / T : 1);
    sum_json_close(&j, '}');
    operations(&j, m);
    sites(&j, m);
    messages(&j, m);
    sum_json_number(&j, "call_sites_unsampled_seconds", t->sites_dropped);
    sum_json_uint(&j, "operation_rows_dropped", t->rows_dropped);
    sum_json_string(&j, "ended", ended);
    sum_json_close(&j, '}');
    return j.failed ? -1 : 0;
}

int sum_record_write(const char *dir, const char *name, const char *text, int keep_first, char *why,
                     size_t len)
{
    char tmp[4096], final[4096];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf(why, len, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t n = strlen(text), done = 0;
    while (done < n) {
        ssize_t w = write(fd, text + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(why, len, "cannot write %s: %s", tmp, w < 0 ? strerror(errno) : "no room");
            close(fd);
            unlink(tmp);
            return -1;
        }
        done += (size_t)w;
    }
    /* a partial record is written while the launcher may be killing the job: no fsync */
    if (write(fd, "\n", 1) != 1 || (!keep_first && fsync(fd) != 0) || close(fd) != 0) {
        snprintf(why, len, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (keep_first) { /* a partial record never replaces one already there */
        int rc = link(tmp, final);
        int err = errno;
        unlink(tmp);
        if (rc != 0 && err != EEXIST) {
            snprintf(why, len, "cannot link %s to %s: %s", tmp, final, strerror(err));
            return -1;
        }
        return 0;
    }
    if (rename(tmp, final) != 0) {
        snprintf(why, len, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void sum_record_spool_name(const struct sum_program *p, double start, char *out, size_t len)
{
    const char *id = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID"),
               *restart = getenv("SLURM_RESTART_COUNT");
    if (id && *id && restart && *restart && strcmp(restart, "0") != 0) /* a requeued job */
        snprintf(out, len, "%s.%s.%s.r%s.summary.json", id, step && *step ? step : "0", p->user,
                 restart);
    else if (id && *id)
        snprintf(out, len, "%s.%s.%s.summary.json", id, step && *step ? step : "0", p->user);
    else
        snprintf(out, len, "%s.%ld.%lld.summary.json", p->host, (long)getpid(), (long long)start);
}
