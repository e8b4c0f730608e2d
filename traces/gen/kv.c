/*
 * kv.c — the Zipf key-value workload generator (`rssim gen kv`).
 *
 * Writes `events` GET/SET/DEL records of a kv trace:
 *   - arrivals are Poisson at `rate` ops/s: gaps are exponential
 *     (gsl_ran_exponential, mean 1e9/rate ns), summed in double precision;
 *     t_ns is the floor of the running sum, so the first record is at the
 *     first gap and times never decrease;
 *   - key popularity is Zipf with exponent `alpha` over `keys` ranks (rank 1
 *     hottest), sampled by rejection-inversion (Hörmann & Derflinger 1996,
 *     "Rejection-inversion to generate variates from monotone discrete
 *     distributions", ACM TOMACS 6(3); the formulation of Apache Commons RNG's
 *     RejectionInversionZipfSampler): O(1) memory and time per sample for any
 *     key count, no CDF table.  alpha = 0 is uniform;
 *   - rank r becomes key id perm(r - 1), a fixed bijection of [0, keys)
 *     (a 4-round alternating Feistel network over the next power of two,
 *     with cycle walking), so hot keys are spread over the id space instead
 *     of being 0..k;
 *   - the op is GET/SET/DEL with probabilities get/set/del normalised;
 *   - thread is uniform in [0, threads);
 *   - a key's size is a pure function of (seed, key): a 64-bit hash mapped to
 *     u in (0,1) and through the inverse CDF of the size distribution
 *     (fixed, uniform [size-min, size-max], or lognormal with the given
 *     median and sigma, clamped to [size-min, size-max]).  So a key always
 *     has the same size, whatever the stream.  DEL records carry size 0.
 *
 * RNG: one GSL MT19937 stream seeded with the upper 32 bits of a 64-bit
 * mix of `seed` (MT19937 takes 32-bit seeds); per record it draws, in this
 * order: the gap, the rank (one or more uniforms), the op, then the thread
 * when threads > 1.  Same options and seed => byte-identical trace.
 *
 * Cost: about 200 ns per record (5 M records/s to a binary file), mostly
 * libm (the gap's log1p, the sampler's log and exp) and MT19937.  A rank's
 * key and size are memoised in a per-rank table (keys <= 2^24, touched
 * lazily): indexed by rank, the hot entries share a few cache lines, and the
 * memo changes no output since both are pure functions of (options, rank).
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "zipf.h"
#include "../../sim/base/hash.h"

static const rs_param kv_params[] = {
    { .key = "seed", .type = RS_PT_INT, .def = "1",
      .doc = "seed of the random stream (same options + seed = same trace)" },
    { .key = "keys", .type = RS_PT_INT, .def = "100000",
      .doc = "number of distinct keys, 1 .. 4294967295" },
    { .key = "events", .type = RS_PT_INT, .def = "1000000",
      .doc = "number of records to write" },
    { .key = "rate", .type = RS_PT_DOUBLE, .def = "100000",
      .doc = "mean ops per second of virtual time (Poisson arrivals)" },
    { .key = "alpha", .type = RS_PT_DOUBLE, .def = "0.99",
      .doc = "Zipf exponent of key popularity; 0 = uniform" },
    { .key = "size-dist", .type = RS_PT_STRING, .def = "lognormal", .choices = "fixed|uniform|lognormal",
      .doc = "value size distribution per key: fixed | uniform | lognormal" },
    { .key = "size", .type = RS_PT_SIZE, .def = "4K",
      .doc = "value size of every key when size-dist = fixed" },
    { .key = "size-min", .type = RS_PT_SIZE, .def = "64",
      .doc = "smallest value size (uniform bound, lognormal clamp)" },
    { .key = "size-max", .type = RS_PT_SIZE, .def = "64K",
      .doc = "largest value size (uniform bound, lognormal clamp)" },
    { .key = "size-median", .type = RS_PT_SIZE, .def = "2K",
      .doc = "median value size when size-dist = lognormal" },
    { .key = "size-sigma", .type = RS_PT_DOUBLE, .def = "1.0",
      .doc = "sigma of log(size) when size-dist = lognormal" },
    { .key = "get", .type = RS_PT_DOUBLE, .def = "0.8",
      .doc = "weight of GET in the op mix (weights are normalised)" },
    { .key = "set", .type = RS_PT_DOUBLE, .def = "0.15",
      .doc = "weight of SET in the op mix" },
    { .key = "del", .type = RS_PT_DOUBLE, .def = "0.05",
      .doc = "weight of DEL in the op mix" },
    { .key = "threads", .type = RS_PT_INT, .def = "1",
      .doc = "issuing threads; record.thread is uniform in [0, threads), at most 65536" },
    { .key = NULL },
};

/* size-dist's choices, in order. */
typedef enum size_dist { SIZE_FIXED, SIZE_UNIFORM, SIZE_LOGNORMAL } size_dist;

/* What a rank maps to, computed on first use.  Indexed by rank, so the hot
 * (low) ranks share a few cache lines. */
typedef struct rank_memo {
    uint32_t key;        /* perm(rank - 1) */
    uint32_t size_bytes; /* key_size(key); 0 = not computed yet */
} rank_memo;

typedef struct kv_gen {
    uint64_t keys, events;
    double mean_gap_ns;
    double alpha;
    size_dist dist;
    uint64_t size_bytes, size_min_bytes, size_max_bytes, size_median_bytes;
    double size_sigma;
    double p_get, p_set; /* cumulative thresholds: GET below p_get, SET below p_get + p_set */
    uint64_t threads;
    uint64_t size_salt;  /* from the seed, for key_size */
    unsigned long rng_seed;
    rs_zipf z;
    rs_perm pm;
    rank_memo *memo;     /* per rank (index rank - 1); NULL when keys or sizes are large */
} kv_gen;

#define MEMO_MAX_KEYS ((uint64_t)1 << 24) /* 128 MiB of address space at most, touched lazily */

static uint64_t key_size(const kv_gen *g, uint64_t key)
{
    uint64_t h = rs_hash64(rs_hash64(key ^ g->size_salt) + 0x9e3779b97f4a7c15ull);
    double u = ((double)(h >> 11) + 0.5) * 0x1p-53; /* in (0, 1) */
    double v;

    switch (g->dist) {
    case SIZE_FIXED:
        return g->size_bytes;
    case SIZE_UNIFORM: {
        uint64_t span = g->size_max_bytes - g->size_min_bytes;
        uint64_t off = (uint64_t)(u * ((double)span + 1.0));
        return g->size_min_bytes + (off > span ? span : off);
    }
    case SIZE_LOGNORMAL:
        v = (double)g->size_median_bytes * exp(g->size_sigma * gsl_cdf_ugaussian_Pinv(u));
        if (!(v >= (double)g->size_min_bytes))
            return g->size_min_bytes;
        if (v >= (double)g->size_max_bytes)
            return g->size_max_bytes;
        return (uint64_t)llround(v);
    }
    return g->size_bytes;
}

/* Key and size of a rank.  Both are pure functions of (options, rank), so
 * the memo changes no output, only skips work for ranks seen before. */
static inline void rank_lookup(kv_gen *g, uint64_t rank, uint64_t *r_key, uint64_t *r_size_bytes)
{
    rank_memo *m = g->memo ? &g->memo[rank - 1] : NULL;
    if (m && m->size_bytes) {
        *r_key = m->key;
        *r_size_bytes = m->size_bytes;
        return;
    }
    *r_key = rs_perm_apply(&g->pm, rank - 1);
    *r_size_bytes = key_size(g, *r_key);
    if (m) {
        m->key = (uint32_t)*r_key;
        m->size_bytes = (uint32_t)*r_size_bytes;
    }
}

static int kv_setup(const rs_config *opts, kv_gen *g, rs_err *err)
{
    int64_t keys = rs_config_int(opts, "keys"), events = rs_config_int(opts, "events");
    int64_t threads = rs_config_int(opts, "threads"), seed = rs_config_int(opts, "seed");
    double rate = rs_config_double(opts, "rate");
    double w_get = rs_config_double(opts, "get"), w_set = rs_config_double(opts, "set");
    double w_del = rs_config_double(opts, "del");
    int dist = rs_config_choice(opts, "size-dist");

    memset(g, 0, sizeof *g);
    if (keys < 1 || keys > 4294967295ll)
        return rs_config_bad_value(opts, "keys", "must be in 1 .. 4294967295", err);
    if (events < 0)
        return rs_config_bad_value(opts, "events", "must be >= 0", err);
    if (!(rate > 0) || !isfinite(rate))
        return rs_config_bad_value(opts, "rate", "must be > 0", err);
    g->alpha = rs_config_double(opts, "alpha");
    if (!(g->alpha >= 0) || !isfinite(g->alpha))
        return rs_config_bad_value(opts, "alpha", "must be >= 0", err);
    if (dist < 0)
        return rs_config_bad_value(opts, "size-dist", "not one of its choices", err);
    g->dist = (size_dist)dist;
    g->size_bytes = rs_config_size(opts, "size");
    g->size_min_bytes = rs_config_size(opts, "size-min");
    g->size_max_bytes = rs_config_size(opts, "size-max");
    g->size_median_bytes = rs_config_size(opts, "size-median");
    g->size_sigma = rs_config_double(opts, "size-sigma");
    /* a value the trace format refuses (RS_REC_VALUE_MAX_BYTES, trace.h) is
     * refused here, so gen never writes a trace replay cannot read */
    if (g->size_bytes < 1 || g->size_bytes > RS_REC_VALUE_MAX_BYTES)
        return rs_config_bad_value(opts, "size", "must be in 1 .. 4294967294 bytes (a kv value is below 4 GiB)", err);
    if (g->size_min_bytes < 1 || g->size_min_bytes > RS_REC_VALUE_MAX_BYTES)
        return rs_config_bad_value(opts, "size-min", "must be in 1 .. 4294967294 bytes (a kv value is below 4 GiB)", err);
    if (g->size_max_bytes < g->size_min_bytes)
        return rs_config_bad_value(opts, "size-max", "must be >= size-min", err);
    if (g->size_max_bytes > RS_REC_VALUE_MAX_BYTES)
        return rs_config_bad_value(opts, "size-max", "must be at most 4294967294 bytes (a kv value is below 4 GiB)", err);
    if (g->size_median_bytes < 1 || g->size_median_bytes > RS_REC_VALUE_MAX_BYTES)
        return rs_config_bad_value(opts, "size-median", "must be in 1 .. 4294967294 bytes (a kv value is below 4 GiB)", err);
    if (!(g->size_sigma >= 0) || !isfinite(g->size_sigma))
        return rs_config_bad_value(opts, "size-sigma", "must be >= 0", err);
    if (!(w_get >= 0) || !isfinite(w_get))
        return rs_config_bad_value(opts, "get", "must be >= 0", err);
    if (!(w_set >= 0) || !isfinite(w_set))
        return rs_config_bad_value(opts, "set", "must be >= 0", err);
    if (!(w_del >= 0) || !isfinite(w_del))
        return rs_config_bad_value(opts, "del", "must be >= 0", err);
    double sum = w_get + w_set + w_del;
    if (!(sum > 0))
        return rs_fail(err, RS_EINPUT, "bad op mix: get + set + del must be > 0 (got %g + %g + %g)",
                       w_get, w_set, w_del);
    if (threads < 1 || threads > 65536)
        return rs_config_bad_value(opts, "threads", "must be in 1 .. 65536", err);
    g->keys = (uint64_t)keys;
    g->events = (uint64_t)events;
    g->mean_gap_ns = 1e9 / rate;
    g->p_get = w_get / sum;
    g->p_set = (w_get + w_set) / sum;
    g->threads = (uint64_t)threads;
    g->size_salt = rs_hash64((uint64_t)seed ^ 0x5bd1e9955bd1e995ull);
    g->rng_seed = (unsigned long)(rs_hash64((uint64_t)seed) >> 32);
    if (g->alpha > 0)
        rs_zipf_init(&g->z, g->alpha, g->keys);
    rs_perm_init(&g->pm, g->keys, 0);
    return 0;
}

static int kv_generate(const rs_config *opts, const char *data_dir, rs_trace_writer *w,
                       char *r_summary, size_t cap, rs_err *err)
{
    (void)data_dir; /* no data files */
    (void)r_summary; /* nothing to add to the options */
    (void)cap;
    kv_gen g;
    gsl_rng *rng;
    double t_ns = 0;
    int rc = kv_setup(opts, &g, err);

    if (rc)
        return rc;
    if (g.keys <= MEMO_MAX_KEYS && g.size_bytes <= UINT32_MAX && g.size_max_bytes <= UINT32_MAX &&
        !(g.memo = calloc(g.keys, sizeof *g.memo)))
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu key sizes",
                       (unsigned long long)g.keys);
    if (!(rng = gsl_rng_alloc(gsl_rng_mt19937))) {
        free(g.memo);
        return rs_fail(err, RS_ENOMEM, "out of memory for the kv generator's random stream");
    }
    gsl_rng_set(rng, g.rng_seed);
    for (uint64_t i = 0; i < g.events; i++) {
        rs_rec rec = { 0 };
        t_ns += gsl_ran_exponential(rng, g.mean_gap_ns);
        if (!(t_ns < 18446744073709549568.0)) {
            rc = rs_fail(err, RS_EINPUT, "kv: virtual time passes 2^64 ns at record %llu: "
                         "raise rate or lower events", (unsigned long long)i + 1);
            break;
        }
        uint64_t rank = g.alpha > 0 ? rs_zipf_sample(&g.z, rng)
                                    : 1 + gsl_rng_uniform_int(rng, (unsigned long)g.keys);
        double u = gsl_rng_uniform(rng);
        uint64_t size_bytes;
        rank_lookup(&g, rank, &rec.key, &size_bytes);
        rec.t_ns = (uint64_t)t_ns;
        rec.op = u < g.p_get ? RS_OP_GET : u < g.p_set ? RS_OP_SET : RS_OP_DEL;
        rec.size_bytes = rec.op == RS_OP_DEL ? 0 : size_bytes;
        if (g.threads > 1)
            rec.thread = (uint16_t)gsl_rng_uniform_int(rng, (unsigned long)g.threads);
        if ((rc = rs_trace_write(w, &rec, err)))
            break;
    }
    gsl_rng_free(rng);
    free(g.memo);
    return rc;
}

const rs_gen_ops rs_gen_kv = {
    .name = "kv",
    .doc = "Zipf key-value workload: Poisson arrivals, GET/SET/DEL mix, per-key stable sizes",
    .daemon = "kv",
    .params = kv_params,
    .generate = kv_generate,
};
