/* SPDX-License-Identifier: BSD-3-Clause */
/* top_view.c: what `mpilens top` shows of a sample: the terminal screen (a bar per rank of
 * its MPI share in the last interval, ranks folded into groups when they do not fit; the
 * communicators and operations that took the most time in the interval and in the whole
 * run; bytes per second; the load balance and communication efficiency of the interval and
 * of the run so far; the busiest matrix cells; the trace's logs), drawn line by line
 * over the previous screen so that nothing flickers, and one JSON line per interval for
 * scripts and dashboards.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "top.h"

/* The POP metrics (docs/efficiency.md) of the last interval (LAST) or of the run so far:
 * load balance = mean useful time / the largest, communication efficiency = the largest
 * useful time / the longest rank's time; useful: outside MPI. 0 when nothing ran. */
static int efficiency(const struct top_sample *s, int last, double *balance, double *comm)
{
    double sum = 0, most = 0, longest = 0;
    for (int r = 0; r < s->nranks; r++) {
        const struct top_rank *k = &s->ranks[r];
        double time = last ? k->d_exec : k->run, useful = time - (last ? k->d_mpi : k->mpi);
        useful = useful > 0 ? useful : 0;
        sum += useful;
        most = useful > most ? useful : most;
        longest = time > longest ? time : longest;
    }
    if (s->nranks == 0 || most <= 0 || longest <= 0)
        return 0;
    *balance = sum / s->nranks / most;
    *comm = most / longest;
    return 1;
}

static const char *state_name(const struct top_rank *r)
{
    switch (r->state) {
    case TOP_NOT_YET:
        return "not yet";
    case TOP_RUNNING:
        return "running";
    case TOP_ENDED:
        return "ended";
    default:
        return r->how;
    }
}

static double share(double mpi, double exec)
{
    double s = exec > 0 ? mpi / exec : 0;
    return s < 0 ? 0 : s > 1 ? 1 : s;
}

/* One line, cut to COLS, cleared to its end (no flicker: nothing is erased first). */
static void line(FILE *out, int cols, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(FILE *out, int cols, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (cols > 0 && cols < (int)sizeof text)
        text[cols] = '\0';
    fprintf(out, "%s\033[K\n", text);
}

static enum top_sort sort_key;

static int by_key(const void *a, const void *b)
{
    const struct top_op *x = a, *y = b;
    double u = sort_key == TOP_BY_CALLS   ? (double)x->d_calls
               : sort_key == TOP_BY_BYTES ? (double)x->d_volume
                                          : x->d_time;
    double v = sort_key == TOP_BY_CALLS   ? (double)y->d_calls
               : sort_key == TOP_BY_BYTES ? (double)y->d_volume
                                          : y->d_time;
    if (u != v)
        return u < v ? 1 : -1;
    return (x->time < y->time) - (x->time > y->time);
}

static int by_interval_bytes(const void *a, const void *b)
{
    const struct top_cell *x = a, *y = b;
    return (x->d_bytes < y->d_bytes) - (x->d_bytes > y->d_bytes);
}

static void bar(char *out, int width, double fraction)
{
    int full = (int)lround(fraction * width);
    for (int i = 0; i < width; i++)
        out[i] = i < full ? '#' : '.';
    out[width] = '\0';
}

void top_draw(const struct top_sample *s, const char *dir, enum top_sort sort, int paused, int rows,
              int cols, FILE *out)
{
    if (rows < 12)
        rows = 12;
    if (cols < 60)
        cols = 60;
    char bytes[32], rate[32];
    fputs("\033[H", out);
    line(out, cols, "mpilens top  %s%s  t=%.1f s  %s  %s", s->program,
         s->nranks ? "" : "(no rank has saved yet)", s->at,
         s->ended ? "[job ended: final figures]"
         : paused ? "[paused]"
                  : "[running]",
         dir);
    report_bytes(s->d_bytes, bytes, sizeof bytes);
    report_bytes(s->interval > 0 ? (long long)(s->d_bytes / s->interval) : 0, rate, sizeof rate);
    char total[32];
    report_bytes(s->bytes, total, sizeof total);
    line(out, cols, "bytes: %s/s in the last %.1f s (%s), %s in all", rate, s->interval, bytes,
         total);
    double lb = 0, ce = 0, run_lb = 0, run_ce = 0;
    int shown = efficiency(s, 1, &lb, &ce) | efficiency(s, 0, &run_lb, &run_ce);
    if (shown) /* the interval's, then the run's so far (docs/efficiency.md) */
        line(out, cols, "efficiency: load balance %.2f, communication %.2f (run so far %.2f, %.2f)",
             lb, ce, run_lb, run_ce);
    /* the ranks: as many lines as a third of the screen allows, grouped beyond that */
    int room = (rows - 10 - shown) / 3 > 2 ? (rows - 10 - shown) / 3 : 2;
    int group = s->nranks > room ? (s->nranks + room - 1) / room : 1;
    int width = cols - 40 > 10 ? (cols - 40 > 50 ? 50 : cols - 40) : 10;
    line(out, cols, "ranks: MPI share in the last interval (whole run)");
    int used = 3 + shown;
    for (int first = 0; first < s->nranks; first += group) {
        int last = first + group < s->nranks ? first + group : s->nranks;
        double mpi = 0, exec = 0, all_mpi = 0, all_exec = 0;
        int running = 0, ended = 0, waiting = 0;
        for (int r = first; r < last; r++) {
            mpi += s->ranks[r].d_mpi, exec += s->ranks[r].d_exec;
            all_mpi += s->ranks[r].mpi, all_exec += s->ranks[r].exec;
            running += s->ranks[r].state == TOP_RUNNING;
            ended += s->ranks[r].state == TOP_ENDED;
            waiting += s->ranks[r].state == TOP_NOT_YET;
        }
        char label[32], b[64], state[96];
        if (group == 1) {
            snprintf(label, sizeof label, "%5d", first);
            snprintf(state, sizeof state, "%s", state_name(&s->ranks[first]));
        } else {
            snprintf(label, sizeof label, "%d-%d", first, last - 1);
            snprintf(state, sizeof state, "%d running, %d ended, %d not yet", running, ended,
                     waiting);
        }
        bar(b, width, share(mpi, exec));
        line(out, cols, " %11s %s %3.0f%% (%3.0f%%) %s", label, b, 100 * share(mpi, exec),
             100 * share(all_mpi, all_exec), state);
        used++;
    }
    /* the operations */
    struct top_op *ops = malloc((size_t)(s->nops ? s->nops : 1) * sizeof *ops);
    if (ops) {
        memcpy(ops, s->ops, (size_t)s->nops * sizeof *ops);
        sort_key = sort;
        qsort(ops, (size_t)s->nops, sizeof *ops, by_key);
    }
    line(out, cols, "%s", "");
    line(out, cols, "%-24s %12s %10s %12s %12s", "communicator operation",
         sort == TOP_BY_TIME ? "[time] s" : "time s", sort == TOP_BY_CALLS ? "[calls]" : "calls",
         sort == TOP_BY_BYTES ? "[bytes]" : "bytes", "whole run s");
    used += 2;
    int cells_room = s->ncells ? 4 : 0;
    for (int i = 0; ops && i < s->nops && used < rows - 3 - cells_room; i++, used++) {
        char name[80], vol[32];
        snprintf(name, sizeof name, "%s %s", ops[i].comm, ops[i].op);
        report_bytes(ops[i].d_volume, vol, sizeof vol);
        line(out, cols, "%-24.24s %12.4f %10lld %12s %12.3f", name, ops[i].d_time, ops[i].d_calls,
             vol, ops[i].time);
    }
    free(ops);
    if (s->ncells) {
        struct top_cell *cells = malloc((size_t)s->ncells * sizeof *cells);
        if (cells) {
            memcpy(cells, s->cells, (size_t)s->ncells * sizeof *cells);
            qsort(cells, (size_t)s->ncells, sizeof *cells, by_interval_bytes);
            char text[1024] = "busiest cells (p2p, last interval):";
            for (int i = 0; i < s->ncells && i < 4 && cells[i].d_bytes > 0; i++) {
                char b[32], one[96];
                report_bytes(cells[i].d_bytes, b, sizeof b);
                snprintf(one, sizeof one, "  %d->%d %s", cells[i].src, cells[i].dst, b);
                strncat(text, one, sizeof text - strlen(text) - 1);
            }
            line(out, cols, "%s", text);
            used++;
            free(cells);
        }
    }
    if (s->trace_bytes >= 0) {
        char b[32];
        report_bytes(s->trace_bytes, b, sizeof b);
        line(out, cols, "trace: %s of events logged", b);
        used++;
    }
    while (used < rows - 1) {
        line(out, cols, "%s", "");
        used++;
    }
    fprintf(out, "keys: t time  c calls  b bytes  p pause  q quit\033[K");
    fflush(out);
}

static void json_text(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    fputc('"', out);
}

void top_json(const struct top_sample *s, FILE *out)
{
    fprintf(out, "{\"t\":%.3f,\"interval\":%.3f,\"ended\":%s,\"program\":", s->at, s->interval,
            s->ended ? "true" : "false");
    json_text(s->program, out);
    fprintf(out, ",\"bytes\":%lld,\"bytes_total\":%lld,\"bytes_per_s\":%.0f,\"ranks\":[",
            s->d_bytes, s->bytes, s->interval > 0 ? s->d_bytes / s->interval : 0);
    for (int r = 0; r < s->nranks; r++) {
        fprintf(out, "%s{\"rank\":%d,\"state\":", r ? "," : "", r);
        json_text(state_name(&s->ranks[r]), out);
        fprintf(out, ",\"mpi_share\":%.4f,\"mpi_share_total\":%.4f}",
                share(s->ranks[r].d_mpi, s->ranks[r].d_exec),
                share(s->ranks[r].mpi, s->ranks[r].exec));
    }
    double lb = 0, ce = 0, run_lb = 0, run_ce = 0;
    efficiency(s, 1, &lb, &ce);
    efficiency(s, 0, &run_lb, &run_ce);
    fprintf(out,
            "],\"load_balance\":%.4f,\"communication_efficiency\":%.4f,\"load_balance_total\":"
            "%.4f,\"communication_efficiency_total\":%.4f",
            lb, ce, run_lb, run_ce);
    fputs(",\"ops\":[", out);
    struct top_op *ops = malloc((size_t)(s->nops ? s->nops : 1) * sizeof *ops);
    int n = 0;
    if (ops) {
        memcpy(ops, s->ops, (size_t)s->nops * sizeof *ops);
        sort_key = TOP_BY_TIME;
        qsort(ops, (size_t)s->nops, sizeof *ops, by_key);
        n = s->nops;
    }
    for (int i = 0; i < n; i++) {
        fputs(i ? ",{\"comm\":" : "{\"comm\":", out);
        json_text(ops[i].comm, out);
        fputs(",\"op\":", out);
        json_text(ops[i].op, out);
        fprintf(out, ",\"time\":%.6f,\"calls\":%lld,\"bytes\":%lld,\"time_total\":%.6f}",
                ops[i].d_time, ops[i].d_calls, ops[i].d_volume, ops[i].time);
    }
    free(ops);
    fputs("],\"cells\":[", out);
    for (int i = 0, first = 1; i < s->ncells; i++)
        if (s->cells[i].d_bytes) {
            fprintf(out, "%s{\"src\":%d,\"dst\":%d,\"bytes\":%lld}", first ? "" : ",",
                    s->cells[i].src, s->cells[i].dst, s->cells[i].d_bytes);
            first = 0;
        }
    fprintf(out, "],\"trace_log_bytes\":%lld}\n", s->trace_bytes);
    fflush(out);
}
