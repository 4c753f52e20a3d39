/* SPDX-License-Identifier: BSD-3-Clause */
/* top.c: `mpilens top DIR`: watch a running job (docs/top.md). Every interval it takes a
 * sample of the ranks' periodic snapshots (top_sample.c) and shows the difference to the
 * previous one (top_view.c): on a terminal, a screen redrawn in place with keys to sort,
 * pause and quit; otherwise (or with --json) one JSON line per interval. When the job is
 * over it shows the final figures (and exits with --once or --json).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "top.h"

static const char usage[] =
    "usage: mpilens top DIR [options]\n"
    "\n"
    "Watches the job writing into run directory DIR: per rank its MPI share, the\n"
    "communicators and operations that took the most time, bytes per second and the\n"
    "busiest matrix cells, for the last interval and the whole run so far. The figures come\n"
    "from what the ranks save every --snapshot SECONDS (mpilens run --snapshot 1 for a\n"
    "live view; the default is 60); the view never touches a rank. After the job, the\n"
    "final figures. `mpilens run --live ...` starts a job and this view beside it.\n"
    "\n"
    "  --interval S   seconds between samples (default 1)\n"
    "  --json         one JSON line per interval (the default without a terminal); exits\n"
    "                 after the job's final line\n"
    "  --once         one sample, then exit\n"
    "  -h, --help     this text\n"
    "\n"
    "Keys: t sort by time, c by calls, b by bytes, p pause, q quit.\n";

#define fail(...) cli_fail("top", __VA_ARGS__)

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

struct view {
    const char *dir;
    double interval;
    int json, once, tty;
    struct termios saved;
};

/* Waits up to SECONDS for a key on a terminal; the key, or 0. */
static int wait_key(const struct view *v, double seconds)
{
    if (!v->tty) {
        struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
        while (nanosleep(&t, &t) != 0 && errno == EINTR && !stop)
            ;
        return 0;
    }
    fd_set in;
    FD_ZERO(&in);
    FD_SET(0, &in);
    struct timeval t = {(time_t)seconds, (suseconds_t)((seconds - (time_t)seconds) * 1e6)};
    char key = 0;
    if (select(1, &in, NULL, NULL, &t) > 0 && read(0, &key, 1) != 1)
        key = 0;
    return key;
}

static void screen_size(int *rows, int *cols)
{
    struct winsize w;
    *rows = 24, *cols = 80;
    if (ioctl(1, TIOCGWINSZ, &w) == 0 && w.ws_row > 0 && w.ws_col > 0)
        *rows = w.ws_row, *cols = w.ws_col;
}

static int watch(struct view *v, const char *cache)
{
    struct top_sample prev = {0}, cur = {0};
    int have_prev = 0, paused = 0, rc = 0;
    enum top_sort sort = TOP_BY_TIME;
    double start = now();
    char err[1024];
    while (!stop) {
        memset(&cur, 0, sizeof cur);
        cur.at = now() - start;
        if (top_sample_take(v->dir, cache, have_prev ? &prev : NULL, &cur, err, sizeof err) != 0) {
            if (v->tty && !v->json)
                fputs("\033[?1049l", stdout);
            rc = fail("%s: %s", v->dir, err);
            break;
        }
        if (v->json) {
            if (!paused)
                top_json(&cur, stdout);
        } else if (!paused) {
            int rows, cols;
            screen_size(&rows, &cols);
            top_draw(&cur, v->dir, sort, paused, rows, cols, stdout);
        }
        int ended = cur.ended;
        if (have_prev)
            top_sample_free(&prev);
        prev = cur, have_prev = 1;
        if (v->once || (ended && v->json))
            break;
        double until = now() + v->interval;
        int key;
        while (!stop && (key = wait_key(v, until - now() > 0 ? until - now() : 0)) != 0) {
            if (key == 'q' || key == 'Q') {
                stop = 1;
            } else if (key == 'p' || key == 'P') {
                paused = !paused;
            } else {
                sort = key == 'c'   ? TOP_BY_CALLS
                       : key == 'b' ? TOP_BY_BYTES
                       : key == 't' ? TOP_BY_TIME
                                    : sort;
            }
            if (!v->json && (key == 'c' || key == 'b' || key == 't' || key == 'p')) {
                int rows, cols;
                screen_size(&rows, &cols);
                top_draw(&prev, v->dir, sort, paused, rows, cols, stdout);
            }
            if (now() >= until)
                break;
        }
    }
    if (have_prev)
        top_sample_free(&prev);
    return rc;
}

int cli_top(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    struct view v = {.interval = 1};
    for (int i = 1; i < argc; i++) {
        char *end;
        if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc) {
            v.interval = strtod(argv[++i], &end);
            if (*end || v.interval < 0.1 || v.interval > 3600)
                return fail("--interval '%s': give seconds from 0.1 to 3600", argv[i]);
        } else if (strcmp(argv[i], "--json") == 0) {
            v.json = 1;
        } else if (strcmp(argv[i], "--once") == 0) {
            v.once = 1;
        } else if (argv[i][0] == '-') {
            return fail("unknown option '%s'%s; `mpilens top --help` lists them", argv[i],
                        cli_option_hint(argv[i], usage));
        } else if (!v.dir) {
            v.dir = argv[i];
        } else {
            return fail("one run directory at a time ('%s' and '%s')", v.dir, argv[i]);
        }
    }
    if (!v.dir)
        return fail("no run directory given; write mpilens top DIR (the -o DIR of mpilens run)");
    if (!cli_is_directory(v.dir))
        return fail("%s: not a run directory (mpilens run -o DIR names it)", v.dir);
    v.tty = isatty(0) && isatty(1);
    if (!isatty(1))
        v.json = 1;
    char cache[4096];
    snprintf(cache, sizeof cache, "%s/mpilens-top-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(cache))
        return fail("%s: cannot make a working directory: %s", cache, strerror(errno));
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    if (v.tty && !v.json) {
        tcgetattr(0, &v.saved);
        struct termios raw = v.saved;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 0;
        raw.c_cc[VTIME] = 0;
        tcsetattr(0, TCSANOW, &raw);
        if (!v.once)
            fputs("\033[?1049h\033[?25l\033[2J", stdout); /* its own screen, no cursor */
    }
    int rc = watch(&v, cache);
    if (v.tty && !v.json) {
        if (!v.once)
            fputs("\033[?25h\033[?1049l", stdout);
        else
            fputc('\n', stdout);
        tcsetattr(0, TCSANOW, &v.saved);
        fflush(stdout);
    }
    nftw(cache, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
