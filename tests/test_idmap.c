/*
 * test_idmap.c — the key -> id map (sim/base/idmap.h): after every growth
 * (doubled in place, one cluster at a time) and every backward-shift
 * deletion, each key held is found with its id, each key deleted or never
 * put is not, and every key sits where a probe from its home reaches it;
 * small keys (their own fingerprints) and large ones (hashed), from a
 * 2-slot table up.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "sim/base/idmap.h"

#define N 60000

static uint64_t keys[N];

static uint64_t key_of(const void *ctx, uint32_t id)
{
    (void)ctx;
    return keys[id];
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Every full slot is reached by a probe from its key's home: no empty slot
 * between the two (what a growth that broke a probe run would leave). */
static int runs_whole(const rs_idmap *m)
{
    for (uint64_t i = 0; i <= m->mask; i++) {
        uint32_t id = rs_idmap_id(m, i);
        if (id == RS_IDMAP_NONE)
            continue;
        if (rs_idmap_probe(m, keys[id], rs_hash64(keys[id]), key_of, NULL) != i)
            return 0;
    }
    return 1;
}

static void run(uint64_t seed, int large, uint64_t first_slots)
{
    rs_idmap m;
    rs_err err;
    uint64_t s = seed;
    static unsigned char live[N];
    uint64_t nlive = 0, grew = 0, last_mask;

    CHECK(rs_idmap_init(&m, first_slots, &err) == 0);
    last_mask = m.mask;
    for (uint32_t id = 0; id < N; id++) {
        /* distinct keys: small ones dense with gaps, large ones past 2^31 */
        keys[id] = large ? (rnd(&s) | (1ull << 40)) ^ id : 1 + 3ull * id + (rnd(&s) & 1);
        live[id] = 0;
    }
    for (uint32_t id = 0; id < N; id++) {
        uint64_t h = rs_hash64(keys[id]);
        CHECK(rs_idmap_reserve(&m, &err) == 0);
        uint64_t slot = rs_idmap_probe(&m, keys[id], h, key_of, NULL);
        CHECK(rs_idmap_id(&m, slot) == RS_IDMAP_NONE);
        rs_idmap_put(&m, slot, keys[id], h, id);
        live[id] = 1;
        nlive++;
        if (m.mask != last_mask) {
            grew++;
            last_mask = m.mask;
            CHECK(runs_whole(&m));
        }
        /* delete a third of what was put, at random */
        if (rnd(&s) % 3 == 0) {
            uint32_t d = (uint32_t)(rnd(&s) % (id + 1));
            if (live[d]) {
                rs_idmap_delete(&m, rs_idmap_probe(&m, keys[d], rs_hash64(keys[d]), key_of, NULL));
                live[d] = 0;
                nlive--;
            }
        }
    }
    CHECK(grew >= 5);
    CHECK_EQ_U64(m.count, nlive);
    CHECK(runs_whole(&m));
    uint64_t bad = 0;
    for (uint32_t id = 0; id < N; id++) {
        uint32_t got = rs_idmap_find(&m, keys[id], key_of, NULL);
        bad += live[id] ? got != id : got != RS_IDMAP_NONE;
    }
    CHECK_EQ_U64(bad, 0);
    /* keys never put */
    for (uint32_t i = 0; i < 1000; i++)
        bad += rs_idmap_find(&m, large ? (1ull << 62) + i : 3ull * N + 10 + i, key_of, NULL) !=
               RS_IDMAP_NONE;
    CHECK_EQ_U64(bad, 0);
    rs_idmap_release(&m);
}

/* Many small tables, keys homed in the top half of their final table so
 * that clusters wrap past its end: each growth keeps every run whole. */
static void wraps(void)
{
    uint64_t s = 99, broken = 0, growths = 0;
    for (int trial = 0; trial < 4000; trial++) {
        rs_idmap m;
        rs_err err;
        CHECK(rs_idmap_init(&m, 4, &err) == 0);
        uint32_t n = 0;
        while (n < 48) {
            uint64_t k = rnd(&s) % 100000;
            uint64_t h = rs_hash64(k);
            int dup = 0;
            for (uint32_t i = 0; i < n; i++)
                dup |= keys[i] == k;
            if (dup || ((h >> 33) & 63) < 40) /* homes 40..63 of 64 slots */
                continue;
            keys[n] = k;
            uint64_t before = m.mask;
            CHECK(rs_idmap_reserve(&m, &err) == 0);
            if (m.mask != before) {
                growths++;
                broken += !runs_whole(&m);
            }
            rs_idmap_put(&m, rs_idmap_probe(&m, k, h, key_of, NULL), k, h, n);
            n++;
        }
        rs_idmap_release(&m);
    }
    CHECK(growths >= 4000 * 4);
    CHECK_EQ_U64(broken, 0);
}

int main(void)
{
    wraps();
    run(1, 0, 2);
    run(2, 1, 2);
    run(3, 0, 1024);
    run(4, 1, 4);
    return check_done();
}
