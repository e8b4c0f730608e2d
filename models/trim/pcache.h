/*
 * pcache.h — Ceph's PriorityCache memory autotuner as pure arithmetic
 * (Ceph src/common/PriorityCache.cc @50455f78, the same algorithm as in
 * v15.2.5).  No clock, no allocator: the caller passes the
 * mapped bytes it read and calls tune/balance on its own timers, so the
 * trim policy `autotune` and the `osd` daemon share one implementation.
 *
 *   limits:  ltarget = (1 - expected_fragmentation) * target;
 *            max = ltarget - base if ltarget > base + min, else min.
 *   tune:    mapped < target: tuned += (1 - mapped/target) * (max - tuned)
 *            else             tuned -= (1 - target/mapped) * (tuned - min)
 *            ("approach the min/max slowly, but bounce away quickly").
 *   chunk:   nextpow2(total)/256 clamped to [4 MiB, 16 MiB]; a cache is
 *            committed roundup(usage + 16 chunks, chunk).
 */
#ifndef RS_PCACHE_H
#define RS_PCACHE_H

#include <stdint.h>

typedef struct rs_pcache {
    uint64_t target_bytes; /* osd_memory_target */
    uint64_t min_bytes;    /* osd_memory_cache_min */
    uint64_t max_bytes;    /* the ceiling from the limits above */
    uint64_t tuned_bytes;  /* the current memory budget of all caches */
    int chunk_v16;         /* get_chunk as v16+: usage + 64 MiB, chunk in [4, 64] MiB */
} rs_pcache;

/* Limits from osd_memory_target, _base, _expected_fragmentation and
 * _cache_min; tuned starts at min, as the Manager does before its first tune. */
void rs_pcache_init(rs_pcache *pc, uint64_t target_bytes, uint64_t base_bytes,
                    double expected_fragmentation, uint64_t cache_min_bytes);
/* One tune_memory() step from the mapped bytes read now. */
void rs_pcache_tune(rs_pcache *pc, uint64_t mapped_bytes);
/* get_chunk(usage, total): the bytes a cache using usage is committed
 * (v14/v15: roundup(usage + 16 chunks, chunk), chunk in [4, 16] MiB). */
uint64_t rs_pcache_chunk(uint64_t usage_bytes, uint64_t total_bytes);
/* The same in pc's release: v16+ PriorityCache.cc get_chunk bounds the
 * chunk to [4, 64] MiB and adds a fixed 64 MiB of headroom ("to absorb
 * compaction reads") before rounding up to the chunk. */
uint64_t rs_pcache_chunk_of(const rs_pcache *pc, uint64_t usage_bytes);

/* balance(): share tuned minus one reserve chunk per cache among n caches.
 * want[i] is cache i's priority-1 request (its used bytes), ratio[i] its
 * cache ratio; the leftover is split by ratio.  r_commit[i] gets what each
 * cache is committed (get_chunk of its assignment). */
#define RS_PCACHE_MAX_CACHES 4
void rs_pcache_balance(const rs_pcache *pc, unsigned n, const uint64_t *want,
                       const double *ratio, uint64_t *r_commit);

#endif
