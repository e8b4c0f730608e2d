/*
 * autotune.c — trim policy "autotune": Ceph's PriorityCache memory
 * autotuner (Ceph PR 22970: PriorityCache.cc, v15.2.5 BlueStore.cc
 * MempoolThread) for any daemon.  The cache's budget starts where the Manager's
 * constructor puts it (one tune_memory() at creation) and is tuned every
 * osd_memory_cache_resize_interval from the mapped bytes the target reports
 * (models/trim/pcache.h has the arithmetic).  A target that cannot report
 * them (mapped_bytes NULL) gets Ceph's behaviour without tcmalloc: the
 * property reads fail, mapped reads 0, and the budget goes to its maximum
 * once, with no feedback.  The cache is trimmed to min(limit, budget) right
 * after an insert passes it (trim-on-add, as v15 does) and at each tune.
 * bluestore-autotune (bluestore.c) runs the same arithmetic per shard with
 * BlueStore's three caches (kv, meta, data) and balance(); this policy is
 * the one-cache form.
 */
#include <stdlib.h>

#include "pcache.h"
#include "trim.h"

typedef struct autotune {
    const rs_trim_target *tgt;
    rs_trim_stats *stats;
    rs_pcache pc;
} autotune;

static const rs_param params[] = {
    { .key = "osd_memory_target", .type = RS_PT_SIZE, .def = "4G",
      .doc = "autotune: the process memory PriorityCache aims for (v15 default 4 GiB)" },
    { .key = "osd_memory_base", .type = RS_PT_SIZE, .def = "768M",
      .doc = "autotune: estimate of memory outside the caches (768 MiB)" },
    { .key = "osd_memory_expected_fragmentation", .type = RS_PT_DOUBLE, .def = "0.15",
      .doc = "autotune: fraction of the target kept for fragmentation (0.15)",
      .range = "[0, 1)" },
    { .key = "osd_memory_cache_min", .type = RS_PT_SIZE, .def = "128M",
      .doc = "autotune: the caches' floor (128 MiB)" },
    { .key = "osd_memory_cache_resize_interval", .type = RS_PT_DURATION, .def = "1s",
      .doc = "autotune: time between two tune_memory() steps (1 s)",
      .range = "(0, )" },
    { .key = NULL },
};

static uint64_t budget(const autotune *a)
{
    uint64_t limit = a->tgt->limit_bytes(a->tgt->ctx);
    return a->pc.tuned_bytes < limit ? a->pc.tuned_bytes : limit;
}

static void trim_if_over(autotune *a, uint64_t now_ns)
{
    uint64_t b = budget(a);
    if (a->tgt->used_bytes(a->tgt->ctx) > b)
        rs_trim_apply(a->tgt, a->stats, b, 0, now_ns);
}

static void on_tune(void *ctx, uint64_t now_ns)
{
    autotune *a = ctx;
    if (a->tgt->mapped_bytes)
        rs_pcache_tune(&a->pc, a->tgt->mapped_bytes(a->tgt->ctx));
    trim_if_over(a, now_ns);
}

static int create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                  rs_trim_stats *stats, void **r_state, rs_err *err)
{
    uint64_t every = rs_config_duration_ns(cfg, "osd_memory_cache_resize_interval");
    double frag = rs_config_double(cfg, "osd_memory_expected_fragmentation");
    autotune *a = malloc(sizeof *a);
    if (!a)
        return rs_fail(err, RS_ENOMEM, "out of memory for trim policy autotune");
    a->tgt = tgt;
    a->stats = stats;
    rs_pcache_init(&a->pc, rs_config_size(cfg, "osd_memory_target"),
                   rs_config_size(cfg, "osd_memory_base"), frag,
                   rs_config_size(cfg, "osd_memory_cache_min"));
    rs_pcache_tune(&a->pc, tgt->mapped_bytes ? tgt->mapped_bytes(tgt->ctx) : 0);
    int rc = rs_engine_every(eng, eng->now_ns + every, every, on_tune, a, err);
    if (rc) {
        free(a);
        return rc;
    }
    *r_state = a;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

static void after_insert(void *state, uint64_t now_ns)
{
    trim_if_over(state, now_ns);
}

const rs_trim_ops rs_trim_autotune = {
    .name = "autotune",
    .doc = "PriorityCache: budget tuned toward osd_memory_target from mapped bytes, trim on insert",
    .params = params,
    .create = create,
    .destroy = destroy,
    .after_insert = after_insert,
};
