/*
 * fuzz_alloc.c — libFuzzer target over every allocator model.
 *
 * The input is decoded as a stream of 9-byte operations on each model of
 * the registry (so a new model is fuzzed without an edit here): MALLOC,
 * FREE, RELEASE or a step of virtual time, for one of 64 handles and one of
 * 4 threads.  Sizes are drawn over the whole u64 range in classes: small
 * (1 .. 64 KiB), medium (to 64 MiB), the edges (1, 2^31, 2^32, the trace
 * format's largest MALLOC's neighbourhood is left to test_alloc_edges: a
 * 256 GiB heap per input would be slow), and past every model's heap
 * (RS_ALLOC_MAX_HEAP_BYTES + 1 .. 2^64 - 1, which must be refused).  After
 * every operation the stats must be ordered and sum exactly what is live;
 * at the end the model's audit must pass.  Any violation traps.  Build and
 * run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "models/alloc/alloc.h"
#include "sim/registry.h"
#include "sim/schema.h"

enum { HANDLES = 64, OP_BYTES = 9 };

/* The live bytes an input may hold: a MALLOC that the heap could hold but
 * that would take the input's live bytes past this is skipped.  The models
 * set, clear and count residency a 64-page word at a time, but their page
 * maps still take host memory per simulated page (jemalloc 8 B per 4 KiB),
 * so a heap of 2^36 bytes costs ~200 MiB and ~1 CPU second under the
 * sanitizers for an input holding 16 blocks of 2^32 (about what two such
 * blocks cost when residency was counted page by page, at a cap of 2^33);
 * a size past every heap is still asked for (and must be refused) whatever
 * is live. */
#define LIVE_CAP ((uint64_t)1 << 36)

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t draw_size(uint8_t cls, uint64_t raw)
{
    static const uint64_t edges[] = { 1, (uint64_t)1 << 31, (uint64_t)1 << 32, ((uint64_t)1 << 32) - 1 };
    switch (cls % 8) {
    case 0: case 1: case 2: case 3: return 1 + raw % 65536;
    case 4: return 1 + raw % ((uint64_t)1 << 26);
    case 5: return edges[raw % 4];
    case 6: return RS_ALLOC_MAX_HEAP_BYTES + 1 + raw % (UINT64_MAX - RS_ALLOC_MAX_HEAP_BYTES);
    default: return UINT64_MAX - raw % 16384;
    }
}

static void run_model(const rs_alloc_ops *ops, const rs_config *cfg, const uint8_t *data, size_t size)
{
    rs_addr addr[HANDLES] = { 0 };
    uint64_t bytes[HANDLES] = { 0 }, live_bytes = 0, live = 0, now_ns = 0;
    rs_alloc_stats s;
    rs_err err = { 0 };
    void *st;

    if (ops->create(cfg, &st, &err))
        __builtin_trap();
    for (size_t off = 0; off + OP_BYTES <= size; off += OP_BYTES) {
        uint8_t b = data[off];
        uint64_t raw = le64(data + off + 1);
        unsigned h = (unsigned)(raw >> 58) % HANDLES, thread = (b >> 6) & 3;
        switch (b & 3) {
        case 0: /* MALLOC, or FREE when the handle is live */
        case 1:
            if (addr[h]) {
                ops->free(st, addr[h], bytes[h], thread, now_ns);
                live_bytes -= bytes[h];
                live--;
                addr[h] = 0;
            } else {
                uint64_t n = draw_size((uint8_t)(b >> 2), raw);
                if (n <= RS_ALLOC_MAX_HEAP_BYTES && n > LIVE_CAP - live_bytes)
                    break;
                rs_addr a = ops->alloc(st, n, thread, now_ns);
                if (a) {
                    if (n > RS_ALLOC_MAX_HEAP_BYTES)
                        __builtin_trap(); /* a heap past the bound */
                    addr[h] = a;
                    bytes[h] = n;
                    live_bytes += n;
                    live++;
                }
            }
            break;
        case 2:
            if (ops->release)
                ops->release(st, now_ns);
            break;
        default:
            now_ns += raw % 2000000000u;
            if (ops->advance)
                ops->advance(st, now_ns);
            break;
        }
        ops->stats(st, &s);
        if (!rs_alloc_stats_ordered(&s) || s.requested_bytes != live_bytes || s.live_count != live)
            __builtin_trap();
    }
    if (ops->audit && ops->audit(st, &err))
        __builtin_trap();
    for (unsigned h = 0; h < HANDLES; h++)
        if (addr[h])
            ops->free(st, addr[h], bytes[h], 0, now_ns);
    ops->stats(st, &s);
    if (s.requested_bytes != 0 || s.live_count != 0)
        __builtin_trap();
    ops->destroy(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rs_config *cfg;
    rs_err err = { 0 };

    if (rs_config_new(&cfg, &err))
        __builtin_trap();
    for (size_t i = 0; i < rs_reg_alloc.count; i++)
        run_model(rs_reg_alloc.entries[i], cfg, data, size);
    rs_config_free(cfg);
    return 0;
}
