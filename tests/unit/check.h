/*
 * check.h - the tiny test harness: CHECK() records a failure with file and
 * line and continues; TEST_MAIN prints "N passed, N failed" and exits
 * non-zero on any failure. Test names are sentences.
 */
#ifndef KEVO_CHECK_H
#define KEVO_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failed_, check_passed_, check_case_failed_;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                        \
            check_case_failed_ = 1;                                          \
        }                                                                    \
    } while (0)

#define CHECK_MSG(cond, ...)                                                 \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "  %s:%d: check failed: %s: ", __FILE__,         \
                    __LINE__, #cond);                                        \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            check_case_failed_ = 1;                                          \
        }                                                                    \
    } while (0)

#define RUN(fn, sentence)                                                    \
    do {                                                                     \
        check_case_failed_ = 0;                                              \
        fn();                                                                \
        if (check_case_failed_) {                                            \
            check_failed_++;                                                 \
            fprintf(stderr, "FAIL %s\n", sentence);                          \
        } else {                                                             \
            check_passed_++;                                                 \
            printf("ok   %s\n", sentence);                                   \
        }                                                                    \
    } while (0)

#define TEST_DONE()                                                          \
    do {                                                                     \
        printf("%s: %d passed, %d failed\n", __FILE__, check_passed_,       \
               check_failed_);                                               \
        return check_failed_ ? 1 : 0;                                        \
    } while (0)

#endif
