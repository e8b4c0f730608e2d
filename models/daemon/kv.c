/*
 * kv.c — daemon "kv": a plain key/size cache replaying a kv trace
 * (libCacheSim style).  GET hits touch, GET misses insert the object (as a
 * read-through cache does), SET inserts or replaces, DEL removes, PIN/UNPIN
 * hold an object out of trimming.  The cache counts what its layout marks
 * tracked and is kept near kv_cache_limit (and at most
 * kv_cache_limit_objects objects, when set) by the run's trim policy.
 * Every GET is a hit or a miss; an object whose accounted bytes exceed
 * kv_cache_limit is not admitted (libCacheSim cache_can_insert_default), so
 * it stays a miss and flushes nothing (docs/models.md, "Hits and misses").
 *
 * Keys are found through an rs_idmap (sim/idmap.h): a hit on a small key
 * reads its slot and no object record.  11 to 21 bytes per object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cache/cache.h"
#include "../cache/lookahead.h"
#include "../layout/objects.h"
#include "daemon.h"
#include "../../sim/base/hash.h"
#include "../../sim/base/idmap.h"
#include "../../sim/base/mod.h"

typedef struct kv {
    rs_objects objs;
    rs_cache cache;
    rs_trim trim;
    rs_trim_target target;
    rs_trim_stats trim_stats;
    uint64_t limit_bytes, base_bytes;
    uint64_t limit_objects; /* kv_cache_limit_objects; 0: no count limit */
    int bytes_bound;        /* the byte limit applies (not count-only) */
    int exact;              /* exact != none: PIN/UNPIN are refused (a pin is no LRU's) */
    rs_cache_hits hits;     /* GETs */
    uint64_t accounted_peak_bytes, items_peak_count;
    uint32_t nthreads;    /* kv_threads: record.thread is taken modulo this */
    uint32_t op_thread;   /* the thread of the record being applied (its thread mod nthreads) */
    int in_op;            /* a record is being applied (an on-insert trim runs on its thread) */
    rs_idmap keys;        /* key -> object id */
} kv;

static const rs_param params[] = {
    { .key = "kv_cache_limit", .type = RS_PT_SIZE, .def = "64M",
      .doc = "the cache's limit on accounted bytes (what trims aim for); an object whose accounted "
             "bytes exceed it is not admitted. 0 with kv_cache_limit_objects set: no byte limit" },
    { .key = "kv_cache_limit_objects", .type = RS_PT_INT, .def = "0",
      .doc = "the cache's limit on objects (0: none); with kv_cache_limit also set the cache "
             "holds at most both (trims evict while either is exceeded)",
      .range = "[0, 4294967295]" },
    { .key = "exact", .type = RS_PT_STRING, .def = "none", .choices = "none|lru|fifo",
      .doc = "the run must be an exact LRU or FIFO cache simulator (cache policy of that name, "
             "a trim on every insert and at no other time, accounted bytes = object bytes); "
             "checked when the run starts" },
    { .key = "kv_threads", .type = RS_PT_INT, .def = "1",
      .doc = "worker threads: a record runs on thread (its thread mod kv_threads); timer trims "
             "free on one more thread of their own, as Ceph's trimming threads do",
      .range = "[1, 65535]" },
    { .key = NULL },
};

static uint64_t key_of(const void *ctx, uint32_t id)
{
    return ((const kv *)ctx)->objs.obj[id].key;
}

/* The slot holding key (whose hash is h), or the empty slot where it goes. */
static inline uint64_t probe_h(const kv *k, uint64_t key, uint64_t h)
{
    return rs_idmap_probe(&k->keys, key, h, key_of, k);
}

static inline uint64_t probe(const kv *k, uint64_t key)
{
    return probe_h(k, key, rs_hash64(key));
}

static void drop(kv *k, uint64_t slot, uint32_t thread, uint64_t now_ns, uint64_t *r_bytes)
{
    rs_oid id = rs_idmap_id(&k->keys, slot);
    k->cache.ops->remove(k->cache.state, id);
    rs_idmap_delete(&k->keys, slot);
    uint64_t bytes = rs_objects_del(&k->objs, id, thread, now_ns);
    if (r_bytes)
        *r_bytes += bytes;
}

static uint64_t used_bytes(void *ctx)
{
    return ((kv *)ctx)->objs.accounted_bytes;
}

static uint64_t limit_bytes(void *ctx)
{
    return ((kv *)ctx)->limit_bytes;
}

/* Past a byte target (when bytes bound the cache) or the object limit. */
static int over_(const kv *k, uint64_t target_bytes)
{
    return (k->bytes_bound && k->objs.accounted_bytes > target_bytes) ||
           (k->limit_objects && k->objs.live_count > k->limit_objects);
}

static int over(void *ctx, uint64_t limit)
{
    return over_(ctx, limit);
}

/* What evicting id touches, by stage (models/cache/lookahead.h): its links
 * and object record, then its key slot and allocator page-map entries,
 * then the allocator's slab blocks and span records, then what those lead
 * to (alloc.h, stage 2). */
static void trim_prefetch(const void *ctx, rs_oid id, int stage)
{
    const kv *k = ctx;
    if (stage == 0) {
        if (k->cache.ops->prefetch)
            k->cache.ops->prefetch(k->cache.state, id, 0);
        rs_objects_prefetch(&k->objs, id, 0);
    } else if (stage == 1) {
        rs_idmap_prefetch(&k->keys, rs_hash64(k->objs.obj[id].key));
        rs_objects_prefetch(&k->objs, id, 1);
    } else {
        rs_objects_prefetch(&k->objs, id, stage);
    }
}

/* Evict the policy's victims down to target_bytes and the object limit,
 * prefetching the ones after. */
static uint64_t trim_to(void *ctx, uint64_t target_bytes, uint64_t max_items, uint64_t now_ns,
                        uint64_t *r_bytes)
{
    kv *k = ctx;
    const rs_cache_ops *cops = k->cache.ops;
    rs_lookahead ahead = { .n = 0 };
    uint64_t items = 0;

    while (over_(k, target_bytes) && (!max_items || items < max_items)) {
        rs_oid id = cops->victim(k->cache.state);
        if (id == RS_OID_NONE)
            break;
        if (cops->next_victim)
            rs_lookahead_step(&ahead, id, cops->next_victim, k->cache.state, trim_prefetch, k);
        drop(k, probe(k, k->objs.obj[id].key), k->in_op ? k->op_thread : k->nthreads, now_ns,
             r_bytes);
        items++;
    }
    return items;
}

/* Insert rec's object, unless it is larger than the cache: an object whose
 * accounted bytes exceed the byte limit is not admitted (libCacheSim
 * cache_can_insert_default: obj_size > cache_size), so it neither enters
 * nor evicts anything. */
static int insert(kv *k, uint64_t slot, uint64_t h, const rs_rec *rec, rs_err *err)
{
    rs_oid id;
    int rc;

    uint64_t before = k->keys.mask;
    if ((rc = rs_idmap_reserve(&k->keys, err)))
        return rc;
    if (k->keys.mask != before) /* it grew: the key's slot moved */
        slot = probe_h(k, rec->key, h);
    uint64_t accounted;
    if ((rc = rs_objects_add(&k->objs, rec->key, rec->size_bytes, 0, k->op_thread, rec->t_ns, &id,
                             &accounted, err)))
        return rc;
    if (id == RS_OID_NONE)
        return 0; /* larger than the cache (objs.admit_max): not admitted */
    if ((rc = k->cache.ops->insert(k->cache.state, id, accounted, err))) {
        rs_objects_del(&k->objs, id, k->op_thread, rec->t_ns);
        return rc;
    }
    rs_idmap_put(&k->keys, slot, rec->key, h, (uint32_t)id);
    if (k->objs.accounted_bytes > k->accounted_peak_bytes)
        k->accounted_peak_bytes = k->objs.accounted_bytes;
    if (k->objs.live_count > k->items_peak_count)
        k->items_peak_count = k->objs.live_count;
    if (k->trim.ops->after_insert)
        k->trim.ops->after_insert(k->trim.state, rec->t_ns);
    return 0;
}

/* The memo kv_prefetch keeps on a record: word[0] the key's hash, word[1]
 * MEMO_HASHED, | MEMO_GUESSED once stage 1 looked for the key's slot, with
 * what it found in the high half: the slot's id + 1 (0: none), and in bits
 * 8..15 the slot's distance from the key's home.  Working the hash out once
 * per record, not at every stage and again in the op, made a replay a
 * tenth faster; the op checks the slot found first (find_slot). */
#define MEMO_HASHED 1u
#define MEMO_GUESSED 2u
#define MEMO_DIST_SHIFT 8

static uint64_t memo_hash(const rs_rec *rec, const rs_memo *memo)
{
    return memo && (memo->word[1] & MEMO_HASHED) ? memo->word[0] : rs_hash64(rec->key);
}

/* rs_idmap_guess, noting where: word[1]'s guess bits for the slot within
 * 16 of the key's home holding its fingerprint (unconfirmed), or none. */
static uint64_t guess(const rs_idmap *m, uint64_t key, uint64_t h)
{
    uint64_t dist = 0, s = rs_idmap_guess_slot(m, key, h, &dist);
    return s ? MEMO_GUESSED | dist << MEMO_DIST_SHIFT | s << 32 : MEMO_GUESSED;
}

/* The key's slot, as probe_h finds it: first the slot stage 1 found, if it
 * still holds the key's fingerprint and id (keys are unique, so that slot
 * is the key's; a hashed fingerprint is confirmed by the key, as a probe
 * confirms it), else a probe (a miss, or a key moved by a deletion or a
 * growth since).  A hit then reads one slot, not the probe's run. */
static inline uint64_t find_slot(const kv *k, uint64_t key, uint64_t h, const rs_memo *memo)
{
    uint64_t w = memo ? memo->word[1] : 0;
    if ((w & MEMO_GUESSED) && (w >> 32)) {
        uint64_t fp = rs_idmap_fingerprint(key, h);
        uint64_t i = (rs_idmap_home(&k->keys, h) + ((w >> MEMO_DIST_SHIFT) & 0xff)) & k->keys.mask;
        uint64_t s = k->keys.slots[i];
        if (s == (fp << 32 | w >> 32) &&
            (!(fp & RS_IDMAP_HASHED) || key_of(k, (uint32_t)s - 1) == key))
            return i;
    }
    return probe_h(k, key, h);
}

static int apply(kv *k, const rs_rec *rec, uint64_t h, const rs_memo *memo, rs_err *err);

static int kv_op(void *state, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    kv *k = state;
    k->op_thread = (uint32_t)rs_mod64(rec->thread, k->nthreads);
    k->in_op = 1;
    int rc = apply(k, rec, memo_hash(rec, memo), memo, err);
    k->in_op = 0;
    return rc;
}

static int apply(kv *k, const rs_rec *rec, uint64_t h, const rs_memo *memo, rs_err *err)
{
    uint64_t slot = find_slot(k, rec->key, h, memo);
    rs_oid id = rs_idmap_id(&k->keys, slot);
    int s = id != RS_IDMAP_NONE; /* the key is cached */

    switch (rec->op) {
    case RS_OP_GET:
        rs_cache_count(&k->hits, s, rec->size_bytes);
        if (s) {
            k->cache.ops->touch(k->cache.state, id);
            return 0;
        }
        return insert(k, slot, h, rec, err);
    case RS_OP_SET:
        if (s) {
            if (k->objs.obj[id].bytes == rec->size_bytes) {
                k->cache.ops->touch(k->cache.state, id);
                return 0;
            }
            drop(k, slot, k->op_thread, rec->t_ns, NULL);
            slot = probe_h(k, rec->key, h);
        }
        return insert(k, slot, h, rec, err);
    case RS_OP_DEL:
        if (s)
            drop(k, slot, k->op_thread, rec->t_ns, NULL);
        return 0;
    case RS_OP_PIN:
    case RS_OP_UNPIN:
        if (k->exact)
            return rs_fail(err, RS_EINPUT, "op %s at t_ns %llu: an exact cache (exact = %s) has no "
                           "pinned objects; replay it with exact=none", rs_op_name(rec->op),
                           (unsigned long long)rec->t_ns, k->cache.ops->name);
        if (rec->op == RS_OP_UNPIN) {
            if (s)
                k->cache.ops->unpin(k->cache.state, id);
            return 0;
        }
        if (s)
            k->cache.ops->pin(k->cache.state, id);
        return 0;
    default:
        return rs_fail(err, RS_EINPUT, "daemon kv cannot replay op %u ('%s') at t_ns %llu",
                       rec->op, rs_op_name(rec->op) ? rs_op_name(rec->op) : "?",
                       (unsigned long long)rec->t_ns);
    }
}

/* Stage 0: the key's home slot; stage 1 (the slot is cached by then): the
 * object and its cache-policy links; stage 2: the links' neighbours.  Each
 * stage does only its own work: it is called three times a record. */
static void kv_prefetch(void *state, const rs_rec *rec, rs_memo *memo, int stage)
{
    const kv *k = state;
    if (stage == 0) {
        uint64_t h = rs_hash64(rec->key);
        memo->word[0] = h;
        memo->word[1] = MEMO_HASHED;
        rs_idmap_prefetch(&k->keys, h);
        return;
    }
    uint64_t w = memo->word[1];
    if (!(w & MEMO_GUESSED)) {
        uint64_t h = memo_hash(rec, memo);
        w = memo->word[1] = MEMO_HASHED | guess(&k->keys, rec->key, h);
        memo->word[0] = h;
        /* a GET hit on a small key reads no object record */
        if ((w >> 32) && (rs_idmap_fingerprint(rec->key, h) & RS_IDMAP_HASHED || rec->op != RS_OP_GET))
            __builtin_prefetch(&k->objs.obj[(w >> 32) - 1]);
    }
    if ((w >> 32) && k->cache.ops->prefetch)
        k->cache.ops->prefetch(k->cache.state, (rs_oid)((w >> 32) - 1), stage - 1);
}

static void kv_destroy(void *state)
{
    kv *k = state;
    if (!k)
        return;
    rs_trim_destroy(&k->trim);
    if (k->cache.ops)
        k->cache.ops->destroy(k->cache.state);
    rs_objects_release(&k->objs);
    rs_idmap_release(&k->keys);
    free(k);
}

enum { SLOT_CACHE, SLOT_LAYOUT, SLOT_TRIM };
static const rs_daemon_slot slots[] = {
    [SLOT_CACHE] = { { .key = "cache", .type = RS_PT_STRING, .def = "lru",
                       .doc = "cache policy: which object goes next (rssim list cache)" },
                     RS_COMPONENT_CACHE },
    [SLOT_LAYOUT] = { { .key = "layout", .type = RS_PT_STRING, .def = "kv-map",
                        .doc = "the allocations an object makes (rssim list layout)" },
                      RS_COMPONENT_LAYOUT },
    [SLOT_TRIM] = { { .key = "trim", .type = RS_PT_STRING, .def = "periodic",
                      .doc = "when the cache is trimmed (rssim list trim)" },
                    RS_COMPONENT_TRIM },
    { { .key = NULL }, 0 },
};

/* exact = lru|fifo holds only if the run is that cache simulator: the
 * policy of that name, a trim to the limit after every insert and never
 * else (rs_trim_ops.exact), and a layout whose accounted bytes are the
 * object's bytes, so the limit is on object bytes as in libCacheSim. */
static int check_exact(kv *k, const rs_daemon_env *env, rs_err *err)
{
    const char *want = rs_config_string(env->cfg, "exact");
    const rs_trim_ops *tops = env->parts[SLOT_TRIM];
    const char *why = NULL;
    char buf[200];

    if (!strcmp(want, "none"))
        return 0;
    k->exact = 1;
    if (strcmp(k->cache.ops->name, want)) {
        snprintf(buf, sizeof buf, "needs cache=%s (this run: cache=%s)", want, k->cache.ops->name);
        why = buf;
    } else if (!tops->exact) {
        snprintf(buf, sizeof buf, "needs a trim on every insert and at no other time, trim=on-insert "
                 "(this run: trim=%s)", tops->name);
        why = buf;
    } else {
        static const uint64_t sizes[] = { 1, 100, 4096, 1000000 };
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            if (rs_objects_accounted_of(&k->objs, sizes[i], 0) != sizes[i]) {
                snprintf(buf, sizeof buf, "needs a layout whose accounted bytes are the object's "
                         "(layout=kv-object, or kv-map with kv_containers_tracked=false; this "
                         "run: an object of %llu bytes accounts %llu)", (unsigned long long)sizes[i],
                         (unsigned long long)rs_objects_accounted_of(&k->objs, sizes[i], 0));
                why = buf;
                break;
            }
    }
    return why ? rs_config_bad_value(env->cfg, "exact", why, err) : 0;
}

static int kv_create(const rs_daemon_env *env, void **r_state, rs_err *err)
{
    int rc;
    kv *k = calloc(1, sizeof *k);

    if (!k)
        return rs_fail(err, RS_ENOMEM, "out of memory for daemon kv");
    k->limit_bytes = rs_config_size(env->cfg, "kv_cache_limit");
    k->limit_objects = (uint64_t)rs_config_int(env->cfg, "kv_cache_limit_objects");
    k->bytes_bound = !(k->limit_objects && !k->limit_bytes);
    k->nthreads = (uint32_t)rs_config_int(env->cfg, "kv_threads");
    k->base_bytes = rs_config_size(env->cfg, "base_bytes");
    k->target = (rs_trim_target){
        .ctx = k, .used_bytes = used_bytes, .limit_bytes = limit_bytes, .trim_to = trim_to,
        .over = over,
    };
    if ((rc = rs_objects_init(&k->objs, env->parts[SLOT_LAYOUT], env->cfg, env->alloc, err)))
        goto fail;
    if (k->bytes_bound) /* admission: nothing larger than the byte limit */
        k->objs.admit_max = k->limit_bytes;
    k->cache.ops = env->parts[SLOT_CACHE];
    if ((rc = k->cache.ops->create(env->cfg, &k->cache.state, err))) {
        k->cache.ops = NULL;
        goto fail;
    }
    const rs_trim_ops *tops = env->parts[SLOT_TRIM];
    if (k->limit_objects && !tops->counts) {
        char why[200];
        snprintf(why, sizeof why, "trim policy '%s' bounds bytes only; an object limit needs "
                 "trim=periodic or trim=on-insert", tops->name);
        rc = rs_config_bad_value(env->cfg, "kv_cache_limit_objects", why, err);
        goto fail;
    }
    if ((rc = check_exact(k, env, err)))
        goto fail;
    if ((rc = rs_idmap_init(&k->keys, 1024, err)) ||
        (rc = rs_trim_create(env->parts[SLOT_TRIM], env->cfg, env->engine, &k->target,
                             &k->trim_stats, &k->trim, err)))
        goto fail;
    *r_state = k;
    return 0;
fail:
    kv_destroy(k);
    return rc;
}

static void kv_stats(const void *state, rs_daemon_stats *r)
{
    const kv *k = state;
    *r = (rs_daemon_stats){
        .accounted_bytes = k->objs.accounted_bytes,
        .untracked_bytes = k->objs.untracked_bytes,
        .limit_bytes = k->limit_bytes,
        .base_bytes = k->base_bytes,
        .items_count = k->objs.live_count,
        .accounted_peak_bytes = k->accounted_peak_bytes,
        .items_peak_count = k->items_peak_count,
        .trim = k->trim_stats,
        .hits = k->hits,
    };
}

static int kv_metrics(const void *state, uint64_t end_ns, rs_result *res, rs_err *err)
{
    const kv *k = state;
    (void)end_ns;
    return rs_daemon_hit_metrics(res, "", &k->hits, err);
}

const rs_daemon_ops rs_daemon_kv = {
    .name = "kv",
    .doc = "key/size cache: GET hit touches, miss inserts; SET inserts; DEL removes; PIN/UNPIN",
    .params = params,
    .slots = slots,
    .trace_daemon = "kv",
    .limit_key = "kv_cache_limit",
    .create = kv_create,
    .destroy = kv_destroy,
    .op = kv_op,
    .prefetch = kv_prefetch,
    .stats = kv_stats,
    .metrics = kv_metrics,
};
