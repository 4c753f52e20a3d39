/* run_job.c: the job of `mpilens run`: started, waited for, and stopped with it.
 *
 * SIGINT, SIGTERM and SIGHUP sent to `mpilens run` (Ctrl-C, `kill`, a batch system's
 * warning) are forwarded to the launcher (and, when the job runs in a process group of
 * its own, to every process of it), which then stops its ranks; if the job has not ended
 * 20 seconds after the first such signal, its process group is killed (SIGKILL), so no
 * rank is left running. A job started from an interactive terminal stays in the
 * terminal's process group (a launcher that forwards its standard input must be able to
 * read it, and Ctrl-C reaches every process anyway); otherwise it gets a group of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_job.h"

#define KILL_AFTER_SECONDS 20

static volatile sig_atomic_t job_pid, job_group, forwarded, killed;

static void forward(int sig)
{
    if (!forwarded)
        forwarded = sig;
    if (job_group)
        kill(-job_group, sig);
    else if (job_pid)
        kill(job_pid, sig);
    alarm(KILL_AFTER_SECONDS);
}

static void kill_job(int sig)
{
    (void)sig;
    killed = 1;
    if (job_group)
        kill(-job_group, SIGKILL);
    else if (job_pid)
        kill(job_pid, SIGKILL);
}

int run_job(char **command, int *signal_received)
{
    int own_group = !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp();
    struct sigaction fw = {0}, old[3], al = {0};
    fw.sa_handler = forward;
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
        execvp(command[0], command);
        fprintf(stderr, "mpilens: run: cannot start '%s': %s\n", command[0], strerror(errno));
        _exit(127);
    }
    if (child > 0 && own_group)
        setpgid(child, child); /* also here: no race with a signal before the child's call */
    job_pid = child > 0 ? child : 0;
    job_group = child > 0 && own_group ? child : 0;
    int status = 0;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
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
