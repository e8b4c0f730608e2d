/*
 * test_gen.c — the kv generator: byte-identical output for the same options
 * and seed, per-key stable sizes, the key permutation (a bijection of
 * [0, keys) that moves the hot keys away from 0..k), Zipf rank-1 frequency
 * against the exact pmf, uniform keys, op mix, arrival rate, threads, size
 * distributions, and every bad option.  Statistical checks use fixed seeds
 * and tolerances of several standard deviations, so they are deterministic.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gen_util.h"
#include "sim/base/config.h"
#include "traces/gen/gen.h"
#include "traces/trace.h"

extern const rs_gen_ops rs_gen_kv;

/* Generate with "k=v" settings (NULL-terminated) into path; returns the rc. */
static int gen(const char *path, const char *format, const char *const *kv, rs_err *err)
{
    return gen_with(&rs_gen_kv, path, format, kv, NULL, 0, err);
}

static uint8_t *slurp(const char *path, size_t *r_n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    *r_n = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static int same_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    uint8_t *pa = slurp(a, &na), *pb = slurp(b, &nb);
    int same = pa && pb && na == nb && memcmp(pa, pb, na) == 0;
    free(pa);
    free(pb);
    return same;
}

typedef struct tally {
    uint64_t records, ops[RS_OP__MAX + 1];
    uint64_t *key_count;   /* by key id, keys entries */
    uint64_t *key_size;    /* last nonzero size by key id */
    uint64_t keys, max_key, max_thread, first_t_ns, last_t_ns;
    int size_unstable, key_out_of_range, thread_seen[8];
} tally;

static int read_tally(const char *path, uint64_t keys, tally *t)
{
    rs_err err = { 0 };
    rs_trace *tr;
    rs_rec r;
    int rc;

    memset(t, 0, sizeof *t);
    t->keys = keys;
    t->key_count = calloc(keys, sizeof *t->key_count);
    t->key_size = calloc(keys, sizeof *t->key_size);
    if ((rc = rs_trace_open(&tr, path, &err))) {
        CHECK_MSG(rc == 0, "%s", err.msg);
        return rc;
    }
    CHECK(strcmp(rs_trace_daemon(tr), "kv") == 0);
    while ((rc = rs_trace_next(tr, &r, &err)) == 1) {
        if (t->records++ == 0)
            t->first_t_ns = r.t_ns;
        t->last_t_ns = r.t_ns;
        t->ops[r.op]++;
        if (r.thread > t->max_thread)
            t->max_thread = r.thread;
        if (r.thread < 8)
            t->thread_seen[r.thread] = 1;
        if (r.key >= keys) {
            t->key_out_of_range = 1;
            continue;
        }
        t->key_count[r.key]++;
        if (r.size_bytes) {
            if (t->key_size[r.key] && t->key_size[r.key] != r.size_bytes)
                t->size_unstable = 1;
            t->key_size[r.key] = r.size_bytes;
        }
    }
    CHECK_MSG(rc == 0, "%s", err.msg);
    rs_trace_close(tr);
    return rc;
}

static void tally_free(tally *t)
{
    free(t->key_count);
    free(t->key_size);
}

static void test_determinism(void)
{
    const char *const a[] = { "keys=5000", "events=20000", "seed=7", "threads=3", NULL };
    const char *const b[] = { "keys=5000", "events=20000", "seed=8", "threads=3", NULL };
    rs_err err = { 0 };

    CHECK_MSG(gen(path_in("a1.bin"), "binary", a, &err) == 0, "%s", err.msg);
    CHECK_MSG(gen(path_in("a2.bin"), "binary", a, &err) == 0, "%s", err.msg);
    CHECK_MSG(gen(path_in("a1.tsv.zst"), "text", a, &err) == 0, "%s", err.msg);
    CHECK_MSG(gen(path_in("a2.tsv.zst"), "text", a, &err) == 0, "%s", err.msg);
    CHECK_MSG(gen(path_in("b.bin"), "binary", b, &err) == 0, "%s", err.msg);
    CHECK(same_bytes(path_in("a1.bin"), path_in("a2.bin")));
    CHECK(same_bytes(path_in("a1.tsv.zst"), path_in("a2.tsv.zst")));
    CHECK(!same_bytes(path_in("a1.bin"), path_in("b.bin")));

    /* text and binary carry the same records */
    rs_trace *x, *y;
    rs_rec rx, ry;
    int rcx, rcy, same = 1;
    CHECK(rs_trace_open(&x, path_in("a1.bin"), &err) == 0);
    CHECK(rs_trace_open(&y, path_in("a1.tsv.zst"), &err) == 0);
    do {
        rcx = rs_trace_next(x, &rx, &err);
        rcy = rs_trace_next(y, &ry, &err);
        if (rcx != rcy || (rcx == 1 && memcmp(&rx, &ry, sizeof rx) != 0))
            same = 0;
    } while (same && rcx == 1);
    CHECK(same && rcx == 0);
    rs_trace_close(x);
    rs_trace_close(y);

    /* header only */
    const char *const none[] = { "events=0", NULL };
    tally t;
    CHECK_MSG(gen(path_in("none.bin"), "binary", none, &err) == 0, "%s", err.msg);
    read_tally(path_in("none.bin"), 100000, &t);
    CHECK_EQ_U64(t.records, 0);
    tally_free(&t);
}

static void test_defaults_shape(void)
{
    /* default options except the count: sizes stable, keys in range, mix, rate */
    const char *const o[] = { "events=200000", "keys=20000", NULL };
    rs_err err = { 0 };
    tally t;
    CHECK_MSG(gen(path_in("d.bin"), "binary", o, &err) == 0, "%s", err.msg);
    read_tally(path_in("d.bin"), 20000, &t);
    CHECK_EQ_U64(t.records, 200000);
    CHECK(!t.key_out_of_range);
    CHECK(!t.size_unstable);
    CHECK(t.max_thread == 0);
    /* op mix 0.8/0.15/0.05: binomial sd < 0.1% of n */
    CHECK(fabs((double)t.ops[RS_OP_GET] / 200000 - 0.80) < 0.005);
    CHECK(fabs((double)t.ops[RS_OP_SET] / 200000 - 0.15) < 0.005);
    CHECK(fabs((double)t.ops[RS_OP_DEL] / 200000 - 0.05) < 0.005);
    /* Poisson at 100000/s: mean gap 10 us, relative sd of the sum 1/sqrt(n) */
    double mean_gap = (double)t.last_t_ns / 200000;
    CHECK_MSG(fabs(mean_gap / 10000 - 1) < 0.01, "mean gap %.1f ns", mean_gap);
    CHECK(t.first_t_ns > 0);
    /* lognormal sizes: median of the distinct keys' sizes near 2K, clamped to [64, 64K] */
    uint64_t below = 0, n = 0, lo = UINT64_MAX, hi = 0;
    for (uint64_t k = 0; k < 20000; k++) {
        uint64_t s = t.key_size[k];
        if (!s)
            continue;
        n++;
        below += s < 2048;
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    CHECK(n > 10000);
    CHECK_MSG(fabs((double)below / (double)n - 0.5) < 0.03, "%llu of %llu below median",
              (unsigned long long)below, (unsigned long long)n);
    CHECK(lo >= 64 && hi <= 65536);
    tally_free(&t);
}

static void test_zipf(void)
{
    /* alpha 0.99 over 1000 keys: rank 1's share is 1 / sum k^-0.99 */
    const char *const o[] = { "events=400000", "keys=1000", "alpha=0.99", "seed=3", NULL };
    rs_err err = { 0 };
    tally t;
    double h = 0;
    for (int k = 1; k <= 1000; k++)
        h += pow(k, -0.99);
    CHECK_MSG(gen(path_in("z.bin"), "binary", o, &err) == 0, "%s", err.msg);
    read_tally(path_in("z.bin"), 1000, &t);
    uint64_t top = 0, top_key = 0, second = 0, hot_low = 0;
    for (uint64_t k = 0; k < 1000; k++) {
        if (t.key_count[k] > top) {
            second = top;
            top = t.key_count[k];
            top_key = k;
        } else if (t.key_count[k] > second) {
            second = t.key_count[k];
        }
    }
    double p1 = 1 / h, got = (double)top / 400000;
    CHECK_MSG(fabs(got / p1 - 1) < 0.03, "rank-1 share %.4f, expected %.4f", got, p1);
    double p2 = pow(2, -0.99) / h, got2 = (double)second / 400000;
    CHECK_MSG(fabs(got2 / p2 - 1) < 0.04, "rank-2 share %.4f, expected %.4f", got2, p2);
    /* hot keys are spread: the 10 hottest are not 0..9 */
    for (uint64_t k = 0; k < 10; k++)
        hot_low += t.key_count[k] > (uint64_t)(400000 * pow(10, -0.99) / h);
    CHECK(hot_low < 10);
    (void)top_key;
    tally_free(&t);

    /* alpha 0: uniform, and the permutation reaches every key of [0, 37) */
    const char *const u[] = { "events=37000", "keys=37", "alpha=0", NULL };
    CHECK_MSG(gen(path_in("u.bin"), "binary", u, &err) == 0, "%s", err.msg);
    read_tally(path_in("u.bin"), 37, &t);
    uint64_t mn = UINT64_MAX, mx = 0;
    for (uint64_t k = 0; k < 37; k++) {
        mn = t.key_count[k] < mn ? t.key_count[k] : mn;
        mx = t.key_count[k] > mx ? t.key_count[k] : mx;
    }
    CHECK(!t.key_out_of_range);
    CHECK_MSG(mn > 850 && mx < 1150, "uniform counts %llu .. %llu", (unsigned long long)mn,
              (unsigned long long)mx); /* sd ~31 */
    tally_free(&t);

    /* alpha 1 exactly, and large alpha: rank 1 dominates */
    const char *const one[] = { "events=50000", "keys=100", "alpha=1", NULL };
    CHECK_MSG(gen(path_in("one.bin"), "binary", one, &err) == 0, "%s", err.msg);
    read_tally(path_in("one.bin"), 100, &t);
    h = 0;
    for (int k = 1; k <= 100; k++)
        h += 1.0 / k;
    top = 0;
    for (uint64_t k = 0; k < 100; k++)
        top = t.key_count[k] > top ? t.key_count[k] : top;
    CHECK_MSG(fabs((double)top / 50000 * h - 1) < 0.04, "alpha=1 rank-1 share %.4f",
              (double)top / 50000);
    tally_free(&t);

    /* one key only */
    const char *const single[] = { "events=100", "keys=1", NULL };
    CHECK_MSG(gen(path_in("s.bin"), "binary", single, &err) == 0, "%s", err.msg);
    read_tally(path_in("s.bin"), 1, &t);
    CHECK(t.key_count[0] == 100 && !t.key_out_of_range);
    tally_free(&t);
}

static void test_sizes_threads_mix(void)
{
    rs_err err = { 0 };
    tally t;

    const char *const fixed[] = { "events=5000", "keys=300", "size-dist=fixed", "size=1M", NULL };
    CHECK_MSG(gen(path_in("f.bin"), "binary", fixed, &err) == 0, "%s", err.msg);
    read_tally(path_in("f.bin"), 300, &t);
    int all = 1;
    for (uint64_t k = 0; k < 300; k++)
        all &= t.key_size[k] == 0 || t.key_size[k] == 1048576;
    CHECK(all);
    tally_free(&t);

    const char *const uni[] = { "events=20000", "keys=2000", "size-dist=uniform", "size-min=100",
                                "size-max=200", "threads=4", "get=0", "set=1", "del=0", NULL };
    CHECK_MSG(gen(path_in("un.bin"), "binary", uni, &err) == 0, "%s", err.msg);
    read_tally(path_in("un.bin"), 2000, &t);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t k = 0; k < 2000; k++) {
        if (!t.key_size[k])
            continue;
        lo = t.key_size[k] < lo ? t.key_size[k] : lo;
        hi = t.key_size[k] > hi ? t.key_size[k] : hi;
    }
    CHECK(lo == 100 && hi == 200);
    CHECK(t.ops[RS_OP_SET] == 20000);
    CHECK(t.max_thread == 3 && t.thread_seen[0] && t.thread_seen[1] && t.thread_seen[2]);
    tally_free(&t);

    const char *const del_only[] = { "events=1000", "get=0", "set=0", "del=2", NULL };
    CHECK_MSG(gen(path_in("del.bin"), "binary", del_only, &err) == 0, "%s", err.msg);
    read_tally(path_in("del.bin"), 100000, &t);
    CHECK(t.ops[RS_OP_DEL] == 1000);
    tally_free(&t);

    /* the same key keeps its size across seeds? no: sizes depend on (seed, key) */
    const char *const s1[] = { "events=3000", "keys=50", "seed=1", NULL };
    const char *const s2[] = { "events=3000", "keys=50", "seed=2", NULL };
    tally t2;
    CHECK(gen(path_in("s1.bin"), "binary", s1, &err) == 0);
    CHECK(gen(path_in("s2.bin"), "binary", s2, &err) == 0);
    read_tally(path_in("s1.bin"), 50, &t);
    read_tally(path_in("s2.bin"), 50, &t2);
    int differ = 0;
    for (uint64_t k = 0; k < 50; k++)
        differ += t.key_size[k] && t2.key_size[k] && t.key_size[k] != t2.key_size[k];
    CHECK(differ > 25);
    CHECK(!t.size_unstable && !t2.size_unstable);
    tally_free(&t);
    tally_free(&t2);
}

static void expect_bad(const char *kv, const char *want, int line)
{
    const char *const o[] = { "events=10", kv, NULL };
    rs_err err = { 0 };
    int rc = gen(path_in("bad.bin"), "binary", o, &err);
    if (rc != RS_EINPUT || !strstr(err.msg, want)) {
        check_failed++;
        fprintf(stderr, "%s:%d: %s: expected \"%s\", got %d \"%s\"\n", __FILE__, line, kv, want,
                rc, err.msg);
    } else {
        check_passed++;
    }
    CHECK(access(path_in("bad.bin"), F_OK) != 0 && access(path_in("bad.bin.tmp"), F_OK) != 0);
}

static void test_bad_options(void)
{
    expect_bad("keys=0", "bad value '0' for key 'keys': must be in 1 .. 4294967295", __LINE__);
    expect_bad("keys=4294967296", "key 'keys'", __LINE__);
    expect_bad("events=-1", "bad value '-1' for key 'events'", __LINE__);
    expect_bad("rate=0", "bad value '0' for key 'rate': must be > 0", __LINE__);
    expect_bad("alpha=-0.5", "key 'alpha'", __LINE__);
    expect_bad("size-dist=pareto", "bad value 'pareto' for key 'size-dist': expected one of fixed, uniform, lognormal", __LINE__);
    expect_bad("size=0", "key 'size'", __LINE__);
    expect_bad("size-max=32", "bad value '32' for key 'size-max': must be >= size-min", __LINE__);
    expect_bad("size-sigma=-1", "key 'size-sigma'", __LINE__);
    expect_bad("get=-1", "key 'get'", __LINE__);
    expect_bad("threads=0", "key 'threads'", __LINE__);
    expect_bad("threads=65537", "key 'threads'", __LINE__);
    expect_bad("keys=abc", "bad value 'abc' for key 'keys'", __LINE__); /* from rs_config_validate */
    expect_bad("color=red", "unknown key 'color'", __LINE__);
    const char *const zero[] = { "get=0", "set=0", "del=0", NULL };
    rs_err err = { 0 };
    CHECK(gen(path_in("bad.bin"), "binary", zero, &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "get + set + del must be > 0") != NULL);
    /* the param table is well formed and has seed */
    int has_seed = 0;
    for (const rs_param *p = rs_gen_kv.params; p->key; p++) {
        has_seed |= strcmp(p->key, "seed") == 0;
        CHECK_MSG(rs_param_check(p->type, p->def) == 0, "default of %s", p->key);
        CHECK(p->doc && *p->doc);
    }
    CHECK(has_seed);
}

static void cleanup(void)
{
    static const char *const files[] = {
        "a1.bin", "a2.bin", "a1.tsv.zst", "a2.tsv.zst", "b.bin", "none.bin", "d.bin", "z.bin",
        "u.bin", "one.bin", "s.bin", "f.bin", "un.bin", "del.bin", "s1.bin", "s2.bin",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(path_in(files[i]));
    CHECK_MSG(rmdir(dir) == 0, "leftover files in %s", dir);
}

int main(void)
{
    if (scratch_dir("gen"))
        return 1;
    test_determinism();
    test_defaults_shape();
    test_zipf();
    test_sizes_threads_mix();
    test_bad_options();
    cleanup();
    return check_done();
}
