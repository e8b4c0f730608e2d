/* pcache.c — PriorityCache arithmetic; see pcache.h. */
#include "pcache.h"

#define MIB (1024ull * 1024ull)

void rs_pcache_init(rs_pcache *pc, uint64_t target_bytes, uint64_t base_bytes,
                    double expected_fragmentation, uint64_t cache_min_bytes)
{
    double ltarget = (1.0 - expected_fragmentation) * (double)target_bytes;
    pc->target_bytes = target_bytes;
    pc->min_bytes = cache_min_bytes;
    pc->max_bytes = ltarget > (double)(base_bytes + cache_min_bytes)
                        ? (uint64_t)(ltarget - (double)base_bytes) : cache_min_bytes;
    pc->tuned_bytes = cache_min_bytes;
    pc->chunk_v16 = 0;
}

void rs_pcache_tune(rs_pcache *pc, uint64_t mapped_bytes)
{
    double t = (double)pc->tuned_bytes;
    double lo = (double)pc->min_bytes, hi = (double)pc->max_bytes;
    if (t < lo)
        t = lo;
    if (t > hi)
        t = hi;
    if (mapped_bytes < pc->target_bytes)
        t += (1.0 - (double)mapped_bytes / (double)pc->target_bytes) * (hi - t);
    else
        t -= (1.0 - (double)pc->target_bytes / (double)mapped_bytes) * (t - lo);
    pc->tuned_bytes = (uint64_t)t;
}

uint64_t rs_pcache_chunk(uint64_t usage_bytes, uint64_t total_bytes)
{
    uint64_t p2 = 1;
    while (p2 < total_bytes && p2 < (1ull << 62))
        p2 <<= 1;
    uint64_t chunk = p2 / 256;
    if (chunk < 4 * MIB)
        chunk = 4 * MIB;
    if (chunk > 16 * MIB) /* the comment in PriorityCache.cc says 32 MiB; the code caps at 16 */
        chunk = 16 * MIB;
    uint64_t v = usage_bytes + 16 * chunk;
    return (v + chunk - 1) / chunk * chunk;
}

uint64_t rs_pcache_chunk_of(const rs_pcache *pc, uint64_t usage_bytes)
{
    if (!pc->chunk_v16)
        return rs_pcache_chunk(usage_bytes, pc->tuned_bytes);
    uint64_t p2 = 1;
    while (p2 < pc->tuned_bytes && p2 < (1ull << 62))
        p2 <<= 1;
    uint64_t chunk = p2 / 256;
    if (chunk < 4 * MIB)
        chunk = 4 * MIB;
    if (chunk > 64 * MIB)
        chunk = 64 * MIB;
    uint64_t v = usage_bytes + 64 * MIB;
    return (v + chunk - 1) / chunk * chunk;
}

void rs_pcache_balance(const rs_pcache *pc, unsigned n, const uint64_t *want,
                       const double *ratio, uint64_t *r_commit)
{
    double assigned[RS_PCACHE_MAX_CACHES] = { 0 };
    double reserve = (double)rs_pcache_chunk_of(pc, 1) * n;
    double avail = (double)pc->tuned_bytes > reserve ? (double)pc->tuned_bytes - reserve : 0;

    /* priority 1: fair share by ratio among the caches still wanting bytes */
    for (int round = 0; round < 8 && avail > 0.5; round++) {
        double rsum = 0, given = 0;
        for (unsigned i = 0; i < n; i++)
            if ((double)want[i] > assigned[i])
                rsum += ratio[i];
        if (rsum <= 0)
            break;
        for (unsigned i = 0; i < n; i++) {
            if ((double)want[i] <= assigned[i])
                continue;
            double share = avail * ratio[i] / rsum, need = (double)want[i] - assigned[i];
            double g = share < need ? share : need;
            assigned[i] += g;
            given += g;
        }
        avail -= given;
    }
    /* the leftover at the last priority, by ratio */
    double rall = 0;
    for (unsigned i = 0; i < n; i++)
        rall += ratio[i];
    for (unsigned i = 0; i < n; i++) {
        if (rall > 0 && avail > 0)
            assigned[i] += avail * ratio[i] / rall;
        r_commit[i] = rs_pcache_chunk_of(pc, (uint64_t)assigned[i]);
    }
}
