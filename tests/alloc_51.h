/*
 * alloc_51.h — the fragmentation experiment (docs/validation.md) on any
 * allocator model, for the model tests: 1,000,000 allocations of
 * 16 + rand() % 497 bytes, then 75 % of them freed at random positions or
 * oldest first.  The caller reads the model's stats between the phases,
 * calls its release, and judges the shape (random-order frees must leave
 * far more resident than age-order ones).  One fixed xorshift64* stream, so
 * every model sees the same sizes and the same random order.
 */
#ifndef RS_ALLOC_51_H
#define RS_ALLOC_51_H

#include <stdint.h>
#include <stdlib.h>

#include "models/alloc/alloc.h"

enum { ALLOC_51_N = 1000000 };

typedef struct alloc_51 {
    const rs_alloc_ops *ops;
    void *st;
    rs_addr *addr;
    uint32_t *size;
    uint32_t *order;
    uint64_t rng;
} alloc_51;

static inline uint64_t alloc_51_rng(alloc_51 *x) /* xorshift64* */
{
    x->rng ^= x->rng >> 12;
    x->rng ^= x->rng << 25;
    x->rng ^= x->rng >> 27;
    return x->rng * 0x2545F4914F6CDD1Dull;
}

/* Phase 1: the million allocations (on thread 0, at time 0). */
static inline void alloc_51_fill(alloc_51 *x, const rs_alloc_ops *ops, void *st)
{
    *x = (alloc_51){ .ops = ops, .st = st, .rng = 12345 };
    x->addr = malloc(ALLOC_51_N * sizeof *x->addr);
    x->size = malloc(ALLOC_51_N * sizeof *x->size);
    x->order = malloc(ALLOC_51_N * sizeof *x->order);
    if (!x->addr || !x->size || !x->order)
        abort();
    for (uint32_t i = 0; i < ALLOC_51_N; i++) {
        x->size[i] = 16 + (uint32_t)(alloc_51_rng(x) % 497);
        x->addr[i] = ops->alloc(st, x->size[i], 0, 0);
        x->order[i] = i;
    }
}

/* Phase 2: free 75 %, in random order (Fisher-Yates) or oldest first. */
static inline void alloc_51_free(alloc_51 *x, int oldest)
{
    if (!oldest)
        for (uint32_t i = ALLOC_51_N - 1; i > 0; i--) {
            uint32_t j = (uint32_t)(alloc_51_rng(x) % (uint64_t)(i + 1)), t = x->order[i];
            x->order[i] = x->order[j];
            x->order[j] = t;
        }
    for (uint32_t i = 0; i < ALLOC_51_N * 3 / 4; i++)
        x->ops->free(x->st, x->addr[x->order[i]], x->size[x->order[i]], 0, 0);
}

/* The arrays go; the model (and its remaining allocations) is the caller's. */
static inline void alloc_51_done(alloc_51 *x)
{
    free(x->addr);
    free(x->size);
    free(x->order);
}

#endif
