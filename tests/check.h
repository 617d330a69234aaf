// A tiny test harness: CHECK(cond, fmt, ...) records a failure with its
// place and message and goes on; check_done() prints the tally and returns
// the exit status for main().
#ifndef PSB_CHECK_H
#define PSB_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/// |a - b| <= tol * max(1, |b|): a relative check that also works near zero.
#define CHECK_CLOSE(a, b, tol)                                                                     \
    do {                                                                                           \
        double check_a_ = (a), check_b_ = (b);                                                     \
        double check_scale_ = fabs(check_b_) > 1.0 ? fabs(check_b_) : 1.0;                         \
        CHECK(fabs(check_a_ - check_b_) <= (tol)*check_scale_,                                     \
              "%s = %.17g, expected %.17g (tolerance %g)", #a, check_a_, check_b_, (double)(tol)); \
    } while (0)

static inline int check_done(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures == 0 ? 0 : 1;
}

#endif
