/*
 * osd_budget.c — the BlueStore OSD's memory outside the onode and buffer
 * caches (osd_memory_model = whole), every piece allocated through the
 * run's allocator model, so its rounding and fragmentation apply and the
 * autotuner reads it in the heap's mapped bytes as Ceph reads tcmalloc's.
 *
 * RocksDB block caches.  A cache plug-in with the sharded slots (cache.h;
 * rocksdb-lru: LRUCache / Ceph's BinnedLRUCache), 2^rocksdb_cache_shard_bits
 * shards (Ceph rocksdb_cache_shard_bits 4 in every release), a block's
 * shard picked by its hash (RocksDB uses the hash's top bits).  An onode
 * miss in BlueStore's onode cache reads the onode's key: one block of
 * rocksdb_block_size (Ceph rocksdb_block_size 4 KiB) holding
 * block/rocksdb_onode_bytes onodes; a hit touches it, a miss allocates it
 * and inserts it (low priority), evicting to the shard's capacity as
 * LRUCacheShard::Insert does.  From v16 the onode column family has its own
 * block cache (bluestore_rocksdb_cfs "O(3,0-13)=block_cache={type=binned_lru}"),
 * PriorityCache's kv_onode; before, onodes share the kv cache.  Which
 * onodes share a block is a model choice: object numbers in order (RBD
 * names an image's objects in order), block = object / (onodes per block).
 * Every SST a flush of a non-deferred family writes holds
 * rocksdb_sst_keys_per_write keys and rocksdb_sst_bytes_per_write data
 * bytes per write flushed; RocksDB 6.8.1 (Pacific) opens it at once
 * (TableCache::FindTable, prefetch_index_and_filter_in_cache) and, with
 * Ceph's rocksdb_cache_index_and_filter_blocks, puts its index block (one
 * rocksdb_index_entry_bytes entry per data block) and full Bloom filter
 * (rocksdb_bloom_bits_per_key) in the kv cache at low priority
 * (..._with_high_priority false); no BlockBasedTable::Close erases them
 * when the file is deleted, so they leave by LRU eviction only.
 * Compaction outputs are not simulated; omap reads are not in the
 * traces.  Capacity: PriorityCache's kv
 * and kv_onode commitments (rs_osd_budget_set_capacity), split evenly over
 * the shards as ShardedCache::SetCapacity does.
 *
 * Memtables.  Each write adds rocksdb_kv_bytes_per_write (its onode,
 * extent, freelist and statfs updates) to the active memtable of one of
 * rocksdb_write_cfs column families (by object hash); a write smaller than
 * bluestore_prefer_deferred_size is deferred: its data goes through the WAL
 * and a memtable too, in a family of its own with rocksdb_deferred_cf (v16+
 * bluestore_rocksdb_cfs gives the deferred prefix "L" its own column
 * family), else in the object's.  A memtable grows in arena blocks of
 * write_buffer_size / 8 (RocksDB's default arena_block_size, SanitizeOptions
 * in column_family.cc), 4 KiB aligned; when it reaches write_buffer_size it
 * becomes immutable; once min_write_buffer_number_to_merge immutable
 * memtables wait (1 up to v17, 6 with PR 51821's Reef options) they are
 * flushed together at the flush bandwidth, one flush at a time per family,
 * and their blocks are freed when the flush ends.  A family holding
 * max_write_buffer_number memtables stalls writes in RocksDB; here the
 * active one keeps growing (counted: memtable_stall_count).  Every switch
 * starts a new WAL file; a WAL file stays alive while a memtable holding
 * data written to it is unflushed.  When the alive WAL passes
 * max_total_wal_size, every family whose oldest unflushed data is in the
 * oldest alive WAL file is switched and flushed (RocksDB's
 * DBImpl::SwitchWAL; its flush_reason is "Write Buffer Manager" in the
 * RocksDB of Pacific, kWalFull since), and none again until that file is
 * released: with deferred data in its own family, that family fills and
 * flushes by itself while the others are flushed together by the WAL
 * limit (counted: memtable_wal_full_flushes_count).
 *
 * PG log.  Each write appends an entry (osd_pg_log_entry_bytes) to its PG's
 * log; a PG keeps clamp(osd_target_pg_log_entries_per_osd / osd_num_pgs (all
 * the OSD's PGs, OSD::get_target_pg_log_entries; 0 = osd_pg_num),
 * osd_min_pg_log_entries, osd_max_pg_log_entries) entries (v15+, PR 32683),
 * an entry trimmed from the log becomes a dup entry (osd_pg_log_dup_bytes)
 * and a PG keeps osd_pg_log_dups_tracked of them; with
 * osd_pg_log_dups_trim_broken the dups are never trimmed (tracker 53729:
 * fixed in 16.2.11 and 17.2.4).  Model choice: one FIFO for all PGs of
 * osd_pg_num × the per-PG length — the trace's writes hash evenly over its
 * osd_pg_num PGs, so it holds what their logs hold together; the other
 * pools' PGs (osd_num_pgs − osd_pg_num) only shorten the per-PG length.
 * With osd_pg_projected_log the primary's projected log is a second
 * IndexedLog (PrimaryLogPG.h, log_operation: projected_log.trim(last
 * version) every op), so every write's entry is also a dup there at once,
 * osd_pg_log_dups_tracked kept per PG: the 16.2.15 OSD's osd_pglog held
 * exactly entries × 520 B + dups × 104 B with ~6000 dups per written PG.
 *
 * Client writes in flight (osd_write_data_held).  A write's data arrives
 * with its message: the messenger reads the data segment into one buffer
 * (src/msg/async/ProtocolV2.cc, read_message_data; mempool buffer_anon)
 * that the MOSDOp, and then BlueStore's transaction, hold until the write
 * commits.  One allocation of the write's size from the op's start to its
 * completion; reads are not counted (a miss's buffer becomes the cached
 * buffer, a hit's reply shares it).  The client's iodepth × the write size
 * is then what is held; the 16.2.15 OSD measured here held 4.07 MiB of
 * buffer_anon with 64 ops of 64 KiB in flight (docs/validation.md).
 *
 * Memory: 32 bytes per cached block (+ the index), 8 per PG log entry or
 * dup held, a memtable's block addresses.
 */
#include "osd_budget.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/hash.h"
#include "../../sim/base/idmap.h"
#include "../../sim/base/mem.h"
#include "../../sim/base/mod.h"
#include "../../sim/base/vec.h"
#include "daemon.h"

#define NONE UINT32_MAX
#define MAX_CFS 65 /* rocksdb_write_cfs (at most 64) + the deferred family */

const rs_param rs_osd_budget_params[] = { RS_OSD_BUDGET_PARAMS, { .key = NULL } };

typedef struct memtable {
    rs_osd_budget *b;
    struct memtable *prev, *next; /* every live memtable, for destroy */
    struct memtable *batch;       /* the next of the memtables flushed together */
    rs_addr *blocks;
    uint32_t nblocks, cap;
    uint64_t bytes;
    uint64_t log_off; /* where the WAL file current at its first write starts */
    uint64_t writes;  /* writes whose keys it holds (not the deferred family) */
    uint32_t cf;
} memtable;

typedef struct cf {
    memtable *active;
    memtable *pending;       /* immutable, waiting for min_write_buffer_number_to_merge */
    uint32_t npending;
    uint64_t pending_bytes;
    uint32_t immutables;     /* pending and being flushed */
    uint64_t flush_free_ns; /* its flush thread is busy until then */
} cf;

typedef struct ring {
    rs_addr *a;
    uint64_t head, n, cap; /* oldest at head */
} ring;

struct rs_osd_budget {
    rs_engine *eng;
    rs_alloc *alloc;
    /* block caches */
    const rs_cache_ops *ops;
    rs_cache cache[2]; /* [0] kv, [1] kv_onode (when separate) */
    int ncaches;
    uint32_t nshards, bits;
    uint64_t capacity[2], charged[2];
    uint64_t *bkey;    /* block id -> key (cache << 62 | block number; SST blocks: | 1 << 61) */
    rs_addr *baddr;
    uint64_t *bbytes;  /* its charge */
    uint8_t *bcache;
    uint32_t nblk, capblk, free_head;
    uint32_t *bnext;   /* free list */
    rs_idmap idx;
    uint64_t block_bytes, onodes_per_block;
    uint32_t cur_thread;
    uint64_t kv_hits, kv_misses, kv_evictions;
    rs_cache_hits block_hits; /* onode-key block lookups, block_bytes each */
    /* SSTs written by flushes: their index and filter blocks (see above) */
    double sst_keys_per_write, sst_bytes_per_write;
    uint64_t index_entry_bytes, bloom_bits;
    uint64_t ssts, sst_blocks_bytes;
    /* memtables */
    cf cfs[MAX_CFS];
    memtable *live;             /* newest first; so log_off falls along it (it only grows) */
    memtable *live_oldest;      /* its last: the oldest alive WAL file's */
    uint32_t ncfs, nmeta, max_buffers, merge, flush_thread;
    int deferred_cf;            /* deferred data in family nmeta of its own */
    uint64_t wbs, arena, per_write, deferred_max, max_wal, flush_bw;
    uint64_t memtable_bytes, memtable_alloc_bytes, memtable_peak_bytes, flushes, stalls;
    uint64_t wal_bytes, log_off; /* WAL written; the current WAL file's start */
    uint64_t wal_flush_log;      /* the oldest WAL a WAL-full flush is releasing */
    int wal_flush_pending;
    uint64_t wal_full_flushes;
    /* pg log */
    ring log, dups, pdups;      /* pdups: the projected log's (osd_pg_projected_log) */
    uint64_t log_cap, dups_cap;
    int dups_unbounded;         /* tracker 53729: dups never trimmed */
    int projected;              /* osd_pg_projected_log */
    uint64_t entry_bytes, dup_bytes;
    uint64_t dups_peak;
    /* client writes' data in flight: token = slot + 1 */
    int hold_writes;
    rs_addr *haddr;
    uint64_t *hbytes;
    uint32_t *hnext;
    uint32_t nheld, capheld, hfree;
    uint64_t held_bytes, held_peak_bytes;
};

/* ---- block caches ---- */

static uint64_t bkey_of(const void *ctx, uint32_t id)
{
    return ((const rs_osd_budget *)ctx)->bkey[id];
}

static void on_block_evicted(void *ctx, rs_oid id, int what)
{
    rs_osd_budget *b = ctx;
    (void)what;
    int c = b->bcache[id];
    b->alloc->ops->free(b->alloc->state, b->baddr[id], b->bbytes[id], b->cur_thread,
                        b->eng->now_ns);
    b->charged[c] -= b->bbytes[id];
    rs_idmap_delete(&b->idx, rs_idmap_probe(&b->idx, b->bkey[id], rs_hash64(b->bkey[id]), bkey_of, b));
    b->bnext[id] = b->free_head;
    b->free_head = id;
    b->kv_evictions++;
}

static uint32_t shard_of(const rs_osd_budget *b, uint64_t h)
{
    return b->bits ? (uint32_t)(h >> (64 - b->bits)) : 0;
}

/* Grow the n parallel arrays *arrs[i] (elements of elem[i] bytes, cap of
 * each) to twice cap (first_cap from none), as one: the new capacity, or 0
 * when out of memory or past the ids NONE leaves.  An array grown before
 * another failed keeps its room; only the returned capacity is used. */
static uint32_t grow_parallel(void *const arrs[], const size_t elem[], int n, uint32_t cap,
                              uint32_t first_cap)
{
    size_t want = rs_vec_grown_cap(cap, (size_t)cap + 1, first_cap);
    if (!want || want >= NONE)
        return 0;
    for (int i = 0; i < n; i++) {
        size_t c = cap;
        if (rs_vec_reserve(arrs[i], &c, want, elem[i], first_cap))
            return 0;
    }
    return (uint32_t)want;
}

static int grow_blocks(rs_osd_budget *b, rs_err *err)
{
    void *const arrs[] = { &b->bkey, &b->baddr, &b->bcache, &b->bnext, &b->bbytes };
    const size_t elem[] = { sizeof *b->bkey, sizeof *b->baddr, sizeof *b->bcache, sizeof *b->bnext,
                            sizeof *b->bbytes };
    uint32_t cap = grow_parallel(arrs, elem, 5, b->capblk, 4096);
    if (!cap)
        return rs_fail(err, RS_ENOMEM, "out of memory for more than %u block-cache entries", b->capblk);
    b->capblk = cap;
    return 0;
}

static int cache_insert(rs_osd_budget *b, int c, uint64_t key, uint64_t h, uint64_t bytes,
                        uint32_t thread, rs_err *err);

int rs_osd_budget_onode_read(rs_osd_budget *b, uint64_t object, uint32_t thread, rs_err *err)
{
    int c = b->ncaches - 1; /* the onode family's cache */
    uint64_t key = (uint64_t)c << 62 | object / b->onodes_per_block;
    uint64_t h = rs_hash64(key);
    uint64_t slot = rs_idmap_probe(&b->idx, key, h, bkey_of, b);
    uint32_t id = rs_idmap_id(&b->idx, slot);
    const rs_cache_ops *ops = b->ops;
    rs_cache_count(&b->block_hits, id != NONE, b->block_bytes);
    if (id != NONE) {
        b->kv_hits++;
        ops->touch(b->cache[c].state, id);
        return 0;
    }
    b->kv_misses++;
    return cache_insert(b, c, key, h, b->block_bytes, thread, err);
}

/* Insert a new entry of key (hash h, absent) charging bytes into cache c,
 * at low priority, and evict its shard to capacity (LRUCacheShard::Insert). */
static int cache_insert(rs_osd_budget *b, int c, uint64_t key, uint64_t h, uint64_t bytes,
                        uint32_t thread, rs_err *err)
{
    const rs_cache_ops *ops = b->ops;
    uint32_t id;
    int rc;
    if ((rc = rs_idmap_reserve(&b->idx, err)))
        return rc;
    if (b->free_head != NONE) {
        id = b->free_head;
        b->free_head = b->bnext[id];
    } else {
        if (b->nblk == b->capblk && (rc = grow_blocks(b, err)))
            return rc;
        id = b->nblk++;
    }
    b->bkey[id] = key;
    b->bcache[id] = (uint8_t)c;
    b->bbytes[id] = bytes;
    b->baddr[id] = b->alloc->ops->alloc(b->alloc->state, bytes, thread, b->eng->now_ns);
    if (!b->baddr[id])
        return rs_alloc_fail_full(b->alloc, err);
    rs_idmap_put(&b->idx, rs_idmap_probe(&b->idx, key, h, bkey_of, b), key, h, id);
    uint32_t s = shard_of(b, h);
    if ((rc = ops->insert_at(b->cache[c].state, id, bytes, s, RS_CACHE_LEVEL_ALL, err)))
        return rc;
    b->charged[c] += bytes;
    b->cur_thread = thread;
    ops->trim_to(b->cache[c].state, s, b->capacity[c] / b->nshards, on_block_evicted, b);
    return 0;
}

void rs_osd_budget_set_capacity(rs_osd_budget *b, uint64_t kv_bytes, uint64_t kv_onode_bytes,
                                uint32_t thread)
{
    b->capacity[0] = kv_bytes;
    b->capacity[1] = kv_onode_bytes;
    b->cur_thread = thread;
    for (int c = 0; c < b->ncaches; c++)
        for (uint32_t s = 0; s < b->nshards; s++)
            b->ops->trim_to(b->cache[c].state, s, b->capacity[c] / b->nshards, on_block_evicted, b);
}

void rs_osd_budget_kv_usage(const rs_osd_budget *b, uint64_t *r_kv, uint64_t *r_kv_onode)
{
    *r_kv = b->charged[0];
    *r_kv_onode = b->ncaches > 1 ? b->charged[1] : 0;
}

/* ---- memtables ---- */

static void memtable_free(rs_osd_budget *b, memtable *m, uint32_t thread)
{
    for (uint32_t i = 0; i < m->nblocks; i++)
        b->alloc->ops->free(b->alloc->state, m->blocks[i], b->arena, thread, b->eng->now_ns);
    b->memtable_alloc_bytes -= (uint64_t)m->nblocks * b->arena;
    b->memtable_bytes -= m->bytes;
    if (m->prev)
        m->prev->next = m->next;
    else
        b->live = m->next;
    if (m->next)
        m->next->prev = m->prev;
    else
        b->live_oldest = m->prev;
    free(m->blocks);
    free(m);
}

/* A full Bloom filter's bytes for keys keys (RocksDB 6.8.1
 * table/block_based/filter_policy.cc, LegacyBloomBitsBuilder: keys × bits
 * rounded up to an odd number of 64-byte cache lines, + 5 bytes). */
uint64_t rs_osd_budget_bloom_bytes(uint64_t keys, uint64_t bits_per_key)
{
    if (!bits_per_key)
        return 0;
    uint64_t lines = (keys * bits_per_key + 511) / 512;
    if (keys && lines % 2 == 0)
        lines++;
    return lines * 64 + 5;
}

/* The SST one flush writes from memtables holding writes writes: RocksDB
 * opens it at once (BuildTable's check, TableCache::FindTable with
 * prefetch_index_and_filter_in_cache), which reads its index and filter
 * blocks into the block cache; nothing erases them when the file goes. */
static int sst_written(rs_osd_budget *b, uint64_t writes, rs_err *err)
{
    if (!writes || b->sst_keys_per_write <= 0)
        return 0;
    uint64_t keys = (uint64_t)((double)writes * b->sst_keys_per_write + 0.5);
    uint64_t data = (uint64_t)((double)writes * b->sst_bytes_per_write + 0.5);
    uint64_t blocks = (data + b->block_bytes - 1) / b->block_bytes;
    uint64_t part[2] = { blocks * b->index_entry_bytes, rs_osd_budget_bloom_bytes(keys, b->bloom_bits) };
    b->ssts++;
    for (int i = 0; i < 2; i++) {
        if (!part[i])
            continue;
        uint64_t key = (uint64_t)1 << 61 | ((b->ssts * 2 + (uint64_t)i) & (((uint64_t)1 << 61) - 1));
        int rc = cache_insert(b, 0, key, rs_hash64(key), part[i], b->flush_thread, err);
        if (rc)
            return rc;
        b->sst_blocks_bytes += part[i];
    }
    return 0;
}

static void on_flushed(void *ctx, uint64_t now_ns)
{
    memtable *m = ctx;
    rs_osd_budget *b = m->b;
    uint64_t writes = 0;
    (void)now_ns;
    for (const memtable *x = m; x; x = x->batch)
        writes += x->writes;
    rs_err err;
    if (sst_written(b, writes, &err))
        rs_engine_abort(b->eng, &err);
    while (m) {
        memtable *next = m->batch;
        b->cfs[m->cf].immutables--;
        b->flushes++;
        memtable_free(b, m, b->flush_thread);
        m = next;
    }
}

/* Flush c's pending immutable memtables together (one flush job). */
static int flush_pending(rs_osd_budget *b, uint32_t c, rs_err *err)
{
    cf *f = &b->cfs[c];
    if (!f->pending)
        return 0;
    uint64_t now = b->eng->now_ns;
    uint64_t start = f->flush_free_ns > now ? f->flush_free_ns : now;
    uint64_t dur = (uint64_t)((double)f->pending_bytes * 1e9 / (double)b->flush_bw);
    memtable *batch = f->pending;
    f->pending = NULL;
    f->npending = 0;
    f->pending_bytes = 0;
    f->flush_free_ns = start + dur;
    return rs_engine_at(b->eng, f->flush_free_ns, on_flushed, batch, err);
}

/* The active memtable of c becomes immutable, if the family has room for
 * one more; it is flushed with the others once
 * min_write_buffer_number_to_merge of them wait, or at once when forced
 * (max_total_wal_size: RocksDB's WAL-full flush takes every immutable). */
static int switch_memtable(rs_osd_budget *b, uint32_t c, int force, rs_err *err)
{
    cf *f = &b->cfs[c];
    memtable *m = f->active;
    if (!m)
        return 0;
    if (f->immutables + 1 >= b->max_buffers) {
        b->stalls++;
        return 0;
    }
    f->active = NULL;
    f->immutables++;
    b->log_off = b->wal_bytes; /* SwitchMemtable starts a new WAL file */
    m->batch = f->pending;
    f->pending = m;
    f->npending++;
    f->pending_bytes += m->bytes;
    if (force || f->npending >= b->merge)
        return flush_pending(b, c, err);
    return 0;
}

/* RocksDB's WAL-full flush (DBImpl::SwitchWAL, called from PreprocessWrite
 * when the alive WAL files pass max_total_wal_size): a WAL file is alive
 * while a memtable holding data written to it is not yet flushed; every
 * family whose oldest unflushed data is in the oldest alive WAL is switched
 * and flushed, and no further WAL-full flush starts until that WAL is
 * released (its getting_flushed mark). */
static __attribute__((noinline)) int wal_full(rs_osd_budget *b, uint64_t oldest, rs_err *err)
{
    uint64_t cf_oldest[MAX_CFS];
    /* each family's oldest only now, on the rare path (every write checks) */
    for (uint32_t i = 0; i < b->ncfs; i++)
        cf_oldest[i] = UINT64_MAX;
    for (const memtable *m = b->live; m; m = m->next)
        if (m->log_off < cf_oldest[m->cf])
            cf_oldest[m->cf] = m->log_off;
    b->wal_flush_pending = 1;
    b->wal_flush_log = oldest;
    b->wal_full_flushes++;
    for (uint32_t i = 0; i < b->ncfs; i++) {
        int rc;
        if (cf_oldest[i] == oldest && b->cfs[i].active &&
            (rc = switch_memtable(b, i, 1, err)))
            return rc;
    }
    return 0;
}

/* Every write's check inline, the flush (wal_full) out of line, so the
 * check saves no registers and sets up no frame. */
static inline int wal_check(rs_osd_budget *b, rs_err *err)
{
    if (!b->max_wal || !b->live)
        return 0;
    uint64_t oldest = b->live_oldest->log_off;
    if (b->wal_flush_pending && b->wal_flush_log == oldest)
        return 0; /* its flushes are under way */
    b->wal_flush_pending = 0;
    if (b->wal_bytes - oldest <= b->max_wal)
        return 0;
    return wal_full(b, oldest, err);
}

/* Forced inline into rs_osd_budget_write, its only caller (every write):
 * out of line its call and saved registers cost more than its common path. */
static inline __attribute__((always_inline)) int memtable_add(rs_osd_budget *b, uint32_t c,
                                                              uint64_t bytes, uint32_t writes,
                                                              uint32_t thread, rs_err *err)
{
    cf *f = &b->cfs[c];
    if (!f->active) {
        if (!(f->active = calloc(1, sizeof *f->active)))
            return rs_fail(err, RS_ENOMEM, "out of memory for a memtable");
        f->active->b = b;
        f->active->cf = c;
        f->active->log_off = b->log_off;
        f->active->next = b->live;
        assert(!b->live || b->live->log_off <= f->active->log_off);
        if (b->live)
            b->live->prev = f->active;
        else
            b->live_oldest = f->active;
        b->live = f->active;
    }
    memtable *m = f->active;
    m->bytes += bytes;
    m->writes += writes;
    b->memtable_bytes += bytes;
    b->wal_bytes += bytes;
    while ((uint64_t)m->nblocks * b->arena < m->bytes) {
        if (m->nblocks == m->cap) {
            uint32_t cap = m->cap ? m->cap * 2 : 16;
            rs_addr *n = realloc(m->blocks, (size_t)cap * sizeof *n);
            if (!n)
                return rs_fail(err, RS_ENOMEM, "out of memory for a memtable's blocks");
            m->blocks = n;
            m->cap = cap;
        }
        rs_addr a = b->alloc->ops->alloc(b->alloc->state, b->arena, thread, b->eng->now_ns);
        if (!a)
            return rs_alloc_fail_full(b->alloc, err);
        m->blocks[m->nblocks++] = a;
        b->memtable_alloc_bytes += b->arena;
    }
    if (b->memtable_alloc_bytes > b->memtable_peak_bytes)
        b->memtable_peak_bytes = b->memtable_alloc_bytes;
    int rc = 0;
    if (m->bytes >= b->wbs)
        rc = switch_memtable(b, c, 0, err);
    return rc ? rc : wal_check(b, err);
}

/* ---- pg log ---- */

/* A ring's capacity is a power of two (1024 doubling), so a position is
 * masked, not divided; it grows in place on huge pages (rs_mem_realloc), the
 * wrapped part [0, head) moved after the old end so the order is kept. */
static __attribute__((noinline)) int ring_grow(ring *r, rs_err *err)
{
    uint64_t cap = r->cap ? r->cap * 2 : 1024;
    rs_addr *n = rs_mem_realloc(r->a, (size_t)cap * sizeof *n);
    if (!n)
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu pg log entries",
                       (unsigned long long)cap);
    if (r->head)
        memcpy(n + r->cap, n, (size_t)r->head * sizeof *n);
    r->a = n;
    r->cap = cap;
    return 0;
}

/* Up to three a write (log, dups, projected dups): inline, the rare growth
 * out of line, so the common push saves no registers. */
static inline int ring_push(ring *r, rs_addr a, rs_err *err)
{
    int rc;
    if (r->n == r->cap && (rc = ring_grow(r, err)))
        return rc;
    r->a[(r->head + r->n) & (r->cap - 1)] = a;
    r->n++;
    return 0;
}

static rs_addr ring_pop(ring *r)
{
    rs_addr a = r->a[r->head];
    r->head = (r->head + 1) & (r->cap - 1);
    r->n--;
    return a;
}

static int pg_log_append(rs_osd_budget *b, uint32_t thread, rs_err *err)
{
    const rs_alloc_ops *ao = b->alloc->ops;
    uint64_t now = b->eng->now_ns;
    rs_addr a = ao->alloc(b->alloc->state, b->entry_bytes, thread, now);
    int rc;
    if (!a)
        return rs_alloc_fail_full(b->alloc, err);
    if ((rc = ring_push(&b->log, a, err)))
        return rc;
    /* the projected log's copy of the entry is trimmed at once (log_operation
     * trims it to the op's version), so it is a dup from now on; this log is
     * trimmed every op, so its dups stay bounded even when the log's are not */
    if (b->projected && b->dups_cap) {
        rs_addr d = ao->alloc(b->alloc->state, b->dup_bytes, thread, now);
        if (!d)
            return rs_alloc_fail_full(b->alloc, err);
        if ((rc = ring_push(&b->pdups, d, err)))
            return rc;
        while (b->pdups.n > b->dups_cap)
            ao->free(b->alloc->state, ring_pop(&b->pdups), b->dup_bytes, thread, now);
    }
    while (b->log.n > b->log_cap) {
        ao->free(b->alloc->state, ring_pop(&b->log), b->entry_bytes, thread, now);
        if (!b->dups_cap && !b->dups_unbounded)
            continue;
        rs_addr d = ao->alloc(b->alloc->state, b->dup_bytes, thread, now);
        if (!d)
            return rs_alloc_fail_full(b->alloc, err);
        if ((rc = ring_push(&b->dups, d, err)))
            return rc;
        if (b->dups.n > b->dups_peak)
            b->dups_peak = b->dups.n;
        while (!b->dups_unbounded && b->dups.n > b->dups_cap)
            ao->free(b->alloc->state, ring_pop(&b->dups), b->dup_bytes, thread, now);
    }
    return 0;
}

int rs_osd_budget_write(rs_osd_budget *b, uint64_t object, uint32_t pg, uint64_t data_bytes,
                        uint32_t thread, rs_err *err)
{
    (void)pg; /* one FIFO for every PG (see above) */
    /* deferred: smaller than bluestore_prefer_deferred_size (options.cc "Writes
     * smaller than this size will be written to the journal") */
    uint64_t deferred = data_bytes < b->deferred_max ? data_bytes : 0;
    uint64_t meta = b->per_write;
    uint32_t c = b->nmeta > 1 ? (uint32_t)rs_mod64(rs_hash64(object ^ 0x9e3779b97f4a7c15ull), b->nmeta) : 0;
    int rc;
    if (deferred && b->deferred_cf) {
        if ((rc = memtable_add(b, b->nmeta, deferred, 0, thread, err)))
            return rc;
    } else {
        meta += deferred;
    }
    if (meta && (rc = memtable_add(b, c, meta, 1, thread, err)))
        return rc;
    return pg_log_append(b, thread, err);
}

/* ---- client writes in flight ---- */

int rs_osd_budget_write_data(rs_osd_budget *b, uint64_t data_bytes, uint32_t thread,
                             uint64_t *r_token, rs_err *err)
{
    *r_token = 0;
    if (!b->hold_writes || !data_bytes)
        return 0;
    uint32_t id;
    if (b->hfree != NONE) {
        id = b->hfree;
        b->hfree = b->hnext[id];
    } else {
        if (b->nheld == b->capheld) {
            void *const arrs[] = { &b->haddr, &b->hbytes, &b->hnext };
            const size_t elem[] = { sizeof *b->haddr, sizeof *b->hbytes, sizeof *b->hnext };
            uint32_t cap = grow_parallel(arrs, elem, 3, b->capheld, 256);
            if (!cap)
                return rs_fail(err, RS_ENOMEM, "out of memory for more than %u writes in flight",
                               b->capheld);
            b->capheld = cap;
        }
        id = b->nheld++;
    }
    rs_addr a = b->alloc->ops->alloc(b->alloc->state, data_bytes, thread, b->eng->now_ns);
    if (!a) {
        b->hnext[id] = b->hfree;
        b->hfree = id;
        return rs_alloc_fail_full(b->alloc, err);
    }
    b->haddr[id] = a;
    b->hbytes[id] = data_bytes;
    b->held_bytes += data_bytes;
    if (b->held_bytes > b->held_peak_bytes)
        b->held_peak_bytes = b->held_bytes;
    *r_token = (uint64_t)id + 1;
    return 0;
}

void rs_osd_budget_write_done(rs_osd_budget *b, uint64_t token, uint32_t thread)
{
    if (!token)
        return;
    uint32_t id = (uint32_t)(token - 1);
    b->alloc->ops->free(b->alloc->state, b->haddr[id], b->hbytes[id], thread, b->eng->now_ns);
    b->held_bytes -= b->hbytes[id];
    b->hnext[id] = b->hfree;
    b->hfree = id;
}

uint64_t rs_osd_budget_bytes(const rs_osd_budget *b)
{
    return b->charged[0] + b->charged[1] + b->memtable_alloc_bytes + b->log.n * b->entry_bytes +
           (b->dups.n + b->pdups.n) * b->dup_bytes + b->held_bytes;
}

/* ---- lifecycle ---- */

static int changed_size(const rs_config *cfg, const char *key)
{
    uint64_t d = 0;
    rs_parse_size(rs_config_param(cfg, key)->def, &d);
    return rs_config_size(cfg, key) != d;
}

static int changed_int(const rs_config *cfg, const char *key)
{
    int64_t d = 0;
    rs_parse_int(rs_config_param(cfg, key)->def, &d);
    return rs_config_int(cfg, key) != d;
}

int rs_osd_budget_create(const rs_config *cfg, rs_engine *eng, rs_alloc *alloc,
                         const rs_cache_ops *kv_ops, int kv_onode, uint32_t pg_count,
                         uint64_t write_buffer_bytes, uint32_t max_buffers,
                         uint64_t flush_bytes_per_s, uint32_t flush_thread,
                         rs_osd_budget **r_budget, rs_err *err)
{
    rs_osd_budget *b = calloc(1, sizeof *b);
    int rc;
    if (!b)
        return rs_fail(err, RS_ENOMEM, "out of memory for the osd's budget");
    b->eng = eng;
    b->alloc = alloc;
    b->ops = kv_ops;
    b->free_head = NONE;
    b->ncaches = kv_onode ? 2 : 1;
    b->bits = (uint32_t)rs_config_int(cfg, "rocksdb_cache_shard_bits");
    b->nshards = 1u << b->bits;
    b->block_bytes = rs_config_size(cfg, "rocksdb_block_size");
    uint64_t onode = rs_config_size(cfg, "rocksdb_onode_bytes");
    b->onodes_per_block = b->block_bytes / onode ? b->block_bytes / onode : 1;
    b->capacity[0] = b->capacity[1] = UINT64_MAX;
    b->per_write = rs_config_size(cfg, "rocksdb_kv_bytes_per_write");
    b->deferred_max = rs_config_size(cfg, "bluestore_prefer_deferred_size");
    b->nmeta = (uint32_t)rs_config_int(cfg, "rocksdb_write_cfs");
    b->deferred_cf = rs_config_bool(cfg, "rocksdb_deferred_cf");
    b->ncfs = b->nmeta + (b->deferred_cf ? 1 : 0);
    b->max_wal = rs_config_size(cfg, "max_total_wal_size");
    b->wbs = write_buffer_bytes;
    b->max_buffers = max_buffers ? max_buffers : 1;
    b->merge = (uint32_t)rs_config_int(cfg, "min_write_buffer_number_to_merge");
    b->arena = (write_buffer_bytes / 8 + 4095) / 4096 * 4096;
    if (!b->arena)
        b->arena = 4096;
    b->flush_bw = flush_bytes_per_s ? flush_bytes_per_s : 1;
    b->flush_thread = flush_thread;
    uint64_t pgs = pg_count ? pg_count : 1;
    uint64_t lo = (uint64_t)rs_config_int(cfg, "osd_min_pg_log_entries");
    uint64_t hi = (uint64_t)rs_config_int(cfg, "osd_max_pg_log_entries");
    uint64_t target = (uint64_t)rs_config_int(cfg, "osd_target_pg_log_entries_per_osd");
    uint64_t all_pgs = (uint64_t)rs_config_int(cfg, "osd_num_pgs");
    if (!all_pgs)
        all_pgs = pgs;
    if (all_pgs < pgs) {
        rc = rs_fail(err, RS_EINPUT, "bad value %llu for key 'osd_num_pgs': fewer than the "
                     "osd_pg_num (%llu) PGs the writes go to", (unsigned long long)all_pgs,
                     (unsigned long long)pgs);
        goto fail;
    }
    uint64_t per_pg = target ? target / all_pgs : hi;
    if (per_pg > hi)
        per_pg = hi;
    if (per_pg < lo)
        per_pg = lo;
    b->log_cap = per_pg * pgs;
    b->dups_cap = (uint64_t)rs_config_int(cfg, "osd_pg_log_dups_tracked") * pgs;
    b->dups_unbounded = rs_config_bool(cfg, "osd_pg_log_dups_trim_broken");
    b->projected = rs_config_bool(cfg, "osd_pg_projected_log");
    b->entry_bytes = rs_config_size(cfg, "osd_pg_log_entry_bytes");
    b->dup_bytes = rs_config_size(cfg, "osd_pg_log_dup_bytes");
    b->hold_writes = rs_config_bool(cfg, "osd_write_data_held");
    b->sst_keys_per_write = rs_config_double(cfg, "rocksdb_sst_keys_per_write");
    b->sst_bytes_per_write = rs_config_double(cfg, "rocksdb_sst_bytes_per_write");
    b->index_entry_bytes = rs_config_size(cfg, "rocksdb_index_entry_bytes");
    b->bloom_bits = (uint64_t)rs_config_int(cfg, "rocksdb_bloom_bits_per_key");
    if (b->sst_keys_per_write <= 0 && (b->sst_bytes_per_write > 0 ||
                                       changed_size(cfg, "rocksdb_index_entry_bytes") ||
                                       changed_int(cfg, "rocksdb_bloom_bits_per_key"))) {
        rc = rs_fail(err, RS_EINPUT, "keys 'rocksdb_sst_bytes_per_write', 'rocksdb_index_entry_bytes' "
                     "and 'rocksdb_bloom_bits_per_key' have no effect: no flushed SST is "
                     "simulated (rocksdb_sst_keys_per_write 0)");
        goto fail;
    }
    b->hfree = NONE;
    if (!b->deferred_cf && !b->deferred_max) {
        rc = rs_fail(err, RS_EINPUT, "key 'rocksdb_deferred_cf' = false has no effect: no write is "
                     "deferred (bluestore_prefer_deferred_size 0)");
        goto fail;
    }
    if (b->projected && !b->dups_cap) {
        rc = rs_fail(err, RS_EINPUT, "key 'osd_pg_projected_log' = true has no effect: no dup is "
                     "kept (osd_pg_log_dups_tracked 0)");
        goto fail;
    }
    if (lo > hi) {
        rc = rs_fail(err, RS_EINPUT, "bad values for keys 'osd_min_pg_log_entries' (%llu) and "
                     "'osd_max_pg_log_entries' (%llu): the floor is above the cap",
                     (unsigned long long)lo, (unsigned long long)hi);
        goto fail;
    }
    if ((rc = rs_idmap_init(&b->idx, 1024, err)))
        goto fail;
    for (int c = 0; c < b->ncaches; c++) {
        if ((rc = kv_ops->create(cfg, &b->cache[c].state, err)))
            goto fail;
        b->cache[c].ops = kv_ops;
        if ((rc = kv_ops->set_shards(b->cache[c].state, b->nshards, err)))
            goto fail;
    }
    *r_budget = b;
    return 0;
fail:
    rs_osd_budget_destroy(b);
    return rc;
}

void rs_osd_budget_destroy(rs_osd_budget *b)
{
    if (!b)
        return;
    for (int c = 0; c < 2; c++)
        if (b->cache[c].ops)
            b->cache[c].ops->destroy(b->cache[c].state);
    while (b->live) { /* the allocator model goes with the run: only our own memory */
        memtable *m = b->live;
        b->live = m->next;
        free(m->blocks);
        free(m);
    }
    rs_idmap_release(&b->idx);
    free(b->bkey);
    free(b->baddr);
    free(b->bcache);
    free(b->bnext);
    free(b->bbytes);
    rs_mem_free(b->log.a);
    rs_mem_free(b->dups.a);
    rs_mem_free(b->pdups.a);
    free(b->haddr);
    free(b->hbytes);
    free(b->hnext);
    free(b);
}

int rs_osd_budget_metrics(const rs_osd_budget *b, rs_result *res, rs_err *err)
{
    uint64_t lookups = b->kv_hits + b->kv_misses;
    const struct { const char *name; double v; } m[] = {
        { "kv_cache_bytes", (double)b->charged[0] },
        { "kv_onode_cache_bytes", (double)(b->ncaches > 1 ? b->charged[1] : 0) },
        { "kv_cache_hit_ratio", lookups ? (double)b->kv_hits / (double)lookups : 0 },
        { "kv_cache_evictions_count", (double)b->kv_evictions },
        { "memtable_bytes", (double)b->memtable_alloc_bytes },
        { "memtable_peak_bytes", (double)b->memtable_peak_bytes },
        { "memtable_flushes_count", (double)b->flushes },
        { "memtable_stall_count", (double)b->stalls },
        { "memtable_wal_full_flushes_count", (double)b->wal_full_flushes },
        { "sst_flushed_count", (double)b->ssts },
        { "sst_index_filter_bytes", (double)b->sst_blocks_bytes },
        { "pg_log_entries_count", (double)b->log.n },
        { "pg_log_dups_count", (double)b->dups.n },
        { "pg_log_bytes",
          (double)(b->log.n * b->entry_bytes + (b->dups.n + b->pdups.n) * b->dup_bytes) },
        { "write_data_held_bytes", (double)b->held_bytes },
        { "write_data_held_peak_bytes", (double)b->held_peak_bytes },
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof m / sizeof m[0] && !rc; i++)
        rc = rs_result_set_metric(res, m[i].name, m[i].v, err);
    if (!rc && b->projected)
        rc = rs_result_set_metric(res, "pg_log_projected_dups_count", (double)b->pdups.n, err);
    return rc ? rc : rs_daemon_hit_metrics(res, "rocksdb_", &b->block_hits, err);
}
