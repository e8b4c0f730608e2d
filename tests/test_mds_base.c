/*
 * test_mds_base.c — the MDS outside its cache (models/daemon/mds_base.c)
 * against the rules it takes from Ceph, each expected value computed here
 * from the rule, not read back from the model:
 *   - MDLog::_submit_entry's segment boundaries: a new segment after
 *     mds_log_events_per_segment events, or when the write position leaves
 *     the segment's first journal object (a naive loop re-implements it);
 *   - fractional events per update: n updates journal floor(n x rate);
 *   - MDLog::trim at the tick: segments beyond mds_log_max_segments expire,
 *     at most half of the remaining ones per tick, dropped a tick later, so
 *     the live journal stays bounded and every event is expired or live;
 *   - the heap it holds, through the ideal allocator: sessions x
 *     mds_session_bytes + live events x ratio x event bytes, and expiry's
 *     writes never above objecter_inflight_op_bytes;
 *   - MDS_CACHE_OVERSIZED seen at ticks only: its seconds are a multiple of
 *     mds_tick_interval;
 *   - the model off (the daemon's defaults): no event, no heap.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/base/config.h"
#include "sim/schema.h"
#include "sim/run.h"
#include "traces/trace.h"

static char path[512];

typedef struct tw {
    rs_trace_writer *w;
    uint64_t t_ns, step_ns;
} tw;

static void tw_open(tw *t, uint64_t step_ns)
{
    rs_err err;
    snprintf(path, sizeof path, "%s/rssim-mds-base-%ld.bin",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    if (rs_trace_writer_open(&t->w, path, "binary", "mds", &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    t->t_ns = 0;
    t->step_ns = step_ns;
}

static void rec(tw *t, unsigned op, uint64_t ino, uint64_t parent, uint16_t client)
{
    rs_err err;
    rs_rec r = { .t_ns = t->t_ns, .key = ino, .size_bytes = parent, .aux = 8,
                 .thread = client, .op = (uint8_t)op };
    if (rs_trace_write(t->w, &r, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    t->t_ns += t->step_ns;
}

static void tw_close(tw *t)
{
    rs_err err;
    if (rs_trace_writer_close(t->w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
}

/* n creates in the root, spread over `clients` clients, one every step_ns. */
static void write_creates(int n, int clients, uint64_t step_ns)
{
    tw t;
    tw_open(&t, step_ns);
    for (int i = 0; i < n; i++)
        rec(&t, RS_OP_CREATE, 100 + (uint64_t)i, 1, (uint16_t)(i % clients));
    tw_close(&t);
}

static int run(const char *const *kv, rs_result *res, rs_err *err)
{
    rs_config *cfg;
    rs_config_new(&cfg, err);
    rs_config_set(cfg, "daemon", "mds", err);
    rs_config_set(cfg, "alloc", "ideal", err);
    rs_config_set(cfg, "mds_request_bytes", "0", err);
    rs_config_set(cfg, "mds_journal_event_bytes", "0", err);
    rs_config_set(cfg, "mds_cache_memory_limit", "1G", err);
    for (; *kv; kv++)
        if (rs_config_set_kv(cfg, *kv, "test", err))
            abort();
    rs_result_init(res);
    int rc = rs_run_execute(path, cfg, res, NULL, err);
    rs_config_free(cfg);
    return rc;
}

static double metric(const rs_result *res, const char *name)
{
    double v = -1;
    rs_result_metric(res, name, &v);
    return v;
}

/* Segments a journal of n events of `bytes` each ends with, by
 * MDLog::_submit_entry's rule (no trim: the most at once). */
static uint64_t naive_segments(uint64_t n, uint64_t bytes, uint64_t per_segment, uint64_t period)
{
    uint64_t segs = 1, start = 0, pos = 0, in_seg = 0;
    for (uint64_t i = 0; i < n; i++) {
        in_seg++;
        pos += bytes;
        if (in_seg >= per_segment || start / period != pos / period) {
            segs++;
            start = pos;
            in_seg = 0;
        }
    }
    return segs;
}

static void test_segments(void)
{
    static const struct { const char *bytes; uint64_t b; const char *per; uint64_t p; } c[] = {
        { "1000", 1000, "10", 10 },     /* the event count decides */
        { "1000", 1000, "1000", 1000 }, /* the 4 KiB object boundary decides */
        { "3000", 3000, "3", 3 },       /* both */
    };
    write_creates(500, 1, 1000);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char kb[64], kp[64];
        snprintf(kb, sizeof kb, "mds_log_event_bytes=%s", c[i].bytes);
        snprintf(kp, sizeof kp, "mds_log_events_per_segment=%s", c[i].per);
        const char *kv[] = { "mds_log_events_per_update=1", kb, kp, "mds_log_period=4K",
                             "mds_log_max_segments=1000000", NULL };
        rs_result res;
        rs_err err = { 0 };
        CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
        CHECK_EQ_U64(metric(&res, "mds_log_events_total_count"), 500);
        CHECK_EQ_U64(metric(&res, "mds_log_segments_peak_count"),
                     naive_segments(500, c[i].b, c[i].p, 4096));
        CHECK_EQ_U64(metric(&res, "mds_log_bytes_peak"), 500 * c[i].b);
        CHECK_EQ_U64(metric(&res, "mds_log_expired_events_count"), 0);
        rs_result_release(&res);
    }
}

static void test_fractional_events(void)
{
    write_creates(11, 1, 1000);
    const char *kv[] = { "mds_log_events_per_update=1.5", NULL };
    rs_result res;
    rs_err err = { 0 };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(metric(&res, "mds_log_events_total_count"), 16); /* floor(16.5) */
    rs_result_release(&res);
}

/* 20000 creates over 20 s into a small journal: 10 events per segment, at
 * most 8 segments, a tick every second: 1000 events (100 segments) arrive
 * between two ticks. */
static void test_trim(void)
{
    write_creates(20000, 1, 1000000); /* 1 ms apart: 20 s */
    const char *kv[] = { "mds_log_events_per_update=1", "mds_log_event_bytes=100",
                         "mds_log_events_per_segment=10", "mds_log_max_segments=8",
                         "mds_tick_interval=1s", "mds_log_heap_ratio=1",
                         "mds_log_expire_event_bytes=1K", "objecter_inflight_op_bytes=64K",
                         "mds_session_bytes=8K", "sample_interval=100ms", NULL };
    rs_result res;
    rs_err err = { 0 };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    double total = metric(&res, "mds_log_events_total_count");
    double expired = metric(&res, "mds_log_expired_events_count");
    CHECK_EQ_U64(total, 20000);
    CHECK(expired > 0 && expired < total);
    /* between two ticks at most a = 101 segments arrive; a tick starts
     * expiring s segments while 2 s <= what remains (about a third of the
     * R not yet expiring) and drops them at the next tick: R settles at
     * R = 2/3 (R + a), i.e. 2a kept and 3a before a tick, plus the a
     * expiring: at most 4a + 8 + the current one */
    double peak = metric(&res, "mds_log_segments_peak_count");
    CHECK_MSG(peak > 8 && peak <= 4 * 101 + 8 + 1, "peak %g", peak);
    /* expiry's writes: never over the throttle (64 KiB: 64 events of 1 KiB) */
    CHECK_MSG(metric(&res, "mds_log_expire_heap_peak_bytes") <= 65536.0 &&
                  metric(&res, "mds_log_expire_heap_peak_bytes") > 0,
              "%g", metric(&res, "mds_log_expire_heap_peak_bytes"));
    /* heap: one session + 100 B per live event + expiry's writes, so the
     * peak is at least the session and at most session + live + throttle */
    double heap = metric(&res, "mds_outside_heap_peak_bytes");
    double most = 8192.0 + metric(&res, "mds_log_events_peak_count") * 100.0 + 65536.0;
    CHECK_MSG(heap >= 8192.0 && heap <= most, "heap %g, bound %g", heap, most);
    CHECK_EQ_U64(metric(&res, "mds_sessions_count"), 1);
    rs_result_release(&res);
}

/* Ideal allocator: each sample's untracked bytes hold the sessions and the
 * live events' heap exactly (requests and journal events in flight are 0,
 * so untracked = the cache's untracked parts + this). */
static void test_heap_exact(void)
{
    write_creates(3000, 3, 1000);
    rs_result off, on;
    rs_err err = { 0 };
    const char *kv_off[] = { NULL };
    const char *kv_on[] = { "mds_log_events_per_update=2", "mds_log_event_bytes=500",
                            "mds_log_heap_ratio=0.5", "mds_session_bytes=4K",
                            "mds_log_max_segments=1000000", NULL };
    CHECK_MSG(run(kv_off, &off, &err) == 0, "%s", err.msg);
    CHECK_MSG(run(kv_on, &on, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(off.nsamples, on.nsamples);
    CHECK_EQ_U64(metric(&off, "mds_log_events_total_count"), 0);
    CHECK_EQ_U64(metric(&off, "mds_outside_heap_peak_bytes"), 0);
    const rs_sample *a = &off.samples[off.nsamples - 1], *b = &on.samples[on.nsamples - 1];
    /* at the end: 3 sessions, 6000 live events of 250 B of heap */
    CHECK_EQ_U64(b->untracked_bytes - a->untracked_bytes, 3 * 4096 + 6000 * 250);
    CHECK_EQ_U64(b->rss_bytes - a->rss_bytes, 3 * 4096 + 6000 * 250);
    rs_result_release(&off);
    rs_result_release(&on);
}

/* A cache far over its limit that never trims below it (caps held: every
 * file open): MDS_CACHE_OVERSIZED is one episode, its seconds a multiple
 * of the tick interval (the run ends on a tick: last record at 7.999 s,
 * run_tail 2.001 s). */
static void test_health_ticks(void)
{
    tw t;
    tw_open(&t, 1000000);
    for (int i = 0; i < 4000; i++) {
        rec(&t, RS_OP_CREATE, 100 + (uint64_t)i, 1, 0);
        rec(&t, RS_OP_OPEN, 100 + (uint64_t)i, 1, 0);
    }
    tw_close(&t);
    const char *kv[] = { "mds_cache_memory_limit=256K", "mds_tick_interval=2s", "run_tail=2001ms",
                         "mds_min_caps_per_client=1000000", NULL };
    rs_result res;
    rs_err err = { 0 };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    double n = metric(&res, "mds_cache_oversized_count");
    double s = metric(&res, "mds_cache_oversized_s");
    CHECK_EQ_U64(n, 1);
    CHECK_MSG(s > 0 && fabs(s / 2.0 - round(s / 2.0)) < 1e-6, "oversized %g s", s);
    rs_result_release(&res);
}

int main(void)
{
    test_segments();
    test_fractional_events();
    test_trim();
    test_heap_exact();
    test_health_ticks();
    unlink(path);
    return check_done();
}
