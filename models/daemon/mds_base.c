/*
 * mds_base.c — the CephFS MDS outside its cache (mds_base.h; docs/models.md,
 * "The MDS outside its cache").
 *
 * mds_cache_memory_limit bounds MDCache::cache_size(), the mds_co mempool
 * (Ceph pacific@74275226 src/mds/MDCache.h:199-210).  What else a ceph-mds
 * holds, and what this module does with it:
 *
 *  - Sessions.  One Session per client (src/mds/SessionMap.h: session_info_t
 *    with client_metadata, completed_requests, prealloc_inos; the DecayCounters
 *    of recall and liveness; its Connection, whose AsyncConnection/ProtocolV2
 *    keep a receive buffer).  None of it is in mds_co.  Modelled as
 *    mds_session_bytes of heap from the client's first request on (clients
 *    never leave a trace's run).
 *  - The journal.  MDLog::_submit_entry (src/mds/MDLog.cc:280-330) puts each
 *    event in the current LogSegment and starts a new segment after
 *    mds_log_events_per_segment events or when the write position crosses an
 *    object boundary of the journal's layout (4 MiB); the submit thread
 *    encodes the event, appends it to the Journaler and deletes it
 *    (MDLog.cc:385-419).  MDLog::trim runs in MDSRankDispatcher::tick, only
 *    when active (MDSRank.cc:726-727), and starts expiring the oldest segments
 *    while more than mds_log_max_segments remain, never more than half of
 *    those at once ("new_expiring_segments * 2 > num_remaining_segments",
 *    MDLog.cc:639-646); expiry writes the segment's dirty dirfrags and
 *    backtraces to RADOS and the segment is dropped by a later trim
 *    (_trim_expired_segments) — here: at the next tick.
 *    What an unexpired segment keeps resident outside mds_co the source does
 *    not say in one place: its elists are intrusive (in the cached objects),
 *    its LogEvents are freed once encoded.  Measured on a Pacific MDS
 *    (docs/validation.md, "Real Pacific daemons"), RSS outside every mempool
 *    grew with the unexpired journal and stopped growing when MDLog::trim
 *    began expiring; the model keeps mds_log_heap_ratio bytes of heap per
 *    byte of unexpired journal, allocated per event through the run's
 *    allocator and freed when its segment is dropped.  That ratio is fitted,
 *    not derived: docs/models.md says so and on what.
 *  - Requests in flight and their journal events stay in mds.c (one per
 *    client, mds_request_bytes and mds_journal_event_bytes).
 *
 * Not modelled: the open-file table (OpenFileTable's anchor_map, sized by the
 * inodes with caps wanted — files a trace holds open are few), the Objecter's
 * in-flight ops (bounded by objecter_inflight_op_bytes, 100 MiB, and short
 * lived), journal replay (up:replay: see docs/models.md; the cache is not
 * trimmable then, MDSRank.h:221-222, and a trace has no restart).
 *
 * Memory of the simulator: 8 B per live event (its allocation's address),
 * 32 B per live segment, 8 B per client.  Every ring's capacity is a power
 * of two (ring_grow), so a ring index is a mask, not a division.
 */
#include "mds_base.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/mem.h"

typedef struct seg {
    uint64_t events;          /* events in it */
    uint64_t start_pos;       /* its first event's write position */
    uint64_t end_pos;         /* the next journal object's first byte (UINT64_MAX: none) */
    int expiring;             /* expiry started at a tick; dropped at the next */
} seg;

struct rs_mds_base {
    rs_alloc *alloc;
    /* alloc->ops->alloc, for the journal's events: one load each, not two */
    rs_addr (*alloc_fn)(void *, uint64_t, uint32_t, uint64_t);
    uint64_t session_bytes;
    rs_addr *sess;            /* by client id; 0 = no session yet */
    uint32_t nsess;
    uint64_t sessions_count;

    double events_per_update, carry;
    uint64_t event_bytes, per_segment, max_segments, period;
    uint32_t event_heap_bytes; /* heap per live event */
    uint32_t expire_event_bytes; /* heap per event of an expiring segment */
    uint64_t expire_cap_bytes;  /* objecter_inflight_op_bytes */

    rs_addr *xa;              /* the expiring segments' allocations */
    uint64_t xa_cap, xa_head, xa_count;

    rs_addr *ev;              /* ring of the live events' allocations, oldest first */
    uint64_t ev_cap, ev_head, ev_count;
    seg *seg;                 /* ring of live segments, oldest first; last = current */
    uint64_t seg_cap, seg_head, seg_count;
    seg *cur;                 /* the current segment (the ring moves only when one starts) */
    uint64_t log_start;       /* the oldest live segment's start_pos */
    uint64_t wrpos;           /* journal write position */

    /* heap_peak_bytes, events_peak and log_bytes_peak are brought up to
     * date before heap_bytes, ev_count or the live journal can fall (at a
     * trim, at the first segment: peaks_update) and when read, not at each
     * event: between those they only grow */
    uint64_t heap_bytes, heap_peak_bytes;
    uint64_t events_total, events_peak, segments_total, segments_peak, log_bytes_peak;
    uint64_t expired_segments, expired_events;
    uint64_t expire_heap_peak_bytes;
};

int rs_mds_base_create(const rs_config *cfg, rs_alloc *alloc, rs_mds_base **r_b, rs_err *err)
{
    rs_mds_base *b = calloc(1, sizeof *b);
    if (!b)
        return rs_fail(err, RS_ENOMEM, "out of memory for the MDS outside its cache");
    b->alloc = alloc;
    b->alloc_fn = alloc->ops->alloc;
    b->session_bytes = rs_config_size(cfg, "mds_session_bytes");
    b->events_per_update = rs_config_double(cfg, "mds_log_events_per_update");
    b->event_bytes = rs_config_size(cfg, "mds_log_event_bytes");
    double ratio = rs_config_double(cfg, "mds_log_heap_ratio");
    b->per_segment = (uint64_t)rs_config_int(cfg, "mds_log_events_per_segment");
    b->max_segments = (uint64_t)rs_config_int(cfg, "mds_log_max_segments");
    b->period = rs_config_size(cfg, "mds_log_period");
    uint64_t xb = rs_config_size(cfg, "mds_log_expire_event_bytes");
    b->expire_cap_bytes = rs_config_size(cfg, "objecter_inflight_op_bytes");
    double heap = ratio * (double)b->event_bytes;
    if (b->session_bytes >= UINT32_MAX || heap >= (double)UINT32_MAX || xb >= UINT32_MAX) {
        free(b);
        return rs_fail(err, RS_EINPUT, "mds_session_bytes and mds_log_heap_ratio x "
                                       "mds_log_event_bytes must each be < 4 GiB");
    }
    b->event_heap_bytes = (uint32_t)(heap + 0.5);
    b->expire_event_bytes = (uint32_t)xb;
    *r_b = b;
    return 0;
}

/* The rings are freed oldest first, so the allocations freed a few frees
 * from now are known: the allocator's prefetch hint fetches what locates
 * the one PF_FAR ahead (stage 0) and what that points to for the one
 * PF_NEAR ahead (stage 1).  Without it each free waits on two cache misses
 * (a kernel-build replay spent ~6 % of its samples there).  No state changes.
 * Inline in the loops that free, once per free. */
enum { PF_NEAR = 4, PF_FAR = 8 };

static inline void prefetch_ahead(const rs_mds_base *b, const rs_addr *ring, uint64_t cap,
                                  uint64_t head, uint64_t count)
{
    if (!b->alloc->ops->prefetch)
        return;
    if (count > PF_FAR && ring[(head + PF_FAR) & (cap - 1)])
        b->alloc->ops->prefetch(b->alloc->state, ring[(head + PF_FAR) & (cap - 1)], 0);
    if (count > PF_NEAR && ring[(head + PF_NEAR) & (cap - 1)])
        b->alloc->ops->prefetch(b->alloc->state, ring[(head + PF_NEAR) & (cap - 1)], 1);
}

static void free_event(rs_mds_base *b, uint32_t thread, uint64_t now_ns)
{
    prefetch_ahead(b, b->ev, b->ev_cap, b->ev_head, b->ev_count);
    rs_addr a = b->ev[b->ev_head];
    if (a) {
        b->alloc->ops->free(b->alloc->state, a, b->event_heap_bytes, thread, now_ns);
        b->heap_bytes -= b->event_heap_bytes;
    }
    b->ev_head = (b->ev_head + 1) & (b->ev_cap - 1);
    b->ev_count--;
}

void rs_mds_base_destroy(rs_mds_base *b)
{
    if (!b)
        return;
    free(b->sess);
    rs_mem_free(b->ev);
    rs_mem_free(b->seg);
    rs_mem_free(b->xa);
    free(b);
}

static int oom(const rs_mds_base *b, rs_err *err)
{
    return rs_alloc_fail_full(b->alloc, err);
}

int rs_mds_base_session(rs_mds_base *b, uint32_t client, uint32_t thread, uint64_t now_ns,
                        rs_err *err)
{
    if (client >= b->nsess) {
        uint32_t n = client + 1;
        rs_addr *p = realloc(b->sess, (size_t)n * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %u sessions", n);
        memset(p + b->nsess, 0, (size_t)(n - b->nsess) * sizeof *p);
        b->sess = p;
        b->nsess = n;
    }
    if (b->sess[client] || !b->session_bytes)
        return 0;
    if (!(b->sess[client] = b->alloc->ops->alloc(b->alloc->state, b->session_bytes, thread, now_ns)))
        return oom(b, err);
    b->heap_bytes += b->session_bytes;
    if (b->heap_bytes > b->heap_peak_bytes)
        b->heap_peak_bytes = b->heap_bytes;
    b->sessions_count++;
    return 0;
}

/* Ring growth: a full ring of *cap entries of `size` bytes grows to twice
 * as many (1024 at first: a capacity is always a power of two) in place
 * (sim/base/mem.h: huge pages, moved by the kernel rather than copied, the
 * new half touched only as it fills); the entries before *head, the newest,
 * move to just after the old end, so the ring reads on from *head as before.
 * The ring (the same one when not full), or NULL with nothing changed. */
static void *ring_grow(void *ring, uint64_t *cap, uint64_t *head, uint64_t count, size_t size)
{
    if (count < *cap)
        return ring;
    uint64_t ncap = *cap ? *cap * 2 : 1024;
    char *p = rs_mem_realloc(ring, (size_t)ncap * size);
    if (!p)
        return NULL;
    memcpy(p + (size_t)*cap * size, p, (size_t)*head * size);
    *cap = ncap;
    return p;
}

static int no_room(uint64_t cap, rs_err *err)
{
    return rs_fail(err, RS_ENOMEM, "out of memory for %llu journal entries",
                   (unsigned long long)cap * 2);
}

static seg *seg_at(const rs_mds_base *b, uint64_t i)
{
    return &b->seg[(b->seg_head + i) & (b->seg_cap - 1)];
}

/* The peaks of what the journal's events raise (see struct rs_mds_base):
 * what they are now, when more than before. */
static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static void peaks_update(rs_mds_base *b)
{
    b->heap_peak_bytes = max_u64(b->heap_peak_bytes, b->heap_bytes);
    b->events_peak = max_u64(b->events_peak, b->ev_count);
    b->log_bytes_peak = max_u64(b->log_bytes_peak, b->wrpos - b->log_start);
}

static int new_segment(rs_mds_base *b, rs_err *err)
{
    seg *sg = ring_grow(b->seg, &b->seg_cap, &b->seg_head, b->seg_count, sizeof(seg));
    if (!sg)
        return no_room(b->seg_cap, err);
    b->seg = sg;
    /* the object the segment starts in ends at end_pos: one division per
     * segment, not two per event */
    uint64_t obj = b->wrpos / b->period + 1;
    uint64_t end = obj > UINT64_MAX / b->period ? UINT64_MAX : obj * b->period;
    b->cur = seg_at(b, b->seg_count);
    *b->cur = (seg){ .start_pos = b->wrpos, .end_pos = end };
    if (!b->seg_count) {
        peaks_update(b);
        b->log_start = b->wrpos;
    }
    b->seg_count++;
    b->segments_total++;
    if (b->seg_count > b->segments_peak)
        b->segments_peak = b->seg_count;
    return 0;
}

/* One event: into the current segment, then MDLog::_submit_entry's test for
 * a new segment (events per segment, or the write position in another
 * object than the segment's start). */
static int submit(rs_mds_base *b, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    int rc;
    if (!b->seg_count && (rc = new_segment(b, err)))
        return rc;
    /* ring_grow's own test, made here: the ring is not stored again per event */
    if (b->ev_count == b->ev_cap) {
        rs_addr *ev = ring_grow(b->ev, &b->ev_cap, &b->ev_head, b->ev_count, sizeof(rs_addr));
        if (!ev)
            return no_room(b->ev_cap, err);
        b->ev = ev;
    }
    rs_addr a = 0;
    if (b->event_heap_bytes) {
        if (!(a = b->alloc_fn(b->alloc->state, b->event_heap_bytes, thread, now_ns)))
            return oom(b, err);
        b->heap_bytes += b->event_heap_bytes;
    }
    b->ev[(b->ev_head + b->ev_count) & (b->ev_cap - 1)] = a;
    b->ev_count++;
    b->events_total++;
    seg *s = b->cur;
    s->events++;
    b->wrpos += b->event_bytes;
    if (s->events >= b->per_segment || b->wrpos >= s->end_pos)
        return new_segment(b, err);
    return 0;
}

int rs_mds_base_journal(rs_mds_base *b, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    if (b->events_per_update <= 0)
        return 0;
    /* fractional events carried over, so n records journal
     * floor(n x events_per_update) events, deterministically */
    b->carry += b->events_per_update;
    int rc = 0;
    while (b->carry >= 1.0 && !rc) {
        b->carry -= 1.0;
        rc = submit(b, thread, now_ns, err);
    }
    return rc;
}

/* The Objecter's throttle holds back expiry's writes for one more event
 * (they wait, and are written later from the same buffers). */
static int expire_throttled(const rs_mds_base *b)
{
    return !b->expire_event_bytes || (b->xa_count + 1) * b->expire_event_bytes > b->expire_cap_bytes;
}

/* Expiry's writes for one more event of an expiring segment, which the
 * throttle lets in. */
static int expire_event(rs_mds_base *b, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    uint64_t held = b->xa_count * b->expire_event_bytes;
    assert(!expire_throttled(b));
    rs_addr *xa = ring_grow(b->xa, &b->xa_cap, &b->xa_head, b->xa_count, sizeof(rs_addr));
    if (!xa)
        return no_room(b->xa_cap, err);
    b->xa = xa;
    rs_addr a = b->alloc->ops->alloc(b->alloc->state, b->expire_event_bytes, thread, now_ns);
    if (!a)
        return oom(b, err);
    b->xa[(b->xa_head + b->xa_count) & (b->xa_cap - 1)] = a;
    b->xa_count++;
    b->heap_bytes += b->expire_event_bytes;
    if (b->heap_bytes > b->heap_peak_bytes)
        b->heap_peak_bytes = b->heap_bytes;
    if (held + b->expire_event_bytes > b->expire_heap_peak_bytes)
        b->expire_heap_peak_bytes = held + b->expire_event_bytes;
    return 0;
}

int rs_mds_base_log_trim(rs_mds_base *b, uint32_t thread, uint32_t io_thread, uint64_t now_ns,
                         rs_err *err)
{
    int rc = 0;
    peaks_update(b);
    /* the writes of the segments expiring since the last tick completed */
    for (; b->xa_count; b->xa_count--) {
        prefetch_ahead(b, b->xa, b->xa_cap, b->xa_head, b->xa_count);
        b->alloc->ops->free(b->alloc->state, b->xa[b->xa_head], b->expire_event_bytes, io_thread,
                            now_ns);
        b->heap_bytes -= b->expire_event_bytes;
        b->xa_head = (b->xa_head + 1) & (b->xa_cap - 1);
    }
    /* _trim_expired_segments: the oldest segments whose expiry finished */
    while (b->seg_count > 1 && seg_at(b, 0)->expiring) {
        seg *s = seg_at(b, 0);
        for (uint64_t i = 0; i < s->events; i++)
            free_event(b, thread, now_ns);
        b->expired_segments++;
        b->expired_events += s->events;
        b->seg_head = (b->seg_head + 1) & (b->seg_cap - 1);
        b->seg_count--;
        b->log_start = seg_at(b, 0)->start_pos;
    }
    /* MDLog::trim: expire from the oldest while more than max_segments
     * remain, at most half of the remaining ones in one pass; never the
     * current segment (not fully flushed yet) */
    uint64_t remaining = b->seg_count, started = 0;
    for (uint64_t i = 0; i + 1 < b->seg_count; i++) {
        seg *s = seg_at(b, i);
        if (s->expiring) {
            remaining--;
            continue;
        }
        if (remaining <= b->max_segments || started * 2 > remaining)
            break;
        s->expiring = 1;
        started++;
        remaining--;
        /* once the throttle holds an event back it holds back every
         * later one of this pass (only an event let in changes it) */
        for (uint64_t e = 0; e < s->events && !rc && !expire_throttled(b); e++)
            rc = expire_event(b, io_thread, now_ns, err);
    }
    return rc;
}

void rs_mds_base_stats_get(const rs_mds_base *b, rs_mds_base_stats *r)
{
    *r = (rs_mds_base_stats){
        .heap_bytes = b->heap_bytes,
        .sessions_count = b->sessions_count,
        .log_events_count = b->ev_count,
        .log_segments_count = b->seg_count,
        .log_bytes = b->seg_count ? b->wrpos - b->log_start : 0,
    };
}

int rs_mds_base_metrics(const rs_mds_base *b, rs_result *res, rs_err *err)
{
    const struct { const char *name; double value; } v[] = {
        { "mds_sessions_count", (double)b->sessions_count },
        { "mds_outside_heap_peak_bytes", (double)max_u64(b->heap_peak_bytes, b->heap_bytes) },
        { "mds_log_events_total_count", (double)b->events_total },
        { "mds_log_events_peak_count", (double)max_u64(b->events_peak, b->ev_count) },
        { "mds_log_segments_peak_count", (double)b->segments_peak },
        { "mds_log_bytes_peak", (double)max_u64(b->log_bytes_peak, b->wrpos - b->log_start) },
        { "mds_log_expired_segments_count", (double)b->expired_segments },
        { "mds_log_expired_events_count", (double)b->expired_events },
        { "mds_log_expire_heap_peak_bytes", (double)b->expire_heap_peak_bytes },
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0] && !rc; i++)
        rc = rs_result_set_metric(res, v[i].name, v[i].value, err);
    return rc;
}
