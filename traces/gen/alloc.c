/*
 * alloc.c — raw allocation workloads (`rssim gen alloc`), daemon kind
 * "alloc": MALLOC/FREE/RELEASE records that the alloc daemon replays into an
 * allocator model and rssim-real replays into the real allocator.
 *
 * Patterns (`pattern`):
 *   free-random  `count` allocations, then `free-fraction` of them freed at
 *                random positions (the fragmentation worst case of
 *                docs/validation.md's fragmentation experiment), then RELEASE;
 *   free-oldest  the same, freeing the oldest first (age order, as an LRU
 *                trim does), then RELEASE;
 *   churn        a live set of `count` allocations; every step frees a random
 *                live one and allocates a new one, for `steps` steps;
 *   burst-idle   `count` allocations, all but (1 − free-fraction) freed in
 *                random order, then `idle` of virtual time with nothing but a
 *                RELEASE at its end (for decay and scavengers);
 * Sizes are uniform in [size-min, size-max]; records are `gap` apart in
 * virtual time; thread is round-robin over `threads`.  Handles count from
 * 1.  One GSL MT19937 stream from `seed`: same options and seed, same trace.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* pattern's choices, in order. */
enum { PAT_FREE_RANDOM, PAT_FREE_OLDEST, PAT_CHURN, PAT_BURST_IDLE };

static const rs_param alloc_params[] = {
    { .key = "seed", .type = RS_PT_INT, .def = "1",
      .doc = "seed of the random stream (same options + seed = same trace)" },
    { .key = "pattern", .type = RS_PT_STRING, .def = "free-random",
      .choices = "free-random|free-oldest|churn|burst-idle",
      .doc = "free-random | free-oldest | churn | burst-idle" },
    { .key = "count", .type = RS_PT_INT, .def = "100000",
      .doc = "allocations made first (the live set for churn)" },
    { .key = "steps", .type = RS_PT_INT, .def = "100000",
      .doc = "churn: free+malloc pairs after the live set is built" },
    { .key = "free-fraction", .type = RS_PT_DOUBLE, .def = "0.75",
      .doc = "share of the allocations freed (free-random, free-oldest, burst-idle)" },
    { .key = "size-min", .type = RS_PT_SIZE, .def = "16",
      .doc = "smallest allocation" },
    { .key = "size-max", .type = RS_PT_SIZE, .def = "512",
      .doc = "largest allocation" },
    { .key = "gap", .type = RS_PT_DURATION, .def = "1us",
      .doc = "virtual time between two records" },
    { .key = "idle", .type = RS_PT_DURATION, .def = "30s",
      .doc = "burst-idle: quiet time before the final RELEASE" },
    { .key = "threads", .type = RS_PT_INT, .def = "1",
      .doc = "issuing threads (round-robin), 1 .. 65536" },
    { .key = "release", .type = RS_PT_BOOL, .def = "true",
      .doc = "end with a RELEASE record (malloc_trim / purge / ReleaseFreeMemory)" },
    { .key = NULL },
};

typedef struct gen {
    rs_trace_writer *w;
    gsl_rng *rng;
    uint64_t t_ns, gap_ns, next_handle, nthreads, turn;
    uint64_t size_min, size_max;
} gen;

static int emit(gen *g, unsigned op, uint64_t handle, uint64_t size_bytes, rs_err *err)
{
    rs_rec r = { .t_ns = g->t_ns, .key = handle, .size_bytes = size_bytes, .op = (uint8_t)op,
                 .thread = (uint16_t)(g->turn++ % g->nthreads) };
    g->t_ns += g->gap_ns;
    return rs_trace_write(g->w, &r, err);
}

static uint64_t draw_size(gen *g)
{
    return g->size_min + gsl_rng_uniform_int(g->rng, (unsigned long)(g->size_max - g->size_min + 1));
}

static int generate(const rs_config *opts, const char *data_dir, rs_trace_writer *w,
                    char *r_summary, size_t cap, rs_err *err)
{
    (void)data_dir; /* no data files */
    (void)r_summary; /* nothing to add to the options */
    (void)cap;
    int pattern = rs_config_choice(opts, "pattern");
    int64_t count = rs_config_int(opts, "count"), steps = rs_config_int(opts, "steps");
    int64_t threads = rs_config_int(opts, "threads");
    double frac = rs_config_double(opts, "free-fraction");
    gen g = { .w = w, .gap_ns = rs_config_duration_ns(opts, "gap"), .next_handle = 1,
              .size_min = rs_config_size(opts, "size-min"), .size_max = rs_config_size(opts, "size-max") };
    int rc = 0;

    if (pattern < 0)
        return rs_config_bad_value(opts, "pattern", "not one of its choices", err);
    if (count < 1 || count > 100000000)
        return rs_fail(err, RS_EINPUT, "bad value '%lld' for key 'count': expected 1..100000000",
                       (long long)count);
    if (steps < 0)
        return rs_fail(err, RS_EINPUT, "bad value '%lld' for key 'steps': expected >= 0", (long long)steps);
    if (threads < 1 || threads > 65536)
        return rs_fail(err, RS_EINPUT, "bad value '%lld' for key 'threads': expected 1..65536",
                       (long long)threads);
    if (!(frac >= 0 && frac <= 1))
        return rs_fail(err, RS_EINPUT, "bad value '%g' for key 'free-fraction': expected 0..1", frac);
    if (g.size_min < 1 || g.size_max < g.size_min)
        return rs_fail(err, RS_EINPUT, "bad sizes: need 1 <= size-min <= size-max");
    g.nthreads = (uint64_t)threads;

    uint64_t *handle = malloc((size_t)count * sizeof *handle);
    uint64_t *size = malloc((size_t)count * sizeof *size);
    g.rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!handle || !size || !g.rng) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory for %lld allocations", (long long)count);
        goto out;
    }
    gsl_rng_set(g.rng, (unsigned long)rs_config_int(opts, "seed"));
    for (int64_t i = 0; i < count && !rc; i++) {
        handle[i] = g.next_handle++;
        size[i] = draw_size(&g);
        rc = emit(&g, RS_OP_MALLOC, handle[i], size[i], err);
    }
    uint64_t nfree = (uint64_t)((double)count * frac + 0.5);
    if (pattern == PAT_FREE_OLDEST) {
        for (uint64_t i = 0; i < nfree && !rc; i++)
            rc = emit(&g, RS_OP_FREE, handle[i], size[i], err);
    } else if (pattern == PAT_FREE_RANDOM || pattern == PAT_BURST_IDLE) {
        /* a random nfree-subset in random order: a partial Fisher-Yates */
        for (uint64_t i = 0; i < nfree && !rc; i++) {
            uint64_t j = i + gsl_rng_uniform_int(g.rng, (unsigned long)((uint64_t)count - i));
            uint64_t th = handle[i], ts = size[i];
            handle[i] = handle[j], size[i] = size[j];
            handle[j] = th, size[j] = ts;
            rc = emit(&g, RS_OP_FREE, handle[i], size[i], err);
        }
        if (pattern == PAT_BURST_IDLE)
            g.t_ns += rs_config_duration_ns(opts, "idle");
    } else { /* churn */
        for (int64_t s = 0; s < steps && !rc; s++) {
            uint64_t j = gsl_rng_uniform_int(g.rng, (unsigned long)count);
            rc = emit(&g, RS_OP_FREE, handle[j], size[j], err);
            handle[j] = g.next_handle++;
            size[j] = draw_size(&g);
            if (!rc)
                rc = emit(&g, RS_OP_MALLOC, handle[j], size[j], err);
        }
    }
    if (!rc && rs_config_bool(opts, "release"))
        rc = emit(&g, RS_OP_RELEASE, 0, 0, err);
out:
    if (g.rng)
        gsl_rng_free(g.rng);
    free(handle);
    free(size);
    return rc;
}

const rs_gen_ops rs_gen_alloc = {
    .name = "alloc",
    .doc = "Raw malloc/free patterns: free-random, free-oldest, churn, burst-idle",
    .daemon = "alloc",
    .params = alloc_params,
    .generate = generate,
};
