/* SPDX-License-Identifier: BSD-3-Clause */
/* site_spool.c: the spool as ingest touches it, and the ingest's own directory
 * (site_spool.h). */
#define _GNU_SOURCE
#include "site_spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "text_utf8.h"

static const char *owner_name(uid_t uid, char *buf, size_t n)
{
    struct passwd *pw = getpwuid(uid);
    snprintf(buf, n, "%s (uid %u)", pw ? pw->pw_name : "?", (unsigned)uid);
    return buf;
}

/* DIRFD/NAME as the ingest's own directory: made (0700) if missing, else it must be a
 * directory, not a link, this user's, writable by nobody else. The descriptor, or -1 with
 * WHY. */
static int own_directory(int dirfd, const char *name, const char *shown, char *why, size_t n)
{
    if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST) {
        snprintf(why, n, "%s cannot be made: %s", shown, strerror(errno));
        return -1;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "%s %s", shown,
                 errno == ELOOP || errno == ENOTDIR ? "is a symbolic link or not a directory"
                                                    : strerror(errno));
        return -1;
    }
    struct stat st;
    char who[96];
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
        snprintf(why, n, "%s belongs to %s, not to the ingest's user: another user made it", shown,
                 owner_name(st.st_uid, who, sizeof who));
        close(fd);
        return -1;
    }
    if (st.st_mode & 022) {
        snprintf(why, n, "%s is writable by others (mode %04o)", shown, st.st_mode & 07777);
        close(fd);
        return -1;
    }
    return fd;
}

int site_spool_open(struct site_spool *sp, const char *spool, const char *rejected, char *err,
                    size_t n)
{
    memset(sp, 0, sizeof *sp);
    sp->rejected_fd = sp->held_fd = -1;
    snprintf(sp->path, sizeof sp->path, "%s", spool);
    sp->fd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sp->fd < 0) {
        struct stat link;
        int is_link = lstat(spool, &link) == 0 && S_ISLNK(link.st_mode);
        snprintf(err, n, "%s: cannot read the spool: %s", spool,
                 is_link ? "it is a symbolic link (give the directory itself)" : strerror(errno));
        return -1;
    }
    struct stat st;
    char who[96];
    if (fstat(sp->fd, &st) != 0 || (st.st_uid != 0 && st.st_uid != geteuid())) {
        snprintf(err, n,
                 "%s: the spool belongs to %s: a spool is root's (or the ingest's user's): "
                 "chown root %s (docs/site.md, Install)",
                 spool, owner_name(st.st_uid, who, sizeof who), spool);
        close(sp->fd);
        return -1;
    }
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
        snprintf(err, n,
                 "%s: the spool is writable by others but not sticky (mode %04o): any user could "
                 "remove another's records: chmod 1777 %s (docs/site.md, Install)",
                 spool, st.st_mode & 07777, spool);
        close(sp->fd);
        return -1;
    }
    char shown[4200], why[1024];
    if (rejected) {
        snprintf(sp->rejected_path, sizeof sp->rejected_path, "%s", rejected);
        sp->rejected_fd = own_directory(AT_FDCWD, rejected, rejected, why, sizeof why);
    } else {
        snprintf(sp->rejected_path, sizeof sp->rejected_path, "%s/rejected", spool);
        sp->rejected_fd = own_directory(sp->fd, "rejected", sp->rejected_path, why, sizeof why);
    }
    if (sp->rejected_fd >= 0) {
        snprintf(shown, sizeof shown, "%s/newer", sp->rejected_path);
        sp->held_fd = own_directory(sp->rejected_fd, "newer", shown, why, sizeof why);
    }
    if (sp->held_fd < 0)
        snprintf(sp->problem, sizeof sp->problem,
                 "%s; the records it would take stay in the spool: remove it (rm -r %s) or "
                 "give --rejected DIR (docs/site.md, Install)",
                 why, sp->rejected_path);
    return 0;
}

void site_spool_close(struct site_spool *sp)
{
    if (sp->held_fd >= 0)
        close(sp->held_fd);
    if (sp->rejected_fd >= 0)
        close(sp->rejected_fd);
    if (sp->fd >= 0)
        close(sp->fd);
    sp->fd = sp->rejected_fd = sp->held_fd = -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct spool_file *)a)->name, ((const struct spool_file *)b)->name);
}

struct list {
    struct spool_file *files;
    long count, cap;
};

static void add(struct list *l, const char *name, int held, int not_record)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->files = realloc(l->files, (size_t)l->cap * sizeof *l->files);
    }
    l->files[l->count++] = (struct spool_file){strdup(name), held, not_record};
}

/* Whether NAME (a spool entry of type TYPE) can be a record: *.json, not hidden (a job's
 * temporary), a file (or a link or unknown: refused when read, so that it is said). */
static int candidate(const char *name, unsigned char type)
{
    size_t len = strlen(name);
    return name[0] != '.' && len >= 6 && strcmp(name + len - 5, ".json") == 0 &&
           (type == DT_REG || type == DT_UNKNOWN || type == DT_LNK);
}

/* The ingest's directory's own entry in the spool: not the spool's. */
static int is_ingest_dir(const struct site_spool *sp, const char *name)
{
    if (sp->rejected_fd < 0 || strcmp(name, "rejected") != 0)
        return 0;
    struct stat a, b;
    return fstatat(sp->fd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && fstat(sp->rejected_fd, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

long site_spool_list(struct site_spool *sp, int version, struct spool_file **files, long *waiting)
{
    struct list l = {0};
    *waiting = 0;
    int fd = dup(sp->fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_ingest_dir(sp, e->d_name))
            continue;
        add(&l, e->d_name, 0, !candidate(e->d_name, e->d_type));
    }
    closedir(d);
    fd = sp->held_fd >= 0 ? dup(sp->held_fd) : -1;
    d = fd >= 0 ? fdopendir(fd) : NULL;
    while (d && (e = readdir(d))) {
        int v;
        if (e->d_type != DT_REG || sscanf(e->d_name, "v%d.", &v) != 1)
            continue;
        if (v <= version)
            add(&l, e->d_name, 1, 0);
        else
            (*waiting)++;
    }
    if (d)
        closedir(d);
    else if (fd >= 0)
        close(fd);
    if (l.count)
        qsort(l.files, (size_t)l.count, sizeof *l.files, by_name);
    *files = l.files;
    return l.count;
}

void site_spool_free_list(struct spool_file *files, long count)
{
    for (long i = 0; i < count; i++)
        free(files[i].name);
    free(files);
}

static int dir_of(const struct site_spool *sp, const struct spool_file *f)
{
    return f->held ? sp->held_fd : sp->fd;
}

int site_spool_read(const struct site_spool *sp, const struct spool_file *f, size_t max_bytes,
                    char **text, size_t *len, uid_t *owner, char *why, size_t n)
{
    *text = NULL;
    int fd = openat(dir_of(sp, f), f->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return -3;
        snprintf(why, n, "cannot be read: %s", strerror(errno));
        return errno == EACCES || errno == EPERM ? -4 : -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, n, "not a regular file");
        return -1;
    }
    if ((size_t)st.st_size > max_bytes) {
        close(fd);
        snprintf(why, n, "oversized: %lld bytes, a record is at most %zu", (long long)st.st_size,
                 max_bytes);
        return -1;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t got = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    if (got != st.st_size) {
        free(buf);
        snprintf(why, n, "cannot be read whole");
        return -1;
    }
    buf[got] = '\0';
    *text = buf;
    *len = (size_t)got;
    *owner = st.st_uid;
    return 0;
}

/* renameat2 without replacing: FROM in FROMFD to TO in TOFD, else to TO.2, TO.3 ... */
static int move_new(int fromfd, const char *from, int tofd, const char *to, char *moved, size_t n)
{
    for (int k = 1; k < 100; k++) {
        if (k == 1)
            snprintf(moved, n, "%s", to);
        else
            snprintf(moved, n, "%s.%d", to, k);
        if (renameat2(fromfd, from, tofd, moved, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int site_spool_reject(const struct site_spool *sp, const struct spool_file *f, const char *why,
                      char *why_not, size_t n)
{
    if (sp->rejected_fd < 0) {
        snprintf(why_not, n, "%s", sp->problem);
        return -1;
    }
    char name[512], reason[600];
    const char *to = f->held ? f->name + strcspn(f->name, ".") + 1 : f->name; /* vN.NAME */
    if (move_new(dir_of(sp, f), f->name, sp->rejected_fd, to, name, sizeof name) != 0) {
        snprintf(why_not, n, "not moved to %s: %s", sp->rejected_path, strerror(errno));
        return -1;
    }
    snprintf(reason, sizeof reason, "%s.reason", name);
    unlinkat(sp->rejected_fd, reason, 0); /* an older rejection's, in the ingest's own directory */
    int fd =
        openat(sp->rejected_fd, reason, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    char line[1024];
    lens_escape_controls(line, sizeof line - 1, why);
    strcat(line, "\n");
    size_t len = strlen(line);
    if (fd < 0 || write(fd, line, len) != (ssize_t)len || close(fd) != 0) {
        snprintf(why_not, n, "moved, but %s/%s could not be written: %s", sp->rejected_path, reason,
                 strerror(errno));
        return 1;
    }
    return 0;
}

int site_spool_hold(const struct site_spool *sp, const struct spool_file *f, int version)
{
    if (sp->held_fd < 0 || f->held)
        return -1;
    char to[600], moved[640];
    snprintf(to, sizeof to, "v%d.%s", version, f->name);
    return move_new(sp->fd, f->name, sp->held_fd, to, moved, sizeof moved);
}

int site_spool_remove(const struct site_spool *sp, const struct spool_file *f)
{
    return unlinkat(dir_of(sp, f), f->name, 0);
}

long site_spool_expire(const struct site_spool *sp, int days)
{
    if (days <= 0 || sp->rejected_fd < 0)
        return 0;
    int fd = dup(sp->rejected_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    /* when it arrived: the change time, which a rename sets and its user cannot (the
     * directory is the ingest's alone) */
    time_t before = time(NULL) - (time_t)days * 86400;
    long removed = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)))
        if (fstatat(sp->rejected_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_ctime < before &&
            unlinkat(sp->rejected_fd, e->d_name, 0) == 0)
            removed++;
    closedir(d);
    return removed;
}
