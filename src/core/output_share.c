/* SPDX-License-Identifier: BSD-3-Clause */
/* output_share.c: a run's output directory that not every rank sees (node-local disk: `-o
 * /tmp/x` on a cluster, where each node has its own /tmp).
 *
 * At MPI_Init rank 0 leaves a token file in the directory and every rank looks for it: the
 * ranks that find it share rank 0's directory. When all do (one host, or a shared file
 * system), nothing more happens. Otherwise rank 0 writes DIR/node-local, one line per
 * host whose ranks write elsewhere ("node2 2 3": the host, then its ranks), which `mpilens
 * run` reads to say what stayed where when a job dies. At MPI_Finalize, once every module
 * has written its files (this runs at the bottom of the stack), the first rank of each
 * such host sends every file under the host's copy of the directory (but the temporary
 * files of saves cut short) to a rank that shares rank 0's (the k-th host to the k-th such
 * rank, round robin), which writes it at the same path; the host's copy is removed once the
 * receiver has written it all. A failed write keeps the files where they are, said in one
 * line naming them.
 *
 * Every rank holds one byte per rank of the job, and only when some rank does not share.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "mpi_objects.h"

enum { SHARES = 0, SENDS = 1, STAYS = 2 }; /* a rank's part: its host's first rank SENDS */
#define CHUNK (4u << 20)
static char chunk[CHUNK]; /* bss: no allocation can fail mid-transfer */
#define END_OF_FILES UINT64_MAX

static unsigned char *part; /* per rank of MPI_COMM_WORLD; NULL: every rank shares */
static int world_rank, world_size;
static MPI_Comm host_comm, share_comm; /* made by lens_output_share_check */
static int keep_all; /* this rank does not share, and cannot send: its files stay */

#define CALL(name, type) ((type)lens_library(#name))

typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*split_type_fn)(MPI_Comm, int, int, MPI_Info, MPI_Comm *);
typedef int (*barrier_fn)(MPI_Comm);
typedef int (*name_fn)(char *, int *);
typedef int (*comm_free_fn)(MPI_Comm *);

typedef int (*gather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*dup_fn)(MPI_Comm, MPI_Comm *);

/* The receiver of the sender that is the K-th (from 0) among senders: the (K mod n)-th of
 * the n ranks that share. */
static int receiver_of(int k)
{
    int sharing = 0;
    for (int r = 0; r < world_size; r++)
        sharing += part[r] == SHARES;
    int want = sharing ? k % sharing : 0;
    for (int r = 0; r < world_size; r++)
        if (part[r] == SHARES && want-- == 0)
            return r;
    return 0;
}

/* Rank 0 writes DIR/node-local: each sender's host and its ranks, as they send them. */
static void write_node_local(const char *dir)
{
    char path[PATH_MAX + 16], host[MPI_MAX_PROCESSOR_NAME];
    snprintf(path, sizeof path, "%s/node-local", dir);
    FILE *f = fopen(path, "w");
    for (int r = 0; r < world_size; r++) {
        if (part[r] != SENDS)
            continue;
        int count = 0;
        CALL(MPI_Recv, recv_fn)(host, sizeof host, MPI_CHAR, r, 0, share_comm, MPI_STATUS_IGNORE);
        CALL(MPI_Recv, recv_fn)(&count, 1, MPI_INT, r, 0, share_comm, MPI_STATUS_IGNORE);
        int *ranks = malloc((count > 0 ? (size_t)count : 1) * sizeof *ranks);
        CALL(MPI_Recv, recv_fn)
        (ranks, ranks ? count : 0, MPI_INT, r, 0, share_comm, MPI_STATUS_IGNORE);
        host[sizeof host - 1] = '\0';
        if (f)
            fprintf(f, "%s", host);
        for (int i = 0; ranks && f && i < count; i++)
            fprintf(f, " %d", ranks[i]);
        if (f)
            fprintf(f, "\n");
        free(ranks);
    }
    if (!f || fclose(f) != 0)
        lens_say("%s: %s; if the job dies, where the ranks on other nodes left their records "
                 "is not listed there",
                 path, strerror(errno));
}

/* A host's sender tells rank 0 its host name and the world ranks of the host that write
 * elsewhere (gathered over the host's communicator; every rank of the host takes part). */
static void describe_host(int shares, int host_rank, int host_size)
{
    int *ranks = host_rank == 0 ? malloc((size_t)host_size * sizeof *ranks) : NULL;
    int me = shares ? -1 : world_rank;
    CALL(MPI_Gather, gather_fn)(&me, 1, MPI_INT, ranks, 1, MPI_INT, 0, host_comm);
    if (part[world_rank] != SENDS) {
        free(ranks);
        return;
    }
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0, count = 0;
    CALL(MPI_Get_processor_name, name_fn)(host, &len);
    for (int i = 0; ranks && i < host_size; i++)
        if (ranks[i] >= 0)
            ranks[count++] = ranks[i];
    CALL(MPI_Send, send_fn)(host, sizeof host, MPI_CHAR, 0, 0, share_comm);
    CALL(MPI_Send, send_fn)(&count, 1, MPI_INT, 0, 0, share_comm);
    CALL(MPI_Send, send_fn)(ranks, count, MPI_INT, 0, 0, share_comm);
    free(ranks);
}

void lens_output_share_check(const char *dir)
{
    CALL(MPI_Comm_rank, lens_rank_fn)(MPI_COMM_WORLD, &world_rank);
    CALL(MPI_Comm_size, lens_rank_fn)(MPI_COMM_WORLD, &world_size);
    char token[PATH_MAX] = "";
    if (world_rank == 0) {
        char host[64] = "";
        gethostname(host, sizeof host - 1);
        snprintf(token, sizeof token, "%s/.mpilens-shared.%s.%ld", dir, host, (long)getpid());
        int fd = open(token, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0)
            token[0] = '\0'; /* not writable: the modules say so; every rank "shares" */
        else
            close(fd);
    }
    CALL(MPI_Bcast, lens_bcast_fn)(token, sizeof token, MPI_CHAR, 0, MPI_COMM_WORLD);
    int shares = !token[0] || access(token, F_OK) == 0, all = 0;
    CALL(MPI_Allreduce, allreduce_fn)(&shares, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (world_rank == 0 && token[0])
        unlink(token);
    if (all)
        return;
    /* the ranks of one host see one copy of the directory: its first rank sends it (a host
     * whose first rank shares and others do not is not expected: those keep their files) */
    int host_rank = 0, host_size = 1;
    CALL(MPI_Comm_split_type, split_type_fn)
    (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm);
    CALL(MPI_Comm_rank, lens_rank_fn)(host_comm, &host_rank);
    CALL(MPI_Comm_size, lens_rank_fn)(host_comm, &host_size);
    CALL(MPI_Comm_dup, dup_fn)(MPI_COMM_WORLD, &share_comm);
    unsigned char mine = shares ? SHARES : host_rank == 0 ? SENDS : STAYS;
    part = malloc((size_t)world_size);
    int have = part != NULL, everyone = 0;
    CALL(MPI_Allreduce, allreduce_fn)(&have, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!everyone) { /* out of memory somewhere: the files stay where they are, said then */
        free(part);
        part = NULL;
        keep_all = !shares;
        CALL(MPI_Comm_free, comm_free_fn)(&share_comm);
        CALL(MPI_Comm_free, comm_free_fn)(&host_comm);
        return;
    }
    CALL(MPI_Allgather, allgather_fn)(&mine, 1, MPI_BYTE, part, 1, MPI_BYTE, MPI_COMM_WORLD);
    if (getenv("MPILENS_COLLECT")) /* a collection: the run's list stays as it is */
        return;
    describe_host(shares, host_rank, host_size);
    if (world_rank == 0)
        write_node_local(dir);
}

/* ---- at MPI_Finalize: the files brought over ---- */

struct file_list {
    char **paths; /* relative to the directory */
    size_t n, cap;
};

/* DIR/REL (REL "" for DIR itself) into PATH, opened; NULL if it cannot be read. */
static DIR *open_under(const char *dir, const char *rel, char *path, size_t len)
{
    snprintf(path, len, "%s%s%s", dir, *rel ? "/" : "", rel);
    return opendir(path);
}

/* A snapshot's save cut short: ".MODULE.RANK.tick" or ".MODULE.RANK.tmpN" in a partial/
 * directory (src/common/snapshot.c), left when a rank is killed while it writes. Never a
 * record (recover removes them): not brought over, removed with the host's copy. */
static int is_cut_short_save(const char *rel, const char *name)
{
    const char *last = strrchr(rel, '/');
    return name[0] == '.' && strcmp(last ? last + 1 : rel, "partial") == 0;
}

static void add_file(struct file_list *l, const char *sub)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **grown = realloc(l->paths, cap * sizeof *grown);
        if (!grown)
            return;
        l->paths = grown, l->cap = cap;
    }
    if ((l->paths[l->n] = strdup(sub)))
        l->n++;
}

/* Every regular file under DIR/REL into SEND (the token of a check excepted), saves cut
 * short into DROP. */
static void list_files(const char *dir, const char *rel, struct file_list *send,
                       struct file_list *drop)
{
    char path[PATH_MAX];
    DIR *d = open_under(dir, rel, path, sizeof path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strncmp(e->d_name, ".mpilens-shared.", 16))
            continue;
        char sub[PATH_MAX], full[PATH_MAX * 2];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            list_files(dir, sub, send, drop);
        else if (S_ISREG(st.st_mode))
            add_file(is_cut_short_save(rel, e->d_name) ? drop : send, sub);
    }
    closedir(d);
}

/* Frees L, and removes its files under DIR when REMOVE. */
static void unlink_files(const char *dir, struct file_list *l, int remove)
{
    for (size_t i = 0; i < l->n; i++) {
        char full[PATH_MAX * 2];
        snprintf(full, sizeof full, "%s/%s", dir, l->paths[i]);
        if (remove)
            unlink(full);
        free(l->paths[i]);
    }
    free(l->paths);
}

struct file_head {
    uint64_t size;      /* END_OF_FILES after the last */
    uint32_t mode, len; /* the relative path's length, NUL included */
};

/* Sends DIR/REL to TO; its bytes may be short if the file shrank (then zeros follow). */
static void send_file(const char *dir, const char *rel, int to)
{
    char full[PATH_MAX * 2];
    snprintf(full, sizeof full, "%s/%s", dir, rel);
    int fd = open(full, O_RDONLY | O_CLOEXEC);
    struct stat st = {0};
    if (fd >= 0)
        fstat(fd, &st);
    struct file_head h = {(uint64_t)st.st_size, (uint32_t)(st.st_mode & 0777),
                          (uint32_t)strlen(rel) + 1};
    CALL(MPI_Send, send_fn)(&h, sizeof h, MPI_BYTE, to, 1, share_comm);
    CALL(MPI_Send, send_fn)(rel, (int)h.len, MPI_CHAR, to, 1, share_comm);
    for (uint64_t at = 0; at < h.size; at += CHUNK) {
        size_t n = h.size - at < CHUNK ? (size_t)(h.size - at) : CHUNK;
        ssize_t got = fd >= 0 ? pread(fd, chunk, n, (off_t)at) : -1;
        if (got < (ssize_t)n)
            memset(chunk + (got > 0 ? got : 0), 0, n - (size_t)(got > 0 ? got : 0));
        CALL(MPI_Send, send_fn)(chunk, (int)n, MPI_BYTE, to, 1, share_comm);
    }
    if (fd >= 0)
        close(fd);
}

/* Writes what one sender sends into DIR; 0, or the first errno (the rest still read). */
static int receive_files(const char *dir, int from, char *failed, size_t failed_len)
{
    int err = 0;
    for (;;) {
        struct file_head h;
        CALL(MPI_Recv, recv_fn)(&h, sizeof h, MPI_BYTE, from, 1, share_comm, MPI_STATUS_IGNORE);
        if (h.size == END_OF_FILES)
            break;
        char rel[PATH_MAX] = "", full[PATH_MAX * 2], tmp[PATH_MAX * 2 + 32];
        CALL(MPI_Recv, recv_fn)
        (rel, h.len < PATH_MAX ? (int)h.len : PATH_MAX, MPI_CHAR, from, 1, share_comm,
         MPI_STATUS_IGNORE);
        rel[PATH_MAX - 1] = '\0';
        snprintf(full, sizeof full, "%s/%s", dir, rel);
        snprintf(tmp, sizeof tmp, "%s.from-%d", full, from);
        char *slash = strrchr(full, '/');
        if (slash) { /* its directory, as on the sender's side */
            *slash = '\0';
            lens_make_dirs(full);
            *slash = '/';
        }
        int fd = strstr(rel, "..")
                     ? -1
                     : open(tmp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, h.mode ? h.mode : 0644);
        int mine = fd < 0 ? (strstr(rel, "..") ? EINVAL : errno) : 0;
        for (uint64_t at = 0; at < h.size; at += CHUNK) {
            size_t n = h.size - at < CHUNK ? (size_t)(h.size - at) : CHUNK;
            CALL(MPI_Recv, recv_fn)
            (chunk, (int)n, MPI_BYTE, from, 1, share_comm, MPI_STATUS_IGNORE);
            errno = 0;
            if (fd >= 0 && !mine && pwrite(fd, chunk, n, (off_t)at) != (ssize_t)n)
                mine = errno ? errno : ENOSPC;
        }
        if (fd >= 0 && close(fd) != 0 && !mine)
            mine = errno;
        if (!mine && rename(tmp, full) != 0)
            mine = errno;
        if (mine) {
            unlink(tmp);
            if (!err)
                snprintf(failed, failed_len, "%s", full);
            err = err ? err : mine;
        }
    }
    return err;
}

/* The directories under DIR/REL removed bottom up where empty, then DIR/REL itself. */
static void remove_empty(const char *dir, const char *rel)
{
    char path[PATH_MAX];
    DIR *d = open_under(dir, rel, path, sizeof path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
            remove_empty(dir, sub);
        }
    }
    closedir(d);
    rmdir(path);
}

void lens_output_share_finish(const char *dir)
{
    if (!part) {
        if (keep_all)
            lens_say("%s: this node's ranks do not share rank 0's output directory and their "
                     "records stayed here (out of memory to bring them over)",
                     dir);
        return;
    }
    CALL(MPI_Barrier, barrier_fn)(host_comm); /* every rank of the host has written */
    int senders_before = 0;
    for (int r = 0; r < world_rank; r++)
        senders_before += part[r] == SENDS;
    if (part[world_rank] == SENDS) {
        int to = receiver_of(senders_before), err = 0;
        struct file_list l = {0}, cut_short = {0};
        list_files(dir, "", &l, &cut_short);
        for (size_t i = 0; i < l.n; i++)
            send_file(dir, l.paths[i], to);
        struct file_head end = {END_OF_FILES, 0, 0};
        CALL(MPI_Send, send_fn)(&end, sizeof end, MPI_BYTE, to, 1, share_comm);
        char failed[PATH_MAX * 2] = "";
        CALL(MPI_Recv, recv_fn)(&err, 1, MPI_INT, to, 2, share_comm, MPI_STATUS_IGNORE);
        CALL(MPI_Recv, recv_fn)
        (failed, sizeof failed, MPI_CHAR, to, 2, share_comm, MPI_STATUS_IGNORE);
        char host[64] = "";
        gethostname(host, sizeof host - 1);
        if (err) {
            fprintf(stderr,
                    "mpilens: %s: %s; the records of this node's ranks stay in %s:%s "
                    "(`mpilens recover` brings them over)\n",
                    failed, strerror(err), host, dir);
        } else if (getenv("MPILENS_COLLECT")) {
            fprintf(stderr, "mpilens: recover: %s:%s: %zu file%s brought over\n", host, dir, l.n,
                    l.n == 1 ? "" : "s");
        }
        unlink_files(dir, &l, !err);
        unlink_files(dir, &cut_short, !err);
        if (!err)
            remove_empty(dir, "");
    } else if (part[world_rank] == SHARES) {
        for (int r = 0, k = 0; r < world_size; r++) {
            if (part[r] != SENDS)
                continue;
            if (receiver_of(k++) != world_rank)
                continue;
            char failed[PATH_MAX * 2] = "";
            int err = receive_files(dir, r, failed, sizeof failed);
            CALL(MPI_Send, send_fn)(&err, 1, MPI_INT, r, 2, share_comm);
            CALL(MPI_Send, send_fn)(failed, sizeof failed, MPI_CHAR, r, 2, share_comm);
        }
    }
    CALL(MPI_Comm_free, comm_free_fn)(&share_comm);
    CALL(MPI_Comm_free, comm_free_fn)(&host_comm);
    free(part);
    part = NULL;
}
