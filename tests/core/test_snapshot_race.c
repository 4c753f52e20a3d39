/* test_snapshot_race.c: a save that ends a rank (here MPI_Abort's) is never replaced by an
 * older periodic save that was still being written (src/common/snapshot.c, save_to). The
 * writer takes 400 ms in the periodic thread (every second); the ending save is made 200 ms
 * into the first periodic one, and the file left must be the ending one. No MPI: the
 * snapshot code itself, with real files.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpilens_snapshot.h"

static pthread_t main_thread;

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0)
        ;
}

static int writer(int fd)
{
    int periodic = !pthread_equal(pthread_self(), main_thread);
    if (periodic)
        pause_ms(400);
    const char *what = periodic ? "periodic" : "ending";
    return mpilens_write_all(fd, what, strlen(what));
}

int main(void)
{
    char dir[] = "/tmp/mpilens-snapshot-race-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("MPILENS_OUTPUT", dir, 1);
    setenv("MPILENS_SNAPSHOT", "1", 1);
    main_thread = pthread_self();
    mpilens_snapshot_install("race", 0, writer);
    pause_ms(1200); /* the periodic save began at 1 s and writes until 1.4 s */
    mpilens_snapshot_save("MPI_Abort");
    pause_ms(600);
    char path[256], how[64] = "";
    snprintf(path, sizeof path, "%s/partial/race.0", dir);
    size_t len = 0;
    char *data = mpilens_snapshot_read(path, &len, how, sizeof how);
    int ok = data && len == 6 && memcmp(data, "ending", 6) == 0 && strcmp(how, "MPI_Abort") == 0;
    printf("%s the ending save is the file left (got \"%.*s\", \"%s\")\n", ok ? "ok  " : "FAIL",
           data ? (int)len : 0, data ? data : "", how);
    free(data);
    mpilens_snapshot_done(); /* removes the file and the directory */
    char command[300];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    if (system(command) != 0)
        ok = 0;
    return ok ? 0 : 1;
}
