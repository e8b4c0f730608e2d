/*
 * test_osd_budget.c — the osd's whole model (osd_memory_model = whole,
 * models/daemon/osd_budget.c) against numbers worked out by hand:
 *   - PG log: N writes over P PGs keep min(N, P × clamp(target/P, min, max))
 *     entries and min(the rest, P × dups_tracked) dups; with the tracker
 *     53729 bug every trimmed entry stays a dup; the bytes are the counts
 *     times the entry and dup sizes;
 *   - memtables: W writes of b bytes fill write_buffer_size every
 *     wbs / b writes, full ones are flushed min_write_buffer_number_to_merge
 *     at a time (flush count exact when the flush is instant), and one
 *     family never holds more than
 *     max_write_buffer_number of them (a stall is counted instead);
 *   - flushed SSTs: each flush of W writes adds an index block of
 *     ceil(W × bytes / block) × entry bytes and a full Bloom filter of
 *     W × keys keys (odd 64-byte lines + 5, as RocksDB 6.8.1 sizes the
 *     16.2.15 OSD's every filter) to the kv block cache, kept to the end;
 *     none without rocksdb_sst_keys_per_write, whose other keys are then
 *     refused;
 *   - block cache: each distinct onode-block read once misses, a second
 *     pass over a cache large enough hits every time; a capacity of k
 *     blocks per shard keeps at most k per shard;
 *   - client writes' data in flight: a closed-loop client with iodepth d
 *     writing b bytes at a time holds d × b at its peak and nothing once
 *     the ops have completed; none without osd_write_data_held;
 *   - invariant: in every sample every byte requested from the allocator
 *     is counted once, in the caches' mempools (accounted) or in the
 *     budget (untracked), on a mixed workload with every term on;
 *   - a whole-model key set with osd_memory_model = caches is refused,
 *     naming it; and the health checks count RSS over osd_memory_target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/base/config.h"
#include "sim/base/result.h"
#include "models/daemon/osd_budget.h"
#include "sim/run.h"
#include "sim/schema.h"
#include "traces/trace.h"

static char trace_path[512];
static rs_trace_writer *tw;

static void trace_begin(void)
{
    rs_err err;
    const char *dir = getenv("TMPDIR");
    snprintf(trace_path, sizeof trace_path, "%s/rssim-test-osd-budget-%d.bin",
             dir && *dir ? dir : "/tmp", (int)getpid());
    CHECK(rs_trace_writer_open(&tw, trace_path, "binary", "osd", &err) == 0);
}

static void rec(uint64_t t_ns, int write, uint64_t object, uint64_t len)
{
    rs_err err;
    rs_rec r = { .t_ns = t_ns, .key = object, .size_bytes = len, .aux = 0, .thread = 0,
                 .op = write ? RS_OP_WRITE : RS_OP_READ };
    CHECK(rs_trace_write(tw, &r, &err) == 0);
}

static void trace_end(void)
{
    rs_err err;
    CHECK(rs_trace_writer_close(tw, &err) == 0);
}

static const char *const quiet[] = {
    "daemon=osd", "alloc=ideal", "osd_memory_model=whole", "trim=bluestore-on-add",
    "bluestore_cache_kv_max=0", "bluestore_cache_size=1G", "osd_op_num_shards=1",
    "osd_op_num_threads_per_shard=1", "osd_op_read_cost=0", "osd_op_write_cost=0",
    "osd_op_cost_per_mib=0", "osd_op_read_random_cost=0", "osd_op_write_random_cost=0",
    "osd_device_read_rand_cost=0", "osd_device_read_seq_cost=0", "osd_device_write_cost=0",
    "osd_device_read_bandwidth=1T", "osd_device_write_bandwidth=1T", "osd_client_latency=0",
    "osd_trim_cost_per_item=0", "sample_interval=10ms", NULL,
};

static int run_with(rs_result *res, const char *const *extra, rs_err *err)
{
    rs_config *cfg;
    CHECK(rs_config_new(&cfg, err) == 0);
    for (const char *const *kv = quiet; *kv; kv++)
        CHECK_MSG(rs_config_set_kv(cfg, *kv, "test", err) == 0, "%s", *kv);
    for (const char *const *kv = extra; *kv; kv++)
        CHECK_MSG(rs_config_set_kv(cfg, *kv, "test", err) == 0, "%s", *kv);
    rs_result_init(res);
    int rc = rs_run_execute(trace_path, cfg, res, NULL, err);
    rs_config_free(cfg);
    return rc;
}

static void run(rs_result *res, const char *const *extra)
{
    rs_err err;
    int rc = run_with(res, extra, &err);
    CHECK_MSG(rc == 0, "run: %s", err.msg);
}

static double metric(const rs_result *res, const char *name)
{
    double v = -1;
    CHECK_MSG(rs_result_metric(res, name, &v) == 0, "no metric %s", name);
    return v;
}

/* N writes, 1 ms apart, each to a new object. */
static void writes(int n)
{
    trace_begin();
    for (int i = 0; i < n; i++)
        rec((uint64_t)i * 1000000ull, 1, (uint64_t)i, 4096);
    trace_end();
}

static void test_pg_log(void)
{
    rs_result res;
    writes(5000);
    /* 4 PGs: per PG clamp(2000/4, 100, 10000) = 500 -> 2000 entries; dups
     * 4 x 300 = 1200 of the 3000 trimmed */
    const char *const a[] = { "osd_pg_num=4", "osd_target_pg_log_entries_per_osd=2000",
                              "osd_min_pg_log_entries=100", "osd_pg_log_dups_tracked=300",
                              "osd_pg_log_entry_bytes=1000", "osd_pg_log_dup_bytes=100",
                              "rocksdb_kv_bytes_per_write=0", NULL };
    run(&res, a);
    CHECK(metric(&res, "pg_log_entries_count") == 2000);
    CHECK(metric(&res, "pg_log_dups_count") == 1200);
    CHECK(metric(&res, "pg_log_bytes") == 2000 * 1000 + 1200 * 100);
    rs_result_release(&res);
    /* the floor wins: clamp(2000/4, 800, ..) = 800 per PG */
    const char *const b[] = { "osd_pg_num=4", "osd_target_pg_log_entries_per_osd=2000",
                              "osd_min_pg_log_entries=800", "osd_pg_log_dups_tracked=300",
                              "rocksdb_kv_bytes_per_write=0", NULL };
    run(&res, b);
    CHECK(metric(&res, "pg_log_entries_count") == 3200);
    CHECK(metric(&res, "pg_log_dups_count") == 1200);
    rs_result_release(&res);
    /* tracker 53729: no dup is ever trimmed */
    const char *const c[] = { "osd_pg_num=4", "osd_target_pg_log_entries_per_osd=2000",
                              "osd_min_pg_log_entries=100", "osd_pg_log_dups_tracked=300",
                              "osd_pg_log_dups_trim_broken=true", "rocksdb_kv_bytes_per_write=0",
                              NULL };
    run(&res, c);
    CHECK(metric(&res, "pg_log_entries_count") == 2000);
    CHECK(metric(&res, "pg_log_dups_count") == 3000);
    rs_result_release(&res);
}

static void test_memtables(void)
{
    rs_result res;
    writes(5000);
    /* 1000 B a write, 1 MB buffers: a flush every 1000 writes -> 5, none left */
    const char *const a[] = { "rocksdb_kv_bytes_per_write=1000", "write_buffer_size=1000000",
                              "max_write_buffer_number=4", NULL };
    run(&res, a);
    CHECK(metric(&res, "memtable_flushes_count") == 5);
    CHECK(metric(&res, "memtable_stall_count") == 0);
    CHECK(metric(&res, "memtable_bytes") == 0);
    /* the active memtable in blocks of wbs/8 rounded to 4 KiB: 126976 B x 8 */
    CHECK(metric(&res, "memtable_peak_bytes") == 8 * 126976.0);
    rs_result_release(&res);
    /* a flush that takes 1000 s: the family fills max_write_buffer_number
     * (1 active + 1 immutable with 2), then every further full memtable
     * stalls instead */
    const char *const b[] = { "rocksdb_kv_bytes_per_write=1000", "write_buffer_size=1000000",
                              "max_write_buffer_number=2", "osd_device_write_bandwidth=1000",
                              /* the run lasts until the last flush, ~10^4 s: within
                               * the 10^6 samples a run may hold */
                              "sample_interval=1s", NULL };
    run(&res, b);
    CHECK(metric(&res, "memtable_stall_count") > 0);
    CHECK(metric(&res, "memtable_flushes_count") == 1); /* the one immutable, at the end */
    rs_result_release(&res);
    /* min_write_buffer_number_to_merge 3: 5 full memtables, the first 3
     * flushed together, 2 still waiting at the end (2 MB of arena blocks:
     * 16 x 126976 B) */
    const char *const c[] = { "rocksdb_kv_bytes_per_write=1000", "write_buffer_size=1000000",
                              "max_write_buffer_number=8", "min_write_buffer_number_to_merge=3",
                              NULL };
    run(&res, c);
    CHECK(metric(&res, "memtable_flushes_count") == 3);
    CHECK(metric(&res, "memtable_bytes") == 16 * 126976.0);
    rs_result_release(&res);
}

static void test_flushed_ssts(void)
{
    rs_result res;
    rs_err err;
    /* RocksDB's own filters of the 16.2.15 OSD: 1 and 12 keys 69 B, 2000
     * keys 79 lines (78.1 rounded up, odd) */
    CHECK(rs_osd_budget_bloom_bytes(1, 20) == 69);
    CHECK(rs_osd_budget_bloom_bytes(12, 20) == 69);
    CHECK(rs_osd_budget_bloom_bytes(2000, 20) == 79 * 64 + 5);
    CHECK(rs_osd_budget_bloom_bytes(1000, 0) == 0);
    writes(5000);
    const char *const off[] = { "rocksdb_kv_bytes_per_write=1000", "write_buffer_size=1000000",
                                "max_write_buffer_number=4", NULL };
    run(&res, off);
    double base = metric(&res, "kv_cache_bytes");
    CHECK(metric(&res, "sst_flushed_count") == 0);
    rs_result_release(&res);
    /* 5 flushes of 1000 writes: 2000 keys and 410000 B = 101 blocks each;
     * index 101 x 60, filter 79 x 64 + 5 */
    const char *const on[] = { "rocksdb_kv_bytes_per_write=1000", "write_buffer_size=1000000",
                               "max_write_buffer_number=4", "rocksdb_sst_keys_per_write=2",
                               "rocksdb_sst_bytes_per_write=410", "rocksdb_index_entry_bytes=60",
                               NULL };
    run(&res, on);
    CHECK(metric(&res, "sst_flushed_count") == 5);
    CHECK(metric(&res, "sst_index_filter_bytes") == 5 * (101 * 60 + 79 * 64 + 5));
    CHECK(metric(&res, "kv_cache_bytes") == base + 5 * (101 * 60 + 79 * 64 + 5));
    rs_result_release(&res);
    /* a small cache evicts them like any low-priority block */
    const char *const small[] = { "rocksdb_kv_bytes_per_write=1000", "write_buffer_size=1000000",
                                  "max_write_buffer_number=4", "rocksdb_sst_keys_per_write=2",
                                  "rocksdb_sst_bytes_per_write=410", "rocksdb_index_entry_bytes=60",
                                  "bluestore_cache_size=16K", "rocksdb_cache_shard_bits=0", NULL };
    run(&res, small);
    CHECK(metric(&res, "kv_cache_bytes") < 16 * 1024);
    CHECK(metric(&res, "kv_cache_evictions_count") > 0);
    rs_result_release(&res);
    const char *const vain[] = { "rocksdb_sst_bytes_per_write=410", NULL };
    CHECK(run_with(&res, vain, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "'rocksdb_sst_bytes_per_write'"), "%s", err.msg);
    rs_result_release(&res);
}

static void test_block_cache(void)
{
    rs_result res;
    /* 512 objects, 4 onodes per block (4K / 1K): 128 blocks, read twice;
     * the block cache ends holding exactly those 128 blocks, none evicted */
    trace_begin();
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 512; i++)
            rec((uint64_t)(pass * 512 + i) * 1000000ull, 0, (uint64_t)i, 4096);
    trace_end();
    const char *const a[] = { "bluestore_cache_meta_ratio=0.01", "bluestore_cache_kv_ratio=0.99",
                              "rocksdb_cache_shard_bits=0", "bluestore_cache_size=1G", NULL };
    run(&res, a);
    CHECK(metric(&res, "kv_cache_bytes") == 128 * 4096.0);
    CHECK(metric(&res, "kv_cache_evictions_count") == 0);
    rs_result_release(&res);
    /* a capacity of 0.99 x 400 KiB over 1 shard: 99 blocks fit */
    const char *const b[] = { "bluestore_cache_size=400K", "bluestore_cache_meta_ratio=0.01",
                              "bluestore_cache_kv_ratio=0.99", "rocksdb_cache_shard_bits=0", NULL };
    run(&res, b);
    CHECK(metric(&res, "kv_cache_bytes") <= 0.99 * 400 * 1024);
    CHECK(metric(&res, "kv_cache_bytes") > 0.99 * 400 * 1024 - 4096);
    CHECK(metric(&res, "kv_cache_evictions_count") > 0);
    rs_result_release(&res);
}

static void test_write_data(void)
{
    rs_result res;
    trace_begin();
    for (int i = 0; i < 400; i++)
        rec((uint64_t)i * 1000ull, 1, (uint64_t)(i % 37), 65536);
    trace_end();
    for (int d = 1; d <= 8; d *= 2) {
        char depth[32];
        snprintf(depth, sizeof depth, "client_iodepth=%d", d);
        /* 1 ms on the device per write and 16 workers: d writes overlap */
        const char *const a[] = { depth, "osd_write_data_held=true", "osd_op_num_shards=8",
                                  "osd_op_num_threads_per_shard=2", "osd_device_write_cost=1ms",
                                  "osd_pg_num=0", NULL };
        run(&res, a);
        CHECK_MSG(metric(&res, "write_data_held_peak_bytes") == d * 65536.0, "iodepth %d: %g", d,
                  metric(&res, "write_data_held_peak_bytes"));
        CHECK(metric(&res, "write_data_held_bytes") == 0);
        rs_result_release(&res);
    }
    const char *const b[] = { "client_iodepth=8", "osd_op_num_shards=8",
                              "osd_op_num_threads_per_shard=2", "osd_device_write_cost=1ms", NULL };
    run(&res, b);
    CHECK(metric(&res, "write_data_held_peak_bytes") == 0);
    rs_result_release(&res);
}

static void test_invariant(void)
{
    rs_result res;
    trace_begin();
    for (int i = 0; i < 3000; i++)
        rec((uint64_t)i * 100000ull, i % 3 != 0, (uint64_t)(i * 7919 % 211), 4096u << (i % 5));
    trace_end();
    const char *const a[] = { "client_iodepth=8", "osd_write_data_held=true",
                              "osd_device_write_cost=1ms", "osd_op_num_shards=4",
                              "osd_op_num_threads_per_shard=2", "rocksdb_write_cfs=3",
                              "write_buffer_size=1M", "osd_pg_num=8",
                              "osd_target_pg_log_entries_per_osd=400",
                              "osd_min_pg_log_entries=10", "osd_pg_log_dups_tracked=20",
                              "bluestore_cache_size=2M", "sample_interval=1ms", NULL };
    run(&res, a);
    CHECK(res.nsamples > 100);
    size_t held = 0;
    for (size_t i = 0; i < res.nsamples; i++) {
        const rs_sample *sm = &res.samples[i];
        CHECK_MSG(sm->requested_bytes == sm->accounted_bytes + sm->untracked_bytes,
                  "sample %zu: requested %llu != accounted %llu + untracked %llu", i,
                  (unsigned long long)sm->requested_bytes,
                  (unsigned long long)sm->accounted_bytes,
                  (unsigned long long)sm->untracked_bytes);
        held += sm->untracked_bytes > 0;
    }
    CHECK(held > 0);
    CHECK(metric(&res, "write_data_held_peak_bytes") > 0);
    CHECK(metric(&res, "pg_log_dups_count") > 0);
    rs_result_release(&res);
}

static void test_refusals(void)
{
    rs_result res;
    rs_err err;
    writes(10);
    const char *const a[] = { "osd_memory_model=caches", "rocksdb_write_cfs=3", NULL };
    CHECK(run_with(&res, a, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "'rocksdb_write_cfs'") && strstr(err.msg, "osd_memory_model"),
              "%s", err.msg);
    rs_result_release(&res);
    const char *const w[] = { "osd_memory_model=caches", "osd_write_data_held=true", NULL };
    CHECK(run_with(&res, w, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "'osd_write_data_held'"), "%s", err.msg);
    rs_result_release(&res);
    const char *const b[] = { "osd_pg_log_bytes=1M", NULL };
    CHECK(run_with(&res, b, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "'osd_pg_log_bytes'"), "%s", err.msg);
    rs_result_release(&res);
}

static void test_health(void)
{
    rs_result res;
    writes(3000); /* 3 s: checks at 1 s and 2 s (and 3 s at the end at most) */
    const char *const a[] = { "trim=bluestore-autotune", "osd_memory_target=1G",
                              "osd_memory_base=0", "base_bytes=2G", NULL };
    run(&res, a);
    double checks = metric(&res, "health_rss_checks_count");
    CHECK(checks >= 2);
    CHECK(metric(&res, "health_rss_over_target_count") == checks);
    CHECK(metric(&res, "health_rss_over_target_peak_bytes") >= 1024.0 * 1024 * 1024);
    rs_result_release(&res);
    const char *const b[] = { "trim=bluestore-autotune", "osd_memory_target=1G",
                              "osd_memory_base=0", "base_bytes=0", NULL };
    run(&res, b);
    CHECK(metric(&res, "health_rss_over_target_count") == 0);
    rs_result_release(&res);
}

int main(void)
{
    test_pg_log();
    test_memtables();
    test_write_data();
    test_invariant();
    test_block_cache();
    test_flushed_ssts();
    test_refusals();
    test_health();
    unlink(trace_path);
    return check_done();
}
