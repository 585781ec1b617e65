/*
 * bench_util.h - the shared benchmark framework of test/bench (header only).
 *
 *   - bench_rng: a tiny deterministic PRNG (splitmix64 seeding + xoshiro256**), so a
 *     fixed seed gives the same data on every machine;
 *   - bench_run(): a zstd-benchfn-style loop: warm up, then BENCH_RUNS runs of at least
 *     BENCH_BUDGET seconds each; reports the best and the median ns per item and MB/s;
 *   - printing helpers: one row per case, ratios against a baseline, target lines.
 *
 * Lines starting with "summary:" are collected by test/bench/run.sh into the final
 * table, so every benchmark program reports its ratios and targets with
 * bench_ratio() / bench_target() and nothing else is needed to plug it in.
 *
 * Environment: BENCH_BUDGET (seconds per run, default 0.3), BENCH_RUNS (default 5),
 * BENCH_QUICK=1 (0.02 s x 2 runs: a smoke test that the code paths work),
 * BENCH_FILTER="a|b" (time only the cases whose name contains a or b; e.g. for perf).
 */
#ifndef TFN_BENCH_UTIL_H
#define TFN_BENCH_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Under valgrind --tool=callgrind (test/bench/run.sh with BENCH_CALLGRIND=1) every
 * case runs a fixed number of calls with instruction collection on, then dumps its
 * counts under its name: a load-independent second measure. */
#if defined(__has_include)
#    if __has_include(<valgrind/callgrind.h>)
#        include <valgrind/callgrind.h>
#        define BENCH_HAVE_CALLGRIND 1
#    endif
#endif

#if defined(__GNUC__)
#    define BENCH_UNUSED __attribute__((unused))
#else
#    define BENCH_UNUSED
#endif

/* ---------------------------------------------------------------- clock */

BENCH_UNUSED static uint64_t bench_now_ns(void)
{
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else /* without _POSIX_C_SOURCE (run.sh defines it): C11's clock */
    timespec_get(&ts, TIME_UTC);
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keeps the compiler from dropping a computation whose result is otherwise unused. */
BENCH_UNUSED static void bench_keep(const void *p)
{
#if defined(__GNUC__)
    __asm__ volatile("" : : "r"(p) : "memory");
#else
    (void)p;
#endif
}

/* ---------------------------------------------------------------- PRNG */

typedef struct bench_rng {
    uint64_t s[4];
} bench_rng;

static inline uint64_t bench__splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

BENCH_UNUSED static void bench_rng_seed(bench_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = bench__splitmix64(&seed);
}

static inline uint64_t bench__rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256**: next 64 random bits. */
static inline uint64_t bench_rng_next(bench_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = bench__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = bench__rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double bench_rng_uniform(bench_rng *r)
{
    return (double)(bench_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal deviate (Box-Muller; one of the pair is dropped: simple and
 * deterministic, speed does not matter for data generation). */
BENCH_UNUSED static double bench_rng_normal(bench_rng *r)
{
    double u1 = bench_rng_uniform(r), u2 = bench_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Uniform integer in [lo, hi] (hi - lo < 2^32; the modulo bias is irrelevant here). */
BENCH_UNUSED static int64_t bench_rng_range(bench_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1u;
    return lo + (int64_t)(bench_rng_next(r) % span);
}

/* ---------------------------------------------------------------- timing loop */

/* One call of a case does some work and says how much (items, e.g. examples, and the
 * bytes they represent, for MB/s). Return non-zero to abort the benchmark. */
typedef struct bench_work {
    uint64_t items;
    uint64_t bytes;
} bench_work;

typedef int (*bench_fn)(void *ctx, bench_work *work);

#define BENCH_MAX_RUNS 32

typedef struct bench_result {
    const char *name;
    double best_ns;   /* best run: ns per item */
    double median_ns; /* median run: ns per item */
    double mb_s;      /* at the best run, 1 MB = 1e6 bytes; 0 when no bytes reported */
    uint64_t items;   /* items done in all timed runs */
    int failed;
    int skipped; /* BENCH_FILTER did not select it */
} bench_result;

typedef struct bench_config {
    double budget_s; /* seconds per run */
    int runs;        /* timed runs; best and median are taken over them */
    double warmup_s; /* untimed warm-up before the first run */
} bench_config;

BENCH_UNUSED static bench_config bench_config_from_env(void)
{
    bench_config c = {0.3, 5, 0.1};
    const char *q = getenv("BENCH_QUICK");
    if (q && *q && strcmp(q, "0") != 0) {
        c.budget_s = 0.02;
        c.runs = 2;
        c.warmup_s = 0.01;
    }
    const char *b = getenv("BENCH_BUDGET");
    if (b && atof(b) > 0)
        c.budget_s = atof(b);
    const char *r = getenv("BENCH_RUNS");
    if (r && atoi(r) > 0)
        c.runs = atoi(r) > BENCH_MAX_RUNS ? BENCH_MAX_RUNS : atoi(r);
    return c;
}

/* BENCH_FILTER: '|'-separated substrings; a case runs when its name contains one. */
static int bench__selected(const char *name)
{
    const char *f = getenv("BENCH_FILTER");
    if (!f || !*f)
        return 1;
    while (*f) {
        const char *bar = strchr(f, '|');
        size_t len = bar ? (size_t)(bar - f) : strlen(f);
        for (const char *s = name; len && *s; s++)
            if (strncmp(s, f, len) == 0)
                return 1;
        f += len + (bar != NULL);
    }
    return 0;
}

static int bench__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs `fn` until `seconds` have passed (at least once); adds up its work. */
static int bench__loop(bench_fn fn, void *ctx, double seconds, bench_work *total, uint64_t *ns)
{
    uint64_t budget = (uint64_t)(seconds * 1e9), t0 = bench_now_ns(), t;
    do {
        if (fn(ctx, total))
            return 1;
        t = bench_now_ns();
    } while (t - t0 < budget);
    *ns = t - t0;
    return 0;
}

/* Times one case. */
BENCH_UNUSED static bench_result bench_run(const char *name, bench_fn fn, void *ctx,
                                           const bench_config *cfg)
{
    bench_result res;
    memset(&res, 0, sizeof res);
    res.name = name;
    if (!bench__selected(name)) {
        res.skipped = res.failed = 1;
        return res;
    }
    double per_item[BENCH_MAX_RUNS], mbs[BENCH_MAX_RUNS];
    bench_work w = {0, 0};
#ifdef BENCH_HAVE_CALLGRIND
    if (RUNNING_ON_VALGRIND) {
        /* one warm-up call, then BENCH_CG_CALLS (default 3) counted calls */
        const char *k = getenv("BENCH_CG_CALLS");
        int calls = k && atoi(k) > 0 ? atoi(k) : 3;
        if (fn(ctx, &w)) {
            res.failed = 1;
            return res;
        }
        w.items = w.bytes = 0;
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < calls && !res.failed; i++)
            res.failed = fn(ctx, &w);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT(name);
        printf("callgrind-case\t%llu\t%s\n", (unsigned long long)w.items, name);
        res.items = w.items;
        res.skipped = res.failed = 1; /* no times: ratios print n/a */
        return res;
    }
#endif
    uint64_t ns = 0;
    if (bench__loop(fn, ctx, cfg->warmup_s, &w, &ns)) {
        res.failed = 1;
        return res;
    }
    int runs = cfg->runs < 1 ? 1 : cfg->runs > BENCH_MAX_RUNS ? BENCH_MAX_RUNS : cfg->runs;
    double best = INFINITY, best_mbs = 0;
    for (int i = 0; i < runs; i++) {
        w.items = w.bytes = 0;
        if (bench__loop(fn, ctx, cfg->budget_s, &w, &ns) || w.items == 0) {
            res.failed = 1;
            return res;
        }
        per_item[i] = (double)ns / (double)w.items;
        mbs[i] = (double)w.bytes * 1e3 / (double)ns;
        res.items += w.items;
        if (per_item[i] < best) {
            best = per_item[i];
            best_mbs = mbs[i];
        }
    }
    qsort(per_item, (size_t)runs, sizeof per_item[0], bench__cmp_double);
    res.best_ns = best;
    res.median_ns = runs % 2 ? per_item[runs / 2]
                             : 0.5 * (per_item[runs / 2 - 1] + per_item[runs / 2]);
    res.mb_s = best_mbs;
    return res;
}

/* ---------------------------------------------------------------- printing */

BENCH_UNUSED static void bench_print_title(const char *title)
{
    printf("\n== %s\n", title);
    printf("  %-52s %11s %11s %10s %9s\n", "case", "best ns", "median ns", "MB/s",
           "vs base");
}

/* One row; `base` (may be NULL) is the case the last column compares with:
 * base time / this time, so > 1 means faster than the base. */
BENCH_UNUSED static void bench_print_row(const bench_result *r, const bench_result *base)
{
    if (r->failed) {
        printf("  %-52s %s\n", r->name, r->skipped ? "skipped" : "FAILED");
        return;
    }
    char mb[32] = "-", rel[32] = "-";
    if (r->mb_s > 0)
        snprintf(mb, sizeof mb, "%.0f", r->mb_s);
    if (base && !base->failed && r->best_ns > 0)
        snprintf(rel, sizeof rel, "%.2fx", base->best_ns / r->best_ns);
    printf("  %-52s %11.1f %11.1f %10s %9s\n", r->name, r->best_ns, r->median_ns, mb, rel);
    fflush(stdout);
}

/* Ratio slow/fast of best times (and of medians), for the summary. */
BENCH_UNUSED static double bench_ratio(const char *what, const bench_result *fast,
                                       const bench_result *slow)
{
    if (fast->failed || slow->failed || fast->best_ns <= 0) {
        printf("summary: %-58s n/a (a case %s)\n", what,
               fast->skipped || slow->skipped ? "was skipped" : "failed");
        return 0;
    }
    double best = slow->best_ns / fast->best_ns, med = slow->median_ns / fast->median_ns;
    printf("summary: %-58s %6.2fx (median %.2fx)\n", what, best, med);
    return best;
}

/* A target on a ratio: met when ratio >= need (for "within k x of", pass the inverse
 * ratio and need = 1/k; `label` says it in words). Returns 1 when met. */
BENCH_UNUSED static int bench_target(const char *label, double ratio, double need)
{
    int met = ratio > 0 && ratio >= need;
    if (ratio <= 0) {
        printf("summary: TARGET %-51s    n/a\n", label);
        return 0;
    }
    printf("summary: TARGET %-51s %6.2fx need >= %.2fx  %s\n", label, ratio, need,
           met ? "MET" : "NOT MET");
    return met;
}

/* A target on a cost ratio: met when value <= limit (e.g. "within 2x of memcpy":
 * value = our time / memcpy time, limit = 2). Returns 1 when met. */
BENCH_UNUSED static int bench_target_at_most(const char *label, double value, double limit)
{
    int met = value > 0 && value <= limit;
    if (value <= 0) {
        printf("summary: TARGET %-51s    n/a\n", label);
        return 0;
    }
    printf("summary: TARGET %-51s %6.2fx need <= %.2fx  %s\n", label, value, limit,
           met ? "MET" : "NOT MET");
    return met;
}

/* Machine / build line, so saved outputs say where they came from. */
BENCH_UNUSED static void bench_print_env(const char *program)
{
    printf("%s: ", program);
#if defined(__VERSION__)
    printf("compiler %s, ", __VERSION__);
#endif
#if defined(__OPTIMIZE__)
    printf("optimized");
#else
    printf("NOT optimized");
#endif
    FILE *f = fopen("/proc/loadavg", "r");
    char load[64] = "";
    if (f) {
        if (fgets(load, sizeof load, f)) {
            char *nl = strchr(load, '\n');
            if (nl)
                *nl = 0;
        }
        fclose(f);
        printf(", loadavg %s", load);
    }
    printf("\n");
}

#endif /* TFN_BENCH_UTIL_H */
