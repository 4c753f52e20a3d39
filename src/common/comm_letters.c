/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_letters.c: the key to the communicators' generated names (comm_letters.h). */
#include "comm_letters.h"

#include <stdio.h>
#include <string.h>

static const struct {
    char letter;
    const char *call;
} letters[] = {
    {'W', "MPI_COMM_WORLD"},
    {'f', "MPI_COMM_SELF"},
    {'s', "MPI_Comm_split"},
    {'t', "MPI_Comm_split_type"},
    {'d', "MPI_Comm_dup"},
    {'e', "MPI_Comm_dup_with_info"},
    {'i', "MPI_Comm_idup"},
    {'o', "MPI_Comm_idup_with_info"},
    {'c', "MPI_Comm_create"},
    {'u', "MPI_Comm_create_group"},
    {'p', "MPI_Comm_create_from_group"},
    {'q', "MPI_Intercomm_create_from_groups"},
    {'a', "MPI_Cart_create"},
    {'b', "MPI_Cart_sub"},
    {'r', "MPI_Graph_create"},
    {'g', "MPI_Dist_graph_create"},
    {'j', "MPI_Dist_graph_create_adjacent"},
    {'x', "MPI_Intercomm_create"},
    {'m', "MPI_Intercomm_merge"},
    {'n', "seen without its creation: spawn/connect/accept"},
};

const char *lens_comm_letter_call(char letter)
{
    for (size_t i = 0; i < sizeof letters / sizeof *letters; i++)
        if (letters[i].letter == letter)
            return letters[i].call;
    return NULL;
}

void lens_comm_letters_add(char *set, const char *name)
{
    /* a generated name: a letter, then ROOT.COUNTER ("mixed" and others are not) */
    if (!name || !name[0] || name[1] < '0' || name[1] > '9' || !lens_comm_letter_call(name[0]))
        return;
    size_t n = strlen(set);
    if (!strchr(set, name[0]) && n < 63) {
        set[n] = name[0];
        set[n + 1] = '\0';
    }
}

void lens_comm_letters_key(const char *set, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (const char *l = set; *l && at < len; l++) {
        int wrote = snprintf(out + at, len - at, "%s%c = %s", at ? ", " : "", *l,
                             lens_comm_letter_call(*l));
        if (wrote < 0)
            break;
        at += (size_t)wrote;
    }
}
