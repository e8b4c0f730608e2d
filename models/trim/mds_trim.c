/*
 * mds_trim.c — the CephFS MDS trim timings, as trim policies.
 *
 * "mds-tick" is Luminous/Mimic: MDSRankDispatcher::tick() ran
 * MDCache::trim() every mds_tick_interval (5 s), and trim_lru expired
 * dentries `while (cache_toofull())` with no throttle (Ceph @8c95cc5144,
 * MDCache.cc).  "mds-upkeep" is Octopus and later (4b72cc60eb, 7bf2f31abf): the
 * upkeep thread trims every mds_cache_trim_interval (1 s) and stops a pass
 * once trim_counter.get() at the start of the pass plus the dentries
 * trimmed in it reach mds_cache_trim_threshold; trim_counter is a
 * DecayCounter with half-life mds_cache_trim_decay_rate, hit with the
 * count after each pass.  Steady state: about ln 2 / half-life * threshold
 * dentries per second.
 *
 * Both aim at cache_toofull()'s bound, (1 - mds_cache_reservation) * limit,
 * and run a pass every period even when the cache is under it: Ceph's
 * trim() always drains the bottom LRU (null dentries) first, and the
 * daemon's target does the rest of check_memory_usage() (recall, heap
 * release) inside the pass.
 */
#include <stdlib.h>

#include "decay.h"
#include "trim.h"

typedef struct mds_trim {
    const rs_trim_target *tgt;
    rs_trim_stats *stats;
    double reserve;       /* 1 - mds_cache_reservation */
    uint64_t threshold;   /* items per pass budget; 0 = unthrottled */
    rs_decay counter;     /* trim_counter */
} mds_trim;

static const rs_param tick_params[] = {
    { .key = "mds_tick_interval", .type = RS_PT_DURATION, .def = "5s",
      .doc = "time between two MDS ticks; Luminous trimmed the cache in tick (v15 default 5 s)",
      .range = "(0, )" },
    { .key = "mds_cache_reservation", .type = RS_PT_DOUBLE, .def = "0.05",
      .doc = "trim and recall aim at (1 - this) * mds_cache_memory_limit (default 0.05)",
      .range = "[0, 1)" },
    { .key = NULL },
};

static const rs_param upkeep_params[] = {
    { .key = "mds_cache_trim_interval", .type = RS_PT_DURATION, .def = "1s",
      .doc = "time between two upkeep trims (Octopus+, default 1 s)",
      .range = "(0, )" },
    { .key = "mds_cache_trim_threshold", .type = RS_PT_INT, .def = "262144",
      .doc = "dentries a trim may expire before the decaying trim counter stops it (256K since "
             "PR 38574; 64K when added in PR 26038)",
      .range = "[1, )" },
    { .key = "mds_cache_trim_decay_rate", .type = RS_PT_DOUBLE, .def = "1",
      .doc = "half-life of the trim counter, in seconds (default 1)",
      .range = "(0, )" },
    { .key = "mds_cache_reservation", .type = RS_PT_DOUBLE, .def = "0.05",
      .doc = "trim and recall aim at (1 - this) * mds_cache_memory_limit (default 0.05)" },
    { .key = NULL },
};

static void fire(void *ctx, uint64_t now_ns)
{
    mds_trim *m = ctx;
    uint64_t target = (uint64_t)((double)m->tgt->limit_bytes(m->tgt->ctx) * m->reserve);
    uint64_t max_items = 0;

    if (m->threshold) {
        double start = rs_decay_get(&m->counter, now_ns);
        if (start >= (double)m->threshold)
            return; /* throttled for the whole pass */
        max_items = m->threshold - (uint64_t)start;
    }
    uint64_t items = rs_trim_apply(m->tgt, m->stats, target, max_items, now_ns);
    if (m->threshold)
        rs_decay_hit(&m->counter, now_ns, (double)items);
}

static int create_common(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                         rs_trim_stats *stats, uint64_t interval_ns, uint64_t threshold,
                         double half_life_s, void **r_state, rs_err *err)
{
    double reservation = rs_config_double(cfg, "mds_cache_reservation");
    mds_trim *m = calloc(1, sizeof *m);
    if (!m)
        return rs_fail(err, RS_ENOMEM, "out of memory for an mds trim policy");
    m->tgt = tgt;
    m->stats = stats;
    m->reserve = 1.0 - reservation;
    m->threshold = threshold;
    rs_decay_init(&m->counter, half_life_s, eng->now_ns);
    int rc = rs_engine_every(eng, eng->now_ns + interval_ns, interval_ns, fire, m, err);
    if (rc) {
        free(m);
        return rc;
    }
    *r_state = m;
    return 0;
}

static int create_tick(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                       rs_trim_stats *stats, void **r_state, rs_err *err)
{
    return create_common(cfg, eng, tgt, stats, rs_config_duration_ns(cfg, "mds_tick_interval"), 0,
                         1, r_state, err);
}

static int create_upkeep(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                         rs_trim_stats *stats, void **r_state, rs_err *err)
{
    return create_common(cfg, eng, tgt, stats, rs_config_duration_ns(cfg, "mds_cache_trim_interval"),
                         (uint64_t)rs_config_int(cfg, "mds_cache_trim_threshold"),
                         rs_config_double(cfg, "mds_cache_trim_decay_rate"), r_state, err);
}

static void destroy(void *state)
{
    free(state);
}

const rs_trim_ops rs_trim_mds_tick = {
    .name = "mds-tick",
    .doc = "Luminous MDS: trim in tick every mds_tick_interval (5 s) to (1 - "
           "mds_cache_reservation) * limit, unthrottled",
    .params = tick_params,
    .create = create_tick,
    .destroy = destroy,
    .after_insert = NULL,
};

const rs_trim_ops rs_trim_mds_upkeep = {
    .name = "mds-upkeep",
    .doc = "Octopus+ MDS upkeep: trim every mds_cache_trim_interval (1 s) to (1 - "
           "mds_cache_reservation) * limit, throttled by a decaying counter "
           "(mds_cache_trim_threshold, half-life mds_cache_trim_decay_rate)",
    .params = upkeep_params,
    .create = create_upkeep,
    .destroy = destroy,
    .after_insert = NULL,
};
