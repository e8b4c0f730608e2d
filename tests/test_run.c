/*
 * test_run.c — whole runs against what must hold analytically
 * (docs/models.md, trim policies), and determinism:
 *   - with the ideal allocator, rss = accounted + untracked + base exactly,
 *     at every sample;
 *   - with periodic trim every T on a steady stream of r bytes/s of new
 *     objects, the peak excess of accounted over the limit is r*T (±10%);
 *     with on-insert trim it is below one object;
 *   - the same replay twice gives identical samples and metrics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/schema.h"
#include "check.h"
#include "sim/base/config.h"
#include "sim/run.h"
#include "traces/trace.h"

static char trace_path[512];

/* SETs of fresh keys: obj_bytes every gap_ns for dur_ns. */
static void write_stream(const char *path, uint64_t obj_bytes, uint64_t gap_ns, uint64_t dur_ns)
{
    rs_trace_writer *w;
    rs_err err;
    if (rs_trace_writer_open(&w, path, "binary", "kv", &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    uint64_t key = 1;
    for (uint64_t t = 0; t <= dur_ns; t += gap_ns) {
        rs_rec r = { .t_ns = t, .key = key++, .size_bytes = obj_bytes, .op = RS_OP_SET };
        if (rs_trace_write(w, &r, &err))
            exit(1);
    }
    if (rs_trace_writer_close(w, &err))
        exit(1);
}

static rs_config *config(const char *const *kv)
{
    rs_config *cfg;
    rs_err err;
    rs_config_new(&cfg, &err);
    for (; *kv; kv++)
        if (rs_config_set_kv(cfg, *kv, "test", &err))
            abort();
    return cfg;
}

static double metric(const rs_result *res, const char *name)
{
    double v = -1;
    rs_result_metric(res, name, &v);
    return v;
}

static void test_ideal_identity(void)
{
    static const char *kv[] = { "alloc=ideal", "layout=kv-map", "trim=periodic",
                                "trim_interval=50ms", "kv_cache_limit=4M", "base_bytes=3M",
                                "sample_interval=10ms", NULL };
    rs_config *cfg = config(kv);
    rs_result res;
    rs_err err;
    int bad = 0;

    rs_result_init(&res);
    CHECK_MSG(rs_run_execute(trace_path, cfg, &res, NULL, &err) == 0, "%s", err.msg);
    CHECK(res.nsamples > 100);
    for (size_t i = 0; i < res.nsamples; i++) {
        const rs_sample *s = &res.samples[i];
        bad += s->rss_bytes != s->accounted_bytes + s->untracked_bytes + s->base_bytes;
        bad += s->resident_bytes != s->requested_bytes;
    }
    CHECK_MSG(bad == 0, "%d samples break rss = accounted + untracked + base", bad);
    /* kv-map with 40-char keys: 72 + 41 untracked bytes per 1000-byte object */
    const rs_sample *last = &res.samples[res.nsamples - 1];
    CHECK_MSG(last->untracked_bytes == last->items_count * (72 + 41), "untracked %llu items %llu",
              (unsigned long long)last->untracked_bytes, (unsigned long long)last->items_count);
    CHECK(last->accounted_bytes == last->items_count * 1000);
    rs_result_release(&res);
    rs_config_free(cfg);
}

static void check_excess(const char *trim, const char *interval, double want, double tol)
{
    const char *kv[] = { "alloc=ideal", "layout=kv-object", trim, interval, "kv_cache_limit=8M",
                         "sample_interval=100ms", NULL };
    rs_config *cfg = config(kv);
    rs_result res;
    rs_err err;

    rs_result_init(&res);
    CHECK_MSG(rs_run_execute(trace_path, cfg, &res, NULL, &err) == 0, "%s", err.msg);
    double excess = metric(&res, "excess_peak_bytes");
    CHECK_MSG(excess >= want * (1 - tol) && excess <= want * (1 + tol),
              "%s %s: peak excess %.0f B, want %.0f B within %.0f%%", trim, interval, excess, want,
              tol * 100);
    CHECK(metric(&res, "trims_count") > 0);
    rs_result_release(&res);
    rs_config_free(cfg);
}

static void test_periodic_excess(void)
{
    /* 1000 B every 100 us = 10^7 B/s */
    check_excess("trim=periodic", "trim_interval=200ms", 1e7 * 0.2, 0.10);
    check_excess("trim=periodic", "trim_interval=50ms", 1e7 * 0.05, 0.10);
    check_excess("trim=periodic", "trim_interval=1s", 1e7 * 1.0, 0.10);
}

static void test_on_insert_excess(void)
{
    static const char *kv[] = { "alloc=ideal", "layout=kv-object", "trim=on-insert",
                                "kv_cache_limit=8M", NULL };
    rs_config *cfg = config(kv);
    rs_result res;
    rs_err err;
    rs_result_init(&res);
    CHECK(rs_run_execute(trace_path, cfg, &res, NULL, &err) == 0);
    CHECK_MSG(metric(&res, "excess_peak_bytes") <= 1000, "excess %.0f", metric(&res, "excess_peak_bytes"));
    rs_result_release(&res);
    rs_config_free(cfg);
}

static void test_determinism(void)
{
    static const char *kv[] = { "alloc=jemalloc", "layout=kv-map", "trim=periodic",
                                "kv_cache_limit=4M", "sample_interval=20ms", NULL };
    rs_result a, b;
    rs_err err;
    rs_config *cfg = config(kv);

    rs_result_init(&a);
    rs_result_init(&b);
    CHECK(rs_run_execute(trace_path, cfg, &a, NULL, &err) == 0);
    CHECK(rs_run_execute(trace_path, cfg, &b, NULL, &err) == 0);
    CHECK(a.nsamples == b.nsamples && a.nsamples > 0);
    CHECK(a.nsamples == b.nsamples && memcmp(a.samples, b.samples, a.nsamples * sizeof *a.samples) == 0);
    CHECK(a.nmetrics == b.nmetrics && a.nmetrics > 10);
    int same = a.nmetrics == b.nmetrics;
    for (size_t i = 0; same && i < a.nmetrics; i++)
        same = strcmp(a.metrics[i].name, b.metrics[i].name) == 0 && a.metrics[i].value == b.metrics[i].value;
    CHECK(same);
    rs_result_release(&a);
    rs_result_release(&b);
    rs_config_free(cfg);
}

/* A GET/SET/DEL mix over 5000 keys, each key written as map(key). */
static void write_mix(const char *path, uint64_t (*map)(uint64_t))
{
    rs_trace_writer *w;
    rs_err err;
    uint64_t x = 12345;
    if (rs_trace_writer_open(&w, path, "binary", "kv", &err))
        exit(1);
    for (uint64_t i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = x >> 33, k = (r % 5000) * (r % 5000) / 5000; /* skewed to small keys */
        unsigned op = r % 20 < 16 ? RS_OP_GET : r % 20 < 19 ? RS_OP_SET : RS_OP_DEL;
        rs_rec rec = { .t_ns = i * 10000, .key = map(k), .size_bytes = 100 + (k * 37) % 3000,
                       .op = (uint8_t)op };
        if (rs_trace_write(w, &rec, &err))
            exit(1);
    }
    if (rs_trace_writer_close(w, &err))
        exit(1);
}

static uint64_t key_small(uint64_t k) { return k; }
static uint64_t key_boundary(uint64_t k) { return 0x7ffffffeull - 2500 + k; } /* half each way */
static uint64_t key_hashed(uint64_t k) { return k * 0x9e3779b97f4a7c15ull | (1ull << 63); }

/* The key table stores small keys as themselves and others by a hash
 * fingerprint; which one must not change any result. */
static void test_key_encodings(void)
{
    static const char *kv[] = { "alloc=jemalloc", "layout=kv-map", "trim=periodic",
                                "kv_cache_limit=2M", "sample_interval=20ms", NULL };
    uint64_t (*maps[])(uint64_t) = { key_small, key_boundary, key_hashed };
    rs_result res[3];
    rs_err err;
    char path[600];
    rs_config *cfg = config(kv);

    snprintf(path, sizeof path, "%s.mix", trace_path);
    for (int m = 0; m < 3; m++) {
        write_mix(path, maps[m]);
        rs_result_init(&res[m]);
        CHECK_MSG(rs_run_execute(path, cfg, &res[m], NULL, &err) == 0, "%s", err.msg);
    }
    CHECK(metric(&res[0], "trimmed_items_count") > 1000);
    for (int m = 1; m < 3; m++) {
        CHECK(res[m].nsamples == res[0].nsamples &&
              memcmp(res[m].samples, res[0].samples, res[0].nsamples * sizeof *res[0].samples) == 0);
        int same = res[m].nmetrics == res[0].nmetrics;
        for (size_t i = 0; same && i < res[0].nmetrics; i++)
            same = res[m].metrics[i].value == res[0].metrics[i].value;
        CHECK_MSG(same, "key encoding %d changes the metrics", m);
    }
    for (int m = 0; m < 3; m++)
        rs_result_release(&res[m]);
    unlink(path);
    rs_config_free(cfg);
}

/* Pinned objects survive every trim; unpinned, they go like the rest. */
static void test_pinning(void)
{
    char path[600];
    rs_trace_writer *w;
    rs_err err;
    snprintf(path, sizeof path, "%s.pin", trace_path);
    CHECK(rs_trace_writer_open(&w, path, "text", "kv", &err) == 0);
    uint64_t t = 0;
    /* keys 1..100 inserted and pinned, then 10,000 more keys stream by */
    for (uint64_t k = 1; k <= 100; k++) {
        rs_rec set = { .t_ns = t += 1000, .key = k, .size_bytes = 1000, .op = RS_OP_SET };
        rs_rec pin = { .t_ns = t += 1000, .key = k, .op = RS_OP_PIN };
        rs_trace_write(w, &set, &err);
        rs_trace_write(w, &pin, &err);
    }
    for (uint64_t k = 1000; k < 11000; k++) {
        rs_rec set = { .t_ns = t += 100000, .key = k, .size_bytes = 1000, .op = RS_OP_SET };
        rs_trace_write(w, &set, &err);
    }
    /* the pinned objects are still there: reading them inserts (and so
     * trims) nothing */
    uint64_t gets_from = t, gets_to;
    for (uint64_t k = 1; k <= 100; k++) {
        rs_rec get = { .t_ns = t += 1000000, .key = k, .size_bytes = 1000, .op = RS_OP_GET };
        rs_trace_write(w, &get, &err);
    }
    gets_to = t;
    for (uint64_t k = 1; k <= 100; k++) {
        rs_rec unpin = { .t_ns = t += 1000, .key = k, .op = RS_OP_UNPIN };
        rs_trace_write(w, &unpin, &err);
    }
    t += 1000000000; /* a quiet second before the last stream */
    for (uint64_t k = 20000; k < 22000; k++) {
        rs_rec set = { .t_ns = t += 100000, .key = k, .size_bytes = 1000, .op = RS_OP_SET };
        rs_trace_write(w, &set, &err);
    }
    CHECK(rs_trace_writer_close(w, &err) == 0);

    static const char *kv[] = { "alloc=ideal", "layout=kv-object", "trim=on-insert",
                                "kv_cache_limit=200K", "sample_interval=10ms", NULL };
    rs_config *cfg = config(kv);
    rs_result res;
    rs_result_init(&res);
    CHECK_MSG(rs_run_execute(path, cfg, &res, NULL, &err) == 0, "%s", err.msg);
    /* first samples after the stream and after the reads (samples see the
     * state before events at their own time) */
    uint64_t trimmed_before = UINT64_MAX, trimmed_after = UINT64_MAX;
    for (size_t i = 0; i < res.nsamples; i++) {
        const rs_sample *s = &res.samples[i];
        if (s->t_ns > gets_from && trimmed_before == UINT64_MAX)
            trimmed_before = s->trimmed_items_count;
        if (s->t_ns > gets_to && trimmed_after == UINT64_MAX)
            trimmed_after = s->trimmed_items_count;
    }
    CHECK_MSG(trimmed_before == trimmed_after,
              "reading pinned objects trimmed %llu items: they had been evicted",
              (unsigned long long)(trimmed_after - trimmed_before));
    /* 10,000 objects went by a 200-object cache: trims happened */
    CHECK(metric(&res, "trimmed_items_count") >= 9000);
    /* after unpinning and 2,000 more objects, the cache holds its limit only */
    const rs_sample *last = &res.samples[res.nsamples - 1];
    CHECK_MSG(last->accounted_bytes <= 200 * 1024, "accounted %llu", (unsigned long long)last->accounted_bytes);
    rs_result_release(&res);
    rs_config_free(cfg);
    unlink(path);
}

static void test_wrong_daemon_and_bad_values(void)
{
    rs_result res;
    rs_err err;
    static const char *bad_trim[] = { "trim=sometimes", NULL };
    rs_config *cfg = config(bad_trim);
    rs_result_init(&res);
    CHECK(rs_run_execute(trace_path, cfg, &res, NULL, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "unknown trim policy 'sometimes'") != NULL, "%s", err.msg);
    rs_result_release(&res);
    rs_config_free(cfg);
}

int main(void)
{
    snprintf(trace_path, sizeof trace_path, "%s/rssim-test-run-%ld.bin",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    write_stream(trace_path, 1000, 100000, 5000000000ull);
    test_ideal_identity();
    test_periodic_excess();
    test_on_insert_excess();
    test_determinism();
    test_key_encodings();
    test_pinning();
    test_wrong_daemon_and_bad_values();
    unlink(trace_path);
    return check_done();
}
