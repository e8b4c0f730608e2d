/*
 * test_sample.c — spatial sampling of an mds trace (traces/sample.h):
 *   - the unit test of the rule: k = 1 keeps every directory, and of
 *     100000 directory inodes about 1/k are kept (within 5 sigma of the
 *     binomial);
 *   - the filter keeps whole directories: on a tree the test builds (and
 *     so knows every inode's directory), a record is kept exactly when its
 *     unit — a directory's own inode, a file's parent — is kept, whatever
 *     op names it (the ops that name only an inode must follow it), and a
 *     kept directory under an unkept parent is re-parented to the root in
 *     MKDIR, LOOKUP and RMDIR, while one under a kept parent keeps it;
 *   - the same records give the same kept records (no state but the trace);
 *   - scaling: a run with mds_sample_k = 4 against a full run of the
 *     records the filter keeps, on the config rs_sample_scale_config
 *     sizes, with the ideal allocator: every sample's rss minus base_bytes
 *     and accounted bytes are 4x, x and rss/limit equal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/base/config.h"
#include "sim/schema.h"
#include "sim/run.h"
#include "traces/sample.h"
#include "traces/source.h"
#include "traces/trace.h"

/* ------------------------------------------------------- a known tree */

#define NTOP 300
#define NSUB 4
#define NFILE 6
#define MAXREC 200000

typedef struct tree {
    rs_rec rec[MAXREC];
    uint64_t unit[MAXREC];   /* the directory whose sampling decides the record */
    uint64_t parent[MAXREC]; /* a directory's parent, for MKDIR/LOOKUP/RMDIR of a directory */
    int is_dir[MAXREC];
    size_t n, pos;
} tree;

static void add(tree *t, unsigned op, uint64_t ino, uint64_t parent, uint64_t unit, int is_dir)
{
    if (t->n >= MAXREC)
        abort();
    t->rec[t->n] = (rs_rec){ .t_ns = t->n * 1000000, .key = ino, .size_bytes = parent, .aux = 8,
                             .thread = (uint16_t)(ino % 3), .op = (uint8_t)op };
    t->unit[t->n] = unit;
    t->parent[t->n] = parent;
    t->is_dir[t->n] = is_dir;
    t->n++;
}

/* root 1 > top dirs > sub dirs > files, and files in the top dirs too;
 * every op on every inode, then rm -rf. */
static void build(tree *t)
{
    uint64_t ino = 2;
    uint64_t top[NTOP], sub[NTOP][NSUB], file[NTOP][NSUB + 1][NFILE];
    t->n = t->pos = 0;
    for (int i = 0; i < NTOP; i++) {
        top[i] = ino++;
        add(t, RS_OP_MKDIR, top[i], 1, top[i], 1);
        for (int j = 0; j < NSUB; j++) {
            sub[i][j] = ino++;
            add(t, RS_OP_MKDIR, sub[i][j], top[i], sub[i][j], 1);
        }
        for (int j = 0; j <= NSUB; j++) {
            uint64_t dir = j < NSUB ? sub[i][j] : top[i];
            for (int f = 0; f < NFILE; f++) {
                file[i][j][f] = ino++;
                add(t, RS_OP_CREATE, file[i][j][f], dir, dir, 0);
            }
        }
    }
    for (int i = 0; i < NTOP; i++) {
        add(t, RS_OP_LOOKUP, top[i], 1, top[i], 1);
        add(t, RS_OP_READDIR, top[i], 0, top[i], 1);
        for (int j = 0; j <= NSUB; j++) {
            uint64_t dir = j < NSUB ? sub[i][j] : top[i];
            if (j < NSUB) {
                add(t, RS_OP_LOOKUP, dir, top[i], dir, 1);
                add(t, RS_OP_GETATTR, dir, 0, dir, 1);
            }
            for (int f = 0; f < NFILE; f++) {
                uint64_t x = file[i][j][f];
                add(t, RS_OP_LOOKUP, x, dir, dir, 0);
                add(t, RS_OP_GETATTR, x, 0, dir, 0);
                add(t, RS_OP_OPEN, x, 0, dir, 0);
                add(t, RS_OP_CLOSE, x, 0, dir, 0);
            }
        }
    }
    for (int i = 0; i < NTOP; i++) {
        for (int j = 0; j <= NSUB; j++) {
            uint64_t dir = j < NSUB ? sub[i][j] : top[i];
            for (int f = 0; f < NFILE; f++)
                add(t, RS_OP_UNLINK, file[i][j][f], dir, dir, 0);
            if (j < NSUB)
                add(t, RS_OP_RMDIR, dir, top[i], dir, 1);
        }
        add(t, RS_OP_RMDIR, top[i], 1, top[i], 1);
    }
}

static int tree_next(void *ctx, rs_rec *r, rs_err *err)
{
    (void)err;
    tree *t = ctx;
    if (t->pos >= t->n)
        return 0;
    *r = t->rec[t->pos++];
    return 1;
}

static uint64_t tree_line(const void *ctx)
{
    return ((const tree *)ctx)->pos + 1;
}

static tree T;

static void test_rule(void)
{
    for (uint64_t d = 1; d < 1000; d++)
        CHECK(rs_sample_dir_kept(d, 1));
    const uint32_t ks[] = { 2, 4, 16, 100 };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        uint64_t kept = 0, n = 100000;
        for (uint64_t d = 2; d < 2 + n; d++)
            kept += (uint64_t)rs_sample_dir_kept(d, ks[i]);
        double p = 1.0 / ks[i], mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));
        CHECK_MSG(fabs((double)kept - mean) < 5 * sd, "k=%u: %llu kept of %llu, expected %.0f +- %.0f",
                  ks[i], (unsigned long long)kept, (unsigned long long)n, mean, 5 * sd);
    }
}

/* Run the tree through a k filter; *r_out gets the kept records' indexes. */
static size_t filter_tree(uint32_t k, size_t *out, rs_rec *kept)
{
    rs_rec_source in = { .ctx = &T, .next = tree_next, .line = tree_line, .path = "tree" }, src;
    rs_sample_filter *f;
    rs_err err;
    rs_rec r;
    size_t n = 0;
    T.pos = 0;
    CHECK(rs_sample_filter_new(&f, k, &in, &src, &err) == 0);
    while (src.next(src.ctx, &r, &err) == 1) {
        out[n] = T.pos - 1; /* the record just read and kept */
        kept[n++] = r;
    }
    uint64_t nread, nkept;
    rs_sample_filter_counts(f, &nread, &nkept);
    CHECK_EQ_U64(nread, T.n);
    CHECK_EQ_U64(nkept, n);
    rs_sample_filter_free(f);
    return n;
}

static size_t idx[MAXREC], idx2[MAXREC];
static rs_rec kept[MAXREC], kept2[MAXREC];

static void test_filter(uint32_t k)
{
    size_t n = filter_tree(k, idx, kept), want = 0, j = 0, rerooted = 0, kept_parent = 0;
    for (size_t i = 0; i < T.n; i++)
        want += (size_t)rs_sample_dir_kept(T.unit[i], k);
    CHECK_MSG(n == want, "k=%u: %zu records kept, %zu in kept directories", k, n, want);
    for (size_t i = 0; i < T.n && j < n; i++) {
        int in = rs_sample_dir_kept(T.unit[i], k);
        if (!in)
            continue;
        CHECK_MSG(idx[j] == i, "k=%u: record %zu of a kept directory dropped (kept instead: record %zu, %s %llu %llu unit %llu)", k, i, idx[j], rs_op_name(T.rec[idx[j]].op), (unsigned long long)T.rec[idx[j]].key, (unsigned long long)T.rec[idx[j]].size_bytes, (unsigned long long)T.unit[idx[j]]);
        if (idx[j] != i)
            return;
        const rs_rec *r = &kept[j++];
        CHECK(r->op == T.rec[i].op && r->key == T.rec[i].key && r->t_ns == T.rec[i].t_ns);
        int names_parent = r->op == RS_OP_MKDIR || r->op == RS_OP_LOOKUP || r->op == RS_OP_RMDIR;
        if (T.is_dir[i] && names_parent) {
            uint64_t p = T.parent[i];
            uint64_t expect = p == 1 || rs_sample_dir_kept(p, k) ? p : 1;
            CHECK_MSG(r->size_bytes == expect, "k=%u: %s %llu: parent %llu, want %llu", k,
                      rs_op_name(r->op), (unsigned long long)r->key,
                      (unsigned long long)r->size_bytes, (unsigned long long)expect);
            rerooted += expect == 1 && p != 1;
            kept_parent += expect != 1;
        } else {
            CHECK(r->size_bytes == T.rec[i].size_bytes);
        }
    }
    if (k > 1) /* both cases occur on this tree */
        CHECK_MSG(rerooted > 0 && kept_parent > 0, "k=%u: %zu re-parented, %zu kept their parent",
                  k, rerooted, kept_parent);
    /* the same records, the same kept records */
    size_t n2 = filter_tree(k, idx2, kept2);
    CHECK(n2 == n && !memcmp(kept, kept2, n * sizeof *kept));
}

/* --------------------------------------------------------------- scaling */

static char full_path[512], part_path[512];

static void write_trace(const char *p, const rs_rec *recs, size_t n)
{
    rs_trace_writer *w;
    rs_err err;
    if (rs_trace_writer_open(&w, p, "binary", "mds", &err))
        abort();
    for (size_t i = 0; i < n; i++)
        if (rs_trace_write(w, &recs[i], &err))
            abort();
    if (rs_trace_writer_close(w, &err))
        abort();
}

static rs_config *config(const char *base, const char *k, rs_err *err)
{
    rs_config *cfg;
    if (rs_config_new(&cfg, err))
        abort();
    const char *kv[][2] = {
        { "daemon", "mds" }, { "alloc", "ideal" }, { "mds_cache_memory_limit", "2M" },
        { "base_bytes", base }, { "sample_interval", "100ms" }, { "mds_session_bytes", "4K" },
        { "mds_log_events_per_update", "2" }, { "mds_log_heap_ratio", "1" },
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        if (rs_config_set(cfg, kv[i][0], kv[i][1], err))
            abort();
    if (k && rs_config_set(cfg, "mds_sample_k", k, err))
        abort();
    return cfg;
}

static void test_scaling(const char *base)
{
    rs_err err;
    rs_result a, b;
    const uint32_t k = 4;

    size_t n = filter_tree(k, idx, kept);
    write_trace(part_path, kept, n);
    rs_config *ca = config(base, "4", &err), *cb = config(base, NULL, &err);
    CHECK(rs_sample_scale_config(cb, k, "ideal", &err) == 0);
    CHECK_EQ_U64(rs_config_size(cb, "mds_cache_memory_limit"), 512 * 1024);
    rs_result_init(&a);
    rs_result_init(&b);
    CHECK_MSG(rs_run_execute(full_path, ca, &a, NULL, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_run_execute(part_path, cb, &b, NULL, &err) == 0, "%s", err.msg);
    CHECK_MSG(a.nsamples == b.nsamples && a.nsamples > 10, "%zu vs %zu samples", a.nsamples, b.nsamples);
    uint64_t bb = rs_config_size(ca, "base_bytes");
    size_t bad = 0, full = 0;
    for (size_t i = 0; i < a.nsamples && i < b.nsamples; i++) {
        const rs_sample *x = &a.samples[i], *y = &b.samples[i];
        full += y->accounted_bytes * 10 >= rs_config_size(cb, "mds_cache_memory_limit") * 9;
        bad += !(x->rss_bytes - bb == k * (y->rss_bytes - bb) &&
                 x->accounted_bytes == k * y->accounted_bytes &&
                 x->untracked_bytes == k * y->untracked_bytes && x->base_bytes == bb &&
                 x->limit_bytes == k * y->limit_bytes && x->items_count == k * y->items_count &&
                 (bb || (fabs(x->x - y->x) < 1e-12 && fabs(x->overshoot - y->overshoot) < 1e-12)));
    }
    CHECK_MSG(bad == 0, "base %s: %zu samples not scaled by %u", base, bad, k);
    CHECK_MSG(full > 0, "the sampled cache never filled (%zu samples)", a.nsamples);
    double xa, xb;
    CHECK(rs_result_metric(&a, "x_steady", &xa) == 0 && rs_result_metric(&b, "x_steady", &xb) == 0);
    if (!strcmp(base, "0"))
        CHECK_MSG(fabs(xa - xb) < 1e-12, "x_steady %.15f vs %.15f", xa, xb);
    rs_result_release(&a);
    rs_result_release(&b);
    rs_config_free(ca);
    rs_config_free(cb);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(full_path, sizeof full_path, "%s/rssim-sample-full-%ld.bin", tmp, (long)getpid());
    snprintf(part_path, sizeof part_path, "%s/rssim-sample-part-%ld.bin", tmp, (long)getpid());
    build(&T);
    test_rule();
    test_filter(1);
    test_filter(4);
    test_filter(16);
    write_trace(full_path, T.rec, T.n);
    test_scaling("0");
    test_scaling("8M");
    unlink(full_path);
    unlink(part_path);
    return check_done();
}
