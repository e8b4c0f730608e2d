/*
 * bluestore.c — BlueStore's three ways to trim its sharded caches, as trim
 * policies over a sharded target (RS_TRIM_SHARDS, trim.h): each shard holds
 * an onode LRU limited by count and a buffer cache limited by bytes.
 *
 *   bluestore-mempool   Luminous MempoolThread (BlueStore.cc at 50eb2108bd,
 *                       v12.2): a pass trims every shard in turn to
 *                       (meta+data ratio)·cache/shards, buffers first
 *                       (Cache::trim), holding each shard's lock for
 *                       osd_trim_cost_fixed + the per-item cost, then the
 *                       thread sleeps bluestore_cache_trim_interval (200 ms
 *                       before PR 20498, 50 ms after).  It is simulated
 *                       while the daemon is busy and restarts with its next
 *                       op, so a run still ends.
 *   bluestore-on-add    Octopus trim-on-add (PR 28578/28597, v15.2): a shard
 *                       trims right after an insert to its own max, on the
 *                       op's thread; every trim interval _resize_shards
 *                       recomputes the per-shard max from bytes_per_onode.
 *   bluestore-autotune  on-add plus PriorityCache (PR 22970; pcache.h): tune
 *                       the budget every osd_memory_cache_resize_interval
 *                       from the mapped bytes the target reports (after
 *                       releasing free memory), balance kv/meta/data every
 *                       bluestore_cache_autotune_interval; a target that
 *                       cannot report mapped bytes (no tcmalloc) gets the
 *                       Manager constructor's single tune, as Ceph does.
 *
 * The split among kv, meta and data is _set_cache_sizes': data = 1 - meta -
 * kv, and the kv share above bluestore_cache_kv_max (Luminous; 0 = off)
 * goes to meta, in all three policies as the osd daemon always did.  Under
 * autotune that cap is the only use of bluestore_cache_size (the budget
 * comes from osd_memory_target); v14+ has no kv_max, so the autotune preset
 * sets it to 0 — kept, not fixed, so results stay identical (see
 * docs/models.md).
 * Why separate policies from `periodic`/`on-insert`/`autotune`: those trim
 * one cache to one byte limit; these trim per shard with a count limit for
 * onodes derived through bytes_per_onode, charge lock time, and use Ceph's
 * BlueStore keys.  The three share this file for the split and the shard
 * maxima.
 */
#include <stdlib.h>

#include "pcache.h"
#include "trim.h"

enum { MEMPOOL, ON_ADD, AUTOTUNE };

typedef struct bluestore {
    const rs_trim_target *tgt;
    rs_trim_stats *stats;
    rs_engine *eng;
    int mode;
    double meta_ratio, kv_ratio, data_ratio, kv_onode_ratio;
    uint64_t cache_bytes;          /* bluestore_cache_size (fixed-size modes) */
    uint64_t interval_ns, fixed_ns;
    uint64_t meta_alloc, data_alloc; /* on-add, autotune: the meta and data budgets */
    uint64_t max_items, max_bytes; /* per shard, from _resize_shards */
    int armed;                     /* mempool: a pass is scheduled */
    rs_pcache pc;
    uint64_t resize_ns, balance_ns, next_resize_ns, next_balance_ns;
} bluestore;

#define COMMON_PARAMS                                                                            \
    { .key = "bluestore_cache_meta_ratio", .type = RS_PT_DOUBLE, .def = "0.01",                  \
      .doc = "onode share of the cache (Luminous 0.01, v15 0.4, current 0.45)",                  \
      .range = "[0, 1]" },                                                                       \
    { .key = "bluestore_cache_kv_ratio", .type = RS_PT_DOUBLE, .def = "0.99",                    \
      .doc = "RocksDB block-cache share (Luminous 0.99, v15 0.4, current 0.45); data = 1 - meta - kv", \
      .range = "[0, 1]" },                                                                       \
    { .key = "bluestore_cache_kv_onode_ratio", .type = RS_PT_DOUBLE, .def = "0",                 \
      .doc = "the onode column family's block-cache share (v16+ 0.04; 0 = none, as <= v15); "   \
             "data = 1 - meta - kv - kv_onode",                                                  \
      .range = "[0, 1]" }

#define FIXED_SIZE_PARAMS                                                                        \
    { .key = "bluestore_cache_size", .type = RS_PT_SIZE, .def = "3G",                            \
      .doc = "BlueStore cache size (bluestore_cache_size_ssd 3 GiB; _hdd 1 GiB)" },              \
    { .key = "bluestore_cache_kv_max", .type = RS_PT_SIZE, .def = "512M",                        \
      .doc = "Luminous cap on the kv share, the excess going to meta (0 = no cap, v15+)" }

static const rs_param mempool_params[] = {
    COMMON_PARAMS,
    FIXED_SIZE_PARAMS,
    { .key = "bluestore_cache_trim_interval", .type = RS_PT_DURATION, .def = "50ms",
      .doc = "MempoolThread sleep after a pass (200ms before PR 20498, 50ms after)",
      .range = "(0, )" },
    { .key = "osd_trim_cost_fixed", .type = RS_PT_DURATION, .def = "11ms",
      .doc = "shard-lock time of one MempoolThread trim of a shard, whatever it frees (fitted on "
             "PR 20498's 8K_randread)" },
    { .key = NULL },
};

static const rs_param on_add_params[] = {
    COMMON_PARAMS,
    FIXED_SIZE_PARAMS,
    { .key = "bluestore_cache_trim_interval", .type = RS_PT_DURATION, .def = "50ms",
      .doc = "MempoolThread period: _resize_shards recomputes the per-shard max",
      .range = "(0, )" },
    { .key = NULL },
};

static const rs_param autotune_params[] = {
    COMMON_PARAMS,
    { .key = "bluestore_cache_size", .type = RS_PT_SIZE, .def = "3G",
      .doc = "autotune: only through bluestore_cache_kv_max's cap on the kv share" },
    { .key = "bluestore_cache_kv_max", .type = RS_PT_SIZE, .def = "512M",
      .doc = "Luminous cap on the kv share of bluestore_cache_size, the excess going to meta "
             "(0 = no cap, as v14+; set 0 with autotune)" },
    { .key = "bluestore_cache_trim_interval", .type = RS_PT_DURATION, .def = "50ms",
      .doc = "MempoolThread period: tune, balance and _resize_shards when due",
      .range = "(0, )" },
    { .key = "osd_memory_target", .type = RS_PT_SIZE, .def = "4G",
      .doc = "the process memory PriorityCache aims for (v15 default 4 GiB)" },
    { .key = "osd_memory_base", .type = RS_PT_SIZE, .def = "768M",
      .doc = "estimate of memory outside the caches (768 MiB): autotune's floor" },
    { .key = "osd_memory_expected_fragmentation", .type = RS_PT_DOUBLE, .def = "0.15",
      .doc = "fraction of the target kept for fragmentation (0.15)",
      .range = "[0, 1)" },
    { .key = "osd_memory_cache_min", .type = RS_PT_SIZE, .def = "128M",
      .doc = "the caches' floor (128 MiB)" },
    { .key = "osd_memory_cache_resize_interval", .type = RS_PT_DURATION, .def = "1s",
      .doc = "time between two tune_memory() steps (1 s)",
      .range = "(0, )" },
    { .key = "bluestore_cache_autotune_interval", .type = RS_PT_DURATION, .def = "5s",
      .doc = "time between two balance() steps among kv/meta/data (5 s)",
      .range = "(0, )" },
    { .key = "pcache_get_chunk", .type = RS_PT_STRING, .def = "v14", .choices = "v14|v16",
      .doc = "PriorityCache's headroom per cache: v14 (v14/v15: 16 chunks of 4-16 MiB) or v16 "
             "(v16+: 64 MiB, rounded to a chunk of 4-64 MiB)" },
    { .key = NULL },
};

static uint64_t bytes_per_onode(const bluestore *b)
{
    rs_trim_usage u;
    b->tgt->usage(b->tgt->ctx, &u);
    uint64_t n = u.items_count < 2 ? 2 : u.items_count;
    uint64_t bpo = u.meta_bytes / n;
    return bpo ? bpo : 1;
}

/* _resize_shards: the per-shard max from the meta/data budgets. */
static void resize_shards(bluestore *b)
{
    uint64_t bpo = bytes_per_onode(b), n = b->tgt->shard_count;
    b->max_items = b->meta_alloc / n / bpo;
    b->max_bytes = b->data_alloc / n;
}

static void balance(bluestore *b)
{
    const double ratio[4] = { b->kv_ratio, b->meta_ratio, b->data_ratio, b->kv_onode_ratio };
    uint64_t commit[4];
    rs_trim_usage u;
    const rs_trim_target *t = b->tgt;
    unsigned n = b->kv_onode_ratio > 0 ? 4 : 3; /* kv_onode: v16+ */
    t->usage(t->ctx, &u);
    /* without a simulated RocksDB, its block caches are taken to want their
     * whole ratio share, as warm block caches do */
    uint64_t want[4] = { (uint64_t)((double)b->pc.tuned_bytes * b->kv_ratio), u.meta_bytes,
                         u.data_bytes, (uint64_t)((double)b->pc.tuned_bytes * b->kv_onode_ratio) };
    if (t->kv_usage)
        t->kv_usage(t->ctx, &want[0], &want[3]);
    rs_pcache_balance(&b->pc, n, want, ratio, commit);
    b->meta_alloc = commit[1];
    b->data_alloc = commit[2];
    if (t->set_kv_capacity)
        t->set_kv_capacity(t->ctx, commit[0], n == 4 ? commit[3] : 0);
}

static uint64_t mapped(const bluestore *b)
{
    /* without it the property reads fail and mapped reads 0 (src/perfglue/disabled_heap_profiler.cc) */
    return b->tgt->mapped_bytes ? b->tgt->mapped_bytes(b->tgt->ctx) : 0;
}

static void count_pass(bluestore *b, uint64_t items, uint64_t bytes, uint64_t now_ns)
{
    if (!items) /* counted as the sampler counts trims: passes that evicted */
        return;
    b->stats->trims_count++;
    b->stats->trimmed_items_count += items;
    b->stats->trimmed_bytes += bytes;
    b->stats->last_trim_ns = now_ns;
}

/* Luminous Cache::trim(shard_target, meta_ratio, data_ratio, bytes_per_onode). */
static uint64_t luminous_trim_shard(bluestore *b, uint32_t shard, uint64_t target, uint64_t bpo,
                                    uint64_t *r_bytes)
{
    const rs_trim_target *t = b->tgt;
    uint64_t onodes, cur_buf;
    t->shard_usage(t->ctx, shard, &onodes, &cur_buf);
    uint64_t cur_meta = onodes * bpo, cur = cur_meta + cur_buf;
    uint64_t t_meta = (uint64_t)((double)target * b->meta_ratio);
    uint64_t t_buf = (uint64_t)((double)target * b->data_ratio);
    if (t_meta > target)
        t_meta = target;
    if (t_buf > target - t_meta)
        t_buf = target - t_meta;
    if (cur <= target)
        return 0;
    uint64_t need = cur - target, free_buf = 0;
    if (cur_buf > t_buf)
        free_buf = cur_buf - t_buf < need ? cur_buf - t_buf : need;
    uint64_t free_meta = need - free_buf;
    uint64_t max_buf = cur_buf - free_buf, max_meta = cur_meta - free_meta;
    uint64_t items = t->shard_trim_bytes(t->ctx, shard, max_buf, 1, r_bytes);
    return items + t->shard_trim_items(t->ctx, shard, max_meta / bpo, 1, r_bytes);
}

/* One MempoolThread pass, then cond.WaitInterval(interval): the next pass
 * starts an interval after this one ends, while the daemon is busy. */
static void on_mempool_pass(void *ctx, uint64_t now_ns)
{
    bluestore *b = ctx;
    const rs_trim_target *t = b->tgt;
    uint64_t bpo = bytes_per_onode(b), at = now_ns, total = 0, bytes = 0;
    uint64_t target = (uint64_t)((b->meta_ratio + b->data_ratio) *
                                 (double)(b->cache_bytes / t->shard_count));
    for (uint32_t i = 0; i < t->shard_count; i++) {
        uint64_t items = luminous_trim_shard(b, i, target, bpo, &bytes);
        at += t->shard_hold(t->ctx, i, at, b->fixed_ns, items);
        total += items;
    }
    count_pass(b, total, bytes, now_ns);
    b->armed = t->busy(t->ctx);
    if (b->armed) {
        rs_err err;
        if (rs_engine_at(b->eng, at + b->interval_ns, on_mempool_pass, b, &err))
            rs_engine_abort(b->eng, &err);
    }
}

static int mempool_wake(void *state, uint64_t now_ns, rs_err *err)
{
    bluestore *b = state;
    if (b->armed)
        return 0;
    b->armed = 1;
    return rs_engine_at(b->eng, now_ns + b->interval_ns, on_mempool_pass, b, err);
}

/* The v15 MempoolThread loop body (every trim interval). */
static void on_resize(void *ctx, uint64_t now_ns)
{
    bluestore *b = ctx;
    if (b->mode == AUTOTUNE) {
        if (now_ns >= b->next_balance_ns) {
            balance(b);
            b->next_balance_ns = now_ns + b->balance_ns;
        }
        if (b->tgt->mapped_bytes && now_ns >= b->next_resize_ns) {
            if (b->tgt->release_memory)
                b->tgt->release_memory(b->tgt->ctx, now_ns); /* ReleaseFreeMemory */
            rs_pcache_tune(&b->pc, mapped(b));
            b->stats->tuned_bytes = b->pc.tuned_bytes;
            b->next_resize_ns = now_ns + b->resize_ns;
        }
    }
    resize_shards(b);
}

/* Trim-on-add: the shard trims itself after an insert, on the op's thread. */
static void on_add_after_shard_insert(void *state, uint32_t shard, int items, uint64_t now_ns)
{
    bluestore *b = state;
    const rs_trim_target *t = b->tgt;
    uint64_t n, bytes = 0;
    if (items) {
        n = t->shard_trim_items(t->ctx, shard, b->max_items, 0, &bytes);
    } else {
        uint64_t held; /* the peak: before the trim */
        t->shard_usage(t->ctx, shard, NULL, &held);
        if (held <= b->max_bytes) /* nothing to trim */
            return;
        if (held - b->max_bytes > b->stats->shard_excess_peak_bytes)
            b->stats->shard_excess_peak_bytes = held - b->max_bytes;
        n = t->shard_trim_bytes(t->ctx, shard, b->max_bytes, 0, &bytes);
    }
    count_pass(b, n, bytes, now_ns);
}

/* _set_cache_sizes: the kv/meta/data split. */
static int read_ratios(bluestore *b, const rs_config *cfg, rs_err *err)
{
    b->meta_ratio = rs_config_double(cfg, "bluestore_cache_meta_ratio");
    b->kv_ratio = rs_config_double(cfg, "bluestore_cache_kv_ratio");
    b->kv_onode_ratio = rs_config_double(cfg, "bluestore_cache_kv_onode_ratio");
    if (b->meta_ratio + b->kv_ratio + b->kv_onode_ratio > 1.0 + 1e-9)
        return rs_fail(err, RS_EINPUT, "bad values for keys 'bluestore_cache_meta_ratio' (%g), "
                       "'bluestore_cache_kv_ratio' (%g) and 'bluestore_cache_kv_onode_ratio' (%g): "
                       "their sum is above 1", b->meta_ratio, b->kv_ratio, b->kv_onode_ratio);
    /* Luminous: the kv share above kv_max goes to meta */
    b->cache_bytes = rs_config_size(cfg, "bluestore_cache_size");
    uint64_t kv_max = rs_config_size(cfg, "bluestore_cache_kv_max");
    if (kv_max && b->mode == AUTOTUNE)
        return rs_fail(err, RS_EINPUT, "bad value for key 'bluestore_cache_kv_max' (%llu): it is "
                       "Luminous's cap on a fixed-size cache; PriorityCache (v14+, trim "
                       "bluestore-autotune) has none, set it to 0", (unsigned long long)kv_max);
    if (kv_max && b->cache_bytes && (double)b->cache_bytes * b->kv_ratio > (double)kv_max) {
        double kv = (double)kv_max / (double)b->cache_bytes;
        b->meta_ratio += b->kv_ratio - kv;
        b->kv_ratio = kv;
    }
    b->data_ratio = 1.0 - b->meta_ratio - b->kv_ratio - b->kv_onode_ratio;
    if (b->data_ratio < 0)
        b->data_ratio = 0;
    return 0;
}

static int create(int mode, const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                  rs_trim_stats *stats, void **r_state, rs_err *err)
{
    bluestore *b = calloc(1, sizeof *b);
    int rc;
    if (!b)
        return rs_fail(err, RS_ENOMEM, "out of memory for a bluestore trim policy");
    b->tgt = tgt;
    b->stats = stats;
    b->eng = eng;
    b->mode = mode;
    if ((rc = read_ratios(b, cfg, err)))
        goto fail;
    b->interval_ns = rs_config_duration_ns(cfg, "bluestore_cache_trim_interval");
    uint64_t t0 = eng->now_ns;
    if (mode == MEMPOOL) { /* the thread starts with the first op (wake) */
        b->fixed_ns = rs_config_duration_ns(cfg, "osd_trim_cost_fixed");
        *r_state = b;
        return 0;
    }
    if (mode == AUTOTUNE) {
        rs_pcache_init(&b->pc, rs_config_size(cfg, "osd_memory_target"),
                       rs_config_size(cfg, "osd_memory_base"),
                       rs_config_double(cfg, "osd_memory_expected_fragmentation"),
                       rs_config_size(cfg, "osd_memory_cache_min"));
        b->resize_ns = rs_config_duration_ns(cfg, "osd_memory_cache_resize_interval");
        b->balance_ns = rs_config_duration_ns(cfg, "bluestore_cache_autotune_interval");
        b->pc.chunk_v16 = rs_config_choice(cfg, "pcache_get_chunk") == 1;
        stats->memory_target_bytes = b->pc.target_bytes;
        /* the Manager constructor's one tune_memory(), then balance */
        rs_pcache_tune(&b->pc, mapped(b));
        stats->tuned_bytes = b->pc.tuned_bytes;
        balance(b);
        b->next_resize_ns = t0 + b->resize_ns;
        b->next_balance_ns = t0 + b->balance_ns;
    } else {
        b->meta_alloc = (uint64_t)(b->meta_ratio * (double)b->cache_bytes);
        b->data_alloc = (uint64_t)(b->data_ratio * (double)b->cache_bytes);
        if (tgt->set_kv_capacity) /* a fixed-size cache: the block caches get their ratios */
            tgt->set_kv_capacity(tgt->ctx, (uint64_t)(b->kv_ratio * (double)b->cache_bytes),
                                 (uint64_t)(b->kv_onode_ratio * (double)b->cache_bytes));
    }
    resize_shards(b);
    if ((rc = rs_engine_every(eng, t0 + b->interval_ns, b->interval_ns, on_resize, b, err)))
        goto fail;
    *r_state = b;
    return 0;
fail:
    free(b);
    return rc;
}

static int mempool_create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                          rs_trim_stats *stats, void **r_state, rs_err *err)
{
    return create(MEMPOOL, cfg, eng, tgt, stats, r_state, err);
}

static int on_add_create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                         rs_trim_stats *stats, void **r_state, rs_err *err)
{
    return create(ON_ADD, cfg, eng, tgt, stats, r_state, err);
}

static int autotune_create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                           rs_trim_stats *stats, void **r_state, rs_err *err)
{
    return create(AUTOTUNE, cfg, eng, tgt, stats, r_state, err);
}

static void destroy(void *state)
{
    free(state);
}

static uint64_t mempool_limit(const void *state)
{
    const bluestore *b = state;
    return (uint64_t)((b->meta_ratio + b->data_ratio) * (double)b->cache_bytes);
}

static uint64_t budget_limit(const void *state)
{
    const bluestore *b = state;
    return b->meta_alloc + b->data_alloc;
}

const rs_trim_ops rs_trim_bluestore_mempool = {
    .name = "bluestore-mempool",
    .doc = "Luminous BlueStore MempoolThread: every shard trimmed in turn (buffers first) under "
           "its lock, then sleep bluestore_cache_trim_interval (per-shard target; osd)",
    .params = mempool_params,
    .needs = RS_TRIM_SHARDS,
    .create = mempool_create,
    .destroy = destroy,
    .wake = mempool_wake,
    .limit_bytes = mempool_limit,
};

const rs_trim_ops rs_trim_bluestore_on_add = {
    .name = "bluestore-on-add",
    .doc = "Octopus BlueStore trim-on-add: a shard trims to its max after each insert; "
           "_resize_shards every bluestore_cache_trim_interval (per-shard target; osd)",
    .params = on_add_params,
    .needs = RS_TRIM_SHARDS,
    .create = on_add_create,
    .destroy = destroy,
    .after_shard_insert = on_add_after_shard_insert,
    .limit_bytes = budget_limit,
};

const rs_trim_ops rs_trim_bluestore_autotune = {
    .name = "bluestore-autotune",
    .doc = "Octopus BlueStore trim-on-add with PriorityCache sizing the kv/meta/data budgets "
           "toward osd_memory_target (per-shard target; osd)",
    .params = autotune_params,
    .needs = RS_TRIM_SHARDS,
    .create = autotune_create,
    .destroy = destroy,
    .after_shard_insert = on_add_after_shard_insert,
    .limit_bytes = budget_limit,
};
