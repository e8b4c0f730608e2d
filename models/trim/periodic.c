/*
 * periodic.c — trim every `trim_interval` of virtual time, down to the limit.
 *
 * This is BlueStore's Luminous MempoolThread (one thread waking every
 * bluestore_cache_trim_interval: 200 ms before commit 50eb2108bd, 50 ms
 * after) and the MDS's tick trim (every mds_tick_interval, 5 s, unthrottled)
 * reduced to their timing: between two passes nothing stops the cache from
 * growing, so on a steady insert stream of r bytes/s the accounted bytes
 * overshoot the limit by up to r * interval (docs/models.md, trim policies).
 * The first pass runs one interval after the start.
 */
#include <stdlib.h>

#include "trim.h"

typedef struct periodic {
    const rs_trim_target *tgt;
    rs_trim_stats *stats;
} periodic;

static const rs_param params[] = {
    { .key = "trim_interval", .type = RS_PT_DURATION, .def = "200ms",
      .doc = "time between two trim passes (bluestore_cache_trim_interval: 200ms before PR 20498, 50ms after)",
      .range = "(0, )" },
    { .key = NULL },
};

static void fire(void *ctx, uint64_t now_ns)
{
    periodic *p = ctx;
    uint64_t limit = p->tgt->limit_bytes(p->tgt->ctx);
    if (rs_trim_over(p->tgt, limit))
        rs_trim_apply(p->tgt, p->stats, limit, 0, now_ns);
}

static int create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                  rs_trim_stats *stats, void **r_state, rs_err *err)
{
    uint64_t interval = rs_config_duration_ns(cfg, "trim_interval");
    periodic *p = malloc(sizeof *p);
    if (!p)
        return rs_fail(err, RS_ENOMEM, "out of memory for trim policy periodic");
    p->tgt = tgt;
    p->stats = stats;
    int rc = rs_engine_every(eng, eng->now_ns + interval, interval, fire, p, err);
    if (rc) {
        free(p);
        return rc;
    }
    *r_state = p;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

const rs_trim_ops rs_trim_periodic = {
    .name = "periodic",
    .doc = "trim to the limit every trim_interval (Luminous BlueStore MempoolThread, MDS tick)",
    .params = params,
    .counts = 1,
    .create = create,
    .destroy = destroy,
    .after_insert = NULL,
};
