/*
 * osd.c — daemon "osd": a BlueStore OSD's caches and its op service.
 *
 * Cache (design.md §5.2, facts/ceph-memory.md §3): every READ/WRITE names a
 * RADOS object (key) and a byte range (aux, size_bytes).  The object's onode
 * lives in a count-bounded LRU, its data in buffers (one per distinct range)
 * in a byte-bounded 2Q (hot, warm_in, warm_out ghosts; kin/kout), in N cache
 * shards chosen by hashing the object.  An onode is pinned while an op on it
 * is in flight; pinned onodes stay on the LRU and are skipped by a trim,
 * which gives up after bluestore_cache_trim_max_skip_pinned of them (v15
 * LruOnodeCacheShard::_trim_to).  Evicting an onode drops its buffers (they
 * hang off its blobs' SharedBlob::bc).  Allocations per object, all counted
 * in the BlueStore mempools (accounted): an onode is Onode (616 B,
 * bluestore_cache_onode) + osd_onode_extra_bytes of extents/blobs
 * (bluestore_cache_other); a buffer is Buffer (96 B, cache_other) + its data
 * (cache_data, at the requested length); a warm_out ghost keeps only Buffer.
 *
 * When to trim is the trim slot's policy (models/trim/bluestore.c): the
 * daemon hands it a sharded target (RS_TRIM_SHARDS, trim.h) — per shard the
 * onode LRU by count and the buffer 2Q by bytes, each trimmed on its own,
 * the shard's lock for a background pass, the totals — and calls it after
 * each insert (trim-on-add) and when an op starts (the MempoolThread sleeps
 * while the OSD is idle).  It never names the policy.
 *
 * Service (design.md §5.2): an op goes to op shard hash(object) mod
 * osd_op_num_shards, queues FIFO for one of its osd_op_num_threads_per_shard
 * workers, which first takes the op's cache-shard lock (waiting while a trim
 * holds it), spends the op's CPU cost (stretched by any trim that takes the
 * lock meanwhile: the op needs it throughout), and for a read that misses
 * the buffer cache waits for the device (synchronous read).  A write leaves the worker
 * after its CPU cost and completes when the device has written it.  The
 * device is one FIFO server: occupancy per IO plus bytes/bandwidth.  The
 * client sees osd_client_latency more (network, librbd).  A trim holds its
 * shard's lock for osd_trim_cost_fixed + osd_trim_cost_per_item · items (a
 * MempoolThread pass) or osd_trim_cost_per_item · items (trim-on-add, on
 * the op's own worker).  Cache state changes when the op is issued; the
 * service model then times it.  Latency = completion - issue, kept in a
 * log-bucketed histogram (1/128 relative precision), never per op.
 *
 * Closed-loop clients (client_iodepth > 0): each job (record thread) has at
 * most client_iodepth ops outstanding; a record is issued at max(its t_ns,
 * the moment its job has a free slot).  Records waiting for their job's
 * slot are kept in a pool of POOL_RECS shared by all jobs (a trace
 * interleaves its jobs round robin, but a job on a slow shard falls behind
 * the others by thousands of ops, as independent fio jobs do); while the
 * pool is full the engine is held (back-pressure), so memory stays bounded.
 *
 * Per object 48 bytes + ~11 in the hash tables; per op in flight 88 bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/hash.h"
#include "../../sim/base/idmap.h"
#include "daemon.h"

#define NONE UINT32_MAX
#define POOL_RECS 65536u /* records waiting for a slot, all jobs together (2.6 MB) */
#define OP_CHUNK 4096u
#define HIST_SUB 128u /* sub-buckets per power of two */
#define HIST_N (64u * HIST_SUB)
#define CLOG_N 4096u /* completion-time log entries (every stride-th completion) */
#define OSD_MEMORY_TARGET_DEFAULT (4ull << 30) /* osd_memory_target's default (v15) */

enum { SLOT_TRIM }; /* index in slots[] and env->parts[] */

enum { L_NONE, L_ONODE, L_WARM_IN, L_HOT, L_WARM_OUT, L__N };
enum { ONODE_BYTES = 616, BUFFER_BYTES = 96 }; /* sizeof, v15.2.5 (facts §3.3) */

typedef struct obj {
    uint64_t key;          /* onode: object number; buffer: object << 32 | offset */
    rs_addr addr[2];       /* onode: Onode, extras; buffer: Buffer, data (0 for a ghost) */
    uint32_t prev, next;   /* LRU / 2Q list links (next: free list when unused) */
    uint32_t oprev, onext; /* ring of an onode and its buffers */
    uint32_t len;          /* buffer: data bytes (0: ghost); onode: extra bytes */
    uint16_t pins;         /* onode: ops in flight */
    uint8_t list;          /* L_* */
    uint8_t shard;         /* cache shard */
} obj;

typedef struct qlist {
    uint32_t head, tail; /* head = most recent */
    uint64_t count, bytes;
} qlist;

typedef struct cshard {
    qlist l[L__N];             /* per list; bytes = data bytes (buffers) */
    uint64_t lock_from_ns, lock_until_ns; /* a trim holds the shard lock then */
} cshard;

struct osd;
typedef struct oshard {
    struct osd *o;
    uint32_t qhead, qtail; /* FIFO of ops waiting for a worker */
    uint32_t idle;         /* free workers */
    uint32_t index;
} oshard;

typedef struct op {
    struct osd *o;
    uint64_t issue_ns, cpu_ns, dev_ns, trim_ns, bytes;
    uint64_t start_ns, lock_seen_ns; /* its worker phase began; lock holds charged up to */
    uint32_t next, onode, id, os_idx; /* next: queue or free-list link; os_idx: op shard */
    uint32_t pg;
    uint16_t job;
    uint8_t write, device;
} op;

typedef struct job {
    uint32_t outstanding;
    uint32_t head, tail;   /* its records waiting, a list in osd.pool (NONE: none) */
    uint8_t first;
    uint64_t last_key[2], last_end[2]; /* per direction, as fio keeps them */
} job;

typedef struct osd {
    rs_engine *eng;
    rs_alloc *alloc;
    rs_trim trim_policy;     /* the trim slot's policy, over target */
    rs_trim_target target;
    void (*after_shard_insert)(void *state, uint32_t shard, int items, uint64_t now_ns);
    /* objects */
    obj *objs;
    uint32_t nobjs, cap, free_head;
    rs_idmap onodes, buffers; /* object -> onode id, (object << 32 | offset) -> buffer id */
    cshard *cs;
    uint32_t ncs;
    uint64_t accounted_bytes, meta_bytes, data_bytes, n_onodes, n_buffers;
    uint64_t accounted_peak_bytes, items_peak_count;
    /* configuration */
    uint64_t extra_bytes, max_skip_pinned;
    double kin_ratio, kout_ratio;
    int buffered_read, buffered_write, strict;
    uint64_t per_item_ns;
    uint64_t read_cost_ns, write_cost_ns, read_rand_ns, write_rand_ns, cost_per_mib_ns, dev_rand_ns, dev_seq_ns,
        dev_write_ns, dev_read_bw, dev_write_bw, client_ns;
    uint64_t base_bytes, heap_base_bytes;
    /* service */
    oshard *os;
    uint32_t nos, threads;
    uint32_t npgs;        /* osd_pg_num; 0: no per-PG ordering */
    uint8_t *pg_busy;     /* a worker holds the PG's lock */
    op **chunks;
    uint32_t nchunks, op_free, op_used;
    uint64_t dev_busy_ns;
    uint32_t timer_thread, cur_thread;
    uint64_t inflight;    /* ops issued and not complete */
    /* clients */
    job *jobs;
    rs_rec *pool;          /* closed loop: records waiting for their job's slot */
    uint32_t *pool_next;   /* list links; free slots chained from pool_free */
    uint32_t pool_free, pool_n;
    uint32_t njobs;
    int64_t iodepth;
    /* results */
    rs_trim_stats trim;
    uint64_t trim_lock_ns, ops_done, bytes_done, first_issue_ns, last_done_ns, skipped;
    uint64_t reads, writes, buf_hits, onode_hits, lat_sum_ns;
    uint64_t hist[HIST_N];
    uint64_t clog[CLOG_N]; /* time of completion k*stride, k = 1.. */
    uint64_t clog_stride;
    uint32_t clog_n;
} osd;

static const rs_param params[] = {
    { .key = "osd_memory_base", .type = RS_PT_SIZE, .def = "768M",
      .doc = "estimate of the OSD's memory outside its caches (768 MiB): resident base (and "
             "bluestore-autotune's floor)" },
    { .key = "strict", .type = RS_PT_BOOL, .def = "false",
      .doc = "a record the osd cannot apply stops the run with FILE:LINE instead of being counted" },
    { .key = "bluestore_cache_trim_max_skip_pinned", .type = RS_PT_INT, .def = "64",
      .doc = "pinned onodes an onode trim skips before it gives up (64; 1000 since PR 40732)",
      .range = "[0, 1000000000]" },
    { .key = "bluestore_2q_cache_kin_ratio", .type = RS_PT_DOUBLE, .def = "0.5",
      .doc = "2Q: share of the buffer target for warm_in",
      .range = "[0, 1]" },
    { .key = "bluestore_2q_cache_kout_ratio", .type = RS_PT_DOUBLE, .def = "0.5",
      .doc = "2Q: warm_out ghosts kept, as a fraction of target / average buffer",
      .range = "[0, 1]" },
    { .key = "bluestore_default_buffered_read", .type = RS_PT_BOOL, .def = "true",
      .doc = "reads leave their data in the buffer cache" },
    { .key = "bluestore_default_buffered_write", .type = RS_PT_BOOL, .def = "false",
      .doc = "writes leave their data in the buffer cache (else they drop the range)" },
    { .key = "osd_num_cache_shards", .type = RS_PT_INT, .def = "0",
      .doc = "cache shards; 0 = osd_op_num_shards as before Octopus (32 from Octopus)",
      .range = "[0, 256]" },
    { .key = "osd_onode_extra_bytes", .type = RS_PT_SIZE, .def = "264",
      .doc = "bluestore_cache_other bytes per cached onode: one Extent 48 + Blob 104 + SharedBlob 112",
      .range = "[0, 4G)" },
    { .key = "osd_op_num_shards", .type = RS_PT_INT, .def = "8",
      .doc = "op shards (ssd 8, hdd 5)",
      .range = "[1, 256]" },
    { .key = "osd_op_num_threads_per_shard", .type = RS_PT_INT, .def = "2",
      .doc = "worker threads per op shard (ssd 2, hdd 1)",
      .range = "[1, 1024]" },
    { .key = "osd_pg_num", .type = RS_PT_INT, .def = "128",
      .doc = "PGs on the OSD: an object's PG picks its shards, and a PG's ops run one at a time "
             "(the PG lock); 0 = no PG ordering",
      .range = "[0, 1048576]" },
    { .key = "osd_op_read_cost", .type = RS_PT_DURATION, .def = "20us",
      .doc = "worker time of a read, device excluded (calibrated on PR 20498's table, docs/models.md)" },
    { .key = "osd_op_write_cost", .type = RS_PT_DURATION, .def = "597us",
      .doc = "worker time of a write before the device (calibrated: 8K_write)" },
    { .key = "osd_op_read_random_cost", .type = RS_PT_DURATION, .def = "1461us",
      .doc = "extra worker time of a read not continuing its job's last one (calibrated: 8K_randread)" },
    { .key = "osd_op_write_random_cost", .type = RS_PT_DURATION, .def = "1275us",
      .doc = "extra worker time of a write not continuing its job's last one (calibrated: 8K_randwrite)" },
    { .key = "osd_op_cost_per_mib", .type = RS_PT_DURATION, .def = "1ms",
      .doc = "worker time per MiB moved (copies, checksums)" },
    { .key = "osd_device_read_rand_cost", .type = RS_PT_DURATION, .def = "40us",
      .doc = "device occupancy of a random read (FIFO; calibrated)" },
    { .key = "osd_device_read_seq_cost", .type = RS_PT_DURATION, .def = "30800ns",
      .doc = "device occupancy of a read continuing its job's last one (calibrated: 8K_read)" },
    { .key = "osd_device_write_cost", .type = RS_PT_DURATION, .def = "36100ns",
      .doc = "device occupancy of a write (calibrated: 8K_rw, 1M_write)" },
    { .key = "osd_device_read_bandwidth", .type = RS_PT_SIZE, .def = "1273M",
      .doc = "device read bandwidth, bytes per second (calibrated: 1M_read, 8K_read)",
      .range = "(0, )" },
    { .key = "osd_device_write_bandwidth", .type = RS_PT_SIZE, .def = "750M",
      .doc = "device write bandwidth, bytes per second (calibrated: 1M_write)",
      .range = "(0, )" },
    { .key = "osd_client_latency", .type = RS_PT_DURATION, .def = "200us",
      .doc = "client and network time of an op outside the OSD" },
    { .key = "osd_trim_cost_per_item", .type = RS_PT_DURATION, .def = "300ns",
      .doc = "shard-lock time per onode or buffer a trim evicts" },
    { .key = "client_iodepth", .type = RS_PT_INT, .def = "0",
      .doc = "ops each client job keeps outstanding (0 = open loop: issue each record at its t_ns)",
      .range = "[0, 65535]" },
    { .key = "write_buffer_size", .type = RS_PT_SIZE, .def = "256M",
      .doc = "RocksDB memtable size (bluestore_rocksdb_options, Luminous..v15; 16M now)" },
    { .key = "max_write_buffer_number", .type = RS_PT_INT, .def = "4",
      .doc = "RocksDB memtables (Luminous..v15 4; 64 now); base memory = size x number, full",
      .range = "[0, 4096]" },
    { .key = "osd_pg_log_bytes", .type = RS_PT_SIZE, .def = "0",
      .doc = "resident pg log memory (unsourced: no default, set it from dump_mempools osd_pglog)" },
    { .key = NULL },
};

/* ---- the onode and buffer indexes (sim/idmap.h) ---- */

static uint64_t obj_key(const void *ctx, uint32_t id)
{
    return ((const osd *)ctx)->objs[id].key;
}

static uint32_t table_find(const osd *o, const rs_idmap *t, uint64_t key)
{
    return rs_idmap_find(t, key, obj_key, o);
}

/* Index object id by its key (room was reserved). */
static void table_put(const osd *o, rs_idmap *t, uint32_t id)
{
    uint64_t key = o->objs[id].key, h = rs_hash64(key);
    rs_idmap_put(t, rs_idmap_probe(t, key, h, obj_key, o), key, h, id);
}

static void table_del(const osd *o, rs_idmap *t, uint64_t key)
{
    rs_idmap_delete(t, rs_idmap_probe(t, key, rs_hash64(key), obj_key, o));
}

/* ---- lists ---- */

static void list_push(osd *o, cshard *c, int l, uint32_t id, int front)
{
    qlist *q = &c->l[l];
    obj *b = &o->objs[id];
    b->list = (uint8_t)l;
    if (front) {
        b->prev = NONE;
        b->next = q->head;
        if (q->head != NONE)
            o->objs[q->head].prev = id;
        q->head = id;
        if (q->tail == NONE)
            q->tail = id;
    } else {
        b->next = NONE;
        b->prev = q->tail;
        if (q->tail != NONE)
            o->objs[q->tail].next = id;
        q->tail = id;
        if (q->head == NONE)
            q->head = id;
    }
    q->count++;
    q->bytes += l == L_ONODE ? 0 : b->len;
}

static void list_unlink(osd *o, uint32_t id)
{
    obj *b = &o->objs[id];
    qlist *q = &o->cs[b->shard].l[b->list];
    if (b->prev != NONE)
        o->objs[b->prev].next = b->next;
    else
        q->head = b->next;
    if (b->next != NONE)
        o->objs[b->next].prev = b->prev;
    else
        q->tail = b->prev;
    q->count--;
    q->bytes -= b->list == L_ONODE ? 0 : b->len;
    b->list = L_NONE;
}

/* ---- objects and their allocations ---- */

static uint32_t thread_now(const osd *o)
{
    return o->cur_thread;
}

static void account(osd *o, uint64_t meta, uint64_t data, int sign)
{
    if (sign > 0) {
        o->meta_bytes += meta;
        o->data_bytes += data;
    } else {
        o->meta_bytes -= meta;
        o->data_bytes -= data;
    }
    o->accounted_bytes = o->meta_bytes + o->data_bytes;
    if (o->accounted_bytes > o->accounted_peak_bytes)
        o->accounted_peak_bytes = o->accounted_bytes;
    uint64_t items = o->n_onodes + o->n_buffers;
    if (items > o->items_peak_count)
        o->items_peak_count = items;
}

static int obj_new(osd *o, uint64_t key, uint32_t shard, uint64_t head_bytes, uint64_t len,
                   uint32_t *r_id, rs_err *err)
{
    uint32_t id;
    if (o->free_head != NONE) {
        id = o->free_head;
        o->free_head = o->objs[id].next;
    } else {
        if (o->nobjs == o->cap) {
            uint32_t cap = o->cap ? o->cap * 2 : 4096;
            obj *n = realloc(o->objs, (size_t)cap * sizeof *n);
            if (!n)
                return rs_fail(err, RS_ENOMEM, "out of memory for %u osd objects", cap);
            o->objs = n;
            o->cap = cap;
        }
        id = o->nobjs++;
    }
    obj *b = &o->objs[id];
    uint64_t now = o->eng->now_ns;
    *b = (obj){ .key = key, .prev = NONE, .next = NONE, .oprev = id, .onext = id,
                .len = (uint32_t)len, .shard = (uint8_t)shard };
    b->addr[0] = o->alloc->ops->alloc(o->alloc->state, head_bytes, thread_now(o), now);
    b->addr[1] = len ? o->alloc->ops->alloc(o->alloc->state, len, thread_now(o), now) : 0;
    if (!b->addr[0] || (len && !b->addr[1]))
        return rs_fail(err, RS_ENOMEM, "the allocator model is out of memory");
    *r_id = id;
    return 0;
}

static void obj_free(osd *o, uint32_t id, uint64_t head_bytes)
{
    obj *b = &o->objs[id];
    uint64_t now = o->eng->now_ns;
    o->alloc->ops->free(o->alloc->state, b->addr[0], head_bytes, thread_now(o), now);
    if (b->addr[1])
        o->alloc->ops->free(o->alloc->state, b->addr[1], b->len, thread_now(o), now);
    b->next = o->free_head;
    o->free_head = id;
}

/* A buffer leaves the cache entirely. */
static void buffer_remove(osd *o, uint32_t id)
{
    obj *b = &o->objs[id];
    o->objs[b->oprev].onext = b->onext;
    o->objs[b->onext].oprev = b->oprev;
    uint32_t len = b->addr[1] ? b->len : 0;
    list_unlink(o, id);
    table_del(o, &o->buffers, b->key);
    o->n_buffers--;
    account(o, BUFFER_BYTES, len, -1);
    obj_free(o, id, BUFFER_BYTES);
}

/* warm_in -> warm_out: drop the data, keep the Buffer as a ghost. */
static void buffer_to_ghost(osd *o, uint32_t id)
{
    obj *b = &o->objs[id];
    list_unlink(o, id);
    account(o, 0, b->len, -1);
    o->alloc->ops->free(o->alloc->state, b->addr[1], b->len, thread_now(o), o->eng->now_ns);
    b->addr[1] = 0;
    b->len = 0;
    list_push(o, &o->cs[b->shard], L_WARM_OUT, id, 1);
}

static void onode_remove(osd *o, uint32_t id, uint64_t *r_items)
{
    while (o->objs[id].onext != id) {
        buffer_remove(o, o->objs[id].onext);
        (*r_items)++;
    }
    list_unlink(o, id);
    table_del(o, &o->onodes, o->objs[id].key);
    o->n_onodes--;
    account(o, ONODE_BYTES + o->extra_bytes, 0, -1);
    obj_free(o, id, ONODE_BYTES);
}

/* ---- trimming ---- */

/* TwoQBufferCacheShard::_trim_to(max) (v15 BlueStore.cc:1044-1300; the
 * Luminous TwoQCache::_trim buffer half is the same). */
static uint64_t buffers_trim_to(osd *o, cshard *c, uint64_t max)
{
    uint64_t items = 0, buffer_bytes = c->l[L_WARM_IN].bytes + c->l[L_HOT].bytes;
    if (buffer_bytes <= max)
        return 0;
    uint64_t kin = (uint64_t)((double)max * o->kin_ratio), khot = max - kin, kout = 0;
    uint64_t num = c->l[L_WARM_IN].count + c->l[L_HOT].count;
    if (num) {
        uint64_t avg = buffer_bytes / num;
        kout = (uint64_t)((double)(max / (avg ? avg : 1)) * o->kout_ratio);
    }
    if (c->l[L_HOT].bytes < khot)
        kin += khot - c->l[L_HOT].bytes;
    else if (c->l[L_WARM_IN].bytes < kin)
        khot += kin - c->l[L_WARM_IN].bytes;
    int64_t evict = (int64_t)c->l[L_WARM_IN].bytes - (int64_t)kin;
    while (evict > 0 && c->l[L_WARM_IN].tail != NONE) {
        uint32_t id = c->l[L_WARM_IN].tail;
        evict -= o->objs[id].len;
        buffer_to_ghost(o, id);
        items++;
    }
    evict = (int64_t)c->l[L_HOT].bytes - (int64_t)khot;
    while (evict > 0 && c->l[L_HOT].tail != NONE) {
        uint32_t id = c->l[L_HOT].tail;
        evict -= o->objs[id].len;
        buffer_remove(o, id);
        items++;
    }
    while (c->l[L_WARM_OUT].count > kout) {
        buffer_remove(o, c->l[L_WARM_OUT].tail);
        items++;
    }
    return items;
}

/* The onode LRU to max entries, pinned ones skipped (and counted against
 * the excess), stopping after max_skip_pinned of them. */
static uint64_t onodes_trim_to(osd *o, cshard *c, uint64_t max)
{
    uint64_t items = 0, skipped = 0;
    if (c->l[L_ONODE].count <= max)
        return 0;
    uint64_t n = c->l[L_ONODE].count - max;
    uint32_t p = c->l[L_ONODE].tail;
    while (n > 0 && p != NONE) {
        uint32_t prev = o->objs[p].prev;
        if (o->objs[p].pins) {
            if (++skipped >= o->max_skip_pinned)
                break;
            p = prev;
            n--;
            continue;
        }
        onode_remove(o, p, &items);
        items++;
        n--;
        p = prev;
    }
    return items;
}

/* Hold cache shard c's lock for ns from start_ns (later holds extend it). */
static void shard_lock(osd *o, cshard *c, uint64_t start_ns, uint64_t ns)
{
    if (c->lock_until_ns >= start_ns && c->lock_until_ns > c->lock_from_ns) {
        c->lock_until_ns += ns;
    } else {
        c->lock_from_ns = start_ns;
        c->lock_until_ns = start_ns + ns;
    }
    o->trim_lock_ns += ns;
}

/* ---- the trim policy's target (RS_TRIM_SHARDS, trim.h) ---- */

static void tgt_usage(void *ctx, rs_trim_usage *r)
{
    const osd *o = ctx;
    *r = (rs_trim_usage){ .items_count = o->n_onodes, .meta_bytes = o->meta_bytes,
                          .data_bytes = o->data_bytes };
}

static void tgt_shard_usage(void *ctx, uint32_t shard, uint64_t *r_items, uint64_t *r_bytes)
{
    const cshard *c = &((const osd *)ctx)->cs[shard];
    *r_items = c->l[L_ONODE].count;
    *r_bytes = c->l[L_WARM_IN].bytes + c->l[L_HOT].bytes;
}

static uint64_t tgt_shard_trim_bytes(void *ctx, uint32_t shard, uint64_t max_bytes, int background,
                                     uint64_t *r_bytes)
{
    osd *o = ctx;
    uint64_t before = o->accounted_bytes;
    if (background)
        o->cur_thread = o->timer_thread; /* the MempoolThread frees on a thread of its own */
    uint64_t items = buffers_trim_to(o, &o->cs[shard], max_bytes);
    *r_bytes += before - o->accounted_bytes;
    return items;
}

static uint64_t tgt_shard_trim_items(void *ctx, uint32_t shard, uint64_t max_items, int background,
                                     uint64_t *r_bytes)
{
    osd *o = ctx;
    uint64_t before = o->accounted_bytes;
    if (background)
        o->cur_thread = o->timer_thread;
    uint64_t items = onodes_trim_to(o, &o->cs[shard], max_items);
    *r_bytes += before - o->accounted_bytes;
    return items;
}

static uint64_t tgt_shard_hold(void *ctx, uint32_t shard, uint64_t start_ns, uint64_t fixed_ns,
                               uint64_t items)
{
    osd *o = ctx;
    uint64_t ns = fixed_ns + o->per_item_ns * items;
    shard_lock(o, &o->cs[shard], start_ns, ns);
    return ns;
}

static int tgt_busy(void *ctx)
{
    return ((const osd *)ctx)->inflight > 0;
}

static uint64_t tgt_used(void *ctx)
{
    return ((const osd *)ctx)->accounted_bytes;
}

/* The heap's mapped bytes (tcmalloc only), the heap-allocated base included. */
static uint64_t tgt_mapped(void *ctx)
{
    const osd *o = ctx;
    rs_alloc_stats s;
    o->alloc->ops->stats(o->alloc->state, &s);
    return s.mapped_bytes + o->heap_base_bytes;
}

static void tgt_release(void *ctx, uint64_t now_ns)
{
    const osd *o = ctx;
    o->alloc->ops->release(o->alloc->state, now_ns);
}

/* Items a trim-on-add evicted after an insert into shard (items: the onode LRU). */
static uint64_t trim_after_insert(osd *o, uint32_t shard, int items)
{
    if (!o->after_shard_insert)
        return 0;
    uint64_t before = o->trim.trimmed_items_count;
    o->after_shard_insert(o->trim_policy.state, shard, items, o->eng->now_ns);
    return o->trim.trimmed_items_count - before;
}

/* ---- the cache side of an op ---- */

/* An object's PG, or its hash when PGs are off; shards follow it. */
static uint64_t pg_of(const osd *o, uint64_t object)
{
    uint64_t h = rs_hash64(object);
    return o->npgs ? h % o->npgs : h;
}

static uint32_t cache_shard_of(const osd *o, uint64_t object)
{
    /* the op shard's hash: with as many cache shards as op shards (Luminous)
     * op shard i uses cache shard i, as both follow the PG */
    return (uint32_t)(pg_of(o, object) % o->ncs);
}

static int get_onode(osd *o, uint64_t object, uint32_t *r_id, uint64_t *r_items, rs_err *err)
{
    uint32_t id = table_find(o, &o->onodes, object);
    int rc;
    if (id != NONE) {
        o->onode_hits++;
        list_unlink(o, id);
        list_push(o, &o->cs[o->objs[id].shard], L_ONODE, id, 1);
        *r_id = id;
        return 0;
    }
    if ((rc = rs_idmap_reserve(&o->onodes, err)))
        return rc;
    uint32_t shard = cache_shard_of(o, object);
    if ((rc = obj_new(o, object, shard, ONODE_BYTES, o->extra_bytes, &id, err)))
        return rc;
    /* the extras are one allocation counted in bluestore_cache_other; the
     * len field remembers their size for the free */
    table_put(o, &o->onodes, id);
    list_push(o, &o->cs[shard], L_ONODE, id, 1);
    o->n_onodes++;
    account(o, ONODE_BYTES + o->extra_bytes, 0, 1);
    o->objs[id].pins++; /* the op's own reference: its trim-on-add must not take it */
    *r_items += trim_after_insert(o, shard, 1);
    o->objs[id].pins--;
    *r_id = id;
    return 0;
}

/* Add a buffer of len bytes for key, where old is the buffer the range holds
 * now (NONE: none), which hints (BufferSpace::_discard's cache_private): a
 * ghost makes it hot. */
static int add_buffer(osd *o, uint32_t onode, uint64_t key, uint32_t old, uint64_t len,
                      uint64_t *r_items, rs_err *err)
{
    uint32_t id;
    int level = L_WARM_IN, rc;
    if (old != NONE) {
        int l = o->objs[old].list;
        level = l == L_WARM_OUT ? L_HOT : l;
        buffer_remove(o, old);
    }
    if ((rc = rs_idmap_reserve(&o->buffers, err)))
        return rc;
    uint32_t shard = o->objs[onode].shard;
    if ((rc = obj_new(o, key, shard, BUFFER_BYTES, len, &id, err)))
        return rc;
    table_put(o, &o->buffers, id);
    obj *b = &o->objs[id], *on = &o->objs[onode];
    b->onext = on->onext;
    b->oprev = onode;
    o->objs[on->onext].oprev = id;
    on->onext = id;
    list_push(o, &o->cs[shard], level, id, 1);
    o->n_buffers++;
    account(o, BUFFER_BYTES, len, 1);
    *r_items += trim_after_insert(o, shard, 0);
    return 0;
}

/* Apply rec to the cache; sets whether the device is needed. */
static int cache_apply(osd *o, const rs_rec *rec, op *p, uint64_t *r_items, rs_err *err)
{
    uint64_t key = rec->key << 32 | rec->aux;
    int rc = get_onode(o, rec->key, &p->onode, r_items, err);
    if (rc)
        return rc;
    if (o->objs[p->onode].pins == UINT16_MAX)
        return rs_fail(err, RS_EINPUT, "more than %u ops in flight on object %llu",
                       UINT16_MAX, (unsigned long long)rec->key);
    o->objs[p->onode].pins++;
    uint32_t b = table_find(o, &o->buffers, key);
    int cached = b != NONE && o->objs[b].list != L_WARM_OUT && o->objs[b].len >= rec->size_bytes;
    if (p->write) {
        o->writes++;
        p->device = 1;
        if (o->buffered_write)
            return add_buffer(o, p->onode, key, b, rec->size_bytes, r_items, err);
        if (b != NONE)
            buffer_remove(o, b);
        return 0;
    }
    o->reads++;
    if (cached) {
        o->buf_hits++;
        if (o->objs[b].list == L_HOT) {
            list_unlink(o, b);
            list_push(o, &o->cs[o->objs[b].shard], L_HOT, b, 1);
        } /* warm_in: nothing, "somewhat counter-intuitively" (TwoQ _touch) */
        p->device = 0;
        return 0;
    }
    p->device = 1;
    if (o->buffered_read)
        return add_buffer(o, p->onode, key, b, rec->size_bytes, r_items, err);
    return 0;
}

/* ---- the service model ---- */

static op *op_at(const osd *o, uint32_t id)
{
    return &o->chunks[id / OP_CHUNK][id % OP_CHUNK];
}

static int op_new(osd *o, uint32_t *r_id, rs_err *err)
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

static void hist_add(osd *o, uint64_t v)
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

static double hist_quantile(const osd *o, double q)
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
static void clog_add(osd *o, uint64_t now_ns)
{
    if (o->ops_done % o->clog_stride)
        return;
    if (o->clog_n == CLOG_N) {
        for (uint32_t i = 0; i < CLOG_N / 2; i++)
            o->clog[i] = o->clog[2 * i + 1];
        o->clog_n = CLOG_N / 2;
        o->clog_stride *= 2;
    }
    if (o->ops_done % o->clog_stride == 0)
        o->clog[o->clog_n++] = now_ns;
}

static void dispatch(oshard *s, uint64_t now_ns);
static int issue(osd *o, const rs_rec *rec, rs_err *err);

static void on_worker_done(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    oshard *s = &p->o->os[p->os_idx];
    if (p->pg != NONE)
        p->o->pg_busy[p->pg] = 0;
    s->idle++;
    dispatch(s, now_ns);
}

static void on_complete(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    osd *o = p->o;
    job *j = &o->jobs[p->job];
    uint64_t lat = now_ns - p->issue_ns;
    hist_add(o, lat);
    o->lat_sum_ns += lat;
    o->ops_done++;
    o->inflight--;
    clog_add(o, now_ns);
    o->bytes_done += p->bytes;
    o->last_done_ns = now_ns;
    o->objs[p->onode].pins--;
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

static void schedule(osd *o, uint64_t t_ns, rs_event_fn fn, op *p)
{
    rs_err err;
    if (rs_engine_at(o->eng, t_ns, fn, p, &err))
        rs_engine_abort(o->eng, &err);
}

/* The op reaches the device (FIFO in arrival order).  A read's worker
 * waits for it; a write's worker is free from now on. */
static void on_device(void *ctx, uint64_t now_ns)
{
    op *p = ctx;
    osd *o = p->o;
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
    osd *o = p->o;
    const cshard *c = &o->cs[o->objs[p->onode].shard];
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
static op *next_runnable(osd *o, oshard *s)
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
    osd *o = s->o;
    op *p;
    while (s->idle && (p = next_runnable(o, s))) {
        s->idle--;
        cshard *c = &o->cs[o->objs[p->onode].shard];
        uint64_t start = now_ns;
        if (c->lock_from_ns <= start && start < c->lock_until_ns)
            start = c->lock_until_ns; /* the worker blocks on the shard lock */
        p->start_ns = p->lock_seen_ns = start;
        if (p->trim_ns) { /* its own trim-on-add holds the lock, inside its time */
            shard_lock(o, c, start, p->trim_ns);
            p->lock_seen_ns = c->lock_until_ns;
        }
        schedule(o, start + p->cpu_ns + p->trim_ns, on_cpu_done, p);
    }
}

static int issue(osd *o, const rs_rec *rec, rs_err *err)
{
    uint32_t id = NONE;
    uint64_t items = 0;
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
    *p = (op){ .o = o, .issue_ns = o->eng->now_ns, .bytes = rec->size_bytes, .id = id,
               .next = NONE, .job = rec->thread, .write = rec->op == RS_OP_WRITE };
    uint64_t pg = pg_of(o, rec->key);
    uint32_t s_idx = (uint32_t)(pg % o->nos);
    p->os_idx = s_idx;
    p->pg = o->npgs ? (uint32_t)pg : NONE;
    j->first = 0;
    j->last_key[w] = rec->key;
    j->last_end[w] = (uint64_t)rec->aux + rec->size_bytes;
    if (!o->ops_done && !o->first_issue_ns)
        o->first_issue_ns = o->eng->now_ns;
    o->inflight++;
    if (o->trim_policy.ops->wake && (rc = o->trim_policy.ops->wake(o->trim_policy.state, o->eng->now_ns, err)))
        return rc;
    o->cur_thread = s_idx;
    if ((rc = cache_apply(o, rec, p, &items, err)))
        return rc;
    double mib = (double)rec->size_bytes / (1024.0 * 1024.0);
    p->cpu_ns = (p->write ? o->write_cost_ns : o->read_cost_ns) +
                (seq ? 0 : p->write ? o->write_rand_ns : o->read_rand_ns) +
                (uint64_t)(mib * (double)o->cost_per_mib_ns);
    p->trim_ns = items * o->per_item_ns;
    uint64_t bw = p->write ? o->dev_write_bw : o->dev_read_bw;
    p->dev_ns = (p->write ? o->dev_write_ns : seq ? o->dev_seq_ns : o->dev_rand_ns) +
                (uint64_t)((double)rec->size_bytes * 1e9 / (double)bw);
    if (o->iodepth)
        j->outstanding++;
    oshard *s = &o->os[s_idx];
    if (s->qtail != NONE)
        op_at(o, s->qtail)->next = id;
    else
        s->qhead = id;
    s->qtail = id;
    dispatch(s, o->eng->now_ns);
    return 0;
}

/* ---- the daemon interface ---- */

static int grow_jobs(osd *o, uint32_t thread, rs_err *err)
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

static int osd_op(void *state, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    (void)memo;
    osd *o = state;
    int rc;
    if ((rec->op != RS_OP_READ && rec->op != RS_OP_WRITE) || !rec->size_bytes ||
        rec->key > UINT32_MAX || rec->size_bytes > UINT32_MAX ||
        (uint64_t)rec->aux + rec->size_bytes > ((uint64_t)1 << 32)) {
        if (o->strict)
            return rs_fail(err, RS_EINPUT,
                           "daemon osd cannot apply op %u ('%s') on object %llu, %llu bytes at %u",
                           rec->op, rs_op_name(rec->op) ? rs_op_name(rec->op) : "?",
                           (unsigned long long)rec->key, (unsigned long long)rec->size_bytes,
                           rec->aux);
        o->skipped++;
        return 0;
    }
    if (rec->thread >= o->njobs && (rc = grow_jobs(o, rec->thread, err)))
        return rc;
    job *j = &o->jobs[rec->thread];
    if (!o->iodepth || (j->outstanding < (uint64_t)o->iodepth && j->head == NONE))
        return issue(o, rec, err);
    if (!o->pool) {
        o->pool = malloc(POOL_RECS * sizeof *o->pool);
        o->pool_next = malloc(POOL_RECS * sizeof *o->pool_next);
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

static void osd_destroy(void *state)
{
    osd *o = state;
    if (!o)
        return;
    for (uint32_t i = 0; i < o->nchunks; i++)
        free(o->chunks[i]);
    free(o->chunks);
    free(o->objs);
    rs_trim_destroy(&o->trim_policy);
    rs_idmap_release(&o->onodes);
    rs_idmap_release(&o->buffers);
    free(o->cs);
    free(o->os);
    free(o->pg_busy);
    free(o->jobs);
    free(o->pool);
    free(o->pool_next);
    free(o);
}

static void configure(osd *o, const rs_config *cfg)
{
    int64_t nos = rs_config_int(cfg, "osd_op_num_shards");
    int64_t thr = rs_config_int(cfg, "osd_op_num_threads_per_shard");
    int64_t npgs = rs_config_int(cfg, "osd_pg_num");
    int64_t ncs = rs_config_int(cfg, "osd_num_cache_shards");
    int64_t skip = rs_config_int(cfg, "bluestore_cache_trim_max_skip_pinned");
    o->iodepth = rs_config_int(cfg, "client_iodepth");
    int64_t nwb = rs_config_int(cfg, "max_write_buffer_number");
    o->npgs = (uint32_t)npgs;
    o->nos = (uint32_t)nos;
    o->threads = (uint32_t)thr;
    o->ncs = ncs ? (uint32_t)ncs : o->nos;
    o->max_skip_pinned = (uint64_t)skip;
    o->extra_bytes = rs_config_size(cfg, "osd_onode_extra_bytes");
    o->kin_ratio = rs_config_double(cfg, "bluestore_2q_cache_kin_ratio");
    o->kout_ratio = rs_config_double(cfg, "bluestore_2q_cache_kout_ratio");
    o->buffered_read = rs_config_bool(cfg, "bluestore_default_buffered_read");
    o->buffered_write = rs_config_bool(cfg, "bluestore_default_buffered_write");
    o->strict = rs_config_bool(cfg, "strict");
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
    o->heap_base_bytes = rs_config_size(cfg, "write_buffer_size") * (uint64_t)nwb +
                         rs_config_size(cfg, "osd_pg_log_bytes");
    /* osd_memory_base is Ceph's estimate of the OSD's memory outside its
     * caches, memtables and pg log included: resident base is that, or those
     * two when they are more, plus the core key base_bytes */
    uint64_t mem_base = rs_config_size(cfg, "osd_memory_base");
    o->base_bytes = (o->heap_base_bytes > mem_base ? o->heap_base_bytes : mem_base) +
                    rs_config_size(cfg, "base_bytes");
}

static int osd_create(const rs_daemon_env *env, void **r_state, rs_err *err)
{
    osd *o = calloc(1, sizeof *o);
    int rc;
    if (!o)
        return rs_fail(err, RS_ENOMEM, "out of memory for daemon osd");
    o->eng = env->engine;
    o->alloc = env->alloc;
    o->free_head = o->op_free = NONE;
    o->clog_stride = 1;
    configure(o, env->cfg);
    o->timer_thread = o->nos; /* the MempoolThread frees on a thread of its own */
    o->cs = calloc(o->ncs, sizeof *o->cs);
    o->os = calloc(o->nos, sizeof *o->os);
    o->pg_busy = calloc(o->npgs ? o->npgs : 1, 1);
    if (!o->cs || !o->os || !o->pg_busy) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory for osd shards");
        goto fail;
    }
    for (uint32_t i = 0; i < o->ncs; i++)
        for (int l = 0; l < L__N; l++)
            o->cs[i].l[l].head = o->cs[i].l[l].tail = NONE;
    for (uint32_t i = 0; i < o->nos; i++)
        o->os[i] = (oshard){ .o = o, .qhead = NONE, .qtail = NONE, .idle = o->threads, .index = i };
    if ((rc = rs_idmap_init(&o->onodes, 1024, err)) || (rc = rs_idmap_init(&o->buffers, 1024, err)))
        goto fail;
    o->target = (rs_trim_target){
        .ctx = o, .used_bytes = tgt_used, .shard_count = o->ncs, .usage = tgt_usage,
        .shard_usage = tgt_shard_usage, .shard_trim_bytes = tgt_shard_trim_bytes,
        .shard_trim_items = tgt_shard_trim_items, .shard_hold = tgt_shard_hold, .busy = tgt_busy,
        /* without tcmalloc the heap properties cannot be read (facts §3.5) */
        .mapped_bytes = env->alloc->ops->reports_heap ? tgt_mapped : NULL,
        .release_memory = env->alloc->ops->release ? tgt_release : NULL,
    };
    rc = rs_trim_create(env->parts[SLOT_TRIM], env->cfg, env->engine, &o->target, &o->trim,
                        &o->trim_policy, err);
    o->after_shard_insert = o->trim_policy.ops ? o->trim_policy.ops->after_shard_insert : NULL;
    if (rc)
        goto fail;
    *r_state = o;
    return 0;
fail:
    osd_destroy(o);
    return rc;
}

static uint64_t limit_now(const osd *o)
{
    return o->trim_policy.ops->limit_bytes(o->trim_policy.state);
}

static void osd_stats(const void *state, rs_daemon_stats *r)
{
    const osd *o = state;
    *r = (rs_daemon_stats){
        .accounted_bytes = o->accounted_bytes,
        .untracked_bytes = 0,
        .limit_bytes = limit_now(o),
        .base_bytes = o->base_bytes,
        .items_count = o->n_onodes + o->n_buffers,
        .accounted_peak_bytes = o->accounted_peak_bytes,
        .items_peak_count = o->items_peak_count,
        .trim = o->trim,
    };
}

/* Completions per second between the 10th and the 90th percentile of the
 * completions: the steady rate, without the ramp at the start and the tail
 * in which a closed loop's jobs finish one by one. */
static double steady_iops(const osd *o)
{
    uint64_t lo = o->ops_done / 10, hi = o->ops_done * 9 / 10;
    uint64_t ilo = lo / o->clog_stride, ihi = hi / o->clog_stride;
    if (ilo < 1 || ihi <= ilo || ihi > o->clog_n || o->clog[ihi - 1] <= o->clog[ilo - 1])
        return 0;
    return (double)((ihi - ilo) * o->clog_stride) * 1e9 / (double)(o->clog[ihi - 1] - o->clog[ilo - 1]);
}

static int osd_metrics(const void *state, uint64_t end_ns, rs_result *res, rs_err *err)
{
    static const double qs[] = { 0.1, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.99 };
    const osd *o = state;
    uint64_t lists[L__N] = { 0 };
    for (uint32_t i = 0; i < o->ncs; i++)
        for (int l = 0; l < L__N; l++)
            lists[l] += o->cs[i].l[l].count;
    double span = o->last_done_ns > o->first_issue_ns ? (double)(o->last_done_ns - o->first_issue_ns) / 1e9 : 0;
    double iops = steady_iops(o);
    char name[48];
    int rc = 0;
    (void)end_ns;
    if (iops <= 0) /* too few ops for a steady window */
        iops = span > 0 ? (double)o->ops_done / span : 0;
    const struct { const char *name; double v; } m[] = {
        { "iops", iops },
        { "iops_whole_run", span > 0 ? (double)o->ops_done / span : 0 },
        { "bandwidth_bytes_per_s", o->ops_done ? iops * (double)o->bytes_done / (double)o->ops_done : 0 },
        { "ops_count", (double)o->ops_done },
        { "latency_mean_ns", o->ops_done ? (double)o->lat_sum_ns / (double)o->ops_done : 0 },
        { "trim_lock_ns", (double)o->trim_lock_ns },
        { "reads_count", (double)o->reads },
        { "writes_count", (double)o->writes },
        { "buffer_hit_ratio", o->reads ? (double)o->buf_hits / (double)o->reads : 0 },
        { "onode_hit_ratio", o->reads + o->writes ? (double)o->onode_hits / (double)(o->reads + o->writes) : 0 },
        { "records_skipped_count", (double)o->skipped },
        { "onodes_count", (double)o->n_onodes },
        { "buffers_count", (double)o->n_buffers },
        { "buffers_warm_in_count", (double)lists[L_WARM_IN] },
        { "buffers_hot_count", (double)lists[L_HOT] },
        { "buffers_warm_out_count", (double)lists[L_WARM_OUT] },
        { "shard_excess_peak_bytes", (double)o->trim.shard_excess_peak_bytes },
        { "autotune_tuned_bytes", (double)o->trim.tuned_bytes },
        /* a policy without a memory target: Ceph's default, which nothing reads then */
        { "osd_memory_target_bytes", o->trim.memory_target_bytes ? (double)o->trim.memory_target_bytes
                                                                 : (double)OSD_MEMORY_TARGET_DEFAULT },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0] && !rc; i++)
        rc = rs_result_set_metric(res, m[i].name, m[i].v, err);
    for (size_t i = 0; i < sizeof qs / sizeof qs[0] && !rc; i++) {
        snprintf(name, sizeof name, "latency_p%g_ns", qs[i]);
        rc = rs_result_set_metric(res, name, hist_quantile(o, qs[i] / 100.0), err);
    }
    return rc;
}

static const rs_daemon_slot slots[] = {
    [SLOT_TRIM] = { { .key = "trim", .type = RS_PT_STRING, .def = "bluestore-mempool",
                      .doc = "BlueStore trim policy (per shard): bluestore-mempool (Luminous "
                             "MempoolThread), bluestore-on-add (v15 trim-on-add), "
                             "bluestore-autotune (v15 PriorityCache)" },
                    .kind = RS_COMPONENT_TRIM, .offers = RS_TRIM_SHARDS },
    { { .key = NULL }, 0, 0 },
};

const rs_daemon_ops rs_daemon_osd = {
    .name = "osd",
    .doc = "BlueStore OSD: onode LRU + buffer 2Q in shards, Luminous/Octopus/autotune trimming, "
           "op shards and workers (IOPS, latency)",
    .params = params,
    .slots = slots,
    .trace_daemon = "osd",
    .create = osd_create,
    .destroy = osd_destroy,
    .op = osd_op,
    .stats = osd_stats,
    .metrics = osd_metrics,
};
