/*
 * test_sizes.c — struct sizes as data (models/layout: mds_sizeof_*,
 * bluestore_sizeof_*).
 *
 *   - every layout's size table and its keys agree: each row's key is one
 *     of the layout's params, its default is the row's bytes, its range
 *     refuses 0 and more than 64 KiB; every *_sizeof_* param has a row;
 *   - a set key reaches the allocations: the CInode part is the set size,
 *     the CDir::items node is 32 + dentry_key_t + 8, a client_caps node
 *     holding the Capability is 32 + 8 + Capability, v16's inode_t block is
 *     32 + mempool_inode; an unset key keeps the layout's own row even when
 *     another layout declares the same key with another default;
 *   - a replay whose only change is mds_sizeof_CInode += d moves accounted
 *     bytes per cached inode by exactly d, and RSS per cached inode by d
 *     with the ideal allocator, and with tcmalloc by the change of what one
 *     object of CInode's size class takes of the heap (span bytes / objects
 *     per span; classes from the model's own derivation of SizeMap::Init:
 *     1856 -> 2048 B, 8 per 2-page span; 2256 -> 2304 B, 7 per 2-page span,
 *     so 2340.6 - 2048 = 292.6 B), within a span per run over the count;
 *   - a size of 0 or 64K + 1 is refused naming the key; a size key of a
 *     layout the run did not choose is refused;
 *   - each release carries its own measured sizes (docs/models.md, "Struct
 *     sizes by release": Debian's 16.2.15 ceph-mds and ceph-osd, the probe
 *     compiled on v17.2.7 and 18.2.7): the release layouts' rows and the OSD
 *     presets' sizeof lines are those numbers, where Quincy and Reef differ
 *     from Pacific they differ here too, and a row not compiled for its
 *     release (Squid) says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gen_util.h"
#include "models/alloc/tcmalloc.h"
#include "models/layout/mds_layout.h"
#include "sim/registry.h"
#include "sim/run.h"
#include "sim/schema.h"

/* scratch.h helper this test does not use */
static const char *path_in(const char *name) __attribute__((unused));

static const rs_param *param_of(const rs_layout_ops *ops, const char *key)
{
    return rs_param_find(ops->params, key);
}

static void test_tables(void)
{
    int layouts = 0, rows = 0;
    for (size_t i = 0; i < rs_reg_layout.count; i++) {
        const rs_layout_ops *ops = rs_reg_layout.entries[i];
        for (const rs_param *p = ops->params; p && p->key; p++) {
            if (!strstr(p->key, "_sizeof_"))
                continue;
            int found = 0;
            for (const rs_size_row *r = ops->sizes; r && r->key; r++)
                found |= !strcmp(r->key, p->key);
            CHECK_MSG(found, "%s: param %s has no row in the size table", ops->name, p->key);
        }
        if (!ops->sizes)
            continue;
        layouts++;
        for (const rs_size_row *r = ops->sizes; r->key; r++, rows++) {
            const rs_param *p = param_of(ops, r->key);
            char why[96], def[32];
            CHECK_MSG(p != NULL, "%s: row %s is not a param", ops->name, r->key);
            if (!p)
                continue;
            snprintf(def, sizeof def, "%u", r->bytes);
            CHECK_MSG(p->type == RS_PT_SIZE && !strcmp(p->def, def), "%s: %s default %s, row %u",
                      ops->name, r->key, p->def, r->bytes);
            CHECK_MSG(r->bytes > 0 && r->source && *r->source && r->how && *r->how,
                      "%s: row %s without bytes, source or how", ops->name, r->key);
            CHECK_MSG(rs_param_check_range(p, "0", why, sizeof why) != 0, "%s: %s takes 0", ops->name,
                      r->key);
            CHECK_MSG(rs_param_check_range(p, "65537", why, sizeof why) != 0, "%s: %s takes 64K + 1",
                      ops->name, r->key);
            CHECK_MSG(rs_param_check_range(p, "65536", why, sizeof why) == 0, "%s: %s refuses 64K",
                      ops->name, r->key);
        }
    }
    /* 8 MDS layouts + the onode and buffer layouts */
    CHECK_MSG(layouts == 10 && rows > 40, "%d layouts with sizes, %d rows", layouts, rows);
}

/* The size row of key in ops (must exist). */
static uint32_t row(const rs_layout_ops *ops, const char *key)
{
    for (const rs_size_row *r = ops->sizes; r && r->key; r++)
        if (!strcmp(r->key, key))
            return r->bytes;
    CHECK_MSG(0, "%s: no row %s", ops->name, key);
    return 0;
}

static uint64_t part_named(const rs_part *p, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return p[i].size_bytes;
    return 0;
}

/* Create ops with the "k=v" settings kv; parts of a file with a 20-char name. */
static void check_layout(const rs_layout_ops *ops, const char *const *kv, uint32_t cinode,
                         uint32_t dentry_key, uint32_t cap, uint32_t mempool_inode)
{
    rs_config *cfg;
    rs_err err;
    rs_layout l = { .ops = ops };
    rs_part p[RS_LAYOUT_MAX_PARTS];
    CHECK(rs_config_new(&cfg, &err) == 0);
    for (; *kv; kv++)
        CHECK_MSG(rs_config_set_kv(cfg, *kv, "test", &err) == 0, "%s", err.msg);
    CHECK_MSG(ops->create(cfg, &l.state, &err) == 0, "%s: %s", ops->name, err.msg);
    unsigned n = ops->parts(l.state, 1, RS_MDS_AUX(RS_MDS_FILE, 20), p);
    CHECK_MSG(part_named(p, n, "CInode") == cinode, "%s: CInode part %llu, want %u", ops->name,
              (unsigned long long)part_named(p, n, "CInode"), cinode);
    CHECK_MSG(part_named(p, n, "CDir::items node") == 32 + dentry_key + 8, "%s: items node %llu",
              ops->name, (unsigned long long)part_named(p, n, "CDir::items node"));
    if (mempool_inode)
        CHECK_MSG(part_named(p, n, "CInode::mempool_inode shared block") == 32 + mempool_inode,
                  "%s: inode_t block %llu", ops->name,
                  (unsigned long long)part_named(p, n, "CInode::mempool_inode shared block"));
    const rs_mds_sizes *s = rs_mds_layout_sizes(&l);
    CHECK(s != NULL);
    if (s) {
        unsigned m = rs_mds_side_parts(s, RS_MDS_CAP, 0, 0, p);
        if (s->cap_inside_node)
            CHECK_MSG(m == 1 && p[0].size_bytes == 32 + 8 + cap, "%s: caps node %llu", ops->name,
                      (unsigned long long)p[0].size_bytes);
        else
            CHECK_MSG(m == 2 && p[0].size_bytes == cap && p[1].size_bytes == 48, "%s: cap %llu",
                      ops->name, (unsigned long long)p[0].size_bytes);
    }
    ops->destroy(l.state);
    rs_config_free(cfg);
}

/* The onode's blobs (bluestore_max_blob_size): one per 64 KiB written.
 * Against Debian's ceph-osd 16.2.15 after a 4 KiB random-write run over
 * prefilled 4 MiB RBD objects (dump_mempools): 65 597 blobs, each with one
 * Extent (3 148 656 B) and one SharedBlob, and 9 460 428 B in
 * bluestore_cache_other, 144.2 B a blob (pextent, use tracker, checksums). */
static void test_blobs(const rs_layout_ops *on)
{
    rs_config *cfg;
    rs_err err;
    void *st = NULL;
    rs_part p[RS_LAYOUT_MAX_PARTS];
    CHECK(rs_config_new(&cfg, &err) == 0);
    const char *pacific[][2] = { { "bluestore_sizeof_Extent", "48" }, { "bluestore_sizeof_Blob", "112" },
                                 { "bluestore_sizeof_SharedBlob", "112" },
                                 { "bluestore_max_blob_size", "64K" },
                                 { "bluestore_min_alloc_size", "4K" }, { "bdev_block_size", "4K" },
                                 { "bluestore_csum_type", "crc32c" } };
    for (size_t i = 0; i < sizeof pacific / sizeof pacific[0]; i++)
        CHECK(rs_config_set(cfg, pacific[i][0], pacific[i][1], &err) == 0);
    CHECK_MSG(on->create(cfg, &st, &err) == 0, "%s", err.msg);
    /* nothing written: no blob */
    CHECK(on->parts(st, 0, 0, p) == 1);
    CHECK(on->parts(st, 65536, 0, p) == 2);
    uint64_t blob = p[1].size_bytes, other = blob - 48 - 112 - 112;
    CHECK_MSG(other * 65597 >= 9460428 - 65597 && other * 65597 <= 9460428 + 65597,
              "a blob's bluestore_cache_other %llu B, the 16.2.15 OSD's 144.2",
              (unsigned long long)other);
    /* a prefilled 4 MiB object: 64 blobs; a partial one rounds up */
    CHECK(on->parts(st, 4u << 20, 0, p) == 2 && p[1].size_bytes == 64 * blob);
    CHECK(on->parts(st, 65537, 0, p) == 2 && p[1].size_bytes == 2 * blob);
    on->destroy(st);
    /* no checksums: 64 B less a blob (16 crc32c values) */
    CHECK(rs_config_set(cfg, "bluestore_csum_type", "none", &err) == 0);
    CHECK(on->create(cfg, &st, &err) == 0);
    CHECK(on->parts(st, 65536, 0, p) == 2 && p[1].size_bytes == blob - 64);
    on->destroy(st);
    /* osd_onode_extra_bytes is the fixed model's: refused beside blobs */
    CHECK(rs_config_set(cfg, "osd_onode_extra_bytes", "272", &err) == 0);
    CHECK(on->create(cfg, &st, &err) != 0 && strstr(err.msg, "osd_onode_extra_bytes"));
    rs_config_free(cfg);
    /* and a blob key without blobs does nothing: refused */
    CHECK(rs_config_new(&cfg, &err) == 0);
    CHECK(rs_config_set(cfg, "bluestore_min_alloc_size", "16K", &err) == 0);
    CHECK(on->create(cfg, &st, &err) != 0 && strstr(err.msg, "bluestore_min_alloc_size"));
    rs_config_free(cfg);
}

static void test_overrides(void)
{
    const char *names[] = { "mds-luminous", "mds-pr19954", "mds-octopus", "mds-pacific",
                            "mds-quincy", "mds-reef", "mds-squid", "mds-tentacle" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const rs_layout_ops *ops = rs_registry_find(&rs_reg_layout, names[i]);
        CHECK_MSG(ops != NULL, "no layout %s", names[i]);
        if (!ops)
            continue;
        int v16 = param_of(ops, "mds_sizeof_mempool_inode") != NULL;
        uint32_t mi = v16 ? row(ops, "mds_sizeof_mempool_inode") : 0;
        const char *none[] = { NULL };
        /* unset: the layout's own row, whichever layout declared the key first */
        check_layout(ops, none, row(ops, "mds_sizeof_CInode"), row(ops, "mds_sizeof_dentry_key_t"),
                     row(ops, "mds_sizeof_Capability"), mi);
        const char *set[] = { "mds_sizeof_CInode=1720", "mds_sizeof_dentry_key_t=40",
                              "mds_sizeof_Capability=400", v16 ? "mds_sizeof_mempool_inode=600" : NULL,
                              NULL };
        check_layout(ops, set, 1720, 40, 400, v16 ? 600 : 0);
    }
    /* the BlueStore layouts */
    const rs_layout_ops *on = rs_registry_find(&rs_reg_layout, "bluestore-onode");
    const rs_layout_ops *bu = rs_registry_find(&rs_reg_layout, "bluestore-buffer");
    rs_config *cfg;
    rs_err err;
    void *st;
    rs_part p[RS_LAYOUT_MAX_PARTS];
    CHECK(on && bu && rs_config_new(&cfg, &err) == 0);
    CHECK(on->create(cfg, &st, &err) == 0);
    CHECK(on->parts(st, 0, 0, p) == 2 && p[0].size_bytes == row(on, "bluestore_sizeof_Onode"));
    on->destroy(st);
    CHECK(bu->create(cfg, &st, &err) == 0);
    CHECK(bu->parts(st, 100, 0, p) == 2 && p[0].size_bytes == row(bu, "bluestore_sizeof_Buffer") &&
          p[1].size_bytes == 100);
    bu->destroy(st);
    CHECK(rs_config_set(cfg, "bluestore_sizeof_Onode", "600", &err) == 0);
    CHECK(rs_config_set(cfg, "bluestore_sizeof_Buffer", "80", &err) == 0);
    CHECK(on->create(cfg, &st, &err) == 0);
    CHECK(on->parts(st, 0, 0, p) == 2 && p[0].size_bytes == 600);
    on->destroy(st);
    CHECK(bu->create(cfg, &st, &err) == 0);
    CHECK(bu->parts(st, 0, 0, p) == 1 && p[0].size_bytes == 80);
    bu->destroy(st);
    rs_config_free(cfg);
    test_blobs(on);
}

/* ---------------------------------------------- a replay, per inode */

static char trace[300];

typedef struct per_inode {
    double inodes, accounted, rss;
} per_inode;

static per_inode replay(const char *alloc, const char *cinode)
{
    rs_config *cfg;
    rs_err err;
    rs_result res;
    per_inode r = { 0, 0, 0 };
    const char *kv[] = { "daemon=mds", "layout=mds-octopus", "trim=mds-upkeep",
                         "mds_cache_memory_limit=4G", "base_bytes=1M", "sample_interval=1s", NULL };
    CHECK(rs_config_new(&cfg, &err) == 0);
    for (const char *const *k = kv; *k; k++)
        CHECK(rs_config_set_kv(cfg, *k, "test", &err) == 0);
    CHECK(rs_config_set(cfg, "alloc", alloc, &err) == 0);
    if (cinode)
        CHECK(rs_config_set(cfg, "mds_sizeof_CInode", cinode, &err) == 0);
    rs_result_init(&res);
    int rc = rs_run_execute(trace, cfg, &res, NULL, &err);
    CHECK_MSG(rc == 0, "replay: %s", err.msg);
    if (rc == 0 && res.nsamples) {
        const rs_sample *s = &res.samples[res.nsamples - 1];
        CHECK(rs_result_metric(&res, "mds_cached_inodes_count", &r.inodes) == 0 && r.inodes > 1000);
        CHECK(s->trimmed_items_count == 0); /* nothing trimmed: both runs cache the same inodes */
        r.accounted = (double)s->accounted_bytes / r.inodes;
        r.rss = ((double)s->rss_bytes - (double)s->base_bytes) / r.inodes;
    }
    rs_result_release(&res);
    rs_config_free(cfg);
    return r;
}

/* tcmalloc's size class for n bytes, and what one object of it takes of
 * the heap: its span's bytes over the objects carved from it (a span's
 * tail that fits no object is resident too). */
static uint32_t tc_class(uint32_t n, double *r_heap_per_object, uint32_t *r_span_bytes)
{
    rs_tc_class c[RS_TC_CLASS_MAX];
    unsigned k = rs_tc_classes(c);
    for (unsigned i = 1; i <= k; i++)
        if (c[i].size_bytes >= n) {
            *r_span_bytes = c[i].pages * RS_TC_PAGE_BYTES;
            *r_heap_per_object = (double)*r_span_bytes / (double)c[i].objects;
            return c[i].size_bytes;
        }
    return 0;
}

static void test_per_inode(void)
{
    rs_err err;
    const char *opts[] = { "clients=2", "builds=1", "events=20000", "seed=7", NULL };
    snprintf(trace, sizeof trace, "%s/kb.bin", dir);
    const rs_gen_ops *g = rs_registry_find(&rs_reg_gen, "kernel-build");
    CHECK_MSG(g && gen_with(g, trace, "binary", opts, NULL, 0, &err) == 0, "gen: %s", err.msg);

    const rs_layout_ops *oct = rs_registry_find(&rs_reg_layout, "mds-octopus");
    uint32_t old_b = row(oct, "mds_sizeof_CInode"), new_b = old_b + 400;
    char set[32];
    snprintf(set, sizeof set, "%u", new_b);

    /* ideal allocator: rss moves with the request, byte for byte */
    per_inode a = replay("ideal", NULL), b = replay("ideal", set);
    CHECK_MSG(a.inodes == b.inodes, "inodes %g vs %g", a.inodes, b.inodes);
    CHECK_MSG(fabs(b.accounted - a.accounted - 400) < 1e-6, "ideal: accounted/inode %.3f -> %.3f",
              a.accounted, b.accounted);
    CHECK_MSG(fabs(b.rss - a.rss - 400) < 1e-6, "ideal: rss/inode %.3f -> %.3f", a.rss, b.rss);

    /* tcmalloc: rss moves by the change of CInode's size class, each
     * object taking its span's bytes / objects per span */
    uint32_t span_old, span_new;
    double heap_old, heap_new;
    uint32_t c_old = tc_class(old_b, &heap_old, &span_old), c_new = tc_class(new_b, &heap_new, &span_new);
    CHECK(c_old >= old_b && c_new >= new_b && c_new > c_old);
    per_inode t = replay("tcmalloc", NULL), u = replay("tcmalloc", set);
    CHECK_MSG(t.inodes == u.inodes, "inodes %g vs %g", t.inodes, u.inodes);
    CHECK_MSG(fabs(u.accounted - t.accounted - 400) < 1e-6, "tcmalloc: accounted/inode %.3f -> %.3f",
              t.accounted, u.accounted);
    /* each run leaves at most one partly used span of CInode's class
     * (carved on demand; no trims, so none freed), so per inode the
     * difference may be off by the two spans' bytes over the count */
    double want = heap_new - heap_old;
    double slack = ((double)span_old + (double)span_new) / t.inodes;
    CHECK_MSG(fabs(u.rss - t.rss - want) <= slack,
              "tcmalloc: rss/inode %.1f -> %.1f: moved %.1f, class %u -> %u wants %.1f +- %.1f",
              t.rss, u.rss, u.rss - t.rss, c_old, c_new, want, slack);
    /* and the class change alone would not explain it: the span tails count */
    CHECK(fabs(u.rss - t.rss - (double)(c_new - c_old)) > slack);
    unlink(trace);
}

/* ------------------------------------------------------- refusals */

static void expect_refused(const char *layout, const char *key, const char *value, const char *want)
{
    rs_config *cfg;
    rs_err err;
    CHECK(rs_config_new(&cfg, &err) == 0);
    CHECK(rs_config_set(cfg, "daemon", "mds", &err) == 0);
    CHECK(rs_config_set(cfg, "layout", layout, &err) == 0);
    CHECK(rs_config_set(cfg, key, value, &err) == 0);
    int rc = rs_config_validate(cfg, &err);
    CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, want), "%s %s=%s: got '%s', want '%s'", layout, key,
              value, rc ? err.msg : "accepted", want);
    rs_config_free(cfg);
}

static void test_refusals(void)
{
    expect_refused("mds-octopus", "mds_sizeof_CInode", "0", "key 'mds_sizeof_CInode': expected 1..64K");
    expect_refused("mds-pacific", "mds_sizeof_CDentry", "65537", "key 'mds_sizeof_CDentry'");
    expect_refused("mds-octopus", "mds_sizeof_DecayCounter", "40",
                   "key 'mds_sizeof_DecayCounter' is not used by daemon mds");
    expect_refused("mds-octopus", "mds_sizeof_mempool_inode", "560",
                   "key 'mds_sizeof_mempool_inode' is not used by daemon mds");
    expect_refused("mds-octopus", "bluestore_sizeof_Onode", "616",
                   "key 'bluestore_sizeof_Onode' is not used by daemon mds");
}

/* The measurements of docs/models.md, "Struct sizes by release", one line per
 * release: CInode, mempool_inode, CDentry, CDir, Capability, dentry_key_t,
 * SimpleLock_unstable_bits_t. */
static const struct {
    const char *layout, *how; /* how: a word every row's "how obtained" holds */
    uint32_t b[7];
} measured[] = {
    { "mds-pacific", "", { 1328, 560, 616, 1088, 320, 32, 104 } },
    { "mds-quincy", "-std=c++17", { 1328, 560, 616, 1088, 320, 32, 104 } },
    { "mds-reef", "-std=c++20", { 1344, 632, 616, 1088, 320, 32, 104 } },
    { "mds-squid", "NOT computed", { 1344, 632, 616, 1088, 320, 32, 104 } },
    { "mds-tentacle", "boost 1.83", { 1392, 712, 592, 1088, 272, 32, 104 } },
};
static const char *const measured_keys[7] = {
    "mds_sizeof_CInode", "mds_sizeof_mempool_inode", "mds_sizeof_CDentry", "mds_sizeof_CDir",
    "mds_sizeof_Capability", "mds_sizeof_dentry_key_t", "mds_sizeof_SimpleLock_unstable_bits_t",
};

static const rs_size_row *row_of(const rs_layout_ops *ops, const char *key)
{
    for (const rs_size_row *r = ops->sizes; r && r->key; r++)
        if (!strcmp(r->key, key))
            return r;
    return NULL;
}

/* The OSD presets' sizeof lines: Onode, Buffer, extents and blobs. */
static void check_osd_preset(const char *name, uint64_t onode, uint64_t buffer, uint64_t blob)
{
    const char *env = getenv("RSSIM_PRESETS");
    char path[600];
    rs_config *cfg;
    rs_err err = { 0 };
    snprintf(path, sizeof path, "%s/%s.conf", env && *env ? env : "models/presets", name);
    CHECK(rs_config_new(&cfg, &err) == 0);
    CHECK_MSG(rs_config_load_file(cfg, path, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_config_raw(cfg, "bluestore_sizeof_Onode") &&
                  rs_config_size(cfg, "bluestore_sizeof_Onode") == onode,
              "%s: bluestore_sizeof_Onode not %llu", name, (unsigned long long)onode);
    CHECK_MSG(rs_config_raw(cfg, "bluestore_sizeof_Buffer") &&
                  rs_config_size(cfg, "bluestore_sizeof_Buffer") == buffer,
              "%s: bluestore_sizeof_Buffer not %llu", name, (unsigned long long)buffer);
    /* Extent 48 + Blob 112 + SharedBlob 112 (16.2.15's dump_mempools) */
    CHECK_MSG(rs_config_size(cfg, "bluestore_sizeof_Extent") + rs_config_size(cfg, "bluestore_sizeof_Blob") +
                      rs_config_size(cfg, "bluestore_sizeof_SharedBlob") == blob &&
                  rs_config_size(cfg, "bluestore_max_blob_size") == 65536,
              "%s: Extent + Blob + SharedBlob not %llu, or no 64K blobs", name, (unsigned long long)blob);
    rs_config_free(cfg);
}

static void test_releases(void)
{
    const rs_layout_ops *pacific = rs_registry_find(&rs_reg_layout, "mds-pacific");
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
        const rs_layout_ops *ops = rs_registry_find(&rs_reg_layout, measured[i].layout);
        CHECK_MSG(ops != NULL, "no layout %s", measured[i].layout);
        if (!ops || !pacific)
            continue;
        for (int k = 0; k < 7; k++) {
            const rs_size_row *r = row_of(ops, measured_keys[k]);
            CHECK_MSG(r && r->bytes == measured[i].b[k], "%s: %s is %u, measured %u", ops->name,
                      measured_keys[k], r ? r->bytes : 0, measured[i].b[k]);
            CHECK_MSG(r && strstr(r->how, measured[i].how), "%s: %s's how '%s' lacks '%s'", ops->name,
                      measured_keys[k], r ? r->how : "", measured[i].how);
            CHECK_MSG(!r || !!strstr(r->how, "NOT computed") == !strcmp(ops->name, "mds-squid"),
                      "%s: %s says '%s'", ops->name, measured_keys[k], r->how);
            if (measured[i].b[k] != measured[0].b[k])
                CHECK_MSG(r && r->bytes != row(pacific, measured_keys[k]), "%s: %s carries Pacific's",
                          ops->name, measured_keys[k]);
        }
    }
    /* Debian's 16.2.15 ceph-osd mempools: Onode 616, Buffer 96, Extent 48 +
     * Blob 112 + SharedBlob 112; v17.2.7 and 18.2.7 compiled: 680, 112, 48 +
     * 112 + 112; Squid: Reef's */
    check_osd_preset("osd-pacific", 616, 96, 48 + 112 + 112);
    check_osd_preset("osd-quincy", 680, 112, 48 + 112 + 112);
    check_osd_preset("osd-reef", 680, 112, 48 + 112 + 112);
    check_osd_preset("osd-squid", 680, 112, 48 + 112 + 112);
}

int main(void)
{
    CHECK(scratch_dir("sizes") == 0);
    test_tables();
    test_overrides();
    test_refusals();
    test_releases();
    test_per_inode();
    rmdir(dir);
    return check_done();
}
