/* engine.c — merge the record stream with the timer heap; see engine.h. */
#include "engine.h"

#include <string.h>


static int fire_until(rs_engine *eng, uint64_t t_ns, rs_err *err);

void rs_engine_init(rs_engine *eng)
{
    memset(eng, 0, sizeof *eng);
    rs_evq_init(&eng->q);
    eng->prefetch_stages = 3;
}

void rs_engine_release(rs_engine *eng)
{
    rs_evq_release(&eng->q);
}

int rs_engine_at(rs_engine *eng, uint64_t t_ns, rs_event_fn fn, void *ctx, rs_err *err)
{
    return rs_engine_at_inline(eng, t_ns, fn, ctx, err);
}

int rs_engine_every(rs_engine *eng, uint64_t first_ns, uint64_t period_ns,
                    rs_event_fn fn, void *ctx, rs_err *err)
{
    if (!period_ns)
        return rs_fail(err, RS_EINPUT, "a periodic timer needs a period > 0");
    return rs_evq_push(&eng->q, first_ns, period_ns, fn, ctx, err);
}

void rs_engine_hold(rs_engine *eng)
{
    eng->held = 1;
}

void rs_engine_release_hold(rs_engine *eng)
{
    eng->held = 0;
}

static inline __attribute__((always_inline)) int fire_until_inline(rs_engine *eng, uint64_t t_ns,
                                                                   rs_err *err);

/* Fire events until the handler releases its hold on the stream: a time's
 * events at a time, the hold looked at after each.  fire_until is inlined
 * here (a hold lasts a few event times, and a call for each cost more
 * instructions than the loop's own work), this out of line, so the record
 * loop keeps its registers. */
static __attribute__((noinline)) int wait_for_release(rs_engine *eng, rs_err *err)
{
    while (eng->held) {
        if (!eng->pending)
            return rs_fail(err, RS_EINTERNAL, "the daemon holds the trace with no work pending");
        int rc = fire_until_inline(eng, rs_evq_next_ns(&eng->q), err);
        if (rc)
            return rc;
    }
    return 0;
}

void rs_engine_abort(rs_engine *eng, const rs_err *why)
{
    if (!eng->stopped && why)
        eng->error = *why;
    eng->stopped = 1;
}

int rs_engine_observe_every(rs_engine *eng, uint64_t first_ns, uint64_t period_ns,
                            rs_event_fn fn, void *ctx, rs_err *err)
{
    if (!period_ns)
        return rs_fail(err, RS_EINPUT, "a periodic timer needs a period > 0");
    return rs_evq_push_prio(&eng->q, first_ns, period_ns, RS_PRIO_OBSERVE, fn, ctx, err);
}

/* Fire every timer due at or before t_ns. */
static inline __attribute__((always_inline)) int fire_until_inline(rs_engine *eng, uint64_t t_ns,
                                                                   rs_err *err)
{
    while (rs_evq_next_ns(&eng->q) <= t_ns && !eng->stopped) {
        rs_event ev;
        int rc = rs_evq_pop(&eng->q, &ev, err);
        if (rc)
            return rc;
        eng->now_ns = ev.t_ns;
        eng->timer_events++;
        if (!ev.period_ns) {
            eng->pending--;
        } else if (__builtin_expect(++eng->periodic_events > RS_ENGINE_MAX_PERIODIC_EVENTS, 0)) {
            rs_err why;
            rs_fail(&why, RS_EINPUT, "more than %llu periodic timer events by t_ns %llu: a timer "
                    "with a short period (trim_interval, alloc_tick_interval, ...) over a long span "
                    "of virtual time; raise its period, or shift the trace to start near 0",
                    (unsigned long long)RS_ENGINE_MAX_PERIODIC_EVENTS, (unsigned long long)ev.t_ns);
            rs_engine_abort(eng, &why);
            break;
        }
        ev.fn(ev.ctx, ev.t_ns);
    }
    if (eng->stopped) {
        if (err)
            *err = eng->error;
        return eng->error.code ? eng->error.code : RS_EINTERNAL;
    }
    return 0;
}

static int fire_until(rs_engine *eng, uint64_t t_ns, rs_err *err)
{
    return fire_until_inline(eng, t_ns, err);
}

/* Decode records into the ring's free entries [*tail, head + RING), in at
 * most two runs (it wraps): returns 1 while the source goes on, else its
 * end (0) or error (read_err). */
static int fill(const rs_rec_source *src, rs_rec *ring, uint64_t *line, size_t ring_len,
                uint64_t head, uint64_t *tail, rs_err *read_err)
{
    int rc = 1;
    while (rc == 1 && *tail - head < ring_len) {
        size_t at = (size_t)(*tail & (ring_len - 1)), n = ring_len - at, got = 0;
        if (n > ring_len - (*tail - head))
            n = ring_len - (size_t)(*tail - head);
        if (src->next_many) {
            rc = src->next_many(src->ctx, &ring[at], &line[at], n, &got, read_err);
        } else {
            for (; got < n && (rc = src->next(src->ctx, &ring[at + got], read_err)) == 1; got++)
                line[at + got] = src->line(src->ctx);
        }
        *tail += got;
    }
    return rc;
}

int rs_engine_run(rs_engine *eng, const rs_rec_source *src, rs_rec_fn on_rec,
                  rs_prefetch_fn prefetch, void *ctx, uint64_t tail_ns, uint64_t *r_end_ns,
                  rs_err *err)
{
    /* Records are decoded RING ahead, a batch at a time, and handed to the
     * prefetch hook N ahead (stage 0), one a record, as before batching: the
     * hook sees the same calls in the same order whatever the batch. */
    enum { N = RS_ENGINE_LOOKAHEAD, RING = 4 * N, MASK = RING - 1, MID = N / 2, NEAR = N / 4,
           NEARER = N / 8, NEXT = N / 16 };
    _Static_assert((N & (N - 1)) == 0 && NEXT >= 1, "lookahead must be a power of two, >= 16");
    const int stages = eng->prefetch_stages;
    struct { /* one block, so that the loop reaches all three from one base */
        rs_rec rec[RING];
        rs_memo memo[RING]; /* the prefetch hook's notes on each buffered record */
        uint64_t line[RING]; /* where each buffered record came from, for messages */
    } b;
    rs_rec *const ring = b.rec;
    rs_memo *const memo = b.memo;
    uint64_t *const line = b.line;
    rs_err read_err = { 0 };
    /* records [head, staged) are buffered and staged (prefetch stage 0),
     * [staged, tail) buffered only */
    uint64_t last_ns = 0, head = 0, staged = 0, tail = 0;
    int read_rc, rc;
    const uint64_t horizon_ns = eng->horizon_ns ? eng->horizon_ns : UINT64_MAX; /* one compare a record */

    read_rc = fill(src, ring, line, RING, head, &tail, &read_err);
    for (; staged < tail && staged < N; staged++) {
        memo[staged & MASK] = (rs_memo){ { 0, 0 } };
        if (prefetch)
            prefetch(ctx, &ring[staged & MASK], &memo[staged & MASK], 0);
    }
    /* the first record runs at its time, or now if that is later (below) */
    if (tail)
        eng->first_rec_ns = ring[0].t_ns < eng->now_ns ? eng->now_ns : ring[0].t_ns;
    while (head < tail) {
        rs_rec *rec = &ring[head & MASK];
        if (__builtin_expect(eng->held, 0) && (rc = wait_for_release(eng, err)))
            return rc;
        /* after a hold the clock is past the stream's times (a closed loop
         * writes t_ns 0): every later record runs at now, never before */
        if (rec->t_ns < eng->now_ns)
            rec->t_ns = eng->now_ns;
        if (__builtin_expect(rec->t_ns > horizon_ns, 0))
            return rs_fail(err, RS_EINPUT, "%s:%llu: t_ns %llu is past the latest time a run may reach, "
                           "t_ns %llu (%s); a trace with times far from 0 (an epoch) must be shifted "
                           "to start near 0", src->path, (unsigned long long)line[head & MASK],
                           (unsigned long long)rec->t_ns, (unsigned long long)horizon_ns,
                           eng->horizon_why ? eng->horizon_why : "the run's bound");
        if (rs_evq_next_ns(&eng->q) <= rec->t_ns && (rc = fire_until(eng, rec->t_ns, err))) {
            if (rc == RS_EINPUT) /* a timer due by this record refused to go on */
                rs_err_prefix(err, "%s:%llu", src->path, (unsigned long long)line[head & MASK]);
            return rc;
        }
        if (prefetch && head + MID < staged)
            prefetch(ctx, &ring[(head + MID) & MASK], &memo[(head + MID) & MASK], 1);
        if (prefetch && head + NEAR < staged)
            prefetch(ctx, &ring[(head + NEAR) & MASK], &memo[(head + NEAR) & MASK], 2);
        if (stages > 3 && prefetch && head + NEARER < staged)
            prefetch(ctx, &ring[(head + NEARER) & MASK], &memo[(head + NEARER) & MASK], 3);
        if (stages > 4 && prefetch && head + NEXT < staged)
            prefetch(ctx, &ring[(head + NEXT) & MASK], &memo[(head + NEXT) & MASK], 4);
        eng->now_ns = rec->t_ns;
        last_ns = rec->t_ns;
        eng->events++;
        if ((rc = on_rec(ctx, rec, &memo[head & MASK], err))) {
            /* every failure of a record names it: bad input, and a model
             * that cannot go on (an allocator model out of simulated memory) */
            rs_err_prefix(err, "%s:%llu", src->path, (unsigned long long)line[head & MASK]);
            return rc;
        }
        head++;
        if (staged == tail && read_rc == 1)
            read_rc = fill(src, ring, line, RING, head, &tail, &read_err);
        if (staged < tail) {
            memo[staged & MASK] = (rs_memo){ { 0, 0 } };
            if (prefetch)
                prefetch(ctx, &ring[staged & MASK], &memo[staged & MASK], 0);
            staged++;
        }
    }
    eng->last_rec_ns = last_ns;
    if (read_rc < 0) {
        if (err)
            *err = read_err;
        return read_rc;
    }
    /* one-shot events are work the models scheduled (an op completing, a
     * client releasing caps): the run goes on until it is all done */
    while (eng->pending && !eng->stopped) {
        uint64_t t = rs_evq_next_ns(&eng->q);
        if ((rc = fire_until(eng, t, err)))
            return rc;
        if (t > last_ns)
            last_ns = t;
    }
    /* the end is after the last record or work (by at least 1 ns), so the
     * final sample, taken at the end, sees every record's effect */
    if (!tail_ns)
        tail_ns = 1;
    if (last_ns > horizon_ns || tail_ns > horizon_ns - last_ns)
        return rs_fail(err, RS_EINPUT, "the run would end past t_ns %llu (%s): its last record or "
                       "work is at t_ns %llu and run_tail adds %llu ns", (unsigned long long)horizon_ns,
                       eng->horizon_why ? eng->horizon_why : "the largest time", (unsigned long long)last_ns,
                       (unsigned long long)tail_ns);
    uint64_t end_ns = last_ns + tail_ns;
    if ((rc = fire_until(eng, end_ns, err)))
        return rc;
    eng->now_ns = end_ns;
    if (r_end_ns)
        *r_end_ns = end_ns;
    return 0;
}
