/*
 * mds.c — daemon "mds": the CephFS metadata server's cache (docs/models.md).
 *
 * The namespace ("on disk") is an array of inode records found through an
 * open-addressing table on the inode number; the cache is what of it the
 * MDS holds in memory.  A cached regular file or directory is one object
 * of kind RS_MDS_FILE: its primary dentry and its inode live and die
 * together (expiring the dentry frees the inode, MDCache::trim_dentry ->
 * trim_inode).  A directory with a cached child also has an open dirfrag
 * (RS_MDS_DIR), freed when the directory's own dentry expires — which can
 * only happen once the dirfrag is empty, because a cached child pins it
 * (CDir PIN_CHILD -> CInode PIN_DIRFRAG -> CDentry PIN_INODEPIN).  An unlink
 * leaves a null dentry (RS_MDS_NULL) on the bottom LRU until the next trim.
 *
 * Dentries sit on two Ceph lru.h lists (models/cache/lru_mid.h): `lru`
 * (midpoint mds_cache_mid) and `bottom_lru` (midpoint 0, null dentries).
 * A dentry is pinned while its inode has a client capability or cached
 * children.  Clients are the records' thread ids; each holds its caps in
 * issue order (the kernel client's session cap list) and, when recalled,
 * releases the oldest caps of files it does not hold open after
 * mds_client_release_delay.  A client may also keep only so many caps of
 * its own accord (mds_client_cache_size: its inode cache), releasing its
 * oldest file caps as it takes new ones.  Recall runs inside the trim pass whenever the
 * cache is still over the trim target afterwards (check_memory_usage):
 * mds_recall = luminous is v12's ratio recall, octopus is v15's throttled
 * recall (Server::recall_client_state).
 *
 * With mds_request_service_time S > 0 the MDS is one server: each record
 * holds it for S and the trace waits (rs_engine_hold) until it is free, so a
 * workload faster than 1/S requests per second runs at the MDS's pace.
 *
 * Outside the cache (mds_base.c): the client sessions and the journal —
 * every namespace change journals mds_log_events_per_update events, and at
 * each tick (mds_tick_interval) MDLog::trim expires segments beyond
 * mds_log_max_segments and the health check raises MDS_CACHE_OVERSIZED as
 * Beacon::notify_health does; all of it off (0) unless the preset sets it.
 *
 * Threads: every record runs on the dispatch thread (0), trim passes free
 * on the trimming thread (1: Luminous's timer, Octopus's upkeep thread),
 * journal expiry's writes live on the I/O thread (2: Objecter, messenger).
 * Memory of the simulator: 32 B per inode record (8 B more per directory)
 * + 8-byte hash slots at load <= 3/4, and per cached object the object
 * table's 16 + 7 x 8 B and the LRU's 12 B; 32 B per capability.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/hash.h"
#include "../../sim/base/idmap.h"
#include "../../sim/base/mem.h"
#include "../cache/lookahead.h"
#include "../cache/lru_mid.h"
#include "../layout/mds_layout.h"
#include "../layout/objects.h"
#include "../trim/decay.h"
#include "daemon.h"
#include "mds_base.h"

#define NIL UINT32_MAX
#define ROOT 0u          /* namespace index of inode 1 */
#define ROOT_INO 1u
#define T_DISPATCH 0u
#define T_TRIM 1u
#define T_IO 2u          /* the Objecter and messenger threads (mds_base.c) */

enum { F_DIR = 1, F_FREE = 2 };

/* A step of the ops that GCC keeps out of line, having two or three
 * callers (ns_add, load_step, request, cap_take; op_create in mds_op):
 * inlined into each, where it runs for nearly every record, its call's
 * register saves and argument moves go, and with them some of its tests
 * (a create's slot is known, and whether it makes a directory). */
#define OP_STEP static inline __attribute__((always_inline))

/* 32 bytes, two to a cache line: what only a directory has besides its
 * cached children (its dirfrag, its entry count) is in its dir_rec. */
typedef struct ino_rec {
    uint64_t ino;
    uint32_t parent;          /* index of the parent directory (NIL for the root) */
    uint32_t oid;             /* cached dentry+inode object, or NIL */
    uint32_t caps;            /* first capability on it, or NIL */
    uint32_t cached_children; /* cached primary dentries in its dirfrag (a free record: next free) */
    uint32_t dir;             /* its dir_rec (F_DIR), or NIL */
    uint8_t name_len;         /* dentry name length, capped at 255 */
    uint8_t flags;            /* F_DIR, F_FREE */
} ino_rec;

typedef struct dir_rec {
    uint32_t dir_oid;         /* open dirfrag object, or NIL */
    uint32_t children;        /* entries in the namespace (a free record: next free) */
} dir_rec;

/* 32 bytes: a version whose Capability is a second allocation (before v15)
 * keeps that one's address in mds.cap_addr2, not in every record. */
typedef struct cap_rec {
    rs_addr addr;             /* its first allocation (rs_mds_side_parts) */
    uint32_t ino;             /* index of the inode (a free record: next free) */
    uint32_t next_in_ino;     /* next cap on the same inode */
    uint32_t prev, next;      /* the client's caps, in issue order */
    uint16_t client;
    uint16_t open;            /* OPENs not yet CLOSEd by this client */
} cap_rec;

struct mds;

typedef struct client {
    struct mds *m;
    uint32_t id;
    uint32_t head, tail;      /* oldest, newest cap */
    uint64_t ncaps;
    uint64_t recall_limit;    /* max_caps of the last recall (UINT64_MAX: none) */
    int release_pending;      /* a release event is scheduled */
    rs_decay recall_throttle, recall_throttle2o;
    rs_addr req_addr, jrn_addr; /* the request in flight and its journal event */
} client;

enum bad_kind { BAD_UNKNOWN_INODE, BAD_MISSING_DENTRY, BAD_CLOSE, BAD_OTHER, BAD_KINDS };

typedef struct mds {
    rs_engine *eng;
    rs_alloc *alloc;
    rs_objects objs;
    const rs_mds_sizes *sizes;
    rs_lru_mid lru, bottom;
    rs_trim trim;
    rs_trim_target target;
    rs_trim_stats trim_stats;

    ino_rec *ino;
    uint32_t nino, ino_cap, ino_free;
    dir_rec *dirs;            /* the directories' own records (ino_rec.dir) */
    uint32_t ndir, dir_cap, dir_free;
    rs_idmap inos;            /* inode number -> namespace index */

    cap_rec *cap;
    rs_addr *cap_addr2;       /* [cap_cap] the second allocations, when cap_nparts is 2 */
    rs_part cap_parts[2];     /* a capability's allocations (rs_mds_side_parts) */
    unsigned cap_nparts;
    uint32_t kind_bytes[RS_MDS_CACHED_KINDS]; /* rs_mds_object_bytes of each kind, once */
    uint32_t ncap_used, cap_cap, cap_free;
    uint64_t caps_count, caps_peak;
    uint64_t caps_tracked_bytes, caps_untracked_bytes;

    client **cl;
    client **order;           /* scratch for recall: clients by caps */
    uint32_t ncl;

    /* MDCache::inode_map's bucket array (grows, never shrinks) */
    rs_addr buckets_addr;
    uint64_t buckets, cached_inodes;

    uint64_t side_untracked_bytes; /* requests and journal events in flight */
    rs_mds_base *base;        /* sessions and the journal (mds_base.h) */
    uint32_t request_bytes, journal_bytes;

    uint64_t limit_bytes, base_bytes;
    double reserve, health_threshold;
    uint64_t toofull_bytes;   /* limit x reserve, the bound of exceeded: a double product made once */
    int strict, recall_octopus;
    uint64_t release_delay_ns;
    uint64_t service_ns;      /* mds_request_service_time */
    uint64_t busy_until_ns;   /* the request being served ends then */
    int64_t recall_max_caps, recall_max_decay_threshold, recall_global_threshold;
    int64_t min_caps, max_caps;
    uint64_t client_cache;    /* mds_client_cache_size (0: no limit) */
    double max_ratio_caps, recall_half_life;
    rs_decay recall_global;

    int exceeded;             /* cache went over the trim target (exceeded_size_limit) */
    int oversized;            /* over mds_health_cache_threshold * limit at the last tick */
    uint64_t oversized_since_ns, oversized_ns, oversized_count;
    uint64_t accounted_peak_bytes, items_peak_count;
    uint64_t bad[BAD_KINDS];
    uint64_t recalls, caps_recalled, caps_released, caps_evicted, heap_releases, loads;
    rs_cache_hits hits;   /* requests on an existing inode: its dentry+inode cached or loaded */
    int trimming;
    int failed;               /* an allocation failed inside a timer */
} mds;

static const rs_param params[] = {
    { .key = "mds_cache_mid", .type = RS_PT_DOUBLE, .def = "0.7",
      .doc = "LRU midpoint: the fraction of unpinned items kept in the top list; new items "
             "enter below it (Ceph mds_cache_mid, v15 default 0.7)",
      .range = "[0, 1]" },
    { .key = "strict", .type = RS_PT_BOOL, .def = "false",
      .doc = "a record the MDS cannot apply to its state (an op on an unknown inode, an unlink of a "
             "missing dentry, a close without an open) stops the run with FILE:LINE instead of "
             "being counted in the run's metrics" },
    { .key = "mds_cache_memory_limit", .type = RS_PT_SIZE, .def = "4G",
      .doc = "the limit on the mds_co mempool bytes (v15 default 4 GiB; 1 GiB in Luminous)",
      .range = "(0, )" },
    { .key = "mds_health_cache_threshold", .type = RS_PT_DOUBLE, .def = "1.5",
      .doc = "the MDS_CACHE_OVERSIZED health warning is raised above this times the limit" },
    { .key = "mds_cache_release_free_interval", .type = RS_PT_DURATION, .def = "10s",
      .doc = "tcmalloc ReleaseFreeMemory every this often (Octopus+ upkeep); 0 = never (Luminous)" },
    { .key = "mds_recall", .type = RS_PT_STRING, .def = "octopus", .choices = "luminous|octopus",
      .doc = "cap recall algorithm: 'octopus' (v15 throttled Server::recall_client_state) or "
             "'luminous' (v12: every session to num_caps * (1 - min(0.8, toofull ratio)))" },
    { .key = "mds_recall_max_caps", .type = RS_PT_INT, .def = "5000",
      .doc = "caps recalled from one session per recall (v15 5000; 30000 since PR 38574)",
      .range = "[1, )" },
    { .key = "mds_recall_max_decay_rate", .type = RS_PT_DOUBLE, .def = "2.5",
      .doc = "half-life (s) of the recall throttles (v15 2.5; 1.5 since PR 38574)",
      .range = "(0, )" },
    { .key = "mds_recall_max_decay_threshold", .type = RS_PT_INT, .def = "16384",
      .doc = "per-session recall throttle (v15 16K; 128K since PR 38574)",
      .range = "[1, )" },
    { .key = "mds_recall_global_max_decay_threshold", .type = RS_PT_INT, .def = "65536",
      .doc = "global recall throttle (v15 64K; 128K since PR 38574)",
      .range = "[1, )" },
    { .key = "mds_min_caps_per_client", .type = RS_PT_INT, .def = "100",
      .doc = "recall never asks a client to go below this many caps",
      .range = "[1, )" },
    { .key = "mds_max_caps_per_client", .type = RS_PT_INT, .def = "1048576",
      .doc = "a session above this many caps is recalled (v15 ENFORCE_MAX)",
      .range = "[1, )" },
    { .key = "mds_max_ratio_caps_per_client", .type = RS_PT_DOUBLE, .def = "0.8",
      .doc = "Luminous recall: no session keeps more than this fraction of all caps" },
    { .key = "mds_client_cache_size", .type = RS_PT_INT, .def = "0",
      .doc = "rssim: a client keeps caps on at most this many inodes, its inode cache (ceph-fuse's "
             "client_cache_size is 16384; a kernel client's depends on its memory); past it, it "
             "releases its oldest caps on files it does not hold open; 0 = no limit",
      .range = "[0, )" },
    { .key = "mds_client_release_delay", .type = RS_PT_DURATION, .def = "100ms",
      .doc = "rssim: time a client takes to release recalled caps (not a Ceph option)" },
    { .key = "mds_request_service_time", .type = RS_PT_DURATION, .def = "0",
      .doc = "rssim: time one request holds the MDS (mds_lock serializes requests); the next "
             "record waits until it is done; 0 = an infinitely fast MDS (records at trace times)" },
    { .key = "mds_request_bytes", .type = RS_PT_SIZE, .def = "4K",
      .doc = "rssim: untracked bytes of one request in flight (message, MDRequest, reply); "
             "estimate, 0 = none" },
    { .key = "mds_journal_event_bytes", .type = RS_PT_SIZE, .def = "4K",
      .doc = "rssim: untracked bytes of the journal event of a namespace change; estimate, 0 = none" },
    { .key = "mds_sample_k", .type = RS_PT_INT, .def = "1",
      .doc = "rssim: replay the records of 1/k of the trace's directories on a cache sized for "
             "them and scale the result by k (read by sim/run.c, not by this model; "
             "traces/sample.h, docs/models.md \"Sampled MDS runs\"); 1 = every record",
      .range = "[1, 4096]" },
    RS_MDS_BASE_PARAMS,
    { .key = NULL },
};

/* ---------------------------------------------------------------- namespace */

/* The memo mds_prefetch keeps on a record: word[0] the namespace indices
 * stage 1 guessed for rec->key (low half) and for its parent (high half),
 * RS_IDMAP_NONE where it has none, word[1] MEMO_GUESSED.  Guesses are hints
 * only (the namespace may change before the record runs): the op checks
 * each against the record it names (find_hinted).  Stage 0 leaves the
 * hashes it made for them: the parent's in word[0] (for stage 1), the
 * upper half of the key's in word[1]'s (all the idmap reads of a hash,
 * idmap.h), with MEMO_HASHED, for the op; they are exact, not hints. */
#define MEMO_GUESSED 1u
#define MEMO_HASHED 2u
#define MEMO_HASH_MASK 0xffffffff00000000ull

/* The hash of rec->key for the idmap: from the memo when stage 0 made it. */
static uint64_t key_hash(const rs_rec *rec, const rs_memo *memo)
{
    return memo && (memo->word[1] & MEMO_HASHED) ? memo->word[1] & MEMO_HASH_MASK : rs_hash64(rec->key);
}

static uint32_t guess_key(const rs_memo *memo)
{
    return memo && (memo->word[1] & MEMO_GUESSED) ? (uint32_t)memo->word[0] : RS_IDMAP_NONE;
}

static uint32_t guess_parent(const rs_memo *memo)
{
    return memo && (memo->word[1] & MEMO_GUESSED) ? (uint32_t)(memo->word[0] >> 32) : RS_IDMAP_NONE;
}

static uint64_t ino_of(const void *ctx, uint32_t idx)
{
    return ((const mds *)ctx)->ino[idx].ino;
}

/* Namespace index of inode number ino, or NIL. */
static uint32_t find(const mds *m, uint64_t ino)
{
    return rs_idmap_find(&m->inos, ino, ino_of, m);
}

/* find(), given the index mds_prefetch guessed for ino (a hint, or
 * RS_IDMAP_NONE): a live record holding ino is the one the table maps it
 * to (inode numbers are unique among live records), so a right guess costs
 * one compare instead of a hash and a probe.  Inline: that compare is less
 * than a call. */
static inline uint32_t find_hinted(const mds *m, uint64_t ino, uint32_t guess)
{
    if (guess < m->nino && m->ino[guess].ino == ino && !(m->ino[guess].flags & F_FREE))
        return guess;
    return find(m, ino);
}

/* Room for one more record in an array of `size`-byte records that holds
 * `used` of `*cap`: doubled (from 1024) when full, on huge pages once large
 * (sim/base/mem.h).  The array, or NULL with *cap untouched. */
static void *grow(void *arr, uint32_t used, uint32_t *cap, size_t size)
{
    if (used < *cap)
        return arr;
    uint32_t ncap = *cap ? *cap * 2 : 1024;
    void *p = ncap > *cap ? rs_mem_realloc(arr, (size_t)ncap * size) : NULL;
    if (p)
        *cap = ncap;
    return p;
}

/* A new namespace record for ino (not present; h = rs_hash64(ino), or its
 * upper half, idmap.h).  slot: the empty slot a probe for ino just returned
 * (the op's check that ino is new), or UINT64_MAX; it stays right unless
 * the table grows. */
OP_STEP int ns_add(mds *m, uint64_t ino, uint64_t h, uint64_t slot, uint32_t parent, uint32_t name_len,
                   int is_dir, uint32_t *r_idx, rs_err *err)
{
    int rc;
    uint32_t idx, d = NIL;
    uint64_t mask = m->inos.mask;

    if ((rc = rs_idmap_reserve(&m->inos, err)))
        return rc;
    if (m->inos.mask != mask) /* grown: every slot may have moved */
        slot = UINT64_MAX;
    if (is_dir && m->dir_free == NIL) {
        dir_rec *p = grow(m->dirs, m->ndir, &m->dir_cap, sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %u directories", m->dir_cap * 2);
        m->dirs = p;
    }
    if (m->ino_free == NIL) {
        ino_rec *p = grow(m->ino, m->nino, &m->ino_cap, sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %u inodes", m->ino_cap * 2);
        m->ino = p;
    }
    if (m->ino_free != NIL) {
        idx = m->ino_free;
        m->ino_free = m->ino[idx].cached_children;
    } else {
        idx = m->nino++;
    }
    if (is_dir) {
        if (m->dir_free != NIL) {
            d = m->dir_free;
            m->dir_free = m->dirs[d].children;
        } else {
            d = m->ndir++;
        }
        m->dirs[d] = (dir_rec){ .dir_oid = NIL };
    }
    m->ino[idx] = (ino_rec){
        .ino = ino, .parent = parent, .oid = NIL, .caps = NIL, .dir = d,
        .name_len = (uint8_t)(name_len > 255 ? 255 : name_len), .flags = is_dir ? F_DIR : 0,
    };
    if (slot == UINT64_MAX)
        slot = rs_idmap_probe(&m->inos, ino, h, ino_of, m);
    rs_idmap_put(&m->inos, slot, ino, h, idx);
    if (parent != NIL)
        m->dirs[m->ino[parent].dir].children++;
    *r_idx = idx;
    return 0;
}

static void ns_del(mds *m, uint32_t idx)
{
    ino_rec *r = &m->ino[idx];
    rs_idmap_delete(&m->inos, rs_idmap_probe(&m->inos, r->ino, rs_hash64(r->ino), ino_of, m));
    if (r->parent != NIL)
        m->dirs[m->ino[r->parent].dir].children--;
    if (r->flags & F_DIR) {
        m->dirs[r->dir] = (dir_rec){ .dir_oid = NIL, .children = m->dir_free };
        m->dir_free = r->dir;
    }
    *r = (ino_rec){ .flags = F_FREE, .cached_children = m->ino_free, .parent = NIL, .oid = NIL,
                    .caps = NIL, .dir = NIL };
    m->ino_free = idx;
}

/* ------------------------------------------------------------ cache objects */

static uint64_t accounted(const mds *m)
{
    return m->objs.accounted_bytes + m->caps_tracked_bytes;
}

static uint64_t toofull_bytes(const mds *m)
{
    return m->toofull_bytes; /* read_params: a double product, not made again per load */
}

static void health_update(mds *m, uint64_t now_ns)
{
    (void)now_ns;
    uint64_t acc = accounted(m);
    if (acc > m->accounted_peak_bytes)
        m->accounted_peak_bytes = acc;
}

/* Beacon::notify_health, called from MDSRankDispatcher::tick (pacific@74275226
 * src/mds/MDSRank.cc:798, Beacon.cc:466): MDS_CACHE_OVERSIZED while
 * MDCache::cache_overfull(), cache_size() > limit x mds_health_cache_threshold
 * (MDCache.h:209-210), as seen at each tick: an episode starts at the tick
 * that first sees it and lasts until the tick that sees it cleared. */
static void health_tick(mds *m, uint64_t now_ns)
{
    int over = (double)accounted(m) > m->health_threshold * (double)m->limit_bytes;
    if (over && !m->oversized) {
        m->oversized_since_ns = now_ns;
        m->oversized_count++;
    } else if (!over && m->oversized) {
        m->oversized_ns += now_ns - m->oversized_since_ns;
    }
    m->oversized = over;
}

static int obj_add(mds *m, unsigned kind, uint32_t key, uint32_t name_len, uint32_t thread,
                   uint64_t now_ns, rs_oid *r_id, rs_err *err)
{
    uint32_t aux = RS_MDS_AUX(kind, name_len > 0xffffff ? 0xffffff : name_len);
    return rs_objects_add(&m->objs, key, m->kind_bytes[kind], aux, thread, now_ns,
                          r_id, NULL, err);
}

static void update_pin(mds *m, uint32_t idx)
{
    const ino_rec *r = &m->ino[idx];
    if (r->oid == NIL)
        return;
    if (r->caps != NIL || r->cached_children)
        rs_lru_mid_pin(&m->lru, r->oid);
    else
        rs_lru_mid_unpin(&m->lru, r->oid);
}

static int inode_map_grow(mds *m, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    /* libstdc++'s prime rehash policy roughly doubles the bucket count when
     * the element count passes it (max_load_factor 1); the old array is
     * freed after the new one is filled */
    uint64_t nb = m->buckets ? m->buckets * 2 : 16;
    rs_addr a = m->alloc->ops->alloc(m->alloc->state, nb * 8, thread, now_ns);
    if (!a)
        return rs_alloc_fail_full(m->alloc, err);
    if (m->buckets_addr)
        m->alloc->ops->free(m->alloc->state, m->buckets_addr, m->buckets * 8, thread, now_ns);
    m->buckets_addr = a;
    m->buckets = nb;
    return 0;
}

static int open_dirfrag(mds *m, uint32_t idx, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    dir_rec *d = &m->dirs[m->ino[idx].dir];
    if (d->dir_oid != NIL)
        return 0;
    rs_oid id;
    int rc = obj_add(m, RS_MDS_DIR, idx, 0, thread, now_ns, &id, err);
    if (!rc)
        d->dir_oid = id;
    return rc;
}

static int load(mds *m, uint32_t idx, uint32_t thread, uint64_t now_ns, rs_err *err);

/* Bring inode idx (and every ancestor) into the cache: CDir::fetch /
 * open_ino insert loaded dentries at the LRU midpoint.  A create's step
 * (its new inode's); load() for the rest, and for the ancestors. */
OP_STEP int load_step(mds *m, uint32_t idx, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    ino_rec *r = &m->ino[idx];
    int rc;
    rs_oid id;

    if (idx == ROOT || r->oid != NIL)
        return 0;
    uint32_t p = r->parent;
    /* the parent is mostly cached with its dirfrag open already: looked at
     * here, without the two calls */
    if (p != ROOT && m->ino[p].oid == NIL && (rc = load(m, p, thread, now_ns, err)))
        return rc;
    if (m->dirs[m->ino[p].dir].dir_oid == NIL && (rc = open_dirfrag(m, p, thread, now_ns, err)))
        return rc;
    if (m->cached_inodes + 1 > m->buckets && (rc = inode_map_grow(m, thread, now_ns, err)))
        return rc;
    r = &m->ino[idx];
    if ((rc = obj_add(m, RS_MDS_FILE, idx, r->name_len, thread, now_ns, &id, err)))
        return rc;
    if ((rc = rs_lru_mid_insert_mid(&m->lru, id, r->caps != NIL, err))) {
        rs_objects_del(&m->objs, id, thread, now_ns);
        return rc;
    }
    r->oid = id;
    m->cached_inodes++;
    if (m->ino[p].cached_children++ == 0)
        update_pin(m, p);
    if (accounted(m) > toofull_bytes(m))
        m->exceeded = 1;
    uint64_t items = rs_lru_mid_size(&m->lru) + rs_lru_mid_size(&m->bottom);
    if (items > m->items_peak_count)
        m->items_peak_count = items;
    health_update(m, now_ns);
    return 0;
}

static int load(mds *m, uint32_t idx, uint32_t thread, uint64_t now_ns, rs_err *err)
{
    return load_step(m, idx, thread, now_ns, err);
}

/* Drop the cached dentry+inode of idx (expiry or unlink); its dirfrag goes
 * with it. */
static uint64_t unload(mds *m, uint32_t idx, uint32_t thread, uint64_t now_ns)
{
    ino_rec *r = &m->ino[idx];
    uint64_t bytes = 0;
    if (r->flags & F_DIR && m->dirs[r->dir].dir_oid != NIL) {
        bytes += rs_objects_del(&m->objs, m->dirs[r->dir].dir_oid, thread, now_ns);
        m->dirs[r->dir].dir_oid = NIL;
    }
    rs_lru_mid_remove(&m->lru, r->oid);
    bytes += rs_objects_del(&m->objs, r->oid, thread, now_ns);
    r->oid = NIL;
    m->cached_inodes--;
    if (--m->ino[r->parent].cached_children == 0)
        update_pin(m, r->parent);
    return bytes;
}

/* ------------------------------------------------------------ capabilities */

static int get_client(mds *m, uint32_t id, client **r_c, rs_err *err)
{
    int rc;
    if (id >= m->ncl) {
        uint32_t n = id + 1;
        client **p = realloc(m->cl, (size_t)n * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %u clients", n);
        memset(p + m->ncl, 0, (size_t)(n - m->ncl) * sizeof *p);
        m->cl = p;
        client **o = realloc(m->order, (size_t)n * sizeof *o);
        if (!o)
            return rs_fail(err, RS_ENOMEM, "out of memory for %u clients", n);
        m->order = o;
        m->ncl = n;
    }
    if (!m->cl[id]) {
        client *c = calloc(1, sizeof *c);
        if (!c)
            return rs_fail(err, RS_ENOMEM, "out of memory for a client");
        *c = (client){ .m = m, .id = id, .head = NIL, .tail = NIL, .recall_limit = UINT64_MAX };
        rs_decay_init(&c->recall_throttle, m->recall_half_life, m->eng->now_ns);
        rs_decay_init(&c->recall_throttle2o, 0.5, m->eng->now_ns);
        m->cl[id] = c;
        if ((rc = rs_mds_base_session(m->base, id, T_DISPATCH, m->eng->now_ns, err)))
            return rc;
    }
    *r_c = m->cl[id];
    return 0;
}

/* The cap client c holds on inode idx, or NIL. */
static uint32_t cap_find(const mds *m, uint32_t idx, uint32_t c)
{
    for (uint32_t k = m->ino[idx].caps; k != NIL; k = m->cap[k].next_in_ino)
        if (m->cap[k].client == c)
            return k;
    return NIL;
}

/* Address slot i (0 or 1) of cap k. */
static rs_addr *cap_addr(const mds *m, uint32_t k, unsigned i)
{
    return i ? &m->cap_addr2[k] : &m->cap[k].addr;
}

/* A new cap record's index: a freed one, else one more (the records and,
 * when a cap has two allocations, their second addresses grow together). */
static int cap_slot(mds *m, uint32_t *r_k, rs_err *err)
{
    if (m->cap_free != NIL) {
        *r_k = m->cap_free;
        m->cap_free = m->cap[*r_k].ino;
        if (m->cap_free != NIL) /* the next one's record, long since released */
            __builtin_prefetch(&m->cap[m->cap_free], 1);
        return 0;
    }
    if (m->ncap_used == m->cap_cap && m->cap_nparts > 1) {
        uint32_t c2 = m->cap_cap;
        rs_addr *p = grow(m->cap_addr2, m->ncap_used, &c2, sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %u caps", m->cap_cap * 2);
        m->cap_addr2 = p;
    }
    cap_rec *p = grow(m->cap, m->ncap_used, &m->cap_cap, sizeof *p);
    if (!p)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u caps", m->cap_cap * 2);
    m->cap = p;
    *r_k = m->ncap_used++;
    return 0;
}

/* One of a new cap's allocations, part, into *a. */
static inline int cap_alloc(mds *m, rs_addr *a, const rs_part *part, uint64_t now_ns, rs_err *err)
{
    if (!(*a = m->alloc->ops->alloc(m->alloc->state, part->size_bytes, T_DISPATCH, now_ns)))
        return rs_alloc_fail_full(m->alloc, err);
    if (part->tracked)
        m->caps_tracked_bytes += part->size_bytes;
    else
        m->caps_untracked_bytes += part->size_bytes;
    return 0;
}

static int cap_issue(mds *m, uint32_t idx, client *c, uint64_t now_ns, uint32_t *r_cap, rs_err *err)
{
    uint32_t k = cap_find(m, idx, c->id);
    int rc;

    if (k != NIL) {
        *r_cap = k;
        return 0;
    }
    if ((rc = cap_slot(m, &k, err)))
        return rc;
    cap_rec *cp = &m->cap[k];
    *cp = (cap_rec){ .ino = idx, .next_in_ino = m->ino[idx].caps, .prev = c->tail, .next = NIL,
                     .client = (uint16_t)c->id };
    /* one allocation or two (cap_nparts): written out, as a loop's set-up
     * cost more than its one pass */
    if ((rc = cap_alloc(m, &m->cap[k].addr, &m->cap_parts[0], now_ns, err)) ||
        (m->cap_nparts > 1 && (rc = cap_alloc(m, &m->cap_addr2[k], &m->cap_parts[1], now_ns, err))))
        return rc;
    if (c->tail != NIL)
        m->cap[c->tail].next = k;
    else
        c->head = k;
    c->tail = k;
    c->ncaps++;
    ino_rec *r = &m->ino[idx];
    int first = r->caps == NIL;
    r->caps = k;
    if (first && r->oid != NIL) /* update_pin: held by a cap now */
        rs_lru_mid_pin(&m->lru, r->oid);
    if (++m->caps_count > m->caps_peak)
        m->caps_peak = m->caps_count;
    *r_cap = k;
    return 0;
}

static void client_evict(mds *m, client *c, uint32_t keep, uint64_t now_ns);

/* cap_issue, then the client's own limit. */
OP_STEP int cap_take(mds *m, uint32_t idx, client *c, uint64_t now_ns, uint32_t *r_cap, rs_err *err)
{
    int rc = cap_issue(m, idx, c, now_ns, r_cap, err);
    if (!rc && m->client_cache && c->ncaps > m->client_cache)
        client_evict(m, c, *r_cap, now_ns);
    return rc;
}

/* One of a dropped cap's allocations, part, at a. */
static inline void cap_free(mds *m, rs_addr a, const rs_part *part, uint32_t thread, uint64_t now_ns)
{
    m->alloc->ops->free(m->alloc->state, a, part->size_bytes, thread, now_ns);
    if (part->tracked)
        m->caps_tracked_bytes -= part->size_bytes;
    else
        m->caps_untracked_bytes -= part->size_bytes;
}

static void cap_drop(mds *m, uint32_t k, uint32_t thread, uint64_t now_ns)
{
    cap_rec *cp = &m->cap[k];
    client *c = m->cl[cp->client];
    uint32_t idx = cp->ino;

    /* off the inode's list (short: one cap per client holding the inode) */
    uint32_t *pp = &m->ino[idx].caps;
    while (*pp != k)
        pp = &m->cap[*pp].next_in_ino;
    *pp = cp->next_in_ino;
    /* off the client's list */
    if (cp->prev != NIL)
        m->cap[cp->prev].next = cp->next;
    else
        c->head = cp->next;
    if (cp->next != NIL)
        m->cap[cp->next].prev = cp->prev;
    else
        c->tail = cp->prev;
    c->ncaps--;
    cap_free(m, m->cap[k].addr, &m->cap_parts[0], thread, now_ns); /* as in cap_issue */
    if (m->cap_nparts > 1)
        cap_free(m, m->cap_addr2[k], &m->cap_parts[1], thread, now_ns);
    cp->ino = m->cap_free;
    m->cap_free = k;
    m->caps_count--;
    if (m->ino[idx].caps == NIL)
        update_pin(m, idx);
}

/* Client c holds more caps than its inode cache: like the kernel's inode
 * LRU (list_lru_walk, referenced entries rotated), it releases its oldest
 * caps, passing over (moving to its newest end) files it holds open and
 * directories, which the client's own dentries keep in its cache; `keep`
 * is the cap just issued. */
static void client_evict(mds *m, client *c, uint32_t keep, uint64_t now_ns)
{
    uint64_t passes = c->ncaps;

    while (c->ncaps > m->client_cache && passes-- > 0) {
        uint32_t k = c->head;
        cap_rec *cp = &m->cap[k];
        if (k == keep)
            break;
        if (!cp->open && !(m->ino[cp->ino].flags & F_DIR)) {
            cap_drop(m, k, T_DISPATCH, now_ns);
            m->caps_evicted++;
            continue;
        }
        c->head = cp->next; /* rotate: off the head, onto the tail */
        m->cap[c->head].prev = NIL;
        cp->prev = c->tail;
        cp->next = NIL;
        m->cap[c->tail].next = k;
        c->tail = k;
    }
}

/* The client got RECALL_STATE(max_caps) a moment ago: like the kernel's
 * ceph_trim_caps, it walks its caps oldest first and releases those of
 * inodes it does not hold open, until it is at the limit. */
static void on_release(void *ctx, uint64_t now_ns)
{
    client *c = ctx;
    mds *m = c->m;
    uint32_t k = c->head;

    c->release_pending = 0;
    while (k != NIL && c->ncaps > c->recall_limit) {
        uint32_t next = m->cap[k].next;
        if (!m->cap[k].open) {
            cap_drop(m, k, T_DISPATCH, now_ns);
            m->caps_released++;
        }
        k = next;
    }
    c->recall_limit = UINT64_MAX;
    health_update(m, now_ns);
}

static void send_recall(mds *m, client *c, uint64_t newlim, uint64_t now_ns)
{
    uint64_t count = c->ncaps - newlim;
    rs_err err;

    c->recall_limit = newlim;
    m->recalls++;
    m->caps_recalled += count;
    if (c->release_pending)
        return;
    if (rs_engine_at(m->eng, now_ns + m->release_delay_ns, on_release, c, &err))
        rs_engine_abort(m->eng, &err);
    else
        c->release_pending = 1;
}

static int by_caps_desc(const void *a, const void *b)
{
    const client *x = *(client *const *)a, *y = *(client *const *)b;
    if (x->ncaps != y->ncaps)
        return x->ncaps < y->ncaps ? 1 : -1;
    return x->id < y->id ? -1 : 1;
}

/* Luminous Server::recall_client_state(): every session above
 * mds_min_caps_per_client to num_caps * (1 - min(0.8, toofull ratio)), and
 * none above mds_max_ratio_caps_per_client of all caps. */
static void recall_luminous(mds *m, uint64_t target_bytes, uint64_t now_ns)
{
    double over = target_bytes ? ((double)accounted(m) - (double)target_bytes) / (double)target_bytes : 0;
    double ratio = 1.0 - (over < 0.8 ? over : 0.8);
    uint64_t max_caps = (uint64_t)((double)m->caps_count * m->max_ratio_caps);

    for (uint32_t i = 0; i < m->ncl; i++) {
        client *c = m->cl[i];
        if (!c || c->ncaps <= (uint64_t)m->min_caps)
            continue;
        uint64_t newlim = (uint64_t)((double)c->ncaps * ratio);
        if (newlim > max_caps)
            newlim = max_caps;
        if (c->ncaps > newlim)
            send_recall(m, c, newlim, now_ns);
    }
}

/* v15 Server::recall_client_state(TRIM): sessions with most caps first,
 * each asked for at most mds_recall_max_caps, skipped when its decaying
 * recall counters are over their thresholds; stop at the global one. */
static void recall_octopus(mds *m, uint64_t now_ns)
{
    client **order = m->order;
    uint32_t n = 0;
    uint64_t maxc = (uint64_t)m->recall_max_caps, minc = (uint64_t)m->min_caps;

    for (uint32_t i = 0; i < m->ncl; i++)
        if (m->cl[i] && m->cl[i]->ncaps)
            order[n++] = m->cl[i];
    qsort(order, n, sizeof order[0], by_caps_desc);
    for (uint32_t i = 0; i < n; i++) {
        client *c = order[i];
        uint64_t num = c->ncaps, newlim;
        if (num < maxc || num - maxc < minc)
            newlim = minc;
        else
            newlim = num - maxc;
        if (num <= newlim)
            continue;
        uint64_t recall = num - newlim < maxc ? num - newlim : maxc;
        newlim = num - recall;
        if (rs_decay_get(&c->recall_throttle, now_ns) + (double)recall >
            (double)m->recall_max_decay_threshold)
            continue;
        if (rs_decay_get(&c->recall_throttle2o, now_ns) + (double)recall > 2.0 * (double)maxc)
            continue;
        if (rs_decay_get(&m->recall_global, now_ns) + (double)recall >
            (double)m->recall_global_threshold)
            break;
        rs_decay_hit(&c->recall_throttle, now_ns, (double)recall);
        rs_decay_hit(&c->recall_throttle2o, now_ns, (double)recall);
        rs_decay_hit(&m->recall_global, now_ns, (double)recall);
        send_recall(m, c, newlim, now_ns);
    }
}

/* ------------------------------------------------------------------- trim */

static uint64_t used_bytes(void *ctx)
{
    return accounted(ctx);
}

static uint64_t get_limit(void *ctx)
{
    return ((mds *)ctx)->limit_bytes;
}

static void release_heap(mds *m, uint64_t now_ns)
{
    if (m->alloc->ops->release) {
        m->alloc->ops->release(m->alloc->state, now_ns);
        m->heap_releases++;
    }
}

/* What expiring dentry id touches, by stage (models/cache/lookahead.h): its
 * object record and allocation addresses; its inode record and the
 * allocator's page-map entries; the allocator's span records; the words the
 * frees will write beyond them (alloc.h, stage 2). */
static void trim_prefetch(const void *ctx, rs_oid id, int stage)
{
    const mds *m = ctx;
    if (stage == 1)
        __builtin_prefetch(&m->ino[m->objs.obj[id].key]);
    rs_objects_prefetch(&m->objs, id, stage);
}

static rs_oid next_victim(const void *ctx, rs_oid id)
{
    return rs_lru_mid_peek_after(ctx, id);
}

/* MDCache::trim() then check_memory_usage(): drain the bottom LRU, expire
 * from the LRU while over target_bytes (up to max_items in all), recall
 * caps when still over, release the heap once back under. */
static uint64_t trim_to(void *ctx, uint64_t target_bytes, uint64_t max_items, uint64_t now_ns,
                        uint64_t *r_bytes)
{
    mds *m = ctx;
    uint64_t items = 0;

    while (!max_items || items < max_items) {
        rs_oid id = rs_lru_mid_next_expire(&m->bottom);
        if (id == RS_OID_NONE)
            break;
        rs_lru_mid_remove(&m->bottom, id);
        *r_bytes += rs_objects_del(&m->objs, id, T_TRIM, now_ns);
        items++;
    }
    rs_lookahead ahead = { .n = 0 };
    while (accounted(m) > target_bytes && (!max_items || items < max_items)) {
        rs_oid id = rs_lru_mid_next_expire(&m->lru);
        if (id == RS_OID_NONE)
            break;
        rs_lookahead_step(&ahead, id, next_victim, &m->lru, trim_prefetch, m);
        *r_bytes += unload(m, (uint32_t)rs_objects_get(&m->objs, id)->key, T_TRIM, now_ns);
        items++;
    }
    if (accounted(m) > target_bytes) {
        if (m->recall_octopus)
            recall_octopus(m, now_ns);
        else
            recall_luminous(m, target_bytes, now_ns);
    } else if (m->exceeded && accounted(m) <= toofull_bytes(m)) {
        m->exceeded = 0;
        release_heap(m, now_ns);
    }
    health_update(m, now_ns);
    return items;
}

static void on_release_timer(void *ctx, uint64_t now_ns)
{
    release_heap(ctx, now_ns);
}

/* MDSRankDispatcher::tick: the health check, then MDLog::trim. */
static void on_tick(void *ctx, uint64_t now_ns)
{
    mds *m = ctx;
    rs_err err;
    health_tick(m, now_ns);
    if (rs_mds_base_log_trim(m->base, T_DISPATCH, T_IO, now_ns, &err))
        rs_engine_abort(m->eng, &err);
}

/* --------------------------------------------------------------------- ops */

static const char *const bad_names[BAD_KINDS] = {
    [BAD_UNKNOWN_INODE] = "mds_bad_unknown_inode_count",
    [BAD_MISSING_DENTRY] = "mds_bad_missing_dentry_count",
    [BAD_CLOSE] = "mds_bad_close_without_open_count",
    [BAD_OTHER] = "mds_bad_other_count",
};

/* A record the namespace cannot take: counted, or an error under strict. */
static int bad(mds *m, enum bad_kind kind, const rs_rec *rec, rs_err *err, const char *what)
{
    m->bad[kind]++;
    if (!m->strict)
        return 0;
    return rs_fail(err, RS_EINPUT, "%s %s (inode %llu, parent %llu, client %u)",
                   rs_op_name(rec->op) ? rs_op_name(rec->op) : "?", what,
                   (unsigned long long)rec->key, (unsigned long long)rec->size_bytes, rec->thread);
}

/* One request in flight per client: this one replaces the client's last
 * (a closed-loop client), with a journal event when it changes the
 * namespace. */
OP_STEP int request(mds *m, client *c, int journaled, uint64_t now_ns, rs_err *err)
{
    rs_alloc *a = m->alloc;
    if (c->req_addr) {
        a->ops->free(a->state, c->req_addr, m->request_bytes, T_DISPATCH, now_ns);
        m->side_untracked_bytes -= m->request_bytes;
        c->req_addr = 0;
    }
    if (c->jrn_addr) {
        a->ops->free(a->state, c->jrn_addr, m->journal_bytes, T_DISPATCH, now_ns);
        m->side_untracked_bytes -= m->journal_bytes;
        c->jrn_addr = 0;
    }
    if (m->request_bytes) {
        if (!(c->req_addr = a->ops->alloc(a->state, m->request_bytes, T_DISPATCH, now_ns)))
            return rs_alloc_fail_full(a, err);
        m->side_untracked_bytes += m->request_bytes;
    }
    if (journaled && m->journal_bytes) {
        if (!(c->jrn_addr = a->ops->alloc(a->state, m->journal_bytes, T_DISPATCH, now_ns)))
            return rs_alloc_fail_full(a, err);
        m->side_untracked_bytes += m->journal_bytes;
    }
    return 0;
}

OP_STEP int op_create(mds *m, client *c, const rs_rec *rec, const rs_memo *memo, int is_dir,
                      rs_err *err)
{
    /* idx = NIL: ns_add sets it, but GCC, inlining it, cannot tell */
    uint32_t p = find_hinted(m, rec->size_bytes, guess_parent(memo)), idx = NIL, k;
    uint64_t h = key_hash(rec, memo);
    int rc;

    if (p == NIL)
        return bad(m, BAD_UNKNOWN_INODE, rec, err, "in an unknown directory");
    if (!(m->ino[p].flags & F_DIR))
        return bad(m, BAD_OTHER, rec, err, "in a parent that is not a directory");
    uint64_t slot = rs_idmap_probe(&m->inos, rec->key, h, ino_of, m);
    if (rs_idmap_id(&m->inos, slot) != RS_IDMAP_NONE)
        return bad(m, BAD_OTHER, rec, err, "of an inode that exists");
    if ((rc = request(m, c, 1, rec->t_ns, err)) ||
        (rc = ns_add(m, rec->key, h, slot, p, rec->aux, is_dir, &idx, err)) ||
        (rc = load_step(m, idx, T_DISPATCH, rec->t_ns, err)) ||
        (is_dir && (rc = open_dirfrag(m, idx, T_DISPATCH, rec->t_ns, err))) ||
        (rc = cap_take(m, idx, c, rec->t_ns, &k, err)) ||
        (rc = rs_mds_base_journal(m->base, T_DISPATCH, rec->t_ns, err)))
        return rc;
    /* tar's open(O_CREAT) is this one request: its close goes to the caps,
     * not to the MDS (traces/gen/kernel_build.c), so CREATE does not count
     * as an OPEN */
    return 0;
}

static int op_remove(mds *m, client *c, const rs_rec *rec, const rs_memo *memo, int is_dir,
                     rs_err *err)
{
    uint32_t idx = find_hinted(m, rec->key, guess_key(memo));
    uint32_t p = find_hinted(m, rec->size_bytes, guess_parent(memo));
    int rc;
    rs_oid nid;

    if (p == NIL)
        return bad(m, BAD_UNKNOWN_INODE, rec, err, "in an unknown directory");
    if (idx == NIL || idx == ROOT || m->ino[idx].parent != p)
        return bad(m, BAD_MISSING_DENTRY, rec, err, "of a missing dentry");
    if (!!(m->ino[idx].flags & F_DIR) != is_dir)
        return bad(m, BAD_OTHER, rec, err, is_dir ? "of a file" : "of a directory");
    if (is_dir && m->dirs[m->ino[idx].dir].children)
        return bad(m, BAD_OTHER, rec, err, "of a directory that is not empty");
    if ((rc = request(m, c, 1, rec->t_ns, err)) || (rc = load(m, p, T_DISPATCH, rec->t_ns, err)) ||
        (rc = open_dirfrag(m, p, T_DISPATCH, rec->t_ns, err)))
        return rc;
    while (m->ino[idx].caps != NIL)
        cap_drop(m, m->ino[idx].caps, T_DISPATCH, rec->t_ns);
    /* the dentry stays as a null dentry on the bottom LRU */
    if ((rc = obj_add(m, RS_MDS_NULL, p, m->ino[idx].name_len, T_DISPATCH, rec->t_ns, &nid, err)))
        return rc;
    if ((rc = rs_lru_mid_insert_mid(&m->bottom, nid, 0, err))) {
        rs_objects_del(&m->objs, nid, T_DISPATCH, rec->t_ns);
        return rc;
    }
    if (m->ino[idx].oid != NIL)
        unload(m, idx, T_DISPATCH, rec->t_ns);
    ns_del(m, idx);
    return rs_mds_base_journal(m->base, T_DISPATCH, rec->t_ns, err);
}

/* LOOKUP, GETATTR, OPEN, CLOSE, READDIR: the inode must exist; it is
 * loaded when not cached, and the client gets (or keeps) a cap on it. */
static int op_access(mds *m, client *c, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    uint32_t idx = find_hinted(m, rec->key, guess_key(memo)), k;
    int rc;

    if (idx == NIL)
        return bad(m, BAD_UNKNOWN_INODE, rec, err, "of an unknown inode");
    if (rec->op == RS_OP_LOOKUP) {
        uint32_t p = find_hinted(m, rec->size_bytes, guess_parent(memo));
        if (p == NIL)
            return bad(m, BAD_UNKNOWN_INODE, rec, err, "in an unknown directory");
        if (m->ino[idx].parent != p)
            return bad(m, BAD_MISSING_DENTRY, rec, err, "of a name that is not in that directory");
    }
    if (rec->op == RS_OP_READDIR && !(m->ino[idx].flags & F_DIR))
        return bad(m, BAD_OTHER, rec, err, "of a file");
    if (rec->op == RS_OP_CLOSE) {
        k = cap_find(m, idx, c->id);
        if (k == NIL || !m->cap[k].open)
            return bad(m, BAD_CLOSE, rec, err, "without an open");
    }
    if ((rc = request(m, c, 0, rec->t_ns, err)))
        return rc;
    /* a hit: the inode's dentry+inode is cached (the root always is);
     * its bytes are what the layout accounts for that object, and a miss
     * also counts the ancestors its load brought in */
    int hit = m->ino[idx].oid != NIL || idx == ROOT;
    uint64_t before = accounted(m);
    if (!hit) {
        m->loads++;
        if ((rc = load(m, idx, T_DISPATCH, rec->t_ns, err)))
            return rc;
    }
    uint64_t bytes = hit ? idx == ROOT ? 0
                               : rs_objects_accounted_of(&m->objs, m->objs.obj[m->ino[idx].oid].bytes,
                                                         m->objs.obj[m->ino[idx].oid].aux)
                         : accounted(m) - before;
    rs_cache_count(&m->hits, hit, bytes);
    if (rec->op == RS_OP_LOOKUP && idx != ROOT)
        rs_lru_mid_touch(&m->lru, m->ino[idx].oid); /* path_traverse touches the dentry */
    if (rec->op == RS_OP_READDIR && (rc = open_dirfrag(m, idx, T_DISPATCH, rec->t_ns, err)))
        return rc;
    if ((rc = cap_take(m, idx, c, rec->t_ns, &k, err)))
        return rc;
    if (rec->op == RS_OP_OPEN)
        m->cap[k].open++;
    else if (rec->op == RS_OP_CLOSE)
        m->cap[k].open--;
    return 0;
}

static void on_served(void *ctx, uint64_t now_ns)
{
    mds *m = ctx;
    (void)now_ns;
    rs_engine_release_hold(m->eng);
}

/* A single server: a request starts when it arrives or when the one before
 * it is done, whichever is later (the engine has raised rec->t_ns to now),
 * and the trace waits until it is done (rs_engine_hold). */
static int serve(mds *m, const rs_rec *rec, rs_err *err)
{
    uint64_t start = rec->t_ns > m->busy_until_ns ? rec->t_ns : m->busy_until_ns;
    m->busy_until_ns = start + m->service_ns;
    rs_engine_hold(m->eng);
    return rs_engine_at(m->eng, m->busy_until_ns, on_served, m, err);
}

static int mds_op(void *state, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    mds *m = state;
    client *c = NULL;
    int rc = get_client(m, rec->thread, &c, err);

    if (rc)
        return rc;
    switch (rec->op) {
    case RS_OP_MKDIR: rc = op_create(m, c, rec, memo, 1, err); break;
    case RS_OP_CREATE: rc = op_create(m, c, rec, memo, 0, err); break;
    case RS_OP_UNLINK: rc = op_remove(m, c, rec, memo, 0, err); break;
    case RS_OP_RMDIR: rc = op_remove(m, c, rec, memo, 1, err); break;
    case RS_OP_LOOKUP:
    case RS_OP_GETATTR:
    case RS_OP_OPEN:
    case RS_OP_CLOSE:
    case RS_OP_READDIR: rc = op_access(m, c, rec, memo, err); break;
    default:
        return rs_fail(err, RS_EINPUT, "daemon mds cannot replay op %u ('%s') at t_ns %llu",
                       rec->op, rs_op_name(rec->op) ? rs_op_name(rec->op) : "?",
                       (unsigned long long)rec->t_ns);
    }
    if (!rc)
        health_update(m, rec->t_ns);
    if (!rc && m->service_ns)
        rc = serve(m, rec, err);
    return rc;
}

#define OP_BIT(op) ((uint64_t)1 << (op))
#define PARENT_OPS (OP_BIT(RS_OP_CREATE) | OP_BIT(RS_OP_MKDIR) | OP_BIT(RS_OP_UNLINK) | \
                    OP_BIT(RS_OP_RMDIR) | OP_BIT(RS_OP_LOOKUP))
#define CREATE_OPS (OP_BIT(RS_OP_CREATE) | OP_BIT(RS_OP_MKDIR))

/* Does op name a parent directory in size_bytes that the op looks up? */
static int op_has_parent(unsigned op)
{
    return op < 64 && (PARENT_OPS >> op & 1);
}

/* Does op make its inode (which is then not in the namespace yet)? */
static int op_creates(unsigned op)
{
    return op < 64 && (CREATE_OPS >> op & 1);
}

/* Prefetch of the allocations of cached object id, or of cap k, at an
 * allocator stage (alloc.h): what an unlink frees. */
static void prefetch_cap_allocs(const mds *m, uint32_t k, int stage)
{
    if (k >= m->ncap_used || !m->alloc->ops->prefetch)
        return;
    for (unsigned i = 0; i < m->cap_nparts; i++) {
        rs_addr a = *cap_addr(m, k, i);
        if (a)
            m->alloc->ops->prefetch(m->alloc->state, a, stage);
    }
}

/* rec is coming (sim/engine.h; five stages, mds_create asks the engine for
 * them): stage 0 fetches the inode table's slots for its inode and parent,
 * stage 1 the inode records they name, stage 2 what the inode points to —
 * its first cap, its cached object's record and addresses, its LRU links;
 * stage 3 the LRU neighbours a LOOKUP's touch rewrites and, for an unlink,
 * the cap's client-list neighbours and the allocator's page-map entries of
 * what it frees; stage 4 the allocator's span records of those.  A replay
 * is memory-latency bound: these are the misses an op would otherwise take
 * one after another. */
static void prefetch_inode(const mds *m, const rs_rec *rec, uint32_t idx, int stage);

/* Stage 0 of mds_prefetch: the table slots of the key and its parent. */
__attribute__((noinline)) static void prefetch_slots(const mds *m, const rs_rec *rec, rs_memo *memo)
{
    uint64_t h = rs_hash64(rec->key), hp = 0;
    rs_idmap_prefetch(&m->inos, h);
    if (op_has_parent(rec->op)) {
        hp = rs_hash64(rec->size_bytes);
        rs_idmap_prefetch(&m->inos, hp);
    }
    memo->word[0] = hp;
    memo->word[1] = (h & MEMO_HASH_MASK) | MEMO_HASHED;
}

/* Stage 1 of mds_prefetch: the inode records the slots name. */
__attribute__((noinline)) static void prefetch_records(const mds *m, const rs_rec *rec, rs_memo *memo)
{
    unsigned op = rec->op;
    uint64_t w1 = memo->word[1];
    /* a create's inode is not in the table (if it were, the op is
     * refused): its probe would run to an empty slot for nothing */
    uint32_t idx = op_creates(op) ? RS_IDMAP_NONE : rs_idmap_guess(&m->inos, rec->key, key_hash(rec, memo));
    uint32_t p = op_has_parent(op)
                     ? rs_idmap_guess(&m->inos, rec->size_bytes,
                                      w1 & MEMO_HASHED ? memo->word[0] : rs_hash64(rec->size_bytes))
                     : RS_IDMAP_NONE;
    if (idx != RS_IDMAP_NONE)
        __builtin_prefetch(&m->ino[idx]);
    if (p != RS_IDMAP_NONE)
        __builtin_prefetch(&m->ino[p]);
    if (op_creates(op) && rec->thread < m->ncl && m->cl[rec->thread] &&
        m->cl[rec->thread]->tail != NIL) /* the cap it issues joins the client's list */
        __builtin_prefetch(&m->cap[m->cl[rec->thread]->tail], 1);
    memo->word[0] = (uint64_t)p << 32 | idx;
    memo->word[1] = w1 | MEMO_GUESSED;
}

/* Each stage out of line: this dispatch saves no register. */
static void mds_prefetch(void *state, const rs_rec *rec, rs_memo *memo, int stage)
{
    const mds *m = state;
    if (stage == 0) {
        prefetch_slots(m, rec, memo);
        return;
    }
    if (stage == 1) {
        prefetch_records(m, rec, memo);
        return;
    }
    uint32_t idx = (uint32_t)memo->word[0];
    /* RS_IDMAP_NONE is never below nino */
    if ((memo->word[1] & MEMO_GUESSED) && idx < m->nino)
        prefetch_inode(m, rec, idx, stage);
}

/* Stages 2 to 4 of mds_prefetch, for the inode guessed at index idx: out of
 * line, so that the calls with nothing to do (a create's, most of them) stay
 * a few instructions. */
__attribute__((noinline)) static void prefetch_inode(const mds *m, const rs_rec *rec, uint32_t idx,
                                                     int stage)
{
    const ino_rec *r = &m->ino[idx];
    int unlink = rec->op == RS_OP_UNLINK || rec->op == RS_OP_RMDIR;
    uint32_t dir_oid = unlink && r->dir < m->ndir ? m->dirs[r->dir].dir_oid : NIL;
    if (stage == 2) {
        if (r->caps != NIL)
            __builtin_prefetch(&m->cap[r->caps]);
        if (r->oid != NIL) {
            rs_objects_prefetch(&m->objs, r->oid, 0);
            if (r->oid < m->lru.cap) {
                __builtin_prefetch(&m->lru.n[r->oid]);
            }
        }
        if (dir_oid != NIL)
            rs_objects_prefetch(&m->objs, dir_oid, 0);
        return;
    }
    if (stage == 3 && rec->op == RS_OP_LOOKUP && r->oid != NIL && r->oid < m->lru.cap) {
        uint32_t pv = m->lru.n[r->oid].prev, nx = m->lru.n[r->oid].next;
        if (pv < m->lru.cap)
            __builtin_prefetch(&m->lru.n[pv], 1);
        if (nx < m->lru.cap)
            __builtin_prefetch(&m->lru.n[nx], 1);
        return;
    }
    if (!unlink)
        return;
    if (r->oid != NIL)
        rs_objects_prefetch(&m->objs, r->oid, stage - 2);
    if (dir_oid != NIL)
        rs_objects_prefetch(&m->objs, dir_oid, stage - 2);
    if (r->caps != NIL) {
        const cap_rec *cp = &m->cap[r->caps];
        if (stage == 3) {
            if (cp->prev != NIL)
                __builtin_prefetch(&m->cap[cp->prev], 1);
            if (cp->next != NIL)
                __builtin_prefetch(&m->cap[cp->next], 1);
        }
        prefetch_cap_allocs(m, r->caps, stage - 3);
    }
}

/* ------------------------------------------------------------ life cycle */

static void mds_destroy(void *state)
{
    mds *m = state;
    if (!m)
        return;
    rs_trim_destroy(&m->trim);
    rs_lru_mid_release(&m->lru);
    rs_lru_mid_release(&m->bottom);
    rs_objects_release(&m->objs);
    for (uint32_t i = 0; i < m->ncl; i++)
        free(m->cl[i]);
    free(m->cl);
    free(m->order);
    rs_mem_free(m->cap);
    rs_mem_free(m->cap_addr2);
    rs_mem_free(m->ino);
    rs_mem_free(m->dirs);
    rs_idmap_release(&m->inos);
    rs_mds_base_destroy(m->base);
    free(m);
}

enum { RECALL_LUMINOUS, RECALL_OCTOPUS }; /* mds_recall's choices, in order */

static int read_params(mds *m, const rs_config *cfg, rs_err *err)
{
    int recall = rs_config_choice(cfg, "mds_recall");
    uint64_t req = rs_config_size(cfg, "mds_request_bytes");
    uint64_t jrn = rs_config_size(cfg, "mds_journal_event_bytes");

    m->limit_bytes = rs_config_size(cfg, "mds_cache_memory_limit");
    m->base_bytes = rs_config_size(cfg, "base_bytes");
    m->reserve = 1.0 - rs_config_double(cfg, "mds_cache_reservation");
    m->toofull_bytes = (uint64_t)((double)m->limit_bytes * m->reserve);
    m->health_threshold = rs_config_double(cfg, "mds_health_cache_threshold");
    m->strict = rs_config_bool(cfg, "strict");
    m->release_delay_ns = rs_config_duration_ns(cfg, "mds_client_release_delay");
    m->service_ns = rs_config_duration_ns(cfg, "mds_request_service_time");
    m->max_ratio_caps = rs_config_double(cfg, "mds_max_ratio_caps_per_client");
    m->recall_half_life = rs_config_double(cfg, "mds_recall_max_decay_rate");
    if (recall < 0)
        return rs_config_bad_value(cfg, "mds_recall", "not one of its choices", err);
    m->recall_octopus = recall == RECALL_OCTOPUS;
    if (req >= UINT32_MAX || jrn >= UINT32_MAX)
        return rs_fail(err, RS_EINPUT, "mds_request_bytes and mds_journal_event_bytes must be < 4G");
    m->request_bytes = (uint32_t)req;
    m->journal_bytes = (uint32_t)jrn;
    m->recall_max_caps = rs_config_int(cfg, "mds_recall_max_caps");
    m->recall_max_decay_threshold = rs_config_int(cfg, "mds_recall_max_decay_threshold");
    m->recall_global_threshold = rs_config_int(cfg, "mds_recall_global_max_decay_threshold");
    m->min_caps = rs_config_int(cfg, "mds_min_caps_per_client");
    m->max_caps = rs_config_int(cfg, "mds_max_caps_per_client");
    m->client_cache = (uint64_t)rs_config_int(cfg, "mds_client_cache_size");
    return 0;
}

enum { SLOT_LAYOUT, SLOT_TRIM };
static const rs_daemon_slot slots[] = {
    [SLOT_LAYOUT] = { { .key = "layout", .type = RS_PT_STRING, .def = "mds-octopus",
                        .doc = "CInode/CDentry/CDir/Capability sizes of one Ceph version",
                        .choices = "mds-luminous|mds-pr19954|mds-octopus|mds-pacific|mds-quincy|mds-reef|mds-squid|mds-tentacle" },
                      RS_COMPONENT_LAYOUT },
    [SLOT_TRIM] = { { .key = "trim", .type = RS_PT_STRING, .def = "mds-upkeep",
                      .doc = "when the cache is trimmed: mds-tick (Luminous), mds-upkeep (v14+)" },
                    RS_COMPONENT_TRIM },
    { { .key = NULL }, 0 },
};

static int mds_create(const rs_daemon_env *env, void **r_state, rs_err *err)
{
    mds *m = calloc(1, sizeof *m);
    uint32_t root = NIL; /* ns_add sets it (see op_create) */
    uint64_t release_ns;
    int rc;

    if (!m)
        return rs_fail(err, RS_ENOMEM, "out of memory for daemon mds");
    m->eng = env->engine;
    m->eng->prefetch_stages = RS_ENGINE_PREFETCH_STAGES;
    m->alloc = env->alloc;
    m->ino_free = m->cap_free = m->dir_free = NIL;
    rs_lru_mid_init(&m->lru, rs_config_double(env->cfg, "mds_cache_mid"));
    rs_lru_mid_init(&m->bottom, 0.0);
    const rs_layout_ops *layout = env->parts[SLOT_LAYOUT];
    if ((rc = read_params(m, env->cfg, err)) ||
        (rc = rs_mds_base_create(env->cfg, env->alloc, &m->base, err)) ||
        (rc = rs_objects_init(&m->objs, layout, env->cfg, env->alloc, err)))
        goto fail;
    if (!(m->sizes = rs_mds_layout_sizes(&m->objs.layout))) {
        rc = rs_fail(err, RS_EINPUT,
                     "daemon mds: layout '%s' has no MDS struct sizes (use an MDS layout, "
                     "e.g. mds-octopus)", layout->name);
        goto fail;
    }
    m->cap_nparts = rs_mds_side_parts(m->sizes, RS_MDS_CAP, 0, 0, m->cap_parts);
    for (unsigned kind = 0; kind < RS_MDS_CACHED_KINDS; kind++)
        m->kind_bytes[kind] = rs_mds_object_bytes(m->sizes, kind);
    rs_decay_init(&m->recall_global, m->recall_half_life, m->eng->now_ns);
    m->target = (rs_trim_target){
        .ctx = m, .used_bytes = used_bytes, .limit_bytes = get_limit, .trim_to = trim_to,
    };
    if ((rc = rs_idmap_init(&m->inos, 1024, err)) ||
        (rc = ns_add(m, ROOT_INO, rs_hash64(ROOT_INO), UINT64_MAX, NIL, 0, 1, &root, err)) ||
        (rc = open_dirfrag(m, root, T_DISPATCH, 0, err)) ||
        (rc = rs_trim_create(env->parts[SLOT_TRIM], env->cfg, env->engine, &m->target,
                             &m->trim_stats, &m->trim, err)))
        goto fail;
    uint64_t tick_ns = rs_config_duration_ns(env->cfg, "mds_tick_interval");
    if ((rc = rs_engine_every(env->engine, env->engine->now_ns + tick_ns, tick_ns, on_tick, m,
                              err)))
        goto fail;
    release_ns = rs_config_duration_ns(env->cfg, "mds_cache_release_free_interval");
    if (release_ns &&
        (rc = rs_engine_every(env->engine, env->engine->now_ns + release_ns, release_ns,
                              on_release_timer, m, err)))
        goto fail;
    *r_state = m;
    return 0;
fail:
    mds_destroy(m);
    return rc;
}

static void mds_stats(const void *state, rs_daemon_stats *r)
{
    const mds *m = state;
    rs_mds_base_stats b;
    rs_mds_base_stats_get(m->base, &b);
    *r = (rs_daemon_stats){
        .accounted_bytes = accounted(m),
        .untracked_bytes = m->objs.untracked_bytes + m->caps_untracked_bytes + m->buckets * 8 +
                           m->side_untracked_bytes + b.heap_bytes,
        .limit_bytes = m->limit_bytes,
        .base_bytes = m->base_bytes,
        .items_count = rs_lru_mid_size(&m->lru) + rs_lru_mid_size(&m->bottom),
        .accounted_peak_bytes = m->accounted_peak_bytes,
        .items_peak_count = m->items_peak_count,
        .trim = m->trim_stats,
        .hits = m->hits,
    };
}

static int mds_metrics(const void *state, uint64_t end_ns, rs_result *res, rs_err *err)
{
    const mds *m = state;
    uint64_t over_ns = m->oversized_ns + (m->oversized ? end_ns - m->oversized_since_ns : 0);
    uint64_t nbad = 0;
    int rc = 0;

    for (int i = 0; i < BAD_KINDS && !rc; i++) {
        nbad += m->bad[i];
        rc = rs_result_set_metric(res, bad_names[i], (double)m->bad[i], err);
    }
    const struct { const char *name; double value; } v[] = {
        { "mds_bad_records_count", (double)nbad },
        { "mds_cache_oversized_s", (double)over_ns / 1e9 },
        { "mds_cache_oversized_count", (double)m->oversized_count },
        { "mds_inodes_count", (double)m->inos.count },
        { "mds_cached_inodes_count", (double)m->cached_inodes },
        { "mds_caps_count", (double)m->caps_count },
        { "mds_caps_peak_count", (double)m->caps_peak },
        { "mds_recalls_count", (double)m->recalls },
        { "mds_caps_recalled_count", (double)m->caps_recalled },
        { "mds_caps_released_count", (double)m->caps_released },
        { "mds_caps_evicted_count", (double)m->caps_evicted },
        { "mds_loads_count", (double)m->loads },
        { "mds_heap_releases_count", (double)m->heap_releases },
        { "mds_null_dentries_count", (double)rs_lru_mid_size(&m->bottom) },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0] && !rc; i++)
        rc = rs_result_set_metric(res, v[i].name, v[i].value, err);
    if (!rc)
        rc = rs_daemon_hit_metrics(res, "", &m->hits, err);
    return rc ? rc : rs_mds_base_metrics(m->base, res, err);
}

/* Red Hat Ceph Storage 5 File System Guide 2.4: the limit is "approximately
 * 66% of the desired maximum memory use of the MDS"; MDS_CACHE_OVERSIZED at
 * mds_health_cache_threshold (150 %). */
static const rs_daemon_rule rule = {
    .factor = 1.5,
    .text = "RSS ~ 1.5 x mds_cache_memory_limit (Red Hat Ceph Storage 5 File System Guide 2.4: "
            "the limit is \"approximately 66% of the desired maximum memory use of the MDS\"; "
            "MDS health warning at 150%)",
    .caveat = "the MDS model's memory outside its cache (sessions, journal) is modelled from "
              "mds-pacific on (fitted on one Pacific MDS under a create workload); older presets "
              "have none, so their answer can be optimistic",
};

const rs_daemon_ops rs_daemon_mds = {
    .name = "mds",
    .doc = "CephFS MDS: namespace of CDir/CDentry/CInode, Ceph's midpoint LRU, client caps "
           "with recall, Luminous or Octopus trim timing (trim = mds-tick | mds-upkeep)",
    .params = params,
    .slots = slots,
    .rule = &rule,
    .trace_daemon = "mds",
    .limit_key = "mds_cache_memory_limit",
    .create = mds_create,
    .destroy = mds_destroy,
    .op = mds_op,
    .prefetch = mds_prefetch,
    .stats = mds_stats,
    .metrics = mds_metrics,
};
