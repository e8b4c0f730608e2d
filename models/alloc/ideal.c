/*
 * ideal.c — the ideal allocator: every live requested byte is resident and
 * nothing else is.  requested = allocated = active = resident = mapped.
 * It is the lower bound that isolates container overhead and trim timing
 * from allocator effects (docs/models.md).  Addresses are a bump counter.
 */
#include <stdlib.h>

#include "alloc.h"

typedef struct ideal {
    uint64_t next_addr;
    uint64_t live_bytes;
    uint64_t live_count;
} ideal;

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    (void)cfg;
    ideal *a = calloc(1, sizeof *a);
    if (!a)
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator ideal");
    a->next_addr = RS_PAGE_BYTES;
    *r_state = a;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

static rs_addr ideal_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    ideal *a = state;
    (void)thread;
    (void)now_ns;
    /* the live bytes are bounded like every model's heap, and the bump
     * address (which never goes back) refuses to wrap */
    if (size_bytes > RS_ALLOC_MAX_REQUEST_BYTES || size_bytes > RS_ALLOC_MAX_HEAP_BYTES - a->live_bytes ||
        a->next_addr > UINT64_MAX / 2 - RS_ALLOC_MAX_HEAP_BYTES)
        return 0;
    rs_addr addr = a->next_addr;
    a->next_addr += (size_bytes + 15) & ~(uint64_t)15;
    a->live_bytes += size_bytes;
    a->live_count++;
    return addr;
}

static void ideal_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    ideal *a = state;
    (void)addr;
    (void)thread;
    (void)now_ns;
    a->live_bytes -= size_bytes;
    a->live_count--;
}

static uint64_t usable_size(const void *state, uint64_t size_bytes)
{
    (void)state;
    return size_bytes > RS_ALLOC_MAX_REQUEST_BYTES ? 0 : size_bytes;
}

static void stats(const void *state, rs_alloc_stats *r)
{
    const ideal *a = state;
    *r = (rs_alloc_stats){
        .requested_bytes = a->live_bytes,
        .allocated_bytes = a->live_bytes,
        .active_bytes = a->live_bytes,
        .resident_bytes = a->live_bytes,
        .mapped_bytes = a->live_bytes,
        .live_count = a->live_count,
    };
}

const rs_alloc_ops rs_alloc_ideal = {
    .name = "ideal",
    .doc = "requested = resident: no rounding, no fragmentation, no caches (the lower bound)",
    .params = NULL,
    .create = create,
    .destroy = destroy,
    .alloc = ideal_alloc,
    .free = ideal_free,
    .usable_size = usable_size,
    .advance = NULL,
    .release = NULL,
    .stats = stats,
};
