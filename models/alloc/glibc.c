/*
 * glibc.c — a model of glibc 2.36 malloc (ptmalloc2) on x86_64: the main
 * arena grown with sbrk, per-thread tcaches in front of it, mmapped chunks
 * for large requests.  All threads share the main arena in this version
 * (real glibc gives threads their own arenas, up to 8 × cores); each thread
 * id has its own tcache, made on its first malloc/free exactly as
 * tcache_init does (a 640-byte malloc from the arena: the 0x290 chunk at the
 * start of every heap).
 *
 * The paths follow malloc/malloc.c of glibc 2.36 rule by rule (docs/models.md
 * lists each with its function): __libc_malloc's tcache check; _int_malloc's
 * fastbin (with stashing into the tcache), exact-fit smallbin (stashing),
 * unsorted-bin pass (oldest first; the last_remainder exception for small
 * requests; exact fits go to the tcache first; others are sorted into small
 * bins at the head and into large bins by size with the nextsize skip list;
 * at most 10000 per pass), best fit in the request's large bin, the binmap
 * search of larger bins, the top chunk, malloc_consolidate and one retry when
 * fastbins are non-empty, then sysmalloc (mmap at or above the threshold,
 * else sbrk of request + top_pad + MINSIZE − top rounded to the page);
 * _int_free's tcache, fastbin, coalescing into the unsorted bin or the top,
 * and the consolidation + systrim when the coalesced chunk is >= 64 KiB;
 * munmap with the dynamic threshold rise; mtrim (malloc_trim(0)): consolidate,
 * madvise(DONTNEED) every whole page inside free chunks, systrim with pad 0.
 *
 * Representation.  Only chunks that are free for the arena or cached (tcache,
 * fastbins) have a record (24 bytes: offset and size in 16-byte units and
 * the four list links of malloc_chunk); live chunks have none, since frees
 * are sized.  The boundary tags (prev_inuse, prev_size) are two hash maps from
 * the start and the end of each arena-free chunk to its record: freeing p
 * looks up "a free chunk ends at p" and "a free chunk starts at p + size".
 * When a split leaves less than MINSIZE the whole chunk is handed out, so its
 * size is request2size + 16: those live chunks are in a third map ("slack").
 * The bin headers are records 0..127, so lists are exactly glibc's circular
 * doubly-linked lists.
 *
 * Residency at 4 KiB pages ("touching" model of alloc.h): a page becomes
 * resident when the model writes into it, and the model writes what glibc
 * and the application write: the usable range of every allocated chunk, the
 * size field of a chunk it hands out or splits off, the fd/bk (and
 * fd/bk_nextsize for large sizes) of a chunk it puts in a bin, the footer
 * (prev_size) and the next chunk's prev_inuse bit.  Pages stay resident until
 * sbrk gives them back (systrim) or malloc_trim madvises them.  Counters:
 *   allocated = sum of usable sizes (chunk − 8; mmapped: size − 16)
 *   active    = resident pages holding >= 1 live usable byte + mmapped bytes
 *   resident  = resident heap pages + mmapped bytes (the tcache structs are
 *               heap chunks, so metadata is inside, not added)
 *   mapped    = sbrk heap size + mmapped bytes (madvised pages stay mapped)
 * which keeps requested <= allocated <= active <= resident <= mapped (asserted
 * after every operation in builds without NDEBUG).
 *
 * Units: offsets in bytes from the heap start (uint64_t), or in 16-byte units
 * (uint32_t, "off16") inside records: the heap may grow to 64 GiB.
 */
#include "glibc.h"
#include "pagebits.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- constants (glibc 2.36 malloc/malloc.c, sysdeps/generic/malloc-machine.h) */

enum {
    SIZE_SZ = 8,                    /* sizeof(INTERNAL_SIZE_T) */
    MALLOC_ALIGNMENT = 16,          /* 2 * SIZE_SZ */
    MINSIZE = 32,                   /* MIN_CHUNK_SIZE */
    CHUNK_STRUCT = 48,              /* sizeof(struct malloc_chunk) */
    NBINS = 128,
    UNSORTED = 1,                   /* bin 1: the unsorted bin */
    MIN_LARGE_SIZE = 1024,          /* (NSMALLBINS - SMALLBIN_CORRECTION) * SMALLBIN_WIDTH */
    NFASTBINS = 10,                 /* fastbin_index(request2size(MAX_FAST_SIZE)) + 1 */
    TCACHE_MAX_BINS = 64,
    TCACHE_FILL_COUNT = 7,
    MAX_TCACHE_COUNT = 65535,       /* UINT16_MAX */
    TCACHE_STRUCT_BYTES = 640,      /* sizeof(tcache_perthread_struct): 64 × (2 + 8) */
    BINMAPSIZE = 4,                 /* NBINS / 32 */
    MAX_ITERS = 10000,              /* unsorted chunks sorted per pass */
    TRIM_BIN_MIN = 99,              /* bin_index(4096): mtrim's first large bin */
    MAX_TCACHES = 4096,             /* thread ids fold onto this many tcaches */
    LG_PAGE = 12,
};

#define PAGE_BYTES ((uint64_t)1 << LG_PAGE)
#define MAX_FAST ((uint64_t)128)                    /* set_max_fast(DEFAULT_MXFAST = 64 * SIZE_SZ / 4) */
#define DEFAULT_TOP_PAD ((uint64_t)131072)          /* malloc-machine.h */
#define DEFAULT_MMAP_THRESHOLD ((uint64_t)128 * 1024) /* DEFAULT_MMAP_THRESHOLD_MIN */
#define DEFAULT_MMAP_THRESHOLD_MAX ((uint64_t)4 * 1024 * 1024 * 8)
#define DEFAULT_TRIM_THRESHOLD ((uint64_t)128 * 1024)
#define DEFAULT_MMAP_MAX 65536u
#define FASTBIN_CONSOLIDATION_THRESHOLD ((uint64_t)65536)
#define MAX_HEAP_BYTES ((uint64_t)UINT32_MAX * 16 - PAGE_BYTES)
#define MAX_REQUEST ((uint64_t)1 << 46)

#define NIL UINT32_MAX
#define EMPTY UINT64_MAX

/* ---- types ---------------------------------------------------------------- */

typedef struct gl_rec {
    uint32_t off16;  /* chunk start / 16 */
    uint32_t size16; /* chunk size / 16 */
    uint32_t fd, bk; /* list links (bins, unsorted; fd only for tcache/fastbins) */
    uint32_t fd_ns, bk_ns; /* large-bin skip list (NIL = NULL) */
} gl_rec;

typedef struct gl_map { /* open addressing, linear probing: key << 32 | value */
    uint64_t *slots;
    uint32_t mask, count;
} gl_map;

typedef struct gl_tcache {
    uint32_t head[TCACHE_MAX_BINS];  /* record of the newest entry, NIL if empty */
    uint16_t count[TCACHE_MAX_BINS];
    uint8_t inited;
} gl_tcache;

typedef struct gl_state {
    /* parameters (mp_) */
    uint64_t mmap_threshold, trim_threshold, top_pad;
    uint32_t tcache_count, n_mmaps_max;
    int no_dyn_threshold;

    /* the arena (malloc_state) */
    gl_rec *recs;                  /* [0, NBINS) are the bin headers */
    uint32_t nrecs, recs_cap, rec_free;
    uint32_t fastbins[NFASTBINS];
    int have_fastchunks;
    uint32_t binmap[BINMAPSIZE];
    uint32_t last_remainder;       /* off16 of av->last_remainder, NIL if none */
    uint64_t top, top_size;        /* bytes from the heap start */
    uint64_t system_mem;           /* sbrk heap bytes; the heap is [0, system_mem) */
    gl_map starts, ends, slack;

    gl_tcache *tcaches;
    uint32_t ntcaches;

    /* mmapped chunks */
    uint64_t mmap_next, mmapped_bytes, n_mmaps;

    /* pages of the sbrk heap */
    uint64_t *res_bits;            /* resident bit per page */
    uint8_t *live;                 /* live chunks whose usable range overlaps the page */
    uint64_t pages_cap;

    /* counters */
    uint64_t requested_bytes, allocated_bytes, live_count;
    uint64_t resident_pages, active_pages, released_bytes;
    uint64_t tcache_bytes, fast_bytes, fast_count, bin_bytes, bin_count;
    uint64_t metadata_bytes;
} gl_state;

/* ---- size rules ------------------------------------------------------------ */

uint64_t rs_gl_request2size(uint64_t n)
{
    return n + SIZE_SZ + MALLOC_ALIGNMENT - 1 < MINSIZE ? MINSIZE
                                                        : (n + SIZE_SZ + MALLOC_ALIGNMENT - 1) & ~(uint64_t)15;
}

uint64_t rs_gl_usable_size(uint64_t n)
{
    return rs_gl_request2size(n) - SIZE_SZ;
}

static uint64_t mmap_chunk_bytes(uint64_t nb)
{
    return (nb + SIZE_SZ + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1); /* sysmalloc_mmap */
}

uint64_t rs_gl_mmap_usable_size(uint64_t n)
{
    return mmap_chunk_bytes(rs_gl_request2size(n)) - 2 * SIZE_SZ;
}

static unsigned largebin_index(uint64_t sz) /* largebin_index_64 */
{
    return (sz >> 6) <= 48 ? 48 + (unsigned)(sz >> 6)
         : (sz >> 9) <= 20 ? 91 + (unsigned)(sz >> 9)
         : (sz >> 12) <= 10 ? 110 + (unsigned)(sz >> 12)
         : (sz >> 15) <= 4 ? 119 + (unsigned)(sz >> 15)
         : (sz >> 18) <= 2 ? 124 + (unsigned)(sz >> 18)
         : 126;
}

static unsigned bin_index(uint64_t sz)
{
    return sz < MIN_LARGE_SIZE ? (unsigned)(sz >> 4) : largebin_index(sz);
}

static unsigned csize2tidx(uint64_t sz)
{
    return (unsigned)((sz - MINSIZE + MALLOC_ALIGNMENT - 1) / MALLOC_ALIGNMENT);
}

/* ---- hash maps ------------------------------------------------------------- */

static inline uint32_t map_hash(uint32_t key, uint32_t mask)
{
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static int map_init(gl_map *m, uint32_t cap)
{
    m->slots = malloc((size_t)cap * sizeof *m->slots);
    if (!m->slots)
        return -1;
    memset(m->slots, 0xff, (size_t)cap * sizeof *m->slots);
    m->mask = cap - 1;
    m->count = 0;
    return 0;
}

static inline uint32_t map_get(const gl_map *m, uint32_t key)
{
    for (uint32_t i = map_hash(key, m->mask);; i = (i + 1) & m->mask) {
        uint64_t s = m->slots[i];
        if (s == EMPTY)
            return NIL;
        if ((uint32_t)(s >> 32) == key)
            return (uint32_t)s;
    }
}

static int map_grow(gl_map *m)
{
    gl_map n;
    if (map_init(&n, (m->mask + 1) * 2))
        return -1;
    for (uint32_t i = 0; i <= m->mask; i++) {
        uint64_t s = m->slots[i];
        if (s == EMPTY)
            continue;
        uint32_t j = map_hash((uint32_t)(s >> 32), n.mask);
        while (n.slots[j] != EMPTY)
            j = (j + 1) & n.mask;
        n.slots[j] = s;
    }
    n.count = m->count;
    free(m->slots);
    *m = n;
    return 0;
}

/* Insert or overwrite.  The caller has reserved room (map_reserve). */
static inline void map_put(gl_map *m, uint32_t key, uint32_t val)
{
    uint32_t i = map_hash(key, m->mask);
    for (;; i = (i + 1) & m->mask) {
        uint64_t s = m->slots[i];
        if (s == EMPTY) {
            m->count++;
            break;
        }
        if ((uint32_t)(s >> 32) == key)
            break;
    }
    m->slots[i] = (uint64_t)key << 32 | val;
}

static inline int map_reserve(gl_map *m, uint32_t extra)
{
    while ((uint64_t)(m->count + extra) * 10 > (uint64_t)(m->mask + 1) * 7)
        if (map_grow(m))
            return -1;
    return 0;
}

static inline void map_del(gl_map *m, uint32_t key)
{
    uint32_t i = map_hash(key, m->mask);
    while ((uint32_t)(m->slots[i] >> 32) != key) {
        assert(m->slots[i] != EMPTY);
        i = (i + 1) & m->mask;
    }
    /* backward-shift deletion */
    for (uint32_t j = i;;) {
        j = (j + 1) & m->mask;
        uint64_t s = m->slots[j];
        if (s == EMPTY)
            break;
        uint32_t h = map_hash((uint32_t)(s >> 32), m->mask);
        if (((j - h) & m->mask) >= ((j - i) & m->mask)) {
            m->slots[i] = s;
            i = j;
        }
    }
    m->slots[i] = EMPTY;
    m->count--;
}

/* ---- records ---------------------------------------------------------------- */

static uint32_t rec_new(gl_state *st, uint64_t off, uint64_t size)
{
    uint32_t r = st->rec_free;
    if (r != NIL) {
        st->rec_free = st->recs[r].fd;
    } else {
        if (st->nrecs == st->recs_cap) {
            uint32_t cap = st->recs_cap * 2;
            gl_rec *n = realloc(st->recs, (size_t)cap * sizeof *n);
            if (!n)
                return NIL;
            st->recs = n;
            st->recs_cap = cap;
        }
        r = st->nrecs++;
    }
    st->recs[r] = (gl_rec){.off16 = (uint32_t)(off >> 4), .size16 = (uint32_t)(size >> 4),
                           .fd = NIL, .bk = NIL, .fd_ns = NIL, .bk_ns = NIL};
    return r;
}

static void rec_del(gl_state *st, uint32_t r)
{
    st->recs[r].fd = st->rec_free;
    st->rec_free = r;
}

static inline uint64_t rec_off(const gl_state *st, uint32_t r) { return (uint64_t)st->recs[r].off16 << 4; }
static inline uint64_t rec_size(const gl_state *st, uint32_t r) { return (uint64_t)st->recs[r].size16 << 4; }

/* ---- pages ----------------------------------------------------------------- */

static int pages_ensure(gl_state *st, uint64_t heap_bytes)
{
    uint64_t need = (heap_bytes >> LG_PAGE) + 2;
    if (need <= st->pages_cap)
        return 0;
    uint64_t cap = st->pages_cap ? st->pages_cap : 1024;
    while (cap < need)
        cap *= 2;
    uint64_t old_words = st->pages_cap ? st->pages_cap / 64 + 1 : 0, words = cap / 64 + 1;
    uint64_t *bits = realloc(st->res_bits, (size_t)words * sizeof *bits);
    if (!bits)
        return -1;
    st->res_bits = bits;
    memset(bits + old_words, 0, (size_t)(words - old_words) * sizeof *bits);
    uint8_t *live = realloc(st->live, (size_t)cap);
    if (!live)
        return -1;
    st->live = live;
    memset(live + st->pages_cap, 0, (size_t)(cap - st->pages_cap));
    st->pages_cap = cap;
    return 0;
}

/* The model (glibc or the application) writes [off, off + len): its pages
 * become resident, a word of 64 at a time. */
static inline void wr(gl_state *st, uint64_t off, uint64_t len)
{
    uint64_t lo = off >> LG_PAGE, hi = ((off + len - 1) >> LG_PAGE) + 1;
    if (hi <= lo)
        return;
    if (hi == lo + 1) { /* most writes: a header, a link, a small chunk */
        st->resident_pages += (uint64_t)rs_pb_set1(st->res_bits, lo);
        return;
    }
    st->resident_pages += rs_pb_set(st->res_bits, lo, hi);
}

/* Pages [lo, hi) (page numbers) stop being resident. */
static void unresident(gl_state *st, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return;
#ifndef NDEBUG
    for (uint64_t p = lo; p < hi; p++)
        assert(!((st->res_bits[p >> 6] >> (p & 63)) & 1) || st->live[p] == 0);
#endif
    uint64_t n = rs_pb_clear(st->res_bits, lo, hi); /* resident: released */
    st->resident_pages -= n;
    st->released_bytes += n * PAGE_BYTES;
}

/* A live chunk's usable range [off + 16, off + size + 8) comes or goes. */
static inline void live_add(gl_state *st, uint64_t off, uint64_t size)
{
    uint64_t p = (off + 16) >> LG_PAGE, last = (off + size + 7) >> LG_PAGE;
    for (; p <= last; p++)
        if (st->live[p]++ == 0)
            st->active_pages++;
}

static inline void live_sub(gl_state *st, uint64_t off, uint64_t size)
{
    uint64_t p = (off + 16) >> LG_PAGE, last = (off + size + 7) >> LG_PAGE;
    for (; p <= last; p++)
        if (--st->live[p] == 0)
            st->active_pages--;
}

/* ---- bins ------------------------------------------------------------------ */

static inline void mark_bin(gl_state *st, unsigned i)
{
    st->binmap[i >> 5] |= 1u << (i & 31);
}

/* A chunk becomes free for the arena: boundary maps and byte counters.  The
 * caller has reserved map room. */
static inline void arena_free_add(gl_state *st, uint32_t r)
{
    map_put(&st->starts, st->recs[r].off16, r);
    map_put(&st->ends, st->recs[r].off16 + st->recs[r].size16, r);
    st->bin_bytes += rec_size(st, r);
    st->bin_count++;
}

static inline void arena_free_remove(gl_state *st, uint32_t r)
{
    map_del(&st->starts, st->recs[r].off16);
    map_del(&st->ends, st->recs[r].off16 + st->recs[r].size16);
    st->bin_bytes -= rec_size(st, r);
    st->bin_count--;
}

/* Insert r at the head of the unsorted bin; write its header and footer. */
static void unsorted_insert(gl_state *st, uint32_t r)
{
    uint32_t fwd = st->recs[UNSORTED].fd;
    st->recs[r].fd = fwd;
    st->recs[r].bk = UNSORTED;
    st->recs[r].fd_ns = st->recs[r].bk_ns = NIL;
    st->recs[fwd].bk = r;
    st->recs[UNSORTED].fd = r;
    uint64_t off = rec_off(st, r), size = rec_size(st, r);
    wr(st, off + 8, size >= MIN_LARGE_SIZE ? 40 : 24); /* size, fd, bk (, nextsize) */
    wr(st, off + size, 8);                             /* set_foot */
}

/* unlink_chunk: take r out of its bin (or the unsorted bin). */
static void unlink_chunk(gl_state *st, uint32_t r)
{
    gl_rec *R = st->recs;
    uint32_t fd = R[r].fd, bk = R[r].bk;
    R[fd].bk = bk;
    R[bk].fd = fd;
    if (R[r].size16 >= MIN_LARGE_SIZE / 16 && R[r].fd_ns != NIL) {
        /* a bin header's "fd_nextsize" aliases the next bin's fd: never NULL */
        if (fd >= NBINS && R[fd].fd_ns == NIL) {
            if (R[r].fd_ns == r) {
                R[fd].fd_ns = R[fd].bk_ns = fd;
            } else {
                R[fd].fd_ns = R[r].fd_ns;
                R[fd].bk_ns = R[r].bk_ns;
                R[R[r].fd_ns].bk_ns = fd;
                R[R[r].bk_ns].fd_ns = fd;
            }
        } else {
            R[R[r].fd_ns].bk_ns = R[r].bk_ns;
            R[R[r].bk_ns].fd_ns = R[r].fd_ns;
        }
    }
}

/* Sort an unsorted chunk into its small or large bin. */
static void bin_insert(gl_state *st, uint32_t v)
{
    gl_rec *R = st->recs;
    uint32_t size16 = R[v].size16;
    unsigned idx = bin_index((uint64_t)size16 << 4);
    uint32_t bck = idx, fwd = R[bck].fd;
    if (size16 >= MIN_LARGE_SIZE / 16) {
        if (fwd != bck) {
            if (size16 < R[R[bck].bk].size16) {
                fwd = bck;
                bck = R[bck].bk;
                uint32_t first = R[fwd].fd;
                R[v].fd_ns = first;
                R[v].bk_ns = R[first].bk_ns;
                R[first].bk_ns = v;
                R[R[v].bk_ns].fd_ns = v;
            } else {
                while (size16 < R[fwd].size16)
                    fwd = R[fwd].fd_ns;
                if (size16 == R[fwd].size16) {
                    fwd = R[fwd].fd;
                } else {
                    R[v].fd_ns = fwd;
                    R[v].bk_ns = R[fwd].bk_ns;
                    R[fwd].bk_ns = v;
                    R[R[v].bk_ns].fd_ns = v;
                }
                bck = R[fwd].bk;
            }
        } else {
            R[v].fd_ns = R[v].bk_ns = v;
        }
    }
    mark_bin(st, idx);
    R[v].bk = bck;
    R[v].fd = fwd;
    R[fwd].bk = v;
    R[bck].fd = v;
}

/* ---- tcache ---------------------------------------------------------------- */

static inline void tcache_put(gl_state *st, gl_tcache *tc, uint32_t r, unsigned tidx)
{
    st->recs[r].fd = tc->head[tidx];
    tc->head[tidx] = r;
    tc->count[tidx]++;
    st->tcache_bytes += rec_size(st, r);
}

static inline uint64_t tcache_get(gl_state *st, gl_tcache *tc, unsigned tidx)
{
    uint32_t r = tc->head[tidx];
    tc->head[tidx] = st->recs[r].fd;
    tc->count[tidx]--;
    uint64_t off = rec_off(st, r);
    st->tcache_bytes -= rec_size(st, r);
    rec_del(st, r);
    return off;
}

/* ---- coalescing (the common part of _int_free and malloc_consolidate) ----- */

/* Chunk [off, off + size), in use for the arena, becomes free: merge with a
 * free predecessor and a free successor, then into the unsorted bin or the
 * top.  r is a record to use (or NIL).  Returns the merged size, or 0 when
 * the simulator ran out of memory. */
static uint64_t coalesce(gl_state *st, uint64_t off, uint64_t size, uint32_t r)
{
    uint64_t next = off + size;
    if (map_reserve(&st->starts, 1) || map_reserve(&st->ends, 1))
        return 0;
    if (r == NIL && (r = rec_new(st, off, size)) == NIL)
        return 0;
    uint32_t prev = map_get(&st->ends, (uint32_t)(off >> 4));
    if (prev != NIL) {
        unlink_chunk(st, prev);
        arena_free_remove(st, prev);
        off = rec_off(st, prev);
        size += rec_size(st, prev);
        rec_del(st, prev);
    }
    if (next != st->top) {
        uint32_t nx = map_get(&st->starts, (uint32_t)(next >> 4));
        if (nx != NIL) {
            unlink_chunk(st, nx);
            arena_free_remove(st, nx);
            size += rec_size(st, nx);
            rec_del(st, nx);
        } else {
            wr(st, next + 8, 8); /* clear_inuse_bit_at_offset */
        }
        st->recs[r].off16 = (uint32_t)(off >> 4);
        st->recs[r].size16 = (uint32_t)(size >> 4);
        unsorted_insert(st, r);
        arena_free_add(st, r);
    } else {
        rec_del(st, r);
        size += st->top_size;
        st->top = off;
        st->top_size = size;
        wr(st, off + 8, 8);
    }
    return size;
}

static void malloc_consolidate(gl_state *st)
{
    st->have_fastchunks = 0;
    for (unsigned i = 0; i < NFASTBINS; i++) {
        uint32_t p = st->fastbins[i];
        st->fastbins[i] = NIL;
        while (p != NIL) {
            uint32_t nextp = st->recs[p].fd;
            uint64_t off = rec_off(st, p), size = rec_size(st, p);
            st->fast_bytes -= size;
            st->fast_count--;
            /* the record is reused, so no allocation: cannot fail unless
             * the maps cannot grow; then the chunk is leaked (never seen) */
            if (!coalesce(st, off, size, p))
                assert(!"out of memory in malloc_consolidate");
            p = nextp;
        }
    }
}

/* ---- sysmalloc / systrim ---------------------------------------------------- */

/* 1 = mmapped chunk at *r_off; 0 = heap chunk; -1 = out of memory. */
static int sysmalloc(gl_state *st, uint64_t nb, uint64_t *r_off)
{
    if (nb >= st->mmap_threshold && st->n_mmaps < st->n_mmaps_max) {
        uint64_t size = mmap_chunk_bytes(nb);
        /* the mappings' span is bounded like every model's heap, and the
         * next mapping's address cannot wrap */
        if (st->mmapped_bytes + size > RS_ALLOC_MAX_HEAP_BYTES ||
            st->mmap_next > UINT64_MAX - RS_ALLOC_MAX_HEAP_BYTES - 2 * PAGE_BYTES)
            return -1;
        *r_off = st->mmap_next;
        st->mmap_next += size + PAGE_BYTES; /* keep mappings apart */
        st->n_mmaps++;
        st->mmapped_bytes += size;
        return 1;
    }
    uint64_t size = (nb + st->top_pad + MINSIZE - st->top_size + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
    if (st->system_mem + size > MAX_HEAP_BYTES || pages_ensure(st, st->system_mem + size))
        return -1;
    if (st->system_mem == 0)
        st->top = 0;
    st->system_mem += size;
    st->top_size += size;
    wr(st, st->top + 8, 8); /* set_head (av->top) */
    assert(st->top + st->top_size == st->system_mem);
    uint64_t off = st->top;
    st->top += nb;
    st->top_size -= nb;
    wr(st, off + 8, 8);
    wr(st, st->top + 8, 8);
    *r_off = off;
    return 0;
}

static void systrim(gl_state *st, uint64_t pad)
{
    if (st->top_size <= MINSIZE + 1)
        return;
    uint64_t top_area = st->top_size - MINSIZE - 1;
    if (top_area <= pad)
        return;
    uint64_t extra = (top_area - pad) & ~(PAGE_BYTES - 1);
    if (extra == 0)
        return;
    unresident(st, (st->system_mem - extra) >> LG_PAGE, st->system_mem >> LG_PAGE);
    st->system_mem -= extra;
    st->top_size -= extra;
}

/* ---- _int_malloc ------------------------------------------------------------ */

/* Hand out [off, off + nb) from free chunk v of size `size` (already unlinked
 * and out of the maps): whole when the rest is < MINSIZE, else the rest goes
 * to the unsorted bin (reusing v).  Returns the chunk size handed out. */
static uint64_t split_free(gl_state *st, uint32_t v, uint64_t nb, int set_last_remainder)
{
    uint64_t off = rec_off(st, v), size = rec_size(st, v), rs = size - nb;
    if (rs < MINSIZE) {
        wr(st, off + size + 8, 8); /* set_inuse_bit_at_offset */
        rec_del(st, v);
        return size;
    }
    st->recs[v].off16 = (uint32_t)((off + nb) >> 4);
    st->recs[v].size16 = (uint32_t)(rs >> 4);
    unsorted_insert(st, v);
    arena_free_add(st, v);
    if (set_last_remainder)
        st->last_remainder = st->recs[v].off16;
    wr(st, off + 8, 8); /* set_head (victim) */
    return nb;
}

/* 0: heap chunk [*r_off, *r_off + *r_size); 1: mmapped chunk at *r_off;
 * -1: the simulator ran out of memory. */
static int int_malloc(gl_state *st, uint64_t nb, gl_tcache *tc, uint64_t *r_off, uint64_t *r_size)
{
    gl_rec *R;
    unsigned tidx = csize2tidx(nb);
    int use_tc = tc && tidx < TCACHE_MAX_BINS;
    unsigned idx;

    /* the maps must be able to take a remainder (records are only reused here) */
    if (map_reserve(&st->starts, 2) || map_reserve(&st->ends, 2))
        return -1;
    R = st->recs;
    *r_size = nb;

    if (nb <= MAX_FAST) {
        unsigned fi = (unsigned)(nb >> 4) - 2;
        uint32_t v = st->fastbins[fi];
        if (v != NIL) {
            st->fastbins[fi] = R[v].fd;
            st->fast_bytes -= nb;
            st->fast_count--;
            if (use_tc)
                while (tc->count[tidx] < st->tcache_count && st->fastbins[fi] != NIL) {
                    uint32_t w = st->fastbins[fi];
                    st->fastbins[fi] = R[w].fd;
                    st->fast_bytes -= nb;
                    st->fast_count--;
                    tcache_put(st, tc, w, tidx);
                }
            *r_off = rec_off(st, v);
            rec_del(st, v);
            return 0;
        }
    }

    if (nb < MIN_LARGE_SIZE) {
        idx = (unsigned)(nb >> 4);
        uint32_t v = R[idx].bk;
        if (v != idx) {
            uint32_t bck = R[v].bk;
            R[idx].bk = bck;
            R[bck].fd = idx;
            arena_free_remove(st, v);
            *r_off = rec_off(st, v);
            wr(st, *r_off + nb + 8, 8);
            rec_del(st, v);
            if (use_tc)
                while (tc->count[tidx] < st->tcache_count && (v = R[idx].bk) != idx) {
                    bck = R[v].bk;
                    R[idx].bk = bck;
                    R[bck].fd = idx;
                    arena_free_remove(st, v);
                    wr(st, rec_off(st, v) + nb + 8, 8);
                    tcache_put(st, tc, v, tidx);
                }
            return 0;
        }
    } else {
        idx = largebin_index(nb);
        if (st->have_fastchunks) {
            malloc_consolidate(st);
            if (map_reserve(&st->starts, 2) || map_reserve(&st->ends, 2))
                return -1;
        }
    }

    uint64_t tcache_nb = use_tc ? nb : 0;
    int return_cached = 0;
    for (;;) {
        int iters = 0;
        uint32_t v;
        R = st->recs;
        while ((v = R[UNSORTED].bk) != UNSORTED) {
            uint32_t bck = R[v].bk;
            uint64_t size = rec_size(st, v), off = rec_off(st, v);
            if (nb < MIN_LARGE_SIZE && bck == UNSORTED && R[v].off16 == st->last_remainder &&
                size > nb + MINSIZE) {
                /* split the last remainder in place; it stays the only
                 * unsorted chunk, its end (and end map entry) unchanged */
                uint64_t rem = off + nb, rs = size - nb;
                map_del(&st->starts, R[v].off16);
                R[v].off16 = (uint32_t)(rem >> 4);
                R[v].size16 = (uint32_t)(rs >> 4);
                R[v].fd_ns = R[v].bk_ns = NIL;
                map_put(&st->starts, R[v].off16, v);
                st->bin_bytes -= nb;
                st->last_remainder = R[v].off16;
                wr(st, off + 8, 8);
                wr(st, rem + 8, rs >= MIN_LARGE_SIZE ? 40 : 24);
                wr(st, rem + rs, 8);
                *r_off = off;
                return 0;
            }
            R[UNSORTED].bk = bck;
            R[bck].fd = UNSORTED;
            if (size == nb) {
                arena_free_remove(st, v);
                wr(st, off + size + 8, 8);
                if (tcache_nb && tc->count[tidx] < st->tcache_count) {
                    tcache_put(st, tc, v, tidx);
                    return_cached = 1;
                    continue;
                }
                rec_del(st, v);
                *r_off = off;
                return 0;
            }
            bin_insert(st, v);
            if (++iters >= MAX_ITERS)
                break;
        }
        if (return_cached) {
            *r_off = tcache_get(st, tc, tidx);
            return 0;
        }

        if (nb >= MIN_LARGE_SIZE) {
            uint32_t first = R[idx].fd;
            if (first != idx && rec_size(st, first) >= nb) {
                v = R[first].bk_ns;
                while (rec_size(st, v) < nb)
                    v = R[v].bk_ns;
                if (v != R[idx].bk && R[v].size16 == R[R[v].fd].size16)
                    v = R[v].fd;
                unlink_chunk(st, v);
                arena_free_remove(st, v);
                *r_off = rec_off(st, v);
                *r_size = split_free(st, v, nb, 0);
                return 0;
            }
        }

        /* binmap search of the larger bins */
        unsigned bin = idx + 1, block = bin >> 5;
        uint32_t map = st->binmap[block], bit = 1u << (bin & 31);
        for (;;) {
            if (bit > map || bit == 0) {
                do {
                    if (++block >= BINMAPSIZE)
                        goto use_top;
                } while ((map = st->binmap[block]) == 0);
                bin = block << 5;
                bit = 1;
            }
            while ((bit & map) == 0) {
                bin++;
                bit <<= 1;
            }
            v = R[bin].bk;
            if (v == bin) {
                st->binmap[block] = map &= ~bit;
                bin++;
                bit <<= 1;
            } else {
                unlink_chunk(st, v);
                arena_free_remove(st, v);
                *r_off = rec_off(st, v);
                *r_size = split_free(st, v, nb, nb < MIN_LARGE_SIZE);
                return 0;
            }
        }

    use_top:
        if (st->system_mem && st->top_size >= nb + MINSIZE) {
            *r_off = st->top;
            st->top += nb;
            st->top_size -= nb;
            wr(st, *r_off + 8, 8);
            wr(st, st->top + 8, 8);
            return 0;
        } else if (st->have_fastchunks) {
            malloc_consolidate(st);
            if (map_reserve(&st->starts, 2) || map_reserve(&st->ends, 2))
                return -1;
            idx = bin_index(nb);
        } else {
            return sysmalloc(st, nb, r_off);
        }
    }
}

/* ---- _int_free -------------------------------------------------------------- */

/* 0, or -1 when the simulator ran out of memory (the chunk is then lost). */
static int int_free(gl_state *st, uint64_t off, uint64_t size, gl_tcache *tc)
{
    unsigned tidx = csize2tidx(size);
    if (tc && tidx < TCACHE_MAX_BINS && tc->count[tidx] < st->tcache_count) {
        uint32_t r = rec_new(st, off, size);
        if (r == NIL)
            return -1;
        tcache_put(st, tc, r, tidx);
        return 0;
    }
    if (size <= MAX_FAST) {
        uint32_t r = rec_new(st, off, size);
        if (r == NIL)
            return -1;
        unsigned fi = (unsigned)(size >> 4) - 2;
        st->have_fastchunks = 1;
        st->recs[r].fd = st->fastbins[fi];
        st->fastbins[fi] = r;
        st->fast_bytes += size;
        st->fast_count++;
        return 0;
    }
    uint64_t merged = coalesce(st, off, size, NIL);
    if (!merged)
        return -1;
    if (merged >= FASTBIN_CONSOLIDATION_THRESHOLD) {
        if (st->have_fastchunks)
            malloc_consolidate(st);
        if (st->top_size >= st->trim_threshold)
            systrim(st, st->top_pad);
    }
    return 0;
}

/* ---- the plug-in ------------------------------------------------------------- */

static int stats_ordered(const gl_state *st)
{
    return st->requested_bytes <= st->allocated_bytes &&
           st->allocated_bytes <= st->active_pages * PAGE_BYTES + st->mmapped_bytes &&
           st->active_pages <= st->resident_pages &&
           st->resident_pages * PAGE_BYTES <= st->system_mem;
}

static gl_tcache *tcache_for(gl_state *st, uint32_t thread, int *r_fail)
{
    uint32_t t = thread % MAX_TCACHES;
    *r_fail = 0;
    if (t >= st->ntcaches) {
        uint32_t n = t + 1;
        gl_tcache *a = realloc(st->tcaches, (size_t)n * sizeof *a);
        if (!a) {
            *r_fail = 1;
            return NULL;
        }
        memset(a + st->ntcaches, 0, (size_t)(n - st->ntcaches) * sizeof *a);
        st->tcaches = a;
        st->ntcaches = n;
    }
    gl_tcache *tc = &st->tcaches[t];
    if (!tc->inited) {
        /* tcache_init: _int_malloc (sizeof (tcache_perthread_struct)) with
         * tcache still NULL, then memset */
        uint64_t off, csize;
        int rc = int_malloc(st, rs_gl_request2size(TCACHE_STRUCT_BYTES), NULL, &off, &csize);
        if (rc != 0) {
            *r_fail = 1;
            return NULL;
        }
        wr(st, off + 16, TCACHE_STRUCT_BYTES);
        st->metadata_bytes += csize;
        for (unsigned i = 0; i < TCACHE_MAX_BINS; i++)
            tc->head[i] = NIL;
        tc->inited = 1;
    }
    return tc;
}

static const rs_param gl_params[] = {
    {.key = "glibc_trim_threshold", .type = RS_PT_SIZE, .def = "128K",
     .doc = "M_TRIM_THRESHOLD / glibc.malloc.trim_threshold: top chunk size that triggers "
            "sbrk trimming (setting it, like glibc, disables the dynamic thresholds)"},
    {.key = "glibc_mmap_threshold", .type = RS_PT_SIZE, .def = "128K",
     .doc = "M_MMAP_THRESHOLD / glibc.malloc.mmap_threshold: chunk size from which requests "
            "are mmapped (setting it disables the dynamic rise, as in glibc)"},
    {.key = "glibc_tcache_count", .type = RS_PT_INT, .def = "7",
     .doc = "glibc.malloc.tcache_count: chunks per tcache bin (0..65535; 0 disables the tcache)"},
    {.key = NULL},
};

static void destroy(void *state)
{
    gl_state *st = state;
    if (!st)
        return;
    free(st->recs);
    free(st->starts.slots);
    free(st->ends.slots);
    free(st->slack.slots);
    free(st->tcaches);
    free(st->res_bits);
    free(st->live);
    free(st);
}

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    uint64_t trim = DEFAULT_TRIM_THRESHOLD, mmap_thr = DEFAULT_MMAP_THRESHOLD;
    int64_t count = TCACHE_FILL_COUNT;
    int no_dyn = 0;
    if (cfg) {
        if (rs_config_raw(cfg, "glibc_trim_threshold")) {
            trim = rs_config_size(cfg, "glibc_trim_threshold");
            no_dyn = 1;
        }
        if (rs_config_raw(cfg, "glibc_mmap_threshold")) {
            mmap_thr = rs_config_size(cfg, "glibc_mmap_threshold");
            no_dyn = 1;
            if (mmap_thr > DEFAULT_MMAP_THRESHOLD_MAX) /* do_set_mmap_threshold refuses */
                return rs_fail(err, RS_EINPUT,
                               "invalid value %llu for 'glibc_mmap_threshold' (at most 32 MiB)",
                               (unsigned long long)mmap_thr);
        }
        if (rs_config_raw(cfg, "glibc_tcache_count"))
            count = rs_config_int(cfg, "glibc_tcache_count");
        if (count < 0 || count > MAX_TCACHE_COUNT)
            return rs_fail(err, RS_EINPUT, "invalid value %lld for 'glibc_tcache_count' (0..65535)",
                           (long long)count);
    }
    gl_state *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator glibc");
    st->mmap_threshold = mmap_thr;
    st->trim_threshold = trim;
    st->top_pad = DEFAULT_TOP_PAD;
    st->tcache_count = (uint32_t)count;
    st->n_mmaps_max = DEFAULT_MMAP_MAX;
    st->no_dyn_threshold = no_dyn;
    st->recs_cap = 1024;
    st->recs = malloc((size_t)st->recs_cap * sizeof *st->recs);
    st->rec_free = NIL;
    st->last_remainder = NIL;
    st->mmap_next = RS_GL_MMAP_BASE;
    if (!st->recs || map_init(&st->starts, 1024) || map_init(&st->ends, 1024) ||
        map_init(&st->slack, 64) || pages_ensure(st, 0)) {
        destroy(st);
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator glibc");
    }
    for (uint32_t i = 0; i < NBINS; i++)
        st->recs[i] = (gl_rec){.fd = i, .bk = i, .fd_ns = NIL, .bk_ns = NIL};
    st->nrecs = NBINS;
    for (unsigned i = 0; i < NFASTBINS; i++)
        st->fastbins[i] = NIL;
    *r_state = st;
    return 0;
}

static rs_addr gl_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    gl_state *st = state;
    (void)now_ns;
    if (size_bytes > MAX_REQUEST)
        return 0;
    uint64_t nb = rs_gl_request2size(size_bytes), off, csize = nb;
    int fail;
    gl_tcache *tc = tcache_for(st, thread, &fail);
    if (fail)
        return 0;
    unsigned tidx = csize2tidx(nb);
    if (tidx < TCACHE_MAX_BINS && tc->count[tidx] > 0) {
        off = tcache_get(st, tc, tidx);
    } else {
        int rc = int_malloc(st, nb, tc, &off, &csize);
        if (rc < 0)
            return 0;
        if (rc == 1) {
            uint64_t size = mmap_chunk_bytes(nb);
            st->allocated_bytes += size - 16;
            st->requested_bytes += size_bytes;
            st->live_count++;
            assert(stats_ordered(st));
            return off + 16;
        }
        if (csize != nb) {
            if (map_reserve(&st->slack, 1)) {
                int_free(st, off, csize, NULL);
                return 0;
            }
            map_put(&st->slack, (uint32_t)(off >> 4), 1);
        }
    }
    wr(st, off + 16, csize - 8); /* the application writes the usable range */
    live_add(st, off, csize);
    st->allocated_bytes += csize - 8;
    st->requested_bytes += size_bytes;
    st->live_count++;
    assert(stats_ordered(st));
    return RS_GL_HEAP_BASE + off + 16;
}

static void gl_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    gl_state *st = state;
    (void)now_ns;
    uint64_t nb = rs_gl_request2size(size_bytes);
    st->requested_bytes -= size_bytes;
    st->live_count--;
    if (addr >= RS_GL_MMAP_BASE) {
        uint64_t size = mmap_chunk_bytes(nb);
        /* __libc_free: the dynamic threshold rise, then munmap_chunk */
        if (!st->no_dyn_threshold && size > st->mmap_threshold && size <= DEFAULT_MMAP_THRESHOLD_MAX) {
            st->mmap_threshold = size;
            st->trim_threshold = 2 * size;
        }
        st->allocated_bytes -= size - 16;
        st->mmapped_bytes -= size;
        st->n_mmaps--;
        st->released_bytes += size;
        assert(stats_ordered(st));
        return;
    }
    assert(addr >= RS_GL_HEAP_BASE + 16 && addr - RS_GL_HEAP_BASE < st->system_mem);
    uint64_t off = addr - RS_GL_HEAP_BASE - 16, csize = nb;
    if (st->slack.count && map_get(&st->slack, (uint32_t)(off >> 4)) != NIL) {
        map_del(&st->slack, (uint32_t)(off >> 4));
        csize += 16;
    }
    live_sub(st, off, csize);
    st->allocated_bytes -= csize - 8;
    int fail;
    gl_tcache *tc = tcache_for(st, thread, &fail); /* MAYBE_INIT_TCACHE */
    int rc = int_free(st, off, csize, tc);
    (void)rc; /* on host OOM the chunk is lost to the model, as a leak */
    assert(stats_ordered(st));
}

static uint64_t gl_usable_size(const void *state, uint64_t size_bytes)
{
    const gl_state *st = state;
    if (size_bytes > MAX_REQUEST)
        return 0; /* too large: gl_alloc refuses it (and request2size would wrap) */
    uint64_t nb = rs_gl_request2size(size_bytes);
    if (st && nb >= st->mmap_threshold)
        return rs_gl_mmap_usable_size(size_bytes);
    return nb - SIZE_SZ;
}

static void gl_release(void *state, uint64_t now_ns)
{
    gl_state *st = state;
    (void)now_ns;
    /* mtrim (av, 0) */
    malloc_consolidate(st);
    for (unsigned i = 1; i < NBINS; i++) {
        if (i != 1 && i < TRIM_BIN_MIN)
            continue;
        for (uint32_t p = st->recs[i].bk; p != i; p = st->recs[p].bk) {
            uint64_t off = rec_off(st, p), size = rec_size(st, p);
            if (size <= PAGE_BYTES - 1 + CHUNK_STRUCT)
                continue;
            uint64_t lo = (off + CHUNK_STRUCT + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
            uint64_t hi = (off + size) & ~(PAGE_BYTES - 1);
            if (hi > lo)
                unresident(st, lo >> LG_PAGE, hi >> LG_PAGE);
        }
    }
    systrim(st, 0);
    assert(stats_ordered(st));
}

static void gl_stats(const void *state, rs_alloc_stats *r)
{
    const gl_state *st = state;
    *r = (rs_alloc_stats){
        .requested_bytes = st->requested_bytes,
        .allocated_bytes = st->allocated_bytes,
        .active_bytes = st->active_pages * PAGE_BYTES + st->mmapped_bytes,
        .resident_bytes = st->resident_pages * PAGE_BYTES + st->mmapped_bytes,
        .mapped_bytes = st->system_mem + st->mmapped_bytes,
        .metadata_bytes = st->metadata_bytes,
        .cached_bytes = st->tcache_bytes + st->fast_bytes,
        .dirty_bytes = (st->resident_pages - st->active_pages) * PAGE_BYTES,
        .released_bytes = st->released_bytes,
        .live_count = st->live_count,
        .thread_cached_bytes = st->tcache_bytes,
        .heap_bytes = st->system_mem + st->mmapped_bytes, /* mallinfo2 arena + hblkhd */
    };
}

/* glibc's own malloc, the one linked in. */
static const rs_alloc_real gl_real = {
    .soname = NULL,
    .package = "libc6",
    .lib_tag = "/libc.so",
    .api = RS_ALLOC_API_MALLINFO2,
    .reports = RS_ALLOC_F_ALLOCATED | RS_ALLOC_F_MAPPED | RS_ALLOC_F_DIRTY,
};

const rs_alloc_ops rs_alloc_glibc = {
    .name = "glibc",
    .doc = "glibc 2.36 ptmalloc2 (main arena shared by all threads, per-thread tcache): "
           "tcache, fastbins, unsorted/small/large bins, coalescing, top trim, mmap threshold",
    .params = gl_params,
    .create = create,
    .destroy = destroy,
    .alloc = gl_alloc,
    .free = gl_free,
    .usable_size = gl_usable_size,
    .advance = NULL,
    .release = gl_release,
    .stats = gl_stats,
    .prefetch = NULL,
    .reports = RS_ALLOC_F_THREAD_CACHED | RS_ALLOC_F_HEAP,
    .audit = rs_gl_audit,
    .footprint_bytes = rs_gl_footprint_bytes,
    .real = &gl_real,
};

/* ---- inspection, audit, footprint ----------------------------------------- */

void rs_gl_mallinfo2(const void *state, rs_gl_mallinfo *r)
{
    const gl_state *st = state;
    uint64_t fordblks = st->top_size + st->fast_bytes + st->bin_bytes;
    *r = (rs_gl_mallinfo){
        .arena = st->system_mem,
        .ordblks = st->bin_count + 1,
        .smblks = st->fast_count,
        .hblks = st->n_mmaps,
        .hblkhd = st->mmapped_bytes,
        .fsmblks = st->fast_bytes,
        .uordblks = st->system_mem - fordblks,
        .fordblks = fordblks,
        .keepcost = st->top_size,
    };
}

uint64_t rs_gl_mmap_threshold(const void *state) { return ((const gl_state *)state)->mmap_threshold; }
uint64_t rs_gl_trim_threshold(const void *state) { return ((const gl_state *)state)->trim_threshold; }

uint64_t rs_gl_heap_resident_bytes(const void *state)
{
    return ((const gl_state *)state)->resident_pages * PAGE_BYTES;
}

uint64_t rs_gl_chunk_size_of(const void *state, rs_addr addr, uint64_t size_bytes)
{
    const gl_state *st = state;
    uint64_t nb = rs_gl_request2size(size_bytes);
    if (addr >= RS_GL_MMAP_BASE)
        return mmap_chunk_bytes(nb);
    uint64_t off = addr - RS_GL_HEAP_BASE - 16;
    return nb + (map_get(&st->slack, (uint32_t)(off >> 4)) != NIL ? 16 : 0);
}

typedef struct iv {
    uint64_t lo, hi;
    int kind; /* 0 arena-free, 1 cached */
} iv;

static int iv_cmp(const void *a, const void *b)
{
    const iv *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int rs_gl_audit(const void *state, rs_err *err)
{
    const gl_state *st = state;
    const gl_rec *R = st->recs;
    uint64_t n = st->bin_count + st->fast_count + st->tcache_bytes / 32 + 2;
    iv *ivs = malloc((size_t)n * sizeof *ivs);
    uint64_t niv = 0, bin_bytes = 0, bin_count = 0, fast_bytes = 0, fast_count = 0, tc_bytes = 0;
    int rc = 0;
    if (!ivs)
        return rs_fail(err, RS_ENOMEM, "out of memory in audit");
#define AUDIT_FAIL(...) do { rc = rs_fail(err, RS_EINTERNAL, __VA_ARGS__); goto out; } while (0)
#define ADD_IV(off, size, k) do { if (niv >= n) AUDIT_FAIL("more chunks than counted"); \
        ivs[niv++] = (iv){.lo = (off), .hi = (off) + (size), .kind = (k)}; } while (0)
    for (unsigned b = 1; b < NBINS; b++) {
        uint32_t prev = b;
        uint64_t last_size = UINT64_MAX;
        for (uint32_t p = R[b].fd; p != b; prev = p, p = R[p].fd) {
            if (p < NBINS || p >= st->nrecs || R[p].bk != prev)
                AUDIT_FAIL("bin %u: broken links at record %u", b, p);
            uint64_t size = rec_size(st, p), off = rec_off(st, p);
            if (size < MINSIZE || (b != UNSORTED && bin_index(size) != b))
                AUDIT_FAIL("bin %u holds a chunk of %llu bytes", b, (unsigned long long)size);
            if (b >= 64) {
                if (size > last_size)
                    AUDIT_FAIL("large bin %u not sorted", b);
                int head = size != last_size;
                if (head != (R[p].fd_ns != NIL))
                    AUDIT_FAIL("large bin %u: skip-list membership wrong at %u", b, p);
                last_size = size;
            }
            if (map_get(&st->starts, R[p].off16) != p ||
                map_get(&st->ends, R[p].off16 + R[p].size16) != p)
                AUDIT_FAIL("chunk at %llu missing from the boundary maps", (unsigned long long)off);
            bin_bytes += size;
            bin_count++;
            ADD_IV(off, size, 0);
            if (bin_count > st->nrecs)
                AUDIT_FAIL("bin %u loops", b);
        }
        if (b >= 2 && R[b].fd != b && !(st->binmap[b >> 5] & (1u << (b & 31))))
            AUDIT_FAIL("bin %u non-empty but not in the binmap", b);
        if (b >= 64 && R[b].fd != b) { /* the skip list visits every size group */
            uint32_t h = R[b].fd, k = 0;
            do {
                if (R[R[h].fd_ns].bk_ns != h)
                    AUDIT_FAIL("large bin %u: nextsize links broken", b);
                h = R[h].fd_ns;
            } while (h != R[b].fd && ++k <= st->nrecs);
        }
    }
    if (bin_count != st->bin_count || bin_bytes != st->bin_bytes || st->starts.count != bin_count ||
        st->ends.count != bin_count)
        AUDIT_FAIL("bins hold %llu chunks / %llu bytes; counters %llu / %llu; maps %u / %u",
                   (unsigned long long)bin_count, (unsigned long long)bin_bytes,
                   (unsigned long long)st->bin_count, (unsigned long long)st->bin_bytes,
                   st->starts.count, st->ends.count);
    for (unsigned i = 0; i < NFASTBINS; i++)
        for (uint32_t p = st->fastbins[i]; p != NIL; p = R[p].fd) {
            if (rec_size(st, p) != ((uint64_t)i + 2) << 4)
                AUDIT_FAIL("fastbin %u holds a chunk of %llu bytes", i, (unsigned long long)rec_size(st, p));
            fast_bytes += rec_size(st, p);
            fast_count++;
            ADD_IV(rec_off(st, p), rec_size(st, p), 1);
        }
    if (fast_bytes != st->fast_bytes || fast_count != st->fast_count)
        AUDIT_FAIL("fastbins hold %llu bytes, counter %llu", (unsigned long long)fast_bytes,
                   (unsigned long long)st->fast_bytes);
    for (uint32_t t = 0; t < st->ntcaches; t++)
        for (unsigned i = 0; i < TCACHE_MAX_BINS; i++) {
            unsigned c = 0;
            for (uint32_t p = st->tcaches[t].head[i]; st->tcaches[t].inited && p != NIL; p = R[p].fd) {
                if (csize2tidx(rec_size(st, p)) != i)
                    AUDIT_FAIL("tcache %u bin %u holds a chunk of %llu bytes", t, i,
                               (unsigned long long)rec_size(st, p));
                tc_bytes += rec_size(st, p);
                c++;
                ADD_IV(rec_off(st, p), rec_size(st, p), 1);
            }
            if (st->tcaches[t].inited && c != st->tcaches[t].count[i])
                AUDIT_FAIL("tcache %u bin %u: %u chunks, count %u", t, i, c, st->tcaches[t].count[i]);
            if (c > st->tcache_count)
                AUDIT_FAIL("tcache %u bin %u over its count", t, i);
        }
    if (tc_bytes != st->tcache_bytes)
        AUDIT_FAIL("tcaches hold %llu bytes, counter %llu", (unsigned long long)tc_bytes,
                   (unsigned long long)st->tcache_bytes);
    qsort(ivs, (size_t)niv, sizeof *ivs, iv_cmp);
    for (uint64_t i = 0; i < niv; i++) {
        if (ivs[i].hi > st->top)
            AUDIT_FAIL("chunk [%llu, %llu) reaches into the top at %llu", (unsigned long long)ivs[i].lo,
                       (unsigned long long)ivs[i].hi, (unsigned long long)st->top);
        if (i && ivs[i].lo < ivs[i - 1].hi)
            AUDIT_FAIL("chunks at %llu and %llu overlap", (unsigned long long)ivs[i - 1].lo,
                       (unsigned long long)ivs[i].lo);
        if (i && ivs[i].kind == 0 && ivs[i - 1].kind == 0 && ivs[i].lo == ivs[i - 1].hi)
            AUDIT_FAIL("free chunks at %llu and %llu not coalesced", (unsigned long long)ivs[i - 1].lo,
                       (unsigned long long)ivs[i].lo);
        if (ivs[i].kind == 0 && ivs[i].hi == st->top)
            AUDIT_FAIL("free chunk at %llu borders the top", (unsigned long long)ivs[i].lo);
        /* pages wholly inside a free or cached chunk's body hold no live byte */
        uint64_t lo = (ivs[i].lo + 16 + PAGE_BYTES - 1) >> LG_PAGE, hi = (ivs[i].hi + 8) >> LG_PAGE;
        for (uint64_t p = lo; p < hi; p++)
            if (st->live[p])
                AUDIT_FAIL("page %llu inside the free chunk at %llu has live bytes",
                           (unsigned long long)p, (unsigned long long)ivs[i].lo);
    }
    if (st->system_mem && st->top + st->top_size != st->system_mem)
        AUDIT_FAIL("top [%llu + %llu] does not end the heap at %llu", (unsigned long long)st->top,
                   (unsigned long long)st->top_size, (unsigned long long)st->system_mem);
    {
        uint64_t res = 0, act = 0, heap_pages = st->system_mem >> LG_PAGE;
        for (uint64_t p = 0; p < st->pages_cap; p++) {
            int bit = (int)((st->res_bits[p >> 6] >> (p & 63)) & 1);
            if (p >= heap_pages && (bit || st->live[p]))
                AUDIT_FAIL("page %llu beyond the heap end is in use", (unsigned long long)p);
            if (st->live[p] && !bit)
                AUDIT_FAIL("page %llu holds live bytes but is not resident", (unsigned long long)p);
            res += (uint64_t)bit;
            act += st->live[p] != 0;
        }
        if (res != st->resident_pages || act != st->active_pages)
            AUDIT_FAIL("pages: resident %llu/%llu active %llu/%llu", (unsigned long long)res,
                       (unsigned long long)st->resident_pages, (unsigned long long)act,
                       (unsigned long long)st->active_pages);
    }
    if (st->live_count == 0 && (st->requested_bytes || st->allocated_bytes || st->active_pages))
        AUDIT_FAIL("no live allocation but requested %llu allocated %llu",
                   (unsigned long long)st->requested_bytes, (unsigned long long)st->allocated_bytes);
    if (!stats_ordered(st))
        AUDIT_FAIL("stats out of order");
#undef ADD_IV
#undef AUDIT_FAIL
out:
    free(ivs);
    return rc;
}

uint64_t rs_gl_footprint_bytes(const void *state)
{
    const gl_state *st = state;
    return sizeof *st + (uint64_t)st->recs_cap * sizeof *st->recs +
           ((uint64_t)st->starts.mask + 1 + st->ends.mask + 1 + st->slack.mask + 1) * sizeof(uint64_t) +
           (uint64_t)st->ntcaches * sizeof *st->tcaches + (st->pages_cap / 64 + 1) * sizeof(uint64_t) +
           st->pages_cap;
}
