/*
 * alloc.c — daemon "alloc": replays a raw allocation trace (MALLOC, FREE,
 * RELEASE records, daemon kind "alloc") straight into the allocator model,
 * so any malloc/free sequence — recorded from a real program by
 * librssim-record.so, or emitted by another run with --emit-alloc-trace —
 * can be simulated and compared with rssim-real's measurement of it.
 *
 * There is no cache: accounted_bytes is the live requested bytes (every
 * allocation counts), untracked is 0, and the limit is alloc_limit (only
 * used for the overshoot column).  Handles map to simulated addresses
 * through an open-addressing table of {handle, addr, size}.  A FREE of an
 * unknown handle, a MALLOC of a live handle, or a FREE whose size differs
 * from the MALLOC's is bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "../../sim/base/hash.h"

typedef struct slot {
    uint64_t handle;
    rs_addr addr;        /* 0 = empty */
    uint64_t size_bytes; /* as allocated: a FREE must name the same size */
} slot;

typedef struct alloc_daemon {
    rs_alloc *alloc;
    slot *slots;
    uint64_t mask, live;
    uint64_t live_bytes, peak_bytes, peak_live, limit_bytes, base_bytes;
    uint64_t releases;
    rs_trim_stats trim; /* releases counted as trims */
} alloc_daemon;

static const rs_param params[] = {
    { .key = "alloc_limit", .type = RS_PT_SIZE, .def = "0",
      .doc = "reference limit for the overshoot column of an alloc-trace replay (0: none)" },
    { .key = NULL },
};

static uint64_t find(const alloc_daemon *d, uint64_t handle)
{
    uint64_t i = rs_hash64(handle) & d->mask;
    while (d->slots[i].addr && d->slots[i].handle != handle)
        i = (i + 1) & d->mask;
    return i;
}

static int grow(alloc_daemon *d, rs_err *err)
{
    uint64_t n = d->slots ? 2 * (d->mask + 1) : 4096;
    slot *old = d->slots;
    uint64_t oldn = old ? d->mask + 1 : 0;
    d->slots = calloc(n, sizeof *d->slots);
    if (!d->slots) {
        d->slots = old;
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu handles", (unsigned long long)n);
    }
    d->mask = n - 1;
    for (uint64_t i = 0; i < oldn; i++)
        if (old[i].addr)
            d->slots[find(d, old[i].handle)] = old[i];
    free(old);
    return 0;
}

static void unlink_slot(alloc_daemon *d, uint64_t i)
{
    /* backward-shift deletion */
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & d->mask;
        if (!d->slots[j].addr)
            break;
        uint64_t home = rs_hash64(d->slots[j].handle) & d->mask;
        if (((j - home) & d->mask) >= ((j - i) & d->mask)) {
            d->slots[i] = d->slots[j];
            i = j;
        }
    }
    d->slots[i].addr = 0;
}

static int op(void *state, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    (void)memo;
    alloc_daemon *d = state;
    uint64_t i;
    int rc;

    switch (rec->op) {
    case RS_OP_MALLOC:
        if ((d->live + 1) * 2 > d->mask + 1 && (rc = grow(d, err)))
            return rc;
        i = find(d, rec->key);
        if (d->slots[i].addr)
            return rs_fail(err, RS_EINPUT, "MALLOC of handle %llu at t_ns %llu: handle already live",
                           (unsigned long long)rec->key, (unsigned long long)rec->t_ns);
        rs_addr a = d->alloc->ops->alloc(d->alloc->state, rec->size_bytes, rec->thread, rec->t_ns);
        if (!a)
            return rs_alloc_fail_full(d->alloc, err);
        d->slots[i] = (slot){ .handle = rec->key, .addr = a, .size_bytes = rec->size_bytes };
        d->live++;
        d->live_bytes += rec->size_bytes;
        if (d->live_bytes > d->peak_bytes)
            d->peak_bytes = d->live_bytes;
        if (d->live > d->peak_live)
            d->peak_live = d->live;
        return 0;
    case RS_OP_FREE:
        i = find(d, rec->key);
        if (!d->slots[i].addr)
            return rs_fail(err, RS_EINPUT, "FREE of handle %llu at t_ns %llu: no such live handle",
                           (unsigned long long)rec->key, (unsigned long long)rec->t_ns);
        if (d->slots[i].size_bytes != rec->size_bytes)
            return rs_fail(err, RS_EINPUT,
                           "FREE of handle %llu at t_ns %llu: size_bytes %llu, but it was allocated with %llu",
                           (unsigned long long)rec->key, (unsigned long long)rec->t_ns,
                           (unsigned long long)rec->size_bytes,
                           (unsigned long long)d->slots[i].size_bytes);
        d->alloc->ops->free(d->alloc->state, d->slots[i].addr, rec->size_bytes, rec->thread, rec->t_ns);
        unlink_slot(d, i);
        d->live--;
        d->live_bytes -= rec->size_bytes;
        return 0;
    case RS_OP_RELEASE:
        if (d->alloc->ops->release)
            d->alloc->ops->release(d->alloc->state, rec->t_ns);
        d->trim.trims_count++;
        d->trim.last_trim_ns = rec->t_ns;
        return 0;
    default:
        return rs_fail(err, RS_EINPUT, "daemon alloc cannot replay op %u at t_ns %llu", rec->op,
                       (unsigned long long)rec->t_ns);
    }
}

static int create(const rs_daemon_env *env, void **r_state, rs_err *err)
{
    alloc_daemon *d = calloc(1, sizeof *d);
    if (!d)
        return rs_fail(err, RS_ENOMEM, "out of memory for daemon alloc");
    d->alloc = env->alloc;
    d->limit_bytes = rs_config_size(env->cfg, "alloc_limit");
    d->base_bytes = rs_config_size(env->cfg, "base_bytes");
    int rc = grow(d, err);
    if (rc) {
        free(d);
        return rc;
    }
    *r_state = d;
    return 0;
}

/* Live allocations are not freed one by one: the allocator model is
 * destroyed with the run. */
static void destroy(void *state)
{
    alloc_daemon *d = state;
    free(d->slots);
    free(d);
}

static void stats(const void *state, rs_daemon_stats *r)
{
    const alloc_daemon *d = state;
    *r = (rs_daemon_stats){
        .accounted_bytes = d->live_bytes,
        .limit_bytes = d->limit_bytes,
        .base_bytes = d->base_bytes,
        .items_count = d->live,
        .accounted_peak_bytes = d->peak_bytes,
        .items_peak_count = d->peak_live,
        .trim = d->trim,
    };
}

const rs_daemon_ops rs_daemon_alloc = {
    .name = "alloc",
    .doc = "raw allocation trace: MALLOC/FREE/RELEASE straight into the allocator model",
    .params = params,
    .trace_daemon = "alloc",
    .create = create,
    .destroy = destroy,
    .op = op,
    .stats = stats,
};
