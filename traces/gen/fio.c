/*
 * fio.c — an fio-like block workload on RBD/RADOS objects (`rssim gen fio`),
 * daemon kind "osd".
 *
 * fio's job options, with fio's meanings (fio(1), HOWTO "Job file parameters"):
 *   rw         randread | randwrite | randrw | read | write | rw (rw =
 *              sequential mixed); the direction of a mixed I/O is an
 *              independent draw, read with probability rwmixread / 100;
 *   bs         every I/O is bs bytes at a bs-aligned offset (fio's
 *              blockalign defaults to bs); the file has size / bs blocks;
 *   size       the bytes a job's file covers: offsets lie in [0, size);
 *   numjobs    client jobs; record.thread = job index.  As fio does by
 *              default, each job has its own file (fio names them
 *              jobname.N.0); here job j's file is laid out from object
 *              j × ceil(size / object-size), so two jobs never share an
 *              object.  With file-shared (fio's filename= naming one file,
 *              or the rbd engine's one image) every job covers [0, size);
 *   random-distribution  random (uniform, fio's default) or zipf:THETA,
 *              P(rank k) ∝ k^-THETA over the file's blocks, ranks spread
 *              over the blocks by a fixed bijection (fio hashes them too);
 *   norandommap  fio's default random I/O visits every block once per pass
 *              ("fio will cover every block of the file"); here pass p of
 *              a job is a random permutation of the blocks (a keyed Feistel
 *              bijection, O(1) memory).  With norandommap uniform offsets
 *              are drawn with replacement, as fio then does.  Zipf offsets
 *              are always drawn with replacement;
 *   sequential jobs start at offset 0 and advance by bs, wrapping at the
 *              last whole block; in rw, reads and writes advance separate
 *              positions (fio keeps the last position per direction).
 *
 * The op count per job: number-ios (fio's number_ios) if set; else runtime
 * × iops-hint / numjobs if runtime is set — an op budget, not a duration:
 * in a closed loop the rate is the simulator's output; when both are set,
 * the smaller; else size / bs, one pass over the file (what fio does when
 * neither bounds the job).
 *
 * Times: by default the trace is closed-loop: every record has t_ns 0,
 * meaning "as soon as the job has a free slot", and the jobs' I/Os are
 * interleaved round robin (I/O i of job 0, of job 1, ..., then I/O i + 1).
 * The outstanding I/Os per job (fio's iodepth) cannot travel in a trace: the
 * osd daemon's client_iodepth key sets it, and `rssim gen fio` prints the
 * --set to replay with.  With rate-iops (fio's rate_iops, per job) I/O i of
 * a job is stamped floor(i × 1e9 / rate) ns instead; the daemon issues it
 * at that time or when a slot frees, whichever is later.
 *
 * Objects: a job's byte offset o in its file is the image offset base + o;
 * the record's key is the RADOS object number image offset / object-size,
 * aux the offset inside that object, size_bytes the length.  An I/O that
 * crosses an object boundary becomes one record per object, in offset
 * order, all with the same time (RBD stripes an image over objects so).
 *
 * RNG: one GSL MT19937 stream seeded with the upper 32 bits of a 64-bit mix
 * of `seed`; per I/O, in the round-robin order, it draws the direction
 * (mixed rw only), then the offset (random rw only: one uniform integer, or
 * the Zipf sampler's uniforms).  Pass permutations and the Zipf spreading
 * are keyed by hashes of (seed, job, pass).  Same options + seed =>
 * byte-identical trace.
 */
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "zipf.h"
#include "../osd_io.h"
#include "../../sim/base/hash.h"

static const rs_param fio_params[] = {
    { .key = "seed", .type = RS_PT_INT, .def = "1",
      .doc = "seed of the random stream (same options + seed = same trace)" },
    { .key = "rw", .type = RS_PT_STRING, .def = "randread",
      .choices = "randread|randwrite|randrw|read|write|rw",
      .doc = "randread | randwrite | randrw | read | write | rw (fio's; rw = sequential mixed)" },
    { .key = "bs", .type = RS_PT_SIZE, .def = "4K",
      .doc = "bytes per I/O; offsets are multiples of bs" },
    { .key = "size", .type = RS_PT_SIZE, .def = "256M",
      .doc = "bytes a job's file covers (fio has no default; 256M keeps a default trace small)" },
    { .key = "numjobs", .type = RS_PT_INT, .def = "1",
      .doc = "client jobs, 1 .. 65536, interleaved round robin; record.thread = job" },
    { .key = "iodepth", .type = RS_PT_INT, .def = "1",
      .doc = "I/Os in flight per job: not in the trace, replay with --set client_iodepth=N" },
    { .key = "number-ios", .type = RS_PT_INT, .def = "0",
      .doc = "I/Os per job (fio's number_ios); 0 = from runtime, else size/bs (one pass)" },
    { .key = "runtime", .type = RS_PT_DURATION, .def = "0",
      .doc = "op budget runtime x iops-hint / numjobs I/Os per job; 0 = unset" },
    { .key = "iops-hint", .type = RS_PT_DOUBLE, .def = "10000",
      .doc = "total IOPS assumed to turn runtime into an op count (not a rate)" },
    { .key = "rate-iops", .type = RS_PT_DOUBLE, .def = "0",
      .doc = "per-job rate (fio's rate_iops): I/O i at i/rate s; 0 = closed loop, t_ns 0" },
    { .key = "rwmixread", .type = RS_PT_INT, .def = "50",
      .doc = "percent of reads in randrw and rw, 0 .. 100" },
    { .key = "random-distribution", .type = RS_PT_STRING, .def = "random",
      .doc = "random (uniform) | zipf:THETA (THETA > 0) for random rw" },
    { .key = "norandommap", .type = RS_PT_BOOL, .def = "false",
      .doc = "uniform offsets with replacement; default: every block once per pass" },
    { .key = "file-shared", .type = RS_PT_BOOL, .def = "false",
      .doc = "all jobs use one file/image; default: each job its own (fio's default)" },
    { .key = "object-size", .type = RS_PT_SIZE, .def = "4M",
      .doc = "RADOS object size (RBD default 4M), 1 .. 4G; I/Os crossing one are split" },
    { .key = NULL },
};

typedef enum rw_mode { RW_READ, RW_WRITE, RW_MIXED } rw_mode;

/* What each of rw's choices means, in the order of its choices. */
static const struct {
    rw_mode mode;
    int random;
} rw_modes[] = {
    { .mode = RW_READ, .random = 1 },  /* randread */
    { .mode = RW_WRITE, .random = 1 }, /* randwrite */
    { .mode = RW_MIXED, .random = 1 }, /* randrw */
    { .mode = RW_READ, .random = 0 },  /* read */
    { .mode = RW_WRITE, .random = 0 }, /* write */
    { .mode = RW_MIXED, .random = 0 }, /* rw */
};

/* Per-job position: the next sequential offset per direction, or the random
 * map's pass and the count of I/Os drawn in it. */
typedef struct job {
    uint64_t seq_block[2]; /* [0] reads, [1] writes: next block */
    uint64_t pass, in_pass;
    rs_perm pass_perm;
} job;

typedef struct fio_gen {
    rw_mode mode;
    int random, zipf, randommap, shared;
    double p_read;
    double theta;
    uint64_t bs_bytes, nblocks, object_bytes, job_span_bytes;
    uint64_t jobs, ios_per_job;
    double rate_iops;              /* per job; 0: closed loop */
    uint64_t seed;
    rs_zipf z;
    rs_perm spread;                /* Zipf rank -> block */
    job *job;
} fio_gen;

/* "random" or "zipf:THETA". */
static int parse_distribution(const rs_config *opts, fio_gen *g, rs_err *err)
{
    const char *d = rs_config_string(opts, "random-distribution");
    char *end;

    if (strcmp(d, "random") == 0)
        return 0;
    if (strncmp(d, "zipf:", 5) != 0)
        return rs_config_bad_value(opts, "random-distribution", "must be random or zipf:THETA", err);
    g->theta = strtod(d + 5, &end);
    if (end == d + 5 || *end || !(g->theta > 0) || !isfinite(g->theta))
        return rs_config_bad_value(opts, "random-distribution", "zipf:THETA needs a number THETA > 0", err);
    g->zipf = 1;
    return 0;
}

/* I/Os per job from number-ios, runtime × iops-hint, or one pass. */
static int op_count(const rs_config *opts, fio_gen *g, rs_err *err)
{
    int64_t n = rs_config_int(opts, "number-ios");
    uint64_t runtime_ns = rs_config_duration_ns(opts, "runtime");
    double hint = rs_config_double(opts, "iops-hint");

    if (n < 0)
        return rs_config_bad_value(opts, "number-ios", "must be >= 0", err);
    if (!(hint > 0) || !isfinite(hint))
        return rs_config_bad_value(opts, "iops-hint", "must be > 0", err);
    g->ios_per_job = n > 0 ? (uint64_t)n : g->nblocks;
    if (runtime_ns > 0) {
        double budget = floor((double)runtime_ns * 1e-9 * hint / (double)g->jobs);
        if (budget < 1)
            return rs_config_bad_value(opts, "runtime", "runtime x iops-hint / numjobs is less than one I/O per job",
                       err);
        if (budget < 1e18 && (n == 0 || (uint64_t)budget < (uint64_t)n))
            g->ios_per_job = (uint64_t)budget;
    }
    return 0;
}

static int fio_setup(const rs_config *opts, fio_gen *g, rs_err *err)
{
    int rw = rs_config_choice(opts, "rw");
    int64_t jobs = rs_config_int(opts, "numjobs"), depth = rs_config_int(opts, "iodepth");
    int64_t mix = rs_config_int(opts, "rwmixread");
    double rate = rs_config_double(opts, "rate-iops");
    uint64_t size_bytes = rs_config_size(opts, "size");
    int rc;

    memset(g, 0, sizeof *g);
    if (rw < 0 || (size_t)rw >= sizeof rw_modes / sizeof rw_modes[0])
        return rs_config_bad_value(opts, "rw", "not one of its choices", err);
    g->mode = rw_modes[rw].mode;
    g->random = rw_modes[rw].random;
    g->bs_bytes = rs_config_size(opts, "bs");
    g->object_bytes = rs_config_size(opts, "object-size");
    if (g->bs_bytes < 1)
        return rs_config_bad_value(opts, "bs", "must be at least 1 byte", err);
    if (g->object_bytes < 1 || g->object_bytes > ((uint64_t)1 << 32))
        return rs_config_bad_value(opts, "object-size", "must be in 1 .. 4G (aux holds the offset inside it)", err);
    if (size_bytes < g->bs_bytes)
        return rs_config_bad_value(opts, "size", "must hold at least one block of bs bytes", err);
    if (jobs < 1 || jobs > 65536)
        return rs_config_bad_value(opts, "numjobs", "must be in 1 .. 65536", err);
    if (depth < 1 || depth > 65536)
        return rs_config_bad_value(opts, "iodepth", "must be in 1 .. 65536", err);
    if (mix < 0 || mix > 100)
        return rs_config_bad_value(opts, "rwmixread", "must be in 0 .. 100", err);
    if (!(rate >= 0) || !isfinite(rate))
        return rs_config_bad_value(opts, "rate-iops", "must be >= 0", err);
    g->nblocks = size_bytes / g->bs_bytes;
    g->jobs = (uint64_t)jobs;
    g->shared = rs_config_bool(opts, "file-shared");
    g->randommap = !rs_config_bool(opts, "norandommap");
    g->p_read = g->mode == RW_MIXED ? (double)mix / 100 : g->mode == RW_READ;
    /* a job's own file starts on an object boundary: whole objects apart */
    uint64_t objects = (g->nblocks * g->bs_bytes - 1) / g->object_bytes + 1;
    if (objects > UINT64_MAX / g->object_bytes / g->jobs)
        return rs_config_bad_value(opts, "size", "numjobs files of this size pass 2^64 bytes", err);
    g->job_span_bytes = g->shared ? 0 : objects * g->object_bytes;
    if ((rc = parse_distribution(opts, g, err)) || (rc = op_count(opts, g, err)))
        return rc;
    if (rate > 0) {
        g->rate_iops = rate;
        if (!((double)(g->ios_per_job - 1) * 1e9 / rate < 1.8e19))
            return rs_config_bad_value(opts, "rate-iops", "the last I/O's time passes 2^64 ns", err);
    }
    g->seed = (uint64_t)rs_config_int(opts, "seed");
    if (g->random && g->zipf) {
        rs_zipf_init(&g->z, g->theta, g->nblocks);
        rs_perm_init(&g->spread, g->nblocks, rs_hash64(g->seed ^ 0x7a697066ull) | 1);
    }
    return 0;
}

/* Uniform in [0, n), n >= 1, for any n (MT19937 gives 32 bits a draw). */
static uint64_t uniform_below(gsl_rng *rng, uint64_t n)
{
    if (n <= 0xffffffffull)
        return gsl_rng_uniform_int(rng, (unsigned long)n);
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;
    do
        v = (uint64_t)gsl_rng_get(rng) << 32 | (uint64_t)gsl_rng_get(rng);
    while (v >= limit);
    return v % n;
}

/* The permutation of pass `pass` of job j (keys never 0: kv.c's is 0). */
static void pass_start(const fio_gen *g, job *jb, uint64_t j)
{
    uint64_t key = rs_hash64(rs_hash64(g->seed ^ 0x66696f70ull) + j * 0x9e3779b97f4a7c15ull +
                             jb->pass);
    rs_perm_init(&jb->pass_perm, g->nblocks, key | 1);
    jb->in_pass = 0;
}

/* The block of the next random I/O of job j. */
static uint64_t random_block(fio_gen *g, uint64_t j, gsl_rng *rng)
{
    job *jb = &g->job[j];

    if (g->zipf)
        return rs_perm_apply(&g->spread, rs_zipf_sample(&g->z, rng) - 1);
    if (!g->randommap)
        return uniform_below(rng, g->nblocks);
    if (jb->in_pass == g->nblocks) {
        jb->pass++;
        pass_start(g, jb, j);
    }
    return rs_perm_apply(&jb->pass_perm, jb->in_pass++);
}

/* One I/O of job j at time t_ns: records split at object boundaries. */
static int emit_io(const fio_gen *g, rs_trace_writer *w, uint64_t j, int read, uint64_t block,
                   uint64_t t_ns, uint64_t *r_records, rs_err *err)
{
    return rs_osd_io_write(w, t_ns, (uint16_t)j, read ? RS_OP_READ : RS_OP_WRITE,
                           j * g->job_span_bytes + block * g->bs_bytes, g->bs_bytes,
                           g->object_bytes, r_records, err);
}

/* The whole trace; *r_records counts what was written. */
static int fio_run(const rs_config *opts, rs_trace_writer *w, uint64_t *r_records, rs_err *err)
{
    fio_gen g;
    gsl_rng *rng;
    int rc = fio_setup(opts, &g, err);

    if (rc)
        return rc;
    if (!(g.job = calloc(g.jobs, sizeof *g.job)))
        return rs_fail(err, RS_ENOMEM, "out of memory for %" PRIu64 " fio jobs", g.jobs);
    if (!(rng = gsl_rng_alloc(gsl_rng_mt19937))) {
        free(g.job);
        return rs_fail(err, RS_ENOMEM, "out of memory for the fio generator's random stream");
    }
    gsl_rng_set(rng, (unsigned long)(rs_hash64(g.seed) >> 32));
    if (g.random && !g.zipf && g.randommap)
        for (uint64_t j = 0; j < g.jobs; j++)
            pass_start(&g, &g.job[j], j);
    for (uint64_t i = 0; i < g.ios_per_job && !rc; i++) {
        uint64_t t_ns = g.rate_iops > 0 ? (uint64_t)floor((double)i * 1e9 / g.rate_iops) : 0;
        for (uint64_t j = 0; j < g.jobs && !rc; j++) {
            int read = g.mode == RW_MIXED ? gsl_rng_uniform(rng) < g.p_read : g.mode == RW_READ;
            uint64_t block;
            if (g.random) {
                block = random_block(&g, j, rng);
            } else {
                uint64_t *pos = &g.job[j].seq_block[read ? 0 : 1];
                block = *pos;
                *pos = *pos + 1 == g.nblocks ? 0 : *pos + 1;
            }
            rc = emit_io(&g, w, j, read, block, t_ns, r_records, err);
        }
    }
    gsl_rng_free(rng);
    free(g.job);
    return rc;
}

/* The summary says what was written and how to replay it (fio's iodepth
 * cannot travel in the trace). */
static int fio_generate(const rs_config *opts, const char *data_dir, rs_trace_writer *w,
                        char *r_summary, size_t cap, rs_err *err)
{
    (void)data_dir; /* no data files */
    uint64_t records = 0;
    int rc = fio_run(opts, w, &records, err);

    if (!rc && r_summary && cap)
        snprintf(r_summary, cap, "%" PRIu64 " records; replay with --set client_iodepth=%" PRId64
                 " (fio's iodepth is not in the trace)", records, rs_config_int(opts, "iodepth"));
    return rc;
}

const rs_gen_ops rs_gen_fio = {
    .name = "fio",
    .doc = "fio-like block I/O on 4 MiB RADOS objects: rw mix, bs, jobs, closed loop",
    .daemon = "osd",
    .params = fio_params,
    .generate = fio_generate,
};
