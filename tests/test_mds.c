/*
 * test_mds.c — the MDS model against what must hold by construction of
 * Ceph's algorithms (each expected value is computed here from the rule or
 * the sizeof tables of docs/models.md, not read back from the model):
 *   - lru.h order: hand-worked midpoint cases, and the lru-mid module
 *     against a naive array re-implementation of lru.h under random ops;
 *   - mempool accounting of the three layouts, byte for byte from the
 *     measured sizeofs (ideal allocator, nothing trimmed);
 *   - ideal allocator: rss = accounted + untracked + base at every sample;
 *   - files a client holds open survive trims, others' released ones don't;
 *   - Luminous trims every 5 s unthrottled, Octopus per pass at most
 *     threshold - counter, the counter halving every half-life;
 *   - expiring a directory's last dentry lets its own dentry expire, and
 *     its dirfrag (CDir) goes with it;
 *   - recall asks the session with the most caps first;
 *   - bad records are counted, or RS_EINPUT with FILE:LINE under strict;
 *   - with a request service time S, n requests arriving together finish
 *     at n * S (one server), and requests spaced wider than S are not
 *     delayed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/schema.h"
#include "check.h"
#include "models/cache/lru_mid.h"
#include "sim/base/config.h"
#include "sim/run.h"
#include "traces/trace.h"

static char path[512];

/* ---------------------------------------------------------- trace helper */

typedef struct tw {
    rs_trace_writer *w;
    uint64_t t_ns;
} tw;

static void tw_open(tw *t)
{
    rs_err err;
    snprintf(path, sizeof path, "%s/rssim-mds-%ld.bin", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    if (rs_trace_writer_open(&t->w, path, "binary", "mds", &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    t->t_ns = 0;
}

/* One record at the current time, then 1 us later. */
static void rec(tw *t, unsigned op, uint64_t ino, uint64_t parent, uint32_t name_len,
                uint16_t client)
{
    rs_err err;
    rs_rec r = { .t_ns = t->t_ns, .key = ino, .size_bytes = parent, .aux = name_len,
                 .thread = client, .op = (uint8_t)op };
    if (rs_trace_write(t->w, &r, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    t->t_ns += 1000;
}

static void tw_close(tw *t)
{
    rs_err err;
    if (rs_trace_writer_close(t->w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
}

static int run(const char *const *kv, rs_result *res, rs_err *err)
{
    rs_config *cfg;
    rs_config_new(&cfg, err);
    rs_config_set(cfg, "daemon", "mds", err);
    rs_config_set(cfg, "alloc", "ideal", err);
    rs_config_set(cfg, "mds_request_bytes", "0", err);
    rs_config_set(cfg, "mds_journal_event_bytes", "0", err);
    for (; *kv; kv++)
        if (rs_config_set_kv(cfg, *kv, "test", err))
            abort();
    rs_result_init(res);
    int rc = rs_run_execute(path, cfg, res, NULL, err);
    rs_config_free(cfg);
    return rc;
}

static double metric(const rs_result *res, const char *name)
{
    double v = -1;
    rs_result_metric(res, name, &v);
    return v;
}

static const rs_sample *sample_at(const rs_result *res, uint64_t t_ns)
{
    for (size_t i = 0; i < res->nsamples; i++)
        if (res->samples[i].t_ns == t_ns)
            return &res->samples[i];
    return NULL;
}

/* ------------------------------------------------------------- lru.h */

static void test_lru_hand(void)
{
    rs_lru_mid l;
    rs_err err;
    rs_oid order[4];

    /* midpoint 0.5, insert_mid 1..4: top [2,4], bottom [3,1] (worked by
     * hand from lru.h adjust()); expiry 1, 3, 4, 2 */
    rs_lru_mid_init(&l, 0.5);
    for (rs_oid i = 1; i <= 4; i++)
        CHECK(rs_lru_mid_insert_mid(&l, i, 0, &err) == 0);
    CHECK_EQ_U64(l.list[RS_LRU_TOP].size, 2);
    /* the trims' hint walks the same order, bottom into top */
    CHECK(rs_lru_mid_peek_after(&l, 1) == 3 && rs_lru_mid_peek_after(&l, 3) == 4 &&
          rs_lru_mid_peek_after(&l, 4) == 2 && rs_lru_mid_peek_after(&l, 2) == RS_OID_NONE);
    rs_lru_mid_pin(&l, 3);
    CHECK(rs_lru_mid_peek_after(&l, 1) == 4);
    rs_lru_mid_unpin(&l, 3);
    for (int i = 0; i < 4; i++) {
        order[i] = rs_lru_mid_next_expire(&l);
        rs_lru_mid_remove(&l, order[i]);
    }
    CHECK(order[0] == 1 && order[1] == 3 && order[2] == 4 && order[3] == 2);
    CHECK(rs_lru_mid_next_expire(&l) == RS_OID_NONE);
    rs_lru_mid_release(&l);

    /* midpoint 0 (the bottom LRU): FIFO, a touch makes an item the newest */
    rs_lru_mid_init(&l, 0.0);
    for (rs_oid i = 1; i <= 3; i++)
        rs_lru_mid_insert_mid(&l, i, 0, &err);
    rs_lru_mid_touch(&l, 1);
    for (int i = 0; i < 3; i++) {
        order[i] = rs_lru_mid_next_expire(&l);
        rs_lru_mid_remove(&l, order[i]);
    }
    CHECK(order[0] == 2 && order[1] == 3 && order[2] == 1);
    rs_lru_mid_release(&l);

    /* a pinned item is moved to pintail and skipped; unpinned, it goes to
     * the tail of bottom and is next */
    rs_lru_mid_init(&l, 0.7);
    for (rs_oid i = 1; i <= 5; i++)
        rs_lru_mid_insert_mid(&l, i, 0, &err);
    rs_lru_mid_pin(&l, 1);
    rs_oid v = rs_lru_mid_next_expire(&l);
    CHECK(v != 1 && (l.n[1].where & 3) == RS_LRU_PINTAIL);
    rs_lru_mid_unpin(&l, 1);
    CHECK(rs_lru_mid_next_expire(&l) == 1);
    rs_lru_mid_release(&l);
}

/* Naive lru.h: three arrays used as lists (index 0 = front). */
enum { NMAX = 64 };
typedef struct naive {
    int list[4][NMAX];
    int len[4];
    int where[NMAX]; /* list or 0 */
    int pinned[NMAX];
    int npinned;
    double mid;
} naive;

static void n_unlink(naive *n, int id)
{
    int w = n->where[id], j = 0;
    for (int i = 0; i < n->len[w]; i++)
        if (n->list[w][i] != id)
            n->list[w][j++] = n->list[w][i];
    n->len[w] = j;
    n->where[id] = 0;
}

static void n_front(naive *n, int w, int id)
{
    if (n->where[id])
        n_unlink(n, id);
    memmove(&n->list[w][1], &n->list[w][0], (size_t)n->len[w] * sizeof(int));
    n->list[w][0] = id;
    n->len[w]++;
    n->where[id] = w;
}

static void n_back(naive *n, int w, int id)
{
    if (n->where[id])
        n_unlink(n, id);
    n->list[w][n->len[w]++] = id;
    n->where[id] = w;
}

static void n_adjust(naive *n)
{
    int size = n->len[1] + n->len[2] + n->len[3];
    uint64_t want = (uint64_t)(n->mid * (double)(size - n->npinned));
    while ((uint64_t)n->len[1] < want)
        n_back(n, 1, n->list[2][0]);
    while ((uint64_t)n->len[1] > want)
        n_front(n, 2, n->list[1][n->len[1] - 1]);
}

static int n_expire(naive *n)
{
    n_adjust(n);
    for (int w = 2; w >= 1; w--)
        while (n->len[w]) {
            int id = n->list[w][n->len[w] - 1];
            if (!n->pinned[id])
                return id;
            n_front(n, 3, id);
        }
    return -1;
}

static void test_lru_random(void)
{
    uint64_t s = 12345;
    int bad = 0;
    for (int round = 0; round < 50; round++) {
        naive n;
        rs_lru_mid l;
        rs_err err;
        memset(&n, 0, sizeof n);
        n.mid = (double)(round % 11) / 10.0;
        rs_lru_mid_init(&l, n.mid);
        for (int step = 0; step < 2000; step++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int id = 1 + (int)((s >> 33) % (NMAX - 1)), op = (int)((s >> 20) % 6);
            if (!n.where[id]) {
                int pin = op == 0;
                n.pinned[id] = pin;
                n.npinned += pin;
                n_front(&n, 2, id);
                n_adjust(&n);
                rs_lru_mid_insert_mid(&l, (rs_oid)id, pin, &err);
            } else if (op == 1) {
                n_front(&n, 1, id);
                n_adjust(&n);
                rs_lru_mid_touch(&l, (rs_oid)id);
            } else if (op == 2 && !n.pinned[id]) {
                n.pinned[id] = 1;
                n.npinned++;
                rs_lru_mid_pin(&l, (rs_oid)id);
            } else if (op == 3 && n.pinned[id]) {
                n.pinned[id] = 0;
                n.npinned--;
                if (n.where[id] == 3) {
                    n_back(&n, 2, id);
                    n_adjust(&n);
                }
                rs_lru_mid_unpin(&l, (rs_oid)id);
            } else if (op == 4) {
                n.npinned -= n.pinned[id];
                n.pinned[id] = 0;
                n_unlink(&n, id);
                n_adjust(&n);
                rs_lru_mid_remove(&l, (rs_oid)id);
            } else {
                int a = n_expire(&n);
                rs_oid b = rs_lru_mid_next_expire(&l);
                bad += (a < 0) != (b == RS_OID_NONE) || (a >= 0 && (rs_oid)a != b);
                if (a >= 0) {
                    n_unlink(&n, a);
                    n_adjust(&n);
                    rs_lru_mid_remove(&l, b);
                }
            }
            for (int w = 1; w <= 3; w++) {
                bad += (uint64_t)n.len[w] != l.list[w].size;
                uint32_t x = l.list[w].head;
                for (int i = 0; i < n.len[w] && x != UINT32_MAX; i++, x = l.n[x].next)
                    bad += (rs_oid)n.list[w][i] != x;
            }
        }
        rs_lru_mid_release(&l);
    }
    CHECK_MSG(bad == 0, "lru-mid differs from the naive lru.h %d times", bad);
}

/* --------------------------------------------------------- accounting */

/* Client 0 creates n files of name length 10 (SSO) and one of 20 in the
 * root: nothing is trimmed (1 GiB limit). */
static void write_files(int n)
{
    tw t;
    tw_open(&t);
    for (int i = 0; i < n; i++)
        rec(&t, RS_OP_CREATE, 100 + (uint64_t)i, 1, 10, 0);
    rec(&t, RS_OP_CREATE, 99, 1, 20, 0);
    tw_close(&t);
}

/* A layout without MDS struct sizes is refused at config time, naming it
 * (no silent fallback to another version's sizes): the MDS's layout slot
 * declares its choices. */
static void test_kv_layout_refused(void)
{
    static const char *const layouts[] = { "layout=kv-map", "layout=kv-object" };
    write_files(5);
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        const char *kv[] = { layouts[i], NULL };
        char want[96];
        rs_result res;
        rs_err err = { 0 };
        int rc = run(kv, &res, &err);
        snprintf(want, sizeof want, "daemon mds cannot use layout '%s'", layouts[i] + 7);
        CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, want), "%s: rc %d, '%s'", layouts[i], rc, err.msg);
        rs_result_release(&res);
    }
}

static void test_layout_bytes(void)
{
    /* sizeof at each commit: {CInode, CDentry, CDir, Capability} (g++ 12
     * on src/mds of 7b7a7d55b1 and 46c25abd1c for the 2018 two); nodes:
     * items 64 before PR 19954 (a 24-byte dentry_key_t), 72 after,
     * client_caps 48 (360 in v15 with the Capability inside), dirfrags node
     * 48, inode_map 32 in every version (keyed by inodeno_t, next + key +
     * value + cached hash); a 20-char name is a 21-byte heap string;
     * untracked in every version: the dirfrags map object (48 B, 64 B with
     * a mempool allocator), SimpleLock::unstable_bits_t of 80 B (set 48,
     * two ints, an intrusive_ptr, two client_t; 104 B from v15: the
     * lock_caches elist, 24 B) per loner lock
     * (mds_loner_locks, 3 by default), and in master only the load vectors
     * of 40-byte DecayCounters: 2 x 40 per inode, 4 x 5 x 40 per dirfrag
     * (std::array inside the objects after PR 19954) */
    struct {
        const char *layout;
        uint64_t inode, dentry, dir, cap, capnode, imap, items, dmap, lockbits;
        int tracked, cap_tracked, inside, pops;
        const char *locks;
    } v[] = {
        { "mds-luminous", 1640, 472, 848, 272, 48, 32, 64, 48, 80, 0, 0, 0, 1, "mds_loner_locks=3" },
        { "mds-pr19954", 1760, 512, 1584, 288, 48, 32, 72, 64, 80, 1, 1, 0, 0, "mds_loner_locks=3" },
        { "mds-octopus", 1856, 528, 1288, 0, 360, 32, 72, 64, 104, 1, 1, 1, 0, "mds_loner_locks=3" },
        { "mds-luminous", 1640, 472, 848, 272, 48, 32, 64, 48, 80, 0, 0, 0, 1, "mds_loner_locks=0" },
        { "mds-octopus", 1856, 528, 1288, 0, 360, 32, 72, 64, 104, 1, 1, 1, 0, "mds_loner_locks=4" },
    };
    const int n = 50;
    write_files(n);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char layout[64];
        rs_result res;
        rs_err err;
        snprintf(layout, sizeof layout, "layout=%s", v[i].layout);
        const char *kv[] = { layout, v[i].locks, "mds_cache_memory_limit=1G", "base_bytes=1M", NULL };
        CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
        const rs_sample *s = &res.samples[res.nsamples - 1];
        uint64_t files = (uint64_t)n + 1;
        uint64_t cont = files * v[i].items + 21 + 48;    /* items nodes, long name, root dirfrags node */
        uint64_t caps = v[i].inside ? files * v[i].capnode : files * v[i].cap;
        uint64_t capnodes = v[i].inside ? 0 : files * v[i].capnode;
        uint64_t acc = files * (v[i].inode + v[i].dentry) + v[i].dir;
        uint64_t buckets = 16;                           /* inode_map: doubles from 16 */
        while (buckets < files)
            buckets *= 2;
        uint64_t locks = (uint64_t)(v[i].locks[sizeof "mds_loner_locks=" - 1] - '0');
        uint64_t unt = files * v[i].imap + buckets * 8 + files * locks * v[i].lockbits + v[i].dmap;
        unt += v[i].pops ? files * 2 * 40 + 4 * 5 * 40 : 0;
        acc += v[i].tracked ? cont : 0;
        unt += v[i].tracked ? 0 : cont;
        acc += v[i].cap_tracked ? caps : 0;
        unt += v[i].cap_tracked ? 0 : caps;
        acc += v[i].tracked ? capnodes : 0;
        unt += v[i].tracked ? 0 : capnodes;
        CHECK_MSG(s->accounted_bytes == acc, "%s: accounted %llu, expected %llu", v[i].layout,
                  (unsigned long long)s->accounted_bytes, (unsigned long long)acc);
        CHECK_MSG(s->untracked_bytes == unt, "%s: untracked %llu, expected %llu", v[i].layout,
                  (unsigned long long)s->untracked_bytes, (unsigned long long)unt);
        CHECK(s->rss_bytes == acc + unt + (1u << 20));
        rs_result_release(&res);
    }
    unlink(path);
}

/* ------------------------------------------- ideal: rss identity, churn */

/* 3 clients: 20 dirs of 60 files each, lookups and getattrs, opens and
 * closes, then rm -rf of half the dirs; a limit that forces trims and
 * recalls. */
static void write_churn(void)
{
    tw t;
    tw_open(&t);
    uint64_t ino = 10;
    for (int d = 0; d < 20; d++) {
        uint16_t c = (uint16_t)(d % 3);
        uint64_t dir = ino++;
        rec(&t, RS_OP_MKDIR, dir, 1, 5, c);
        for (int f = 0; f < 60; f++) {
            rec(&t, RS_OP_CREATE, ino, dir, (uint32_t)(8 + f % 20), c);
            if (f % 7 == 0) {
                rec(&t, RS_OP_OPEN, ino, 0, 0, c);
                rec(&t, RS_OP_CLOSE, ino, 0, 0, c);
            }
            ino++;
        }
        t.t_ns += 200000000; /* 200 ms per directory */
    }
    for (uint64_t i = 10; i < ino; i += 5) {
        rec(&t, RS_OP_GETATTR, i, 0, 0, (uint16_t)(i % 3));
        t.t_ns += 1000000;
    }
    for (int d = 0; d < 20; d += 2) {
        uint64_t dir = 10 + (uint64_t)d * 61;
        uint16_t c = (uint16_t)(d % 3);
        rec(&t, RS_OP_READDIR, dir, 0, 0, c);
        for (int f = 0; f < 60; f++)
            rec(&t, RS_OP_UNLINK, dir + 1 + (uint64_t)f, dir, (uint32_t)(8 + f % 20), c);
        rec(&t, RS_OP_RMDIR, dir, 1, 5, c);
        t.t_ns += 300000000;
    }
    tw_close(&t);
}

static void test_ideal_identity(void)
{
    const char *trims[] = { "trim=mds-tick", "trim=mds-upkeep" };
    const char *recalls[] = { "mds_recall=luminous", "mds_recall=octopus" };
    write_churn();
    for (int i = 0; i < 2; i++) {
        rs_result res;
        rs_err err;
        const char *kv[] = { "layout=mds-luminous", trims[i], recalls[i], "mds_cache_memory_limit=400K",
                             i == 0 ? "mds_tick_interval=1s" : "mds_cache_trim_interval=1s",
                             "mds_min_caps_per_client=5",
                             "mds_recall_max_caps=50", "mds_request_bytes=4K",
                             "mds_journal_event_bytes=2K", "base_bytes=3M",
                             "sample_interval=50ms", "run_tail=5s", NULL };
        CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
        int bad = 0;
        for (size_t k = 0; k < res.nsamples; k++) {
            const rs_sample *s = &res.samples[k];
            bad += s->rss_bytes != s->accounted_bytes + s->untracked_bytes + s->base_bytes;
        }
        CHECK_MSG(bad == 0, "%s: rss != accounted + untracked + base at %d samples", trims[i], bad);
        CHECK(metric(&res, "trimmed_items_count") > 0);
        CHECK(metric(&res, "mds_caps_released_count") > 0);
        CHECK(metric(&res, "mds_bad_records_count") == 0);
        CHECK(metric(&res, "mds_inodes_count") == 1 + 10 * 61); /* root + the dirs left */
        rs_result_release(&res);
    }
    unlink(path);
}

/* ----------------------------------------------------- pins and recall */

/* Client 1 creates and opens 100 files; client 2 creates 2000; after the
 * trims, client 1 reads its 100 again (none may need a load) and client 2
 * its first 100 (all must: they were released and trimmed). */
static void test_open_files_survive(void)
{
    tw t;
    rs_result res;
    rs_err err;
    tw_open(&t);
    for (uint64_t i = 0; i < 100; i++) {
        rec(&t, RS_OP_CREATE, 1000 + i, 1, 8, 1);
        rec(&t, RS_OP_OPEN, 1000 + i, 0, 0, 1);
    }
    for (uint64_t i = 0; i < 2000; i++)
        rec(&t, RS_OP_CREATE, 10000 + i, 1, 8, 2);
    t.t_ns = 30000000000ull;
    for (uint64_t i = 0; i < 100; i++)
        rec(&t, RS_OP_GETATTR, 1000 + i, 0, 0, 1);
    for (uint64_t i = 0; i < 100; i++)
        rec(&t, RS_OP_GETATTR, 10000 + i, 0, 0, 2);
    tw_close(&t);
    const char *kv[] = { "layout=mds-octopus", "trim=mds-tick", "mds_recall=luminous",
                         "mds_cache_memory_limit=1M", "mds_min_caps_per_client=10", NULL };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    CHECK(metric(&res, "trimmed_items_count") >= 1500);
    CHECK_MSG(metric(&res, "mds_loads_count") == 100, "loads %g",
              metric(&res, "mds_loads_count"));
    rs_result_release(&res);
    unlink(path);
}

/* Clients 0, 1, 2 create 300, 200, 100 files; Octopus recall with a global
 * throttle that lets one session be recalled (50 caps): the one with the
 * most.  Then client `reader` reads its first 10 files. */
static double recall_probe(uint16_t reader)
{
    tw t;
    rs_result res;
    rs_err err;
    uint64_t base[3] = { 1000, 2000, 3000 };
    int count[3] = { 300, 200, 100 };
    tw_open(&t);
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < count[c]; i++)
            rec(&t, RS_OP_CREATE, base[c] + (uint64_t)i, 1, 8, (uint16_t)c);
    t.t_ns = 2500000000ull;
    for (uint64_t i = 0; i < 10; i++)
        rec(&t, RS_OP_GETATTR, base[reader] + i, 0, 0, reader);
    tw_close(&t);
    const char *kv[] = { "layout=mds-octopus", "trim=mds-upkeep", "mds_recall=octopus",
                         "mds_cache_memory_limit=100K", "mds_min_caps_per_client=10",
                         "mds_recall_max_caps=50", "mds_recall_global_max_decay_threshold=60",
                         "mds_cache_release_free_interval=0", NULL };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    double loads = metric(&res, "mds_loads_count");
    CHECK(metric(&res, "mds_caps_recalled_count") >= 50);
    rs_result_release(&res);
    unlink(path);
    return loads;
}

static void test_recall_top_first(void)
{
    CHECK_MSG(recall_probe(0) == 10, "top holder's oldest files were not released and trimmed");
    CHECK_MSG(recall_probe(1) == 0, "the second holder was recalled before the first");
    CHECK(recall_probe(2) == 0);
}

/* ------------------------------------------------------- trim timing */

/* 1000 files created and unlinked in the first half second: 1000 null
 * dentries on the bottom LRU, the only thing to trim. */
static void write_nulls(void)
{
    tw t;
    tw_open(&t);
    for (uint64_t i = 0; i < 1000; i++)
        rec(&t, RS_OP_CREATE, 100 + i, 1, 8, 0);
    for (uint64_t i = 0; i < 1000; i++)
        rec(&t, RS_OP_UNLINK, 100 + i, 1, 8, 0);
    tw_close(&t);
}

static void test_trim_timing(void)
{
    rs_result res;
    rs_err err;
    write_nulls();

    /* Luminous: nothing until the tick at 5 s, then all 1000 at once */
    const char *lum[] = { "layout=mds-luminous", "trim=mds-tick", "sample_interval=500ms",
                          "run_tail=11s", NULL };
    CHECK_MSG(run(lum, &res, &err) == 0, "%s", err.msg);
    const rs_sample *a = sample_at(&res, 4500000000ull), *b = sample_at(&res, 5500000000ull),
                    *c = sample_at(&res, 10500000000ull);
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK_EQ_U64(a->trimmed_items_count, 0);
        CHECK_EQ_U64(b->trimmed_items_count, 1000);
        CHECK_EQ_U64(b->trims_count, 1);
        CHECK_EQ_U64(c->trims_count, 2);
    }
    rs_result_release(&res);

    /* Octopus, threshold 100, half-life 1 s: pass k at k s may trim
     * threshold - counter, the counter halving between passes */
    const char *oct[] = { "layout=mds-octopus", "trim=mds-upkeep", "mds_cache_trim_threshold=100",
                          "sample_interval=500ms", "run_tail=12s", NULL };
    CHECK_MSG(run(oct, &res, &err) == 0, "%s", err.msg);
    double counter = 0, total = 0;
    int bad = 0;
    for (int k = 1; k <= 10; k++) {
        double allowed = ceil(100.0 - counter);
        double n = fmin(allowed, 1000 - total);
        total += n;
        counter = counter + n;
        const rs_sample *s = sample_at(&res, (uint64_t)k * 1000000000ull + 500000000ull);
        bad += !s || fabs((double)s->trimmed_items_count - total) > (double)k; /* rounding */
        counter *= 0.5;
    }
    CHECK_MSG(bad == 0, "octopus trims do not follow the decay throttle (%d passes)", bad);
    const rs_sample *s1 = sample_at(&res, 1500000000ull), *s2 = sample_at(&res, 2500000000ull);
    CHECK(s1 && s1->trimmed_items_count == 100);
    CHECK(s2 && (s2->trimmed_items_count == 150 || s2->trimmed_items_count == 151));
    rs_result_release(&res);
    unlink(path);
}

/* A directory with one file; everything recalled and trimmed: the file's
 * expiry unpins the directory, whose expiry frees its CDir too, leaving
 * the root's dirfrag alone. */
static void test_dirfrag_freed(void)
{
    tw t;
    rs_result res;
    rs_err err;
    tw_open(&t);
    rec(&t, RS_OP_MKDIR, 10, 1, 3, 0);
    rec(&t, RS_OP_CREATE, 11, 10, 3, 0);
    tw_close(&t);
    const char *kv[] = { "layout=mds-octopus", "trim=mds-upkeep", "mds_recall=luminous",
                         "mds_cache_memory_limit=1K", "mds_min_caps_per_client=1",
                         "sample_interval=500ms", "run_tail=5s", NULL };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    const rs_sample *first = sample_at(&res, 500000000ull), *last = &res.samples[res.nsamples - 1];
    /* before: root CDir + dirfrags node, the dir's CDir + node, two files'
     * dentry+inode+items node, two caps (360); the dirfrags map objects are
     * untracked (plain new) */
    CHECK(first && first->accounted_bytes == 2 * (1288 + 48) + 2 * (528 + 1856 + 72) + 2 * 360);
    CHECK_MSG(last->accounted_bytes == 1288 + 48, "accounted %llu at the end",
              (unsigned long long)last->accounted_bytes);
    CHECK(metric(&res, "trimmed_items_count") == 2);
    rs_result_release(&res);
    unlink(path);
}

/* ------------------------------------------------------------ bad input */

static void test_bad_input(void)
{
    tw t;
    rs_result res;
    rs_err err;
    tw_open(&t);
    rec(&t, RS_OP_CREATE, 10, 1, 3, 0);      /* line 2 */
    rec(&t, RS_OP_GETATTR, 77, 0, 0, 0);     /* line 3: unknown inode */
    rec(&t, RS_OP_UNLINK, 78, 1, 3, 0);      /* missing dentry */
    rec(&t, RS_OP_CLOSE, 10, 0, 0, 0);       /* close without open */
    rec(&t, RS_OP_CREATE, 12, 55, 3, 0);     /* unknown parent */
    rec(&t, RS_OP_UNLINK, 10, 1, 3, 0);
    tw_close(&t);
    const char *kv[] = { "layout=mds-octopus", NULL };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    CHECK(metric(&res, "mds_bad_unknown_inode_count") == 2);
    CHECK(metric(&res, "mds_bad_missing_dentry_count") == 1);
    CHECK(metric(&res, "mds_bad_close_without_open_count") == 1);
    CHECK(metric(&res, "mds_bad_records_count") == 4);
    CHECK(metric(&res, "mds_inodes_count") == 1);
    rs_result_release(&res);

    const char *strict[] = { "layout=mds-octopus", "strict=true", NULL };
    int rc = run(strict, &res, &err);
    CHECK(rc == RS_EINPUT);
    char want[600];
    snprintf(want, sizeof want, "%s:3: ", path);
    CHECK_MSG(rc && strncmp(err.msg, want, strlen(want)) == 0, "message '%s'", err.msg);
    rs_result_release(&res);
    unlink(path);
}

/* ------------------------------------------------------- service time */

static void test_service_time(void)
{
    tw t;
    rs_result res;
    rs_err err;

    /* 100 GETATTRs of the root at t = 0, 1 ms each: the last one ends at 100 ms */
    tw_open(&t);
    for (int i = 0; i < 100; i++) {
        rec(&t, RS_OP_GETATTR, 1, 0, 0, (uint16_t)(i % 4));
        t.t_ns = 0;
    }
    tw_close(&t);
    const char *kv[] = { "layout=mds-octopus", "mds_request_service_time=1ms", NULL };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(metric(&res, "sim_end_ns"), 100000000ull + 1);
    rs_result_release(&res);

    /* the same 100 spaced 2 ms apart: no queue, the run ends 1 ms after the last */
    tw_open(&t);
    for (int i = 0; i < 100; i++) {
        t.t_ns = (uint64_t)i * 2000000;
        rec(&t, RS_OP_GETATTR, 1, 0, 0, 0);
    }
    tw_close(&t);
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(metric(&res, "sim_end_ns"), 99ull * 2000000 + 1000000 + 1);
    rs_result_release(&res);
    unlink(path);
}

/* A client keeps caps on at most mds_client_cache_size inodes: past it, it
 * releases its oldest file caps at once, passing over its directories and
 * the files it holds open. */
static void test_client_cache(void)
{
    tw t;
    rs_result res;
    rs_err err;
    tw_open(&t);
    rec(&t, RS_OP_MKDIR, 10, 1, 3, 0);
    rec(&t, RS_OP_CREATE, 11, 10, 3, 0);
    rec(&t, RS_OP_OPEN, 11, 10, 3, 0);
    for (uint64_t i = 12; i <= 110; i++)
        rec(&t, RS_OP_CREATE, i, 10, 3, 0);
    rec(&t, RS_OP_CLOSE, 11, 10, 3, 0);       /* 11 kept its cap while open */
    rec(&t, RS_OP_GETATTR, 110, 10, 3, 0);    /* the newest still has one */
    tw_close(&t);
    const char *kv[] = { "layout=mds-octopus", "mds_client_cache_size=30", NULL };
    CHECK_MSG(run(kv, &res, &err) == 0, "%s", err.msg);
    /* 101 caps taken (the directory, 100 files), 30 kept: the directory,
     * the open file and the 28 newest */
    CHECK_EQ_U64((uint64_t)metric(&res, "mds_caps_count"), 30);
    CHECK_EQ_U64((uint64_t)metric(&res, "mds_caps_evicted_count"), 71);
    CHECK_EQ_U64((uint64_t)metric(&res, "mds_bad_records_count"), 0);
    const rs_sample *s = &res.samples[res.nsamples - 1];
    CHECK_EQ_U64(s->accounted_bytes, 2 * (1288 + 48) + 101 * (528 + 1856 + 72) + 30 * 360);
    rs_result_release(&res);
    const char *kv0[] = { "layout=mds-octopus", NULL };
    CHECK_MSG(run(kv0, &res, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64((uint64_t)metric(&res, "mds_caps_count"), 101);
    CHECK_EQ_U64((uint64_t)metric(&res, "mds_caps_evicted_count"), 0);
    rs_result_release(&res);
    unlink(path);
}

int main(void)
{
    test_lru_hand();
    test_lru_random();
    test_kv_layout_refused();
    test_layout_bytes();
    test_ideal_identity();
    test_open_files_survive();
    test_recall_top_first();
    test_trim_timing();
    test_dirfrag_freed();
    test_bad_input();
    test_service_time();
    test_client_cache();
    return check_done();
}
