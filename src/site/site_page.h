/* SPDX-License-Identifier: BSD-3-Clause */
/* site_page.h: `mpilens site page --html FILE`: one self-contained page of the site's
 * questions (applications, jobs, usage, the largest applications' trends) with charts.
 */
#ifndef SITE_PAGE_H
#define SITE_PAGE_H

#include "site_query.h"

/* Writes the page of S's jobs matching F to PATH. 0, or -1 with ERR. */
int site_page_write(struct site_store *s, const struct site_filter *f, const char *path, char *err,
                    size_t n);

#endif
