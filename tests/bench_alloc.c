/*
 * bench_alloc.c — throughput and footprint of an allocator model, by name
 * from the registry (not a ctest: built by tests/bench.cmake, run by hand).
 *
 *   bench_alloc MODEL [pairs [live [threads [random|oldest|both]]]]
 *   bench_alloc MODEL footprint [count [size]]
 *
 * churn: `live` allocations are made, then `pairs` times one live allocation
 * is freed and a new one of a random size allocated (60 % 16..256 B, 30 %
 * 257..2048 B, 9 % 2 KiB..14 KiB, 1 % 16..128 KiB); each operation runs on thread
 * (pair number % threads); the freed one is chosen at
 * random (worst case: every free is a cache miss) and then oldest-first (what
 * an LRU cache does).  The same loop without the model is timed too, so the
 * model's own cost can be read off.
 * footprint: `count` (10 M) live allocations of `size` (64) bytes; the model's
 * host bytes per allocation (its ops' footprint_bytes, array capacities
 * included, where the model has one) and the process's peak RSS growth.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "models/alloc/alloc.h"
#include "sim/registry.h"

static const rs_alloc_ops *ops;

/* The model's own count of its host memory, or 0 when it has none. */
static uint64_t footprint_bytes(const void *st)
{
    return ops->footprint_bytes ? ops->footprint_bytes(st) : 0;
}

static uint64_t rng = 88172645463325252ull;

static inline uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static inline uint64_t draw_size(void)
{
    uint64_t r = next_u64(), p = r % 100, v = r >> 8;
    if (p < 60)
        return 16 + v % 241;
    if (p < 90)
        return 257 + v % 1792;
    if (p < 99)
        return 2049 + v % 12288;
    return 16384 + v % 114689;
}

/* Process CPU time: less sensitive than wall time to other jobs on a shared
 * machine (still sensitive to their cache traffic). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* One churn run: `live` allocations, then `pairs` free+alloc pairs that
 * free a random live allocation (fifo = 0) or the oldest one (fifo = 1). */
static int churn(uint64_t pairs, uint64_t live, uint32_t threads, int fifo)
{
    rs_err err = {0};
    void *st = NULL;
    if (ops->create(NULL, &st, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }

    struct live_alloc {
        rs_addr addr;
        uint64_t size_bytes;
    } *v = malloc(live * sizeof *v);
    if (!v)
        return 1;
    rng = 88172645463325252ull;
    for (uint64_t i = 0; i < live; i++) {
        v[i].size_bytes = draw_size();
        v[i].addr = ops->alloc(st, v[i].size_bytes, 0, 0);
    }

    /* the harness alone: same RNG and array traffic, no model */
    uint64_t saved = rng, sink = 0, slot = 0;
    double t0 = now_s();
    for (uint64_t k = 0; k < pairs; k++) {
        uint64_t i = fifo ? slot : next_u64() % live;
        slot = slot + 1 == live ? 0 : slot + 1;
        sink += v[i].addr + v[i].size_bytes + draw_size() + k % threads;
    }
    double t_harness = now_s() - t0;
    rng = saved;
    slot = 0;

    t0 = now_s();
    for (uint64_t k = 0; k < pairs; k++) {
        uint64_t i = fifo ? slot : next_u64() % live;
        slot = slot + 1 == live ? 0 : slot + 1;
        uint32_t t = (uint32_t)(k % threads);
        ops->free(st, v[i].addr, v[i].size_bytes, t, 0);
        v[i].size_bytes = draw_size();
        v[i].addr = ops->alloc(st, v[i].size_bytes, t, 0);
    }
    double t_model = now_s() - t0;
    rs_alloc_stats s;
    ops->stats(st, &s);
    printf("%s: %s frees, %u threads, %llu pairs over %llu live: %.2f CPU s = %.1f M pairs/s "
           "(harness alone %.2f s; model only %.1f M pairs/s)\n",
           ops->name, fifo ? "oldest-first" : "random", threads, (unsigned long long)pairs,
           (unsigned long long)live, t_model, (double)pairs / t_model / 1e6, t_harness,
           (double)pairs / (t_model - t_harness) / 1e6);
    printf("  requested %.1f MB allocated %.1f active %.1f resident %.1f mapped %.1f dirty %.1f "
           "cached %.1f; "
           "model state %.1f MB (sink %llu)\n",
           s.requested_bytes / 1e6, s.allocated_bytes / 1e6, s.active_bytes / 1e6,
           s.resident_bytes / 1e6, s.mapped_bytes / 1e6, s.dirty_bytes / 1e6, s.cached_bytes / 1e6,
           footprint_bytes(st) / 1e6, (unsigned long long)(sink & 1));
    ops->destroy(st);
    free(v);
    return 0;
}

/* n live allocations of size_bytes: host bytes per simulated allocation. */
static int footprint(uint64_t n, uint64_t size_bytes)
{
    rs_err err = {0};
    void *st = NULL;
    long rss0 = maxrss_kb();
    if (ops->create(NULL, &st, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    double t0 = now_s();
    uint64_t failed = 0;
    for (uint64_t i = 0; i < n; i++)
        failed += ops->alloc(st, size_bytes, 0, 0) == 0;
    double t_fill = now_s() - t0;
    uint64_t fp = footprint_bytes(st);
    long rss1 = maxrss_kb();
    printf("%s footprint: %llu live %llu-byte allocations (%llu failed) in %.2f CPU s: model state "
           "%llu bytes = %.3f bytes/allocation; peak RSS grew %ld KiB = %.3f bytes/allocation\n",
           ops->name, (unsigned long long)n, (unsigned long long)size_bytes, (unsigned long long)failed,
           t_fill, (unsigned long long)fp, (double)fp / (double)n, rss1 - rss0,
           (double)(rss1 - rss0) * 1024.0 / (double)n);
    ops->destroy(st);
    return 0;
}

int main(int argc, char **argv)
{
    rs_err err;
    if (argc < 2 || rs_registry_get(&rs_reg_alloc, argv[1], (const void **)&ops, &err)) {
        fprintf(stderr, "usage: bench_alloc MODEL [pairs [live [threads [random|oldest|both]]]]"
                        " | MODEL footprint [count [size]]%s%s\n", argc < 2 ? "" : "\n", argc < 2 ? "" : err.msg);
        return 2;
    }
    argc--;
    argv++;
    if (argc > 1 && strcmp(argv[1], "footprint") == 0)
        return argc > 2 ? footprint(strtoull(argv[2], NULL, 10), argc > 3 ? strtoull(argv[3], NULL, 10) : 64)
                        : footprint(10000000, 64);
    uint64_t pairs = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
    uint64_t live = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    uint32_t threads = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1;
    const char *order = argc > 4 ? argv[4] : "both";
    if (pairs == 0 || live == 0) {
        fprintf(stderr, "usage: bench_alloc MODEL [pairs [live [threads [random|oldest|both]]]]"
                        " | MODEL footprint [count [size]]\n");
        return 2;
    }
    int rc = 0;
    if (strcmp(order, "oldest") != 0)
        rc |= churn(pairs, live, threads, 0);
    if (strcmp(order, "random") != 0)
        rc |= churn(pairs, live, threads, 1);
    return rc;
}
