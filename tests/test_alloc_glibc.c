/*
 * test_alloc_glibc.c — the glibc 2.36 model's rules one by one (chunk
 * rounding, tcache and fastbin LIFO, coalescing, the last-remainder/slack
 * rule, top trim, mmap threshold and its dynamic rise, malloc_trim's page
 * release), the invariants and a full audit under 1M random operations on
 * four threads, and the fragmentation experiment (random vs oldest first).
 * The comparison with the real library is tests/test_glibc_real.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_51.h"
#include "check.h"
#include "models/alloc/glibc.h"
#include "sim/base/config.h"

static const rs_alloc_ops *ops = &rs_alloc_glibc;

static void *make(const char *key, const char *value)
{
    rs_config *cfg = NULL;
    rs_err err = {0};
    void *st = NULL;
    if (rs_config_new_with(&cfg, ops->params, &err) || (key && rs_config_set(cfg, key, value, &err)) ||
        ops->create(cfg, &st, &err)) {
        fprintf(stderr, "create: %s\n", err.msg);
        abort();
    }
    rs_config_free(cfg);
    return st;
}

static void audit(void *st)
{
    rs_err err = {0};
    int rc = rs_gl_audit(st, &err);
    CHECK_MSG(rc == 0, "audit: %s", err.msg);
}

static int ordered(const rs_alloc_stats *s)
{
    return s->requested_bytes <= s->allocated_bytes && s->allocated_bytes <= s->active_bytes &&
           s->active_bytes <= s->resident_bytes && s->resident_bytes <= s->mapped_bytes;
}

static void test_rounding(void)
{
    CHECK_EQ_U64(rs_gl_request2size(0), 32);
    CHECK_EQ_U64(rs_gl_request2size(24), 32);
    CHECK_EQ_U64(rs_gl_request2size(25), 48);
    CHECK_EQ_U64(rs_gl_request2size(1032), 1040);
    /* glibc 2.36 request2size: usable 24, 40, 56, ... +16 ... 1112 (1..1100) */
    for (uint64_t n = 1; n <= 1100; n++) {
        uint64_t want = n <= 24 ? 24 : 24 + ((n - 24 + 15) / 16) * 16;
        if (rs_gl_usable_size(n) != want) {
            CHECK_MSG(0, "usable(%" PRIu64 ") = %" PRIu64 ", want %" PRIu64, n, rs_gl_usable_size(n), want);
            break;
        }
    }
    CHECK_EQ_U64(rs_gl_usable_size(1100), 1112);
    CHECK_EQ_U64(rs_gl_mmap_usable_size(200000), 200688);
    CHECK_EQ_U64(rs_gl_mmap_usable_size(1 << 20), 1052656);
    void *st = make(NULL, NULL);
    CHECK_EQ_U64(ops->usable_size(st, 100), 104);
    CHECK_EQ_U64(ops->usable_size(st, 200000), 200688); /* at the default threshold */
    /* the first malloc makes the 0x290 tcache chunk, then the user chunk */
    rs_addr a = ops->alloc(st, 24, 0, 0);
    CHECK_EQ_U64(a - RS_GL_HEAP_BASE, 0x290 + 16);
    rs_gl_mallinfo mi;
    rs_gl_mallinfo2(st, &mi);
    CHECK_EQ_U64(mi.arena, 0x21000); /* 656 + 32 + top_pad 128 KiB, page-rounded */
    CHECK_EQ_U64(mi.uordblks, 656 + 32);
    ops->destroy(st);
}

static void test_tcache_lifo(void)
{
    void *st = make(NULL, NULL);
    rs_addr a[9];
    for (int i = 0; i < 9; i++)
        a[i] = ops->alloc(st, 24, 0, 0);
    for (int i = 0; i < 8; i++) /* 7 to the tcache, the 8th to a fastbin */
        ops->free(st, a[i], 24, 0, 0);
    rs_alloc_stats s;
    ops->stats(st, &s);
    CHECK_EQ_U64(s.cached_bytes, 8 * 32);
    rs_gl_mallinfo mi;
    rs_gl_mallinfo2(st, &mi);
    CHECK_EQ_U64(mi.smblks, 1);
    CHECK_EQ_U64(mi.fsmblks, 32);
    for (int i = 6; i >= 0; i--) /* tcache: newest first */
        CHECK_EQ_U64(ops->alloc(st, 24, 0, 0), a[i]);
    CHECK_EQ_U64(ops->alloc(st, 24, 0, 0), a[7]); /* then the fastbin */
    CHECK_EQ_U64(ops->alloc(st, 20, 0, 0), a[8] + 32); /* then the top */
    /* another thread has its own tcache: a free there is not seen here */
    ops->free(st, a[3], 24, 1, 0);
    CHECK(ops->alloc(st, 24, 0, 0) != a[3]);
    CHECK_EQ_U64(ops->alloc(st, 24, 1, 0), a[3]);
    audit(st);
    ops->destroy(st);
}

static void test_fastbin_lifo(void)
{
    void *st = make("glibc_tcache_count", "0");
    rs_addr a[4];
    for (int i = 0; i < 4; i++)
        a[i] = ops->alloc(st, 100, 0, 0);
    for (int i = 0; i < 3; i++)
        ops->free(st, a[i], 100, 0, 0);
    rs_gl_mallinfo mi;
    rs_gl_mallinfo2(st, &mi);
    CHECK_EQ_U64(mi.smblks, 3);
    CHECK_EQ_U64(ops->alloc(st, 100, 0, 0), a[2]);
    CHECK_EQ_U64(ops->alloc(st, 100, 0, 0), a[1]);
    CHECK_EQ_U64(ops->alloc(st, 100, 0, 0), a[0]);
    audit(st);
    ops->destroy(st);
}

static void test_coalesce(void)
{
    void *st = make("glibc_tcache_count", "0");
    rs_addr a = ops->alloc(st, 200, 0, 0), b = ops->alloc(st, 200, 0, 0), c = ops->alloc(st, 200, 0, 0);
    rs_addr guard = ops->alloc(st, 200, 0, 0);
    CHECK_EQ_U64(b - a, 208);
    ops->free(st, a, 200, 0, 0);
    ops->free(st, c, 200, 0, 0);
    rs_gl_mallinfo mi;
    rs_gl_mallinfo2(st, &mi);
    CHECK_EQ_U64(mi.ordblks, 3); /* a, c, top */
    ops->free(st, b, 200, 0, 0); /* joins both neighbours */
    rs_gl_mallinfo2(st, &mi);
    CHECK_EQ_U64(mi.ordblks, 2);
    CHECK_EQ_U64(mi.fordblks - mi.keepcost, 3 * 208);
    audit(st);
    /* 600 B needs 608: the 624-byte chunk is sorted to its small bin, found by
     * the binmap, and the 16-byte rest (< MINSIZE) stays with the chunk */
    rs_addr d = ops->alloc(st, 600, 0, 0);
    CHECK_EQ_U64(d, a);
    CHECK_EQ_U64(rs_gl_chunk_size_of(st, d, 600), 624);
    rs_alloc_stats s;
    ops->stats(st, &s);
    CHECK_EQ_U64(s.allocated_bytes, 616 + 200);
    audit(st);
    ops->free(st, d, 600, 0, 0);
    ops->free(st, guard, 200, 0, 0); /* everything returns to the top */
    rs_gl_mallinfo2(st, &mi);
    CHECK_EQ_U64(mi.ordblks, 1);
    CHECK_EQ_U64(mi.uordblks, 656);
    audit(st);
    ops->destroy(st);
}

static void test_top_trim(void)
{
    void *st = make(NULL, NULL);
    rs_addr a[40];
    for (int i = 0; i < 40; i++)
        a[i] = ops->alloc(st, 10000, 0, 0);
    rs_gl_mallinfo before, after;
    rs_gl_mallinfo2(st, &before);
    rs_alloc_stats s0, s1;
    ops->stats(st, &s0);
    for (int i = 39; i >= 0; i--)
        ops->free(st, a[i], 10000, 0, 0);
    rs_gl_mallinfo2(st, &after);
    ops->stats(st, &s1);
    CHECK(before.arena > 400000);
    CHECK(after.arena < before.arena);
    /* systrim keeps top_pad (128 KiB) + MINSIZE + at most a page */
    CHECK(after.keepcost <= 131072 + 32 + 1 + 4096);
    CHECK(after.keepcost > 131072);
    CHECK_EQ_U64(s1.released_bytes - s0.released_bytes, s0.resident_bytes - s1.resident_bytes);
    CHECK(s1.mapped_bytes == after.arena);
    audit(st);
    ops->destroy(st);

    /* a larger trim threshold keeps the top */
    st = make("glibc_trim_threshold", "64M");
    for (int i = 0; i < 40; i++)
        a[i] = ops->alloc(st, 10000, 0, 0);
    rs_gl_mallinfo2(st, &before);
    for (int i = 39; i >= 0; i--)
        ops->free(st, a[i], 10000, 0, 0);
    rs_gl_mallinfo2(st, &after);
    CHECK_EQ_U64(after.arena, before.arena);
    ops->destroy(st);
}

static void test_mmap_threshold(void)
{
    void *st = make(NULL, NULL);
    rs_addr m = ops->alloc(st, 200000, 0, 0);
    CHECK(m >= RS_GL_MMAP_BASE);
    rs_alloc_stats s;
    ops->stats(st, &s);
    CHECK_EQ_U64(s.allocated_bytes, 200688);
    ops->free(st, m, 200000, 0, 0);
    CHECK_EQ_U64(rs_gl_mmap_threshold(st), 200704);
    CHECK_EQ_U64(rs_gl_trim_threshold(st), 2 * 200704);
    rs_addr h = ops->alloc(st, 200000, 0, 0);
    CHECK(h < RS_GL_MMAP_BASE);
    ops->free(st, h, 200000, 0, 0);
    rs_addr big = ops->alloc(st, 1 << 20, 0, 0);
    CHECK(big >= RS_GL_MMAP_BASE);
    ops->free(st, big, 1 << 20, 0, 0);
    CHECK_EQ_U64(rs_gl_mmap_threshold(st), 1052672);
    rs_addr huge = ops->alloc(st, 40 << 20, 0, 0); /* above the 32 MiB cap: no rise */
    ops->free(st, huge, 40 << 20, 0, 0);
    CHECK_EQ_U64(rs_gl_mmap_threshold(st), 1052672);
    audit(st);
    ops->destroy(st);

    /* an explicit threshold disables the rise (mp_.no_dyn_threshold) */
    st = make("glibc_mmap_threshold", "128K");
    m = ops->alloc(st, 200000, 0, 0);
    ops->free(st, m, 200000, 0, 0);
    CHECK_EQ_U64(rs_gl_mmap_threshold(st), 131072);
    CHECK(ops->alloc(st, 200000, 0, 0) >= RS_GL_MMAP_BASE);
    ops->destroy(st);
}

static void test_malloc_trim(void)
{
    void *st = make("glibc_tcache_count", "0");
    rs_addr a = ops->alloc(st, 100000, 0, 0);
    rs_addr g = ops->alloc(st, 100, 0, 0);
    ops->free(st, a, 100000, 0, 0);
    rs_alloc_stats s0, s1;
    rs_gl_mallinfo m0, m1;
    ops->stats(st, &s0);
    rs_gl_mallinfo2(st, &m0);
    ops->release(st, 0);
    ops->stats(st, &s1);
    rs_gl_mallinfo2(st, &m1);
    uint64_t off = a - 16 - RS_GL_HEAP_BASE;
    uint64_t lo = (off + 48 + 4095) & ~4095ull, hi = (off + 100016) & ~4095ull;
    uint64_t top_cut = (m0.keepcost - 33) & ~4095ull;
    CHECK_EQ_U64(m1.arena, m0.arena - top_cut);
    CHECK(s0.resident_bytes - s1.resident_bytes >= hi - lo);
    CHECK(s0.resident_bytes - s1.resident_bytes <= hi - lo + 4096);
    CHECK_EQ_U64(s1.mapped_bytes, m1.arena); /* madvised pages stay mapped */
    CHECK_EQ_U64(s1.active_bytes, s0.active_bytes);
    audit(st);
    /* reusing the chunk makes its pages resident again */
    CHECK_EQ_U64(ops->alloc(st, 100000, 0, 0), a);
    rs_alloc_stats s2;
    ops->stats(st, &s2);
    CHECK(s2.resident_bytes >= s1.resident_bytes + (hi - lo));
    (void)g;
    audit(st);
    ops->destroy(st);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_random(void)
{
    enum { SLOTS = 8192, OPS = 1000000 };
    static rs_addr addr[SLOTS];
    static uint64_t size[SLOTS];
    static uint32_t thr[SLOTS];
    void *st = make(NULL, NULL);
    uint64_t live_req = 0, live = 0, bad_order = 0, bad_sum = 0;
    memset(addr, 0, sizeof addr);
    for (int i = 0; i < OPS; i++) {
        uint32_t k = (uint32_t)(rnd() % SLOTS);
        if (addr[k]) {
            ops->free(st, addr[k], size[k], (uint32_t)(rnd() % 4), 0); /* cross-thread frees too */
            live_req -= size[k];
            live--;
            addr[k] = 0;
        } else {
            uint64_t r = rnd() % 1000;
            size[k] = r < 600 ? 1 + rnd() % 128 : r < 900 ? 1 + rnd() % 1100
                    : r < 995 ? 1 + rnd() % 30000 : 1 + rnd() % 600000;
            thr[k] = (uint32_t)(rnd() % 4);
            addr[k] = ops->alloc(st, size[k], thr[k], 0);
            CHECK(addr[k] != 0);
            live_req += size[k];
            live++;
        }
        if (i % 50000 == 49999)
            ops->release(st, 0);
        rs_alloc_stats s;
        ops->stats(st, &s);
        bad_order += !ordered(&s);
        bad_sum += s.requested_bytes != live_req || s.live_count != live;
        if (i % 200000 == 199999)
            audit(st);
    }
    CHECK_EQ_U64(bad_order, 0);
    CHECK_EQ_U64(bad_sum, 0);
    for (int k = 0; k < SLOTS; k++)
        if (addr[k])
            ops->free(st, addr[k], size[k], thr[k], 0);
    ops->release(st, 0);
    rs_alloc_stats s;
    ops->stats(st, &s);
    CHECK(s.requested_bytes == 0 && s.allocated_bytes == 0 && s.active_bytes == 0 && s.live_count == 0);
    audit(st);
    ops->destroy(st);
}

/* fragmentation experiment: 1M malloc(16 + rand() % 497), free 75 %, malloc_trim(0) */
static void run_51(int oldest, double r_mb[5])
{
    void *st = make(NULL, NULL);
    rs_alloc_stats s;
    alloc_51 x;
    alloc_51_fill(&x, ops, st);
    ops->stats(st, &s);
    r_mb[0] = (double)s.resident_bytes / 1e6;
    alloc_51_free(&x, oldest);
    ops->stats(st, &s);
    r_mb[1] = (double)s.requested_bytes / 1e6;
    r_mb[2] = (double)s.resident_bytes / 1e6;
    rs_gl_mallinfo mi;
    rs_gl_mallinfo2(st, &mi);
    r_mb[4] = (double)mi.uordblks / 1e6;
    ops->release(st, 0);
    ops->stats(st, &s);
    r_mb[3] = (double)s.resident_bytes / 1e6;
    CHECK(ordered(&s));
    audit(st);
    printf("§5.1 model %-6s: footprint %.1f B/live alloc after free\n", oldest ? "oldest" : "random",
           (double)rs_gl_footprint_bytes(st) / (double)s.live_count);
    ops->destroy(st);
    alloc_51_done(&x);
}

static void test_facts_51(void)
{
    double r[5], o[5];
    run_51(0, r);
    run_51(1, o);
    printf("§5.1 model (MB): after alloc resident %.1f; random: live requested %.1f, in_use "
           "%.1f, resident %.1f, after release %.1f; oldest: live %.1f, resident %.1f, after "
           "release %.1f (glibc 2.36: 289.0 RSS, in_use 69.8, 285.4 / 79.6)\n",
           r[0], r[1], r[4], r[2], r[3], o[1], o[2], o[3]);
    /* qualitative: random frees leave almost every page holding a live
     * chunk; oldest-first frees empty whole pages that malloc_trim returns */
    CHECK(r[3] > 3.5 * r[1]);
    CHECK(o[3] < 1.5 * o[1]);
    CHECK(r[3] > 2.5 * o[3]);
}

int main(void)
{
    test_rounding();
    test_tcache_lifo();
    test_fastbin_lifo();
    test_coalesce();
    test_top_trim();
    test_mmap_threshold();
    test_malloc_trim();
    test_random();
    test_facts_51();
    return check_done();
}
