/* alloc_tee.c — forward every allocator call and record it; see alloc_tee.h. */
#include "alloc_tee.h"

static void put(rs_alloc_tee *t, unsigned op, uint64_t key, uint64_t size_bytes, uint32_t thread,
                uint64_t now_ns)
{
    rs_rec r = { .t_ns = now_ns, .key = key, .size_bytes = size_bytes, .op = (uint8_t)op,
                 .thread = (uint16_t)thread };
    if (!t->failed && rs_trace_write(t->writer, &r, &t->err))
        t->failed = 1;
}

static void tee_destroy(void *state)
{
    (void)state;
}

static rs_addr tee_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    rs_alloc_tee *t = state;
    rs_addr a = t->inner.ops->alloc(t->inner.state, size_bytes, thread, now_ns);
    if (a)
        put(t, RS_OP_MALLOC, a, size_bytes, thread, now_ns);
    return a;
}

static void tee_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    rs_alloc_tee *t = state;
    put(t, RS_OP_FREE, addr, size_bytes, thread, now_ns);
    t->inner.ops->free(t->inner.state, addr, size_bytes, thread, now_ns);
}

static uint64_t tee_usable_size(const void *state, uint64_t size_bytes)
{
    const rs_alloc_tee *t = state;
    return t->inner.ops->usable_size(t->inner.state, size_bytes);
}

static void tee_advance(void *state, uint64_t now_ns)
{
    rs_alloc_tee *t = state;
    if (t->inner.ops->advance)
        t->inner.ops->advance(t->inner.state, now_ns);
}

static void tee_release(void *state, uint64_t now_ns)
{
    rs_alloc_tee *t = state;
    put(t, RS_OP_RELEASE, 0, 0, 0, now_ns);
    if (t->inner.ops->release)
        t->inner.ops->release(t->inner.state, now_ns);
}

static void tee_stats(const void *state, rs_alloc_stats *r)
{
    const rs_alloc_tee *t = state;
    t->inner.ops->stats(t->inner.state, r);
}

static void tee_prefetch(const void *state, rs_addr addr, int stage)
{
    const rs_alloc_tee *t = state;
    if (t->inner.ops->prefetch)
        t->inner.ops->prefetch(t->inner.state, addr, stage);
}

static int tee_audit(const void *state, rs_err *err)
{
    const rs_alloc_tee *t = state;
    return t->inner.ops->audit(t->inner.state, err);
}

static uint64_t tee_footprint_bytes(const void *state)
{
    const rs_alloc_tee *t = state;
    return t->inner.ops->footprint_bytes(t->inner.state);
}

void rs_alloc_tee_wrap(rs_alloc *alloc, rs_alloc_tee *tee, rs_trace_writer *writer)
{
    *tee = (rs_alloc_tee){ .inner = *alloc, .writer = writer };
    /* The wrapped model's ops with the calls that change state recorded: what
     * the model declares (its name and parameters, reports_heap, reports, the
     * real library) stays what the daemon and the sampler see, so a run that
     * writes its allocation trace is the run that does not. */
    const rs_alloc_ops *in = alloc->ops;
    tee->ops = *in;
    tee->ops.create = NULL; /* a tee is made here, never from a config */
    tee->ops.destroy = tee_destroy;
    tee->ops.alloc = tee_alloc;
    tee->ops.free = tee_free;
    tee->ops.alloc_n = NULL; /* one call a part, each recorded */
    tee->ops.free_n = NULL;
    tee->ops.usable_size = tee_usable_size;
    tee->ops.advance = in->advance ? tee_advance : NULL;
    tee->ops.release = in->release ? tee_release : NULL;
    tee->ops.stats = tee_stats;
    tee->ops.prefetch = in->prefetch ? tee_prefetch : NULL;
    tee->ops.audit = in->audit ? tee_audit : NULL;
    tee->ops.footprint_bytes = in->footprint_bytes ? tee_footprint_bytes : NULL;
    alloc->ops = &tee->ops;
    alloc->state = tee;
}

void rs_alloc_tee_unwrap(rs_alloc *alloc, rs_alloc_tee *tee)
{
    *alloc = tee->inner;
}
