/*
 * fuzz_cache.c — libFuzzer target over every cache policy.
 *
 * The input is decoded as a stream of 11-byte operations on each policy of
 * the registry (so a new policy is fuzzed without an edit here): insert
 * (insert_at into a shard with a level hint when the policy is sharded),
 * touch, remove, pin/unpin, victim, trim_to a bound ("resize": the shard's
 * capacity from 0 to 2^64 - 1) and a victim/remove trim to a count, on 256
 * object ids.  Sizes are drawn over the whole u64 range (0, 1, small, 2^31,
 * 2^32 - 1, 2^32, 2^63, 2^64 - 1): an insert a policy cannot hold must fail
 * and leave it unchanged.  The fuzzer keeps its own copy of what the policy
 * holds (ids, shard, bytes, pins) and after every operation checks the
 * policy's own totals against it: count(), and for a sharded policy
 * list_usage of every shard and level (the objects and data bytes on that
 * level, a ghost's 0); a victim is held and not pinned, and none only when
 * every held object is pinned; trim_to reports only held objects, evicts no
 * pinned one (2Q's buffer trim, which has no pins in Ceph, excepted), and
 * with no pins in the shard leaves it within the bound.  Any violation
 * traps.  Build and run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "models/cache/cache.h"
#include "sim/registry.h"
#include "sim/schema.h"

enum { IDS = 256, OP_BYTES = 11, MAX_SHARDS = 4 };

typedef struct model {
    const rs_cache_ops *ops;
    void *st;
    uint8_t held[IDS], pinned[IDS];
    uint32_t shard[IDS];
    uint64_t bytes[IDS];
    uint64_t nheld;
    uint32_t nshards;
    int twoq;
    rs_oid trimming_shard;
} model;

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t draw(uint8_t cls, uint64_t raw)
{
    static const uint64_t edges[] = { 0, 1, (uint64_t)1 << 31, ((uint64_t)1 << 32) - 1,
                                      (uint64_t)1 << 32, (uint64_t)1 << 63, UINT64_MAX };
    switch (cls % 4) {
    case 0: case 1: return raw % 65536;
    case 2: return edges[raw % 7];
    default: return raw;
    }
}

static void on_trim(void *ctx, rs_oid id, int what)
{
    model *m = ctx;
    if (id >= IDS || !m->held[id] || m->shard[id] != m->trimming_shard)
        __builtin_trap(); /* trimmed what it does not hold, or another shard's */
    if (m->pinned[id] && !m->twoq)
        __builtin_trap(); /* evicted or demoted a pinned object */
    if (what == RS_CACHE_EVICTED) {
        m->held[id] = 0;
        m->pinned[id] = 0;
        m->nheld--;
    } else if (what == RS_CACHE_DEMOTED) {
        m->bytes[id] = 0; /* a ghost keeps no data */
    } else {
        __builtin_trap();
    }
}

static void check(model *m)
{
    const rs_cache_ops *c = m->ops;
    if (c->count(m->st) != m->nheld)
        __builtin_trap();
    if (!c->list_usage)
        return;
    uint64_t n[MAX_SHARDS][RS_CACHE_LEVELS] = { { 0 } }, b[MAX_SHARDS][RS_CACHE_LEVELS] = { { 0 } };
    for (rs_oid id = 0; id < IDS; id++) {
        if (!m->held[id])
            continue;
        int l = c->level(m->st, id);
        if (l < 0 || l >= RS_CACHE_LEVELS || m->shard[id] >= m->nshards)
            __builtin_trap();
        n[m->shard[id]][l]++;
        b[m->shard[id]][l] += m->bytes[id];
    }
    for (uint32_t s = 0; s < m->nshards; s++) {
        /* ALL: a one-list policy's list, or what trim_to bounds (warm_in + hot) */
        n[s][RS_CACHE_LEVEL_ALL] += n[s][RS_CACHE_LEVEL_WARM_IN] + n[s][RS_CACHE_LEVEL_HOT];
        b[s][RS_CACHE_LEVEL_ALL] += b[s][RS_CACHE_LEVEL_WARM_IN] + b[s][RS_CACHE_LEVEL_HOT];
        for (int l = 0; l < RS_CACHE_LEVELS; l++) {
            uint64_t cn, cb;
            c->list_usage(m->st, s, l, &cn, &cb);
            if (cn != n[s][l] || cb != b[s][l])
                __builtin_trap(); /* the policy's totals are not what it holds */
        }
    }
}

static int any_pinned(const model *m, uint32_t s)
{
    for (rs_oid id = 0; id < IDS; id++)
        if (m->held[id] && m->pinned[id] && m->shard[id] == s)
            return 1;
    return 0;
}

static void run_policy(const rs_cache_ops *c, const rs_config *cfg, const uint8_t *data, size_t size)
{
    static model m;
    rs_err err = { 0 };

    memset(&m, 0, sizeof m);
    m.ops = c;
    m.nshards = 1;
    m.twoq = strstr(c->name, "2q") != NULL;
    if (c->create(cfg, &m.st, &err))
        __builtin_trap();
    if (size && c->set_shards) {
        /* an impossible count must be refused; then a good one */
        if (data[0] & 0x80 && !c->set_shards(m.st, data[0] & 1 ? 0 : UINT16_MAX + 2u, &err))
            __builtin_trap();
        m.nshards = 1 + data[0] % MAX_SHARDS;
        if (c->set_shards(m.st, m.nshards, &err))
            __builtin_trap();
    }
    for (size_t off = 1; off + OP_BYTES <= size; off += OP_BYTES) {
        uint8_t b = data[off];
        rs_oid id = (rs_oid)((data[off + 1] | data[off + 2] << 8) % IDS);
        uint64_t raw = le64(data + off + 3);
        switch (b % 8) {
        case 0: case 1: /* insert */
            if (!m.held[id]) {
                uint64_t n = draw((uint8_t)(b >> 3), raw >> 8);
                uint32_t s = (uint32_t)(raw & 0xff) % m.nshards;
                static const int hints[] = { RS_CACHE_LEVEL_ALL, RS_CACHE_LEVEL_HOT,
                                             RS_CACHE_LEVEL_WARM_OUT, RS_CACHE_LEVEL_WARM_IN };
                int rc = c->insert_at ? c->insert_at(m.st, id, n, s, hints[(b >> 6) & 3], &err)
                                      : c->insert(m.st, id, n, &err);
                if (rc == 0) {
                    if (c->insert_at && n > UINT32_MAX)
                        __builtin_trap(); /* a charge the policy cannot hold taken */
                    m.held[id] = 1;
                    m.shard[id] = c->insert_at ? s : 0;
                    m.bytes[id] = n;
                    m.nheld++;
                }
            }
            break;
        case 2:
            if (m.held[id])
                c->touch(m.st, id);
            break;
        case 3:
            if (m.held[id]) {
                c->remove(m.st, id);
                m.held[id] = m.pinned[id] = 0;
                m.nheld--;
            }
            break;
        case 4:
            if (m.held[id]) {
                if (m.pinned[id])
                    c->unpin(m.st, id);
                else
                    c->pin(m.st, id);
                m.pinned[id] ^= 1;
            }
            break;
        case 5: { /* victim */
            rs_oid v = c->victim(m.st);
            if (v == RS_OID_NONE) {
                for (rs_oid i = 0; i < IDS; i++)
                    if (m.held[i] && !m.pinned[i])
                        __builtin_trap(); /* no victim while one is unpinned */
            } else if (v >= IDS || !m.held[v] || m.pinned[v]) {
                __builtin_trap();
            }
            break;
        }
        case 6: /* trim_to a bound: the shard's capacity over the whole range */
            if (c->trim_to) {
                uint32_t s = (uint32_t)(raw & 0xff) % m.nshards;
                uint64_t max = draw((uint8_t)(b >> 3), raw >> 8);
                m.trimming_shard = s;
                c->trim_to(m.st, s, max, on_trim, &m);
                if (!any_pinned(&m, s)) {
                    uint64_t cn, cb;
                    c->list_usage(m.st, s, RS_CACHE_LEVEL_ALL, &cn, &cb);
                    if ((c->trim_bytes ? cb : cn) > max)
                        __builtin_trap(); /* left over the bound */
                }
            }
            break;
        default: { /* the generic trim: victims removed to a count */
            uint64_t target = raw % (m.nheld + 1);
            while (m.nheld > target) {
                rs_oid v = c->victim(m.st);
                if (v == RS_OID_NONE)
                    break;
                if (v >= IDS || !m.held[v] || m.pinned[v])
                    __builtin_trap();
                c->remove(m.st, v);
                m.held[v] = 0;
                m.nheld--;
            }
            break;
        }
        }
        check(&m);
    }
    for (rs_oid id = 0; id < IDS; id++)
        if (m.held[id]) {
            c->remove(m.st, id);
            m.held[id] = 0;
            m.nheld--;
        }
    check(&m);
    c->destroy(m.st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rs_config *cfg; /* the defaults: made once, only read */
    rs_err err = { 0 };

    if (!cfg && rs_config_new(&cfg, &err))
        __builtin_trap();
    for (size_t i = 0; i < rs_reg_cache.count; i++)
        run_policy(rs_reg_cache.entries[i], cfg, data, size);
    return 0;
}
