/*
 * harness.h - the C tests' tiny framework. Each test file defines test functions,
 * lists them in main() with RUN(name), and returns harness_finish(), which prints
 * "N passed, N failed" as its last line. CHECK* macros record a failure with its
 * file:line and go on; REQUIRE* return from the test function on failure.
 */
#ifndef TFN_TEST_HARNESS_H
#define TFN_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int harness_failed_checks;
static int harness_tests_passed;
static int harness_tests_failed;
static const char *harness_current;

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            harness_failed_checks++;                                                        \
            fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__,           \
                    harness_current, #cond);                                                \
        }                                                                                   \
    } while (0)

#define REQUIRE(cond)                                                                       \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            harness_failed_checks++;                                                        \
            fprintf(stderr, "%s:%d: [%s] REQUIRE failed: %s\n", __FILE__, __LINE__,         \
                    harness_current, #cond);                                                \
            return;                                                                         \
        }                                                                                   \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                  \
    do {                                                                                    \
        long long ha_ = (long long)(a), hb_ = (long long)(b);                               \
        if (ha_ != hb_) {                                                                   \
            harness_failed_checks++;                                                        \
            fprintf(stderr, "%s:%d: [%s] %s == %s failed: %lld != %lld\n", __FILE__,        \
                    __LINE__, harness_current, #a, #b, ha_, hb_);                           \
        }                                                                                   \
    } while (0)

#define CHECK_STR(a, b)                                                                     \
    do {                                                                                    \
        const char *ha_ = (a), *hb_ = (b);                                                  \
        if (strcmp(ha_, hb_) != 0) {                                                        \
            harness_failed_checks++;                                                        \
            fprintf(stderr, "%s:%d: [%s] strings differ:\n  got:      \"%s\"\n  expected: \"%s\"\n", \
                    __FILE__, __LINE__, harness_current, ha_, hb_);                         \
        }                                                                                   \
    } while (0)

#define CHECK_MEM(a, alen, b, blen)                                                         \
    do {                                                                                    \
        size_t hal_ = (size_t)(alen), hbl_ = (size_t)(blen);                                \
        if (hal_ != hbl_ || memcmp((a), (b), hal_) != 0) {                                  \
            harness_failed_checks++;                                                        \
            fprintf(stderr, "%s:%d: [%s] bytes differ (%zu vs %zu bytes)\n", __FILE__,      \
                    __LINE__, harness_current, hal_, hbl_);                                 \
            harness_dump("  got", (const unsigned char *)(a), hal_);                        \
            harness_dump("  expected", (const unsigned char *)(b), hbl_);                   \
        }                                                                                   \
    } while (0)

static inline void harness_dump(const char *label, const unsigned char *p, size_t n)
{
    fprintf(stderr, "%s:", label);
    for (size_t i = 0; i < n && i < 96; i++)
        fprintf(stderr, " %02x", p[i]);
    fprintf(stderr, n > 96 ? " ...\n" : "\n");
}

#define RUN(fn)                                                                             \
    do {                                                                                    \
        int before_ = harness_failed_checks;                                                \
        harness_current = #fn;                                                              \
        fn();                                                                               \
        if (harness_failed_checks == before_)                                               \
            harness_tests_passed++;                                                         \
        else                                                                                \
            harness_tests_failed++;                                                         \
    } while (0)

static inline int harness_finish(void)
{
    printf("%d passed, %d failed\n", harness_tests_passed, harness_tests_failed);
    return harness_tests_failed ? 1 : 0;
}

/* Parses a hex string with optional spaces ("0a 0c ...") into buf; returns length. */
static inline size_t harness_hex(const char *hex, unsigned char *buf, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (const char *p = hex; *p; p++) {
        int v;
        if (*p >= '0' && *p <= '9')
            v = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            v = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            v = *p - 'A' + 10;
        else
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            if (n < cap)
                buf[n] = (unsigned char)(hi * 16 + v);
            n++;
            hi = -1;
        }
    }
    return n;
}

#endif
