/* SPDX-License-Identifier: BSD-3-Clause */
/* report_efficiency.c: the POP metrics of a run from its profile (docs/efficiency.md).
 * A rank's useful time is the time between MPI_Init and MPI_Finalize it spent outside MPI
 * calls; the run's length is the longest rank's time between them. Load balance = average
 * useful time / largest useful time; communication efficiency = largest useful time / the
 * run's length; parallel efficiency = their product = average useful time / the run's
 * length (src/pop/pop_run.c computes them: the scaling table reads runs the same way). With
 * a trace analyzed (`mpilens analyze`, whose replay runs it again on an ideal network:
 * src/analyze), serialization and transfer efficiency from its metadata, and the
 * efficiencies of each phase (MPI_Pcontrol user region) from its time per rank. Printed in
 * the report (text), as `metric,value,phase` rows (--efficiency --csv).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pop_bounds.h"
#include "report.h"
#include "rundb_read.h"

/* Per phase: its ranks' useful time (the phase's time less the MPI time in it), and for
 * the ideal network their computing and ideal time there; the metrics at the end. */
struct phase_sums {
    double sum_useful, max_useful, max_seconds, max_computing, max_ideal;
};
struct phases {
    struct report_phase *all;
    struct phase_sums *sums;
    int n, failed;
};

static void add_phase_rank(const struct rundb_phase_rank *row, void *ctx)
{
    struct phases *p = ctx;
    int i = 0;
    while (i < p->n && strcmp(p->all[i].name, row->phase) != 0)
        i++;
    if (i == p->n && !p->failed) {
        struct report_phase *grown = realloc(p->all, (size_t)(p->n + 1) * sizeof *grown);
        if (grown)
            p->all = grown;
        struct phase_sums *more = realloc(p->sums, (size_t)(p->n + 1) * sizeof *more);
        if (more)
            p->sums = more;
        p->failed = !grown || !more;
        if (p->failed)
            return;
        memset(&p->all[i], 0, sizeof *p->all);
        memset(&p->sums[i], 0, sizeof *p->sums);
        snprintf(p->all[i].name, sizeof p->all->name, "%s", row->phase);
        p->n++;
    }
    if (p->failed)
        return;
    struct phase_sums *s = &p->sums[i];
    double useful = row->seconds > row->mpi ? row->seconds - row->mpi : 0;
    s->sum_useful += useful;
    s->max_useful = useful > s->max_useful ? useful : s->max_useful;
    s->max_seconds = row->seconds > s->max_seconds ? row->seconds : s->max_seconds;
    s->max_computing = row->computing > s->max_computing ? row->computing : s->max_computing;
    s->max_ideal = row->ideal > s->max_ideal ? row->ideal : s->max_ideal;
    p->all[i].ranks++;
}

int report_phase_efficiencies(sqlite3 *db, struct report_phase **out)
{
    struct phases p = {NULL, NULL, 0, 0};
    *out = NULL;
    if (rundb_phase_useful(db, add_phase_rank, &p) != 0 || p.failed) {
        free(p.all);
        free(p.sums);
        return -1;
    }
    for (int i = 0; i < p.n; i++) {
        struct report_phase *ph = &p.all[i];
        const struct phase_sums *s = &p.sums[i];
        ph->load_balance =
            pop_within_unit(s->max_useful > 0 ? s->sum_useful / ph->ranks / s->max_useful : 1);
        ph->communication =
            pop_within_unit(s->max_seconds > 0 ? s->max_useful / s->max_seconds : 1);
        ph->parallel = ph->load_balance * ph->communication;
        ph->length = s->max_seconds;
        /* on the ideal network: the largest computing / the phase's ideal length, and that
         * length / the real one (-1: a database without them) */
        ph->serialization = s->max_ideal > 0 ? s->max_computing / s->max_ideal : -1;
        ph->transfer = s->max_ideal > 0 && s->max_seconds > 0 ? s->max_ideal / s->max_seconds : -1;
        pop_replay_within(&ph->serialization, &ph->transfer);
    }
    free(p.sums);
    *out = p.all;
    return p.n;
}

/* The call sites with the most MPI time (Init and Finalize left out): where the
 * communication efficiency's loss was spent, in the application's source. */
struct top_sites {
    char text[3][96];
    int n;
    double total;
};

static void add_site(const struct rundb_callsite *c, void *ctx)
{
    struct top_sites *t = ctx;
    if (t->n >= 3 || !c->operation || t->total <= 0)
        return;
    snprintf(t->text[t->n++], sizeof t->text[0], "%s:%d %s %.0f %%", report_file_name(c->file),
             c->line, c->operation, 100 * c->time / t->total);
}

int report_top_sites(sqlite3 *db, char text[3][96])
{
    struct top_sites t = {.n = 0, .total = rundb_callsites_time(db, -1, RUNDB_PROGRAM_CALLS)};
    if (rundb_callsites_top(db, -1, 8, RUNDB_PROGRAM_CALLS, add_site, &t) != 0)
        return 0;
    memcpy(text, t.text, sizeof t.text);
    return t.n;
}

/* Where the MPI time goes: the time of each (communicator, operation) summed over ranks and
 * buckets, Init and Finalize left out (communication efficiency's largest contributors). */
struct spent {
    struct report_pair *pairs;
    int n, failed;
    double total;
};

static void add_total(const struct rundb_profile_total *t, void *ctx)
{
    struct spent *s = ctx;
    if (rundb_startup_op(t->op) || s->failed)
        return;
    s->total += t->time;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->pairs[i].comm, t->comm) == 0 && strcmp(s->pairs[i].op, t->op) == 0) {
            s->pairs[i].time += t->time;
            return;
        }
    struct report_pair *grown = realloc(s->pairs, (size_t)(s->n + 1) * sizeof *grown);
    if (!grown) {
        s->failed = 1;
        return;
    }
    s->pairs = grown;
    struct report_pair *p = &s->pairs[s->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->comm, sizeof p->comm, "%s", t->comm);
    snprintf(p->op, sizeof p->op, "%s", t->op);
    snprintf(p->kind, sizeof p->kind, "%s", t->kind ? t->kind : "");
    p->size = t->comm_size;
    p->time = t->time;
}

static int by_time(const void *a, const void *b)
{
    double x = ((const struct report_pair *)a)->time, y = ((const struct report_pair *)b)->time;
    return (x < y) - (x > y);
}

int report_mpi_pairs(sqlite3 *db, struct report_pair **out, double *total)
{
    struct spent s = {NULL, 0, 0, 0};
    *out = NULL;
    *total = 0;
    if (rundb_profile_totals(db, add_total, &s) != 0 || s.failed) {
        free(s.pairs);
        return -1;
    }
    qsort(s.pairs, (size_t)s.n, sizeof *s.pairs, by_time);
    *out = s.pairs;
    *total = s.total;
    return s.n;
}

/* The load balance among each sub-communicator's members; the three lowest are shown. */
struct balance {
    char comm[64];
    int size;
    double value;
};
struct balances {
    struct balance *all;
    int n, failed;
};

static void comm_balance(const char *comm, int size, double mean, double max, void *ctx)
{
    struct balances *b = ctx;
    struct balance *grown = b->failed ? NULL : realloc(b->all, (size_t)(b->n + 1) * sizeof *grown);
    if (!grown) {
        b->failed = 1;
        return;
    }
    b->all = grown;
    snprintf(b->all[b->n].comm, sizeof b->all[b->n].comm, "%s", comm);
    b->all[b->n].size = size;
    b->all[b->n++].value = max > 0 ? mean / max : 1;
}

static int by_balance(const void *a, const void *b)
{
    double x = ((const struct balance *)a)->value, y = ((const struct balance *)b)->value;
    return (x > y) - (x < y);
}

void report_print_efficiency(sqlite3 *db, FILE *out)
{
    struct pop_factors e;
    if (pop_run_factors(db, &e) != 0)
        return;
    fprintf(out, "\n== Efficiency (POP metrics: docs/efficiency.md)\n");
    fprintf(out,
            "  parallel efficiency      %.3f  average useful time / the run: load balance x "
            "communication\n",
            e.parallel);
    fprintf(out,
            "  load balance             %.3f  average useful time / the largest (rank %d, "
            "%.6f s)\n",
            e.load_balance, e.rank_useful, e.max_useful);
    fprintf(out,
            "  communication efficiency %.3f  largest useful time / the run (%.6f s); most "
            "MPI: rank %d\n",
            e.communication, e.run, e.rank_mpi);
    struct report_pair *pairs;
    double total;
    int npairs = report_mpi_pairs(db, &pairs, &total);
    if (npairs > 0 && total > 0) {
        fprintf(out, "  where the MPI time goes:");
        for (int i = 0; i < 3 && i < npairs; i++)
            fprintf(out, "%s %s %s %.0f %%", i ? "," : "", pairs[i].comm, pairs[i].op,
                    100 * pairs[i].time / total);
        fprintf(out, "\n");
    }
    free(pairs);
    char sites[3][96];
    int nsites = report_top_sites(db, sites);
    for (int i = 0; i < nsites; i++)
        fprintf(out, "%s%s%s", i ? ", " : "  call sites with the most MPI time: ", sites[i],
                i == nsites - 1 ? "\n" : "");
    struct balances within = {NULL, 0, 0};
    if (rundb_comm_useful(db, comm_balance, &within) == 0 && !within.failed && within.n > 0) {
        qsort(within.all, (size_t)within.n, sizeof *within.all, by_balance);
        fprintf(out, "  load balance within:");
        for (int i = 0; i < 3 && i < within.n; i++)
            fprintf(out, "%s %s %.2f (%d%s)", i ? "," : "", within.all[i].comm, within.all[i].value,
                    within.all[i].size, i ? "" : " ranks");
        fprintf(out, within.n > 3 ? "; the lowest of %d\n" : "\n", within.n);
    }
    free(within.all);
    if (e.serialization >= 0 && e.transfer >= 0) {
        fprintf(out,
                "  serialization efficiency %.3f  largest computing / the run on an ideal "
                "network (analyze)\n",
                e.serialization);
        fprintf(out,
                "  transfer efficiency      %.3f  the run on an ideal network / the real "
                "one (analyze)\n",
                e.transfer);
        if (e.transfer_replay > 1)
            fprintf(out,
                    "  (the replay's ideal run came out %.2f %% longer than the real one, which an "
                    "ideal network\n   cannot be: taken as long, transfer 1; docs/efficiency.md, "
                    "Within bounds)\n",
                    100 * (e.transfer_replay - 1));
    } else {
        fprintf(out, "  (serialization and transfer efficiency: trace the run and mpilens "
                     "analyze it)\n");
    }
    struct report_phase *phases;
    int nphases = report_phase_efficiencies(db, &phases);
    for (int i = 0; i < nphases; i++) {
        if (i == 0)
            fprintf(out,
                    "  per phase (MPI_Pcontrol regions; serialization and transfer from the "
                    "replay):\n    %-20s %8s %8s %6s %6s %8s %10s\n",
                    "PHASE", "PARALLEL", "BALANCE", "COMM", "SERIAL", "TRANSFER", "LENGTH s");
        fprintf(out, "    %-20.20s %8.3f %8.3f %6.3f", phases[i].name, phases[i].parallel,
                phases[i].load_balance, phases[i].communication);
        if (phases[i].serialization >= 0)
            fprintf(out, " %6.3f %8.3f", phases[i].serialization, phases[i].transfer);
        else
            fprintf(out, " %6s %8s", "-", "-");
        fprintf(out, " %10.6f\n", phases[i].length);
    }
    free(phases);
    fprintf(out, "  (useful time: between MPI_Init and MPI_Finalize, outside MPI calls)\n");
}

void report_print_efficiency_csv(sqlite3 *db, FILE *out)
{
    struct pop_factors e;
    fprintf(out, "metric,value,phase\n");
    if (pop_run_factors(db, &e) != 0)
        return;
    fprintf(out,
            "parallel_efficiency,%.6f,run\nload_balance,%.6f,run\n"
            "communication_efficiency,%.6f,run\n",
            e.parallel, e.load_balance, e.communication);
    if (e.serialization >= 0 && e.transfer >= 0)
        fprintf(out, "serialization_efficiency,%.6f,run\ntransfer_efficiency,%.6f,run\n",
                e.serialization, e.transfer);
    fprintf(out,
            "average_useful_seconds,%.6f,run\nmax_useful_seconds,%.6f,run\nrun_seconds,%.6f,"
            "run\nmpi_share,%.6f,run\n",
            e.average_useful, e.max_useful, e.run, e.mpi_share);
    struct report_phase *phases;
    int nphases = report_phase_efficiencies(db, &phases);
    for (int i = 0; i < nphases; i++) {
        static const char *const names[] = {"parallel_efficiency",      "load_balance",
                                            "communication_efficiency", "run_seconds",
                                            "serialization_efficiency", "transfer_efficiency"};
        double values[] = {phases[i].parallel, phases[i].load_balance,  phases[i].communication,
                           phases[i].length,   phases[i].serialization, phases[i].transfer};
        for (int m = 0; m < (phases[i].serialization >= 0 ? 6 : 4); m++) {
            fprintf(out, "%s,%.6f,", names[m], values[m]);
            lens_csv_field(out, phases[i].name);
            fputc('\n', out);
        }
    }
    free(phases);
}
