/*
 * test_fio.c — the fio generator (`rssim gen fio`) against fio's semantics:
 * the read share of randrw/rw, offsets aligned to bs and inside size in
 * each job's own object range (or the shared one), one pass of the random
 * map touching every block once, sequential jobs contiguous and wrapping,
 * per-direction positions in rw, splitting at object boundaries, Zipf's
 * hottest block against the exact pmf, the op count from number-ios /
 * runtime × iops-hint / one pass, rate-iops times, round-robin closed-loop
 * order, determinism by seed, and bad options.  Statistical checks use
 * fixed seeds and tolerances of several standard deviations.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gen_util.h"
#include "sim/base/config.h"
#include "traces/gen/gen.h"
#include "traces/trace.h"

extern const rs_gen_ops rs_gen_fio;

#define MiB (1024ull * 1024)

static int gen(const char *path, const char *const *kv, rs_err *err)
{
    return gen_with(&rs_gen_fio, path, "binary", kv, NULL, 0, err);
}

typedef struct recs {
    rs_rec *r;
    size_t n;
} recs;

/* Generate and read back every record (the file is removed). */
static recs load(const char *const *kv)
{
    const char *path = path_in("t.bin");
    recs out = { 0 };
    size_t cap = 0;
    rs_trace *tr;
    rs_err err;
    rs_rec rec;

    if (gen(path, kv, &err) != 0 || rs_trace_open(&tr, path, &err) != 0) {
        CHECK_MSG(0, "%s", err.msg);
        return out;
    }
    CHECK(strcmp(rs_trace_daemon(tr), "osd") == 0);
    while (rs_trace_next(tr, &rec, &err) == 1) {
        if (out.n == cap) {
            cap = cap ? 2 * cap : 1024;
            out.r = realloc(out.r, cap * sizeof *out.r);
        }
        out.r[out.n++] = rec;
    }
    rs_trace_close(tr);
    unlink(path);
    return out;
}

/* An I/O reassembled from its records: image offset, length, direction. */
typedef struct io {
    uint64_t off, len, t_ns;
    unsigned thread, op, pieces;
} io;

/* Join consecutive records that continue each other (same job, op, time,
 * and the next byte) into I/Os of bs bytes; checks each piece lies in one
 * object.  Returns the count of I/Os in *r_ios (caller frees). */
static size_t join(const recs *rs, uint64_t bs, uint64_t obj, io **r_ios)
{
    io *ios = calloc(rs->n + 1, sizeof *ios);
    size_t n = 0;
    int outside = 0;

    for (size_t i = 0; i < rs->n; i++) {
        const rs_rec *r = &rs->r[i];
        uint64_t off = r->key * obj + r->aux;
        outside += r->aux + r->size_bytes > obj || r->size_bytes == 0;
        if (n && ios[n - 1].len < bs && ios[n - 1].off + ios[n - 1].len == off &&
            ios[n - 1].thread == r->thread && ios[n - 1].op == r->op && ios[n - 1].t_ns == r->t_ns) {
            ios[n - 1].len += r->size_bytes;
            ios[n - 1].pieces++;
        } else {
            ios[n++] = (io){ .off = off, .len = r->size_bytes, .t_ns = r->t_ns,
                             .thread = r->thread, .op = r->op, .pieces = 1 };
        }
    }
    CHECK_MSG(outside == 0, "%d records leave their object", outside);
    *r_ios = ios;
    return n;
}

static void test_determinism(void)
{
    const char *a[] = { "rw=randrw", "numjobs=3", "size=64M", "number-ios=3000", "seed=7", NULL };
    const char *b[] = { "rw=randrw", "numjobs=3", "size=64M", "number-ios=3000", "seed=8", NULL };
    recs x = load(a), y = load(a), z = load(b);

    CHECK(x.n == 9000 && y.n == x.n);
    CHECK(x.n == y.n && memcmp(x.r, y.r, x.n * sizeof *x.r) == 0);
    CHECK(z.n == x.n && memcmp(x.r, z.r, x.n * sizeof *x.r) != 0);
    free(x.r);
    free(y.r);
    free(z.r);
}

/* The read share: binomial, 5 sigma. */
static void test_mix(void)
{
    const char *kv[] = { "rw=randrw", "rwmixread=70", "number-ios=20000", "seed=3", NULL };
    const char *seq[] = { "rw=rw", "rwmixread=25", "number-ios=20000", "bs=64K", NULL };
    const char *w[] = { "rw=randwrite", "number-ios=100", NULL };
    recs x = load(kv), s = load(seq), y = load(w);
    size_t reads = 0, sreads = 0, ywrites = 0;

    for (size_t i = 0; i < x.n; i++)
        reads += x.r[i].op == RS_OP_READ;
    for (size_t i = 0; i < s.n; i++)
        sreads += s.r[i].op == RS_OP_READ;
    for (size_t i = 0; i < y.n; i++)
        ywrites += y.r[i].op == RS_OP_WRITE;
    double f = (double)reads / (double)x.n, sf = (double)sreads / (double)s.n;
    CHECK_MSG(x.n == 20000 && fabs(f - 0.7) < 5 * sqrt(0.7 * 0.3 / 20000), "read share %g", f);
    CHECK_MSG(s.n == 20000 && fabs(sf - 0.25) < 5 * sqrt(0.25 * 0.75 / 20000), "read share %g", sf);
    CHECK(y.n == 100 && ywrites == 100);
    free(x.r);
    free(s.r);
    free(y.r);
}

/* Random offsets: aligned to bs, inside [0, size) of the job's own range,
 * which starts on an object boundary; one pass of the random map (nblocks
 * I/Os per job) touches every block exactly once. */
static void test_random_offsets(void)
{
    /* 10M is not a multiple of 4M: job j's range starts at j * 12M */
    const char *kv[] = { "rw=randread", "bs=8K", "size=10M", "numjobs=3", NULL };
    const uint64_t bs = 8192, size = 10 * MiB, span = 12 * MiB, nblocks = 1280;
    recs x = load(kv);
    io *ios;
    size_t n = join(&x, bs, 4 * MiB, &ios);
    int misaligned = 0, outside = 0, dup = 0;
    uint8_t *seen = calloc(3 * nblocks, 1);

    CHECK_EQ_U64(n, 3 * nblocks); /* one pass by default: size / bs per job */
    for (size_t i = 0; i < n; i++) {
        uint64_t base = ios[i].thread * span, rel = ios[i].off - base;
        misaligned += ios[i].len != bs || rel % bs != 0;
        outside += ios[i].off < base || rel + bs > size || ios[i].thread >= 3;
        if (ios[i].off >= base && rel < size && ios[i].thread < 3)
            dup += seen[ios[i].thread * nblocks + rel / bs]++ != 0;
        CHECK(ios[i].thread == i % 3); /* round robin */
    }
    CHECK_MSG(misaligned == 0 && outside == 0 && dup == 0, "misaligned %d outside %d dup %d",
              misaligned, outside, dup);
    free(seen);
    free(ios);
    free(x.r);

    /* norandommap: with replacement, so a pass of n draws repeats blocks
     * (expected distinct share 1 - 1/e); a shared file puts every job in
     * [0, size) */
    const char *nm[] = { "rw=randwrite", "bs=4K", "size=8M", "numjobs=2", "norandommap=true",
                         "file-shared=true", "seed=9", NULL };
    x = load(nm);
    n = join(&x, 4096, 4 * MiB, &ios);
    seen = calloc(2048, 1);
    size_t distinct = 0, oob = 0;
    for (size_t i = 0; i < n; i++) {
        if (ios[i].off + 4096 > 8 * MiB || ios[i].off % 4096) {
            oob++;
            continue;
        }
        distinct += seen[ios[i].off / 4096]++ == 0;
    }
    CHECK_EQ_U64(n, 4096);
    CHECK_MSG(oob == 0, "%zu I/Os outside the shared file", oob);
    /* 4096 draws over 2048 blocks: expected distinct 2048 (1 - e^-2) = 1771 */
    CHECK_MSG(fabs((double)distinct - 2048 * (1 - exp(-2))) < 60, "distinct %zu", distinct);
    free(seen);
    free(ios);
    free(x.r);
}

/* Sequential: job j at base_j + (i mod nblocks) bs; in rw each direction
 * keeps its own position. */
static void test_sequential(void)
{
    const char *kv[] = { "rw=write", "bs=1M", "size=6M", "numjobs=2", "number-ios=15", NULL };
    recs x = load(kv);
    io *ios;
    size_t n = join(&x, MiB, 4 * MiB, &ios);
    int wrong = 0;

    CHECK_EQ_U64(n, 30);
    for (size_t i = 0; i < n; i++) {
        uint64_t job = i % 2, k = i / 2;
        wrong += ios[i].thread != job || ios[i].op != RS_OP_WRITE ||
                 ios[i].off != job * 8 * MiB + (k % 6) * MiB;
    }
    CHECK_MSG(wrong == 0, "%d I/Os out of sequence", wrong);
    free(ios);
    free(x.r);

    /* a shared file: every job starts at 0 on its own (fio with one filename) */
    const char *shared[] = { "rw=read", "bs=1M", "size=3M", "numjobs=2", "number-ios=4",
                             "file-shared=true", NULL };
    x = load(shared);
    wrong = 0;
    for (size_t i = 0; i < x.n; i++)
        wrong += x.r[i].key != 0 || x.r[i].aux != (i / 2 % 3) * MiB || x.r[i].thread != i % 2;
    CHECK_EQ_U64(x.n, 8);
    CHECK_MSG(wrong == 0, "%d shared-file I/Os out of place", wrong);
    free(x.r);

    const char *mix[] = { "rw=rw", "bs=64K", "size=1M", "number-ios=200", "seed=4", NULL };
    x = load(mix);
    n = join(&x, 65536, 4 * MiB, &ios);
    uint64_t next[2] = { 0, 0 };
    wrong = 0;
    for (size_t i = 0; i < n; i++) {
        int d = ios[i].op == RS_OP_WRITE;
        wrong += ios[i].off != next[d];
        next[d] = (next[d] + 65536) % MiB;
    }
    CHECK_EQ_U64(n, 200);
    CHECK_MSG(wrong == 0, "%d rw I/Os not at their direction's next offset", wrong);
    free(ios);
    free(x.r);
}

/* Splitting: bs 3M over 4M objects crosses a boundary exactly when
 * floor(o / 4M) != floor((o + 3M - 1) / 4M); bs 8M always gives 2 pieces. */
static void test_split(void)
{
    const char *kv[] = { "rw=read", "bs=3M", "size=60M", NULL };
    recs x = load(kv);
    io *ios;
    size_t n = join(&x, 3 * MiB, 4 * MiB, &ios);
    size_t want_recs = 0;
    int wrong = 0;

    CHECK_EQ_U64(n, 20);
    for (size_t i = 0; i < n; i++) {
        uint64_t o = i * 3 * MiB;
        unsigned want = o / (4 * MiB) != (o + 3 * MiB - 1) / (4 * MiB) ? 2 : 1;
        want_recs += want;
        wrong += ios[i].len != 3 * MiB || ios[i].off != o || ios[i].pieces != want;
    }
    CHECK_EQ_U64(x.n, want_recs);
    CHECK_MSG(wrong == 0, "%d I/Os split wrong", wrong);
    free(ios);
    free(x.r);

    const char *big[] = { "rw=randwrite", "bs=8M", "size=64M", "numjobs=2", NULL };
    x = load(big);
    n = join(&x, 8 * MiB, 4 * MiB, &ios);
    CHECK_EQ_U64(n, 16);
    CHECK_EQ_U64(x.n, 32);
    wrong = 0;
    for (size_t i = 0; i < x.n; i++)
        wrong += x.r[i].size_bytes != 4 * MiB || x.r[i].aux != 0;
    CHECK(wrong == 0);
    free(ios);
    free(x.r);

    /* a small object size: a 16K I/O over 4K objects is 4 records */
    const char *small[] = { "rw=read", "bs=16K", "size=64K", "object-size=4K", NULL };
    x = load(small);
    CHECK_EQ_U64(x.n, 16);
    for (size_t i = 0; i < x.n; i++)
        CHECK(x.r[i].key == i && x.r[i].aux == 0 && x.r[i].size_bytes == 4096);
    free(x.r);
}

/* Zipf: the hottest block's share is 1 / H(n, theta). */
static void test_zipf(void)
{
    const char *kv[] = { "rw=randread", "bs=4K", "size=4000K", "number-ios=40000",
                         "random-distribution=zipf:1.2", "seed=11", NULL };
    recs x = load(kv);
    uint32_t *count = calloc(1000, sizeof *count);
    uint32_t top = 0;
    double h = 0;

    for (size_t i = 0; i < x.n; i++) {
        uint64_t b = (x.r[i].key * 4 * MiB + x.r[i].aux) / 4096;
        if (b < 1000 && ++count[b] > top)
            top = count[b];
    }
    for (int k = 1; k <= 1000; k++)
        h += pow(k, -1.2);
    double p = 1 / h, want = p * 40000, sd = sqrt(40000 * p * (1 - p));
    CHECK_EQ_U64(x.n, 40000);
    CHECK_MSG(fabs(top - want) < 5 * sd, "hottest block %u times, want %.0f", top, want);
    free(count);
    free(x.r);
}

/* Op counts and times. */
static void test_counts_times(void)
{
    const char *rt[] = { "runtime=2s", "iops-hint=1000", "numjobs=4", NULL };
    const char *both[] = { "runtime=2s", "iops-hint=1000", "number-ios=300", NULL };
    const char *rate[] = { "rate-iops=300", "number-ios=10", "numjobs=2", NULL };
    recs x = load(rt);
    int nonzero = 0;

    CHECK_EQ_U64(x.n, 2000); /* 2 s x 1000 / 4 = 500 per job */
    for (size_t i = 0; i < x.n; i++)
        nonzero += x.r[i].t_ns != 0;
    CHECK(nonzero == 0); /* closed loop */
    free(x.r);
    x = load(both);
    CHECK_EQ_U64(x.n, 300); /* the smaller of 300 and 2000 */
    free(x.r);
    x = load(rate);
    CHECK_EQ_U64(x.n, 20);
    for (size_t i = 0; i < x.n; i++)
        CHECK_EQ_U64(x.r[i].t_ns, (uint64_t)floor((double)(i / 2) * 1e9 / 300));
    free(x.r);
}

static void test_bad_options(void)
{
    static const char *const bad[][3] = {
        { "rw=randtrim", NULL }, { "bs=0", NULL }, { "bs=8K", "size=4K" },
        { "numjobs=0", NULL }, { "numjobs=65537", NULL }, { "rwmixread=101", NULL },
        { "random-distribution=zipf:0", NULL }, { "random-distribution=pareto:1", NULL },
        { "random-distribution=zipf:x", NULL }, { "object-size=8G", NULL },
        { "runtime=1ms", "iops-hint=10" }, { "iops-hint=0", NULL }, { "rate-iops=-1", NULL },
        { "number-ios=-1", NULL }, { "iodepth=0", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rs_err err = { 0 };
        const char *path = path_in("bad.bin");
        int rc = gen(path, bad[i], &err);
        CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, "bad value"), "%s: rc %d '%s'", bad[i][0], rc,
                  err.msg);
        CHECK(access(path, F_OK) != 0);
    }
}

int main(void)
{
    if (scratch_dir("fio"))
        return 1;
    test_determinism();
    test_mix();
    test_random_offsets();
    test_sequential();
    test_split();
    test_zipf();
    test_counts_times();
    test_bad_options();
    CHECK_MSG(rmdir(dir) == 0, "leftover files in %s", dir);
    return check_done();
}
