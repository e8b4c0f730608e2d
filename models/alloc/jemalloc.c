/*
 * jemalloc.c — a model of jemalloc 5.3.0 (first fidelity: one arena, no
 * thread cache, no decay).  Every allocation goes through the same layers as
 * in jemalloc, on simulated 4 KiB pages:
 *
 *   size class ─► bin (small, <= 14336 B): slabs of regions, bitmap per slab
 *              └► large (>= 16384 B): one extent per allocation, + 1 pad page
 *   bins and large ─► page allocator (jemalloc's extent layer): free extents
 *              in a dirty set and a released ("retained") set, first fit,
 *              coalescing; never-used address space at the top.
 *
 * Rules taken from the jemalloc 5.3.0 sources (docs/models.md lists each with
 * its file): size classes are sc.c's group rule (quantum 16, one tiny class,
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
 * Residency ("touching" model of alloc.h): a page becomes resident when a live
 * region's usable range overlaps it (the whole extent, pad included, for a
 * large allocation) and stays so until the page allocator releases it:
 * immediately when an extent is freed with jemalloc_purge = immediate, at
 * release() (arena.<i>.purge) otherwise.  Counters are kept incrementally so
 * stats() is O(1):
 *   active   = resident slab pages with >= 1 live region + pages of live large
 *   resident = resident pages + metadata estimate
 *   mapped   = pages of live extents + pages of dirty free extents + metadata
 * which gives requested <= allocated <= active <= resident <= mapped at every
 * step (asserted after each operation).
 *
 * Simulator cost: per page 8 bytes (owner, live-region count, resident bit),
 * per extent a 32-byte record (pairing-heap links), per slab a block of one
 * header word and one bit per region; no per-allocation table (frees are
 * sized, and the page map finds the slab).  A small free touches the page
 * entry and the slab's block only.  The hot path does no host allocation
 * except geometric growth of these arrays, no scan longer than a slab's 8-word
 * bitmap, and first fit is O(log) (a min-tree over the size-class heaps);
 * free() never allocates, so it cannot fail.  Later fidelities add the thread
 * cache (in front of arena_malloc_small/arena_dalloc_small), decay (over the
 * dirty set, driven by advance()) and several arenas (one je_arena each).
 */
#include "jemalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- model state ------------------------------------------------------- */

#define NIL UINT32_MAX
#define MAX_PAGES (UINT32_MAX - 1u)
/* Simulated addresses: BASE_ADDR + page * 4096 + offset (non-zero, aligned). */
#define BASE_ADDR ((uint64_t)1 << 44)

enum ext_kind {
    EXT_UNUSED,   /* record on the free list */
    EXT_SLAB,     /* live slab of a bin */
    EXT_LARGE,    /* live large allocation */
    EXT_DIRTY,    /* free, may hold resident pages */
    EXT_RELEASED, /* free, purged: no resident page ("retained") */
};

/* Page map entry.  Exact on every page of a live slab and on the first and
 * last page of every other extent; interior pages of other extents keep
 * stale owner/slab values that nothing reads. */
typedef struct je_page {
    uint32_t owner;    /* slab page: the slab's block; other: the extent */
    uint16_t live;     /* slab: live regions overlapping this page */
    uint8_t resident;  /* 1 once touched, 0 after release */
    uint8_t slab;      /* k + 1 for page k of a live slab, 0 otherwise */
} je_page;

typedef struct je_ext {
    uint32_t page;      /* first page */
    uint32_t npages;
    uint32_t nresident; /* resident pages in [page, page + npages) */
    uint32_t ph_child;  /* pairing heap (bin non-full slabs or eset bin): first child */
    uint32_t ph_next;   /* next sibling; next free record when EXT_UNUSED */
    uint32_t ph_prev;   /* previous sibling, or parent for a first child */
    uint32_t block;     /* slab: its block in the word pool */
    uint8_t kind;       /* enum ext_kind */
} je_ext;

/* A slab's block in the word pool: a header word, then the region bitmap
 * (1 = free), so a free touches the page entry and this block only. */
#define HDR_MAKE(nfree, bin, ext) ((uint64_t)(nfree) | ((uint64_t)(bin) << 16) | ((uint64_t)(ext) << 32))
#define HDR_NFREE(h) ((uint32_t)((h) & 0xffffu))
#define HDR_BIN(h) ((unsigned)(((h) >> 16) & 0xffu))
#define HDR_EXT(h) ((uint32_t)((h) >> 32))

typedef struct je_bin_info {
    uint32_t size_bytes;  /* region size */
    uint32_t div_magic;   /* ceil(2^32 / size_bytes): offset -> region index */
    uint16_t nregs;       /* regions per slab */
    uint8_t slab_pages;   /* pages per slab */
    uint8_t nwords;       /* bitmap words per slab (the block is one more) */
} je_bin_info;

typedef struct je_bin {
    uint32_t cur;       /* slabcur (extent), or NIL */
    uint32_t cur_block; /* its block */
    uint32_t cur_page;  /* its first page */
    uint32_t nonfull;   /* root of the heap of non-full slabs (by address), or NIL */
} je_bin;

typedef struct je_eset {
    uint32_t root[ESET_NBINS];       /* heap (by address) per page-size class */
    uint64_t nonempty[ESET_NWORDS];  /* bit per non-empty heap */
    /* min-tree over the heaps' roots, (page << 32 | extent) or UINT64_MAX,
     * leaves at ESET_LEAVES + pind: first fit over a class range in O(log) */
    uint64_t tree[2 * ESET_LEAVES];
} je_eset;

typedef struct je_arena {
    je_bin bins[NBINS];
    je_eset dirty;     /* ecache_dirty */
    je_eset released;  /* ecache_retained (muzzy_decay_ms is 0 in 5.3.0) */
} je_arena;

typedef struct je_state {
    int purge_immediate;             /* jemalloc_purge = immediate */
    uint8_t size2bin[(LOOKUP_MAXCLASS >> 3) + 1]; /* (size + 7) >> 3 -> bin */
    je_bin_info binfo[NBINS];
    je_arena arena;

    je_page *pages;                  /* [0, top_pages) */
    uint32_t top_pages, pages_cap;
    je_ext *exts;                    /* extent records; [0, exts_len) ever used */
    uint32_t exts_len, exts_cap, exts_free, exts_nfree;
    uint64_t *words;                 /* slab block pool */
    uint32_t words_len, words_cap;
    uint32_t words_free[BITMAP_MAXWORDS + 2]; /* free lists by block size in words */

    uint64_t requested_bytes, allocated_bytes, live_count;
    uint64_t resident_pages;         /* all resident pages */
    uint64_t active_pages;           /* slab pages with live > 0 + live large pages */
    uint64_t live_ext_pages;         /* pages of live slabs and large extents */
    uint64_t dirty_ext_pages;        /* pages of dirty free extents */
    uint64_t dirty_resident_pages;   /* resident pages of dirty free extents */
    uint64_t released_total_pages;   /* resident -> released transitions so far */
} je_state;

static const rs_param je_params[] = {
    {.key = "jemalloc_purge", .type = RS_PT_STRING, .def = "never",
     .doc = "when freed pages go back to the OS: never (until release(), as "
            "dirty_decay_ms=-1) or immediate (as dirty_decay_ms=0)"},
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
    void *p = realloc(*arr, (size_t)ncap * elem_bytes);
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
    if ((uint64_t)st->top_pages + npages > MAX_PAGES)
        return -1;
    return grow((void **)&st->pages, &st->pages_cap, (uint64_t)st->top_pages + npages, sizeof *st->pages);
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

static uint32_t count_resident(const je_state *st, uint32_t page, uint32_t npages)
{
    uint32_t n = 0;
    for (uint32_t p = page; p < page + npages; p++)
        n += st->pages[p].resident;
    return n;
}

/* Carve npages (reserve() done) from dirty, then released, then new space.
 * The record returned has kind unset; the caller sets it and the page map. */
static uint32_t pa_alloc(je_state *st, uint32_t npages)
{
    je_arena *a = &st->arena;
    je_eset *set = &a->dirty;
    uint32_t id = eset_fit(st, set, npages, LG_EXTENT_MAX_ACTIVE_FIT);
    if (id == NIL) {
        set = &a->released;
        id = eset_fit(st, set, npages, 64);
    }
    if (id != NIL) {
        je_ext *x = &st->exts[id];
        int dirty = x->kind == EXT_DIRTY;
        eset_remove(st, set, id);
        if (dirty) {
            st->dirty_ext_pages -= x->npages;
            st->dirty_resident_pages -= x->nresident;
        }
        if (x->npages > npages) { /* split: the trail stays free */
            uint32_t t = ext_take(st);
            x = &st->exts[id];
            uint32_t carved = count_resident(st, x->page, npages);
            st->exts[t] = (je_ext){
                .page = x->page + npages,
                .npages = x->npages - npages,
                .nresident = x->nresident - carved,
                .kind = x->kind,
                .block = NIL,
            };
            x->npages = npages;
            x->nresident = carved;
            set_bounds(st, t);
            eset_insert(st, set, t);
            if (dirty) {
                st->dirty_ext_pages += st->exts[t].npages;
                st->dirty_resident_pages += st->exts[t].nresident;
            }
        }
    } else {
        id = ext_take(st);
        st->exts[id] = (je_ext){.page = st->top_pages, .npages = npages};
        memset(&st->pages[st->top_pages], 0, (size_t)npages * sizeof *st->pages);
        st->top_pages += npages;
    }
    je_ext *x = &st->exts[id];
    x->ph_child = x->ph_next = x->ph_prev = NIL;
    x->block = NIL;
    st->live_ext_pages += npages;
    return id;
}

static void release_pages(je_state *st, je_ext *x)
{
    if (x->nresident == 0)
        return;
    for (uint32_t p = x->page; p < x->page + x->npages; p++) {
        if (st->pages[p].resident) {
            assert(st->pages[p].live == 0);
            st->pages[p].resident = 0;
        }
    }
    st->resident_pages -= x->nresident;
    st->released_total_pages += x->nresident;
    x->nresident = 0;
}

/* Merge free extent id with its free neighbours of the same kind (not in
 * any set yet); returns the surviving record. */
static uint32_t coalesce(je_state *st, uint32_t id)
{
    je_ext *e = st->exts;
    uint8_t kind = e[id].kind;
    je_eset *set = kind == EXT_DIRTY ? &st->arena.dirty : &st->arena.released;
    for (;;) {
        int merged = 0;
        if (e[id].page > 0) {
            uint32_t p = page_ext(st, e[id].page - 1);
            assert(e[p].page + e[p].npages == e[id].page);
            if (e[p].kind == kind) {
                eset_remove(st, set, p);
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
            if (e[n].kind == kind) {
                eset_remove(st, set, n);
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

/* Return a live extent to the page allocator (extent_record). */
static void pa_dalloc(je_state *st, uint32_t id)
{
    je_ext *x = &st->exts[id];
    st->live_ext_pages -= x->npages;
    if (st->purge_immediate) {
        release_pages(st, x);
        x->kind = EXT_RELEASED;
        id = coalesce(st, id);
        eset_insert(st, &st->arena.released, id);
        return;
    }
    x->kind = EXT_DIRTY;
    st->dirty_ext_pages += x->npages;
    st->dirty_resident_pages += x->nresident;
    if (((uint64_t)x->npages << LG_PAGE) >= LARGE_MINCLASS)
        id = coalesce(st, id); /* smaller dirty extents coalesce when purged */
    else
        set_bounds(st, id);
    eset_insert(st, &st->arena.dirty, id);
}

/* arena.<i>.purge: every dirty extent is purged and joins the released set. */
static void pa_purge_all(je_state *st)
{
    je_eset *dirty = &st->arena.dirty;
    for (unsigned i = eset_next(dirty, 0); i < ESET_NBINS; i = eset_next(dirty, i)) {
        uint32_t id = dirty->root[i];
        eset_remove(st, dirty, id);
        je_ext *x = &st->exts[id];
        st->dirty_ext_pages -= x->npages;
        st->dirty_resident_pages -= x->nresident;
        release_pages(st, x);
        x->kind = EXT_RELEASED;
        id = coalesce(st, id);
        eset_insert(st, &st->arena.released, id);
    }
    assert(st->dirty_ext_pages == 0 && st->dirty_resident_pages == 0);
}

/* ---- bins (arena.c) ---------------------------------------------------- */

static uint32_t slab_new(je_state *st, unsigned binind)
{
    const je_bin_info *bi = &st->binfo[binind];
    if (reserve(st, bi->nwords + 1u, bi->slab_pages))
        return NIL;
    uint32_t id = pa_alloc(st, bi->slab_pages);
    je_ext *x = &st->exts[id];
    x->kind = EXT_SLAB;
    x->block = words_take(st, bi->nwords + 1u);
    uint64_t *w = &st->words[x->block];
    w[0] = HDR_MAKE(bi->nregs, binind, id);
    for (unsigned i = 0; i < bi->nwords; i++) {
        unsigned bits = bi->nregs - i * 64u;
        w[1 + i] = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    }
    for (uint32_t k = 0; k < x->npages; k++)
        st->pages[x->page + k] = (je_page){
            .owner = x->block,
            .live = 0,
            .resident = st->pages[x->page + k].resident,
            .slab = (uint8_t)(k + 1),
        };
    return id;
}

static void bin_set_cur(je_state *st, je_bin *bin, uint32_t id)
{
    bin->cur = id;
    if (id != NIL) {
        bin->cur_block = st->exts[id].block;
        bin->cur_page = st->exts[id].page;
    }
}

/* slabcur is missing or full: the oldest non-full slab, else a new one
 * (arena_bin_refill_slabcur_no_fresh_slab, then _with_fresh_slab).  A full
 * slabcur is dropped: auto arenas do not track full slabs.  -1 when the
 * simulator is out of memory. */
static __attribute__((noinline)) int bin_refill(je_state *st, je_bin *bin, unsigned binind)
{
    uint32_t s = bin->nonfull;
    if (s != NIL) {
        bin->nonfull = ph_remove(st->exts, bin->nonfull, s);
    } else {
        s = slab_new(st, binind);
        if (s == NIL)
            return -1;
    }
    bin_set_cur(st, bin, s);
    return 0;
}

static inline __attribute__((always_inline)) rs_addr arena_malloc_small(je_state *st, unsigned binind)
{
    je_bin *bin = &st->arena.bins[binind];
    const je_bin_info *bi = &st->binfo[binind];
    if ((bin->cur == NIL || HDR_NFREE(st->words[bin->cur_block]) == 0) &&
        bin_refill(st, bin, binind))
        return 0;
    uint64_t *w = &st->words[bin->cur_block];
    w[0]--; /* nfree */
    unsigned i = 1;
    while (w[i] == 0)
        i++;
    uint32_t reg = (i - 1) * 64u + (unsigned)__builtin_ctzll(w[i]);
    w[i] &= w[i] - 1;

    uint32_t off = reg * bi->size_bytes;
    uint32_t p = bin->cur_page + (off >> LG_PAGE);
    uint32_t last = bin->cur_page + ((off + bi->size_bytes - 1) >> LG_PAGE);
    do {
        je_page *pg = &st->pages[p];
        if (pg->live++ == 0) {
            st->active_pages++;
            if (!pg->resident) {
                pg->resident = 1;
                st->resident_pages++;
                st->exts[bin->cur].nresident++;
            }
        }
    } while (++p <= last);
    st->allocated_bytes += bi->size_bytes;
    return BASE_ADDR + ((uint64_t)bin->cur_page << LG_PAGE) + off;
}

static void bin_slab_nonfull(je_state *st, uint64_t *w, uint32_t page0);
static void bin_slab_empty(je_state *st, uint64_t *w, uint32_t block);

/* Free the region at byte offset off of the slab whose first page is page0. */
static inline __attribute__((always_inline)) void arena_dalloc_small(je_state *st, uint32_t block, uint32_t page0, uint32_t off)
{
    uint64_t *w = &st->words[block];
    unsigned binind = HDR_BIN(w[0]);
    const je_bin_info *bi = &st->binfo[binind];
    uint32_t reg = (uint32_t)(((uint64_t)off * bi->div_magic) >> 32);
    assert((uint64_t)reg * bi->size_bytes == off && reg < bi->nregs);
    assert(!(w[1 + reg / 64] & ((uint64_t)1 << (reg % 64))));
    w[1 + reg / 64] |= (uint64_t)1 << (reg % 64);
    uint32_t nfree = HDR_NFREE(++w[0]);

    uint32_t p = page0 + (off >> LG_PAGE);
    uint32_t last = page0 + ((off + bi->size_bytes - 1) >> LG_PAGE);
    do {
        if (--st->pages[p].live == 0)
            st->active_pages--;
    } while (++p <= last);
    st->allocated_bytes -= bi->size_bytes;

    if (nfree == bi->nregs)
        bin_slab_empty(st, w, block);
    else if (nfree == 1)
        bin_slab_nonfull(st, w, page0);
}

/* A full slab got a free region (arena_dalloc_bin_locked_handle_newly_nonempty
 * -> arena_bin_lower_slab): keep slabcur the oldest/lowest non-full slab. */
static __attribute__((noinline)) void bin_slab_nonfull(je_state *st, uint64_t *w, uint32_t page0)
{
    je_bin *bin = &st->arena.bins[HDR_BIN(w[0])];
    uint32_t s = HDR_EXT(w[0]);
    if (s == bin->cur)
        return;
    if (bin->cur != NIL && bin->cur_page > page0) {
        if (HDR_NFREE(st->words[bin->cur_block]) > 0)
            bin->nonfull = ph_insert(st->exts, bin->nonfull, bin->cur);
        bin_set_cur(st, bin, s);
    } else {
        bin->nonfull = ph_insert(st->exts, bin->nonfull, s);
    }
}

/* Every region is free (arena_dalloc_bin_locked_handle_newly_empty): detach
 * the slab from its bin and return it to the page allocator.  A 1-region
 * slab was full until now, so no heap holds it. */
static __attribute__((noinline)) void bin_slab_empty(je_state *st, uint64_t *w, uint32_t block)
{
    unsigned binind = HDR_BIN(w[0]);
    const je_bin_info *bi = &st->binfo[binind];
    je_bin *bin = &st->arena.bins[binind];
    uint32_t s = HDR_EXT(w[0]);
    if (bin->cur == s)
        bin->cur = NIL;
    else if (bi->nregs > 1)
        bin->nonfull = ph_remove(st->exts, bin->nonfull, s);
    words_put(st, block, bi->nwords + 1u);
    pa_dalloc(st, s);
}

static rs_addr arena_malloc_large(je_state *st, uint64_t usize)
{
    uint64_t npages64 = (usize + RS_JE_LARGE_PAD_BYTES) >> LG_PAGE;
    if (npages64 > MAX_PAGES || reserve(st, 0, (uint32_t)npages64))
        return 0;
    uint32_t npages = (uint32_t)npages64;
    uint32_t id = pa_alloc(st, npages);
    je_ext *x = &st->exts[id];
    x->kind = EXT_LARGE;
    set_bounds(st, id);
    if (x->nresident < npages) {
        for (uint32_t p = x->page; p < x->page + npages; p++)
            st->pages[p].resident = 1;
        st->resident_pages += npages - x->nresident;
        x->nresident = npages;
    }
    st->active_pages += npages;
    st->allocated_bytes += usize;
    /* jemalloc starts the region at a random cache line of the first page;
     * the model puts it at the extent start (all pages are resident anyway) */
    return BASE_ADDR + ((uint64_t)x->page << LG_PAGE);
}

static void arena_dalloc_large(je_state *st, uint32_t id)
{
    je_ext *x = &st->exts[id];
    st->active_pages -= x->npages;
    st->allocated_bytes -= ((uint64_t)x->npages << LG_PAGE) - RS_JE_LARGE_PAD_BYTES;
    pa_dalloc(st, id);
}

/* ---- the ops ----------------------------------------------------------- */

static uint64_t metadata_bytes(const je_state *st)
{
    return (uint64_t)BASE_METADATA_BYTES + (uint64_t)EDATA_BYTES * st->exts_len +
           (uint64_t)RTREE_BYTES_PER_PAGE * st->top_pages;
}

/* design.md §2 ordering, on the page counters (metadata adds to both
 * resident and mapped, so it cannot break it). */
static int stats_ordered(const je_state *st)
{
    return st->requested_bytes <= st->allocated_bytes &&
           st->allocated_bytes <= st->active_pages * PAGE_BYTES &&
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
        .cached_bytes = 0,
        .dirty_bytes = st->dirty_resident_pages * PAGE_BYTES,
        .released_bytes = st->released_total_pages * PAGE_BYTES,
        .live_count = st->live_count,
        /* stats.mapped + stats.retained: every page ever carved, + metadata */
        .heap_bytes = (uint64_t)st->top_pages * PAGE_BYTES + meta,
        .unmapped_bytes = ((uint64_t)st->top_pages - st->live_ext_pages - st->dirty_ext_pages) *
                          PAGE_BYTES,
    };
}

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    const char *purge = cfg ? rs_config_string(cfg, "jemalloc_purge") : NULL;
    if (!purge || !*purge)
        purge = je_params[0].def;
    int immediate;
    if (strcmp(purge, "immediate") == 0)
        immediate = 1;
    else if (strcmp(purge, "never") == 0)
        immediate = 0;
    else
        return rs_fail(err, RS_EINPUT,
                       "invalid value '%s' for 'jemalloc_purge' (expected 'immediate' or 'never')",
                       purge);

    je_state *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator jemalloc");
    st->purge_immediate = immediate;
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
        st->arena.bins[b] = (je_bin){.cur = NIL, .nonfull = NIL};
    }
    for (unsigned j = 0; j <= LOOKUP_MAXCLASS >> 3; j++)
        st->size2bin[j] = (uint8_t)rs_je_size2index(j ? (uint64_t)j << 3 : 1);
    for (unsigned i = 0; i < ESET_NBINS; i++)
        st->arena.dirty.root[i] = st->arena.released.root[i] = NIL;
    memset(st->arena.dirty.tree, 0xff, sizeof st->arena.dirty.tree);
    memset(st->arena.released.tree, 0xff, sizeof st->arena.released.tree);
    *r_state = st;
    return 0;
}

static void destroy(void *state)
{
    je_state *st = state;
    if (!st)
        return;
    free(st->pages);
    free(st->exts);
    free(st->words);
    free(st);
}

static rs_addr je_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    je_state *st = state;
    (void)thread; /* later: thread -> tcache */
    (void)now_ns; /* later: decay ticks */
    rs_addr addr;
    if (size_bytes <= LOOKUP_MAXCLASS) {
        addr = arena_malloc_small(st, st->size2bin[(size_bytes + 7) >> 3]);
    } else {
        unsigned ind = rs_je_size2index(size_bytes);
        if (ind >= NSIZES)
            return 0;
        addr = ind < NBINS ? arena_malloc_small(st, ind)
                           : arena_malloc_large(st, rs_je_index2size(ind));
    }
    if (addr) {
        st->requested_bytes += size_bytes;
        st->live_count++;
    }
    assert(stats_ordered(st));
    return addr;
}

static void je_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    je_state *st = state;
    (void)thread;
    (void)now_ns;
    assert(addr >= BASE_ADDR && addr < BASE_ADDR + ((uint64_t)st->top_pages << LG_PAGE));
    uint64_t rel = addr - BASE_ADDR;
    uint32_t p = (uint32_t)(rel >> LG_PAGE);
    const je_page *pg = &st->pages[p];
    if (pg->slab) {
        uint32_t page0 = p - (pg->slab - 1u);
        assert(rs_je_size2index(size_bytes) == HDR_BIN(st->words[pg->owner]));
        arena_dalloc_small(st, pg->owner, page0, (uint32_t)(rel - ((uint64_t)page0 << LG_PAGE)));
    } else {
        uint32_t id = pg->owner;
        assert(st->exts[id].kind == EXT_LARGE && rel == (uint64_t)st->exts[id].page << LG_PAGE);
        assert(rs_je_usable_size(size_bytes) + RS_JE_LARGE_PAD_BYTES ==
               (uint64_t)st->exts[id].npages << LG_PAGE);
        arena_dalloc_large(st, id);
    }
    st->requested_bytes -= size_bytes;
    st->live_count--;
    assert(stats_ordered(st));
}

/* Stage 0: the page map entry of addr; stage 1: the slab block it names. */
static void je_prefetch(const void *state, rs_addr addr, int stage)
{
    const je_state *st = state;
    uint64_t p = (addr - BASE_ADDR) >> LG_PAGE;
    if (addr < BASE_ADDR || p >= st->top_pages)
        return;
    if (stage == 0) {
        __builtin_prefetch(&st->pages[p]);
    } else if (st->pages[p].slab) {
        __builtin_prefetch(&st->words[st->pages[p].owner], 1);
    }
}

static uint64_t je_usable_size(const void *state, uint64_t size_bytes)
{
    (void)state;
    return rs_je_usable_size(size_bytes);
}

static void je_release(void *state, uint64_t now_ns)
{
    (void)now_ns;
    pa_purge_all(state);
    assert(stats_ordered(state));
}

const rs_alloc_ops rs_alloc_jemalloc = {
    .name = "jemalloc",
    .doc = "jemalloc 5.3 (one arena, no tcache, no decay): size classes, slabs with "
           "oldest-first reuse, extents with first fit, dirty/released pages",
    .params = je_params,
    .create = create,
    .destroy = destroy,
    .alloc = je_alloc,
    .free = je_free,
    .usable_size = je_usable_size,
    .advance = NULL,
    .release = je_release,
    .stats = je_stats,
    .prefetch = je_prefetch,
};

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

int rs_je_audit(const void *state, rs_err *err)
{
    const je_state *st = state;
    uint64_t resident = 0, active = 0, live_pages = 0, dirty_pages = 0, dirty_res = 0, alloc = 0;
    uint64_t nonfull_expected[NBINS] = {0}, nfree_sets[2] = {0};
    uint32_t prev_kind = EXT_UNUSED;
    uint16_t *live = calloc((size_t)st->top_pages + 1, sizeof *live);
    if (!live)
        return rs_fail(err, RS_ENOMEM, "out of memory in audit");
    int rc = 0;
#define AUDIT_FAIL(...) do { rc = rs_fail(err, RS_EINTERNAL, __VA_ARGS__); goto out; } while (0)
    for (uint32_t p = 0; p < st->top_pages;) {
        uint32_t id = page_ext(st, p);
        if (id >= st->exts_len)
            AUDIT_FAIL("page %u: bad owner %u", p, id);
        const je_ext *x = &st->exts[id];
        if (x->page != p || x->npages == 0 || p + x->npages > st->top_pages ||
            page_ext(st, p + x->npages - 1) != id)
            AUDIT_FAIL("page %u: extent %u boundaries wrong", p, id);
        uint32_t nres = count_resident(st, p, x->npages);
        if (nres != x->nresident)
            AUDIT_FAIL("extent %u: nresident %u, counted %u", id, x->nresident, nres);
        resident += nres;
        switch (x->kind) {
        case EXT_SLAB: {
            uint64_t hdr = st->words[x->block];
            unsigned binind = HDR_BIN(hdr);
            const je_bin_info *bi = &st->binfo[binind];
            if (binind >= NBINS || HDR_EXT(hdr) != id || x->npages != bi->slab_pages)
                AUDIT_FAIL("slab %u: header %llx, %u pages", id, (unsigned long long)hdr, x->npages);
            unsigned nfree = 0;
            for (unsigned r = 0; r < bi->nregs; r++) {
                int is_free = (st->words[x->block + 1 + r / 64] >> (r % 64)) & 1;
                nfree += (unsigned)is_free;
                if (!is_free) {
                    uint32_t off = r * bi->size_bytes;
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
                if (live[q] && !st->pages[q].resident)
                    AUDIT_FAIL("page %u: live but not resident", q);
                active += live[q] > 0;
            }
            if (nfree > 0 && st->arena.bins[binind].cur != id)
                nonfull_expected[binind]++;
            live_pages += x->npages;
            break;
        }
        case EXT_LARGE:
            if (nres != x->npages)
                AUDIT_FAIL("large extent %u: %u of %u pages resident", id, nres, x->npages);
            active += x->npages;
            live_pages += x->npages;
            alloc += ((uint64_t)x->npages << LG_PAGE) - RS_JE_LARGE_PAD_BYTES;
            break;
        case EXT_DIRTY:
            dirty_pages += x->npages;
            dirty_res += nres;
            nfree_sets[0]++;
            break;
        case EXT_RELEASED:
            if (nres)
                AUDIT_FAIL("released extent %u has %u resident pages", id, nres);
            if (prev_kind == EXT_RELEASED)
                AUDIT_FAIL("released extent %u not coalesced with its predecessor", id);
            nfree_sets[1]++;
            break;
        default:
            AUDIT_FAIL("extent %u in the page map is unused", id);
        }
        prev_kind = x->kind;
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
    for (unsigned b = 0; b < NBINS; b++) {
        const je_bin *bin = &st->arena.bins[b];
        uint32_t n;
        if (bin->cur != NIL &&
            (st->exts[bin->cur].kind != EXT_SLAB || st->exts[bin->cur].block != bin->cur_block ||
             st->exts[bin->cur].page != bin->cur_page || HDR_BIN(st->words[bin->cur_block]) != b))
            AUDIT_FAIL("bin %u: slabcur %u is not one of its slabs", b, bin->cur);
        if ((rc = heap_check(st, bin->nonfull, &n, err)))
            goto out;
        if (st->binfo[b].nregs == 1)
            nonfull_expected[b] = 0; /* never non-full while live */
        if (n != nonfull_expected[b])
            AUDIT_FAIL("bin %u: %u slabs in the non-full heap, %llu expected", b, n,
                       (unsigned long long)nonfull_expected[b]);
        /* arena_bin_lower_slab keeps a non-full slabcur the oldest/lowest */
        if (bin->nonfull != NIL && bin->cur != NIL && HDR_NFREE(st->words[bin->cur_block]) > 0 &&
            st->exts[bin->nonfull].page < st->exts[bin->cur].page)
            AUDIT_FAIL("bin %u: a non-full slab is older than slabcur", b);
    }
    for (int k = 0; k < 2; k++) {
        const je_eset *set = k == 0 ? &st->arena.dirty : &st->arena.released;
        uint64_t total = 0;
        for (unsigned i = 0; i < ESET_NBINS; i++) {
            uint32_t n;
            int bit = (int)((set->nonempty[i / 64] >> (i % 64)) & 1);
            if (bit != (set->root[i] != NIL))
                AUDIT_FAIL("eset %d bin %u: bitmap disagrees with heap", k, i);
            if ((rc = heap_check(st, set->root[i], &n, err)))
                goto out;
            if (set->root[i] != NIL) {
                const je_ext *x = &st->exts[set->root[i]];
                if (x->kind != (k == 0 ? EXT_DIRTY : EXT_RELEASED) || eset_pind(x) != i)
                    AUDIT_FAIL("eset %d bin %u: extent %u misplaced", k, i, set->root[i]);
            }
            total += n;
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
        for (uint32_t np = 1; np < 4096; np = np < 64 ? np + 1 : np * 2 + 1)
            for (unsigned j = 0; j < sizeof lgs / sizeof *lgs; j++)
                if (eset_fit(st, set, np, lgs[j]) != eset_fit_scan(st, set, np, lgs[j]))
                    AUDIT_FAIL("eset %d: first fit for %u pages (lg_max_fit %u) differs from the scan",
                               k, np, lgs[j]);
        if (total != nfree_sets[k])
            AUDIT_FAIL("eset %d holds %llu extents, the page map %llu", k,
                       (unsigned long long)total, (unsigned long long)nfree_sets[k]);
    }
    if (st->live_count == 0 && (st->requested_bytes || st->allocated_bytes))
        AUDIT_FAIL("no live allocation but requested %llu allocated %llu",
                   (unsigned long long)st->requested_bytes, (unsigned long long)st->allocated_bytes);
    if (!stats_ordered(st))
        AUDIT_FAIL("stats out of order");
#undef AUDIT_FAIL
out:
    free(live);
    return rc;
}

uint64_t rs_je_footprint_bytes(const void *state)
{
    const je_state *st = state;
    return sizeof *st + (uint64_t)st->pages_cap * sizeof *st->pages +
           (uint64_t)st->exts_cap * sizeof *st->exts + (uint64_t)st->words_cap * sizeof *st->words;
}
