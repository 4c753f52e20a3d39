/* SPDX-License-Identifier: BSD-3-Clause */
/* place.c: `mpilens place DB`: a rank-to-core mapping that puts ranks that talk much
 * close together (TreeMatch, src/place/), from the monitor's matrix; its cost next to
 * packed, round-robin, random and Scotch mappings; an Open MPI rankfile, an MPICH host
 * list and a rank order for MPI_Comm_split keys.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* How this build's Open MPI takes a rankfile: Open MPI 5's mpirun (PRRTE) calls --rankfile
 * deprecated (a warning of 8 lines per run) and takes --map-by rankfile:file=FILE. */
#if defined(MPILENS_OMPI_MAJOR) && MPILENS_OMPI_MAJOR >= 5
#define RANKFILE_OPTION "--map-by rankfile:file="
#else
#define RANKFILE_OPTION "--rankfile "
#endif
#include "ompi_prof.h"
#include "triples.h"
#include "place.h"
#include "report.h"
#include "rundb.h"
#include "rundb_read.h"

static const char usage[] =
    "usage: mpilens place DB [options]\n"
    "\n"
    "Computes where each rank should run so that ranks that talk much share a package or a\n"
    "node (TreeMatch), from the matrix of a run monitored with `-m monitor`.\n"
    "\n"
    "  --topology T       run (default: the hosts the run ran on, each with the topology\n"
    "                     the monitor recorded there; this machine for a one-host run),\n"
    "                     this, an hwloc XML file, or an hwloc synthetic description\n"
    "                     such as \"node:4 package:2 core:4\"\n"
    "  --metric METRIC    bytes (default) or count\n"
    "  --kind KIND        all (default: p2p, coll and rma), p2p, coll or rma\n"
    "  --matrix FILE.csv  read src,dst,value lines instead of a database\n"
    "  --ompi-prof PREFIX read Open MPI monitoring's PREFIX.RANK.prof files (pml level:\n"
    "                     user and internal messages, collectives as the library sent them)\n"
    "  --oversubscribe    allow more ranks than cores (k ranks per core)\n"
    "  -o FILE            write FILE (Open MPI rankfile: mpirun " RANKFILE_OPTION "FILE),\n"
    "                     FILE.mpich\n"
    "                     (Hydra hosts, one line per rank: mpiexec -f FILE.mpich),\n"
    "                     FILE.slurm (one host per rank: SLURM_HOSTFILE=FILE.slurm srun\n"
    "                     --distribution=arbitrary) and FILE.order (split keys)\n"
    "  -h, --help         this text\n"
    "\n"
    "Cost = sum over rank pairs of traffic x tree distance (1: same package, ..., the number\n"
    "of levels: different nodes).\n";

struct options {
    const char *db, *topology, *metric, *kind, *csv, *output, *ompi;
    int oversubscribe;
    /* the run's hosts (monitor_hosts), rank 0's host's topology, whether all hosts agree */
    char hosts[64][64];
    int nhosts, same;
    char host_topology[512];
};

#define fail(...) cli_fail("place", __VA_ARGS__)

static int read_csv(const char *path, struct triples *t)
{
    char err[1024];
    if (triples_read_csv(path, t, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: place: %s\n", err);
        return 2;
    }
    return 0;
}

struct placed {
    struct triples *t;
    int count, bad;
};

static void add_cell(int src, int dst, long long messages, long long bytes, void *ctx)
{
    struct placed *p = ctx;
    if (!p->bad)
        p->bad = triples_add(p->t, src, dst, (double)(p->count ? messages : bytes)) != 0;
}

static int read_db(struct options *o, struct triples *t)
{
    char path[4096];
    sqlite3 *db;
    int rc = cli_open_db(o->db, "place", "monitor_matrix", "communication matrix", "monitor", &db,
                         path, sizeof path);
    if (rc)
        return rc;
    struct placed p = {t, strcmp(o->metric, "count") == 0, 0};
    char err[512];
    int failed = rundb_matrix_cells(db, o->kind, NULL, add_cell, &p, err, sizeof err);
    o->nhosts =
        rundb_run_hosts(db, o->hosts, 64, o->host_topology, sizeof o->host_topology, &o->same);
    int processes = rundb_matrix_ranks(db);
    if (processes > t->n && processes <= TRIPLES_MAX_RANKS)
        t->n = processes;
    int bad = p.bad || failed;
    rundb_close(db);
    if (bad)
        return fail("%s: monitor_matrix has a rank outside 0..1048575 or a negative value; the "
                    "database is damaged: record the run again",
                    path);
    if (t->count == 0)
        return fail("%s: the matrix is empty for this kind; nothing to place", path);
    return 0;
}

static int read_ompi(const struct options *o, struct triples *t)
{
    struct prof_entry *e;
    char err[1024];
    int ranks, n = ompi_prof_load(o->ompi, &e, &ranks, err, sizeof err);
    if (n == -2)
        return fail("%s", err);
    if (n < 0)
        return fail("--ompi-prof %s: no PREFIX.0.prof file; run Open MPI with --mca "
                    "pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca "
                    "pml_monitoring_filename PREFIX",
                    o->ompi);
    int bad = 0;
    for (int i = 0; i < n && !bad; i++)
        bad = triples_add(t, e[i].src, e[i].dst,
                          (double)(strcmp(o->metric, "count") == 0 ? e[i].count : e[i].bytes));
    if (ranks > t->n && ranks <= TRIPLES_MAX_RANKS)
        t->n = ranks;
    free(e);
    if (bad)
        return fail("--ompi-prof %s: a rank outside 0..1048575; are these Open MPI .prof files?",
                    o->ompi);
    return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->topology = "run";
    o->metric = "bytes";
    o->kind = "all";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--topology") == 0 && v)
            o->topology = argv[++i];
        else if (strcmp(a, "--metric") == 0 && v) {
            if (strcmp(v, "bytes") && strcmp(v, "count"))
                return fail("--metric '%s': use bytes or count", v);
            o->metric = argv[++i];
        } else if (strcmp(a, "--kind") == 0 && v) {
            if (strcmp(v, "all") && strcmp(v, "p2p") && strcmp(v, "coll") && strcmp(v, "rma"))
                return fail("--kind '%s': use all, p2p, coll or rma", v);
            o->kind = argv[++i];
        } else if (strcmp(a, "--matrix") == 0 && v)
            o->csv = argv[++i];
        else if (strcmp(a, "--ompi-prof") == 0 && v)
            o->ompi = argv[++i];
        else if (strcmp(a, "-o") == 0 && v)
            o->output = argv[++i];
        else if (strcmp(a, "--oversubscribe") == 0)
            o->oversubscribe = 1;
        else if (a[0] == '-')
            return fail("unknown or incomplete option '%s'%s; see `mpilens place --help`", a,
                        cli_option_hint(a, usage));
        else if (!o->db)
            o->db = a;
        else
            return fail("more than one database given ('%s'); give one", a);
    }
    return cli_need_input(o->db || o->csv || o->ompi, "place");
}

static int write_outputs(const char *path, const struct place_topo *t, const int *leaf, int n)
{
    char name[4096];
    FILE *rankfile = fopen(path, "w");
    snprintf(name, sizeof name, "%s.mpich", path);
    FILE *mpich = fopen(name, "w");
    snprintf(name, sizeof name, "%s.order", path);
    FILE *order = fopen(name, "w");
    snprintf(name, sizeof name, "%s.slurm", path);
    FILE *slurm = fopen(name, "w");
    if (!rankfile || !mpich || !order || !slurm)
        return fail("-o %s: cannot write the output files; choose a writable path", path);
    int *rank_at = malloc(t->leaves * sizeof *rank_at), next = 0;
    for (int i = 0; i < t->leaves; i++)
        rank_at[i] = -1;
    for (int r = 0; r < n; r++)
        rank_at[leaf[r]] = r;
    int *new_rank = malloc(n * sizeof *new_rank);
    for (int l = 0; l < t->leaves; l++)
        if (rank_at[l] >= 0)
            new_rank[rank_at[l]] = next++;
    fprintf(mpich, "# one line per rank, in rank order: mpiexec -f FILE (hydra); cores: "
                   "see the rankfile\n");
    fprintf(order, "# rank new_rank: use new_rank as the key of MPI_Comm_split to renumber\n");
    for (int r = 0; r < n; r++) {
        int host, package, core;
        place_coordinates(t, leaf[r], &host, &package, &core);
        const char *hostname = host < t->nhosts ? t->hosts[host] : "localhost";
        fprintf(rankfile, "rank %d=%s slot=%d:%d\n", r, hostname, package, core);
        fprintf(mpich, "%s:1\n", hostname);
        fprintf(slurm, "%s\n", hostname);
        fprintf(order, "%d %d\n", r, new_rank[r]);
    }
    free(rank_at);
    free(new_rank);
    /* a write that failed (a full disk) shows at the latest when the buffers go out */
    int bad = ferror(rankfile) | ferror(mpich) | ferror(order) | ferror(slurm);
    bad |= fclose(slurm) != 0;
    bad |= fclose(rankfile) != 0;
    bad |= fclose(mpich) != 0;
    bad |= fclose(order) != 0;
    if (bad) {
        int why = errno;
        unlink(path);
        snprintf(name, sizeof name, "%s.mpich", path);
        unlink(name);
        snprintf(name, sizeof name, "%s.order", path);
        unlink(name);
        snprintf(name, sizeof name, "%s.slurm", path);
        unlink(name);
        return fail("-o %s: writing the output files failed (%s); nothing was kept", path,
                    strerror(why));
    }
    printf("mpilens: wrote %s (mpirun " RANKFILE_OPTION "%s), %s.mpich (mpiexec -f), %s.slurm "
           "(SLURM_HOSTFILE, srun --distribution=arbitrary) and %s.order\n",
           path, path, path, path, path);
    return 0;
}

/* The topology asked for; "run": the run's hosts, each with the topology recorded on rank
 * 0's host (a level of hosts above it), or this machine for a run on
 * one host or without recorded hosts. */
static int load_topology(struct options *o, struct place_topo *t, char *err, size_t len)
{
    if (strcmp(o->topology, "run") != 0)
        return place_topo_load(t, o->topology, err, len);
    if (o->nhosts < 2 || !o->host_topology[0]) {
        o->topology = "this";
        return place_topo_load(t, "this", err, len);
    }
    if (place_topo_load(t, o->host_topology, err, len) != 0 ||
        place_topo_hosts(t, o->hosts, o->nhosts, err, len) != 0)
        return -1;
    if (!o->same)
        printf("note: the hosts recorded different topologies; every host taken as %s's\n",
               o->hosts[0]);
    return 0;
}

int cli_place(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    struct options o;
    int rc = parse(argc, argv, &o);
    struct triples tr = {0};
    if (rc == 0)
        rc = o.csv ? read_csv(o.csv, &tr) : o.ompi ? read_ompi(&o, &tr) : read_db(&o, &tr);
    struct place_topo topo;
    char err[1024];
    if (rc == 0 && load_topology(&o, &topo, err, sizeof err) != 0)
        rc = fail("%s", err);
    if (rc == 0 && tr.n > topo.leaves) {
        if (!o.oversubscribe) {
            fprintf(stderr,
                    "mpilens: place: %d ranks but the topology has %d cores; give a "
                    "larger topology or allow %d ranks per core with --oversubscribe\n",
                    tr.n, topo.leaves, (tr.n + topo.leaves - 1) / topo.leaves);
            rc = 2;
        } else {
            place_topo_oversubscribe(&topo, (tr.n + topo.leaves - 1) / topo.leaves);
        }
    }
    if (rc != 0)
        return rc;
    struct place_graph g;
    place_graph_build(&g, tr.n, tr.src, tr.dst, tr.value, tr.count);
    int *tm = malloc(tr.n * sizeof *tm), *other = malloc(tr.n * sizeof *other);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    place_treematch(&g, &topo, tm);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double seconds = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
    printf("topology: %s (", o.topology);
    for (int lv = 0; lv < topo.nlevels; lv++)
        printf("%s%s:%d", lv ? " " : "", topo.name[lv], topo.arity[lv]);
    printf("), %d cores; %d ranks; metric %s, kind %s\n", topo.leaves, tr.n, o.metric, o.kind);
    double rr, treematch = place_cost(&g, &topo, tm);
    place_round_robin(&topo, tr.n, other);
    rr = place_cost(&g, &topo, other);
    printf("%-28s %16s %8s\n", "mapping", "cost", "vs rr");
    printf("%-28s %16.0f %8.3f\n", "round-robin (over top level)", rr, 1.0);
    place_packed(tr.n, other);
    double packed = place_cost(&g, &topo, other);
    printf("%-28s %16.0f %8.3f\n", "packed (rank r on core r)", packed, rr > 0 ? packed / rr : 0);
    place_random(tr.n, topo.leaves, 1, other);
    double random = place_cost(&g, &topo, other);
    printf("%-28s %16.0f %8.3f\n", "random (seed 1)", random, rr > 0 ? random / rr : 0);
    if (place_scotch(&g, &topo, other) == 0) {
        double scotch = place_cost(&g, &topo, other);
        printf("%-28s %16.0f %8.3f\n", "Scotch (tleaf)", scotch, rr > 0 ? scotch / rr : 0);
    }
    printf("%-28s %16.0f %8.3f   (%.3f ms)\n", "TreeMatch (mpilens)", treematch,
           rr > 0 ? treematch / rr : 0, seconds * 1e3);
    printf("gain over round-robin: %.1f %%\n", rr > 0 ? 100.0 * (rr - treematch) / rr : 0.0);
    if (o.output)
        rc = write_outputs(o.output, &topo, tm, tr.n);
    place_graph_free(&g);
    free(tm);
    free(other);
    triples_free(&tr);
    return rc;
}
