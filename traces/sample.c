/* sample.c — spatial sampling of an mds trace; see sample.h. */
#include "sample.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/hash.h"

/* Fixed, so the kept set never depends on a seed; xored in so the kept
 * inodes are not the ones rs_hash64's tables put in their low slots. */
#define RS_SAMPLE_SALT 0x5348415244530001ull /* "SHARDS" 1 */
#define ROOT_INO 1u
#define EMPTY UINT64_MAX

enum { K_DIR = 1, K_REROOT = 2 };

struct rs_sample_filter {
    rs_rec_source in;
    uint64_t threshold;       /* kept: hash < threshold */
    uint32_t k;
    uint64_t *keys;           /* open addressing, linear probing; EMPTY free */
    uint8_t *flags;
    uint64_t mask, used;
    uint64_t nread, nkept;
};

static uint64_t threshold_of(uint32_t k)
{
    return k <= 1 ? UINT64_MAX : UINT64_MAX / k;
}

int rs_sample_dir_kept(uint64_t dir, uint32_t k)
{
    return k <= 1 || rs_hash64(dir ^ RS_SAMPLE_SALT) < threshold_of(k);
}

static int unit_kept(const rs_sample_filter *f, uint64_t dir)
{
    return rs_hash64(dir ^ RS_SAMPLE_SALT) < f->threshold;
}

/* The slot of key, or of the empty slot where it would go. */
static uint64_t slot_of(const rs_sample_filter *f, uint64_t key)
{
    uint64_t i = rs_hash64(key) & f->mask;
    while (f->keys[i] != EMPTY && f->keys[i] != key)
        i = (i + 1) & f->mask;
    return i;
}

static int grow(rs_sample_filter *f, rs_err *err)
{
    uint64_t n = (f->mask + 1) * 2;
    uint64_t *keys = malloc(n * sizeof *keys);
    uint8_t *flags = malloc(n);
    if (!keys || !flags) {
        free(keys);
        free(flags);
        return rs_fail(err, RS_ENOMEM, "out of memory for the sampled namespace (%" PRIu64
                       " kept inodes)", f->used);
    }
    memset(keys, 0xff, n * sizeof *keys);
    uint64_t *ok = f->keys;
    uint8_t *of = f->flags;
    uint64_t on = f->mask + 1;
    f->keys = keys;
    f->flags = flags;
    f->mask = n - 1;
    for (uint64_t i = 0; i < on; i++)
        if (ok[i] != EMPTY) {
            uint64_t s = slot_of(f, ok[i]);
            f->keys[s] = ok[i];
            f->flags[s] = of[i];
        }
    free(ok);
    free(of);
    return 0;
}

static int put(rs_sample_filter *f, uint64_t key, uint8_t fl, rs_err *err)
{
    if (key == EMPTY) /* never kept: the set's empty marker */
        return 0;
    if ((f->used + 1) * 4 > (f->mask + 1) * 3) {
        int rc = grow(f, err);
        if (rc)
            return rc;
    }
    uint64_t s = slot_of(f, key);
    if (f->keys[s] == EMPTY)
        f->used++;
    f->keys[s] = key;
    f->flags[s] = fl;
    return 0;
}

/* The flags of key plus 4 when present (0: absent). */
static int get(const rs_sample_filter *f, uint64_t key)
{
    if (key == EMPTY)
        return 0;
    uint64_t s = slot_of(f, key);
    return f->keys[s] == EMPTY ? 0 : 4 | f->flags[s];
}

/* Remove key (backward-shift deletion: no tombstones). */
static void del(rs_sample_filter *f, uint64_t key)
{
    if (key == EMPTY)
        return;
    uint64_t i = slot_of(f, key);
    if (f->keys[i] == EMPTY)
        return;
    f->used--;
    for (uint64_t j = i;;) {
        f->keys[i] = EMPTY;
        for (;;) {
            j = (j + 1) & f->mask;
            if (f->keys[j] == EMPTY)
                return;
            uint64_t h = rs_hash64(f->keys[j]) & f->mask;
            /* j's entry may move to i when its home is not in (i, j] */
            if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
                break;
        }
        f->keys[i] = f->keys[j];
        f->flags[i] = f->flags[j];
        i = j;
    }
}

/* A directory the sampled namespace holds: the root, or a kept one. */
static int present_dir(const rs_sample_filter *f, uint64_t dir)
{
    return dir == ROOT_INO || (get(f, dir) & (4 | K_DIR)) == (4 | K_DIR);
}

/* 1 when rec is kept (possibly re-parented), 0 when dropped. */
static int decide(rs_sample_filter *f, rs_rec *rec, rs_err *err)
{
    uint64_t ino = rec->key, parent = rec->size_bytes;
    int got, rc;

    switch (rec->op) {
    case RS_OP_MKDIR:
        if (!unit_kept(f, ino))
            return 0;
        if (present_dir(f, parent)) {
            rc = put(f, ino, K_DIR, err);
        } else {
            rc = put(f, ino, K_DIR | K_REROOT, err);
            rec->size_bytes = ROOT_INO;
        }
        return rc ? rc : 1;
    case RS_OP_CREATE:
        if (!unit_kept(f, parent))
            return 0;
        return (rc = put(f, ino, 0, err)) ? rc : 1;
    case RS_OP_LOOKUP:
    case RS_OP_UNLINK:
    case RS_OP_RMDIR:
        got = get(f, ino);
        if (!got) /* not kept, or never made (a bad record a sampled run does not count) */
            return ino == ROOT_INO ? unit_kept(f, ino) : 0;
        if ((got & K_REROOT) && !present_dir(f, parent))
            rec->size_bytes = ROOT_INO;
        if (rec->op != RS_OP_LOOKUP)
            del(f, ino);
        return 1;
    default: /* GETATTR, OPEN, CLOSE, READDIR: the inode's unit */
        if (ino == ROOT_INO)
            return unit_kept(f, ino);
        return get(f, ino) != 0;
    }
}

static int filter_next(void *ctx, rs_rec *r_rec, rs_err *err)
{
    rs_sample_filter *f = ctx;
    for (;;) {
        int rc = f->in.next(f->in.ctx, r_rec, err);
        if (rc <= 0)
            return rc;
        f->nread++;
        if ((rc = decide(f, r_rec, err)) < 0)
            return rc;
        if (rc) {
            f->nkept++;
            return 1;
        }
    }
}

static uint64_t filter_line(const void *ctx)
{
    const rs_sample_filter *f = ctx;
    return f->in.line(f->in.ctx);
}

int rs_sample_filter_new(rs_sample_filter **r_f, uint32_t k, const rs_rec_source *src,
                         rs_rec_source *r_src, rs_err *err)
{
    rs_sample_filter *f = calloc(1, sizeof *f);
    const uint64_t n = 1024;
    if (!f || !(f->keys = malloc(n * sizeof *f->keys)) || !(f->flags = malloc(n))) {
        rs_sample_filter_free(f);
        return rs_fail(err, RS_ENOMEM, "out of memory for the sampling filter");
    }
    memset(f->keys, 0xff, n * sizeof *f->keys);
    f->mask = n - 1;
    f->in = *src;
    f->k = k;
    f->threshold = threshold_of(k);
    *r_src = (rs_rec_source){ .ctx = f, .next = filter_next, .line = filter_line, .path = src->path };
    *r_f = f;
    return 0;
}

void rs_sample_filter_free(rs_sample_filter *f)
{
    if (!f)
        return;
    free(f->keys);
    free(f->flags);
    free(f);
}

void rs_sample_filter_counts(const rs_sample_filter *f, uint64_t *r_read, uint64_t *r_kept)
{
    *r_read = f->nread;
    *r_kept = f->nkept;
}

/* ------------------------------------------------------------ scaled keys */

enum how { DIV, MUL };

/* The keys that size what a 1/k namespace fills: divided by k (counts at
 * least 1 where 0 would mean "off"), or multiplied (the request service
 * time: the sampled MDS serves 1/k of the requests, so each holds it k times
 * as long and the virtual clock keeps the full run's pace).  owner: the
 * allocator model a key belongs to, or NULL for the mds daemon's. */
static const struct { const char *key, *owner; enum how how; } scaled[] = {
    { "mds_cache_memory_limit", NULL, DIV },
    { "mds_cache_trim_threshold", NULL, DIV },
    { "mds_recall_max_caps", NULL, DIV },
    { "mds_recall_max_decay_threshold", NULL, DIV },
    { "mds_recall_global_max_decay_threshold", NULL, DIV },
    { "mds_min_caps_per_client", NULL, DIV },
    { "mds_max_caps_per_client", NULL, DIV },
    { "mds_client_cache_size", NULL, DIV },
    { "mds_log_events_per_segment", NULL, DIV },
    { "mds_log_period", NULL, DIV },
    { "objecter_inflight_op_bytes", NULL, DIV },
    { "mds_session_bytes", NULL, DIV },
    { "mds_request_bytes", NULL, DIV },
    { "mds_journal_event_bytes", NULL, DIV },
    { "mds_request_service_time", NULL, MUL },
};

int rs_sample_scale_config(rs_config *cfg, uint32_t k, const char *alloc, rs_err *err)
{
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++) {
        const char *key = scaled[i].key;
        const rs_param *p = rs_config_param(cfg, key);
        if (!p || (scaled[i].owner && strcmp(scaled[i].owner, alloc) != 0))
            continue;
        uint64_t v;
        switch (p->type) {
        case RS_PT_SIZE: v = rs_config_size(cfg, key); break;
        case RS_PT_DURATION: v = rs_config_duration_ns(cfg, key); break;
        case RS_PT_INT: v = (uint64_t)rs_config_int(cfg, key); break;
        default:
            return rs_fail(err, RS_EINTERNAL, "sampled key '%s' is not a count, size or duration", key);
        }
        if (scaled[i].how == MUL) {
            if (v > UINT64_MAX / k)
                return rs_fail(err, RS_EINPUT, "bad value for key '%s': times mds_sample_k=%u "
                               "overflows", key, k);
            v *= k;
        } else if (v) {
            v = v / k ? v / k : 1;
        }
        char buf[32];
        snprintf(buf, sizeof buf, p->type == RS_PT_DURATION ? "%" PRIu64 "ns" : "%" PRIu64, v);
        int rc = rs_config_set(cfg, key, buf, err);
        if (rc)
            return rs_err_prefix(err, "mds_sample_k=%u: scaling key '%s'", k, key);
    }
    return 0;
}
