/*
 * kv.c — daemon "kv": a plain key/size cache replaying a kv trace
 * (libCacheSim style).  GET hits touch, GET misses insert the object (as a
 * read-through cache does), SET inserts or replaces, DEL removes, PIN/UNPIN
 * hold an object out of trimming.  The cache counts what its layout marks
 * tracked and is kept near kv_cache_limit by the run's trim policy.
 *
 * Keys are found through an open-addressing table (linear probing,
 * backward-shift deletion, load <= 3/4) whose 8-byte slots hold the object id
 * and a 32-bit fingerprint: the key itself when it is below 2^31 - 1 (keys
 * of generated traces are), else a flag bit and 31 bits of the key's hash.
 * A probe compares fingerprints and reads the object table only to confirm
 * a hashed one, so a hit on a small key costs one cache miss for its slot
 * and none for its object.  11 to 21 bytes per object.
 */
#include <stdlib.h>
#include <string.h>

#include "../cache/cache.h"
#include "../layout/objects.h"
#include "../../sim/registry.h"
#include "daemon.h"
#include "../../sim/hash.h"
#include "../../sim/mem.h"

typedef struct kv {
    rs_objects objs;
    rs_cache cache;
    rs_trim trim;
    rs_trim_target target;
    rs_trim_stats trim_stats;
    uint64_t limit_bytes, base_bytes;
    uint64_t accounted_peak_bytes, items_peak_count;
    uint32_t nthreads;    /* kv_threads: record.thread is taken modulo this */
    uint32_t op_thread;   /* the thread of the record being applied */
    int in_op;            /* a record is being applied (an on-insert trim runs on its thread) */
    uint64_t *slots;  /* (hash tag << 32) | (oid + 1); 0 = empty */
    uint64_t mask;    /* slots - 1 (a power of two minus one) */
    uint64_t nkeys;
} kv;

static const rs_param params[] = {
    { .key = "kv_cache_limit", .type = RS_PT_SIZE, .def = "64M",
      .doc = "the cache's limit on accounted bytes (what trims aim for)" },
    { .key = "kv_threads", .type = RS_PT_INT, .def = "1",
      .doc = "worker threads: a record runs on thread (its thread mod kv_threads); timer trims "
             "free on one more thread of their own, as Ceph's trimming threads do" },
    { .key = NULL },
};

#define SLOT_ID(s) ((uint32_t)(s) - 1)
#define SLOT_FP(s) ((s) >> 32)
#define FP_HASHED (1ull << 31)
#define SMALL_KEY_MAX (FP_HASHED - 2)
/* A key's home is bits 33..63 of its hash.  A hashed fingerprint carries
 * those bits, a small key is its own fingerprint, so moving or re-homing a
 * slot (backward-shift deletion, rehash) never reads the object table. */
#define HOME_OF_HASH(h) ((h) >> 33)

static inline uint64_t fingerprint(uint64_t key, uint64_t h)
{
    return key <= SMALL_KEY_MAX ? key + 1 : FP_HASHED | HOME_OF_HASH(h);
}

static inline uint64_t slot_home(const kv *k, uint64_t s)
{
    uint64_t fp = SLOT_FP(s);
    return (fp & FP_HASHED ? fp & ~FP_HASHED : HOME_OF_HASH(rs_hash64(fp - 1))) & k->mask;
}

/* Slot holding key (whose hash is h), or the empty slot where it would go. */
static inline uint64_t probe_h(const kv *k, uint64_t key, uint64_t h)
{
    uint64_t fp = fingerprint(key, h), i = HOME_OF_HASH(h) & k->mask;
    for (;;) {
        uint64_t s = k->slots[i];
        if (!s || (SLOT_FP(s) == fp && (!(fp & FP_HASHED) || k->objs.obj[SLOT_ID(s)].key == key)))
            return i;
        i = (i + 1) & k->mask;
    }
}

static inline uint64_t probe(const kv *k, uint64_t key)
{
    return probe_h(k, key, rs_hash64(key));
}

static int rehash(kv *k, uint64_t nslots, rs_err *err)
{
    uint64_t *old = k->slots;
    uint64_t oldn = old ? k->mask + 1 : 0;
    uint64_t *slots = nslots <= FP_HASHED ? rs_mem_calloc(nslots * sizeof *slots) : NULL; /* slot_home */

    if (!slots)
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu key slots", (unsigned long long)nslots);
    k->slots = slots;
    k->mask = nslots - 1;
    for (uint64_t i = 0; i < oldn; i++) {
        if (old[i]) {
            uint64_t j = slot_home(k, old[i]);
            while (k->slots[j])
                j = (j + 1) & k->mask;
            k->slots[j] = old[i];
        }
    }
    rs_mem_free(old);
    return 0;
}

static void slot_delete(kv *k, uint64_t i)
{
    /* Backward-shift deletion keeps probe sequences unbroken. */
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & k->mask;
        uint64_t s = k->slots[j];
        if (!s)
            break;
        uint64_t home = slot_home(k, s);
        /* move s to i if its home is not cyclically in (i, j] */
        if (((j - home) & k->mask) >= ((j - i) & k->mask)) {
            k->slots[i] = s;
            i = j;
        }
    }
    k->slots[i] = 0;
    k->nkeys--;
}

static void drop(kv *k, uint64_t slot, uint32_t thread, uint64_t now_ns, uint64_t *r_bytes)
{
    rs_oid id = SLOT_ID(k->slots[slot]);
    k->cache.ops->remove(k->cache.state, id);
    slot_delete(k, slot);
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

/* Evict LRU victims down to target_bytes.  A trim pass evicts thousands of
 * objects scattered through memory, so it looks TRIM_AHEAD victims ahead
 * (when the policy can say which come next) and prefetches in stages: the
 * far victim's links and object record, then its key slot and allocator
 * page-map entries, then the allocator's slab blocks. */
#define TRIM_AHEAD 8

static void trim_prefetch(const kv *k, rs_oid id, int stage)
{
    if (stage == 0) {
        if (k->cache.ops->prefetch)
            k->cache.ops->prefetch(k->cache.state, id, 0);
        rs_objects_prefetch(&k->objs, id, 0);
    } else if (stage == 1) {
        __builtin_prefetch(&k->slots[HOME_OF_HASH(rs_hash64(k->objs.obj[id].key)) & k->mask]);
        rs_objects_prefetch(&k->objs, id, 1);
    } else {
        rs_objects_prefetch(&k->objs, id, 2);
    }
}

static uint64_t trim_to(void *ctx, uint64_t target_bytes, uint64_t max_items, uint64_t now_ns,
                        uint64_t *r_bytes)
{
    kv *k = ctx;
    const rs_cache_ops *cops = k->cache.ops;
    rs_oid ahead[TRIM_AHEAD]; /* the victims after the current one, in order */
    unsigned nahead = 0;
    uint64_t items = 0;

    while (k->objs.accounted_bytes > target_bytes && (!max_items || items < max_items)) {
        rs_oid id = cops->victim(k->cache.state);
        if (id == RS_OID_NONE)
            break;
        if (cops->next_victim) {
            if (nahead && ahead[0] == id) {
                memmove(ahead, ahead + 1, --nahead * sizeof ahead[0]);
            } else {
                nahead = 0;
            }
            while (nahead < TRIM_AHEAD) {
                rs_oid next = cops->next_victim(k->cache.state, nahead ? ahead[nahead - 1] : id);
                if (next == RS_OID_NONE)
                    break;
                ahead[nahead++] = next;
                trim_prefetch(k, next, 0);
            }
            if (nahead > TRIM_AHEAD / 2)
                trim_prefetch(k, ahead[TRIM_AHEAD / 2 - 1], 1);
            if (nahead > 1)
                trim_prefetch(k, ahead[0], 2);
        }
        drop(k, probe(k, k->objs.obj[id].key), k->in_op ? k->op_thread : k->nthreads, now_ns,
             r_bytes);
        items++;
    }
    return items;
}

static int insert(kv *k, uint64_t slot, uint64_t h, const rs_rec *rec, rs_err *err)
{
    rs_oid id;
    int rc;

    if ((k->nkeys + 1) * 4 > (k->mask + 1) * 3) { /* load <= 3/4 */
        if ((rc = rehash(k, 2 * (k->mask + 1), err)))
            return rc;
        slot = probe_h(k, rec->key, h);
    }
    uint64_t accounted;
    if ((rc = rs_objects_add(&k->objs, rec->key, rec->size_bytes, 0, rec->thread, rec->t_ns, &id,
                             &accounted, err)))
        return rc;
    if ((rc = k->cache.ops->insert(k->cache.state, id, accounted, err))) {
        rs_objects_del(&k->objs, id, rec->thread, rec->t_ns);
        return rc;
    }
    k->slots[slot] = (fingerprint(rec->key, h) << 32) | ((uint64_t)id + 1);
    k->nkeys++;
    if (k->objs.accounted_bytes > k->accounted_peak_bytes)
        k->accounted_peak_bytes = k->objs.accounted_bytes;
    if (k->objs.live_count > k->items_peak_count)
        k->items_peak_count = k->objs.live_count;
    if (k->trim.ops->after_insert)
        k->trim.ops->after_insert(k->trim.state, rec->t_ns);
    return 0;
}

static int apply(kv *k, const rs_rec *rec, rs_err *err);

static int kv_op(void *state, const rs_rec *rec, rs_err *err)
{
    kv *k = state;
    rs_rec r = *rec;
    r.thread = (uint16_t)(rec->thread % k->nthreads);
    k->op_thread = r.thread;
    k->in_op = 1;
    int rc = apply(k, &r, err);
    k->in_op = 0;
    return rc;
}

static int apply(kv *k, const rs_rec *rec, rs_err *err)
{
    uint64_t h = rs_hash64(rec->key);
    uint64_t slot = probe_h(k, rec->key, h);
    uint64_t s = k->slots[slot];
    rs_oid id = SLOT_ID(s);

    switch (rec->op) {
    case RS_OP_GET:
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
            drop(k, slot, rec->thread, rec->t_ns, NULL);
            slot = probe_h(k, rec->key, h);
        }
        return insert(k, slot, h, rec, err);
    case RS_OP_DEL:
        if (s)
            drop(k, slot, rec->thread, rec->t_ns, NULL);
        return 0;
    case RS_OP_PIN:
        if (s)
            k->cache.ops->pin(k->cache.state, id);
        return 0;
    case RS_OP_UNPIN:
        if (s)
            k->cache.ops->unpin(k->cache.state, id);
        return 0;
    default:
        return rs_fail(err, RS_EINPUT, "daemon kv cannot replay op %u ('%s') at t_ns %llu",
                       rec->op, rs_op_name(rec->op) ? rs_op_name(rec->op) : "?",
                       (unsigned long long)rec->t_ns);
    }
}

/* Stage 0: the key's home slot; stage 1 (the slot is cached by then): the
 * object and its cache-policy links; stage 2: the links' neighbours. */
static void kv_prefetch(void *state, const rs_rec *rec, int stage)
{
    const kv *k = state;
    uint64_t h = rs_hash64(rec->key);
    uint64_t i = HOME_OF_HASH(h) & k->mask, s, fp = fingerprint(rec->key, h);
    if (stage == 0) {
        __builtin_prefetch(&k->slots[i]);
        return;
    }
    /* the key's slot: the first with its fingerprint along the probe
     * sequence, looked for within the home slot's cache line and the next */
    for (unsigned n = 0;; n++, i = (i + 1) & k->mask) {
        s = k->slots[i];
        if (!s || n == 16)
            return;
        if (SLOT_FP(s) == fp)
            break;
    }
    if (stage == 1 && ((fp & FP_HASHED) || rec->op != RS_OP_GET)) /* a small key's GET hit needs no object */
        __builtin_prefetch(&k->objs.obj[SLOT_ID(s)]);
    if (k->cache.ops->prefetch)
        k->cache.ops->prefetch(k->cache.state, SLOT_ID(s), stage - 1);
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
    rs_mem_free(k->slots);
    free(k);
}

static int kv_create(const rs_daemon_env *env, void **r_state, rs_err *err)
{
    const void *ops;
    int rc;
    kv *k = calloc(1, sizeof *k);

    if (!k)
        return rs_fail(err, RS_ENOMEM, "out of memory for daemon kv");
    k->limit_bytes = rs_config_size(env->cfg, "kv_cache_limit");
    int64_t nthreads = rs_config_int(env->cfg, "kv_threads");
    if (nthreads < 1 || nthreads > 65535) {
        free(k);
        return rs_fail(err, RS_EINPUT, "bad value '%lld' for key 'kv_threads': expected 1..65535",
                       (long long)nthreads);
    }
    k->nthreads = (uint32_t)nthreads;
    k->base_bytes = rs_config_size(env->cfg, "base_bytes");
    k->target = (rs_trim_target){
        .ctx = k, .used_bytes = used_bytes, .limit_bytes = limit_bytes, .trim_to = trim_to,
    };
    if ((rc = rs_objects_init(&k->objs, env->cfg, env->alloc, err)) ||
        (rc = rs_registry_get(&rs_reg_cache, rs_config_string(env->cfg, "cache"), &ops, err)))
        goto fail;
    k->cache.ops = ops;
    if ((rc = k->cache.ops->create(env->cfg, &k->cache.state, err))) {
        k->cache.ops = NULL;
        goto fail;
    }
    if ((rc = rehash(k, 1024, err)) ||
        (rc = rs_trim_create(env->cfg, env->engine, &k->target, &k->trim_stats, &k->trim, err)))
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
    };
}

const rs_daemon_ops rs_daemon_kv = {
    .name = "kv",
    .doc = "key/size cache: GET hit touches, miss inserts; SET inserts; DEL removes; PIN/UNPIN",
    .params = params,
    .trace_daemon = "kv",
    .create = kv_create,
    .destroy = kv_destroy,
    .op = kv_op,
    .prefetch = kv_prefetch,
    .stats = kv_stats,
};
