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
#include "record_sections.h"
#include "record_text.h"
#include "sum_record.h"

#define TOP 5
#define TOP_OPERATIONS 20

static void program(struct record_text *j, const struct sum_program *p)
{
    record_text_open(j, "program", '{');
    record_text_string(j, "path", p->path);
    record_text_string(j, "build_id", p->build_id[0] ? p->build_id : NULL);
    record_text_string(j, "python_script", p->script[0] ? p->script : NULL);
    record_text_close(j, '}');
    record_text_open(j, "mpi", '{');
    record_text_string(j, "library", p->library);
    record_text_string(j, "standard", p->mpi_version);
    record_text_close(j, '}');
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

static void operations(struct record_text *j, const struct sum_merged *m)
{
    const struct sum_op_row *order[SUM_MAX_ROWS];
    for (int i = 0; i < m->nrows; i++)
        order[i] = &m->rows[i];
    qsort(order, (size_t)m->nrows, sizeof *order, by_seconds);
    record_text_open(j, "top_operations", '[');
    for (int i = 0; i < m->nrows && i < TOP; i++) {
        char buf[64];
        record_text_open(j, NULL, '{');
        record_text_string(j, "operation", sum_op_names[order[i]->op]);
        record_text_string(j, "communicator", comm_name(order[i]->comm_size, buf, sizeof buf));
        record_text_int(j, "communicator_size",
                        order[i]->comm_size == SUM_COMM_WORLD ? (int64_t)m->t.ranks
                        : order[i]->comm_size > 0             ? order[i]->comm_size
                                                              : 0);
        record_text_uint(j, "calls", order[i]->calls);
        record_text_number(j, "seconds", order[i]->seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, ']');
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
    record_text_open(j, "operations", '{');
    for (int i = 0; i < n; i++) {
        if (i >= TOP_OPERATIONS) {
            rest += by_op[i]->seconds;
            continue;
        }
        record_text_open(j, sum_op_names[by_op[i]->op], '{');
        record_text_uint(j, "calls", by_op[i]->calls);
        record_text_number(j, "seconds", by_op[i]->seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, '}');
    record_text_number(j, "other_operations_seconds", rest);
}

static void sites(struct record_text *j, const struct sum_merged *m)
{
    struct lens_site_namer *namer = m->nsites > 0 ? lens_site_namer_new() : NULL;
    record_text_open(j, "top_call_sites", '[');
    for (int i = 0; i < m->nsites && i < TOP; i++) {
        const struct sum_site_row *s = &m->sites[i];
        struct lens_site_name n;
        lens_site_name(namer, s->path, s->offset, &n);
        record_text_open(j, NULL, '{');
        record_text_string(j, "operation", sum_op_names[s->op]);
        record_text_string(j, "file", n.file[0] ? n.file : NULL);
        record_text_int(j, "line", n.line);
        record_text_string(j, "function", n.function);
        record_text_string(j, "object", strncmp(s->path, "python:", 7) == 0 ? NULL : s->path);
        record_text_number(j, "seconds", s->seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, ']');
    lens_site_namer_free(namer);
}

static void messages(struct record_text *j, const struct sum_merged *m)
{
    const struct sum_totals *t = &m->t;
    record_text_open(j, "point_to_point", '{');
    record_text_uint(j, "messages", t->messages[0] + t->messages[1]);
    record_text_uint(j, "bytes", t->bytes[0] + t->bytes[1]);
    record_text_open(j, "within_hosts", '{');
    record_text_uint(j, "messages", t->messages[1]);
    record_text_uint(j, "bytes", t->bytes[1]);
    record_text_close(j, '}');
    record_text_open(j, "between_hosts", '{');
    record_text_uint(j, "messages", t->messages[0]);
    record_text_uint(j, "bytes", t->bytes[0]);
    record_text_close(j, '}');
    record_text_close(j, '}');
    record_text_open(j, "message_sizes", '[');
    for (int b = 1; b < SUM_BINS; b++)
        if (t->bins[b]) {
            record_text_open(j, NULL, '{');
            record_text_uint(j, "min_bytes", b == 1 ? 0 : 1ull << (b - 1));
            record_text_uint(j, "max_bytes", b == 64 ? UINT64_MAX : (1ull << b) - 1);
            record_text_uint(j, "messages", t->bins[b]);
            record_text_close(j, '}');
        }
    record_text_close(j, ']');
}

int sum_record_text(const struct sum_merged *m, const struct sum_program *p, int ranks,
                    double start, double end, const char *ended, char *text)
{
    const struct sum_totals *t = &m->t;
    struct record_text j = {.text = text, .cap = SUM_RECORD_MAX};
    record_text_open(&j, NULL, '{');
    record_text_string(&j, "schema", "mpilens-summary");
    record_text_int(&j, "version", SUM_SCHEMA_VERSION);
    record_section_job(&j, p->user, p->uid);
    program(&j, p);
    record_text_int(&j, "ranks", ranks);
    record_text_uint(&j, "ranks_measured", t->ranks); /* fewer when the job did not finalize */
    record_text_uint(&j, "nodes", t->hosts);
    record_text_open(&j, "ranks_per_node", '{');
    record_text_int(&j, "min", t->host_min);
    record_text_int(&j, "max", t->host_max);
    record_text_close(&j, '}');
    record_text_string(&j, "first_host", p->host);
    record_section_span(&j, start, end);
    double T = t->elapsed_max, mean_useful = t->ranks ? t->useful_sum / (double)t->ranks : 0;
    record_text_number(&j, "run_seconds", T);
#if defined(__x86_64__)
    /* a counter whose rate varies is read at its average rate over the run */
    record_text_string(&j, "clock", sum_use_tsc ? "tsc" : "tsc-varying-rate");
#else
    record_text_string(&j, "clock", "monotonic");
#endif
    record_text_number(&j, "mpi_seconds", t->mpi_sum);
    record_text_number(&j, "mpi_share",
                       T > 0 && t->ranks ? t->mpi_sum / (T * (double)t->ranks) : 0);
    record_text_open(&j, "efficiency", '{');
    record_text_number(&j, "load_balance", t->useful_max > 0 ? mean_useful / t->useful_max : 1);
    record_text_number(&j, "communication_efficiency", T > 0 ? t->useful_max / T : 1);
    record_text_number(&j, "parallel_efficiency", T > 0 ? mean_useful / T : 1);
    record_text_close(&j, '}');
    operations(&j, m);
    sites(&j, m);
    messages(&j, m);
    record_text_number(&j, "call_sites_unsampled_seconds", t->sites_dropped);
    record_text_uint(&j, "operation_rows_dropped", t->rows_dropped);
    record_text_string(&j, "ended", ended);
    record_text_close(&j, '}');
    return j.failed ? -1 : 0;
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
