/* check.h: assertions for C unit tests that print both sides and go on, libuv style. */
#ifndef LENS_CHECK_H
#define LENS_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK_EQ(what, expected, actual)                                                           \
    do {                                                                                           \
        long long e_ = (long long)(expected), a_ = (long long)(actual);                            \
        if (e_ == a_)                                                                              \
            printf("ok   %s\n", what);                                                             \
        else {                                                                                     \
            printf("FAIL %s: expected %lld, got %lld (%s:%d)\n", what, e_, a_, __FILE__,           \
                   __LINE__);                                                                      \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_LE(what, bound, actual)                                                              \
    do {                                                                                           \
        double b_ = (double)(bound), a_ = (double)(actual);                                        \
        if (a_ <= b_)                                                                              \
            printf("ok   %s (%g <= %g)\n", what, a_, b_);                                          \
        else {                                                                                     \
            printf("FAIL %s: %g > %g (%s:%d)\n", what, a_, b_, __FILE__, __LINE__);                \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_DONE()                                                                               \
    (check_failures ? (printf("%d check(s) failed\n", check_failures), 1) : (printf("PASS\n"), 0))

#endif
/* SPDX-License-Identifier: BSD-3-Clause */
