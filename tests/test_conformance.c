/*
 * test_conformance.c — every entry of every registry, checked by the rules
 * of its kind.  A new plug-in is covered the moment it is registered.
 *   all:        unique name, a doc line, parameter defaults that parse;
 *   allocator:  usable >= requested; requested <= allocated and
 *               requested <= active <= resident <= mapped (alloc.h) after
 *               every operation; requested and
 *               live_count equal the recomputed sums; all freed => active 0;
 *   cache:      victims are never pinned; NONE only when all left are pinned;
 *               count() is right after every call; a sharded, list-level
 *               policy (cache.h's optional slots): a trim_to brings its
 *               shard to the target or stops only with pinned objects left
 *               in it (a count trim at most one over per pinned object,
 *               unless its skip budget ran out; run with a budget of 8 and
 *               of 10^9), evicts and demotes only what it holds, never a
 *               pinned object when it keeps pins in place, its ghosts
 *               (WARM_OUT) hold no data bytes, and every shard's and
 *               level's counts and bytes equal the recomputed ones;
 *   layout:     1..max_parts parts, sizes > 0, a tracked part, pure;
 *   trim:       accounted never above the target right after a trim pass,
 *               and the policy does trim an over-full cache; a sharded
 *               policy (RS_TRIM_SHARDS) on a fake sharded target: it trims,
 *               its counters match the evictions, the cache stays within
 *               its limit plus what arrived since its last trim;
 *   trace fmt:  records written are the records read back;
 *   generator:  makes a readable trace of its daemon kind;
 *   daemon:     replays a generated trace of its kind end to end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/schema.h"
#include "check.h"
#include "models/alloc/alloc.h"
#include "models/cache/cache.h"
#include "models/daemon/daemon.h"
#include "models/layout/layout.h"
#include "models/trim/trim.h"
#include "sim/base/config.h"
#include "sim/registry.h"
#include "sim/run.h"
#include "traces/gen/gen.h"
#include "traces/import_block.h"
#include "traces/trace.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static rs_config *default_config(void)
{
    rs_config *cfg;
    rs_err err;
    if (rs_config_new(&cfg, &err))
        abort();
    return cfg;
}

/* A default parses and lies in the key's range (a range that does not
 * parse refuses every value, its default too). */
static void check_param(const rs_param *p, const char *kind, const char *owner)
{
    char why[96];
    CHECK_MSG(rs_param_check(p->type, p->def) == 0, "%s '%s': default '%s' of '%s'", kind, owner,
              p->def, p->key);
    CHECK_MSG(rs_param_check_range(p, p->def, why, sizeof why) == 0, "%s '%s': default '%s' of '%s': %s",
              kind, owner, p->def, p->key, why);
    CHECK_MSG(p->doc && *p->doc, "param '%s' has no doc", p->key);
    CHECK_MSG(!p->choices || (p->type == RS_PT_STRING && *p->choices), "param '%s': choices on a non-string",
              p->key);
    CHECK_MSG(rs_param_check_choice(p, p->def, why, sizeof why) == 0, "%s '%s': default '%s' of '%s': %s",
              kind, owner, p->def, p->key, why);
}

static void check_common(void)
{
    for (const rs_registry *const *reg = rs_registries; *reg; reg++) {
        CHECK((*reg)->count > 0);
        for (size_t i = 0; i < (*reg)->count; i++) {
            const char *const *ops = (*reg)->entries[i];
            CHECK_MSG(ops[0] && *ops[0], "%s %zu has no name", (*reg)->kind, i);
            CHECK_MSG(ops[1] && *ops[1], "%s '%s' has no doc", (*reg)->kind, ops[0]);
            for (size_t j = 0; j < i; j++)
                CHECK_MSG(strcmp(rs_registry_name(*reg, j), ops[0]) != 0, "%s '%s' twice",
                          (*reg)->kind, ops[0]);
            for (const rs_param *p = rs_registry_params(*reg, i); p && p->key; p++)
                check_param(p, (*reg)->kind, ops[0]);
        }
    }
    for (const rs_param *p = rs_core_params; p->key; p++)
        check_param(p, "core", "rssim");
}

static int ordered(const rs_alloc_stats *s)
{
    return rs_alloc_stats_ordered(s);
}

/* The optional fields a model does not declare in .reports stay 0. */
static int reports_match(const rs_alloc_ops *ops, const rs_alloc_stats *s)
{
    const struct { uint32_t bit; uint64_t v; } f[] = {
        { RS_ALLOC_F_THREAD_CACHED, s->thread_cached_bytes },
        { RS_ALLOC_F_HEAP, s->heap_bytes },
        { RS_ALLOC_F_UNMAPPED, s->unmapped_bytes },
        { RS_ALLOC_F_CENTRAL_CACHED, s->central_cached_bytes },
        { RS_ALLOC_F_TRANSFER_CACHED, s->transfer_cached_bytes },
        { RS_ALLOC_F_PAGEHEAP_FREE, s->pageheap_free_bytes },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!(ops->reports & f[i].bit) && f[i].v)
            return 0;
    return (ops->reports & RS_ALLOC_F_CORE) == 0;
}

/* A real library is described fully, and its replay setting is one of the
 * model's parameters with a valid value. */
static void check_real(const rs_alloc_ops *ops)
{
    const rs_alloc_real *r = ops->real;
    if (!r)
        return;
    CHECK_MSG(r->package && *r->package && r->lib_tag && *r->lib_tag, "%s: real library half described",
              ops->name);
    CHECK_MSG(r->reports & RS_ALLOC_F_ALLOCATED, "%s: real library reports no allocated bytes",
              ops->name);
    CHECK_MSG(!r->replay_env || strchr(r->replay_env, '='), "%s: replay_env '%s' is not NAME=value",
              ops->name, r->replay_env);
    if (r->replay_set) {
        rs_config *cfg = default_config();
        rs_err err;
        char key[128];
        const char *eq = strchr(r->replay_set, '=');
        CHECK_MSG(eq && (size_t)(eq - r->replay_set) < sizeof key, "%s: replay_set '%s'", ops->name,
                  r->replay_set);
        if (eq) {
            snprintf(key, sizeof key, "%.*s", (int)(eq - r->replay_set), r->replay_set);
            int known = 0;
            for (const rs_param *p = ops->params; p && p->key; p++)
                known |= strcmp(p->key, key) == 0;
            CHECK_MSG(known, "%s: replay_set key '%s' is not one of its parameters", ops->name, key);
            CHECK_MSG(rs_config_set(cfg, key, eq + 1, &err) == 0 && rs_config_validate(cfg, &err) == 0,
                      "%s: replay_set '%s': %s", ops->name, r->replay_set, err.msg);
        }
        rs_config_free(cfg);
    }
}

static void check_allocator(const rs_alloc_ops *ops)
{
    enum { SLOTS = 4096, OPS = 200000 };
    static rs_addr addr[SLOTS];
    static uint64_t size[SLOTS];
    rs_config *cfg = default_config();
    rs_err err;
    void *st;
    uint64_t live_bytes = 0, live = 0;
    int bad_order = 0, bad_sum = 0, bad_usable = 0, bad_reports = 0;

    memset(addr, 0, sizeof addr);
    CHECK_MSG(ops->create(cfg, &st, &err) == 0, "%s: %s", ops->name, err.msg);
    for (uint64_t n = 1; n < 70000; n += 1 + n / 7)
        if (ops->usable_size(st, n) < n)
            bad_usable++;
    for (int i = 0; i < OPS; i++) {
        int k = (int)(rnd() % SLOTS);
        if (addr[k]) {
            ops->free(st, addr[k], size[k], 0, (uint64_t)i * 1000);
            live_bytes -= size[k];
            live--;
            addr[k] = 0;
        } else {
            uint64_t r = rnd() % 100;
            size[k] = r < 80 ? 1 + rnd() % 600 : r < 97 ? 1 + rnd() % 20000 : 1 + rnd() % 400000;
            addr[k] = ops->alloc(st, size[k], 0, (uint64_t)i * 1000);
            CHECK(addr[k] != 0);
            live_bytes += size[k];
            live++;
        }
        if (ops->advance && i % 1000 == 0)
            ops->advance(st, (uint64_t)i * 1000);
        if (i % 97 == 0) {
            rs_alloc_stats s;
            ops->stats(st, &s);
            bad_order += !ordered(&s);
            bad_sum += s.requested_bytes != live_bytes || s.live_count != live;
            bad_reports += !reports_match(ops, &s);
        }
        if (ops->audit && i % 50000 == 0)
            CHECK_MSG(ops->audit(st, &err) == 0, "%s: audit: %s", ops->name, err.msg);
    }
    CHECK_MSG(!bad_reports, "%s: fills a field it does not report %d times", ops->name, bad_reports);
    if (ops->audit)
        CHECK_MSG(ops->audit(st, &err) == 0, "%s: audit: %s", ops->name, err.msg);
    if (ops->footprint_bytes)
        CHECK_MSG(ops->footprint_bytes(st) > 0, "%s: no footprint", ops->name);
    check_real(ops);
    CHECK_MSG(!bad_usable, "%s: usable < requested %d times", ops->name, bad_usable);
    CHECK_MSG(!bad_order, "%s: ordering invariant broken %d times", ops->name, bad_order);
    CHECK_MSG(!bad_sum, "%s: requested/live_count wrong %d times", ops->name, bad_sum);
    for (int k = 0; k < SLOTS; k++)
        if (addr[k])
            ops->free(st, addr[k], size[k], 0, OPS * 1000ull);
    if (ops->release)
        ops->release(st, OPS * 1000ull);
    rs_alloc_stats s;
    ops->stats(st, &s);
    CHECK_MSG(s.requested_bytes == 0 && s.allocated_bytes == 0 && s.active_bytes == 0 &&
                  s.live_count == 0 && ordered(&s),
              "%s: after freeing all: requested %llu allocated %llu active %llu", ops->name,
              (unsigned long long)s.requested_bytes, (unsigned long long)s.allocated_bytes,
              (unsigned long long)s.active_bytes);
    ops->destroy(st);
    rs_config_free(cfg);
}

static void check_cache(const rs_cache_ops *ops)
{
    enum { N = 2000 };
    static int pinned[N], present[N];
    rs_config *cfg = default_config();
    rs_err err;
    void *st;
    uint64_t count = 0;
    int bad = 0;

    memset(pinned, 0, sizeof pinned);
    memset(present, 0, sizeof present);
    CHECK(ops->create(cfg, &st, &err) == 0);
    for (rs_oid id = 0; id < N; id++) {
        CHECK(ops->insert(st, id, 100 + id % 50, &err) == 0);
        present[id] = 1;
        count++;
        if (rnd() % 5 == 0) {
            ops->pin(st, id);
            pinned[id] = 1;
        }
        if (rnd() % 3 == 0)
            ops->touch(st, (rs_oid)(rnd() % (id + 1)));
    }
    for (rs_oid id = 0; id < N; id += 7)
        if (pinned[id]) {
            ops->unpin(st, id);
            pinned[id] = 0;
        }
    bad += ops->count(st) != count;
    for (;;) {
        rs_oid v = ops->victim(st);
        if (v == RS_OID_NONE)
            break;
        bad += v >= N || !present[v] || pinned[v];
        if (v >= N)
            break;
        ops->remove(st, v);
        present[v] = 0;
        count--;
        bad += ops->count(st) != count;
    }
    uint64_t npinned = 0;
    for (int i = 0; i < N; i++)
        npinned += present[i] && pinned[i];
    CHECK_MSG(!bad, "%s: %d bad victims or counts", ops->name, bad);
    CHECK_MSG(ops->count(st) == npinned, "%s: %llu left, %llu pinned", ops->name,
              (unsigned long long)ops->count(st), (unsigned long long)npinned);
    ops->destroy(st);
    rs_config_free(cfg);
}

/* The sharded, list-level slots (cache.h), against a model of what the
 * policy holds: per object its shard, bytes, pin and whether a ghost. */
enum { SN = 3000, SSHARDS = 4 };
typedef struct sc {
    const rs_cache_ops *ops;
    void *st;
    int present[SN], pinned[SN], ghost[SN];
    uint32_t shard[SN];
    uint64_t bytes[SN];
    uint64_t count;
    int bad_cb;
    rs_oid first[2]; /* the first object a trim evicted, demoted */
} sc;

static void sc_trimmed(void *ctx, rs_oid id, int what)
{
    sc *c = ctx;
    if (id >= SN || !c->present[id] || (what == RS_CACHE_DEMOTED && c->ghost[id])) {
        c->bad_cb++;
        return;
    }
    if (c->first[what ? 1 : 0] == RS_OID_NONE)
        c->first[what ? 1 : 0] = id;
    /* a policy that keeps pins in place (a count-trimmed LRU) never takes one */
    c->bad_cb += !c->ops->trim_bytes && c->pinned[id];
    if (what == RS_CACHE_DEMOTED) {
        c->ghost[id] = 1;
        c->bad_cb += c->ops->level(c->st, id) != RS_CACHE_LEVEL_WARM_OUT;
    } else {
        c->present[id] = 0;
        c->pinned[id] = 0;
        c->count--;
    }
}

/* Every shard's and level's count and bytes equal the recomputed ones. */
static int sc_counts_bad(sc *c)
{
    uint64_t n[SSHARDS][RS_CACHE_LEVELS] = { { 0 } }, b[SSHARDS][RS_CACHE_LEVELS] = { { 0 } };
    uint64_t total = 0;
    int bad = 0;
    for (rs_oid id = 0; id < SN; id++) {
        if (!c->present[id])
            continue;
        int l = c->ops->level(c->st, id);
        if (l < 0 || l >= RS_CACHE_LEVELS || (l == RS_CACHE_LEVEL_WARM_OUT) != c->ghost[id])
            return 1;
        n[c->shard[id]][l]++;
        b[c->shard[id]][l] += c->ghost[id] ? 0 : c->bytes[id];
    }
    for (uint32_t s = 0; s < SSHARDS; s++) {
        uint64_t all_n = 0, all_b = 0, cn, cb;
        for (int l = 0; l < RS_CACHE_LEVELS; l++) {
            if (l == RS_CACHE_LEVEL_ALL && (n[s][1] || n[s][2] || n[s][3]))
                continue; /* a 2Q: ALL is warm_in + hot, checked below */
            c->ops->list_usage(c->st, s, l, &cn, &cb);
            bad += cn != n[s][l] || cb != b[s][l];
            total += cn;
            if (l != RS_CACHE_LEVEL_WARM_OUT) {
                all_n += n[s][l];
                all_b += b[s][l];
            }
        }
        bad += b[s][RS_CACHE_LEVEL_WARM_OUT] != 0; /* ghosts hold no data */
        c->ops->list_usage(c->st, s, RS_CACHE_LEVEL_ALL, &cn, &cb);
        bad += cn != all_n || cb != all_b;
    }
    bad += total != c->count || c->ops->count(c->st) != c->count;
    return bad;
}

/* trim_next's walk of each level of shard s, from the tail: every object on
 * that level and shard once (as many as list_usage counts), none elsewhere;
 * each level's first object is stored in tails[]. */
static int sc_walk_bad(sc *c, uint32_t s, rs_oid tails[RS_CACHE_LEVELS])
{
    int bad = 0;
    static unsigned char seen[SN];
    for (int l = 0; l < RS_CACHE_LEVELS; l++) {
        uint64_t cn, cb, walked = 0;
        memset(seen, 0, sizeof seen);
        c->ops->list_usage(c->st, s, l, &cn, &cb);
        if (l == RS_CACHE_LEVEL_ALL && c->ops->trim_bytes)
            cn = 0; /* a 2Q's ALL is no list of its own */
        tails[l] = c->ops->trim_next(c->st, s, l, RS_OID_NONE);
        for (rs_oid id = tails[l]; id != RS_OID_NONE && walked <= SN;
             id = c->ops->trim_next(c->st, s, l, id)) {
            bad += id >= SN || !c->present[id] || c->shard[id] != s ||
                   c->ops->level(c->st, id) != l || seen[id];
            if (id < SN)
                seen[id] = 1;
            walked++;
        }
        bad += walked != cn;
    }
    return bad;
}

/* skip: the pinned objects a count trim may skip before it gives up. */
static void check_cache_sharded(const rs_cache_ops *ops, const char *skip)
{
    static sc c;
    rs_config *cfg = default_config();
    rs_err err;
    int bad_counts = 0, bad_trims = 0, trims = 0, short_trims = 0, bad_walks = 0, walks = 0;

    memset(&c, 0, sizeof c);
    c.ops = ops;
    uint64_t budget = strtoull(skip, NULL, 10);
    rs_config_set(cfg, "bluestore_cache_trim_max_skip_pinned", skip, &err);
    rs_config_set(cfg, "bluestore_2q_cache_kin_ratio", "0.5", &err);
    rs_config_set(cfg, "bluestore_2q_cache_kout_ratio", "0.5", &err);
    CHECK_MSG(ops->set_shards && ops->insert_at && ops->level && ops->list_usage,
              "%s: trim_to without the other sharded slots", ops->name);
    CHECK(ops->create(cfg, &c.st, &err) == 0);
    CHECK(ops->set_shards(c.st, SSHARDS, &err) == 0);
    for (int step = 0; step < 40000; step++) {
        rs_oid id = (rs_oid)(rnd() % SN);
        unsigned r = (unsigned)(rnd() % 16);
        if (!c.present[id]) {
            static const int hints[] = { RS_CACHE_LEVEL_ALL, RS_CACHE_LEVEL_WARM_IN,
                                         RS_CACHE_LEVEL_HOT, RS_CACHE_LEVEL_WARM_OUT };
            c.shard[id] = (uint32_t)(rnd() % SSHARDS);
            c.bytes[id] = 1 + rnd() % 8192;
            CHECK(ops->insert_at(c.st, id, c.bytes[id], c.shard[id], hints[rnd() % 4], &err) == 0);
            c.present[id] = 1;
            c.ghost[id] = ops->level(c.st, id) == RS_CACHE_LEVEL_WARM_OUT;
            bad_counts += c.ghost[id]; /* an insert is never a ghost */
            c.count++;
        } else if (r < 6) {
            ops->touch(c.st, id);
        } else if (r < 8) {
            ops->remove(c.st, id);
            c.present[id] = c.pinned[id] = c.ghost[id] = 0;
            c.count--;
        } else if (r == 8 && !c.pinned[id]) { /* about a quarter pinned */
            ops->pin(c.st, id);
            c.pinned[id] = 1;
        } else if (r < 12 && c.pinned[id]) {
            ops->unpin(c.st, id);
            c.pinned[id] = 0;
        }
        if (step % 97 == 0) {
            uint32_t s = (uint32_t)(rnd() % SSHARDS);
            uint64_t n0, b0, n1, b1;
            ops->list_usage(c.st, s, RS_CACHE_LEVEL_ALL, &n0, &b0);
            uint64_t have = ops->trim_bytes ? b0 : n0;
            uint64_t max = have / 2 + rnd() % (have / 2 + 1);
            rs_oid tails[RS_CACHE_LEVELS];
            if (ops->trim_next) {
                bad_walks += sc_walk_bad(&c, s, tails);
                walks++;
            }
            c.first[0] = c.first[1] = RS_OID_NONE;
            uint64_t items = ops->trim_to(c.st, s, max, sc_trimmed, &c);
            /* a 2Q trim demotes warm_in's tail first and evicts hot's or
             * warm_out's first (pinned objects are not skipped) */
            if (ops->trim_next && c.first[1] != RS_OID_NONE)
                bad_walks += c.first[1] != tails[RS_CACHE_LEVEL_WARM_IN];
            if (ops->trim_next && c.first[0] != RS_OID_NONE)
                bad_walks += c.first[0] != tails[RS_CACHE_LEVEL_HOT] &&
                             c.first[0] != tails[RS_CACHE_LEVEL_WARM_OUT];
            ops->list_usage(c.st, s, RS_CACHE_LEVEL_ALL, &n1, &b1);
            trims++;
            (void)items;
            if ((ops->trim_bytes ? b1 : n1) > max) { /* stopped early: only at pinned objects */
                uint64_t pins = 0;
                for (rs_oid i = 0; i < SN; i++)
                    pins += c.present[i] && c.pinned[i] && c.shard[i] == s && !c.ghost[i];
                /* a count trim skips a pinned object as if it evicted it, so
                 * it ends at most one per pinned object over, unless it
                 * gave up after its skip budget */
                bad_trims += pins == 0 ||
                             (!ops->trim_bytes && n1 - max > pins && pins < budget);
                short_trims++;
            }
            bad_counts += sc_counts_bad(&c);
        }
    }
    bad_counts += sc_counts_bad(&c);
    CHECK_MSG(!c.bad_cb, "%s: %d objects trimmed that it did not hold or were pinned", ops->name,
              c.bad_cb);
    CHECK_MSG(!bad_trims, "%s: %d of %d trims stopped further over the target than its pinned objects explain",
              ops->name, bad_trims, trims);
    CHECK_MSG(!bad_counts, "%s: %d bad counts", ops->name, bad_counts);
    CHECK(trims > 100 && short_trims < trims);
    CHECK_MSG(!bad_walks, "%s: %d of %d trim_next walks or first victims wrong", ops->name,
              bad_walks, walks);
    ops->destroy(c.st);
    rs_config_free(cfg);
}

static void check_layout(const rs_layout_ops *ops)
{
    rs_config *cfg = default_config();
    rs_err err;
    void *st;
    rs_part a[RS_LAYOUT_MAX_PARTS], b[RS_LAYOUT_MAX_PARTS];
    int bad = 0;

    CHECK(ops->max_parts >= 1 && ops->max_parts <= RS_LAYOUT_MAX_PARTS);
    CHECK(ops->create(cfg, &st, &err) == 0);
    for (uint64_t bytes = 1; bytes < 1000000; bytes = bytes * 3 / 2 + 1) {
        for (uint32_t aux = 0; aux < 64; aux += 13) {
            unsigned n = ops->parts(st, bytes, aux, a), m = ops->parts(st, bytes, aux, b);
            int tracked = 0;
            bad += n < 1 || n > ops->max_parts || n != m;
            for (unsigned i = 0; i < n && i < m; i++) {
                bad += a[i].size_bytes == 0 || a[i].size_bytes != b[i].size_bytes ||
                       a[i].tracked != b[i].tracked;
                tracked += a[i].tracked != 0;
            }
            bad += !tracked;
        }
    }
    CHECK_MSG(!bad, "%s: %d bad part lists", ops->name, bad);
    ops->destroy(st);
    rs_config_free(cfg);
}

/* A fake cache for trim policies: objects of 1000 B, evicted oldest first. */
typedef struct fake {
    uint64_t used, limit, target_seen, bad_after_trim, evicted;
    uint64_t last_trim_ns, max_gap_ns; /* when trim_to was last called; longest wait */
} fake;
static uint64_t f_used(void *ctx) { return ((fake *)ctx)->used; }
static uint64_t f_limit(void *ctx) { return ((fake *)ctx)->limit; }
static uint64_t f_trim_to(void *ctx, uint64_t target, uint64_t max_items, uint64_t now, uint64_t *r_bytes)
{
    fake *f = ctx;
    uint64_t items = 0;
    if (now - f->last_trim_ns > f->max_gap_ns)
        f->max_gap_ns = now - f->last_trim_ns;
    f->last_trim_ns = now;
    while (f->used > target && (!max_items || items < max_items)) {
        f->used -= 1000;
        *r_bytes += 1000;
        items++;
    }
    if (!max_items && f->used > target)
        f->bad_after_trim++;
    f->evicted += items;
    return items;
}

static void check_trim(const rs_trim_ops *ops)
{
    rs_config *cfg = default_config();
    rs_err err;
    rs_engine eng;
    rs_trim_stats stats = { 0 };
    fake f = { .limit = 1000000 };
    rs_trim_target tgt = { .ctx = &f, .used_bytes = f_used, .limit_bytes = f_limit, .trim_to = f_trim_to };
    void *st;

    rs_engine_init(&eng);
    CHECK_MSG(ops->create(cfg, &eng, &tgt, &stats, &st, &err) == 0, "%s: %s", ops->name, err.msg);
    /* 1000 B every 100 us (10 MB/s) for 10 s of virtual time */
    for (uint64_t t = 0; t < 10000000000ull; t += 100000) {
        while (rs_evq_next_ns(&eng.q) <= t) {
            rs_event ev;
            rs_evq_pop(&eng.q, &ev, &err);
            eng.now_ns = ev.t_ns;
            ev.fn(ev.ctx, ev.t_ns);
        }
        eng.now_ns = t;
        f.used += 1000;
        if (ops->after_insert)
            ops->after_insert(st, t);
    }
    CHECK_MSG(stats.trims_count > 0 && f.evicted > 0, "%s never trimmed", ops->name);
    CHECK_MSG(stats.trimmed_bytes == f.evicted * 1000, "%s: trimmed_bytes %llu", ops->name,
              (unsigned long long)stats.trimmed_bytes);
    CHECK_MSG(f.bad_after_trim == 0, "%s: above target after a trim %llu times", ops->name,
              (unsigned long long)f.bad_after_trim);
    /* no policy waits longer than Ceph's 5 s mds_tick_interval between two
     * looks at the cache, and what is over the limit at the end is at most
     * what arrived since the last one (10 MB/s) */
    uint64_t end_ns = 10000000000ull;
    if (end_ns - f.last_trim_ns > f.max_gap_ns)
        f.max_gap_ns = end_ns - f.last_trim_ns;
    CHECK_MSG(f.max_gap_ns <= 5000000000ull, "%s: %llu ns without a trim", ops->name,
              (unsigned long long)f.max_gap_ns);
    CHECK_MSG(f.used <= f.limit + (end_ns - f.last_trim_ns) / 100000 * 1000 + 1000,
              "%s: cache ran away (%llu B, last trim at %llu ns)", ops->name,
              (unsigned long long)f.used, (unsigned long long)f.last_trim_ns);
    ops->destroy(st);
    rs_engine_release(&eng);
    rs_config_free(cfg);
}

/* A fake sharded target (RS_TRIM_SHARDS): SHARDS shards, each an onode
 * count (1000 B of meta each) and buffer bytes (1000 B items). */
enum { SHARDS = 4 };
typedef struct sfake {
    uint64_t items[SHARDS], bytes[SHARDS];
    uint64_t evicted, evicted_bytes, held_ns, bad_after_trim;
    uint64_t last_trim_ns, max_gap_ns;
} sfake;
static void sf_seen(sfake *f, uint64_t now)
{
    if (now - f->last_trim_ns > f->max_gap_ns)
        f->max_gap_ns = now - f->last_trim_ns;
    f->last_trim_ns = now;
}
static uint64_t sf_now;
static uint64_t sf_used(void *ctx)
{
    sfake *f = ctx;
    uint64_t u = 0;
    for (int i = 0; i < SHARDS; i++)
        u += f->items[i] * 1000 + f->bytes[i];
    return u;
}
static void sf_usage(void *ctx, rs_trim_usage *r)
{
    sfake *f = ctx;
    *r = (rs_trim_usage){ 0 };
    for (int i = 0; i < SHARDS; i++) {
        r->items_count += f->items[i];
        r->meta_bytes += f->items[i] * 1000;
        r->data_bytes += f->bytes[i];
    }
}
static void sf_shard_usage(void *ctx, uint32_t shard, uint64_t *r_items, uint64_t *r_bytes)
{
    if (r_items)
        *r_items = ((sfake *)ctx)->items[shard];
    if (r_bytes)
        *r_bytes = ((sfake *)ctx)->bytes[shard];
}
static uint64_t sf_trim_bytes(void *ctx, uint32_t shard, uint64_t max, int bg, uint64_t *r_bytes)
{
    sfake *f = ctx;
    uint64_t n = 0;
    (void)bg;
    sf_seen(f, sf_now);
    while (f->bytes[shard] > max) {
        f->bytes[shard] -= 1000;
        *r_bytes += 1000;
        f->evicted_bytes += 1000;
        n++;
    }
    f->evicted += n;
    return n;
}
static uint64_t sf_trim_items(void *ctx, uint32_t shard, uint64_t max, int bg, uint64_t *r_bytes)
{
    sfake *f = ctx;
    uint64_t n = 0;
    (void)bg;
    sf_seen(f, sf_now);
    while (f->items[shard] > max) {
        f->items[shard]--;
        *r_bytes += 1000;
        f->evicted_bytes += 1000;
        n++;
    }
    f->evicted += n;
    return n;
}
static uint64_t sf_hold(void *ctx, uint32_t shard, uint64_t start, uint64_t fixed, uint64_t items)
{
    (void)shard;
    (void)start;
    ((sfake *)ctx)->held_ns += fixed + items;
    return fixed + items;
}
static int sf_busy(void *ctx)
{
    (void)ctx;
    return 1;
}

/* Keys a sharded policy may declare, set small so it trims in 10 s. */
static const char *const shard_keys[][2] = {
    { "bluestore_cache_size", "4M" }, { "bluestore_cache_meta_ratio", "0.4" },
    { "bluestore_cache_kv_ratio", "0.4" }, { "bluestore_cache_kv_max", "0" },
    { "osd_memory_target", "1G" }, { "osd_memory_base", "768M" }, { NULL, NULL },
};

/* Sharded policies: they trim an over-full cache, their counters match what
 * the target evicted, and the cache stays within the policy's limit plus
 * what arrived since the last trim. */
static void check_trim_sharded(const rs_trim_ops *ops)
{
    rs_config *cfg = default_config();
    rs_err err;
    rs_engine eng;
    rs_trim_stats stats = { 0 };
    sfake f = { 0 };
    rs_trim_target tgt = { .ctx = &f, .used_bytes = sf_used, .shard_count = SHARDS,
                           .usage = sf_usage, .shard_usage = sf_shard_usage,
                           .shard_trim_bytes = sf_trim_bytes, .shard_trim_items = sf_trim_items,
                           .shard_hold = sf_hold, .busy = sf_busy };
    void *st;

    for (int i = 0; shard_keys[i][0]; i++)
        if (rs_param_find(ops->params, shard_keys[i][0]))
            CHECK(rs_config_set(cfg, shard_keys[i][0], shard_keys[i][1], &err) == 0);
    CHECK_MSG(ops->limit_bytes != NULL, "%s: a sharded policy sets the limit", ops->name);
    rs_engine_init(&eng);
    CHECK_MSG(ops->create(cfg, &eng, &tgt, &stats, &st, &err) == 0, "%s: %s", ops->name, err.msg);
    /* an onode and a 1000 B buffer every 100 us, round robin over the shards */
    uint64_t end_ns = 10000000000ull, k = 0;
    for (uint64_t t = 0; t < end_ns; t += 100000, k++) {
        while (rs_evq_next_ns(&eng.q) <= t) {
            rs_event ev;
            rs_evq_pop(&eng.q, &ev, &err);
            eng.now_ns = sf_now = ev.t_ns;
            ev.fn(ev.ctx, ev.t_ns);
        }
        eng.now_ns = sf_now = t;
        if (ops->wake)
            CHECK(ops->wake(st, t, &err) == 0);
        uint32_t s = (uint32_t)(k % SHARDS);
        f.items[s]++;
        if (ops->after_shard_insert)
            ops->after_shard_insert(st, s, 1, t);
        f.bytes[s] += 1000;
        if (ops->after_shard_insert)
            ops->after_shard_insert(st, s, 0, t);
    }
    CHECK_MSG(stats.trims_count > 0 && f.evicted > 0, "%s never trimmed", ops->name);
    CHECK_MSG(stats.trimmed_items_count == f.evicted && stats.trimmed_bytes == f.evicted_bytes,
              "%s: trimmed %llu items %llu B, target evicted %llu, %llu B", ops->name,
              (unsigned long long)stats.trimmed_items_count, (unsigned long long)stats.trimmed_bytes,
              (unsigned long long)f.evicted, (unsigned long long)f.evicted_bytes);
    if (end_ns - f.last_trim_ns > f.max_gap_ns)
        f.max_gap_ns = end_ns - f.last_trim_ns;
    CHECK_MSG(f.max_gap_ns <= 5000000000ull, "%s: %llu ns without a trim", ops->name,
              (unsigned long long)f.max_gap_ns);
    uint64_t limit = ops->limit_bytes(st);
    CHECK_MSG(sf_used(&f) <= limit + (end_ns - f.last_trim_ns) / 100000 * 2000 + 2000 * SHARDS,
              "%s: cache ran away (%llu B, limit %llu B)", ops->name,
              (unsigned long long)sf_used(&f), (unsigned long long)limit);
    ops->destroy(st);
    rs_engine_release(&eng);
    rs_config_free(cfg);
}

static void tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/rssim-conf-%ld-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid(), name);
}

static void check_codec_roundtrip(const rs_trace_codec_ops *ops)
{
    char path[512];
    rs_trace_writer *w;
    rs_trace *tr;
    rs_err err;
    rs_rec in[500], out;
    int bad = 0, n = 0;

    tmp_path(path, sizeof path, ops->name);
    CHECK_MSG(rs_trace_writer_open(&w, path, ops->name, "kv", &err) == 0, "%s", err.msg);
    uint64_t t = 0;
    for (int i = 0; i < 500; i++) {
        t += rnd() % 1000;
        in[i] = (rs_rec){ .t_ns = t, .key = rnd(), .size_bytes = 1 + rnd() % 100000,
                          .op = (uint8_t)(1 + rnd() % 3), .thread = (uint16_t)(rnd() % 4) };
        CHECK(rs_trace_write(w, &in[i], &err) == 0);
    }
    CHECK(rs_trace_writer_close(w, &err) == 0);
    CHECK_MSG(rs_trace_open(&tr, path, &err) == 0, "%s", err.msg);
    CHECK(strcmp(rs_trace_format(tr), ops->name) == 0);
    CHECK(strcmp(rs_trace_daemon(tr), "kv") == 0);
    while (rs_trace_next(tr, &out, &err) == 1) {
        bad += n >= 500 || memcmp(&out, &in[n], sizeof out) != 0;
        n++;
    }
    CHECK_MSG(n == 500 && !bad, "%s: %d records, %d differ", ops->name, n, bad);
    rs_trace_close(tr);
    unlink(path);
}

/* An importer turns its own example into a trace of its daemon kind (osd,
 * or its import_daemon), and a bad line after it fails naming the file and
 * the line. */
static void check_codec_import(const rs_trace_codec_ops *ops)
{
    char in[512], out[512], bad[560];
    rs_import_opts opts = { .from = ops->name, .object_bytes = 4u << 20, .block_bytes = 512 };
    rs_import_stats st;
    rs_trace_writer *w;
    rs_trace *tr;
    rs_err err;
    rs_rec rec;
    FILE *f;

    CHECK_MSG(ops->example && *ops->example, "%s: an importer without an example", ops->name);
    if (!ops->example)
        return;
    tmp_path(in, sizeof in, ops->name);
    tmp_path(out, sizeof out, "import.bin");
    CHECK((f = fopen(in, "w")) != NULL && fputs(ops->example, f) >= 0 && fclose(f) == 0);
    const char *daemon = rs_import_daemon(ops);
    CHECK(rs_trace_writer_open(&w, out, "binary", daemon, &err) == 0);
    int rc = rs_import_block(in, &opts, w, &st, &err);
    CHECK_MSG(rc == 0, "%s: its example: %s", ops->name, err.msg);
    if (rc) {
        rs_trace_writer_abort(w);
    } else {
        CHECK(rs_trace_writer_close(w, &err) == 0);
        CHECK_MSG(st.ios > 0 && st.records >= st.ios, "%s: %llu I/Os", ops->name,
                  (unsigned long long)st.ios);
        uint64_t n = 0;
        CHECK_MSG(rs_trace_open(&tr, out, &err) == 0, "%s", err.msg);
        while (rs_trace_next(tr, &rec, &err) == 1)
            n++;
        CHECK_MSG(n == st.records && strcmp(rs_trace_daemon(tr), daemon) == 0, "%s: %llu records read back",
                  ops->name, (unsigned long long)n);
        rs_trace_close(tr);
    }
    /* the example and one line no importer takes */
    size_t lines = 0;
    for (const char *p = ops->example; *p; p++)
        lines += *p == '\n';
    snprintf(bad, sizeof bad, "%s:%zu:", in, lines + 1);
    CHECK((f = fopen(in, "a")) != NULL && fputs("x\n", f) >= 0 && fclose(f) == 0);
    CHECK(rs_trace_writer_open(&w, out, "binary", daemon, &err) == 0);
    rc = rs_import_block(in, &opts, w, &st, &err);
    rs_trace_writer_abort(w);
    CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, bad) == err.msg, "%s: a bad last line: %d '%s'",
              ops->name, rc, err.msg);
    unlink(in);
    unlink(out);
}

/* A foreign reader reads its example (oracleGeneral: three records made
 * here) as records of its daemon kind with its example spec; a bad last
 * line (record) fails naming the file and its line; an unknown spec field
 * fails naming the field. */
static void check_codec_foreign(const rs_trace_codec_ops *ops)
{
    char in[512], spec[600], bad[560];
    rs_trace *tr;
    rs_err err;
    rs_rec rec;
    FILE *f;
    size_t lines = 0;

    CHECK_MSG(ops->example_spec != NULL, "%s: a foreign reader without an example spec", ops->name);
    tmp_path(in, sizeof in, ops->name);
    CHECK((f = fopen(in, "w")) != NULL);
    if (ops->example) {
        CHECK(fputs(ops->example, f) >= 0);
        for (const char *p = ops->example; *p; p++)
            lines += *p == '\n';
    } else { /* a binary format: three 24-byte oracleGeneral records */
        for (uint32_t i = 0; i < 3; i++) {
            uint8_t r[24] = { 0 };
            r[0] = (uint8_t)i;      /* clock_time */
            r[4] = (uint8_t)(7 + i); /* obj_id */
            r[12] = 100;            /* obj_size */
            CHECK(fwrite(r, 1, sizeof r, f) == sizeof r);
        }
        lines = 3;
    }
    CHECK(fclose(f) == 0);
    snprintf(spec, sizeof spec, "%s%s%s", ops->name, *ops->example_spec ? ":" : "", ops->example_spec);
    CHECK_MSG(rs_trace_open_foreign(&tr, in, spec, &err) == 0, "%s: %s", ops->name, err.msg);
    uint64_t n = 0;
    int rc;
    while ((rc = rs_trace_next(tr, &rec, &err)) == 1)
        n++;
    CHECK_MSG(rc == 0 && n > 0, "%s: its example: %d after %llu records: %s", ops->name, rc,
              (unsigned long long)n, err.msg);
    rs_trace_close(tr);
    CHECK((f = fopen(in, "a")) != NULL && fputs("x\n", f) >= 0 && fclose(f) == 0);
    snprintf(bad, sizeof bad, "%s:%zu:", in, lines + 1);
    CHECK(rs_trace_open_foreign(&tr, in, spec, &err) == 0);
    while ((rc = rs_trace_next(tr, &rec, &err)) == 1)
        ;
    rs_trace_close(tr);
    CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, bad) == err.msg, "%s: a bad last line: %d '%s'",
              ops->name, rc, err.msg);
    snprintf(spec, sizeof spec, "%s:%s%sno-such-field=1", ops->name, ops->example_spec,
             *ops->example_spec ? "," : "");
    CHECK(rs_trace_open_foreign(&tr, in, spec, &err) == RS_EINPUT && strstr(err.msg, "'no-such-field'"));
    unlink(in);
}

/* A codec reads and writes (all those slots), or imports, or is read as a
 * foreign trace, or several; and is the one the list gives for its name. */
static void check_codec(const rs_trace_codec_ops *ops)
{
    int reads = ops->sniff && ops->read_header && ops->next;
    int writes = ops->encode && ops->write_header && ops->rec_max_bytes;
    CHECK_MSG(reads == (ops->sniff || ops->read_header || ops->next), "%s: half a reader", ops->name);
    CHECK_MSG(writes == (ops->encode || ops->write_header || ops->rec_max_bytes), "%s: half a writer",
              ops->name);
    CHECK_MSG(reads == writes, "%s: an encoding must be read and written", ops->name);
    int imports = ops->import_line || ops->import_file;
    CHECK_MSG(!(ops->import_line && ops->import_file), "%s: imports by line and by file", ops->name);
    CHECK_MSG(reads || imports || ops->open_foreign, "%s: neither reads nor imports", ops->name);
    CHECK_MSG(imports || ops->open_foreign || (!ops->import_opts && !ops->example),
              "%s: import slots without an importer", ops->name);
    CHECK_MSG(!ops->import_daemon || ops->import_file, "%s: import_daemon without import_file", ops->name);
    CHECK_MSG(!ops->open_foreign || !reads, "%s: a foreign reader is never sniffed", ops->name);
    CHECK(rs_trace_codec_find(ops->name) == ops);
    if (reads)
        check_codec_roundtrip(ops);
    if (imports)
        check_codec_import(ops);
    if (ops->open_foreign)
        check_codec_foreign(ops);
}

static int generate(const rs_gen_ops *gen, const char *path, rs_err *err)
{
    rs_config *opts;
    int rc = rs_config_new_with(&opts, gen->params, err);
    if (rc)
        return rc;
    for (const rs_param *p = gen->params; p && p->key; p++) {
        if (!strcmp(p->key, "events"))
            rs_config_set(opts, "events", "20000", err);
        if (!strcmp(p->key, "keys"))
            rs_config_set(opts, "keys", "2000", err);
    }
    if (!(rc = rs_config_validate(opts, err)))
        rc = rs_gen_to_file(gen, opts, RSSIM_TRACES_DIR, path, "binary", 0, NULL, 0, err);
    rs_config_free(opts);
    return rc;
}

static void check_generator(const rs_gen_ops *gen)
{
    char path[512];
    rs_trace *tr;
    rs_rec r;
    rs_err err;
    uint64_t n = 0, last = 0;
    int back = 0;

    tmp_path(path, sizeof path, gen->name);
    CHECK_MSG(generate(gen, path, &err) == 0, "%s: %s", gen->name, err.msg);
    CHECK_MSG(rs_trace_open(&tr, path, &err) == 0, "%s", err.msg);
    CHECK(strcmp(rs_trace_daemon(tr), gen->daemon) == 0);
    while (rs_trace_next(tr, &r, &err) == 1) {
        back += r.t_ns < last;
        last = r.t_ns;
        n++;
    }
    CHECK_MSG(n > 0 && !back, "%s: %llu records", gen->name, (unsigned long long)n);
    rs_trace_close(tr);
    unlink(path);
}

static void check_daemon(const rs_daemon_ops *d)
{
    char path[512];
    rs_err err;
    const rs_gen_ops *gen = NULL;

    for (size_t i = 0; i < rs_reg_gen.count; i++) {
        const rs_gen_ops *g = rs_reg_gen.entries[i];
        if (!strcmp(g->daemon, d->trace_daemon))
            gen = g;
    }
    CHECK_MSG(gen != NULL, "no generator makes '%s' traces for daemon %s", d->trace_daemon, d->name);
    if (!gen)
        return;
    tmp_path(path, sizeof path, d->name);
    CHECK(generate(gen, path, &err) == 0);
    for (size_t a = 0; a < rs_reg_alloc.count; a++) {
        rs_config *cfg = default_config();
        rs_result res;
        rs_run_stats rst;
        rs_config_set(cfg, "daemon", d->name, &err);
        rs_config_set(cfg, "alloc", rs_registry_name(&rs_reg_alloc, a), &err);
        if (!strcmp(d->name, "kv"))
            rs_config_set(cfg, "kv_cache_limit", "1M", &err);
        rs_result_init(&res);
        int rc = rs_run_execute(path, cfg, &res, &rst, &err);
        CHECK_MSG(rc == 0, "%s on %s: %s", d->name, rs_registry_name(&rs_reg_alloc, a), err.msg);
        CHECK(rst.events > 0 && res.nsamples > 1 && res.nmetrics > 10);
        rs_result_release(&res);
        rs_config_free(cfg);
    }
    unlink(path);
}

int main(void)
{
    check_common();
    for (size_t i = 0; i < rs_reg_alloc.count; i++)
        check_allocator(rs_reg_alloc.entries[i]);
    for (size_t i = 0; i < rs_reg_cache.count; i++) {
        const rs_cache_ops *c = rs_reg_cache.entries[i];
        check_cache(c);
        if (c->trim_to) {
            check_cache_sharded(c, "8");
            check_cache_sharded(c, "1000000000");
        }
    }
    for (size_t i = 0; i < rs_reg_layout.count; i++)
        check_layout(rs_reg_layout.entries[i]);
    for (size_t i = 0; i < rs_reg_trim.count; i++) {
        const rs_trim_ops *t = rs_reg_trim.entries[i];
        if (t->needs == RS_TRIM_SHARDS)
            check_trim_sharded(t);
        else
            check_trim(t);
    }
    size_t ncodecs = 0;
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c; c++)
        ncodecs++;
    CHECK(ncodecs == rs_reg_trace_format.count); /* the registry is the codec list */
    for (size_t i = 0; i < rs_reg_trace_format.count; i++) {
        CHECK(rs_reg_trace_format.entries[i] == rs_trace_codecs[i]);
        check_codec(rs_reg_trace_format.entries[i]);
    }
    for (size_t i = 0; i < rs_reg_gen.count; i++)
        check_generator(rs_reg_gen.entries[i]);
    for (size_t i = 0; i < rs_reg_daemon.count; i++)
        check_daemon(rs_reg_daemon.entries[i]);
    return check_done();
}
