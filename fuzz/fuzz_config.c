/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_config.c: libFuzzer target for the module-list parsers of src/core/modspec.c: the
 * input as a config file (`module NAME key=value ...` lines) and, up to its first NUL, as
 * an MPILENS_MODULES value. Both must return 0 or -1 with a one-line message, never crash.
 */
#include "../src/core/modspec.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lens_modlist list;
    char err[LENS_ERR_LEN];
    if (lens_modlist_parse_file(fuzz_file("conf", data, size), &list, err) == 0)
        lens_modlist_free(&list);
    else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
        abort(); /* the message must be one terminated line */
    char *value = malloc(size + 1);
    memcpy(value, data, size);
    value[size] = '\0';
    if (lens_modlist_parse_env(value, &list, err) == 0)
        lens_modlist_free(&list);
    else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
        abort();
    free(value);
    return 0;
}
