/*
 * bench_alloc_glibc.c — throughput and footprint of the glibc model (not a
 * ctest: built by tests/glibc.cmake, run by hand).
 *
 *   bench_alloc_glibc [pairs [live]]
 *
 * `live` (100k) allocations are made, then `pairs` (10M) times a random live
 * allocation is freed and a new one of a random size allocated (60 %
 * 16..256 B, 30 % 257..2048 B, 9 % 2..14 KiB, 1 % 16..128 KiB).  Prints
 * pairs per CPU-second and the model's host bytes per live allocation
 * (rs_gl_footprint_bytes, capacities included).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "models/alloc/glibc.h"

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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    uint64_t pairs = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    uint64_t live = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
    const rs_alloc_ops *ops = &rs_alloc_glibc;
    rs_err err = {0};
    void *st = NULL;
    if (ops->create(NULL, &st, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    rs_addr *addr = malloc(live * sizeof *addr);
    uint64_t *size = malloc(live * sizeof *size);
    if (!addr || !size)
        return 1;
    for (uint64_t i = 0; i < live; i++)
        addr[i] = ops->alloc(st, size[i] = draw_size(), 0, 0);
    double t0 = now_s();
    for (uint64_t i = 0; i < pairs; i++) {
        uint64_t k = next_u64() % live;
        ops->free(st, addr[k], size[k], 0, 0);
        addr[k] = ops->alloc(st, size[k] = draw_size(), 0, 0);
    }
    double dt = now_s() - t0;
    rs_alloc_stats s;
    ops->stats(st, &s);
    printf("glibc model: %.2f M alloc+free pairs per CPU-second (%llu pairs, %llu live); "
           "footprint %.1f B per live allocation; resident %.1f MB, allocated %.1f MB\n",
           (double)pairs / dt / 1e6, (unsigned long long)pairs, (unsigned long long)live,
           (double)rs_gl_footprint_bytes(st) / (double)s.live_count, (double)s.resident_bytes / 1e6,
           (double)s.allocated_bytes / 1e6);
    ops->destroy(st);
    free(addr);
    free(size);
    return 0;
}
