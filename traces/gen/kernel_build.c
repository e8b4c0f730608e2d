/*
 * kernel_build.c — the Linux kernel-build workload on CephFS
 * (`rssim gen kernel-build`), daemon kind "mds": `clients` kernel clients,
 * each untarring, building (`make defconfig && make`) and `rm -rf`-ing a
 * Linux tree `builds` times, in its own directory /c<client>/b<build>/.
 *
 * The tree and what the build creates come from two listings (kb_tree.h):
 * by default the ones shipped in traces/ (Debian linux-source-6.1 and a
 * measured x86_64 defconfig build, written by scripts/make-kernel-tree),
 * found in the data folder the caller passes (gen.h).
 * One template is loaded and shared; every (client, build) is a stream
 * replaying the template's program with its own inode range and RNG, and the
 * streams are merged by time with a binary heap of per-stream cursors keyed
 * (t_ns, stream index), so the output is streamed, never held in memory.
 *
 * Records (docs/trace-format.md §4): thread = client; key = inode;
 * size_bytes = parent directory inode for MKDIR/CREATE/LOOKUP/UNLINK/RMDIR;
 * aux = name length.  Inodes: 1 root, 2 + c the client directory /c<c>
 * (made by the client's first build, never removed), then stream
 * s = c * builds + b owns [2 + clients + s * span, ... + span), span =
 * n_nodes + 1 + n_cc (kb_tree.h), so inodes are unique and never reused.
 *
 * Per build: untar = MKDIR b<b>, then MKDIR (directory) or CREATE (file,
 * symlink) per tar entry: the MDS sees tar's open(O_CREAT) as one CREATE and
 * its writes and close go to the OSDs and the client's caps, not to MDS
 * requests.  defconfig = a READ (LOOKUP + GETATTR) of each Kconfig file,
 * then its outputs.  build = per compilation: READ its source, READ `headers`
 * draws from the header pool (Zipf with exponent header-skew over a
 * seed-shuffled pool), CREATE .o, CREATE .d, CREATE .cmd, UNLINK .d; other
 * outputs are one CREATE/MKDIR each.  A READ emits LOOKUP + GETATTR only the
 * first time a build reads that file: a kernel client keeps the dentry and
 * caps afterwards.  rm = READDIR each directory, UNLINK each file, RMDIR
 * each directory bottom-up.
 *
 * Time: phase p of a build holds n_p steps spread evenly over its duration
 * (untar, defconfig, build, rm); a step's ops are 1 ns apart.  Client c
 * starts at U(0, start-spread); with overlap its build b starts b * stagger
 * later, else when build b-1 ends.  Build durations are U(build-min,
 * build-max).  RNG: one MT19937 "plan" stream seeded from `seed` draws, in
 * order, the header pool shuffle, then per client its start and per build
 * its build duration; each stream's header draws use its own MT19937 seeded
 * from (seed, stream).  Same options + seed => byte-identical trace.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "kb_tree.h"
#include "../../sim/base/hash.h"

static const rs_param kb_params[] = {
    { .key = "seed", .type = RS_PT_INT, .def = "1",
      .doc = "seed of the random streams (same options + seed = same trace)" },
    { .key = "clients", .type = RS_PT_INT, .def = "64",
      .doc = "kernel clients (record.thread), 1 .. 65536" },
    { .key = "builds", .type = RS_PT_INT, .def = "4",
      .doc = "builds per client, each untar + make + rm -rf in /c<client>/b<build>" },
    { .key = "tree", .type = RS_PT_STRING, .def = "linux-6.1-tree.tsv.zst",
      .doc = "tree listing (path size type); a bare name not in . is one of rssim's bundled traces" },
    { .key = "outputs", .type = RS_PT_STRING, .def = "linux-6.1-build-outputs.tsv.zst",
      .doc = "build outputs (path size type phase); bare names as for --tree" },
    { .key = "overlap", .type = RS_PT_BOOL, .def = "true",
      .doc = "a client's builds run at once, `stagger` apart (false: one after another)" },
    { .key = "stagger", .type = RS_PT_DURATION, .def = "30s",
      .doc = "with overlap: start of build b+1 after build b of the same client" },
    { .key = "start-spread", .type = RS_PT_DURATION, .def = "60s",
      .doc = "clients start at uniform random offsets in [0, start-spread)" },
    { .key = "untar", .type = RS_PT_DURATION, .def = "60s",
      .doc = "duration of the untar phase" },
    { .key = "defconfig", .type = RS_PT_DURATION, .def = "10s",
      .doc = "duration of make defconfig" },
    { .key = "build-min", .type = RS_PT_DURATION, .def = "900s",
      .doc = "shortest make (measured 15-19 min on 2 cores)" },
    { .key = "build-max", .type = RS_PT_DURATION, .def = "1140s",
      .doc = "longest make; each build's is uniform in [build-min, build-max]" },
    { .key = "rm", .type = RS_PT_DURATION, .def = "30s",
      .doc = "duration of rm -rf" },
    { .key = "header-skew", .type = RS_PT_DOUBLE, .def = "1.0",
      .doc = "Zipf exponent of header popularity; 0 = uniform" },
    { .key = "cmd-fixed-bytes", .type = RS_PT_SIZE, .def = "2500",
      .doc = "bytes of a .cmd file that are not dependency lines" },
    { .key = "cmd-bytes-per-header", .type = RS_PT_SIZE, .def = "90",
      .doc = "bytes of .cmd per header read (headers = (cmd - fixed) / this)" },
    { .key = "events", .type = RS_PT_INT, .def = "0",
      .doc = "stop after this many records (0 = the whole trace)" },
    { .key = NULL },
};

/* One (client, build) stream. */
typedef struct kb_stream {
    uint32_t client, build;
    uint64_t base_ino;                   /* inode of node id 0 */
    uint64_t phase_t0_ns[RS_KB_NPHASES + 1]; /* start of each phase; [NPHASES] = end */
    uint64_t last_ns;                    /* time of the last record */
    uint64_t step_ns;                    /* base time of the current step */
    uint32_t step;                       /* next program step */
    uint32_t q_len, q_pos, sub;          /* ops of the current step */
    uint32_t *queue;                     /* op << 28 | id */
    uint64_t *seen;                      /* bitset over tree nodes read this build */
    gsl_rng *rng;
    int started, client_dir;             /* client_dir: MKDIR /c<c> still to do */
    rs_rec next;                         /* the record to write next */
} kb_stream;

enum { Q_LOOKUP, Q_GETATTR, Q_MKDIR, Q_CREATE, Q_UNLINK, Q_RMDIR, Q_READDIR, Q_CLIENT_DIR };
#define Q(op, id) ((uint32_t)(op) << 28 | (id))

typedef struct kb_gen {
    rs_kb_tmpl t;
    uint32_t clients, builds, n_streams;
    uint64_t span;                        /* inodes per build */
    uint64_t seed_mix;
    gsl_ran_discrete_t *header_dist;      /* rank -> index into t.header_pool */
    kb_stream *streams;
    uint32_t *heap;                       /* stream indices */
    uint32_t heap_len;
    uint64_t live, peak_live, peak_ns, records, end_ns;
} kb_gen;

static unsigned digits(uint32_t v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* ---- ids, inodes, names ---- */

static uint64_t ino_of(const kb_stream *s, uint32_t id)
{
    return s->base_ino + id;
}

static uint64_t parent_ino(const kb_gen *g, const kb_stream *s, uint32_t id)
{
    uint32_t n = g->t.n_nodes;
    if (id == n)
        return 2 + (uint64_t)s->client;
    if (id > n) /* the depfile of compilation id - n - 1 sits next to its .o */
        id = g->t.cc[id - n - 1].obj;
    uint32_t p = g->t.nodes[id].parent;
    return ino_of(s, p == RS_KB_NONE ? n : p);
}

static uint32_t name_len(const kb_gen *g, const kb_stream *s, uint32_t id)
{
    uint32_t n = g->t.n_nodes;
    if (id == n)
        return 1 + digits(s->build);
    if (id > n) /* .X.o.d next to .X.o.cmd */
        return g->t.nodes[g->t.cc[id - n - 1].cmd].name_len - 2;
    return g->t.nodes[id].name_len;
}

/* ---- one stream ---- */

static void queue_read(kb_stream *s, uint32_t id)
{
    if (s->seen[id / 64] >> (id % 64) & 1)
        return;
    s->seen[id / 64] |= 1ull << (id % 64);
    s->queue[s->q_len++] = Q(Q_LOOKUP, id);
    s->queue[s->q_len++] = Q(Q_GETATTR, id);
}

/* Expand program step s->step into the queue. */
static void expand_step(const kb_gen *g, kb_stream *s)
{
    const rs_kb_step *st = &g->t.steps[s->step];
    s->q_len = s->q_pos = 0;
    switch (st->kind) {
    case RS_KB_S_MKDIR: s->queue[s->q_len++] = Q(Q_MKDIR, st->arg); break;
    case RS_KB_S_CREATE: s->queue[s->q_len++] = Q(Q_CREATE, st->arg); break;
    case RS_KB_S_READ: queue_read(s, st->arg); break;
    case RS_KB_S_READDIR: s->queue[s->q_len++] = Q(Q_READDIR, st->arg); break;
    case RS_KB_S_UNLINK: s->queue[s->q_len++] = Q(Q_UNLINK, st->arg); break;
    case RS_KB_S_RMDIR: s->queue[s->q_len++] = Q(Q_RMDIR, st->arg); break;
    case RS_KB_S_CC: {
        const rs_kb_cc *cc = &g->t.cc[st->arg];
        uint32_t dfile = g->t.n_nodes + 1 + st->arg;
        if (cc->src != RS_KB_NONE)
            queue_read(s, cc->src);
        if (g->t.n_header_pool)
            for (uint32_t i = 0; i < cc->headers; i++)
                queue_read(s, g->t.header_pool[gsl_ran_discrete(s->rng, g->header_dist)]);
        s->queue[s->q_len++] = Q(Q_CREATE, cc->obj);
        s->queue[s->q_len++] = Q(Q_CREATE, dfile);
        s->queue[s->q_len++] = Q(Q_CREATE, cc->cmd);
        s->queue[s->q_len++] = Q(Q_UNLINK, dfile);
        break;
    }
    }
}

static uint32_t phase_of_step(const kb_gen *g, uint32_t step)
{
    uint32_t p = 0;
    while (p + 1 < RS_KB_NPHASES && step >= g->t.phase_first[p + 1])
        p++;
    return p;
}

static uint64_t step_time(const kb_gen *g, const kb_stream *s, uint32_t step)
{
    uint32_t p = phase_of_step(g, step);
    uint64_t first = g->t.phase_first[p], n = g->t.phase_first[p + 1] - first;
    uint64_t dur = s->phase_t0_ns[p + 1] - s->phase_t0_ns[p];
    return s->phase_t0_ns[p] + (uint64_t)((double)dur * (double)(step - first) / (double)n);
}

/* Fill s->next; 0 when the stream is done. */
static int stream_peek(const kb_gen *g, kb_stream *s)
{
    uint32_t q, id;
    rs_rec *r = &s->next;

    if (s->client_dir) {
        q = Q(Q_CLIENT_DIR, 0);
        s->step_ns = s->phase_t0_ns[0];
    } else {
        while (s->q_pos == s->q_len) {
            if (s->step == g->t.n_steps)
                return 0;
            s->step_ns = step_time(g, s, s->step);
            s->sub = 0;
            expand_step(g, s);
            s->step++;
        }
        q = s->queue[s->q_pos++];
    }
    id = q & ((1u << 28) - 1);
    memset(r, 0, sizeof *r);
    r->t_ns = s->step_ns + s->sub++;
    if (r->t_ns < s->last_ns)
        r->t_ns = s->last_ns;
    s->last_ns = r->t_ns;
    r->thread = (uint16_t)s->client;
    switch (q >> 28) {
    case Q_CLIENT_DIR:
        s->client_dir = 0;
        r->op = RS_OP_MKDIR;
        r->key = 2 + (uint64_t)s->client;
        r->size_bytes = 1;
        r->aux = 1 + digits(s->client);
        return 1;
    case Q_LOOKUP: r->op = RS_OP_LOOKUP; break;
    case Q_GETATTR: r->op = RS_OP_GETATTR; break;
    case Q_MKDIR: r->op = RS_OP_MKDIR; break;
    case Q_CREATE: r->op = RS_OP_CREATE; break;
    case Q_UNLINK: r->op = RS_OP_UNLINK; break;
    case Q_RMDIR: r->op = RS_OP_RMDIR; break;
    case Q_READDIR: r->op = RS_OP_READDIR; break;
    }
    r->key = ino_of(s, id);
    if (r->op != RS_OP_GETATTR && r->op != RS_OP_READDIR) {
        r->size_bytes = parent_ino(g, s, id);
        r->aux = name_len(g, s, id);
    }
    return 1;
}

static int stream_start(kb_gen *g, kb_stream *s, rs_err *err)
{
    uint32_t words = (g->t.n_tree + 63) / 64;
    uint32_t qcap = 2 * (g->t.max_cc_headers + 1) + 8;
    s->seen = calloc(words ? words : 1, sizeof *s->seen);
    s->queue = malloc(qcap * sizeof *s->queue);
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!s->seen || !s->queue || !s->rng)
        return rs_fail(err, RS_ENOMEM, "out of memory for kernel-build stream %u/%u",
                       s->client, s->build);
    gsl_rng_set(s->rng, (unsigned long)(rs_hash64(g->seed_mix ^ rs_hash64((uint64_t)(s - g->streams) + 1)) >> 32));
    s->started = 1;
    return 0;
}

static void stream_stop(kb_stream *s)
{
    free(s->seen);
    free(s->queue);
    if (s->rng)
        gsl_rng_free(s->rng);
    s->seen = NULL;
    s->queue = NULL;
    s->rng = NULL;
}

/* ---- the merge heap: key (time of the stream's next record, index) ---- */

static uint64_t key_ns(const kb_gen *g, uint32_t i)
{
    const kb_stream *s = &g->streams[i];
    return s->started ? s->next.t_ns : s->phase_t0_ns[0];
}

static int heap_less(const kb_gen *g, uint32_t a, uint32_t b)
{
    uint64_t ta = key_ns(g, a), tb = key_ns(g, b);
    return ta < tb || (ta == tb && a < b);
}

static void heap_down(kb_gen *g, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < g->heap_len && heap_less(g, g->heap[l], g->heap[m]))
            m = l;
        if (r < g->heap_len && heap_less(g, g->heap[r], g->heap[m]))
            m = r;
        if (m == i)
            return;
        uint32_t tmp = g->heap[i];
        g->heap[i] = g->heap[m];
        g->heap[m] = tmp;
        i = m;
    }
}

/* ---- setup ---- */

static int plan(kb_gen *g, const rs_config *opts, rs_err *err)
{
    uint64_t spread = rs_config_duration_ns(opts, "start-spread");
    uint64_t stagger = rs_config_duration_ns(opts, "stagger");
    uint64_t d_untar = rs_config_duration_ns(opts, "untar");
    uint64_t d_defconfig = rs_config_duration_ns(opts, "defconfig");
    uint64_t d_min = rs_config_duration_ns(opts, "build-min");
    uint64_t d_max = rs_config_duration_ns(opts, "build-max");
    uint64_t d_rm = rs_config_duration_ns(opts, "rm");
    int overlap = rs_config_bool(opts, "overlap");
    double skew = rs_config_double(opts, "header-skew");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double *w = NULL;
    int rc = 0;

    if (!rng)
        return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build plan");
    gsl_rng_set(rng, (unsigned long)(g->seed_mix >> 32));
    if (g->t.n_header_pool) {
        gsl_ran_shuffle(rng, g->t.header_pool, g->t.n_header_pool, sizeof *g->t.header_pool);
        if (!(w = malloc(g->t.n_header_pool * sizeof *w))) {
            rc = rs_fail(err, RS_ENOMEM, "out of memory for the header weights");
            goto out;
        }
        for (uint32_t r = 0; r < g->t.n_header_pool; r++)
            w[r] = pow((double)r + 1, -skew);
        if (!(g->header_dist = gsl_ran_discrete_preproc(g->t.n_header_pool, w))) {
            rc = rs_fail(err, RS_ENOMEM, "cannot build the header popularity table");
            goto out;
        }
    }
    for (uint32_t c = 0; c < g->clients; c++) {
        uint64_t t = (uint64_t)(gsl_rng_uniform(rng) * (double)spread);
        uint64_t client_t0 = t;
        for (uint32_t b = 0; b < g->builds; b++) {
            kb_stream *s = &g->streams[(uint64_t)c * g->builds + b];
            uint64_t d_build = d_min + (uint64_t)(gsl_rng_uniform(rng) * (double)(d_max - d_min));
            s->client = c;
            s->build = b;
            s->client_dir = b == 0;
            s->base_ino = 2 + g->clients + ((uint64_t)c * g->builds + b) * g->span;
            /* in double first: the sum must stay well inside 2^64 ns (584 years) */
            if ((overlap ? (double)client_t0 + (double)b * (double)stagger : (double)t) +
                    (double)d_untar + (double)d_defconfig + (double)d_build + (double)d_rm >
                0x1p63) {
                rc = rs_fail(err, RS_EINPUT, "kernel-build: virtual time passes 2^63 ns at "
                             "client %u build %u: shorten the durations", c, b);
                goto out;
            }
            if (overlap)
                t = client_t0 + b * stagger;
            s->phase_t0_ns[RS_KB_UNTAR] = t;
            s->phase_t0_ns[RS_KB_DEFCONFIG] = t += d_untar;
            s->phase_t0_ns[RS_KB_BUILD] = t += d_defconfig;
            s->phase_t0_ns[RS_KB_RM] = t += d_build;
            s->phase_t0_ns[RS_KB_NPHASES] = t += d_rm;
        }
    }
out:
    free(w);
    gsl_rng_free(rng);
    return rc;
}

/* A listing's path: as given when it names a directory part or a file that
 * exists (or when there is no data folder), else (a bare name) the one
 * bundled in data_dir, which is how the defaults are found from a build
 * tree or an installed copy. */
static int listing_path(const rs_config *opts, const char *data_dir, const char *key,
                        const char *value, char *r_path, size_t cap, rs_err *err)
{
    int n;
    if (!*value)
        return rs_config_bad_value(opts, key, "must name a listing file", err);
    if (strchr(value, '/') || access(value, F_OK) == 0 || !data_dir || !*data_dir)
        n = snprintf(r_path, cap, "%s", value);
    else
        n = snprintf(r_path, cap, "%s/%s", data_dir, value);
    if (n < 0 || (size_t)n >= cap)
        return rs_config_bad_value(opts, key, "path too long", err);
    return 0;
}

static int setup(kb_gen *g, const rs_config *opts, const char *data_dir, rs_err *err)
{
    int64_t clients = rs_config_int(opts, "clients"), builds = rs_config_int(opts, "builds");
    const char *tree = rs_config_string(opts, "tree"), *outputs = rs_config_string(opts, "outputs");
    rs_kb_cc_model m = {
        .cmd_fixed_bytes = rs_config_size(opts, "cmd-fixed-bytes"),
        .cmd_bytes_per_header = rs_config_size(opts, "cmd-bytes-per-header"),
    };
    double skew = rs_config_double(opts, "header-skew");
    int rc;

    if (clients < 1 || clients > 65536)
        return rs_config_bad_value(opts, "clients", "must be in 1 .. 65536", err);
    if (builds < 1 || clients * builds > (1 << 20))
        return rs_config_bad_value(opts, "builds", "must be >= 1, with clients * builds <= 1048576", err);
    if (rs_config_int(opts, "events") < 0)
        return rs_config_bad_value(opts, "events", "must be >= 0", err);
    if (rs_config_duration_ns(opts, "build-max") < rs_config_duration_ns(opts, "build-min"))
        return rs_config_bad_value(opts, "build-max", "must be >= build-min", err);
    if (!(skew >= 0) || !isfinite(skew))
        return rs_config_bad_value(opts, "header-skew", "must be >= 0", err);
    if (m.cmd_bytes_per_header < 1)
        return rs_config_bad_value(opts, "cmd-bytes-per-header", "must be >= 1", err);
    char tree_path[4096], outputs_path[4096];
    if ((rc = listing_path(opts, data_dir, "tree", tree, tree_path, sizeof tree_path, err)) ||
        (rc = listing_path(opts, data_dir, "outputs", outputs, outputs_path, sizeof outputs_path,
                           err)) ||
        (rc = rs_kb_tmpl_load(&g->t, tree_path, outputs_path, &m, err)))
        return rc;
    g->clients = (uint32_t)clients;
    g->builds = (uint32_t)builds;
    g->n_streams = g->clients * g->builds;
    g->span = (uint64_t)g->t.n_nodes + 1 + g->t.n_cc;
    g->seed_mix = rs_hash64((uint64_t)rs_config_int(opts, "seed") ^ 0x6b62756c6431ull);
    if (!(g->streams = calloc(g->n_streams, sizeof *g->streams)) ||
        !(g->heap = malloc(g->n_streams * sizeof *g->heap)))
        return rs_fail(err, RS_ENOMEM, "out of memory for %u kernel-build streams", g->n_streams);
    return plan(g, opts, err);
}

static void release(kb_gen *g)
{
    for (uint32_t i = 0; g->streams && i < g->n_streams; i++)
        stream_stop(&g->streams[i]);
    free(g->streams);
    free(g->heap);
    if (g->header_dist)
        gsl_ran_discrete_free(g->header_dist);
    rs_kb_tmpl_release(&g->t);
}

static int run(kb_gen *g, uint64_t max_records, rs_trace_writer *w, rs_err *err)
{
    int rc;

    for (uint32_t i = 0; i < g->n_streams; i++)
        g->heap[i] = i;
    g->heap_len = g->n_streams;
    for (uint32_t i = g->heap_len / 2; i-- > 0;)
        heap_down(g, i);
    while (g->heap_len && (!max_records || g->records < max_records)) {
        kb_stream *s = &g->streams[g->heap[0]];
        if (!s->started) { /* its first record is at its start time: the key holds */
            if ((rc = stream_start(g, s, err)))
                return rc;
            stream_peek(g, s);
        }
        const rs_rec *r = &s->next;
        if ((rc = rs_trace_write(w, r, err)))
            return rc;
        g->records++;
        g->end_ns = r->t_ns;
        if (r->op == RS_OP_MKDIR || r->op == RS_OP_CREATE) {
            if (++g->live > g->peak_live) {
                g->peak_live = g->live;
                g->peak_ns = r->t_ns;
            }
        } else if (r->op == RS_OP_UNLINK || r->op == RS_OP_RMDIR) {
            g->live--;
        }
        if (!stream_peek(g, s)) {
            stream_stop(s);
            g->heap[0] = g->heap[--g->heap_len];
        }
        heap_down(g, 0);
    }
    return 0;
}

static int kb_generate(const rs_config *opts, const char *data_dir, rs_trace_writer *w,
                       char *r_summary, size_t cap, rs_err *err)
{
    kb_gen g;
    int rc;

    memset(&g, 0, sizeof g);
    if (!(rc = setup(&g, opts, data_dir, err)) &&
        !(rc = run(&g, (uint64_t)rs_config_int(opts, "events"), w, err)) && r_summary && cap)
        snprintf(r_summary, cap,
                 "%llu records, %u streams (%u clients x %u builds), peak %llu live inodes "
                 "at %.1f s, last record at %.1f s; per build: %u tree entries, %u outputs, "
                 "%u compilations",
                 (unsigned long long)g.records, g.n_streams, g.clients, g.builds,
                 (unsigned long long)g.peak_live, (double)g.peak_ns / 1e9,
                 (double)g.end_ns / 1e9, g.t.n_tree, g.t.n_nodes - g.t.n_tree, g.t.n_cc);
    release(&g);
    return rc;
}

const rs_gen_ops rs_gen_kernel_build = {
    .name = "kernel-build",
    .doc = "Linux kernel builds on CephFS: N clients x M builds of untar, make, rm -rf",
    .daemon = "mds",
    .params = kb_params,
    .generate = kb_generate,
};
