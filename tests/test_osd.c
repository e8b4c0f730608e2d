/*
 * test_osd.c — the osd daemon against numbers worked out by hand:
 *   - periodic trim: on a steady buffered-write stream of r bytes/s the
 *     accounted bytes overshoot the target by r x interval at their peak;
 *   - trim-on-add: a shard never holds more than its max plus one buffer;
 *   - closed loop, one worker, constant service S, iodepth D: IOPS = 1/S
 *     and, once the loop is full, every latency is D x S;
 *   - a trim's lock (c_fixed + c_per_item x items) delays the op behind it
 *     by exactly that;
 *   - 2Q: a miss enters warm_in, a warm_in hit stays there, warm_in
 *     overflows into warm_out ghosts, a ghost's range comes back hot;
 *   - the onode LRU keeps pinned onodes and gives up after
 *     bluestore_cache_trim_max_skip_pinned of them;
 *   - a PG's ops run one at a time (osd_pg_num), other PGs' side by side;
 *   - PriorityCache arithmetic (defaults worked by hand), the registered
 *     `autotune` policy with and without mapped bytes, and an autotuned osd
 *     run whose budget falls when mapped memory is over the target;
 *   - a record the daemon cannot apply: counted, or with strict an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/schema.h"
#include "check.h"
#include "models/trim/pcache.h"
#include "models/trim/trim.h"
#include "sim/engine.h"
#include "sim/registry.h"
#include "sim/base/config.h"
#include "sim/base/result.h"
#include "sim/run.h"
#include "traces/trace.h"

#define MS 1000000ull
#define US 1000ull
#define MIB (1024ull * 1024ull)

static char trace_path[512];
static rs_trace_writer *tw;

static void trace_begin(void)
{
    rs_err err;
    const char *dir = getenv("TMPDIR");
    snprintf(trace_path, sizeof trace_path, "%s/rssim-test-osd-%d.bin", dir && *dir ? dir : "/tmp",
             (int)getpid());
    CHECK(rs_trace_writer_open(&tw, trace_path, "binary", "osd", &err) == 0);
}

static void rec(uint64_t t_ns, int write, uint64_t object, uint32_t offset, uint64_t len,
                uint16_t job)
{
    rs_err err;
    rs_rec r = { .t_ns = t_ns, .key = object, .size_bytes = len, .aux = offset, .thread = job,
                 .op = write ? RS_OP_WRITE : RS_OP_READ };
    CHECK(rs_trace_write(tw, &r, &err) == 0);
}

static void trace_end(void)
{
    rs_err err;
    CHECK(rs_trace_writer_close(tw, &err) == 0);
}

/* Settings every test shares: no costs but the ones it sets, one shard. */
static const char *const quiet[] = {
    "daemon=osd", "alloc=ideal", "osd_op_num_shards=1", "osd_op_num_threads_per_shard=1",
    "osd_op_read_cost=0", "osd_op_write_cost=0", "osd_op_cost_per_mib=0",
    "osd_op_read_random_cost=0", "osd_op_write_random_cost=0",
    "osd_device_read_rand_cost=0", "osd_device_read_seq_cost=0", "osd_device_write_cost=0",
    "osd_device_read_bandwidth=1T", "osd_device_write_bandwidth=1T", "osd_client_latency=0",
    "osd_trim_cost_per_item=0",
    "write_buffer_size=0", "osd_memory_base=0", "sample_interval=10ms", "osd_pg_num=0", NULL,
};
/* The same for keys only some trim policies read: set when the test's does. */
static const char *const quiet_trim[][2] = {
    { "osd_trim_cost_fixed", "0" }, { "bluestore_cache_kv_max", "0" }, { NULL, NULL },
};

/* Run the trace with quiet + the NULL-terminated extra settings, writing
 * the run's allocation trace to emit unless it is NULL. */
static int run_emit(rs_result *res, const char *const *extra, const char *emit)
{
    rs_config *cfg;
    rs_err err;
    rs_run_stats st;
    CHECK(rs_config_new(&cfg, &err) == 0);
    for (const char *const *kv = quiet; *kv; kv++)
        CHECK_MSG(rs_config_set_kv(cfg, *kv, "test", &err) == 0, "%s", *kv);
    for (const char *const *kv = extra; *kv; kv++)
        CHECK_MSG(rs_config_set_kv(cfg, *kv, "test", &err) == 0, "%s", *kv);
    const char *trim = rs_config_raw(cfg, "trim");
    const rs_trim_ops *t = rs_registry_find(&rs_reg_trim, trim ? trim : "bluestore-mempool");
    for (int i = 0; t && quiet_trim[i][0]; i++)
        if (rs_param_find(t->params, quiet_trim[i][0]) && !rs_config_raw(cfg, quiet_trim[i][0]))
            CHECK(rs_config_set(cfg, quiet_trim[i][0], quiet_trim[i][1], &err) == 0);
    rs_result_init(res);
    rs_run_opts opts = { .emit_alloc_trace = emit };
    int rc = rs_run_execute_opts(trace_path, cfg, &opts, res, &st, &err);
    CHECK_MSG(rc == 0, "run: %s", err.msg);
    rs_config_free(cfg);
    return rc;
}

static int run(rs_result *res, const char *const *extra)
{
    return run_emit(res, extra, NULL);
}

static double metric(const rs_result *res, const char *name)
{
    double v = -1;
    CHECK_MSG(rs_result_metric(res, name, &v) == 0, "no metric %s", name);
    return v;
}

static int near(double got, double want, double rel)
{
    double d = got - want;
    return (d < 0 ? -d : d) <= rel * (want < 0 ? -want : want);
}

/* 64 KiB buffered writes every ms (65.536 MB/s) into a 16 MiB cache
 * trimmed every 200 ms: the peak is r x 200 ms = 13.1 MB over.  (Half of
 * it is meta's: with meta 0, Luminous's Cache::trim would free every
 * unpinned onode, and their buffers with them, at each pass.) */
static void test_periodic_overshoot(void)
{
    rs_result res;
    trace_begin();
    for (uint64_t i = 0; i < 2000; i++)
        rec(i * MS, 1, i / 64, (uint32_t)(i % 64) * 65536u, 65536, 0);
    trace_end();
    const char *const extra[] = { "trim=bluestore-mempool", "bluestore_cache_trim_interval=200ms",
                                  "bluestore_cache_size=16M", "bluestore_cache_meta_ratio=0.5",
                                  "bluestore_cache_kv_ratio=0", "bluestore_default_buffered_write=true",
                                  NULL };
    if (run(&res, extra) == 0) {
        double excess = metric(&res, "excess_peak_bytes"), want = 65536.0 * 200;
        /* each buffer also brings its 96 B Buffer and every 64th an onode */
        CHECK_MSG(near(excess, want, 0.03), "periodic overshoot %.0f, expected ~%.0f", excess, want);
        CHECK(metric(&res, "trims_count") >= 9);
    }
    rs_result_release(&res);
    unlink(trace_path);
}

/* The same stream, trimmed on add into 4 shards of 4 MiB each. */
static void test_on_add_bound(void)
{
    rs_result res;
    trace_begin();
    for (uint64_t i = 0; i < 2000; i++)
        rec(i * MS, 1, i / 64, (uint32_t)(i % 64) * 65536u, 65536, 0);
    trace_end();
    const char *const extra[] = { "trim=bluestore-on-add", "bluestore_cache_size=32M",
                                  "bluestore_cache_meta_ratio=0.5", "bluestore_cache_kv_ratio=0",
                                  "osd_num_cache_shards=4", "bluestore_default_buffered_write=true",
                                  NULL };
    if (run(&res, extra) == 0) {
        double ex = metric(&res, "shard_excess_peak_bytes");
        CHECK_MSG(ex > 0 && ex <= 65536, "shard excess %.0f", ex);
        CHECK(metric(&res, "trimmed_items_count") > 0);
        /* the whole cache: at most one buffer per shard over the data share */
        CHECK(metric(&res, "accounted_peak_bytes") <= 32.0 * MIB + 4 * (65536 + 96));
    }
    rs_result_release(&res);
    unlink(trace_path);
}

/* One job, iodepth 4, 1000 reads of 100 us each on one worker (the
 * 1 TiB/s device adds 3.7 ns per op: tolerances of 1e-4). */
static void test_closed_loop(void)
{
    rs_result res;
    trace_begin();
    for (uint64_t i = 0; i < 1000; i++)
        rec(0, 0, i % 50, (uint32_t)(i / 50) * 4096u, 4096, 0);
    trace_end();
    const char *const extra[] = { "trim=bluestore-mempool", "client_iodepth=4", "osd_op_read_cost=100us",
                                  NULL };
    if (run(&res, extra) == 0) {
        CHECK_MSG(near(metric(&res, "iops"), 10000.0, 1e-4), "iops %g", metric(&res, "iops"));
        CHECK_EQ_U64(metric(&res, "ops_count"), 1000);
        CHECK_MSG(near(metric(&res, "latency_p50_ns"), 400 * US, 0.01), "p50 %g",
                  metric(&res, "latency_p50_ns"));
        CHECK(near(metric(&res, "latency_p99_ns"), 400 * US, 0.01));
        /* the first 4 ops wait 1..4 x S, all the others 4 x S */
        CHECK(near(metric(&res, "latency_mean_ns"), (996 * 400.0 + 100 + 200 + 300 + 400) * US / 1000,
                   1e-4));
        CHECK(near(metric(&res, "bandwidth_bytes_per_s"), 10000.0 * 4096, 1e-4));
    }
    rs_result_release(&res);
    /* four jobs of depth 2, interleaved round robin at t 0 as `rssim gen
     * fio` writes them: still 1/S, and 8 ops queue for the one worker */
    trace_begin();
    for (uint64_t i = 0; i < 1000; i++)
        rec(0, 0, i % 50, (uint32_t)(i / 50) * 4096u, 4096, (uint16_t)(i % 4));
    trace_end();
    const char *const jobs[] = { "trim=bluestore-mempool", "client_iodepth=2", "osd_op_read_cost=100us", NULL };
    if (run(&res, jobs) == 0) {
        CHECK_MSG(near(metric(&res, "iops"), 10000.0, 1e-4), "iops %g", metric(&res, "iops"));
        CHECK_MSG(near(metric(&res, "latency_p50_ns"), 800 * US, 0.01), "p50 %g",
                  metric(&res, "latency_p50_ns"));
    }
    rs_result_release(&res);
    /* open loop with the same trace: every op issued at 0, queueing */
    const char *const open[] = { "trim=bluestore-mempool", "client_iodepth=0", "osd_op_read_cost=100us", NULL };
    if (run(&res, open) == 0)
        CHECK(near(metric(&res, "latency_p99.9_ns"), 1000 * 100.0 * US, 0.01));
    rs_result_release(&res);
    unlink(trace_path);
}

/* 10 reads fill the cache; the MempoolThread pass at 10 ms empties it:
 * 10 buffers to ghosts, the 10 ghosts (kout 0), the 10 onodes = 30 items,
 * holding the lock for c_fixed + 30 c_item; the read issued at 10 ms waits
 * for exactly that.  That read is in flight at the pass's end, so one more
 * pass runs an interval later (then the OSD is idle and the thread rests). */
static void test_trim_lock(void)
{
    rs_result res;
    trace_begin();
    for (uint64_t i = 0; i < 10; i++)
        rec(i * 100 * US, 0, i, 0, 4096, 0);
    rec(10 * MS, 0, 99, 0, 4096, 1);
    trace_end();
    const char *const extra[] = { "trim=bluestore-mempool", "bluestore_cache_trim_interval=10ms",
                                  "bluestore_cache_size=0", "osd_op_read_cost=50us",
                                  "osd_trim_cost_fixed=1ms", "osd_trim_cost_per_item=7us", NULL };
    if (run(&res, extra) == 0) {
        double items = metric(&res, "trimmed_items_count"), first = 1e6 + 7e3 * 30;
        CHECK_EQ_U64(metric(&res, "trims_count"), 2);
        CHECK_EQ_U64(items, 30 + 3); /* the second pass: the last read's buffer, ghost, onode */
        CHECK_MSG(near(metric(&res, "trim_lock_ns"), 2e6 + 7e3 * items, 1e-9), "lock %g",
                  metric(&res, "trim_lock_ns"));
        /* the others ran alone: 50 us; the last one: the first pass's lock + 50 us */
        CHECK(near(metric(&res, "latency_p50_ns"), 50 * US, 0.01));
        CHECK_MSG(near(metric(&res, "latency_p99.99_ns"), first + 50e3, 0.01), "last %g, expected %g",
                  metric(&res, "latency_p99.99_ns"), first + 50e3);
    }
    rs_result_release(&res);
    unlink(trace_path);
}

/* 2Q on one object, an 8 KiB data shard, 4 KiB buffers (kin 4K, khot 4K,
 * kout = 8K / 4K x 0.5 = 1):
 *   A miss, A hit      -> warm_in {A}
 *   B, C misses        -> 12K > 8K: hot empty gives warm_in its slack
 *                         (kin 8K), A (oldest) becomes a ghost
 *   A again (a ghost)  -> A comes back hot; warm_in {C, B} 8K is over
 *                         kin 4K: B becomes a ghost; ghosts {B} <= kout
 *   A again            -> a hot hit. */
static void test_2q(void)
{
    rs_result res;
    trace_begin();
    const uint32_t a = 0, b = 4096, c = 8192;
    uint32_t seq[] = { a, a, b, c, a, a };
    for (unsigned i = 0; i < 6; i++)
        rec(i * MS, 0, 7, seq[i], 4096, 0);
    trace_end();
    const char *const extra[] = { "trim=bluestore-on-add", "bluestore_cache_size=8K",
                                  "bluestore_cache_meta_ratio=0", "bluestore_cache_kv_ratio=0", NULL };
    if (run(&res, extra) == 0) {
        CHECK_EQ_U64(metric(&res, "buffers_hot_count"), 1);
        CHECK_EQ_U64(metric(&res, "buffers_warm_in_count"), 1);
        CHECK_EQ_U64(metric(&res, "buffers_warm_out_count"), 1);
        CHECK(near(metric(&res, "buffer_hit_ratio"), 2.0 / 6, 1e-9)); /* the 2nd and 6th read */
        CHECK_EQ_U64(metric(&res, "onodes_count"), 1); /* pinned by its op when added */
    }
    rs_result_release(&res);
    unlink(trace_path);
}

/* Five writes of 1 s each pin objects 100..104 (oldest on the LRU); five
 * quick reads add objects 0..4 after them.  The trim at 50 ms wants 0
 * onodes: it skips the pinned tail and, allowed 64 skips, evicts the five
 * unpinned; allowed 3, it stops before reaching them. */
static uint64_t items_at(const rs_result *res, uint64_t t_ns)
{
    for (size_t i = 0; i < res->nsamples; i++)
        if (res->samples[i].t_ns == t_ns)
            return res->samples[i].items_count;
    return UINT64_MAX;
}

static void test_pinned_onodes(void)
{
    rs_result res;
    trace_begin();
    for (uint64_t i = 0; i < 5; i++)
        rec(i * US, 1, 100 + i, 0, 4096, (uint16_t)i);
    for (uint64_t i = 0; i < 5; i++)
        rec(MS + i * US, 0, i, 0, 4096, (uint16_t)(5 + i));
    trace_end();
    const char *base[] = { "trim=bluestore-mempool", "bluestore_cache_trim_interval=50ms",
                           "bluestore_cache_size=0", "osd_op_num_threads_per_shard=8",
                           "osd_op_write_cost=1s", "osd_op_read_cost=1us", NULL, NULL };
    base[6] = "bluestore_cache_trim_max_skip_pinned=64";
    if (run(&res, base) == 0) {
        CHECK_EQ_U64(items_at(&res, 40 * MS), 10 + 5); /* 10 onodes + 5 read buffers */
        CHECK_EQ_U64(items_at(&res, 60 * MS), 5);      /* the 5 pinned onodes */
    }
    rs_result_release(&res);
    base[6] = "bluestore_cache_trim_max_skip_pinned=3";
    if (run(&res, base) == 0)
        CHECK_EQ_U64(items_at(&res, 60 * MS), 10); /* buffers gone, every onode kept */
    rs_result_release(&res);
    unlink(trace_path);
}

static void test_pcache(void)
{
    rs_pcache pc;
    const double mib = (double)MIB;
    rs_pcache_init(&pc, 4096 * MIB, 768 * MIB, 0.15, 128 * MIB);
    CHECK(near((double)pc.max_bytes, 2713.6 * mib, 1e-6));
    CHECK_EQ_U64(pc.tuned_bytes, 128 * MIB);
    rs_pcache_tune(&pc, 2048 * MIB); /* halfway to max */
    CHECK(near((double)pc.tuned_bytes, 128 * mib + 0.5 * (2713.6 - 128) * mib, 1e-6));
    rs_pcache_tune(&pc, 0);          /* all the way */
    CHECK(near((double)pc.tuned_bytes, 2713.6 * mib, 1e-6));
    rs_pcache_tune(&pc, 5120 * MIB); /* 20 % of the way back to min */
    CHECK(near((double)pc.tuned_bytes, 2713.6 * mib - 0.2 * (2713.6 - 128) * mib, 1e-6));
    /* chunk 16 MiB at a 4 GiB budget; 16 chunks of headroom: 272 MiB */
    CHECK_EQ_U64(rs_pcache_chunk(1, 2713 * MIB), 272 * MIB);
    CHECK_EQ_U64(rs_pcache_chunk(1, 256 * MIB), 4 * MIB * 17);
    /* a small target leaves no room above base: the floor */
    rs_pcache_init(&pc, 896 * MIB, 768 * MIB, 0.15, 128 * MIB);
    CHECK_EQ_U64(pc.max_bytes, 128 * MIB);
    /* balance: reserve 3 x 272 MiB, meta wants little, the rest by ratio */
    rs_pcache_init(&pc, 4096 * MIB, 768 * MIB, 0.15, 128 * MIB);
    rs_pcache_tune(&pc, 0);
    uint64_t want[3] = { 4096 * MIB, 10 * MIB, 4096 * MIB }, commit[3];
    double ratio[3] = { 0.4, 0.4, 0.2 };
    rs_pcache_balance(&pc, 3, want, ratio, commit);
    CHECK(commit[1] < commit[2] && commit[2] < commit[0]);
    CHECK(commit[0] % (16 * MIB) == 0 && commit[1] % (16 * MIB) == 0);
    double sum = (double)(commit[0] + commit[1] + commit[2]);
    /* assigned sums to tuned - 3 reserve; each commit adds 256 MiB, rounded up */
    CHECK(sum >= (double)pc.tuned_bytes - 3 * 272 * mib + 3 * 256 * mib);
    CHECK(sum <= (double)pc.tuned_bytes - 3 * 272 * mib + 3 * 272 * mib);
}

/* The registered `autotune` policy on a fake cache of 1 GiB limit, 4 GiB
 * target: with mapped reported at 5 GiB the first tune (at 1 s) takes the
 * budget from max 20 % of the way to min, and the cache is trimmed to it;
 * without a mapped_bytes callback the budget stays at max (no feedback). */
typedef struct fake { uint64_t used, limit, mapped; } fake;
static uint64_t f_used(void *c) { return ((fake *)c)->used; }
static uint64_t f_limit(void *c) { return ((fake *)c)->limit; }
static uint64_t f_mapped(void *c) { return ((fake *)c)->mapped; }
static uint64_t f_trim(void *c, uint64_t target, uint64_t max_items, uint64_t now, uint64_t *r_bytes)
{
    fake *f = c;
    (void)max_items;
    (void)now;
    if (f->used <= target)
        return 0;
    *r_bytes += f->used - target;
    f->used = target;
    return 1;
}

static uint64_t autotune_budget_after(int with_mapped)
{
    const rs_trim_ops *at = rs_registry_find(&rs_reg_trim, "autotune");
    rs_config *cfg;
    rs_err err;
    rs_engine eng;
    rs_trim_stats stats = { 0 };
    fake f = { .limit = 4096 * MIB, .mapped = 5120 * MIB };
    rs_trim_target tgt = { .ctx = &f, .used_bytes = f_used, .limit_bytes = f_limit,
                           .trim_to = f_trim, .mapped_bytes = with_mapped ? f_mapped : NULL };
    void *st = NULL;
    CHECK(rs_config_new(&cfg, &err) == 0);
    rs_engine_init(&eng);
    f.mapped = 0; /* at start the heap is empty: the constructor's tune goes to max */
    CHECK(at != NULL && at->create(cfg, &eng, &tgt, &stats, &st, &err) == 0);
    f.mapped = 5120 * MIB;
    f.used = 4000 * MIB;
    rs_event ev;
    CHECK(rs_evq_pop(&eng.q, &ev, &err) == 0); /* the tune at 1 s */
    CHECK_EQ_U64(ev.t_ns, 1000 * MS);
    ev.fn(ev.ctx, ev.t_ns);
    uint64_t left = f.used;
    at->destroy(st);
    rs_engine_release(&eng);
    rs_config_free(cfg);
    return left;
}

static void test_autotune_policy(void)
{
    double max = 2713.6 * MIB, min = 128.0 * MIB;
    CHECK(near((double)autotune_budget_after(1), max - 0.2 * (max - min), 1e-6));
    CHECK(near((double)autotune_budget_after(0), max, 1e-6));
}

/* 3000 distinct 1 MiB buffered reads against a 1 GiB target, with 512 MiB
 * of memtables on the heap, on the tcmalloc model: mapped passes the target
 * and the budget falls toward the floor; with jemalloc there is no
 * feedback and it stays at max. */
static void test_autotune_run(void)
{
    rs_result res;
    trace_begin();
    for (uint64_t i = 0; i < 3000; i++)
        rec(i * MS, 0, i / 4, (uint32_t)(i % 4) * (uint32_t)MIB, MIB, 0);
    trace_end();
    const char *extra[] = { "trim=bluestore-autotune", "osd_memory_target=1G", "osd_memory_base=128M",
                            "osd_memory_cache_min=64M", "osd_num_cache_shards=4",
                            "bluestore_cache_meta_ratio=0.1", "bluestore_cache_kv_ratio=0.1",
                            "write_buffer_size=128M", "alloc=tcmalloc", NULL };
    double max = 0.85 * 1024 * MIB - 128.0 * MIB;
    if (run(&res, extra) == 0) {
        double tuned = metric(&res, "autotune_tuned_bytes");
        CHECK_MSG(tuned < 0.9 * max && tuned >= 64.0 * MIB, "tuned %g of max %g", tuned, max);
        /* the same run writing its allocation trace (what `rssim validate`
         * replays) reads the same heap: the tee keeps reports_heap */
        rs_result tee;
        char emit[600];
        snprintf(emit, sizeof emit, "%s.alloc.bin", trace_path);
        if (run_emit(&tee, extra, emit) == 0)
            CHECK_MSG(metric(&tee, "autotune_tuned_bytes") == tuned, "tee: tuned %g, without %g",
                      metric(&tee, "autotune_tuned_bytes"), tuned);
        rs_result_release(&tee);
        unlink(emit);
    }
    rs_result_release(&res);
    extra[8] = "alloc=jemalloc";
    if (run(&res, extra) == 0)
        CHECK(near(metric(&res, "autotune_tuned_bytes"), max, 1e-6));
    rs_result_release(&res);
    unlink(trace_path);
}

/* The RELEASE calls of the run's allocation trace, the run made with extra. */
static long releases(const char *const *extra)
{
    rs_result res;
    char emit[600];
    long n = -1;
    snprintf(emit, sizeof emit, "%s.alloc.bin", trace_path);
    if (run_emit(&res, extra, emit) == 0) {
        rs_trace *tr;
        rs_rec r;
        rs_err err;
        int rc;
        CHECK(rs_trace_open(&tr, emit, &err) == 0);
        for (n = 0; (rc = rs_trace_next(tr, &r, &err)) == 1;)
            n += r.op == RS_OP_RELEASE;
        CHECK_MSG(rc == 0, "%s", err.msg);
        rs_trace_close(tr);
    }
    rs_result_release(&res);
    unlink(emit);
    return n;
}

/* PriorityCache's tune releases free memory in a tcmalloc build only
 * (ceph_heap_release_free_memory: src/perfglue/heap_profiler.cc, an empty
 * function in disabled_heap_profiler.cc), once per resize interval. */
static void test_autotune_release(void)
{
    trace_begin();
    for (uint64_t i = 0; i < 3000; i++)
        rec(i * MS, 0, i / 4, (uint32_t)(i % 4) * (uint32_t)MIB, MIB, 0);
    trace_end();
    const char *extra[] = { "trim=bluestore-autotune", "osd_memory_target=1G", "osd_memory_base=128M",
                            "osd_memory_cache_min=64M", "alloc=tcmalloc", NULL };
    long tc = releases(extra);
    CHECK_MSG(tc >= 2, "tcmalloc OSD: %ld releases in 3 s", tc);
    extra[4] = "alloc=glibc";
    long gl = releases(extra);
    CHECK_MSG(gl == 0, "glibc OSD: %ld releases", gl);
    extra[4] = "alloc=jemalloc";
    long je = releases(extra);
    CHECK_MSG(je == 0, "jemalloc OSD: %ld releases", je);
    unlink(trace_path);
}

/* Two workers, two reads at t 0: on two objects they run side by side; on
 * one object (one PG) the second waits for the first's PG lock. */
static void test_pg_order(void)
{
    rs_result res;
    trace_begin();
    rec(0, 0, 5, 0, 4096, 0);
    rec(0, 0, 5, 4096, 4096, 1);
    trace_end();
    const char *extra[] = { "trim=bluestore-mempool", "osd_op_num_threads_per_shard=2",
                            "osd_op_read_cost=100us", "osd_pg_num=64", NULL };
    if (run(&res, extra) == 0) {
        CHECK(near(metric(&res, "latency_p50_ns"), 100 * US, 0.01));
        CHECK(near(metric(&res, "latency_p99_ns"), 200 * US, 0.01));
    }
    rs_result_release(&res);
    extra[3] = "osd_pg_num=0";
    if (run(&res, extra) == 0)
        CHECK(near(metric(&res, "latency_p99_ns"), 100 * US, 0.01));
    rs_result_release(&res);
    unlink(trace_path);
}

/* A record the daemon cannot apply (an object number past 2^32) is counted,
 * or with strict an input error naming the trace line. */
static void test_strict(void)
{
    rs_result res;
    rs_config *cfg;
    rs_err err;
    trace_begin();
    rec(0, 0, 1, 0, 4096, 0);
    rec(MS, 0, 1ull << 33, 0, 4096, 0);
    trace_end();
    const char *const lax[] = { "trim=bluestore-mempool", NULL };
    if (run(&res, lax) == 0) {
        CHECK_EQ_U64(metric(&res, "records_skipped_count"), 1);
        CHECK_EQ_U64(metric(&res, "ops_count"), 1);
    }
    rs_result_release(&res);
    CHECK(rs_config_new(&cfg, &err) == 0);
    for (const char *const *kv = quiet; *kv; kv++)
        rs_config_set_kv(cfg, *kv, "test", &err);
    rs_config_set(cfg, "strict", "true", &err);
    rs_result_init(&res);
    CHECK(rs_run_execute(trace_path, cfg, &res, NULL, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, ":3: ") != NULL && strstr(err.msg, "8589934592") != NULL, "%s", err.msg);
    /* a trim policy the osd cannot apply per shard */
    rs_config_set(cfg, "strict", "false", &err);
    rs_config_set(cfg, "trim", "mds-tick", &err);
    if (rs_config_validate(cfg, &err) == 0) /* only when that policy is registered */
        CHECK(rs_run_execute(trace_path, cfg, &res, NULL, &err) == RS_EINPUT);
    rs_result_release(&res);
    rs_config_free(cfg);
    unlink(trace_path);
}

int main(void)
{
    test_pcache();
    test_periodic_overshoot();
    test_on_add_bound();
    test_closed_loop();
    test_trim_lock();
    test_2q();
    test_pinned_onodes();
    test_autotune_run();
    test_autotune_release();
    test_strict();
    test_pg_order();
    test_autotune_policy();
    return check_done();
}
