/*
 * osd_service.c — the OSD's op service: clients, op shards and their
 * workers, PG ordering, the device, cache-shard locks, latency and IOPS.
 *
 * An op goes to op shard hash(object) mod osd_op_num_shards, queues FIFO for
 * one of its osd_op_num_threads_per_shard workers, which first takes the
 * op's cache-shard lock (waiting while a trim holds it), spends the op's CPU
 * cost (stretched by any trim that takes the lock meanwhile: the op needs it
 * throughout), and for a read that misses the buffer cache waits for the
 * device (synchronous read).  A write leaves the worker after its CPU cost
 * and completes when the device has written it.  The device is one FIFO
 * server: occupancy per IO plus bytes/bandwidth.  The client sees
 * osd_client_latency more (network, librbd).  A trim holds its shard's lock
 * (rs_osd_service_hold: a MempoolThread pass) or adds
 * osd_trim_cost_per_item · items to the op's own worker time (trim-on-add).
 * The cache side (osd.c) applies an op when it is issued, through the
 * apply hook; the service then times it.  Latency = completion - issue, kept
 * in a log-bucketed histogram (1/128 relative precision), never per op.
 *
 * Closed-loop clients (client_iodepth > 0): each job (record thread) has at
 * most client_iodepth ops outstanding; a record is issued at max(its t_ns,
 * the moment its job has a free slot).  Records waiting for their job's
 * slot are kept in a pool of POOL_RECS shared by all jobs (a trace
 * interleaves its jobs round robin, but a job on a slow shard falls behind
 * the others by thousands of ops, as independent fio jobs do); while the
 * pool is full the engine is held (back-pressure), so memory stays bounded.
 *
 * Per op in flight 88 bytes.
 */
#include "osd_service.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/hash.h"
#include "../../sim/base/mem.h"
#include "../../sim/base/mod.h"

#define NONE UINT32_MAX
#define POOL_RECS 65536u /* records waiting for a slot, all jobs together (2.6 MB) */
#define OP_CHUNK 4096u
#define HIST_SUB 128u /* sub-buckets per power of two */
#define HIST_N (64u * HIST_SUB)
#define CLOG_N 4096u /* completion-time log entries (every stride-th completion) */

typedef struct rs_osd_service svc;

typedef struct lock {
    uint64_t lock_from_ns, lock_until_ns; /* a trim holds the shard lock then */
} lock;

typedef struct oshard {
    svc *o;
    uint32_t qhead, qtail; /* FIFO of ops waiting for a worker */
    uint32_t idle;         /* free workers */
    uint32_t index;
} oshard;

typedef struct op {
    svc *o;
    uint64_t issue_ns, cpu_ns, dev_ns, trim_ns, bytes;
    uint64_t held;                   /* the cache's second token */
    uint64_t start_ns, lock_seen_ns; /* its worker phase began; lock holds charged up to */
    uint32_t next, onode, id;        /* next: queue or free-list link; onode: the cache's token */
    uint32_t pg;
    uint16_t os_idx, cshard;         /* its op shard and cache shard (< 256 each) */
    uint16_t job;
    uint8_t write, device;
} op;

/* What an op's size adds to its worker and device time, for the last size
 * seen in one direction: a trace's sizes repeat (fio's bs), so the double
 * conversions and the division are done once a size. */
typedef struct size_cost {
    uint64_t size_bytes; /* zeroed at first: a size of 0 costs 0, so that holds too */
    uint64_t cpu_ns, dev_ns;
} size_cost;

typedef struct job {
    uint32_t outstanding;
    uint32_t head, tail;   /* its records waiting, a list in svc.pool (NONE: none) */
    uint8_t first;
    uint64_t last_key[2], last_end[2]; /* per direction, as fio keeps them */
} job;

struct rs_osd_service {
    rs_engine *eng;
    rs_osd_service_hooks hooks;
    /* configuration */
    uint64_t per_item_ns;
    uint64_t read_cost_ns, write_cost_ns, read_rand_ns, write_rand_ns, cost_per_mib_ns, dev_rand_ns, dev_seq_ns,
        dev_write_ns, dev_read_bw, dev_write_bw, client_ns;
    size_cost last_cost[2]; /* by direction: read, write */
    /* shards */
    oshard *os;
    uint32_t nos, threads;
    lock *locks;          /* per cache shard */
    uint32_t ncs;
    uint32_t npgs;        /* osd_pg_num; 0: no per-PG ordering */
    uint8_t *pg_busy;     /* a worker holds the PG's lock */
    op **chunks;
    uint32_t nchunks, op_free, op_used;
    uint64_t dev_busy_ns;
    uint64_t inflight;    /* ops issued and not complete */
    /* clients */
    job *jobs;
    rs_rec *pool;          /* closed loop: records waiting for their job's slot */
    uint32_t *pool_next;   /* list links; free slots chained from pool_free */
    uint32_t pool_free, pool_n;
    uint32_t njobs;
    int64_t iodepth;
    /* results */
    uint64_t trim_lock_ns, ops_done, bytes_done, first_issue_ns, last_done_ns, lat_sum_ns;
    uint64_t hist[HIST_N];
    uint64_t clog[CLOG_N]; /* time of completion k*stride, k = 1.. */
    uint64_t clog_stride;
    uint32_t clog_n;
};

uint64_t rs_osd_service_pg_of_hash(const rs_osd_service *o, uint64_t object_hash)
{
    return o->npgs ? rs_mod64(object_hash, o->npgs) : object_hash;
}

/* Hold lock c for ns from start_ns (later holds extend it). */
static void hold(svc *o, lock *c, uint64_t start_ns, uint64_t ns)
{
    if (c->lock_until_ns >= start_ns && c->lock_until_ns > c->lock_from_ns) {
        c->lock_until_ns += ns;
    } else {
        c->lock_from_ns = start_ns;
        c->lock_until_ns = start_ns + ns;
    }
    o->trim_lock_ns += ns;
}

uint64_t rs_osd_service_hold(rs_osd_service *o, uint32_t cache_shard, uint64_t start_ns,
                             uint64_t fixed_ns, uint64_t items)
{
    uint64_t ns = fixed_ns + o->per_item_ns * items;
    hold(o, &o->locks[cache_shard], start_ns, ns);
    return ns;
}

uint64_t rs_osd_service_inflight(const rs_osd_service *o)
{
    return o->inflight;
}

int rs_osd_service_paced(const rs_osd_service *o)
{
    return o->iodepth > 0;
}

/* ---- ops and their timing ---- */

static op *op_at(const svc *o, uint32_t id)
{
    return &o->chunks[id / OP_CHUNK][id % OP_CHUNK];
}

static int op_new(svc *o, uint32_t *r_id, rs_err *err)
{
    if (o->op_free != NONE) {
        *r_id = o->op_free;
        o->op_free = op_at(o, o->op_free)->next;
        return 0;
    }
    if (o->op_used == o->nchunks * OP_CHUNK) {
        op **c = realloc(o->chunks, (o->nchunks + 1) * sizeof *c);
        if (!c)
            return rs_fail(err, RS_ENOMEM, "out of memory for ops in flight");
        o->chunks = c;
        if (!(c[o->nchunks] = calloc(OP_CHUNK, sizeof(op))))
            return rs_fail(err, RS_ENOMEM, "out of memory for ops in flight");
        o->nchunks++;
    }
    *r_id = o->op_used++;
    return 0;
}

static void hist_add(svc *o, uint64_t v)
{
    unsigned idx;
    if (v < HIST_SUB) {
        idx = (unsigned)v;
    } else {
        unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 7 */
        idx = (e - 6) * HIST_SUB + (unsigned)((v >> (e - 7)) - HIST_SUB);
    }
    o->hist[idx < HIST_N ? idx : HIST_N - 1]++;
}

/* The middle of bucket idx. */
static double hist_value(unsigned idx)
{
    if (idx < HIST_SUB)
        return idx;
    unsigned e = idx / HIST_SUB + 6, m = idx % HIST_SUB + HIST_SUB;
    return ((double)m + 0.5) * (double)(1ull << (e - 7));
}

static double hist_quantile(const svc *o, double q)
{
    uint64_t n = o->ops_done, rank = (uint64_t)ceil(q * (double)n), seen = 0;
    if (!n)
        return 0;
    if (rank < 1)
        rank = 1;
    for (unsigned i = 0; i < HIST_N; i++) {
        seen += o->hist[i];
        if (seen >= rank)
            return hist_value(i);
    }
    return hist_value(HIST_N - 1);
}

/* Log the time of every clog_stride-th completion; when the log is full,
 * keep every other entry and double the stride (bounded memory, the
 * quantiles of completion times stay within one stride). */
static void clog_add(svc *o, uint64_t now_ns)
{
    if (o->ops_done & (o->clog_stride - 1)) /* the stride is a power of two */
        return;
    if (o->clog_n == CLOG_N) {
        for (uint32_t i = 0; i < CLOG_N / 2; i++)
            o->clog[i] = o->clog[2 * i + 1];
        o->clog_n = CLOG_N / 2;
        o->clog_stride *= 2;
    }
    if (!(o->ops_done & (o->clog_stride - 1)))
        o->clog[o->clog_n++] = now_ns;
}

static void dispatch(oshard *s, uint64_t now_ns);
static int issue(svc *o, const rs_rec *rec, rs_err *err);

/* Forced inline where it is called directly (a write at the device, an op
 * served from the cache); a read's device wait still schedules it. */
static inline __attribute__((always_inline)) void on_worker_done(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    oshard *s = &p->o->os[p->os_idx];
    if (p->pg != NONE)
        p->o->pg_busy[p->pg] = 0;
    s->idle++;
    if (s->qhead != NONE)
        dispatch(s, now_ns);
}

/* A job's records wait in a list through the pool, written long before
 * they are issued (the pool holds 2 MiB of them): each read of one would be
 * a cache miss.  When a job's op completes and its head record h is issued,
 * h1 (its next) was fetched at the job's last completion; now the daemon's
 * hook sees h1 (stage 1) and h2 (stage 0), and h3's entries are fetched,
 * so each stage has a few of the job's completions to arrive. */
static void prefetch_ahead(const svc *o, uint32_t h1)
{
    uint32_t h2 = o->pool_next[h1];
    if (o->hooks.prefetch)
        o->hooks.prefetch(o->hooks.ctx, &o->pool[h1], 1);
    if (h2 == NONE)
        return;
    if (o->hooks.prefetch)
        o->hooks.prefetch(o->hooks.ctx, &o->pool[h2], 0);
    uint32_t h3 = o->pool_next[h2];
    if (h3 != NONE) {
        __builtin_prefetch(&o->pool[h3]);
        __builtin_prefetch(&o->pool_next[h3]);
    }
}

static void on_complete(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    svc *o = p->o;
    job *j = &o->jobs[p->job];
    uint64_t lat = now_ns - p->issue_ns;
    hist_add(o, lat);
    o->lat_sum_ns += lat;
    o->ops_done++;
    o->inflight--;
    clog_add(o, now_ns);
    o->bytes_done += p->bytes;
    o->last_done_ns = now_ns;
    o->hooks.done(o->hooks.ctx, p->onode, p->held);
    p->next = o->op_free;
    o->op_free = p->id;
    if (!o->iodepth)
        return;
    j->outstanding--;
    if (j->head != NONE) {
        uint32_t slot = j->head;
        rs_rec r = o->pool[slot];
        j->head = o->pool_next[slot];
        if (j->head == NONE)
            j->tail = NONE;
        else
            prefetch_ahead(o, j->head);
        o->pool_next[slot] = o->pool_free;
        o->pool_free = slot;
        if (o->pool_n-- == POOL_RECS)
            rs_engine_release_hold(o->eng);
        r.t_ns = now_ns;
        rs_err err;
        if (issue(o, &r, &err))
            rs_engine_abort(o->eng, &err);
    }
}

/* Forced inline: called for every event of every op, and left out of line
 * (gcc's choice) its call cost more than its body. */
static inline __attribute__((always_inline)) void schedule(svc *o, uint64_t t_ns, rs_event_fn fn, op *p)
{
    rs_err err;
    if (rs_engine_at_inline(o->eng, t_ns, fn, p, &err))
        rs_engine_abort(o->eng, &err);
}

/* The op reaches the device (FIFO in arrival order).  A read's worker
 * waits for it; a write's worker is free from now on. */
static void on_device(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    svc *o = p->o;
    uint64_t ds = now_ns > o->dev_busy_ns ? now_ns : o->dev_busy_ns;
    o->dev_busy_ns = ds + p->dev_ns;
    if (p->write)
        on_worker_done(p, now_ns);
    else
        schedule(o, o->dev_busy_ns, on_worker_done, p);
    schedule(o, o->dev_busy_ns + o->client_ns, on_complete, p);
}

/* The op's worker phase is over, unless a trim took its shard's lock
 * meanwhile: an op needs the lock throughout (onode, extent and buffer
 * lookups), so the phase stretches by the overlap. */
static void on_cpu_done(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    svc *o = p->o;
    const lock *c = &o->locks[p->cshard];
    if (c->lock_until_ns > p->lock_seen_ns) {
        uint64_t from = c->lock_from_ns > p->lock_seen_ns ? c->lock_from_ns : p->lock_seen_ns;
        if (from < p->start_ns)
            from = p->start_ns;
        uint64_t to = c->lock_until_ns < now_ns ? c->lock_until_ns : now_ns;
        if (to > from) {
            p->lock_seen_ns = c->lock_until_ns;
            schedule(o, now_ns + (to - from), on_cpu_done, p);
            return;
        }
    }
    if (p->device) {
        on_device(p, now_ns);
    } else {
        on_worker_done(p, now_ns);
        schedule(o, now_ns + o->client_ns, on_complete, p);
    }
}

/* Take the first waiting op of s whose PG no worker holds (a worker skips
 * a busy PG, as the sharded op queue keeps a PG's ops in order), or NULL. */
static op *next_runnable(svc *o, oshard *s)
{
    uint32_t prev = NONE;
    for (uint32_t id = s->qhead; id != NONE; prev = id, id = op_at(o, id)->next) {
        op *p = op_at(o, id);
        if (p->pg != NONE && o->pg_busy[p->pg])
            continue;
        if (prev == NONE)
            s->qhead = p->next;
        else
            op_at(o, prev)->next = p->next;
        if (s->qtail == id)
            s->qtail = prev;
        if (p->pg != NONE)
            o->pg_busy[p->pg] = 1;
        return p;
    }
    return NULL;
}

/* Start waiting ops on s's free workers. */
static void dispatch(oshard *s, uint64_t now_ns)
{
    svc *o = s->o;
    op *p;
    while (s->idle && (p = next_runnable(o, s))) {
        s->idle--;
        lock *c = &o->locks[p->cshard];
        uint64_t start = now_ns;
        if (c->lock_from_ns <= start && start < c->lock_until_ns)
            start = c->lock_until_ns; /* the worker blocks on the shard lock */
        p->start_ns = p->lock_seen_ns = start;
        if (p->trim_ns) { /* its own trim-on-add holds the lock, inside its time */
            hold(o, c, start, p->trim_ns);
            p->lock_seen_ns = c->lock_until_ns;
        }
        schedule(o, start + p->cpu_ns + p->trim_ns, on_cpu_done, p);
    }
}

static int issue(svc *o, const rs_rec *rec, rs_err *err)
{
    uint32_t id = NONE;
    int rc = op_new(o, &id, err);
    if (rc)
        return rc;
    op *p = op_at(o, id);
    job *j = &o->jobs[rec->thread];
    /* sequential: continues the job's last I/O, in its object or at the
     * start of the next one (RBD lays an image out object after object) */
    int w = rec->op == RS_OP_WRITE;
    int seq = !j->first && ((j->last_key[w] == rec->key && j->last_end[w] == rec->aux) ||
                            (j->last_key[w] + 1 == rec->key && rec->aux == 0));
    /* every field is set here or below (start_ns and lock_seen_ns when a
     * worker takes it): no zeroing of the whole record first */
    p->o = o;
    p->issue_ns = o->eng->now_ns;
    p->bytes = rec->size_bytes;
    p->id = id;
    p->next = NONE;
    p->job = (uint16_t)rec->thread;
    p->write = (uint8_t)w;
    uint64_t h = rs_hash64(rec->key), pg = rs_osd_service_pg_of_hash(o, h);
    uint32_t s_idx = (uint32_t)rs_mod64(pg, o->nos);
    p->os_idx = (uint16_t)s_idx;
    p->pg = o->npgs ? (uint32_t)pg : NONE;
    j->first = 0;
    j->last_key[w] = rec->key;
    j->last_end[w] = (uint64_t)rec->aux + rec->size_bytes;
    if (!o->ops_done && !o->first_issue_ns)
        o->first_issue_ns = o->eng->now_ns;
    o->inflight++;
    rs_osd_applied a;
    p->cshard = (uint16_t)rs_mod64(pg, o->ncs);
    if ((rc = o->hooks.apply(o->hooks.ctx, rec, s_idx, p->cshard, h, &a, err)))
        return rc;
    p->onode = a.onode;
    p->held = a.held;
    p->device = (uint8_t)a.device;
    uint64_t items = a.trimmed_count;
    size_cost *sc = &o->last_cost[w];
    if (sc->size_bytes != rec->size_bytes) {
        double mib = (double)rec->size_bytes / (1024.0 * 1024.0);
        uint64_t bw = w ? o->dev_write_bw : o->dev_read_bw;
        *sc = (size_cost){ .size_bytes = rec->size_bytes,
                           .cpu_ns = (uint64_t)(mib * (double)o->cost_per_mib_ns),
                           .dev_ns = (uint64_t)((double)rec->size_bytes * 1e9 / (double)bw) };
    }
    p->cpu_ns = (p->write ? o->write_cost_ns : o->read_cost_ns) +
                (seq ? 0 : p->write ? o->write_rand_ns : o->read_rand_ns) + sc->cpu_ns;
    p->trim_ns = items * o->per_item_ns;
    p->dev_ns = (p->write ? o->dev_write_ns : seq ? o->dev_seq_ns : o->dev_rand_ns) + sc->dev_ns;
    if (o->iodepth)
        j->outstanding++;
    oshard *s = &o->os[s_idx];
    if (s->qtail != NONE)
        op_at(o, s->qtail)->next = id;
    else
        s->qhead = id;
    s->qtail = id;
    if (s->idle) /* often none free: a closed loop deeper than the workers */
        dispatch(s, o->eng->now_ns);
    return 0;
}


/* ---- the interface ---- */

static int grow_jobs(svc *o, uint32_t thread, rs_err *err)
{
    uint32_t n = o->njobs ? o->njobs : 16;
    while (n <= thread)
        n *= 2;
    job *j = realloc(o->jobs, (size_t)n * sizeof *j);
    if (!j)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u client jobs", n);
    memset(j + o->njobs, 0, (size_t)(n - o->njobs) * sizeof *j);
    for (uint32_t i = o->njobs; i < n; i++)
        j[i].first = 1;
    for (uint32_t i = o->njobs; i < n; i++)
        j[i].head = j[i].tail = NONE;
    o->jobs = j;
    o->njobs = n;
    return 0;
}

int rs_osd_service_submit(rs_osd_service *o, const rs_rec *rec, rs_err *err)
{
    int rc;
    if (rec->thread >= o->njobs && (rc = grow_jobs(o, rec->thread, err)))
        return rc;
    job *j = &o->jobs[rec->thread];
    if (!o->iodepth || (j->outstanding < (uint64_t)o->iodepth && j->head == NONE))
        return issue(o, rec, err);
    if (!o->pool) {
        o->pool = rs_mem_calloc(POOL_RECS * sizeof *o->pool);
        o->pool_next = rs_mem_calloc(POOL_RECS * sizeof *o->pool_next);
        if (!o->pool || !o->pool_next)
            return rs_fail(err, RS_ENOMEM, "out of memory for waiting client records");
        for (uint32_t i = 0; i < POOL_RECS; i++)
            o->pool_next[i] = i + 1 < POOL_RECS ? i + 1 : NONE;
        o->pool_free = 0;
    }
    uint32_t slot = o->pool_free; /* never NONE: the stream is held while the pool is full */
    o->pool_free = o->pool_next[slot];
    o->pool[slot] = *rec;
    o->pool_next[slot] = NONE;
    if (j->tail != NONE)
        o->pool_next[j->tail] = slot;
    else
        j->head = slot;
    j->tail = slot;
    if (++o->pool_n == POOL_RECS)
        rs_engine_hold(o->eng);
    return 0;
}


void rs_osd_service_destroy(rs_osd_service *o)
{
    if (!o)
        return;
    for (uint32_t i = 0; i < o->nchunks; i++)
        free(o->chunks[i]);
    free(o->chunks);
    free(o->os);
    free(o->locks);
    free(o->pg_busy);
    free(o->jobs);
    rs_mem_free(o->pool);
    rs_mem_free(o->pool_next);
    free(o);
}

int rs_osd_service_create(const rs_config *cfg, rs_engine *eng, uint32_t cache_shards,
                          const rs_osd_service_hooks *hooks, rs_osd_service **r_svc, rs_err *err)
{
    svc *o = calloc(1, sizeof *o);
    if (!o)
        return rs_fail(err, RS_ENOMEM, "out of memory for the osd service");
    o->eng = eng;
    o->hooks = *hooks;
    o->op_free = NONE;
    o->clog_stride = 1;
    o->nos = (uint32_t)rs_config_int(cfg, "osd_op_num_shards");
    o->threads = (uint32_t)rs_config_int(cfg, "osd_op_num_threads_per_shard");
    o->npgs = (uint32_t)rs_config_int(cfg, "osd_pg_num");
    o->iodepth = rs_config_int(cfg, "client_iodepth");
    o->ncs = cache_shards;
    o->per_item_ns = rs_config_duration_ns(cfg, "osd_trim_cost_per_item");
    o->read_cost_ns = rs_config_duration_ns(cfg, "osd_op_read_cost");
    o->write_cost_ns = rs_config_duration_ns(cfg, "osd_op_write_cost");
    o->cost_per_mib_ns = rs_config_duration_ns(cfg, "osd_op_cost_per_mib");
    o->read_rand_ns = rs_config_duration_ns(cfg, "osd_op_read_random_cost");
    o->write_rand_ns = rs_config_duration_ns(cfg, "osd_op_write_random_cost");
    o->dev_rand_ns = rs_config_duration_ns(cfg, "osd_device_read_rand_cost");
    o->dev_seq_ns = rs_config_duration_ns(cfg, "osd_device_read_seq_cost");
    o->dev_write_ns = rs_config_duration_ns(cfg, "osd_device_write_cost");
    o->dev_read_bw = rs_config_size(cfg, "osd_device_read_bandwidth");
    o->dev_write_bw = rs_config_size(cfg, "osd_device_write_bandwidth");
    o->client_ns = rs_config_duration_ns(cfg, "osd_client_latency");
    o->os = calloc(o->nos, sizeof *o->os);
    o->locks = calloc(o->ncs, sizeof *o->locks);
    o->pg_busy = calloc(o->npgs ? o->npgs : 1, 1);
    if (!o->os || !o->locks || !o->pg_busy) {
        rs_osd_service_destroy(o);
        return rs_fail(err, RS_ENOMEM, "out of memory for osd shards");
    }
    for (uint32_t i = 0; i < o->nos; i++)
        o->os[i] = (oshard){ .o = o, .qhead = NONE, .qtail = NONE, .idle = o->threads, .index = i };
    *r_svc = o;
    return 0;
}

/* Completions per second between the 10th and the 90th percentile of the
 * completions: the steady rate, without the ramp at the start and the tail
 * in which a closed loop's jobs finish one by one. */
static double steady_iops(const svc *o)
{
    uint64_t lo = o->ops_done / 10, hi = o->ops_done * 9 / 10;
    uint64_t ilo = lo / o->clog_stride, ihi = hi / o->clog_stride;
    if (ilo < 1 || ihi <= ilo || ihi > o->clog_n || o->clog[ihi - 1] <= o->clog[ilo - 1])
        return 0;
    return (double)((ihi - ilo) * o->clog_stride) * 1e9 / (double)(o->clog[ihi - 1] - o->clog[ilo - 1]);
}

int rs_osd_service_metrics(const rs_osd_service *o, rs_result *res, rs_err *err)
{
    static const double qs[] = { 0.1, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.99 };
    double span = o->last_done_ns > o->first_issue_ns ? (double)(o->last_done_ns - o->first_issue_ns) / 1e9 : 0;
    double iops = steady_iops(o);
    char name[48];
    int rc = 0;
    if (iops <= 0) /* too few ops for a steady window */
        iops = span > 0 ? (double)o->ops_done / span : 0;
    const struct { const char *name; double v; } m[] = {
        { "iops", iops },
        { "iops_whole_run", span > 0 ? (double)o->ops_done / span : 0 },
        { "bandwidth_bytes_per_s", o->ops_done ? iops * (double)o->bytes_done / (double)o->ops_done : 0 },
        { "ops_count", (double)o->ops_done },
        { "latency_mean_ns", o->ops_done ? (double)o->lat_sum_ns / (double)o->ops_done : 0 },
        { "trim_lock_ns", (double)o->trim_lock_ns },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0] && !rc; i++)
        rc = rs_result_set_metric(res, m[i].name, m[i].v, err);
    for (size_t i = 0; i < sizeof qs / sizeof qs[0] && !rc; i++) {
        snprintf(name, sizeof name, "latency_p%g_ns", qs[i]);
        rc = rs_result_set_metric(res, name, hist_quantile(o, qs[i] / 100.0), err);
    }
    return rc;
}
