/*
 * jemalloc.c — a model of jemalloc 5.3.0: thread caches, arenas, bins,
 * extents and dirty-page decay.  Every allocation goes through the same
 * layers as in jemalloc, on simulated 4 KiB pages:
 *
 *   thread ─► tcache (classes <= opt.tcache_max 32 KiB): a LIFO stack per
 *   class, filled from the thread's arena in batches, flushed on overflow
 *   and by the incremental GC
 *      └► arena (threads bound round-robin on first allocation, opt.narenas 8;
 *         a thread that has only freed has no tcache and frees straight to
 *         the owning arena, as jemalloc's minimal tsd):
 *         bin (small, <= 14336 B): slabs of regions, bitmap per slab
 *         large (>= 16384 B): one extent per allocation, + 1 pad page
 *      └► page allocator (jemalloc's extent layer, per arena): free extents
 *         in a dirty set (with an LRU list) and a released ("retained")
 *         set, first fit, coalescing; never-used address space at the top,
 *         shared by all arenas (their extents interleave in one page map).
 *
 * Rules taken from the jemalloc 5.3.0 sources (docs/models.md lists each with
 * its file).  Size classes: sc.c's group rule (quantum 16, one tiny class,
 * 4 classes per doubling, small below 4 pages); a slab is the least common
 * multiple of the class and the page (sc.c slab_size); a region is the lowest
 * free bit of its slab (bitmap_sfu); a bin allocates from slabcur, then from
 * the non-full slab with the lowest (serial number, address) (edata_snad_comp,
 * arena_bin_refill_slabcur_no_fresh_slab), and a slab that becomes non-full
 * and is older than slabcur replaces it (arena_bin_lower_slab); a slab whose
 * regions are all free goes back to the page allocator.  Free extents sit in
 * per-page-size-class heaps ordered by address; an allocation takes the lowest
 * extent among the classes that fit (eset_first_fit, psz quantisation with the
 * cache-oblivious pad, dirty reuse capped at 64x the request by
 * opt.lg_extent_max_active_fit), dirty before released before new space
 * (pac_alloc_real).  Freed dirty extents of >= 16 KiB coalesce at once, smaller
 * ones only when purged (extent_record's delay_coalesce).  Serial numbers are
 * not kept: the simulated heap grows upward, so "older grow" and "lower address"
 * are the same order and (sn, address) reduces to the address.
 *
 * Thread cache (tcache.c, cache_bin.h, tcache_inlines.h): ncached_max per
 * class from tcache_ncached_max_compute (2 x slab regions, even, in [20, 200];
 * 20 for large); a miss fills ncached_max >> lg_fill_div regions (one slab
 * batch after another), a free into a full stack first flushes the oldest
 * half; every 64 KiB of allocated (and, separately, freed) usable bytes a GC
 * event visits the next class round robin and flushes 3/4 of the objects
 * that stayed below the low-water mark (adapting lg_fill_div).  Large
 * classes are cached but never filled in batches.
 *
 * Decay (decay.c, pac.c, arena.c): each arena keeps decay_t's 200-entry
 * backlog of pages dirtied per epoch (epoch = dirty_decay_ms / 200); at an
 * epoch advance the allowed dirty pages are the backlog weighted by
 * smootherstep, and the oldest dirty extents (LRU) are purged down to it.
 * Without a background thread the epoch is advanced (and purged) only when a
 * thread's ticker fires: every 1000 events that reach an arena (fills, one
 * per flushed object, arena allocations and frees; tcache hits do not tick).
 * With one, advance(now) purges every arena as virtual time passes.
 *
 * Residency ("touching" model of alloc.h): a page becomes resident when a
 * region the application got overlaps it (the whole extent, pad included,
 * for a large allocation) and stays so until the page allocator releases it
 * (decay, immediate purge, or release() = arena.<i>.purge).  An object in a
 * tcache is not allocated; its pages stay resident; a page holding only
 * cached objects is resident but not active.  Counters are kept
 * incrementally so stats() is O(1):
 *   active   = slab pages with >= 1 live region + pages of live large
 *   resident = resident pages + metadata estimate
 *   mapped   = pages of slabs and large extents + pages of dirty free extents + metadata
 * which gives requested <= allocated <= active <= resident <= mapped at every
 * step (asserted after each operation).
 *
 * Simulator cost: per page 8 bytes (owner, live-region count) and a resident bit,
 * per extent a 40-byte record (pairing-heap and LRU links), per slab a block
 * of one header word and one bit per region, per thread its stacks (~24 KiB);
 * no per-allocation table (frees are sized, and the page map finds the slab).
 * A tcache hit touches the thread's stack and the page entry only.  free()
 * never allocates except a new thread's state; it cannot fail.
 */
#include "jemalloc.h"
#include "pagebits.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/mem.h"

/* ---- size classes (jemalloc 5.3.0 include/jemalloc/internal/sc.h, src/sc.c) */

enum {
    LG_QUANTUM = 4,   /* 16-byte alignment on x86_64 */
    LG_TINY_MIN = 3,  /* SC_LG_TINY_MIN */
    LG_NGROUP = 2,    /* SC_LG_NGROUP: 4 classes per doubling */
    NGROUP = 1 << LG_NGROUP,
    LG_PAGE = 12,     /* the Debian build's page */
    PTR_BITS = 64,
    LG_BASE_MAX = PTR_BITS - 2,                 /* SC_LG_BASE_MAX */
    NTINY = LG_QUANTUM - LG_TINY_MIN,           /* SC_NTINY */
    LG_FIRST_REGULAR_BASE = LG_QUANTUM + LG_NGROUP,
    /* SC_NSIZES: tiny + pseudo-group + regular groups, the last one short */
    NSIZES = NTINY + NGROUP + NGROUP * (LG_BASE_MAX - LG_FIRST_REGULAR_BASE + 1) - 1,
    /* SC_NBINS: classes below PAGE << LG_NGROUP */
    NBINS = NTINY + NGROUP + NGROUP * (LG_PAGE + LG_NGROUP - LG_FIRST_REGULAR_BASE) - 1,
    /* SC_NPSIZES: classes that are page multiples */
    NPSIZES = NGROUP + (LG_BASE_MAX - (LG_PAGE + LG_NGROUP)) * NGROUP + NGROUP - 1,
    ESET_NBINS = NPSIZES + 1,                   /* eset.c ESET_NPSIZES */
    ESET_NWORDS = (ESET_NBINS + 63) / 64,
    ESET_LEAVES = 256,                          /* >= ESET_NBINS, power of two */
    LG_EXTENT_MAX_ACTIVE_FIT = 6,               /* opt.lg_extent_max_active_fit */
    SLAB_MAXREGS = 1 << (LG_PAGE - LG_TINY_MIN),/* SC_SLAB_MAXREGS, 512 */
    BITMAP_MAXWORDS = SLAB_MAXREGS / 64,
    LOOKUP_MAXCLASS = 1 << LG_PAGE,             /* fast size->bin table range */
};

#define PAGE_BYTES ((uint64_t)1 << LG_PAGE)
#define LG_CACHELINE 6 /* CACHELINE 64 (x86_64) */
/* The cache-oblivious prng's initial state.  jemalloc seeds each thread's
 * prng_state from its tsd address; the model uses one fixed state for all
 * threads, so a run is deterministic. */
#define PRNG_SEED UINT64_C(0x5253534d4a454d41) /* "RSSMJEMA" */
#define LARGE_MINCLASS ((uint64_t)1 << (LG_PAGE + LG_NGROUP)) /* SC_LARGE_MINCLASS */
#define LARGE_MAXCLASS (((uint64_t)1 << LG_BASE_MAX) + \
                        ((uint64_t)(NGROUP - 1) << (LG_BASE_MAX - LG_NGROUP)))

/* Metadata estimate (docs/models.md): jemalloc's stats.metadata measured right
 * after start with MALLOC_CONF=narenas:1,tcache:false on the Debian 5.3.0
 * build; sizeof(edata_t) = EDATA_ALIGNMENT = 128 (edata.h), one per extent
 * record ever needed (edata_cache never returns them); one 8-byte rtree leaf
 * element per page of heap address space (rtree.h, RTREE_LEAF_COMPACT). */
#define BASE_METADATA_BYTES 2374608u
#define EDATA_BYTES 128u
#define RTREE_BYTES_PER_PAGE 8u

static unsigned lg_ceil(uint64_t x) /* x >= 2 */
{
    return 64u - (unsigned)__builtin_clzll(x - 1);
}

unsigned rs_je_sc_count(void) { return NSIZES; }
unsigned rs_je_nbins(void) { return NBINS; }
unsigned rs_je_nlextents(void) { return NSIZES - NBINS; }

uint64_t rs_je_index2size(unsigned szind)
{
    if (szind >= NSIZES)
        return 0;
    if (szind < NTINY)
        return (uint64_t)1 << (LG_TINY_MIN + szind);
    szind -= NTINY;
    if (szind < NGROUP) /* pseudo-group: 1..NGROUP quanta */
        return (uint64_t)(szind + 1) << LG_QUANTUM;
    szind -= NGROUP;
    unsigned lg_base = LG_FIRST_REGULAR_BASE + szind / NGROUP;
    uint64_t ndelta = szind % NGROUP + 1;
    return ((uint64_t)1 << lg_base) + (ndelta << (lg_base - LG_NGROUP));
}

unsigned rs_je_size2index(uint64_t size_bytes)
{
    if (size_bytes <= ((uint64_t)1 << LG_TINY_MIN))
        return 0;
    if (size_bytes < ((uint64_t)1 << LG_QUANTUM)) /* remaining tiny classes */
        return lg_ceil(size_bytes) - LG_TINY_MIN;
    if (size_bytes <= ((uint64_t)NGROUP << LG_QUANTUM))
        return NTINY + (unsigned)((size_bytes + (1u << LG_QUANTUM) - 1) >> LG_QUANTUM) - 1;
    if (size_bytes > LARGE_MAXCLASS)
        return NSIZES;
    unsigned lg = lg_ceil(size_bytes); /* group (2^(lg-1), 2^lg] */
    unsigned lg_delta = lg - 1 - LG_NGROUP;
    unsigned ndelta = (unsigned)(((size_bytes - 1) >> lg_delta) + 1) - NGROUP;
    return NTINY + NGROUP + (lg - 1 - LG_FIRST_REGULAR_BASE) * NGROUP + ndelta - 1;
}

uint64_t rs_je_usable_size(uint64_t size_bytes)
{
    return rs_je_index2size(rs_je_size2index(size_bytes));
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int rs_je_bin_info(unsigned binind, uint64_t *r_size_bytes, uint32_t *r_nregs,
                   uint64_t *r_slab_bytes)
{
    if (binind >= NBINS)
        return RS_ENOTFOUND;
    uint64_t size = rs_je_index2size(binind);
    /* sc.c slab_size: the smallest page multiple that size divides */
    uint64_t slab = size / gcd_u64(size, PAGE_BYTES) * PAGE_BYTES;
    if (r_size_bytes)
        *r_size_bytes = size;
    if (r_nregs)
        *r_nregs = (uint32_t)(slab / size);
    if (r_slab_bytes)
        *r_slab_bytes = slab;
    return 0;
}

uint64_t rs_je_lextent_size(unsigned i)
{
    return i < NSIZES - NBINS ? rs_je_index2size(NBINS + i) : 0;
}

/* Page-size classes (sz.c sz_pind2sz / sz_psz2ind): 4, 8, 12, 16 KiB, then
 * the regular classes from 20 KiB on (all page multiples). */
static uint64_t pind2sz(unsigned pind)
{
    if (pind >= NPSIZES)
        return LARGE_MAXCLASS + PAGE_BYTES;
    if (pind < NGROUP)
        return (uint64_t)(pind + 1) << LG_PAGE;
    pind -= NGROUP;
    unsigned lg_base = LG_PAGE + LG_NGROUP + pind / NGROUP;
    uint64_t ndelta = pind % NGROUP + 1;
    return ((uint64_t)1 << lg_base) + (ndelta << (lg_base - LG_NGROUP));
}

/* Index of the smallest page-size class >= psz_bytes. */
static unsigned psz2ind(uint64_t psz_bytes)
{
    if (psz_bytes <= LARGE_MINCLASS)
        return psz_bytes <= PAGE_BYTES ? 0 : (unsigned)((psz_bytes + PAGE_BYTES - 1) >> LG_PAGE) - 1;
    if (psz_bytes > LARGE_MAXCLASS)
        return NPSIZES;
    unsigned lg = lg_ceil(psz_bytes);
    unsigned lg_delta = lg - 1 - LG_NGROUP;
    unsigned ndelta = (unsigned)(((psz_bytes - 1) >> lg_delta) + 1) - NGROUP;
    return NGROUP + (lg - 1 - (LG_PAGE + LG_NGROUP)) * NGROUP + ndelta - 1;
}

/* sz.c sz_psz_quantize_floor/ceil with sz_large_pad = one page. */
static uint64_t psz_quantize_floor(uint64_t bytes)
{
    unsigned pind = psz2ind(bytes - RS_JE_LARGE_PAD_BYTES + 1);
    if (pind == 0)
        return bytes;
    return pind2sz(pind - 1) + RS_JE_LARGE_PAD_BYTES;
}

static uint64_t psz_quantize_ceil(uint64_t bytes)
{
    uint64_t q = psz_quantize_floor(bytes);
    if (q < bytes)
        q = pind2sz(psz2ind(q - RS_JE_LARGE_PAD_BYTES + 1)) + RS_JE_LARGE_PAD_BYTES;
    return q;
}

/* ---- thread cache rule (jemalloc 5.3.0 src/tcache.c) -------------------- */

enum {
    TCACHE_MAX_BYTES = 1 << 15,   /* opt_tcache_max (measured opt/arenas.tcache_max) */
    NSLOTS_SMALL_MIN = 20,        /* opt_tcache_nslots_small_min */
    NSLOTS_SMALL_MAX = 200,       /* opt_tcache_nslots_small_max */
    NSLOTS_LARGE = 20,            /* opt_tcache_nslots_large */
    LG_NSLOTS_MUL = 1,            /* opt_lg_tcache_nslots_mul: 2 x slab regions */
    LG_FLUSH_DIV = 1,             /* opt_lg_tcache_flush_{small,large}_div */
    GC_INCR_BYTES = 65536,        /* opt_tcache_gc_incr_bytes */
    NHBINS_MAX = 64,              /* >= nhbins (41) */
    DECAY_NTICKS = 1000,          /* ARENA_DECAY_NTICKS_PER_UPDATE */
    SMOOTHSTEP_NSTEPS = 200,      /* smoothstep.h */
    SMOOTHSTEP_BFP = 24,
    THREAD_SLOTS = 4096,          /* thread ids fold modulo this */
    NARENAS_MAX = 256,            /* the slab header keeps the arena in 8 bits */
};

/* Measured on Debian 5.3.0 (stats.metadata deltas): one arena made by
 * arenas.create, one thread's tcache (dropped at thread exit). */
#define ARENA_METADATA_BYTES 129008u
/* opt.oversize_threshold (8 MiB, measured; docs/models.md) */
#define OVERSIZE_THRESHOLD_BYTES ((uint64_t)8 << 20)
#define TCACHE_METADATA_BYTES 28672u

unsigned rs_je_tcache_nhbins(void)
{
    return rs_je_size2index(TCACHE_MAX_BYTES) + 1u; /* tcache_boot: sz_size2index(tcache_maxclass) + 1 */
}

/* tcache_ncached_max_compute: small bins 2 x nregs, made even and clamped
 * to [nslots_small_min, nslots_small_max]; large bins opt_tcache_nslots_large. */
unsigned rs_je_tcache_ncached_max(unsigned szind)
{
    if (szind >= rs_je_tcache_nhbins())
        return 0;
    if (szind >= NBINS)
        return NSLOTS_LARGE;
    uint32_t nregs;
    rs_je_bin_info(szind, NULL, &nregs, NULL);
    unsigned cand = nregs << LG_NSLOTS_MUL;
    cand += cand & 1u;
    return cand <= NSLOTS_SMALL_MIN ? NSLOTS_SMALL_MIN : cand <= NSLOTS_SMALL_MAX ? cand : NSLOTS_SMALL_MAX;
}

/* ---- model state ------------------------------------------------------- */

#define NIL UINT32_MAX
#define MAX_PAGES (UINT32_MAX - 1u)
/* Simulated addresses: BASE_ADDR + page * 4096 + offset (non-zero, aligned). */
#define BASE_ADDR ((uint64_t)1 << 44)

enum ext_kind {
    EXT_UNUSED,   /* record on the free list */
    EXT_SLAB,     /* live slab of a bin */
    EXT_LARGE,    /* live large allocation (or one in a tcache) */
    EXT_DIRTY,    /* free, may hold resident pages */
    EXT_RELEASED, /* free, purged: no resident page ("retained") */
};

enum purge_mode { PURGE_DECAY, PURGE_IMMEDIATE, PURGE_NEVER };
/* pac_purge_eagerness_t */
enum eagerness { PURGE_ALWAYS, PURGE_ON_EPOCH_ADVANCE, PURGE_NO };

/* Page map entry.  Exact on every page of a live slab and on the first and
 * last page of every other extent; interior pages of other extents keep
 * stale owner/slab values that nothing reads. */
typedef struct je_page {
    uint32_t owner;    /* slab page: the slab's block; other: the extent */
    uint16_t live;     /* slab: live (application-owned) regions overlapping this page */
    uint8_t pad;       /* (residency: the resident bitmap, je_state.resw) */
    uint8_t slab;      /* k + 1 for page k of a live slab, 0 otherwise */
} je_page;

typedef struct je_ext {
    uint32_t page;      /* first page */
    uint32_t npages;
    uint32_t nresident; /* resident pages in [page, page + npages) */
    uint32_t ph_child;  /* pairing heap (bin non-full slabs or eset bin): first child */
    uint32_t ph_next;   /* next sibling; next free record when EXT_UNUSED */
    uint32_t ph_prev;   /* previous sibling, or parent for a first child */
    uint32_t block;     /* slab: its block in the word pool; large: pages the live
                         * allocation touched (its active pages), 0 in a tcache */
    uint32_t lru_prev;  /* dirty: the arena's LRU list (eset lru), oldest at head */
    uint32_t lru_next;
    uint8_t kind;       /* enum ext_kind */
    uint8_t arena;      /* owning arena */
    uint16_t offset;    /* large: the region's byte offset in the first page */
} je_ext;

/* A slab's block in the word pool: a header word, then the region bitmap
 * (1 = free), so an arena free touches the page entry and this block only. */
#define HDR_MAKE(nfree, bin, arena, ext) ((uint64_t)(nfree) | ((uint64_t)(bin) << 16) | \
                                          ((uint64_t)(arena) << 24) | ((uint64_t)(ext) << 32))
#define HDR_NFREE(h) ((uint32_t)((h) & 0xffffu))
#define HDR_BIN(h) ((unsigned)(((h) >> 16) & 0xffu))
#define HDR_ARENA(h) ((unsigned)(((h) >> 24) & 0xffu))
#define HDR_EXT(h) ((uint32_t)((h) >> 32))

typedef struct je_bin_info {
    uint32_t size_bytes;  /* region size */
    uint32_t div_magic;   /* ceil(2^32 / size_bytes): offset -> region index */
    uint16_t nregs;       /* regions per slab */
    uint8_t slab_pages;   /* pages per slab */
    uint8_t nwords;       /* bitmap words per slab (the block is one more) */
} je_bin_info;

/* A set of pages with its lowest member: a bitmap over pages and three
 * summary levels above it (a bit per non-zero word of the level below), so
 * insert and erase are O(1) and the minimum is a scan of the few top words
 * and three descents.  A bin's non-full slabs, by first page: jemalloc keeps
 * them in a pairing heap (ph.h); any structure with the same minimum makes
 * the same choices, and this one reads a few hot summary words where the
 * heap chased sibling links through slab records (half the model's time in
 * a replay).  Dense: a bit per page of the address space the bin's slabs
 * have reached, grown when the bin makes a slab (slab_new, before anything
 * changes), so a free never allocates. */
enum { PSET_LEVELS = 4 };

typedef struct je_pset {
    uint64_t *lv[PSET_LEVELS]; /* lv[0]: bit per page; lv[k]: bit per non-zero word of lv[k - 1] */
    uint32_t nwords[PSET_LEVELS];
    uint32_t count;
} je_pset;

typedef struct je_bin {
    uint32_t cur;       /* slabcur (extent), or NIL */
    uint32_t cur_block; /* its block */
    uint32_t cur_page;  /* its first page */
    je_pset nonfull;    /* first pages of the non-full slabs other than slabcur */
} je_bin;

typedef struct je_eset {
    uint32_t root[ESET_NBINS];       /* heap (by address) per page-size class */
    uint64_t nonempty[ESET_NWORDS];  /* bit per non-empty heap */
    /* min-tree over the heaps' roots, (page << 32 | extent) or UINT64_MAX,
     * leaves at ESET_LEAVES + pind: first fit over a class range in O(log) */
    uint64_t tree[2 * ESET_LEAVES];
} je_eset;

/* decay_t (decay.h) on virtual time; no deadline jitter. */
typedef struct je_decay {
    uint64_t epoch_ns;      /* start of the current epoch */
    uint64_t deadline_ns;   /* epoch + interval */
    uint64_t nunpurged;     /* pages at the last epoch advance (or the limit) */
    uint64_t npages_limit;  /* dirty pages allowed to stay after purging */
    uint32_t backlog[SMOOTHSTEP_NSTEPS]; /* pages dirtied per epoch, newest last */
} je_decay;

typedef struct je_arena {
    je_bin bins[NBINS];
    je_eset dirty;      /* ecache_dirty */
    je_eset released;   /* ecache_retained (muzzy_decay_ms is 0 in 5.3.0) */
    uint32_t lru_head;  /* oldest dirty extent (the next to purge) */
    uint32_t lru_tail;
    uint64_t dirty_pages; /* ecache_npages_get(ecache_dirty) */
    je_decay decay;
    uint32_t nthreads;  /* threads bound to it */
    uint8_t created;    /* has had a thread (metadata counted) */
} je_arena;

/* A cache bin (cache_bin_t): stack[n - 1] is the next object handed out,
 * stack[0] the oldest, the first flushed. */
typedef struct je_cbin {
    rs_addr *stack;
    uint16_t n;           /* ncached */
    uint16_t low;         /* low water since the last GC of this bin */
    uint16_t max;         /* ncached_max */
    uint8_t lg_fill_div;  /* fill ncached_max >> this */
    uint8_t refilled;     /* filled since the last GC of this bin */
} je_cbin;

/* A simulated thread: its arena, tcache, decay ticker and GC event counters. */
typedef struct je_thread {
    uint16_t arena;        /* valid once bound (full) */
    uint8_t full;          /* tsd nominal: bound to an arena, tcache in use */
    uint16_t next_gc_bin;  /* tcache_slow->next_gc_bin */
    int32_t tick_wait;     /* arena decay ticker (deterministic, every 1000 ticks) */
    int64_t gc_alloc_wait; /* bytes until the next tcache GC event (allocations) */
    int64_t gc_dalloc_wait;/* the same for deallocations */
    uint64_t cached_bytes; /* usable bytes held by its tcache */
    je_cbin bins[NHBINS_MAX];
    rs_addr slots[];       /* the stacks, back to back */
} je_thread;

typedef struct je_state {
    int purge;                       /* enum purge_mode */
    int background_thread;           /* jemalloc_background_thread */
    unsigned narenas, narenas_used;
    unsigned nhbins;                 /* cached classes: 0 (tcache off) or 41 */
    uint64_t decay_interval_ns;      /* dirty_decay_ms / 200 */
    uint64_t now_ns;                 /* time of the operation being handled */
    uint32_t h_steps[SMOOTHSTEP_NSTEPS]; /* smootherstep((i + 1) / 200) in 2^-24 */
    uint16_t ncached_max[NHBINS_MAX];
    uint32_t tcache_slots;           /* sum of ncached_max */
    uint8_t size2bin[(LOOKUP_MAXCLASS >> 3) + 1]; /* (size + 7) >> 3 -> bin */
    je_bin_info binfo[NBINS];
    je_arena *arenas;
    je_thread *threads[THREAD_SLOTS];
    uint32_t nthreads;               /* thread states (full or minimal) */
    uint32_t nfull;                  /* of which full: bound, with a tcache */

    je_page *pages;                  /* [0, top_pages) */
    uint64_t *resw;                  /* per page a bit: 1 once touched, 0 after release;
                                      * runs of it are set, cleared and counted a word at a time */
    uint64_t resw_cap;               /* words */
    uint32_t top_pages, pages_cap;
    je_ext *exts;                    /* extent records; [0, exts_len) ever used */
    uint32_t exts_len, exts_cap, exts_free, exts_nfree;
    uint64_t *words;                 /* slab block pool */
    uint32_t words_len, words_cap;
    uint32_t words_free[BITMAP_MAXWORDS + 2]; /* free lists by block size in words */

    uint64_t requested_bytes, allocated_bytes, live_count;
    uint64_t cached_bytes;           /* all tcaches */
    uint64_t resident_pages;         /* all resident pages */
    uint64_t active_pages;           /* slab pages with live > 0 + touched pages of live (not cached) large */
    uint64_t live_ext_pages;         /* pages of slabs and large extents */
    uint64_t dirty_ext_pages;        /* pages of dirty free extents */
    uint64_t dirty_resident_pages;   /* resident pages of dirty free extents */
    uint64_t released_total_pages;   /* resident -> released transitions so far */
    uint64_t prng;                   /* cache-oblivious offsets (tsd prng_state) */
    rs_je_counters ctr;              /* event counts (tests) */
} je_state;

static const rs_param je_params[] = {
    {.key = "jemalloc_purge", .type = RS_PT_STRING, .def = "decay", .choices = "decay|never|immediate",
     .doc = "when freed pages go back to the OS: decay (dirty_decay_ms, the default), "
            "never (until release(), as dirty_decay_ms=-1) or immediate (as dirty_decay_ms=0)"},
    {.key = "jemalloc_dirty_decay_ms", .type = RS_PT_INT, .def = "10000",
     .doc = "opt.dirty_decay_ms with jemalloc_purge=decay: dirty pages are purged along a "
            "smootherstep curve over this many ms of virtual time (0 = immediate, -1 = never)"},
    {.key = "jemalloc_background_thread", .type = RS_PT_BOOL, .def = "false",
     .doc = "opt.background_thread: true = decay purges as virtual time passes (advance); "
            "false = only when allocator activity ticks an arena (every 1000 arena events)"},
    {.key = "jemalloc_narenas", .type = RS_PT_INT, .def = "8",
     .doc = "opt.narenas (4 x CPUs; 8 on the 2-CPU reference machine): threads are bound "
            "to arenas round-robin on first use"},
    {.key = "jemalloc_tcache", .type = RS_PT_BOOL, .def = "true",
     .doc = "opt.tcache: per-thread caches of classes up to opt.tcache_max (32 KiB)"},
    {.key = NULL},
};
/* ---- host-array growth (only on the allocation path) ------------------- */

static int grow(void **arr, uint32_t *cap, uint64_t need, size_t elem_bytes)
{
    if (need <= *cap)
        return 0;
    if (need > UINT32_MAX)
        return -1;
    uint64_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX)
        ncap = UINT32_MAX;
    void *p = rs_mem_realloc(*arr, (size_t)ncap * elem_bytes);
    if (!p)
        return -1;
    *arr = p;
    *cap = (uint32_t)ncap;
    return 0;
}

/* Make sure one extent record, a slab block of nwords words (0: none) and
 * npages pages above the top are available, so what follows cannot fail. */
static int reserve(je_state *st, unsigned nwords, uint32_t npages)
{
    if (st->exts_nfree == 0) {
        if (grow((void **)&st->exts, &st->exts_cap, (uint64_t)st->exts_len + 1, sizeof *st->exts))
            return -1;
        uint32_t id = st->exts_len++;
        st->exts[id] = (je_ext){.kind = EXT_UNUSED, .ph_next = st->exts_free};
        st->exts_free = id;
        st->exts_nfree++;
    }
    if (nwords && st->words_free[nwords] == NIL &&
        grow((void **)&st->words, &st->words_cap, (uint64_t)st->words_len + nwords, sizeof *st->words))
        return -1;
    if ((uint64_t)st->top_pages + npages > MAX_PAGES ||
        (uint64_t)st->top_pages + npages > (RS_ALLOC_MAX_HEAP_BYTES >> LG_PAGE))
        return -1;
    if (grow((void **)&st->pages, &st->pages_cap, (uint64_t)st->top_pages + npages, sizeof *st->pages))
        return -1;
    uint64_t words = ((uint64_t)st->pages_cap + 63) / 64;
    if (words > st->resw_cap) {
        void *p = rs_mem_realloc(st->resw, (size_t)words * sizeof *st->resw);
        if (!p)
            return -1; /* pages is larger than needed: harmless */
        st->resw = p;
        st->resw_cap = words;
    }
    return 0;
}

static uint32_t ext_take(je_state *st)
{
    assert(st->exts_nfree > 0);
    uint32_t id = st->exts_free;
    st->exts_free = st->exts[id].ph_next;
    st->exts_nfree--;
    return id;
}

static void ext_put(je_state *st, uint32_t id)
{
    st->exts[id] = (je_ext){.kind = EXT_UNUSED, .ph_next = st->exts_free};
    st->exts_free = id;
    st->exts_nfree++;
}

static uint32_t words_take(je_state *st, unsigned nwords)
{
    uint32_t off = st->words_free[nwords];
    if (off != NIL) {
        st->words_free[nwords] = (uint32_t)st->words[off];
        return off;
    }
    off = st->words_len;
    st->words_len += nwords;
    assert(st->words_len <= st->words_cap);
    return off;
}

static void words_put(je_state *st, uint32_t off, unsigned nwords)
{
    st->words[off] = st->words_free[nwords];
    st->words_free[nwords] = off;
}

/* ---- pairing heap of extent records keyed by address (ph.h's role) ----- */

static uint32_t ph_meld(je_ext *e, uint32_t a, uint32_t b)
{
    if (e[b].page < e[a].page) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    e[b].ph_prev = a;
    e[b].ph_next = e[a].ph_child;
    if (e[a].ph_child != NIL)
        e[e[a].ph_child].ph_prev = b;
    e[a].ph_child = b;
    return a;
}

/* Two-pass merge of a sibling list into one heap. */
static uint32_t ph_merge_pairs(je_ext *e, uint32_t first)
{
    if (first == NIL)
        return NIL;
    uint32_t acc = NIL; /* pass 1 results, in reverse order, linked by ph_next */
    while (first != NIL) {
        uint32_t a = first, b = e[a].ph_next;
        if (b == NIL) {
            e[a].ph_prev = NIL;
            e[a].ph_next = acc;
            acc = a;
            break;
        }
        first = e[b].ph_next;
        e[a].ph_next = e[a].ph_prev = e[b].ph_next = e[b].ph_prev = NIL;
        uint32_t m = ph_meld(e, a, b);
        e[m].ph_next = acc;
        acc = m;
    }
    uint32_t root = acc, rest = e[acc].ph_next;
    e[root].ph_next = NIL;
    while (rest != NIL) {
        uint32_t nx = e[rest].ph_next;
        e[rest].ph_next = NIL;
        root = ph_meld(e, root, rest);
        rest = nx;
    }
    e[root].ph_prev = NIL;
    return root;
}

static uint32_t ph_insert(je_ext *e, uint32_t root, uint32_t n)
{
    e[n].ph_child = e[n].ph_next = e[n].ph_prev = NIL;
    return root == NIL ? n : ph_meld(e, root, n);
}

static uint32_t ph_remove(je_ext *e, uint32_t root, uint32_t n)
{
    uint32_t sub = ph_merge_pairs(e, e[n].ph_child);
    if (n == root) {
        root = sub;
    } else {
        uint32_t p = e[n].ph_prev;
        if (e[p].ph_child == n)
            e[p].ph_child = e[n].ph_next;
        else
            e[p].ph_next = e[n].ph_next;
        if (e[n].ph_next != NIL)
            e[e[n].ph_next].ph_prev = p;
        if (sub != NIL)
            root = ph_meld(e, root, sub);
    }
    e[n].ph_child = e[n].ph_next = e[n].ph_prev = NIL;
    return root;
}

/* ---- page sets (a bin's non-full slabs) -------------------------------- */

/* Cover pages [0, npages); -1 (the set unchanged in content) when out of
 * host memory. */
static int pset_reserve(je_pset *ps, uint64_t npages)
{
    uint64_t need = (npages + 63) / 64;
    for (unsigned k = 0; k < PSET_LEVELS; k++, need = (need + 63) / 64) {
        if (need <= ps->nwords[k])
            continue;
        uint64_t ncap = ps->nwords[k] ? ps->nwords[k] : 1;
        while (ncap < need)
            ncap *= 2;
        if (ncap > UINT32_MAX)
            return -1;
        uint64_t *w = rs_mem_realloc(ps->lv[k], ncap * sizeof *w);
        if (!w)
            return -1;
        memset(w + ps->nwords[k], 0, (ncap - ps->nwords[k]) * sizeof *w);
        ps->lv[k] = w;
        ps->nwords[k] = (uint32_t)ncap;
    }
    return 0;
}

static void pset_release(je_pset *ps)
{
    for (unsigned k = 0; k < PSET_LEVELS; k++)
        rs_mem_free(ps->lv[k]);
    *ps = (je_pset){0};
}

static int pset_has(const je_pset *ps, uint32_t page)
{
    return page / 64 < ps->nwords[0] && (ps->lv[0][page / 64] >> (page % 64) & 1);
}

static void pset_insert(je_pset *ps, uint32_t page)
{
    assert(!pset_has(ps, page));
    uint64_t i = page;
    for (unsigned k = 0; k < PSET_LEVELS; k++, i /= 64) {
        uint64_t *w = &ps->lv[k][i / 64], was = *w;
        *w = was | (uint64_t)1 << (i % 64);
        if (was)
            break;
    }
    ps->count++;
}

static void pset_erase(je_pset *ps, uint32_t page)
{
    assert(pset_has(ps, page));
    uint64_t i = page;
    for (unsigned k = 0; k < PSET_LEVELS; k++, i /= 64) {
        uint64_t *w = &ps->lv[k][i / 64];
        *w &= ~((uint64_t)1 << (i % 64));
        if (*w)
            break;
    }
    ps->count--;
}

/* The lowest member, or NIL. */
static uint32_t pset_min(const je_pset *ps)
{
    if (!ps->count)
        return NIL;
    const unsigned top = PSET_LEVELS - 1;
    uint64_t i = 0;
    while (!ps->lv[top][i])
        i++;
    i = i * 64 + (unsigned)__builtin_ctzll(ps->lv[top][i]);
    for (unsigned k = top; k-- > 0;)
        i = i * 64 + (unsigned)__builtin_ctzll(ps->lv[k][i]);
    return (uint32_t)i;
}

/* ---- extent sets (eset.c) --------------------------------------------- */

static unsigned eset_pind(const je_ext *x)
{
    return psz2ind(psz_quantize_floor((uint64_t)x->npages << LG_PAGE));
}

static uint64_t eset_key(const je_state *st, uint32_t root)
{
    return root == NIL ? UINT64_MAX : (uint64_t)st->exts[root].page << 32 | root;
}

/* Heap pind's root changed: refresh the bitmap and the min-tree. */
static void eset_root_changed(const je_state *st, je_eset *set, unsigned pind)
{
    uint32_t root = set->root[pind];
    if (root == NIL)
        set->nonempty[pind / 64] &= ~((uint64_t)1 << (pind % 64));
    else
        set->nonempty[pind / 64] |= (uint64_t)1 << (pind % 64);
    unsigned i = ESET_LEAVES + pind;
    set->tree[i] = eset_key(st, root);
    for (i >>= 1; i; i >>= 1) {
        uint64_t l = set->tree[2 * i], r = set->tree[2 * i + 1], m = l < r ? l : r;
        if (set->tree[i] == m)
            break;
        set->tree[i] = m;
    }
}

static void eset_insert(je_state *st, je_eset *set, uint32_t id)
{
    unsigned pind = eset_pind(&st->exts[id]);
    uint32_t old = set->root[pind];
    set->root[pind] = ph_insert(st->exts, old, id);
    if (set->root[pind] != old)
        eset_root_changed(st, set, pind);
}

static void eset_remove(je_state *st, je_eset *set, uint32_t id)
{
    unsigned pind = eset_pind(&st->exts[id]);
    uint32_t old = set->root[pind];
    set->root[pind] = ph_remove(st->exts, old, id);
    if (set->root[pind] != old)
        eset_root_changed(st, set, pind);
}

/* First non-empty heap index >= from, or ESET_NBINS. */
static unsigned eset_next(const je_eset *set, unsigned from)
{
    for (unsigned w = from / 64; w < ESET_NWORDS; w++) {
        uint64_t bits = set->nonempty[w];
        if (w == from / 64)
            bits &= ~(uint64_t)0 << (from % 64);
        if (bits)
            return w * 64 + (unsigned)__builtin_ctzll(bits);
    }
    return ESET_NBINS;
}

/* eset_first_fit: the lowest-address extent among the heaps whose class fits
 * npages, not looking at classes more than 2^lg_max_fit times the request
 * (lg_max_fit 64: no limit).  Heaps [lo, hi) qualify, hi being the first class
 * with pind2sz >> lg_max_fit > bytes; the min-tree answers in O(log). */
static uint32_t eset_fit(const je_state *st, const je_eset *set, uint32_t npages, unsigned lg_max_fit)
{
    uint64_t bytes = (uint64_t)npages << LG_PAGE;
    unsigned lo = psz2ind(psz_quantize_ceil(bytes)), hi = ESET_NBINS;
    if (lg_max_fit < 64) {
        unsigned h = psz2ind((bytes + 1) << lg_max_fit);
        hi = h < hi ? h : hi;
    }
    uint64_t best = UINT64_MAX;
    for (unsigned l = lo + ESET_LEAVES, r = hi + ESET_LEAVES; l < r; l >>= 1, r >>= 1) {
        if ((l & 1) && set->tree[l] < best)
            best = set->tree[l];
        l += l & 1;
        if ((r & 1) && set->tree[r - 1] < best)
            best = set->tree[r - 1];
    }
    uint32_t id = best == UINT64_MAX ? NIL : (uint32_t)best;
    (void)st;
    assert(id == NIL || st->exts[id].npages >= npages);
    return id;
}

/* The same by a linear scan over the heaps, as eset.c does (audit only). */
static uint32_t eset_fit_scan(const je_state *st, const je_eset *set, uint32_t npages, unsigned lg_max_fit)
{
    uint64_t bytes = (uint64_t)npages << LG_PAGE;
    uint32_t best = NIL;
    for (unsigned i = eset_next(set, psz2ind(psz_quantize_ceil(bytes))); i < ESET_NBINS;
         i = eset_next(set, i + 1)) {
        if (lg_max_fit < 64 && (pind2sz(i) >> lg_max_fit) > bytes)
            break;
        uint32_t r = set->root[i];
        if (best == NIL || st->exts[r].page < st->exts[best].page)
            best = r;
    }
    assert(best == NIL || st->exts[best].npages >= npages);
    return best;
}

/* ---- page allocator (pa_alloc / pa_dalloc over pac's ecaches) ----------- */

static void set_bounds(je_state *st, uint32_t id)
{
    const je_ext *x = &st->exts[id];
    je_page *first = &st->pages[x->page], *last = &st->pages[x->page + x->npages - 1];
    first->owner = last->owner = id;
    first->slab = last->slab = 0;
}

/* The extent owning page p (a boundary page, or any page of a slab). */
static uint32_t page_ext(const je_state *st, uint32_t p)
{
    const je_page *pg = &st->pages[p];
    return pg->slab ? HDR_EXT(st->words[pg->owner]) : pg->owner;
}

/* Resident bits of pages [p0, p1), a word at a time (pagebits.h). */
static inline int res_test(const je_state *st, uint32_t p) { return rs_pb_test(st->resw, p); }

/* Sets [p0, p1) resident; returns how many pages were not. */
static uint32_t res_set(je_state *st, uint64_t p0, uint64_t p1) { return (uint32_t)rs_pb_set(st->resw, p0, p1); }

static void res_clear(je_state *st, uint64_t p0, uint64_t p1) { rs_pb_clear(st->resw, p0, p1); }

static uint32_t count_resident(const je_state *st, uint32_t page, uint32_t npages)
{
    return (uint32_t)rs_pb_count(st->resw, page, (uint64_t)page + npages);
}

/* Put free extent id (kind DIRTY or RELEASED, final size) into its arena's
 * set; a dirty one also goes to the tail of the LRU and into the counters. */
static void set_insert(je_state *st, uint32_t id)
{
    je_ext *x = &st->exts[id];
    je_arena *a = &st->arenas[x->arena];
    if (x->kind == EXT_DIRTY) {
        x->lru_next = NIL;
        x->lru_prev = a->lru_tail;
        if (a->lru_tail != NIL)
            st->exts[a->lru_tail].lru_next = id;
        else
            a->lru_head = id;
        a->lru_tail = id;
        a->dirty_pages += x->npages;
        st->dirty_ext_pages += x->npages;
        st->dirty_resident_pages += x->nresident;
        eset_insert(st, &a->dirty, id);
    } else {
        assert(x->kind == EXT_RELEASED);
        eset_insert(st, &a->released, id);
    }
}

static void set_remove(je_state *st, uint32_t id)
{
    je_ext *x = &st->exts[id];
    je_arena *a = &st->arenas[x->arena];
    if (x->kind == EXT_DIRTY) {
        if (x->lru_prev != NIL)
            st->exts[x->lru_prev].lru_next = x->lru_next;
        else
            a->lru_head = x->lru_next;
        if (x->lru_next != NIL)
            st->exts[x->lru_next].lru_prev = x->lru_prev;
        else
            a->lru_tail = x->lru_prev;
        a->dirty_pages -= x->npages;
        st->dirty_ext_pages -= x->npages;
        st->dirty_resident_pages -= x->nresident;
        eset_remove(st, &a->dirty, id);
    } else {
        eset_remove(st, &a->released, id);
    }
}

/* Carve npages (reserve() done) for arena ai from its dirty set, then its
 * released set, then new space at the top (shared by all arenas).  The
 * record returned has kind unset; the caller sets it and the page map. */
static uint32_t pa_alloc(je_state *st, unsigned ai, uint32_t npages)
{
    je_arena *a = &st->arenas[ai];
    uint32_t id = eset_fit(st, &a->dirty, npages, LG_EXTENT_MAX_ACTIVE_FIT);
    if (id == NIL)
        id = eset_fit(st, &a->released, npages, 64);
    if (id != NIL) {
        set_remove(st, id);
        je_ext *x = &st->exts[id];
        if (x->npages > npages) { /* split: the trail stays free */
            uint32_t t = ext_take(st);
            x = &st->exts[id];
            uint32_t carved = count_resident(st, x->page, npages);
            st->exts[t] = (je_ext){
                .page = x->page + npages,
                .npages = x->npages - npages,
                .nresident = x->nresident - carved,
                .kind = x->kind,
                .arena = x->arena,
                .block = NIL,
            };
            x->npages = npages;
            x->nresident = carved;
            set_bounds(st, t);
            set_insert(st, t);
        }
    } else {
        id = ext_take(st);
        st->exts[id] = (je_ext){.page = st->top_pages, .npages = npages, .arena = (uint8_t)ai};
        /* pages and resw past top_pages were never written (top_pages only
         * grows) and rs_mem_realloc gives zeroes past a block's largest
         * size: the new pages' entries and resident bits are already 0.
         * Clearing them here faulted in 8 bytes of host memory per simulated
         * page of every fresh extent, most of which (a large extent's
         * interior) nothing reads. */
        assert(!st->pages[st->top_pages].owner && !st->pages[st->top_pages + npages - 1].owner &&
               !res_test(st, st->top_pages) && !res_test(st, st->top_pages + npages - 1));
        st->top_pages += npages;
    }
    je_ext *x = &st->exts[id];
    x->ph_child = x->ph_next = x->ph_prev = x->lru_prev = x->lru_next = NIL;
    x->block = NIL;
    st->live_ext_pages += npages;
    return id;
}

static void release_pages(je_state *st, je_ext *x)
{
    if (x->nresident == 0)
        return;
#ifndef NDEBUG
    for (uint32_t p = x->page; p < x->page + x->npages; p++)
        assert(!res_test(st, p) || st->pages[p].live == 0);
#endif
    res_clear(st, x->page, (uint64_t)x->page + x->npages);
    st->resident_pages -= x->nresident;
    st->released_total_pages += x->nresident;
    x->nresident = 0;
}

/* Merge free extent id with its free neighbours of the same kind and arena
 * (not in any set yet); returns the surviving record. */
static uint32_t coalesce(je_state *st, uint32_t id)
{
    je_ext *e = st->exts;
    uint8_t kind = e[id].kind, arena = e[id].arena;
    for (;;) {
        int merged = 0;
        if (e[id].page > 0) {
            uint32_t p = page_ext(st, e[id].page - 1);
            assert(e[p].page + e[p].npages == e[id].page);
            if (e[p].kind == kind && e[p].arena == arena) {
                set_remove(st, p);
                e[id].page = e[p].page;
                e[id].npages += e[p].npages;
                e[id].nresident += e[p].nresident;
                ext_put(st, p);
                merged = 1;
            }
        }
        uint32_t end = e[id].page + e[id].npages;
        if (end < st->top_pages) {
            uint32_t n = page_ext(st, end);
            assert(e[n].page == end);
            if (e[n].kind == kind && e[n].arena == arena) {
                set_remove(st, n);
                e[id].npages += e[n].npages;
                e[id].nresident += e[n].nresident;
                ext_put(st, n);
                merged = 1;
            }
        }
        if (!merged)
            break;
    }
    set_bounds(st, id);
    return id;
}

/* A dirty extent (in no set) is purged: its pages are released and it joins
 * the retained set, coalescing with retained neighbours. */
static void purge_extent(je_state *st, uint32_t id)
{
    je_ext *x = &st->exts[id];
    release_pages(st, x);
    x->kind = EXT_RELEASED;
    set_insert(st, coalesce(st, id));
}

/* Return a live extent to the page allocator (extent_record). */
static void pa_dalloc(je_state *st, uint32_t id)
{
    je_ext *x = &st->exts[id];
    st->live_ext_pages -= x->npages;
    if (st->purge == PURGE_IMMEDIATE) { /* decay_ms 0: arena_handle_deferred_work */
        purge_extent(st, id);
        return;
    }
    x->kind = EXT_DIRTY;
    if (((uint64_t)x->npages << LG_PAGE) >= LARGE_MINCLASS) {
        id = coalesce(st, id); /* smaller dirty extents coalesce when purged */
        /* an oversize result is purged at once unless decay is disabled
         * (extent_record, extent_may_force_decay) */
        if (((uint64_t)st->exts[id].npages << LG_PAGE) >= OVERSIZE_THRESHOLD_BYTES &&
            st->purge != PURGE_NEVER) {
            purge_extent(st, id);
            return;
        }
    } else {
        set_bounds(st, id);
    }
    set_insert(st, id);
}

/* Purge arena a's oldest dirty extents (ecache_evict: LRU order) while it
 * holds more than limit pages, at most max_pages (pac_decay_to_limit; whole
 * extents, so it may overshoot by one).  Returns the pages purged.  The
 * extents are purged one by one, without the delayed coalescing with dirty
 * neighbours that ecache_evict attempts (docs/models.md: the measured
 * decay is gradual). */
static uint64_t decay_to_limit(je_state *st, je_arena *a, uint64_t limit, uint64_t max_pages)
{
    uint64_t n = 0;
    while (n < max_pages && a->dirty_pages > limit && a->lru_head != NIL) {
        uint32_t id = a->lru_head;
        n += st->exts[id].npages;
        set_remove(st, id);
        purge_extent(st, id);
    }
    return n;
}

/* arena.<i>.purge for every arena: every dirty extent is purged. */
static void pa_purge_all(je_state *st)
{
    for (unsigned i = 0; i < st->narenas; i++)
        decay_to_limit(st, &st->arenas[i], 0, UINT64_MAX);
    assert(st->dirty_ext_pages == 0 && st->dirty_resident_pages == 0);
}

/* ---- decay (decay.c, pac.c pac_maybe_decay_purge) ----------------------- */

static void decay_init(je_state *st, je_decay *d, uint64_t now_ns)
{
    memset(d, 0, sizeof *d);
    d->epoch_ns = now_ns;
    d->deadline_ns = now_ns + st->decay_interval_ns;
}

/* Advance the epoch when its deadline has passed (decay_maybe_advance_epoch),
 * then purge per eagerness.  Returns 1 when the epoch advanced. */
static int arena_decay(je_state *st, je_arena *a, uint64_t now_ns, int eagerness)
{
    je_decay *d = &a->decay;
    int advanced = 0;
    if (now_ns < d->epoch_ns) { /* time went backwards (a teardown at t = 0) */
        d->epoch_ns = now_ns;
        d->deadline_ns = now_ns + st->decay_interval_ns;
    }
    if (now_ns >= d->deadline_ns) {
        uint64_t nadv = (now_ns - d->epoch_ns) / st->decay_interval_ns;
        d->epoch_ns += nadv * st->decay_interval_ns;
        d->deadline_ns = d->epoch_ns + st->decay_interval_ns;
        if (nadv >= SMOOTHSTEP_NSTEPS) {
            memset(d->backlog, 0, (SMOOTHSTEP_NSTEPS - 1) * sizeof *d->backlog);
        } else {
            memmove(d->backlog, d->backlog + nadv, (SMOOTHSTEP_NSTEPS - nadv) * sizeof *d->backlog);
            memset(d->backlog + SMOOTHSTEP_NSTEPS - nadv, 0, (nadv - 1) * sizeof *d->backlog);
        }
        uint64_t cur = a->dirty_pages;
        d->backlog[SMOOTHSTEP_NSTEPS - 1] = (uint32_t)(cur > d->nunpurged ? cur - d->nunpurged : 0);
        uint64_t sum = 0;
        for (unsigned i = 0; i < SMOOTHSTEP_NSTEPS; i++)
            sum += (uint64_t)d->backlog[i] * st->h_steps[i];
        d->npages_limit = sum >> SMOOTHSTEP_BFP;
        d->nunpurged = d->npages_limit > cur ? d->npages_limit : cur;
        st->ctr.ndecay_epochs++;
        advanced = 1;
    }
    if (eagerness == PURGE_ALWAYS || (advanced && eagerness == PURGE_ON_EPOCH_ADVANCE)) {
        /* pages dirtied since the last epoch advance are not purged before
         * the next one (decay.h); jemalloc's background thread gets this by
         * sleeping until an epoch has passed, here it is kept explicitly */
        uint64_t cur = a->dirty_pages;
        uint64_t limit = d->npages_limit + (cur > d->nunpurged ? cur - d->nunpurged : 0);
        if (cur > limit)
            st->ctr.npurged_pages += decay_to_limit(st, a, limit, cur - limit);
    }
    return advanced;
}

/* arena_decay_ticks: the thread's ticker fires every DECAY_NTICKS events
 * that reach an arena; the arena then decays (arena_decay_impl: without a
 * background thread it purges on epoch advance, with one it only advances
 * the epoch and leaves purging to the background thread). */
static void arena_ticks(je_state *st, je_thread *t, unsigned ai, unsigned nticks)
{
    t->tick_wait -= (int32_t)nticks;
    if (t->tick_wait > 0)
        return;
    t->tick_wait = DECAY_NTICKS;
    if (st->purge != PURGE_DECAY)
        return;
    st->ctr.nticks_fired++;
    arena_decay(st, &st->arenas[ai], st->now_ns,
                st->background_thread ? PURGE_NO : PURGE_ON_EPOCH_ADVANCE);
}
/* ---- bins (arena.c) ---------------------------------------------------- */

static uint32_t slab_new(je_state *st, unsigned ai, unsigned binind)
{
    const je_bin_info *bi = &st->binfo[binind];
    if (reserve(st, bi->nwords + 1u, bi->slab_pages) ||
        (bi->nregs > 1 && pset_reserve(&st->arenas[ai].bins[binind].nonfull,
                                       (uint64_t)st->top_pages + bi->slab_pages)))
        return NIL;
    uint32_t id = pa_alloc(st, ai, bi->slab_pages);
    je_ext *x = &st->exts[id];
    x->kind = EXT_SLAB;
    x->block = words_take(st, bi->nwords + 1u);
    uint64_t *w = &st->words[x->block];
    w[0] = HDR_MAKE(bi->nregs, binind, ai, id);
    for (unsigned i = 0; i < bi->nwords; i++) {
        unsigned bits = bi->nregs - i * 64u;
        w[1 + i] = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    }
    for (uint32_t k = 0; k < x->npages; k++)
        st->pages[x->page + k] = (je_page){
            .owner = x->block,
            .live = 0,
            .slab = (uint8_t)(k + 1),
        };
    return id;
}

/* Callers pass the slab's block and first page, which they already hold,
 * so the slab's extent record is not read. */
static void bin_set_cur(je_bin *bin, uint32_t id, uint32_t block, uint32_t page)
{
    bin->cur = id;
    bin->cur_block = block;
    bin->cur_page = page;
}

/* slabcur is missing or full: the oldest non-full slab, else a new one
 * (arena_bin_refill_slabcur_no_fresh_slab, then _with_fresh_slab).  A full
 * slabcur is dropped: auto arenas do not track full slabs.  -1 when the
 * simulator is out of memory. */
static __attribute__((noinline)) int bin_refill(je_state *st, unsigned ai, je_bin *bin, unsigned binind)
{
    uint32_t page = pset_min(&bin->nonfull);
    if (page != NIL) {
        pset_erase(&bin->nonfull, page);
        uint32_t block = st->pages[page].owner;
        bin_set_cur(bin, HDR_EXT(st->words[block]), block, page);
        /* the next refill's slab: its page entry now, its bitmap at the
         * fill that needs it (tcache_fill) */
        uint32_t next = pset_min(&bin->nonfull);
        if (next != NIL)
            __builtin_prefetch(&st->pages[next]);
        return 0;
    }
    uint32_t s = slab_new(st, ai, binind);
    if (s == NIL)
        return -1;
    bin_set_cur(bin, s, st->exts[s].block, st->exts[s].page);
    return 0;
}

/* One region of bin binind of arena ai (arena_slab_reg_alloc: the lowest
 * free region of slabcur).  The region is not touched: the application's
 * first write makes its pages resident (touch_small).  0 when out of memory. */
static inline __attribute__((always_inline)) rs_addr bin_take(je_state *st, unsigned ai, unsigned binind)
{
    je_bin *bin = &st->arenas[ai].bins[binind];
    const je_bin_info *bi = &st->binfo[binind];
    if ((bin->cur == NIL || HDR_NFREE(st->words[bin->cur_block]) == 0) &&
        bin_refill(st, ai, bin, binind))
        return 0;
    uint64_t *w = &st->words[bin->cur_block];
    w[0]--; /* nfree */
    unsigned i = 1;
    while (w[i] == 0)
        i++;
    uint32_t reg = (i - 1) * 64u + (unsigned)__builtin_ctzll(w[i]);
    w[i] &= w[i] - 1;
    return BASE_ADDR + ((uint64_t)bin->cur_page << LG_PAGE) + reg * bi->size_bytes;
}

/* The application got the small region at addr: count its pages live,
 * make them resident. */
static inline __attribute__((always_inline)) void touch_small(je_state *st, rs_addr addr, uint32_t size_bytes)
{
    uint64_t rel = addr - BASE_ADDR;
    uint32_t p = (uint32_t)(rel >> LG_PAGE), last = (uint32_t)((rel + size_bytes - 1) >> LG_PAGE);
    do {
        je_page *pg = &st->pages[p];
        if (pg->live++ == 0) {
            st->active_pages++;
            if (__builtin_expect(rs_pb_set1(st->resw, p), 0)) {
                st->resident_pages++;
                st->exts[HDR_EXT(st->words[pg->owner])].nresident++;
            }
        }
    } while (++p <= last);
}

/* The application freed the small region at addr (into a tcache or not). */
static inline __attribute__((always_inline)) void untouch_small(je_state *st, rs_addr addr, uint32_t size_bytes)
{
    uint64_t rel = addr - BASE_ADDR;
    uint32_t p = (uint32_t)(rel >> LG_PAGE), last = (uint32_t)((rel + size_bytes - 1) >> LG_PAGE);
    do {
        assert(st->pages[p].live > 0);
        if (--st->pages[p].live == 0)
            st->active_pages--;
    } while (++p <= last);
}

static void bin_slab_nonfull(je_state *st, uint64_t *w, uint32_t page0);
static void bin_slab_empty(je_state *st, uint64_t *w, uint32_t block);

/* Return the region at addr (a slab page) to its slab (arena_dalloc_bin). */
static inline __attribute__((always_inline)) void bin_put(je_state *st, rs_addr addr)
{
    uint64_t rel = addr - BASE_ADDR;
    uint32_t p = (uint32_t)(rel >> LG_PAGE);
    const je_page *pg = &st->pages[p];
    assert(pg->slab);
    uint32_t block = pg->owner, page0 = p - (pg->slab - 1u);
    uint32_t off = (uint32_t)(rel - ((uint64_t)page0 << LG_PAGE));
    uint64_t *w = &st->words[block];
    const je_bin_info *bi = &st->binfo[HDR_BIN(w[0])];
    uint32_t reg = (uint32_t)(((uint64_t)off * bi->div_magic) >> 32);
    assert((uint64_t)reg * bi->size_bytes == off && reg < bi->nregs);
    assert(!(w[1 + reg / 64] & ((uint64_t)1 << (reg % 64))));
    w[1 + reg / 64] |= (uint64_t)1 << (reg % 64);
    uint32_t nfree = HDR_NFREE(++w[0]);
    if (nfree == bi->nregs)
        bin_slab_empty(st, w, block);
    else if (nfree == 1)
        bin_slab_nonfull(st, w, page0);
}

/* A full slab got a free region (arena_dalloc_bin_locked_handle_newly_nonempty
 * -> arena_bin_lower_slab): keep slabcur the oldest/lowest non-full slab. */
static __attribute__((noinline)) void bin_slab_nonfull(je_state *st, uint64_t *w, uint32_t page0)
{
    je_bin *bin = &st->arenas[HDR_ARENA(w[0])].bins[HDR_BIN(w[0])];
    uint32_t s = HDR_EXT(w[0]);
    if (s == bin->cur)
        return;
    if (bin->cur != NIL && bin->cur_page > page0) {
        if (HDR_NFREE(st->words[bin->cur_block]) > 0)
            pset_insert(&bin->nonfull, bin->cur_page);
        bin_set_cur(bin, s, (uint32_t)(w - st->words), page0);
    } else {
        pset_insert(&bin->nonfull, page0);
    }
}

/* Every region is free (arena_dalloc_bin_locked_handle_newly_empty): detach
 * the slab from its bin and return it to the page allocator.  A 1-region
 * slab was full until now, so no heap holds it. */
static __attribute__((noinline)) void bin_slab_empty(je_state *st, uint64_t *w, uint32_t block)
{
    unsigned binind = HDR_BIN(w[0]);
    const je_bin_info *bi = &st->binfo[binind];
    je_bin *bin = &st->arenas[HDR_ARENA(w[0])].bins[binind];
    uint32_t s = HDR_EXT(w[0]);
    if (bin->cur == s)
        bin->cur = NIL;
    else if (bi->nregs > 1)
        pset_erase(&bin->nonfull, st->exts[s].page);
    words_put(st, block, bi->nwords + 1u);
    pa_dalloc(st, s);
}

/* large_malloc: one extent of usize + the pad page (sz_large_pad).  The
 * region starts at a random cache line of the first page
 * (arena_cache_oblivious_randomize: lg_range = LG_PAGE - lg(CACHELINE) = 6
 * bits of the thread's 64-bit LCG prng, prng_lg_range_u64, times 64 bytes).
 * Nothing is touched here: the application's writes make pages resident
 * (touch_large), so the usable tail past the request and the pad page stay
 * untouched unless the region's offset runs the request into them. */
static rs_addr large_alloc(je_state *st, unsigned ai, uint64_t usize)
{
    uint64_t npages64 = (usize + RS_JE_LARGE_PAD_BYTES) >> LG_PAGE;
    if (npages64 > MAX_PAGES || reserve(st, 0, (uint32_t)npages64))
        return 0;
    uint32_t npages = (uint32_t)npages64;
    uint32_t id = pa_alloc(st, ai, npages);
    je_ext *x = &st->exts[id];
    x->kind = EXT_LARGE;
    x->block = 0;
    set_bounds(st, id);
    /* prng.h's 64-bit LCG (Knuth's MMIX multiplier and increment); the top
     * LG_PAGE - LG_CACHELINE bits pick the cache line. */
    st->prng = st->prng * 6364136223846793005ull + 1442695040888963407ull;
    x->offset = (uint16_t)((st->prng >> (64 - (LG_PAGE - LG_CACHELINE))) << LG_CACHELINE);
    return BASE_ADDR + ((uint64_t)x->page << LG_PAGE) + x->offset;
}

/* Pages a large region at addr holding size_bytes requested bytes overlaps. */
static inline uint32_t large_touched_pages(rs_addr addr, uint64_t size_bytes)
{
    return (uint32_t)((((addr - BASE_ADDR) & (PAGE_BYTES - 1)) + size_bytes - 1) >> LG_PAGE) + 1u;
}

/* The large extent starting at addr. */
static uint32_t large_ext(const je_state *st, rs_addr addr)
{
    uint32_t id = st->pages[(addr - BASE_ADDR) >> LG_PAGE].owner;
    assert(st->exts[id].kind == EXT_LARGE &&
           addr - BASE_ADDR == ((uint64_t)st->exts[id].page << LG_PAGE) + st->exts[id].offset);
    return id;
}

/* The application got the large region at addr for size_bytes and writes
 * them: the pages the request overlaps become resident and active (a cached
 * region handed out again may cover more pages than last time). */
static void touch_large(je_state *st, rs_addr addr, uint64_t size_bytes)
{
    uint32_t id = large_ext(st, addr);
    je_ext *x = &st->exts[id];
    uint32_t n = large_touched_pages(addr, size_bytes);
    assert(x->block == 0 && n <= x->npages);
    if (x->nresident < x->npages) {
        uint32_t fresh = res_set(st, x->page, (uint64_t)x->page + n);
        st->resident_pages += fresh;
        x->nresident += fresh;
    }
    x->block = n;
    st->active_pages += n;
}

/* The arena owning the region at addr. */
static unsigned addr_arena(const je_state *st, rs_addr addr)
{
    const je_page *pg = &st->pages[(addr - BASE_ADDR) >> LG_PAGE];
    return pg->slab ? HDR_ARENA(st->words[pg->owner]) : st->exts[pg->owner].arena;
}

/* An arena-level free of the region at addr of class szind (arena_dalloc_small,
 * large_dalloc), ticking the thread's decay ticker when there is a thread. */
static void arena_dalloc(je_state *st, je_thread *t, rs_addr addr, unsigned szind)
{
    unsigned ai = addr_arena(st, addr);
    if (szind < NBINS)
        bin_put(st, addr);
    else
        pa_dalloc(st, large_ext(st, addr));
    if (t)
        arena_ticks(st, t, ai, 1);
}

/* ---- thread caches (tcache.c, cache_bin.h) ------------------------------ */

/* Flush the oldest n - rem objects of bin szind back to their arenas
 * (tcache_bin_flush_small/large: the bottom of the stack, one tick each). */
static void tcache_flush(je_state *st, je_thread *t, unsigned szind, unsigned rem)
{
    je_cbin *cb = &t->bins[szind];
    assert(rem <= cb->n);
    unsigned nflush = cb->n - rem;
    if (!nflush)
        return;
    uint64_t usize = rs_je_index2size(szind);
    /* the regions are scattered over many slabs: fetch each one's page entry
     * 8 regions ahead and its slab block 4 ahead, so the misses overlap */
    for (unsigned i = nflush; i-- > 0;) {
        if (i >= 8)
            __builtin_prefetch(&st->pages[(cb->stack[i - 8] - BASE_ADDR) >> LG_PAGE]);
        if (i >= 4) {
            const je_page *pg = &st->pages[(cb->stack[i - 4] - BASE_ADDR) >> LG_PAGE];
            if (pg->slab)
                __builtin_prefetch(&st->words[pg->owner], 1);
        }
        arena_dalloc(st, t, cb->stack[i], szind);
    }
    memmove(cb->stack, cb->stack + nflush, rem * sizeof *cb->stack);
    cb->n = (uint16_t)rem;
    if (cb->n < cb->low)
        cb->low = cb->n;
    t->cached_bytes -= nflush * usize;
    st->cached_bytes -= nflush * usize;
    st->ctr.nflushes++;
    st->ctr.nflushed += nflush;
}

/* tcache_event: incremental GC of one bin per event, round robin: flush 3/4
 * of the objects below the low-water mark and halve the next fill, or, if
 * the bin was refilled and never idle, double the fill. */
static __attribute__((noinline)) void tcache_gc(je_state *st, je_thread *t)
{
    unsigned szind = t->next_gc_bin;
    je_cbin *cb = &t->bins[szind];
    st->ctr.ngc_events++;
    if (cb->low > 0) {
        unsigned nflush = cb->low - (cb->low >> 2);
        tcache_flush(st, t, szind, cb->n - nflush);
        if (szind < NBINS && (cb->max >> (cb->lg_fill_div + 1)) >= 1)
            cb->lg_fill_div++;
    } else if (szind < NBINS && cb->refilled) {
        if (cb->lg_fill_div > 1)
            cb->lg_fill_div--;
        cb->refilled = 0;
    }
    cb->low = cb->n;
    if (++t->next_gc_bin == st->nhbins)
        t->next_gc_bin = 0;
}

/* tcache_alloc_small_hard: fill max >> lg_fill_div regions from the
 * thread's arena bin (one tick), the first region on top. */
static __attribute__((noinline)) int tcache_fill(je_state *st, je_thread *t, unsigned binind)
{
    je_cbin *cb = &t->bins[binind];
    unsigned nfill = cb->max >> cb->lg_fill_div, filled = 0;
    if (nfill == 0)
        nfill = 1;
    rs_addr *top = cb->stack + nfill; /* region k goes to stack[nfill - 1 - k] */
    const je_bin *bin = &st->arenas[t->arena].bins[binind];
    if (bin->cur != NIL && HDR_NFREE(st->words[bin->cur_block]) < nfill) {
        /* slabcur runs out in this fill: fetch the next slab's bitmap while
         * it drains (bin_refill prefetched its page entry) */
        uint32_t next = pset_min(&bin->nonfull);
        if (next != NIL)
            __builtin_prefetch(&st->words[st->pages[next].owner], 1);
    }
    while (filled < nfill) {
        rs_addr a = bin_take(st, t->arena, binind);
        if (!a)
            break;
        *--top = a;
        filled++;
    }
    if (filled < nfill) /* out of host memory: keep what was filled */
        memmove(cb->stack, top, filled * sizeof *cb->stack);
    cb->n = (uint16_t)filled;
    cb->refilled = 1;
    uint64_t bytes = filled * (uint64_t)st->binfo[binind].size_bytes;
    t->cached_bytes += bytes;
    st->cached_bytes += bytes;
    st->ctr.nfills++;
    arena_ticks(st, t, t->arena, 1);
    return filled ? 0 : -1;
}

/* The minimal -> full transition (tsd_state_nominal, on the thread's first
 * allocation): bound to the arena with the fewest threads, lowest index
 * first (arena_choose_hard), and its tcache set up. */
static __attribute__((noinline)) void thread_bind(je_state *st, je_thread *t)
{
    unsigned best = 0;
    for (unsigned i = 1; i < st->narenas; i++)
        if (st->arenas[i].nthreads < st->arenas[best].nthreads)
            best = i;
    je_arena *a = &st->arenas[best];
    if (!a->created) {
        a->created = 1;
        st->narenas_used++;
        decay_init(st, &a->decay, st->now_ns);
    }
    a->nthreads++;
    t->arena = (uint16_t)best;
    t->full = 1;
    st->nfull++;
}

/* The thread's state, made on first use.  A thread whose first call is a
 * free stays minimal (jemalloc's free_default uses tsd_fetch_min: no arena
 * binding, no tcache, its frees go straight to the owning arena) until it
 * allocates; full asks for the transition at once. */
static __attribute__((noinline)) je_thread *thread_new(je_state *st, uint32_t slot, int full)
{
    je_thread *t = calloc(1, sizeof *t + (size_t)st->tcache_slots * sizeof(rs_addr));
    if (!t)
        return NULL;
    t->tick_wait = DECAY_NTICKS;
    t->gc_alloc_wait = t->gc_dalloc_wait = GC_INCR_BYTES;
    rs_addr *s = t->slots;
    for (unsigned b = 0; b < st->nhbins; b++) {
        t->bins[b] = (je_cbin){.stack = s, .max = st->ncached_max[b], .lg_fill_div = 1};
        s += st->ncached_max[b];
    }
    st->threads[slot] = t;
    st->nthreads++;
    if (full)
        thread_bind(st, t);
    return t;
}

static inline __attribute__((always_inline)) je_thread *thread_get(je_state *st, uint32_t thread,
                                                                   int full)
{
    uint32_t slot = thread % THREAD_SLOTS;
    je_thread *t = st->threads[slot];
    if (__builtin_expect(t == NULL, 0))
        return thread_new(st, slot, full);
    if (__builtin_expect(full && !t->full, 0))
        thread_bind(st, t);
    return t;
}
/* ---- the ops ----------------------------------------------------------- */

static uint64_t metadata_bytes(const je_state *st)
{
    uint64_t extra_arenas = st->narenas_used > 1 ? st->narenas_used - 1u : 0;
    return (uint64_t)BASE_METADATA_BYTES + (uint64_t)EDATA_BYTES * st->exts_len +
           (uint64_t)RTREE_BYTES_PER_PAGE * st->top_pages + ARENA_METADATA_BYTES * extra_arenas +
           (st->nhbins ? (uint64_t)TCACHE_METADATA_BYTES * st->nfull : 0);
}

/* The stats ordering of alloc.h (rs_alloc_stats_ordered): requested <=
 * allocated and requested <= active <= resident <= mapped, on the page
 * counters (metadata adds to both resident and mapped, so it cannot break
 * it).  Objects in tcaches are not allocated, and a page holding only such
 * objects is resident, not active.  allocated <= active does not hold: a
 * live large region's usable tail past the request is allocated but never
 * written, so neither active nor resident (each live allocation's requested
 * bytes lie in its active pages, hence requested <= active). */
static int stats_ordered(const je_state *st)
{
    return st->requested_bytes <= st->allocated_bytes &&
           st->requested_bytes <= st->active_pages * PAGE_BYTES &&
           st->active_pages <= st->resident_pages &&
           st->resident_pages <= st->live_ext_pages + st->dirty_ext_pages;
}

static void je_stats(const void *state, rs_alloc_stats *r)
{
    const je_state *st = state;
    uint64_t meta = metadata_bytes(st);
    *r = (rs_alloc_stats){
        .requested_bytes = st->requested_bytes,
        .allocated_bytes = st->allocated_bytes,
        .active_bytes = st->active_pages * PAGE_BYTES,
        .resident_bytes = st->resident_pages * PAGE_BYTES + meta,
        .mapped_bytes = (st->live_ext_pages + st->dirty_ext_pages) * PAGE_BYTES + meta,
        .metadata_bytes = meta,
        .cached_bytes = st->cached_bytes,
        .thread_cached_bytes = st->cached_bytes,
        .dirty_bytes = st->dirty_resident_pages * PAGE_BYTES,
        .released_bytes = st->released_total_pages * PAGE_BYTES,
        .live_count = st->live_count,
        /* stats.mapped + stats.retained: every page ever carved, + metadata */
        .heap_bytes = (uint64_t)st->top_pages * PAGE_BYTES + meta,
        .unmapped_bytes = ((uint64_t)st->top_pages - st->live_ext_pages - st->dirty_ext_pages) *
                          PAGE_BYTES,
    };
}

static int param_int(const rs_config *cfg, unsigned i, int64_t *r_v)
{
    const char *raw = cfg ? rs_config_raw(cfg, je_params[i].key) : NULL;
    if (cfg && raw) {
        *r_v = rs_config_int(cfg, je_params[i].key);
        return 0;
    }
    *r_v = strtoll(je_params[i].def, NULL, 10);
    return 0;
}

static int param_bool(const rs_config *cfg, unsigned i)
{
    const char *raw = cfg ? rs_config_raw(cfg, je_params[i].key) : NULL;
    if (cfg && raw)
        return rs_config_bool(cfg, je_params[i].key);
    return strcmp(je_params[i].def, "true") == 0;
}

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    const char *purge_raw = cfg ? rs_config_string(cfg, je_params[0].key) : "";
    int purge = rs_param_choice(&je_params[0], *purge_raw ? purge_raw : je_params[0].def);
    int64_t decay_ms, narenas;
    param_int(cfg, 1, &decay_ms);
    param_int(cfg, 3, &narenas);
    int mode;
    enum { CHOICE_DECAY, CHOICE_NEVER, CHOICE_IMMEDIATE }; /* jemalloc_purge's, in order */
    switch (purge) {
    case CHOICE_DECAY: mode = decay_ms > 0 ? PURGE_DECAY : decay_ms == 0 ? PURGE_IMMEDIATE : PURGE_NEVER; break;
    case CHOICE_NEVER: mode = PURGE_NEVER; break;
    case CHOICE_IMMEDIATE: mode = PURGE_IMMEDIATE; break;
    default:
        return rs_fail(err, RS_EINPUT, "bad value '%s' for key 'jemalloc_purge'", purge_raw);
    }
    if (decay_ms < -1 || decay_ms > (int64_t)1000 * 1000 * 1000 * 1000)
        return rs_fail(err, RS_EINPUT,
                       "invalid value '%lld' for 'jemalloc_dirty_decay_ms' (expected -1 .. 10^12)",
                       (long long)decay_ms);
    if (narenas < 1 || narenas > NARENAS_MAX)
        return rs_fail(err, RS_EINPUT, "invalid value '%lld' for 'jemalloc_narenas' (expected 1 .. %d)",
                       (long long)narenas, NARENAS_MAX);

    je_state *st = calloc(1, sizeof *st);
    je_arena *arenas = calloc((size_t)narenas, sizeof *arenas);
    if (!st || !arenas) {
        free(st);
        free(arenas);
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator jemalloc");
    }
    st->purge = mode;
    st->prng = PRNG_SEED;
    st->background_thread = param_bool(cfg, 2);
    st->narenas = (unsigned)narenas;
    st->arenas = arenas;
    st->decay_interval_ns = decay_ms > 0 ? (uint64_t)decay_ms * 1000000u / SMOOTHSTEP_NSTEPS : 1;
    if (st->decay_interval_ns == 0)
        st->decay_interval_ns = 1;
    /* smootherstep(x) = 6x^5 - 15x^4 + 10x^3 at x = (i + 1) / 200, truncated
     * to 24 fractional bits (smoothstep.sh smoother 200 24) */
    for (unsigned i = 0; i < SMOOTHSTEP_NSTEPS; i++) {
        uint64_t s = i + 1u, n = SMOOTHSTEP_NSTEPS;
        uint64_t num = 6 * s * s * s * s * s - 15 * n * s * s * s * s + 10 * n * n * s * s * s;
        st->h_steps[i] = (uint32_t)((num << SMOOTHSTEP_BFP) / (n * n * n * n * n));
    }
    st->nhbins = param_bool(cfg, 4) ? rs_je_tcache_nhbins() : 0;
    assert(st->nhbins <= NHBINS_MAX);
    for (unsigned b = 0; b < st->nhbins; b++) {
        st->ncached_max[b] = (uint16_t)rs_je_tcache_ncached_max(b);
        st->tcache_slots += st->ncached_max[b];
    }
    st->exts_free = NIL;
    for (unsigned i = 0; i < BITMAP_MAXWORDS + 2; i++)
        st->words_free[i] = NIL;
    for (unsigned b = 0; b < NBINS; b++) {
        uint64_t size, slab;
        uint32_t nregs;
        rs_je_bin_info(b, &size, &nregs, &slab);
        st->binfo[b] = (je_bin_info){
            .size_bytes = (uint32_t)size,
            .div_magic = (uint32_t)((((uint64_t)1 << 32) + size - 1) / size),
            .nregs = (uint16_t)nregs,
            .slab_pages = (uint8_t)(slab >> LG_PAGE),
            .nwords = (uint8_t)((nregs + 63) / 64),
        };
    }
    for (unsigned ai = 0; ai < st->narenas; ai++) {
        je_arena *a = &st->arenas[ai];
        for (unsigned b = 0; b < NBINS; b++)
            a->bins[b] = (je_bin){.cur = NIL};
        for (unsigned i = 0; i < ESET_NBINS; i++)
            a->dirty.root[i] = a->released.root[i] = NIL;
        memset(a->dirty.tree, 0xff, sizeof a->dirty.tree);
        memset(a->released.tree, 0xff, sizeof a->released.tree);
        a->lru_head = a->lru_tail = NIL;
        decay_init(st, &a->decay, 0);
    }
    for (unsigned j = 0; j <= LOOKUP_MAXCLASS >> 3; j++)
        st->size2bin[j] = (uint8_t)rs_je_size2index(j ? (uint64_t)j << 3 : 1);
    *r_state = st;
    return 0;
}

static void destroy(void *state)
{
    je_state *st = state;
    if (!st)
        return;
    for (unsigned i = 0; i < THREAD_SLOTS; i++)
        free(st->threads[i]);
    for (unsigned ai = 0; st->arenas && ai < st->narenas; ai++)
        for (unsigned b = 0; b < NBINS; b++)
            pset_release(&st->arenas[ai].bins[b].nonfull);
    free(st->arenas);
    rs_mem_free(st->pages);
    rs_mem_free(st->resw);
    rs_mem_free(st->exts);
    rs_mem_free(st->words);
    free(st);
}

static inline unsigned size_class(uint64_t size_bytes, const je_state *st)
{
    return size_bytes <= LOOKUP_MAXCLASS ? st->size2bin[(size_bytes + 7) >> 3]
                                         : rs_je_size2index(size_bytes);
}

static rs_addr je_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    je_state *st = state;
    st->now_ns = now_ns;
    unsigned ind = size_class(size_bytes, st);
    if (ind >= NSIZES)
        return 0;
    je_thread *t = thread_get(st, thread, 1);
    if (!t)
        return 0;
    uint64_t usize = ind < NBINS ? st->binfo[ind].size_bytes : rs_je_index2size(ind);
    rs_addr addr;
    if (ind < st->nhbins) {
        je_cbin *cb = &t->bins[ind];
        if (__builtin_expect(cb->n == 0, 0)) {
            if (ind >= NBINS) { /* tcache_alloc_large: one object, no fill */
                if (!(addr = large_alloc(st, t->arena, usize)))
                    return 0;
                arena_ticks(st, t, t->arena, 1);
                goto got;
            }
            if (tcache_fill(st, t, ind))
                return 0;
        }
        addr = cb->stack[--cb->n];
        if (cb->n) /* the next allocation of this class will count its region's page */
            __builtin_prefetch(&st->pages[(cb->stack[cb->n - 1] - BASE_ADDR) >> LG_PAGE], 1);
        if (cb->n < cb->low)
            cb->low = cb->n;
        t->cached_bytes -= usize;
        st->cached_bytes -= usize;
    } else {
        addr = ind < NBINS ? bin_take(st, t->arena, ind) : large_alloc(st, t->arena, usize);
        if (!addr)
            return 0;
        arena_ticks(st, t, t->arena, 1);
    }
got:
    if (ind < NBINS)
        touch_small(st, addr, (uint32_t)usize);
    else
        touch_large(st, addr, size_bytes);
    st->allocated_bytes += usize;
    st->requested_bytes += size_bytes;
    st->live_count++;
    if ((t->gc_alloc_wait -= (int64_t)usize) <= 0) { /* te tcache_gc event */
        t->gc_alloc_wait = GC_INCR_BYTES;
        if (st->nhbins)
            tcache_gc(st, t);
    }
    assert(stats_ordered(st));
    return addr;
}

static void je_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    je_state *st = state;
    st->now_ns = now_ns;
    assert(addr >= BASE_ADDR && addr < BASE_ADDR + ((uint64_t)st->top_pages << LG_PAGE));
    unsigned ind = size_class(size_bytes, st);
    assert(ind < NSIZES);
    uint64_t usize = ind < NBINS ? st->binfo[ind].size_bytes : rs_je_index2size(ind);
    if (ind < NBINS) {
        assert(st->pages[(addr - BASE_ADDR) >> LG_PAGE].slab &&
               HDR_BIN(st->words[st->pages[(addr - BASE_ADDR) >> LG_PAGE].owner]) == ind);
        untouch_small(st, addr, (uint32_t)usize);
    } else {
        je_ext *x = &st->exts[large_ext(st, addr)];
        assert(((uint64_t)x->npages << LG_PAGE) == usize + RS_JE_LARGE_PAD_BYTES &&
               x->block == large_touched_pages(addr, size_bytes));
        st->active_pages -= x->block;
        x->block = 0;
    }
    st->allocated_bytes -= usize;
    st->requested_bytes -= size_bytes;
    st->live_count--;
    je_thread *t = thread_get(st, thread, 0); /* NULL only when the host is out of memory */
    if (t && t->full && ind < st->nhbins) {
        je_cbin *cb = &t->bins[ind];
        if (__builtin_expect(cb->n == cb->max, 0))
            tcache_flush(st, t, ind, cb->max >> LG_FLUSH_DIV);
        cb->stack[cb->n++] = addr;
        t->cached_bytes += usize;
        st->cached_bytes += usize;
    } else {
        arena_dalloc(st, t, addr, ind);
    }
    if (t && t->full && (t->gc_dalloc_wait -= (int64_t)usize) <= 0) { /* te tcache_gc_dalloc event */
        t->gc_dalloc_wait = GC_INCR_BYTES;
        if (st->nhbins)
            tcache_gc(st, t);
    }
    assert(stats_ordered(st));
}

/* Stage 0: the page map entry of addr (a free always updates it).  With a
 * tcache a free usually stops at the tcache stack, which is hot; without
 * one, stage 1 fetches the slab block the page entry names. */
static void je_prefetch(const void *state, rs_addr addr, int stage)
{
    const je_state *st = state;
    uint64_t p = (addr - BASE_ADDR) >> LG_PAGE;
    if (addr < BASE_ADDR || p >= st->top_pages)
        return;
    if (stage == 0)
        __builtin_prefetch(&st->pages[p], 1);
    else if (stage == 1 && !st->nhbins && st->pages[p].slab)
        __builtin_prefetch(&st->words[st->pages[p].owner], 1);
}

static uint64_t je_usable_size(const void *state, uint64_t size_bytes)
{
    (void)state;
    return rs_je_usable_size(size_bytes);
}

/* The background thread (background_thread.c): every arena decays with
 * PAC_PURGE_ALWAYS as virtual time passes.  Without one, nothing happens. */
static void je_advance(void *state, uint64_t now_ns)
{
    je_state *st = state;
    if (st->purge != PURGE_DECAY || !st->background_thread)
        return;
    for (unsigned i = 0; i < st->narenas; i++)
        if (st->arenas[i].created)
            arena_decay(st, &st->arenas[i], now_ns, PURGE_ALWAYS);
    assert(stats_ordered(st));
}

static void je_release(void *state, uint64_t now_ns)
{
    (void)now_ns;
    pa_purge_all(state);
    assert(stats_ordered(state));
}

/* Debian's libjemalloc2.  Decay runs on the wall clock, so a replay
 * switches it off on both sides. */
static const rs_alloc_real je_real = {
    .soname = "libjemalloc.so.2",
    .package = "libjemalloc2",
    .lib_tag = "libjemalloc",
    .api = RS_ALLOC_API_MALLCTL,
    .reports = RS_ALLOC_F_ALLOCATED | RS_ALLOC_F_ACTIVE | RS_ALLOC_F_MAPPED | RS_ALLOC_F_METADATA |
               RS_ALLOC_F_CACHED | RS_ALLOC_F_THREAD_CACHED | RS_ALLOC_F_UNMAPPED | RS_ALLOC_F_HEAP |
               RS_ALLOC_F_DIRTY,
    .replay_env = "MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1",
    .replay_set = "jemalloc_purge=never",
};

const rs_alloc_ops rs_alloc_jemalloc = {
    .name = "jemalloc",
    .doc = "jemalloc 5.3: size classes, per-thread tcache with fill/flush/GC, arenas, slabs "
           "with oldest-first reuse, extents with first fit, smootherstep dirty decay",
    .params = je_params,
    .create = create,
    .destroy = destroy,
    .alloc = je_alloc,
    .free = je_free,
    .usable_size = je_usable_size,
    .advance = je_advance,
    .release = je_release,
    .stats = je_stats,
    .prefetch = je_prefetch,
    .reports = RS_ALLOC_F_THREAD_CACHED | RS_ALLOC_F_HEAP | RS_ALLOC_F_UNMAPPED,
    .audit = rs_je_audit,
    .footprint_bytes = rs_je_footprint_bytes,
    .real = &je_real,
};

void rs_je_get_counters(const void *state, rs_je_counters *r)
{
    *r = ((const je_state *)state)->ctr;
}

int rs_je_thread_info(const void *state, uint32_t thread, unsigned szind, unsigned *r_arena,
                      unsigned *r_ncached, unsigned *r_lg_fill_div)
{
    const je_state *st = state;
    const je_thread *t = st->threads[thread % THREAD_SLOTS];
    if (!t || !t->full)
        return RS_ENOTFOUND;
    if (r_arena)
        *r_arena = t->arena;
    if (r_ncached)
        *r_ncached = szind < st->nhbins ? t->bins[szind].n : 0;
    if (r_lg_fill_div)
        *r_lg_fill_div = szind < st->nhbins ? t->bins[szind].lg_fill_div : 0;
    return 0;
}

int rs_je_addr_arena(const void *state, rs_addr addr)
{
    const je_state *st = state;
    if (addr < BASE_ADDR || ((addr - BASE_ADDR) >> LG_PAGE) >= st->top_pages)
        return -1;
    return (int)addr_arena(st, addr);
}
/* ---- audit and footprint (tests, benchmarks) --------------------------- */

static int heap_check(const je_state *st, uint32_t root, uint32_t *r_count, rs_err *err)
{
    /* iterative walk: children have larger keys than their parent */
    uint32_t n = 0;
    if (root == NIL) {
        *r_count = 0;
        return 0;
    }
    if (st->exts[root].ph_prev != NIL || st->exts[root].ph_next != NIL)
        return rs_fail(err, RS_EINTERNAL, "heap root %u has siblings", root);
    uint32_t cap = st->exts_len + 1, sp = 0;
    uint32_t *stack = malloc((size_t)cap * sizeof *stack);
    if (!stack)
        return rs_fail(err, RS_ENOMEM, "out of memory in audit");
    stack[sp++] = root;
    while (sp) {
        uint32_t v = stack[--sp];
        n++;
        for (uint32_t c = st->exts[v].ph_child, prev = v; c != NIL; prev = c, c = st->exts[c].ph_next) {
            if (st->exts[c].page <= st->exts[v].page || st->exts[c].ph_prev != prev || sp >= cap || n > cap) {
                free(stack);
                return rs_fail(err, RS_EINTERNAL, "heap order or links broken at extent %u", c);
            }
            stack[sp++] = c;
        }
    }
    free(stack);
    *r_count = n;
    return 0;
}

static int cmp_addr(const void *a, const void *b)
{
    rs_addr x = *(const rs_addr *)a, y = *(const rs_addr *)b;
    return x < y ? -1 : x > y;
}

static int is_cached(const rs_addr *sorted, size_t n, rs_addr a)
{
    return bsearch(&a, sorted, n, sizeof a, cmp_addr) != NULL;
}

/* The summaries say exactly which words below are non-zero, and the
 * bitmap holds count members. */
static int pset_check(const je_pset *ps, uint32_t *r_count, rs_err *err)
{
    uint64_t members = 0;
    for (uint32_t w = 0; w < ps->nwords[0]; w++)
        members += (uint64_t)__builtin_popcountll(ps->lv[0][w]);
    for (unsigned k = 1; k < PSET_LEVELS; k++)
        for (uint64_t i = 0; i < (uint64_t)ps->nwords[k] * 64; i++) {
            int below = i < ps->nwords[k - 1] && ps->lv[k - 1][i] != 0;
            if (((ps->lv[k][i / 64] >> (i % 64)) & 1) != (uint64_t)below)
                return rs_fail(err, RS_EINTERNAL, "page set: level %u bit %llu wrong", k,
                               (unsigned long long)i);
        }
    if (members != ps->count)
        return rs_fail(err, RS_EINTERNAL, "page set holds %llu pages, counts %u",
                       (unsigned long long)members, ps->count);
    *r_count = ps->count;
    return 0;
}

int rs_je_audit(const void *state, rs_err *err)
{
    const je_state *st = state;
    uint64_t resident = 0, active = 0, live_pages = 0, dirty_pages = 0, dirty_res = 0, alloc = 0;
    uint64_t nfree_sets[2] = {0}, cached_bytes = 0;
    uint64_t *nonfull_expected = calloc((size_t)st->narenas * NBINS, sizeof *nonfull_expected);
    uint64_t *arena_dirty = calloc(st->narenas, sizeof *arena_dirty);
    uint32_t prev_kind = EXT_UNUSED, prev_arena = 0;
    uint16_t *live = calloc((size_t)st->top_pages + 1, sizeof *live);
    rs_addr *cached = malloc(((size_t)st->nthreads * st->tcache_slots + 1) * sizeof *cached);
    size_t ncached = 0;
    int rc = 0;
    if (!live || !nonfull_expected || !arena_dirty || !cached) {
        free(live);
        free(nonfull_expected);
        free(arena_dirty);
        free(cached);
        return rs_fail(err, RS_ENOMEM, "out of memory in audit");
    }
#define AUDIT_FAIL(...) do { rc = rs_fail(err, RS_EINTERNAL, __VA_ARGS__); goto out; } while (0)
    uint32_t nthreads = 0, nfull = 0;
    for (unsigned i = 0; i < THREAD_SLOTS; i++) {
        const je_thread *t = st->threads[i];
        if (!t)
            continue;
        nthreads++;
        nfull += t->full;
        uint64_t tb = 0;
        if (t->full && (t->arena >= st->narenas || !st->arenas[t->arena].created))
            AUDIT_FAIL("thread slot %u: bad arena %u", i, t->arena);
        for (unsigned b = 0; b < st->nhbins; b++) {
            const je_cbin *cb = &t->bins[b];
            if (cb->n > cb->max || cb->low > cb->n || cb->max != st->ncached_max[b])
                AUDIT_FAIL("thread slot %u bin %u: n %u low %u max %u", i, b, cb->n, cb->low, cb->max);
            for (unsigned k = 0; k < cb->n; k++)
                cached[ncached++] = cb->stack[k];
            tb += (uint64_t)cb->n * rs_je_index2size(b);
        }
        if (tb != t->cached_bytes)
            AUDIT_FAIL("thread slot %u: cached %llu, counted %llu", i,
                       (unsigned long long)t->cached_bytes, (unsigned long long)tb);
        cached_bytes += tb;
    }
    if (nthreads != st->nthreads || nfull != st->nfull || cached_bytes != st->cached_bytes)
        AUDIT_FAIL("threads %u/%u, cached bytes %llu/%llu", nthreads, st->nthreads,
                   (unsigned long long)cached_bytes, (unsigned long long)st->cached_bytes);
    qsort(cached, ncached, sizeof *cached, cmp_addr);
    for (size_t i = 1; i < ncached; i++)
        if (cached[i] == cached[i - 1])
            AUDIT_FAIL("address %llx cached twice", (unsigned long long)cached[i]);
    for (uint32_t p = 0; p < st->top_pages;) {
        uint32_t id = page_ext(st, p);
        if (id >= st->exts_len)
            AUDIT_FAIL("page %u: bad owner %u", p, id);
        const je_ext *x = &st->exts[id];
        if (x->page != p || x->npages == 0 || p + x->npages > st->top_pages ||
            page_ext(st, p + x->npages - 1) != id)
            AUDIT_FAIL("page %u: extent %u boundaries wrong", p, id);
        if (x->arena >= st->narenas)
            AUDIT_FAIL("extent %u: bad arena %u", id, x->arena);
        uint32_t nres = count_resident(st, p, x->npages);
        if (nres != x->nresident)
            AUDIT_FAIL("extent %u: nresident %u, counted %u", id, x->nresident, nres);
        resident += nres;
        switch (x->kind) {
        case EXT_SLAB: {
            uint64_t hdr = st->words[x->block];
            unsigned binind = HDR_BIN(hdr);
            if (binind >= NBINS || HDR_EXT(hdr) != id || HDR_ARENA(hdr) != x->arena ||
                x->npages != st->binfo[binind].slab_pages)
                AUDIT_FAIL("slab %u: header %llx, %u pages", id, (unsigned long long)hdr, x->npages);
            const je_bin_info *bi = &st->binfo[binind];
            unsigned nfree = 0;
            for (unsigned r = 0; r < bi->nregs; r++) {
                int is_free = (st->words[x->block + 1 + r / 64] >> (r % 64)) & 1;
                nfree += (unsigned)is_free;
                uint32_t off = r * bi->size_bytes;
                rs_addr a = BASE_ADDR + ((uint64_t)p << LG_PAGE) + off;
                if (is_free && is_cached(cached, ncached, a))
                    AUDIT_FAIL("slab %u: region %u is free and in a tcache", id, r);
                if (!is_free && !is_cached(cached, ncached, a)) {
                    for (uint32_t q = p + (off >> LG_PAGE); q <= p + ((off + bi->size_bytes - 1) >> LG_PAGE); q++)
                        live[q]++;
                    alloc += bi->size_bytes;
                }
            }
            for (unsigned r = bi->nregs; r < bi->nwords * 64u; r++)
                if ((st->words[x->block + 1 + r / 64] >> (r % 64)) & 1)
                    AUDIT_FAIL("slab %u: bit %u past the last region is set", id, r);
            if (nfree != HDR_NFREE(hdr) || nfree == bi->nregs)
                AUDIT_FAIL("slab %u: nfree %u, bitmap says %u of %u", id, HDR_NFREE(hdr), nfree, bi->nregs);
            for (uint32_t q = p; q < p + x->npages; q++) {
                if (st->pages[q].owner != x->block || st->pages[q].slab != q - p + 1)
                    AUDIT_FAIL("slab %u: page %u not mapped to it", id, q);
                if (live[q] != st->pages[q].live)
                    AUDIT_FAIL("page %u: live %u, counted %u", q, st->pages[q].live, live[q]);
                if (live[q] && !res_test(st, q))
                    AUDIT_FAIL("page %u: live but not resident", q);
                active += live[q] > 0;
            }
            const je_bin *xb = &st->arenas[x->arena].bins[binind];
            int member = nfree > 0 && xb->cur != id && bi->nregs > 1;
            if (pset_has(&xb->nonfull, p) != member)
                AUDIT_FAIL("slab %u: %s the non-full set of its bin", id, member ? "missing from" : "wrongly in");
            nonfull_expected[(size_t)x->arena * NBINS + binind] += (uint64_t)member;
            live_pages += x->npages;
            break;
        }
        case EXT_LARGE: {
            rs_addr a = BASE_ADDR + ((uint64_t)p << LG_PAGE) + x->offset;
            if (x->offset >= PAGE_BYTES || (x->offset & ((1u << LG_CACHELINE) - 1)))
                AUDIT_FAIL("large extent %u: offset %u", id, x->offset);
            if (is_cached(cached, ncached, a)) {
                if (x->block != 0)
                    AUDIT_FAIL("large extent %u: cached with %u active pages", id, x->block);
            } else {
                if (x->block == 0 || x->block > x->npages)
                    AUDIT_FAIL("large extent %u: %u of %u pages active", id, x->block, x->npages);
                if (count_resident(st, p, x->block) != x->block)
                    AUDIT_FAIL("large extent %u: an active page is not resident", id);
                active += x->block;
                alloc += ((uint64_t)x->npages << LG_PAGE) - RS_JE_LARGE_PAD_BYTES;
            }
            live_pages += x->npages;
            break;
        }
        case EXT_DIRTY:
            dirty_pages += x->npages;
            arena_dirty[x->arena] += x->npages;
            dirty_res += nres;
            nfree_sets[0]++;
            break;
        case EXT_RELEASED:
            if (nres)
                AUDIT_FAIL("released extent %u has %u resident pages", id, nres);
            if (prev_kind == EXT_RELEASED && prev_arena == x->arena)
                AUDIT_FAIL("released extent %u not coalesced with its predecessor", id);
            nfree_sets[1]++;
            break;
        default:
            AUDIT_FAIL("extent %u in the page map is unused", id);
        }
        prev_kind = x->kind;
        prev_arena = x->arena;
        p += x->npages;
    }
    if (resident != st->resident_pages || active != st->active_pages ||
        live_pages != st->live_ext_pages || dirty_pages != st->dirty_ext_pages ||
        dirty_res != st->dirty_resident_pages || alloc != st->allocated_bytes)
        AUDIT_FAIL("counters differ: resident %llu/%llu active %llu/%llu live %llu/%llu "
                   "dirty %llu/%llu dirty_res %llu/%llu allocated %llu/%llu",
                   (unsigned long long)resident, (unsigned long long)st->resident_pages,
                   (unsigned long long)active, (unsigned long long)st->active_pages,
                   (unsigned long long)live_pages, (unsigned long long)st->live_ext_pages,
                   (unsigned long long)dirty_pages, (unsigned long long)st->dirty_ext_pages,
                   (unsigned long long)dirty_res, (unsigned long long)st->dirty_resident_pages,
                   (unsigned long long)alloc, (unsigned long long)st->allocated_bytes);
    uint64_t nsets[2] = {0};
    for (unsigned ai = 0; ai < st->narenas; ai++) {
        const je_arena *ar = &st->arenas[ai];
        if (ar->dirty_pages != arena_dirty[ai])
            AUDIT_FAIL("arena %u: dirty pages %llu, counted %llu", ai,
                       (unsigned long long)ar->dirty_pages, (unsigned long long)arena_dirty[ai]);
        uint64_t nlru = 0, lru_pages = 0;
        for (uint32_t e = ar->lru_head, prev = NIL; e != NIL; prev = e, e = st->exts[e].lru_next) {
            if (st->exts[e].kind != EXT_DIRTY || st->exts[e].arena != ai || st->exts[e].lru_prev != prev ||
                ++nlru > st->exts_len)
                AUDIT_FAIL("arena %u: LRU list broken at extent %u", ai, e);
            lru_pages += st->exts[e].npages;
            if (st->exts[e].lru_next == NIL && ar->lru_tail != e)
                AUDIT_FAIL("arena %u: LRU tail wrong", ai);
        }
        if (lru_pages != ar->dirty_pages)
            AUDIT_FAIL("arena %u: LRU holds %llu pages, %llu dirty", ai,
                       (unsigned long long)lru_pages, (unsigned long long)ar->dirty_pages);
        for (unsigned b = 0; b < NBINS; b++) {
            const je_bin *bin = &ar->bins[b];
            uint32_t n = 0;
            if (bin->cur != NIL &&
                (st->exts[bin->cur].kind != EXT_SLAB || st->exts[bin->cur].block != bin->cur_block ||
                 st->exts[bin->cur].page != bin->cur_page || HDR_BIN(st->words[bin->cur_block]) != b ||
                 st->exts[bin->cur].arena != ai))
                AUDIT_FAIL("arena %u bin %u: slabcur %u is not one of its slabs", ai, b, bin->cur);
            if ((rc = pset_check(&bin->nonfull, &n, err)))
                goto out;
            uint64_t want = st->binfo[b].nregs == 1 ? 0 : nonfull_expected[(size_t)ai * NBINS + b];
            if (n != want)
                AUDIT_FAIL("arena %u bin %u: %u slabs in the non-full set, %llu expected", ai, b, n,
                           (unsigned long long)want);
            /* arena_bin_lower_slab keeps a non-full slabcur the oldest/lowest */
            if (n && bin->cur != NIL && HDR_NFREE(st->words[bin->cur_block]) > 0 &&
                pset_min(&bin->nonfull) < bin->cur_page)
                AUDIT_FAIL("arena %u bin %u: a non-full slab is older than slabcur", ai, b);
        }
        for (int k = 0; k < 2; k++) {
            const je_eset *set = k == 0 ? &ar->dirty : &ar->released;
            for (unsigned i = 0; i < ESET_NBINS; i++) {
                uint32_t n = 0;
                int bit = (int)((set->nonempty[i / 64] >> (i % 64)) & 1);
                if (bit != (set->root[i] != NIL))
                    AUDIT_FAIL("eset %d bin %u: bitmap disagrees with heap", k, i);
                if ((rc = heap_check(st, set->root[i], &n, err)))
                    goto out;
                if (set->root[i] != NIL) {
                    const je_ext *x = &st->exts[set->root[i]];
                    if (x->kind != (k == 0 ? EXT_DIRTY : EXT_RELEASED) || eset_pind(x) != i || x->arena != ai)
                        AUDIT_FAIL("eset %d bin %u: extent %u misplaced", k, i, set->root[i]);
                }
                nsets[k] += n;
            }
            for (unsigned i = 1; i < ESET_LEAVES; i++) {
                uint64_t l = set->tree[2 * i], r = set->tree[2 * i + 1];
                if (set->tree[i] != (l < r ? l : r))
                    AUDIT_FAIL("eset %d: min-tree node %u stale", k, i);
            }
            for (unsigned i = 0; i < ESET_LEAVES; i++)
                if (set->tree[ESET_LEAVES + i] != (i < ESET_NBINS ? eset_key(st, set->root[i]) : UINT64_MAX))
                    AUDIT_FAIL("eset %d: min-tree leaf %u stale", k, i);
            static const unsigned lgs[] = {0, 2, LG_EXTENT_MAX_ACTIVE_FIT, 64};
            if (ai < 2) /* the fit check is slow; two arenas are enough */
                for (uint32_t np = 1; np < 4096; np = np < 64 ? np + 1 : np * 2 + 1)
                    for (unsigned j = 0; j < sizeof lgs / sizeof *lgs; j++)
                        if (eset_fit(st, set, np, lgs[j]) != eset_fit_scan(st, set, np, lgs[j]))
                            AUDIT_FAIL("eset %d: first fit for %u pages (lg_max_fit %u) differs from the scan",
                                       k, np, lgs[j]);
        }
    }
    for (int k = 0; k < 2; k++)
        if (nsets[k] != nfree_sets[k])
            AUDIT_FAIL("esets %d hold %llu extents, the page map %llu", k,
                       (unsigned long long)nsets[k], (unsigned long long)nfree_sets[k]);
    if (st->live_count == 0 && (st->requested_bytes || st->allocated_bytes))
        AUDIT_FAIL("no live allocation but requested %llu allocated %llu",
                   (unsigned long long)st->requested_bytes, (unsigned long long)st->allocated_bytes);
    if (!stats_ordered(st))
        AUDIT_FAIL("stats out of order");
#undef AUDIT_FAIL
out:
    free(live);
    free(nonfull_expected);
    free(arena_dirty);
    free(cached);
    return rc;
}

uint64_t rs_je_footprint_bytes(const void *state)
{
    const je_state *st = state;
    return sizeof *st + (uint64_t)st->narenas * sizeof *st->arenas +
           (uint64_t)st->nthreads * (sizeof(je_thread) + st->tcache_slots * sizeof(rs_addr)) +
           (uint64_t)st->pages_cap * sizeof *st->pages + st->resw_cap * sizeof *st->resw +
           (uint64_t)st->exts_cap * sizeof *st->exts +
           (uint64_t)st->words_cap * sizeof *st->words;
}
