/*
 * test_alloc_edges.c — every allocator model at the arithmetic edges of a
 * request size: 0, 1, 2^31, 2^32, the trace format's largest MALLOC
 * (RS_REC_MALLOC_MAX_BYTES: every model must place it in an empty heap), the
 * largest single request a model places (RS_ALLOC_MAX_REQUEST_BYTES) and one
 * byte more, one byte more than the largest heap (RS_ALLOC_MAX_HEAP_BYTES),
 * 2^44, 2^47, 2^63 and 2^64 - 1.  A model either places the request correctly (a non-zero
 * address, allocated >= requested = the size, the stats ordered, its audit
 * clean, everything back to zero after the free) or refuses it (address 0,
 * nothing changed) — never a wrapped number.  usable_size is >= the request
 * or 0 ("too large").  Then the largest request each model accepts is
 * repeated until the model refuses, which must happen before any counter
 * wraps (issue 17: tcmalloc's page count wrapped for a request near 2^64).
 */
#include <string.h>

#include "check.h"
#include "models/alloc/alloc.h"
#include "sim/schema.h"
#include "sim/registry.h"

static rs_config *default_config(void)
{
    rs_config *cfg;
    rs_err err;
    if (rs_config_new(&cfg, &err))
        abort();
    return cfg;
}

static const uint64_t edge_sizes[] = {
    0, 1, (uint64_t)1 << 31, (uint64_t)1 << 32, RS_REC_MALLOC_MAX_BYTES, RS_ALLOC_MAX_REQUEST_BYTES,
    RS_ALLOC_MAX_REQUEST_BYTES + 1, RS_ALLOC_MAX_HEAP_BYTES + 1,
    (uint64_t)1 << 44, (uint64_t)1 << 47, (uint64_t)1 << 63, UINT64_MAX - 8192, UINT64_MAX,
};

static int zero_stats(const rs_alloc_stats *s)
{
    return s->requested_bytes == 0 && s->allocated_bytes == 0 && s->live_count == 0 &&
           s->active_bytes == 0;
}

static void check_edge(const rs_alloc_ops *ops, uint64_t size)
{
    rs_config *cfg = default_config();
    rs_alloc_stats s;
    rs_err err;
    void *st;

    CHECK_MSG(ops->create(cfg, &st, &err) == 0, "%s: %s", ops->name, err.msg);
    uint64_t usable = ops->usable_size(st, size);
    CHECK_MSG(usable == 0 || usable >= size, "%s: usable_size(%llu) = %llu wrapped", ops->name,
              (unsigned long long)size, (unsigned long long)usable);
    rs_addr a = ops->alloc(st, size, 0, 1000);
    CHECK_MSG(a || size == 0 || size > RS_REC_MALLOC_MAX_BYTES,
              "%s: refused %llu bytes, which a trace may ask for", ops->name, (unsigned long long)size);
    ops->stats(st, &s);
    CHECK_MSG(rs_alloc_stats_ordered(&s), "%s: %llu bytes: stats out of order (requested %llu "
              "allocated %llu active %llu resident %llu mapped %llu)", ops->name,
              (unsigned long long)size, (unsigned long long)s.requested_bytes,
              (unsigned long long)s.allocated_bytes, (unsigned long long)s.active_bytes,
              (unsigned long long)s.resident_bytes, (unsigned long long)s.mapped_bytes);
    if (a) {
        CHECK_MSG(s.requested_bytes == size && s.live_count == 1, "%s: %llu bytes: requested %llu",
                  ops->name, (unsigned long long)size, (unsigned long long)s.requested_bytes);
        CHECK_MSG(s.allocated_bytes >= size, "%s: %llu bytes: allocated %llu < requested", ops->name,
                  (unsigned long long)size, (unsigned long long)s.allocated_bytes);
        CHECK_MSG(s.mapped_bytes >= s.requested_bytes, "%s: %llu bytes: mapped %llu", ops->name,
                  (unsigned long long)size, (unsigned long long)s.mapped_bytes);
        if (ops->audit)
            CHECK_MSG(ops->audit(st, &err) == 0, "%s: %llu bytes: audit: %s", ops->name,
                      (unsigned long long)size, err.msg);
        ops->free(st, a, size, 0, 2000);
        ops->stats(st, &s);
        CHECK_MSG(s.requested_bytes == 0 && s.live_count == 0 && rs_alloc_stats_ordered(&s),
                  "%s: %llu bytes: after the free requested %llu live %llu", ops->name,
                  (unsigned long long)size, (unsigned long long)s.requested_bytes,
                  (unsigned long long)s.live_count);
    } else {
        CHECK_MSG(zero_stats(&s), "%s: refused %llu bytes but its stats changed", ops->name,
                  (unsigned long long)size);
    }
    if (ops->audit)
        CHECK_MSG(ops->audit(st, &err) == 0, "%s: %llu bytes: audit at the end: %s", ops->name,
                  (unsigned long long)size, err.msg);
    ops->destroy(st);
    rs_config_free(cfg);
}

/* Requests of size until the model refuses one (or 2^17 succeed): the sums
 * stay exact, so nothing wraps on the way to the model's limit. */
static void check_exhaust(const rs_alloc_ops *ops, uint64_t size)
{
    rs_config *cfg = default_config();
    rs_alloc_stats s;
    rs_err err;
    void *st;
    uint64_t n = 0;

    CHECK_MSG(ops->create(cfg, &st, &err) == 0, "%s: %s", ops->name, err.msg);
    while (n < ((uint64_t)1 << 17) && ops->alloc(st, size, (uint32_t)(n % 4), 1000 + n))
        n++;
    ops->stats(st, &s);
    CHECK_MSG(rs_alloc_stats_ordered(&s), "%s: %llu x %llu bytes: stats out of order", ops->name,
              (unsigned long long)n, (unsigned long long)size);
    CHECK_MSG(s.live_count == n, "%s: %llu live, %llu counted", ops->name, (unsigned long long)n,
              (unsigned long long)s.live_count);
    CHECK_MSG(n == 0 || s.requested_bytes / n == size, "%s: %llu x %llu bytes: requested %llu wrapped",
              ops->name, (unsigned long long)n, (unsigned long long)size,
              (unsigned long long)s.requested_bytes);
    CHECK_MSG(s.mapped_bytes >= s.requested_bytes, "%s: mapped %llu < requested %llu", ops->name,
              (unsigned long long)s.mapped_bytes, (unsigned long long)s.requested_bytes);
    ops->destroy(st);
    rs_config_free(cfg);
}

int main(void)
{
    for (size_t i = 0; i < rs_reg_alloc.count; i++) {
        const rs_alloc_ops *ops = rs_reg_alloc.entries[i];
        for (size_t k = 0; k < sizeof edge_sizes / sizeof edge_sizes[0]; k++)
            check_edge(ops, edge_sizes[k]);
        check_exhaust(ops, RS_REC_MALLOC_MAX_BYTES / 3);
        check_exhaust(ops, (uint64_t)1 << 47);
    }
    return check_done();
}
