/* record_sections.c: the record's parts both writers share (record_sections.h). */
#include "record_sections.h"

#include <stdlib.h>
#include <time.h>

static const char *env_or_null(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static void iso_time(double t, char *out, size_t len)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void record_section_job(struct record_text *j, const char *user, long long uid)
{
    record_text_open(j, "job", '{');
    record_text_string(j, "id", env_or_null("SLURM_JOB_ID"));
    record_text_string(j, "step", env_or_null("SLURM_STEP_ID"));
    record_text_string(j, "name", env_or_null("SLURM_JOB_NAME"));
    record_text_string(j, "user", user);
    record_text_int(j, "uid", uid);
    record_text_string(j, "account", env_or_null("SLURM_JOB_ACCOUNT"));
    record_text_string(j, "partition", env_or_null("SLURM_JOB_PARTITION"));
    record_text_string(j, "cluster", env_or_null("SLURM_CLUSTER_NAME"));
    record_text_close(j, '}');
}

void record_section_span(struct record_text *j, double start, double end)
{
    char when[32];
    iso_time(start, when, sizeof when);
    record_text_string(j, "start", when);
    iso_time(end, when, sizeof when);
    record_text_string(j, "end", when);
    record_text_epoch(j, "start_epoch", start);
    record_text_epoch(j, "end_epoch", end);
}
