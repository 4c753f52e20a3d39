/* SPDX-License-Identifier: BSD-3-Clause */
/* run_job.c: the job of `mpilens run`: started, waited for, and stopped with it.
 *
 * SIGINT, SIGTERM and SIGHUP sent to `mpilens run` (Ctrl-C, `kill`, a batch system's
 * warning) are forwarded to the job: first to the launcher's leaf descendants on this node
 * (its ranks, which save what they recorded), then to the launcher, which stops the rest.
 * If the job has not ended 20 seconds after the first such signal, its process group is
 * killed (SIGKILL), so no rank is left running. A job started from an interactive terminal stays in
 * the terminal's process group (a launcher that forwards its standard input must be able to read
 * it, and Ctrl-C reaches every process anyway); otherwise it gets a group of its own.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_job.h"

#define KILL_AFTER_SECONDS 20

static volatile sig_atomic_t job_pid, job_group, forwarded, pending;

static void on_stop_signal(int sig)
{
    if (!forwarded)
        forwarded = sig;
    pending = sig; /* forwarded by the waiting loop, outside the handler */
}

static void kill_job(int sig)
{
    (void)sig;
    if (job_group)
        kill(-job_group, SIGKILL);
    else if (job_pid)
        kill(job_pid, SIGKILL);
}

/* PID's parent and state from /proc/PID/stat; 0, or -1 if it is gone. */
static int proc_stat(pid_t pid, pid_t *ppid, char *state)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')'); /* the command name may hold spaces */
    int parent = 0;
    if (!close_paren || sscanf(close_paren + 1, " %c %d", state, &parent) != 2)
        return -1;
    *ppid = (pid_t)parent;
    return 0;
}

/* SIG (0: none, only count) to every living descendant of the launcher that has no living
 * child in the job (the ranks); how many there are. Zombies (ranks already ended, not yet
 * reaped) do not count. */
static int signal_descendants(int sig)
{
    enum { MAX = 4096 };
    static pid_t pids[MAX], parents[MAX];
    static char states[MAX];
    int n = 0;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && n < MAX && (e = readdir(proc))) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid > 0 && proc_stat(pid, &parents[n], &states[n]) == 0)
            pids[n++] = pid;
    }
    if (proc)
        closedir(proc);
    static char in_job[MAX];
    memset(in_job, 0, sizeof in_job);
    for (int changed = 1; changed;) { /* descendants: parents in the job, to a fixed point */
        changed = 0;
        for (int i = 0; i < n; i++) {
            if (in_job[i])
                continue;
            int parent_in = parents[i] == job_pid;
            for (int j = 0; !parent_in && j < n; j++)
                parent_in = in_job[j] && pids[j] == parents[i];
            if (parent_in)
                in_job[i] = changed = 1;
        }
    }
    /* the leaves only (the ranks): a launcher's helper in between (MPICH's proxy) that got
     * the signal too would kill its ranks before they saved */
    int alive = 0;
    for (int i = 0; i < n; i++) {
        if (!in_job[i] || states[i] == 'Z')
            continue;
        int parent_of_job = 0;
        for (int j = 0; !parent_of_job && j < n; j++)
            parent_of_job = in_job[j] && parents[j] == pids[i] && states[j] != 'Z';
        if (parent_of_job)
            continue;
        alive++;
        if (sig)
            kill(pids[i], sig);
    }
    return alive;
}

/* The job's ranks on this node are asked to save (SIGURG) and given a second, then get SIG
 * and up to two seconds to end, before the launcher does: a launcher that gets it first
 * may kill its ranks outright (MPICH's), or before a descheduled rank has saved (Open
 * MPI's). Ranks on other nodes get it from the launcher. */
static void forward(int sig)
{
    /* first a save without an end (SIGURG, mpilens_snapshot.h): a launcher kills every rank as soon
     * as one has died, so the ranks must all have saved before any of them ends */
    if (job_pid && signal_descendants(SIGURG) > 0)
        usleep(1000000);
    if (job_pid && signal_descendants(sig) > 0)
        for (int i = 0; i < 40 && signal_descendants(0) > 0; i++)
            usleep(50000);
    if (job_pid)
        kill(job_pid, sig);
    alarm(KILL_AFTER_SECONDS);
}

int run_job(char **command, const char *log, int *signal_received)
{
    int own_group = !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp();
    struct sigaction fw = {0}, old[3], al = {0};
    fw.sa_handler = on_stop_signal; /* no SA_RESTART: waitpid returns to forward it */
    sigemptyset(&fw.sa_mask);
    al.sa_handler = kill_job;
    const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &fw, &old[i]);
    sigaction(SIGALRM, &al, NULL);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < 3; i++)
            sigaction(sigs[i], &old[i], NULL);
        if (own_group)
            setpgid(0, 0);
        if (log) {
            int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644),
                in = open("/dev/null", O_RDONLY);
            if (out < 0 || in < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(in, 0) < 0) {
                fprintf(stderr, "mpilens: run --live: %s: %s\n", log, strerror(errno));
                _exit(127);
            }
            close(out), close(in);
        }
        execvp(command[0], command);
        fprintf(stderr, "mpilens: run: cannot start '%s': %s\n", command[0], strerror(errno));
        _exit(127);
    }
    if (child > 0 && own_group)
        setpgid(child, child); /* also here: no race with a signal before the child's call */
    job_pid = child > 0 ? child : 0;
    job_group = child > 0 && own_group ? child : 0;
    int status = 0;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
        int sig = pending;
        pending = 0;
        if (sig)
            forward(sig);
    }
    /* the launcher is gone; what of its group is left goes too, when there was a signal */
    if (forwarded && job_group)
        kill(-job_group, SIGKILL);
    alarm(0);
    job_pid = job_group = 0;
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    *signal_received = forwarded;
    if (child < 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
