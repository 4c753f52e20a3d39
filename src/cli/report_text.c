/* SPDX-License-Identifier: BSD-3-Clause */
/* report_text.c: `mpilens report` as text tables (fitting 100 columns) and as CSV. */
#include <string.h>

#include "comm_letters.h"
#include "pop_run.h"
#include "report.h"

void report_bytes(long long bytes, char *out, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%lld B", bytes);
    else
        snprintf(out, len, "%.1f %s", v, units[u]);
}

static void short_size(long long v, char *out, size_t len)
{
    if (v >= 1 << 30 && v % (1 << 30) == 0)
        snprintf(out, len, "%lldG", v >> 30);
    else if (v >= 1 << 20 && v % (1 << 20) == 0)
        snprintf(out, len, "%lldM", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(out, len, "%lldK", v >> 10);
    else
        snprintf(out, len, "%lld", v);
}

void report_bucket_label(long long lo, long long hi, char *out, size_t len)
{
    char a[32], b[32];
    short_size(lo, a, sizeof a);
    if (hi >= 2147483647) {
        snprintf(out, len, "%s+", a);
        return;
    }
    short_size(hi, b, sizeof b);
    snprintf(out, len, "%s-%s", a, b);
}

/* "[0,1,...,7]" from "0,1,2,...,7" */
static void members_short(const char *members, char *out, size_t len)
{
    int n = 1;
    for (const char *p = members; *p; p++)
        n += *p == ',';
    if (n <= 4 || !*members) {
        snprintf(out, len, "[%s]", members);
        return;
    }
    const char *second = strchr(members, ',') + 1, *third = strchr(second, ','),
               *last = strrchr(members, ',') + 1;
    snprintf(out, len, "[%.*s,...,%s]", (int)(third - members), members, last);
}

void report_print_metadata(sqlite3 *db, FILE *out)
{
    static const char *const keys[][2] = {
        {"Run command", "command"}, {"Processes", "processes"},     {"MPI Library", "MPI"},
        {"Profile date", "date"},   {"mpilens version", "mpilens"}, {"Buckets", "bucket bounds"},
        {"Slurm job", "Slurm job"}, {"Slurm step", "Slurm step"}};
    fprintf(out, "== Run\n");
    char value[8192];
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (rundb_metadata_get(db, keys[i][0], value, sizeof value))
            fprintf(out, "  %-15s %.80s\n", keys[i][1], value);
}

/* The overall times, on lines that add up: the run (from the end of MPI_Init to the start of
 * MPI_Finalize), the MPI time within it and its share of it; MPI_Init and MPI_Finalize (the
 * library's start-up, often most of a short run) on a line of their own, left out of both,
 * as mpiP counts it. */
struct overall {
    double max_between, max_mpi, sum_between, sum_mpi, max_start, sum_start;
    int n, rank_between, rank_mpi, rank_start;
};

/* The largest V so far in *MAX, and its RANK in *AT (the last of equals). */
static void keep_max(double v, int rank, double *max, int *at)
{
    if (v >= *max) {
        *max = v;
        *at = rank;
    }
}

static void add_rank(int rank, double exec, double mpi_all, double start, void *ctx)
{
    struct overall *o = ctx;
    double mpi = mpi_all - start, between = exec - start;
    if (mpi < 0)
        mpi = 0;
    if (between < 0)
        between = 0;
    keep_max(between, rank, &o->max_between, &o->rank_between);
    keep_max(mpi, rank, &o->max_mpi, &o->rank_mpi);
    keep_max(start, rank, &o->max_start, &o->rank_start);
    o->sum_between += between;
    o->sum_mpi += mpi;
    o->sum_start += start;
    o->n++;
}

void report_print_overall(sqlite3 *db, const struct report_query *q, FILE *out)
{
    struct overall o = {.rank_between = -1, .rank_mpi = -1, .rank_start = -1};
    rundb_rank_times(db, q->rank, add_rank, &o);
    if (o.n == 0)
        return;
    int n = o.n;
    fprintf(out, "\n== Overall (%d rank%s)\n", n, n > 1 ? "s" : "");
    /* a run that did not reach MPI_Finalize everywhere: its ranks' time ends where each
     * stopped (the run's metadata says how it ended) */
    char ending[512];
    int incomplete = rundb_metadata_get(db, "Incomplete", ending, sizeof ending);
    fprintf(out, "  run             max %.6f s (rank %d), average %.6f s, %s\n", o.max_between,
            o.rank_between, o.sum_between / n,
            incomplete ? "MPI_Init to where each rank stopped" : "MPI_Init to MPI_Finalize");
    if (incomplete)
        fprintf(out, "  ended           %s\n", ending);
    fprintf(out, "  MPI time        max %.6f s (rank %d), average %.6f s\n", o.max_mpi, o.rank_mpi,
            o.sum_mpi / n);
    /* the MPI share (pop_run.h): of ranks x the run's length; a rank's, of the run's length */
    fprintf(out, "  MPI share       %.2f %% of ranks x the run, rank %d most: %.2f %% of the run\n",
            100 * pop_mpi_share(o.sum_mpi, n, o.max_between), o.rank_mpi,
            100 * pop_mpi_share(o.max_mpi, 1, o.max_between));
    fprintf(out, "  Init+Finalize   max %.6f s (rank %d), average %.6f s, outside the run\n",
            o.max_start, o.rank_start, o.sum_start / n);
    char hosts[1024];
    int nhosts = rundb_host_summary(db, hosts, sizeof hosts);
    if (nhosts > 1) { /* one host: nothing to say; many: the first that fit a line */
        char *cut = strlen(hosts) > 60 ? hosts + 60 : NULL;
        while (cut && cut > hosts && strncmp(cut, ", ", 2) != 0)
            cut--;
        if (cut && cut > hosts)
            snprintf(cut, sizeof hosts - (size_t)(cut - hosts), ", ...");
        fprintf(out, "  hosts           %d: %s\n", nhosts, hosts);
    }
}

static void print_row(const struct rundb_profile_cell *r, int with_comm, FILE *out)
{
    char bucket[32], volume[32];
    report_bucket_label(r->bucket_min, r->bucket_max, bucket, sizeof bucket);
    report_bytes(r->volume, volume, sizeof volume);
    if (with_comm)
        fprintf(out, "  %-10.10s", r->comm);
    fprintf(out, "  %-20.20s %-11s %9lld %10.6f %10.6f %10.6f %9s\n", r->op, bucket, r->calls,
            r->max_time, r->avg_time, r->longest, volume);
}

static void print_header(int with_comm, FILE *out)
{
    if (with_comm)
        fprintf(out, "  %-10s", "COMM");
    fprintf(out, "  %-20s %-11s %9s %10s %10s %10s %9s\n", "OPERATION", "BUCKET", "CALLS",
            "MAX RANK s", "AVG RANK s", "LONGEST s", "VOLUME");
}

/* What the columns mean, printed once under the tables (report --help says it too). */
static void print_legend(const struct report_query *q, FILE *out)
{
    if (q->rank >= 0)
        fprintf(out, "\nCALLS: this rank's own calls.\n");
    else
        fprintf(out, "\nCALLS: summed over ranks; a collective counted once (divided by the "
                     "communicator's\n  size), a Sendrecv once per exchange (halved).\n");
    fprintf(out, "MAX RANK / AVG RANK: a rank's total time in these calls, largest and average "
                 "over ranks.\nLONGEST: the longest single call. VOLUME: bytes sent, summed over "
                 "ranks.\n");
}

/* The key to the communicators' names shown (LETTERS), folded to fit 80 columns. */
static void print_names_key(const char *letters, FILE *out)
{
    if (!letters[0])
        return;
    char key[2048];
    lens_comm_letters_key(letters, key, sizeof key);
    fputs("NAMES: LETTER ROOT.COUNTER: the creating call, the world rank of the communicator's\n"
          "  rank 0, that rank's count of communicators made before it (docs/database.md):\n",
          out);
    int col = 0;
    for (char *item = strtok(key, ","); item; item = strtok(NULL, ",")) {
        while (*item == ' ')
            item++;
        int len = (int)strlen(item);
        if (col && col + len + 2 > 78) {
            fputs(",\n", out);
            col = 0;
        } else if (col) {
            fputs(", ", out);
            col += 2;
        }
        if (!col) {
            fputs("  ", out);
            col = 2;
        }
        fputs(item, out);
        col += len;
    }
    fputs(".\n", out);
}

void report_print_tables(const struct report_query *q, const struct report_rows *rows, FILE *out)
{
    if (rows->count == 0) {
        fprintf(out, "\n(no profile rows match the filters)\n");
        return;
    }
    if (q->top > 0) {
        fprintf(out, "\n== Top %d by %s (MPI_Init and MPI_Finalize apart: Init+Finalize above)\n",
                q->top, q->sort);
        print_header(1, out);
        char shown[64] = "";
        for (int i = 0; i < rows->count; i++) {
            print_row(&rows->rows[i], 1, out);
            lens_comm_letters_add(shown, rows->rows[i].comm);
        }
        print_legend(q, out);
        print_names_key(shown, out);
        return;
    }
    char letters[64] = "";
    for (int i = 0; i < rows->count; i++) {
        const struct rundb_profile_cell *r = &rows->rows[i];
        lens_comm_letters_add(letters, r->comm);
        if (i == 0 || strcmp(r->comm, rows->rows[i - 1].comm) != 0) {
            long long volume = 0;
            for (int j = i; j < rows->count && strcmp(rows->rows[j].comm, r->comm) == 0; j++)
                volume += rows->rows[j].volume;
            char members[128], vol[32];
            members_short(r->members, members, sizeof members);
            report_bytes(volume, vol, sizeof vol);
            fprintf(out, "\n== Communicator %s  size %d  ranks %s  volume %s\n", r->comm,
                    r->comm_size, members, vol);
            print_header(0, out);
        }
        print_row(r, 0, out);
    }
    print_legend(q, out);
    print_names_key(letters, out);
}

void report_print_csv(const struct report_query *q, const struct report_rows *rows, FILE *out)
{
    (void)q;
    fprintf(out, "comm,comm_size,ranks,operation,kind,bucket,bucket_min,bucket_max,calls,"
                 "max_time_s,avg_time_s,total_time_s,volume_bytes,longest_call_s\n");
    for (int i = 0; i < rows->count; i++) {
        const struct rundb_profile_cell *r = &rows->rows[i];
        fprintf(out, "%s,%d,", r->comm, r->comm_size);
        for (const char *m = r->members; *m; m++) /* ranks space-separated: no quoting */
            fputc(*m == ',' ? ' ' : *m, out);
        fprintf(out, ",%s,%s,%d,%lld,%lld,%lld,%.9f,%.9f,%.9f,%lld,%.9f\n", r->op, r->kind,
                r->bucket, r->bucket_min, r->bucket_max, r->calls, r->max_time, r->avg_time,
                r->total_time, r->volume, r->longest);
    }
}
