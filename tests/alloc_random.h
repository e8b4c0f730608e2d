/*
 * alloc_random.h — what the allocator models' unit tests share: their
 * random stream, and a random mix of allocations and frees that checks after
 * every call that the model's stats stay ordered and, every so often, that
 * the model's own audit of its structures passes.
 */
#ifndef RS_TEST_ALLOC_RANDOM_H
#define RS_TEST_ALLOC_RANDOM_H

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "models/alloc/alloc.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

typedef struct random_mix {
    const rs_alloc_ops *ops;
    void *st;
    rs_addr *addr;       /* slots of live allocations (0: free); zeroed by random_mix_run */
    uint64_t *size;
    uint32_t slots;
    uint32_t threads;    /* 1: every call on thread 0 and no thread drawn */
    uint64_t mid_max;    /* sizes: 90 % up to 2 KiB, 8 % up to mid_max, 2 % up to big_max */
    uint64_t big_max;
    uint64_t ns_per_op;  /* virtual time of call i: i x ns_per_op */
    int advance_every;   /* call advance every this many ops (0: never) */
    int release_every;   /* call release at op % n == n - 1 (0: never) */
    int audit_every;     /* audit at op % n == 0, and at the end */
    int (*ordered)(const rs_alloc_stats *s);
    int (*audit_ok)(void *st);
} random_mix;

/* nops random calls: a slot's allocation is freed (on the drawn thread) or
 * an empty slot gets one.  Checks every allocation succeeded, the stats
 * stayed ordered and every audit passed; leaves the survivors in addr. */
static void random_mix_run(const random_mix *m, int nops)
{
    int bad = 0, audits_failed = 0;
    memset(m->addr, 0, m->slots * sizeof *m->addr);
    for (int op = 0; op < nops; op++) {
        uint64_t now = (uint64_t)op * m->ns_per_op;
        uint32_t k = (uint32_t)(rng_next() % m->slots);
        uint32_t thread = m->threads > 1 ? (uint32_t)(rng_next() % m->threads) : 0;
        if (m->addr[k]) {
            m->ops->free(m->st, m->addr[k], m->size[k], thread, now);
            m->addr[k] = 0;
        } else {
            uint64_t r = rng_next();
            uint64_t n = (r % 100) < 90 ? 1 + (r >> 8) % 2048
                         : (r % 100) < 98 ? 1 + (r >> 8) % m->mid_max
                                          : 1 + (r >> 8) % m->big_max;
            m->size[k] = n;
            m->addr[k] = m->ops->alloc(m->st, n, thread, now);
            bad += m->addr[k] == 0;
        }
        if (m->advance_every && op % m->advance_every == 0)
            m->ops->advance(m->st, now);
        rs_alloc_stats s;
        m->ops->stats(m->st, &s);
        bad += !m->ordered(&s);
        if (m->release_every && op % m->release_every == m->release_every - 1)
            m->ops->release(m->st, now);
        if (op % m->audit_every == 0)
            audits_failed += !m->audit_ok(m->st);
    }
    audits_failed += !m->audit_ok(m->st);
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(audits_failed, 0);
}

/* Free every survivor, slot k on thread thread_of(k), at time now. */
static void random_mix_free_all(const random_mix *m, uint32_t (*thread_of)(uint32_t k), uint64_t now)
{
    for (uint32_t k = 0; k < m->slots; k++)
        if (m->addr[k])
            m->ops->free(m->st, m->addr[k], m->size[k], thread_of ? thread_of(k) : 0, now);
}

#endif
