/* SPDX-License-Identifier: BSD-3-Clause */
/* html.h: what the pages share (report, matrix, diff, the site page): text escaped for
 * HTML and SVG, and a page closed so that a failed write (a full disk) leaves no page cut
 * short.
 */
#ifndef LENS_CLI_HTML_H
#define LENS_CLI_HTML_H

#include <stdio.h>

/* TEXT in an HTML or SVG text node or a quoted attribute: < > & " escaped. */
void html_text(FILE *f, const char *text);
/* PATH opened for writing, with the page's head: TITLE (fixed text, not escaped) as its
 * title and first heading, and STYLE's CSS. NULL (errno) if it cannot be made. */
FILE *html_open_page(const char *path, const char *title, const char *style);
/* Closes F, written to PATH; when a write failed, the page goes and -1 (errno). 0 if whole. */
int html_close_page(FILE *f, const char *path);

#endif
