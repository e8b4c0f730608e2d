/*
 * tcmalloc.c — a model of gperftools 2.10 tcmalloc, Ceph's default
 * allocator.  Every allocation goes through the same layers as in tcmalloc,
 * on simulated 8 KiB tcmalloc pages made of 4 KiB OS pages:
 *
 *   size <= 256 KiB ─► thread cache of the calling thread (per-class LIFO
 *        lists, slow-start max_length, ListTooLong, Scavenge, a per-thread
 *        max_size drawn from a global budget with stealing)
 *     ─► central free list of the class: transfer cache (batches of
 *        num_objects_to_move) in front of spans; a span's free objects form
 *        a LIFO list; spans in a nonempty list, newest first
 *     ─► page heap: spans from exact-length LIFO lists (<= 128 pages) or a
 *        best-fit set ordered by (length, address) (> 128 pages), normal
 *        before returned at each length; coalescing of free neighbours of the
 *        same kind; growth by >= 1 MiB; the release-rate scavenger
 *   size > 256 KiB ─► page heap directly (whole pages).
 *
 * Rules come from the gperftools-2.10 sources (docs/models.md lists each with
 * its file and function): src/common.cc (SizeMap::Init, AlignmentForSize,
 * NumMoveSize), src/central_freelist.cc, src/thread_cache.{h,cc},
 * src/page_heap.cc, src/span.h, src/linked_list.h, src/tcmalloc.cc
 * (do_malloc, do_free_with_callback, ReleaseToSystem).  A span's free
 * objects are kept as a real singly linked chain (through a link word per
 * object slot; implicit while it is still the one Populate laid), a thread
 * cache's lists as stacks of offsets in the same order (tc_freelist), a
 * transfer cache slot and the objects a fetch takes as arrays of offsets
 * in chain order, so that every reuse order is tcmalloc's.
 *
 * Residency ("touching" model of alloc.h): a 4 KiB page becomes resident
 * when a live object's requested range overlaps it (the application writes
 * what it asked for, not the class's tail), and also when Populate
 * writes the free-list link into the first word of each object of a new span
 * (central_freelist.cc Populate does that for every object); it stays
 * resident until the page heap releases the span holding it (DecommitSpan =
 * madvise(MADV_DONTNEED)).  Counters are incremental so stats() is O(classes
 * + threads):
 *   active   = OS pages overlapped by >= 1 live object's requested range
 *   resident = resident OS pages + metadata estimate
 *   mapped   = heap_size - pageheap_unmapped + metadata
 * giving requested <= allocated, requested <= active <= resident <= mapped (asserted
 * after each operation in debug builds).
 *
 * Simulator cost: per tcmalloc page a 4-byte page-map entry and two 2-byte
 * OS-page words (live-object count, resident bit); per span a 32-byte record;
 * per object slot of a live small span a 2-byte link, the next free
 * object's index in its span (slots come in chunks of 16 per span, a 4-byte
 * owner per chunk: a span of a large class has only a few objects, so
 * bigger chunks would mostly hold unused slots); per transfer cache slot
 * 8 bytes per object of a batch (in the state, 1.4 MiB, touched as used); per
 * thread cache 8 bytes per object its lists can hold (tc_freelist: 34 per
 * class at first, growing with max_length).  No per-allocation table: frees
 * are sized (the size names the class) and the page map finds the span.
 * free() never allocates host memory; alloc() reserves what the slow path
 * may need before changing anything, so a host allocation failure leaves
 * the state intact.
 */
#include "tcmalloc.h"
#include "pagebits.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/mem.h"

/* ---- constants (gperftools-2.10 src/common.h, page_heap.h, ...) -------- */

enum {
    PAGE_SHIFT = 13,                 /* kPageShift */
    OS_PAGE_SHIFT = 12,              /* x86_64 */
    OS_PER_PAGE = 1 << (PAGE_SHIFT - OS_PAGE_SHIFT),
    ALIGNMENT = 8,                   /* kAlignment */
    MIN_ALIGN = 16,                  /* kMinAlign (no TCMALLOC_ALIGN_8BYTES) */
    MAX_PAGES = 1 << (20 - PAGE_SHIFT), /* kMaxPages: exact-length free lists */
    MIN_SYSTEM_ALLOC = MAX_PAGES,    /* PageHeap::kMinSystemAlloc */
    TRANSFER_NUM_OBJ = 32,           /* kDefaultTransferNumObjecs */
    MAX_TRANSFER_ENTRIES = 64,       /* CentralFreeList::kMaxNumTransferEntries */
    INIT_TRANSFER_SLOTS = 16,        /* CentralFreeList::Init cache_size_ */
    MAX_OVERAGES = 3,                /* kMaxOverages */
    MAX_DYNAMIC_FREELIST = 8192,     /* kMaxDynamicFreeListLength */
    FL_CAP = MAX_DYNAMIC_FREELIST + 1, /* model: a thread cache list's stack, at most (tc_freelist) */
    FL_INIT = TRANSFER_NUM_OBJ + 2,    /* model: ... and at first (> batch + 1) */
    STEAL_TRIES = 10,                /* IncreaseCacheLimitLocked */
    CHUNK_SHIFT = 4,                 /* model: object slots per chunk = 16 */
    STARTUP_OBJECTS = 3,             /* create: the library's own start-up objects */
    SMALL_LOOKUP_MAX = 1024,         /* SizeMap::kMaxSmallSize */
    LINK_END = 0xffff,               /* model: a span chain's end (links); a span has fewer objects */
};

#define PAGE_BYTES ((uint64_t)1 << PAGE_SHIFT)
#define MAX_SIZE ((uint64_t)RS_TC_MAX_SIZE)
#define STEAL_AMOUNT ((int64_t)1 << 16)               /* kStealAmount */
#define MAX_THREAD_CACHE ((int64_t)4 << 20)           /* kMaxThreadCacheSize */
#define MIN_THREAD_CACHE ((int64_t)MAX_SIZE * 2)      /* kMinThreadCacheSize */
#define MAX_OVERALL_THREAD_CACHE ((int64_t)1 << 30)   /* set_overall_thread_cache_size clip */
#define DEFAULT_RELEASE_DELAY ((int64_t)1 << 18)      /* PageHeap::kDefaultReleaseDelay */
#define MAX_RELEASE_DELAY ((int64_t)1 << 20)          /* PageHeap::kMaxReleaseDelay */
#define FORCED_COALESCE_BYTES ((uint64_t)128 << 20)   /* kForcedCoalesceInterval */
#define TRANSFER_CACHE_BYTES (1024 * 1024)            /* CentralFreeList::Init: 1 MB per class */

/* Metadata estimate (docs/models.md): PageMap2<35> (page_heap.h MapSelector<48>)
 * has a static root of 2^17 pointers, zeroed at start, and 2^18-entry leaves
 * of 8-byte pointers (2 MiB, memset when made) each covering 2 GiB; spans and
 * thread caches come from PageHeapAllocator in 128 KiB chunks
 * (page_heap_allocator.h kAllocIncrement) and are never given back;
 * sizeof(Span) = 48 on x86_64 (span.h); sizeof(ThreadCache) ~ 4160 (128
 * 32-byte FreeLists + sizes, sampler, links, cache-line aligned); the static
 * central cache array is 128 CentralFreeListPadded of ~1216 bytes. */
#define PAGEMAP_ROOT_BYTES ((uint64_t)1 << 20)
#define PAGEMAP_LEAF_SHIFT 18
#define PAGEMAP_LEAF_BYTES (((uint64_t)1 << PAGEMAP_LEAF_SHIFT) * 8)
#define CENTRAL_STATIC_BYTES ((uint64_t)RS_TC_CLASS_MAX * 1216)
#define META_CHUNK_BYTES ((uint64_t)128 << 10)
#define SPAN_STRUCT_BYTES 48u
#define THREAD_CACHE_STRUCT_BYTES 4160u

#define NIL UINT32_MAX
#define BASE_ADDR ((uint64_t)1 << 40) /* page p is at BASE_ADDR + p * 8 KiB; page 0 is a guard */
#define MAX_HEAP_PAGES ((RS_ALLOC_MAX_HEAP_BYTES >> PAGE_SHIFT) + 2) /* + the guard page */
#define THREAD_ID_LIMIT (1u << 20)    /* thread ids are folded below this */

enum span_loc { LOC_IN_USE, LOC_NORMAL, LOC_RETURNED, LOC_UNUSED };

#define OS_LIVE_MASK 0x7fffu

/* ---- size classes (src/common.cc SizeMap::Init) ------------------------ */

static int lg_floor(uint64_t n)
{
    return 63 - __builtin_clzll(n);
}

/* AlignmentForSize: 8 below 16, 16 below 128, then 1/8 of the power of two
 * below, capped at a page. */
static uint64_t alignment_for_size(uint64_t size)
{
    uint64_t a = ALIGNMENT;
    if (size > MAX_SIZE)
        a = PAGE_BYTES;
    else if (size >= 128)
        a = ((uint64_t)1 << lg_floor(size)) / 8;
    else if (size >= MIN_ALIGN)
        a = MIN_ALIGN;
    return a > PAGE_BYTES ? PAGE_BYTES : a;
}

/* NumMoveSize: about 64 KiB per transfer, at least 2, at most 32. */
static uint32_t num_move_size(uint64_t size)
{
    int num = (int)(64.0 * 1024.0 / (double)size);
    if (num < 2)
        num = 2;
    if (num > TRANSFER_NUM_OBJ)
        num = TRANSFER_NUM_OBJ;
    return (uint32_t)num;
}

unsigned rs_tc_classes(rs_tc_class *r_classes)
{
    memset(r_classes, 0, RS_TC_CLASS_MAX * sizeof *r_classes);
    unsigned sc = 1;
    uint64_t align = ALIGNMENT;
    for (uint64_t size = ALIGNMENT; size <= MAX_SIZE; size += align) {
        align = alignment_for_size(size);
        uint32_t blocks_to_move = num_move_size(size) / 4;
        uint64_t psize = 0;
        do { /* tail waste <= 1/8 of the span, and enough objects per span */
            psize += PAGE_BYTES;
            while (psize % size > psize >> 3)
                psize += PAGE_BYTES;
        } while (psize / size < blocks_to_move);
        uint32_t pages = (uint32_t)(psize >> PAGE_SHIFT);
        if (sc > 1 && pages == r_classes[sc - 1].pages &&
            (psize / size) == ((uint64_t)pages << PAGE_SHIFT) / r_classes[sc - 1].size_bytes) {
            r_classes[sc - 1].size_bytes = (uint32_t)size; /* widen the previous class */
            continue;
        }
        if (sc >= RS_TC_CLASS_MAX)
            break; /* cannot happen with these constants (85 classes) */
        r_classes[sc].pages = pages;
        r_classes[sc].size_bytes = (uint32_t)size;
        sc++;
    }
    for (unsigned c = 1; c < sc; c++) {
        r_classes[c].objects = (uint32_t)(((uint64_t)r_classes[c].pages << PAGE_SHIFT) /
                                          r_classes[c].size_bytes);
        r_classes[c].num_to_move = num_move_size(r_classes[c].size_bytes);
    }
    return sc - 1;
}

/* ---- model state ------------------------------------------------------- */

typedef struct tc_class_info {
    uint32_t size_bytes;
    uint32_t pages;
    uint32_t objects;
    uint32_t batch;       /* num_objects_to_move */
    uint32_t nchunks;     /* slot chunks per span */
    uint32_t tail_bytes;  /* span bytes not covered by objects (OverheadBytes) */
    uint64_t magic;       /* ceil(2^32 / size): exact offset -> index */
} tc_class_info;

/* A span record.  Records [0, NSENTINEL) are list heads (DLL sentinels). */
typedef struct tc_span {
    uint32_t start;      /* first tcmalloc page */
    uint32_t length;     /* pages */
    uint32_t next, prev; /* DLL links (central or page-heap list); free-record chain */
    uint32_t objects;    /* small class: head of the span's free-object chain (slot), or NIL;
                            in-use large span: the OS pages its request covers (all live) */
    uint32_t chunk;      /* first slot chunk of a small-class span, or NIL */
    union {
        uint32_t nresident; /* free spans: resident OS pages */
        /* in-use small-class span whose free chain is still the one
         * Populate laid (objects, objects + 1, ..., seq_end - 1, no object
         * returned since): seq_end; 0 otherwise.  That chain's link words
         * are not written (seq_materialize writes them when an object
         * comes back): a fetch computes its objects' offsets. */
        uint32_t seq_end;
    };
    uint16_t refcount;   /* objects handed out of the span */
    uint8_t sizeclass;   /* 0: large or free */
    uint8_t location;    /* enum span_loc */
} tc_span;

typedef struct tc_central {
    uint32_t nonempty, empty; /* sentinel records */
    uint64_t num_spans;
    int32_t used_slots, cache_size, max_cache_size;
    /* free objects in spans; not num_spans' neighbour, or GCC's SLP
     * vectorizer makes Populate's two adds one 16-byte load, add and store,
     * and the load waits for a fetch's 8-byte store to counter just made */
    uint64_t counter;
    /* the transfer cache's used slots: each a batch of object offsets in
     * the order of the chain gperftools keeps there (its head first) */
    uint64_t tc_objs[MAX_TRANSFER_ENTRIES][TRANSFER_NUM_OBJ];
} tc_central;

/* A thread cache's free list of one class.  gperftools threads it through
 * the objects (SLL); the model keeps the same list as a stack of the
 * objects' offsets, the head on top (stk[length - 1]), which behaves
 * identically (push, pop, PopRange from the head, PushRange in front) and
 * lets a pop know its object's address without the slot -> span -> offset
 * lookups, and the next pop's a pop ahead (tc_alloc prefetches its page's
 * counters).  A list never holds more than max_length + 1 objects
 * (tc_deallocate releases past max_length; it is filled only when empty):
 * a stack starts with room for max_length <= batch, and grows (at most to
 * MAX_DYNAMIC_FREELIST + 1) before max_length does past it, in
 * tc_fetch_from_central, on the allocation path, which may fail; a free
 * never needs more room. */
typedef struct tc_freelist {
    uint64_t *stk;          /* [cap] */
    uint32_t length;
    uint32_t lowater;
    uint32_t max_length;
    uint32_t overages;
    uint32_t cap;
} tc_freelist;

typedef struct tc_thread {
    int64_t size_bytes;     /* size_ */
    int64_t max_size_bytes; /* max_size_ */
    uint32_t next;          /* thread_heaps_ list (newest first) */
    uint32_t id;            /* the simulator's thread id */
    tc_freelist list[RS_TC_CLASS_MAX];
} tc_thread;

typedef struct tc_lset { /* std::set<SpanPtrWithLength, SpanBestFitLess> */
    uint64_t *keys;      /* sorted (length << 32 | start) */
    uint32_t len;
} tc_lset;

enum {
    NCLASS_ALL = 86, /* replaced at create by the derived count + 1 (checked) */
};

typedef struct tc_state {
    /* parameters */
    double release_rate;
    int64_t overall_thread_cache;

    unsigned nclasses;                 /* num_size_classes (incl. class 0) */
    tc_class_info cls[RS_TC_CLASS_MAX];
    uint8_t class_small[SMALL_LOOKUP_MAX / 8 + 1];                 /* (s + 7) >> 3 */
    uint8_t class_large[(RS_TC_MAX_SIZE - SMALL_LOOKUP_MAX) / 128 + 2]; /* (s - 1024 + 127) >> 7 */

    /* page heap */
    uint32_t *pmap;                 /* span of each page; valid at span boundaries and on
                                       every page of an in-use small span */
    uint16_t *osp;                  /* per OS page: live-object count of small-class objects
                                       (a large object's pages are its own: see objects) */
    uint64_t *resw;                 /* per OS page a resident bit, 64 to a word */
    uint32_t top;                   /* first page above the heap */
    uint32_t pmap_cap;
    uint32_t top_fast, chunks_fast; /* reserve_class: below these, the page map has room for a
                                       growth of MIN_SYSTEM_ALLOC and the slots for any class's
                                       span (set where pmap_cap and chunks_cap change) */
    tc_span *spans;
    uint32_t spans_len, spans_cap, spans_free, spans_nfree, spans_inuse_hw, spans_inuse;
                                    /* records [spans_len, spans_cap) were never used; spans_nfree
                                       counts them and the chain of freed ones (spans_free) */
    tc_lset large_normal, large_returned;
    uint64_t nonempty[2][MAX_PAGES / 64]; /* [returned]: bit len - 1 set iff the exact-length
                                             list of len is not empty (ph_search and the
                                             release round robin skip empty lists by it) */
    int64_t scavenge_counter;
    uint32_t release_index;
    uint64_t system_pages, free_pages, unmapped_pages;
    uint64_t normal_resident_pages; /* resident OS pages in normal free spans */
    uint64_t decommit_pages, scavenge_count;
    uint32_t leaves;                /* page-map leaves made */

    /* object slots */
    uint16_t *links;                /* per slot: its span chain's next object, an index in the span
                                       (LINK_END: none); a free chunk's first two: the next free
                                       chunk of its class (chunk_next) */
    uint32_t *chunk_span;           /* owner span of each chunk */
    uint32_t chunks_len, chunks_cap;
    uint32_t chunk_free[RS_TC_CLASS_MAX]; /* freed blocks per class */

    /* central lists */
    tc_central central[RS_TC_CLASS_MAX];
    int race_counter;               /* EvictRandomSizeClass */

    /* thread caches */
    tc_thread *threads;
    uint32_t nthreads, threads_cap;
    uint32_t *thread_index;         /* id -> cache, NIL if none */
    uint32_t thread_index_cap;
    uint32_t thread_heaps, next_memory_steal;
    int64_t unclaimed_cache_space;

    /* the library's start-up objects (create), never freed: their offsets */
    uint64_t startup_off[STARTUP_OBJECTS];
    uint32_t nstartup;

    /* alloc.h counters.  Interleaved so that no two updated together are
     * neighbours (an allocation adds to requested, allocated and
     * live_count, a fresh page to resident and active): GCC's SLP
     * vectorizer (-O2) made two neighbouring adds one 16-byte load, add and
     * store with the operands moved into a vector register, six
     * instructions for two. */
    uint64_t requested_bytes, resident_pages, allocated_bytes, active_pages, live_count;
    uint64_t released_total_pages;
} tc_state;

static const rs_param tc_params[] = {
    {.key = "tcmalloc_max_total_thread_cache_bytes", .type = RS_PT_SIZE, .def = "32M",
     .doc = "bound on all thread caches (TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES; gperftools "
            "default 32 MiB, Ceph packaging 128 MiB), clipped to [512 KiB, 1 GiB]"},
    {.key = "tcmalloc_release_rate", .type = RS_PT_DOUBLE, .def = "1.0",
     .doc = "TCMALLOC_RELEASE_RATE: after releasing k pages the page heap waits 1000*k/rate "
            "freed pages before releasing again; 0 disables"},
    {.key = NULL},
};

/* ---- host-array growth ------------------------------------------------- */

static int grow(void **arr, uint32_t *cap, uint64_t need, size_t elem_bytes, uint32_t min_cap)
{
    if (need <= *cap)
        return 0;
    if (need > UINT32_MAX - 1)
        return -1;
    uint64_t ncap = *cap ? *cap : min_cap;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX - 1)
        ncap = UINT32_MAX - 1;
    void *p = rs_mem_realloc(*arr, (size_t)ncap * elem_bytes);
    if (!p)
        return -1;
    *arr = p;
    *cap = (uint32_t)ncap;
    return 0;
}

/* ---- span records and DLLs (span.cc) ----------------------------------- */

static uint32_t sentinel_central(unsigned cl, int empty) { return cl * 2u + (unsigned)empty; }
static uint32_t sentinel_heap(uint32_t len, int returned)
{
    return 2u * RS_TC_CLASS_MAX + (len - 1) * 2u + (unsigned)returned;
}
#define NSENTINEL (2u * RS_TC_CLASS_MAX + 2u * MAX_PAGES)

static void dll_init(tc_span *s, uint32_t list) { s[list].next = s[list].prev = list; }
static int dll_empty(const tc_span *s, uint32_t list) { return s[list].next == list; }
static void dll_remove(tc_span *s, uint32_t id)
{
    s[s[id].prev].next = s[id].next;
    s[s[id].next].prev = s[id].prev;
    s[id].next = s[id].prev = NIL;
}
static void dll_prepend(tc_span *s, uint32_t list, uint32_t id)
{
    s[id].next = s[list].next;
    s[id].prev = list;
    s[s[list].next].prev = id;
    s[list].next = id;
}

static inline uint32_t span_new(tc_state *st, uint32_t start, uint32_t length)
{
    assert(st->spans_nfree > 0);
    uint32_t id = st->spans_free;
    if (id != NIL) /* a freed record, else one never used */
        st->spans_free = st->spans[id].next;
    else
        id = st->spans_len++;
    st->spans_nfree--;
    st->spans[id] = (tc_span){.start = start, .length = length, .next = NIL, .prev = NIL,
                              .objects = NIL, .chunk = NIL, .location = LOC_IN_USE};
    if (++st->spans_inuse > st->spans_inuse_hw)
        st->spans_inuse_hw = st->spans_inuse;
    return id;
}

static void span_delete(tc_state *st, uint32_t id)
{
    st->spans[id] = (tc_span){.next = st->spans_free, .prev = NIL, .location = LOC_UNUSED};
    st->spans_free = id;
    st->spans_nfree++;
    st->spans_inuse--;
}

/* RecordSpan: the page map knows a span by its first and last page. */
static void record_span(tc_state *st, uint32_t id)
{
    const tc_span *s = &st->spans[id];
    st->pmap[s->start] = id;
    st->pmap[s->start + s->length - 1] = id;
}

static uint32_t get_descriptor(const tc_state *st, uint64_t page)
{
    return page == 0 || page >= st->top ? NIL : st->pmap[page];
}

/* ---- the large free-span sets ------------------------------------------ */

static uint64_t lkey(const tc_span *s) { return (uint64_t)s->length << 32 | s->start; }

/* First index whose key is >= key. */
static uint32_t lset_lower(const tc_lset *set, uint64_t key)
{
    uint32_t lo = 0, hi = set->len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (set->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void lset_insert(tc_lset *set, uint64_t key) /* capacity: spans_cap */
{
    uint32_t i = lset_lower(set, key);
    memmove(&set->keys[i + 1], &set->keys[i], (size_t)(set->len - i) * sizeof *set->keys);
    set->keys[i] = key;
    set->len++;
}

static void lset_remove(tc_lset *set, uint64_t key)
{
    uint32_t i = lset_lower(set, key);
    assert(i < set->len && set->keys[i] == key);
    memmove(&set->keys[i], &set->keys[i + 1], (size_t)(set->len - i - 1) * sizeof *set->keys);
    set->len--;
}

/* ---- OS pages: residency and live counts ------------------------------- */

/* Resident bits, a word at a time: [q0, q1) of OS pages (pagebits.h). */
static size_t res_words(uint32_t pages) { return ((size_t)pages * OS_PER_PAGE + 63) / 64; }

static uint64_t res_count(const tc_state *st, uint64_t q0, uint64_t q1) { return rs_pb_count(st->resw, q0, q1); }

/* Sets the range resident; returns how many pages were not. */
static uint64_t res_set(tc_state *st, uint64_t q0, uint64_t q1) { return rs_pb_set(st->resw, q0, q1); }

static void res_clear(tc_state *st, uint64_t q0, uint64_t q1) { rs_pb_clear(st->resw, q0, q1); }

static int res_test(const tc_state *st, uint64_t q) { return rs_pb_test(st->resw, q); }

static void os_touch(tc_state *st, uint64_t q)
{
    st->resident_pages += (uint64_t)rs_pb_set1(st->resw, q);
}

/* A live small-class object occupies [off, off + bytes) (offsets from
 * BASE_ADDR): a page or two, counted page by page. */
static __attribute__((noinline)) void live_add_pages(tc_state *st, uint64_t q0, uint64_t last)
{
    uint64_t fresh = 0;
    st->resident_pages += res_set(st, q0, last + 1);
    for (uint64_t q = q0; q <= last; q++) {
        uint16_t v = st->osp[q];
        fresh += !v;
        assert(v < OS_LIVE_MASK);
        st->osp[q] = (uint16_t)(v + 1);
    }
    st->active_pages += fresh;
}

/* An object on OS page q alone (most objects). */
static inline void live_add_page(tc_state *st, uint64_t q)
{
    uint16_t v = st->osp[q];
    assert(v < OS_LIVE_MASK);
    st->osp[q] = (uint16_t)(v + 1);
    if (!v) { /* a page with a live object on it is resident already (audit) */
        os_touch(st, q);
        st->active_pages++;
    }
}

static inline void live_add(tc_state *st, uint64_t off, uint64_t bytes)
{
    uint64_t q0 = off >> OS_PAGE_SHIFT, last = (off + bytes - 1) >> OS_PAGE_SHIFT;
    if (q0 != last) {
        live_add_pages(st, q0, last);
        return;
    }
    live_add_page(st, q0); /* most objects: one page */
}

static inline void live_remove(tc_state *st, uint64_t off, uint64_t bytes)
{
    uint64_t q0 = off >> OS_PAGE_SHIFT, last = (off + bytes - 1) >> OS_PAGE_SHIFT, gone = 0;
    if (q0 == last) { /* most objects: one page */
        assert(st->osp[q0] & OS_LIVE_MASK);
        if (!--st->osp[q0])
            st->active_pages--;
        return;
    }
    for (uint64_t q = q0; q <= last; q++) { /* branch-free over the pages of a larger one */
        assert(st->osp[q] & OS_LIVE_MASK);
        gone += !--st->osp[q];
    }
    st->active_pages -= gone;
}

/* A large object has its span's pages to itself: the OS pages its request
 * covers are live (one object each) and resident, as a run. */
static uint64_t large_os_pages(uint64_t bytes) { return (bytes + ((uint64_t)1 << OS_PAGE_SHIFT) - 1) >> OS_PAGE_SHIFT; }

static uint32_t count_resident(const tc_state *st, uint32_t page, uint32_t npages)
{
    return (uint32_t)res_count(st, (uint64_t)page * OS_PER_PAGE, ((uint64_t)page + npages) * OS_PER_PAGE);
}

/* ---- page heap (page_heap.cc) ------------------------------------------ */

static void ph_prepend(tc_state *st, uint32_t id) /* PrependToFreeList */
{
    tc_span *s = &st->spans[id];
    if (s->location == LOC_NORMAL) {
        st->free_pages += s->length;
        st->normal_resident_pages += s->nresident;
    } else {
        st->unmapped_pages += s->length;
    }
    if (s->length > MAX_PAGES) {
        lset_insert(s->location == LOC_NORMAL ? &st->large_normal : &st->large_returned, lkey(s));
    } else {
        int ret = s->location == LOC_RETURNED;
        dll_prepend(st->spans, sentinel_heap(s->length, ret), id);
        st->nonempty[ret][(s->length - 1) >> 6] |= (uint64_t)1 << ((s->length - 1) & 63);
    }
}

static void ph_remove(tc_state *st, uint32_t id) /* RemoveFromFreeList */
{
    tc_span *s = &st->spans[id];
    if (s->location == LOC_NORMAL) {
        st->free_pages -= s->length;
        st->normal_resident_pages -= s->nresident;
    } else {
        st->unmapped_pages -= s->length;
    }
    if (s->length > MAX_PAGES) {
        lset_remove(s->location == LOC_NORMAL ? &st->large_normal : &st->large_returned, lkey(s));
    } else {
        int ret = s->location == LOC_RETURNED;
        dll_remove(st->spans, id);
        if (dll_empty(st->spans, sentinel_heap(s->length, ret)))
            st->nonempty[ret][(s->length - 1) >> 6] &= ~((uint64_t)1 << ((s->length - 1) & 63));
    }
}

/* The first length >= len (1 .. MAX_PAGES) whose exact-length list is not
 * empty, in the normal lists (which = 0), the returned ones (1) or either
 * (2); MAX_PAGES + 1 if none. */
static uint32_t ph_first_nonempty(const tc_state *st, uint32_t len, int which)
{
    for (uint32_t w = (len - 1) >> 6; w < MAX_PAGES / 64; w++) {
        uint64_t bits = which == 2 ? st->nonempty[0][w] | st->nonempty[1][w] : st->nonempty[which][w];
        if (w == (len - 1) >> 6)
            bits &= ~(uint64_t)0 << ((len - 1) & 63);
        if (bits)
            return w * 64 + (uint32_t)__builtin_ctzll(bits) + 1;
    }
    return MAX_PAGES + 1;
}

/* MergeIntoFreeList: coalesce with free neighbours of the same kind (no
 * aggressive decommit), then prepend. */
static void ph_merge(tc_state *st, uint32_t id)
{
    tc_span *s = st->spans;
    uint32_t p = s[id].start, n = s[id].length;
    uint32_t prev = get_descriptor(st, (uint64_t)p - 1);
    if (prev != NIL && s[prev].location == s[id].location) {
        ph_remove(st, prev);
        assert(s[prev].start + s[prev].length == p);
        s[id].start -= s[prev].length;
        s[id].length += s[prev].length;
        s[id].nresident += s[prev].nresident;
        span_delete(st, prev);
        st->pmap[s[id].start] = id;
    }
    uint32_t next = get_descriptor(st, (uint64_t)p + n);
    if (next != NIL && s[next].location == s[id].location) {
        ph_remove(st, next);
        assert(s[next].start == p + n);
        s[id].length += s[next].length;
        s[id].nresident += s[next].nresident;
        span_delete(st, next);
        st->pmap[s[id].start + s[id].length - 1] = id;
    }
    ph_prepend(st, id);
}

/* ReleaseSpan: DecommitSpan (always works here), then merge as returned. */
static uint32_t ph_release_span(tc_state *st, uint32_t id)
{
    tc_span *s = &st->spans[id];
    assert(s->location == LOC_NORMAL);
    ph_remove(st, id);
    if (s->nresident) {
#ifndef NDEBUG
        for (uint64_t q = (uint64_t)s->start * OS_PER_PAGE; q < ((uint64_t)s->start + s->length) * OS_PER_PAGE; q++)
            assert(!(st->osp[q] & OS_LIVE_MASK));
#endif
        res_clear(st, (uint64_t)s->start * OS_PER_PAGE, ((uint64_t)s->start + s->length) * OS_PER_PAGE);
        st->resident_pages -= s->nresident;
        st->released_total_pages += s->nresident;
        s->nresident = 0;
    }
    st->decommit_pages += s->length;
    uint32_t n = s->length;
    s->location = LOC_RETURNED;
    ph_merge(st, id);
    return n;
}

/* The release round robin's indices: i < MAX_PAGES is the normal list of
 * length i + 1, MAX_PAGES the large normal set.  How many steps from index
 * r (cyclically) to the first that is not empty; NIDX if all are. */
enum { NIDX = MAX_PAGES + 1 };
static uint32_t release_distance(const tc_state *st, uint32_t r)
{
    if (r < MAX_PAGES) {
        uint32_t len = ph_first_nonempty(st, r + 1, 0);
        if (len <= MAX_PAGES)
            return len - 1 - r;
    }
    if (st->large_normal.len)
        return MAX_PAGES - r;
    uint32_t len = ph_first_nonempty(st, 1, 0); /* wrap round: below r */
    return len <= MAX_PAGES ? NIDX - r + len - 1 : NIDX;
}

/* ReleaseAtLeastNPages: round robin over the exact-length lists (oldest
 * span of each, i.e. the list tail) and the large set (its smallest). */
static uint64_t ph_release_at_least(tc_state *st, uint64_t num_pages)
{
    uint64_t released = 0;
    while (released < num_pages && st->free_pages > 0) {
        /* A pass visits NIDX indices from release_index on; an empty list is
         * only stepped over, so a run of them is stepped over at once. */
        for (uint32_t i = 0; i < NIDX && released < num_pages; i++, st->release_index++) {
            uint32_t id, r = st->release_index > MAX_PAGES ? 0 : st->release_index;
            uint32_t d = release_distance(st, r);
            if (d >= NIDX - i) { /* the rest of the pass is empty: its steps at once */
                st->release_index = (r + (NIDX - i) - 1) % NIDX + 1;
                break;
            }
            i += d;
            r = (r + d) % NIDX;
            st->release_index = r;
            if (r == MAX_PAGES) {
                uint64_t k = st->large_normal.keys[0];
                id = st->pmap[(uint32_t)k];
            } else {
                id = st->spans[sentinel_heap(r + 1, 0)].prev;
            }
            released += ph_release_span(st, id);
        }
    }
    return released;
}

static void ph_incremental_scavenge(tc_state *st, uint64_t n)
{
    st->scavenge_counter -= (int64_t)n;
    if (st->scavenge_counter >= 0)
        return;
    if (st->release_rate <= 1e-6) {
        st->scavenge_counter = DEFAULT_RELEASE_DELAY;
        return;
    }
    st->scavenge_count++;
    uint64_t released = ph_release_at_least(st, 1);
    if (released == 0) {
        st->scavenge_counter = DEFAULT_RELEASE_DELAY;
    } else {
        double wait = 1000.0 / st->release_rate * (double)released;
        if (wait > (double)MAX_RELEASE_DELAY)
            wait = (double)MAX_RELEASE_DELAY;
        st->scavenge_counter = (int64_t)wait;
    }
}

/* Delete: an in-use span goes back to the page heap. */
static void ph_delete(tc_state *st, uint32_t id)
{
    tc_span *s = &st->spans[id];
    assert(s->location == LOC_IN_USE);
    uint32_t n = s->length;
    s->sizeclass = 0;
    s->location = LOC_NORMAL;
    s->nresident = count_resident(st, s->start, s->length);
    ph_merge(st, id);
    ph_incremental_scavenge(st, n);
}

/* Carve n pages off the front of free span id; the rest stays on its list.
 * Inline in ph_search, whose every find it is (no call between them). */
static inline __attribute__((always_inline)) uint32_t ph_carve(tc_state *st, uint32_t id, uint32_t n)
{
    tc_span *s = &st->spans[id];
    uint8_t old = s->location;
    uint32_t len = s->length, start = s->start;
    if (len == n) {
        ph_remove(st, id);
    } else {
        /* span and rest both on the exact-length lists (the commonest
         * carve: a few pages off a span from a growth): the span's
         * RemoveFromFreeList and its rest's PrependToFreeList (page_heap.cc
         * Carve) in one, whose counts differ only by the n pages carved and
         * their residency */
        const int small = len <= MAX_PAGES, ret = old == LOC_RETURNED;
        uint32_t carved_res = s->nresident ? count_resident(st, start, n) : 0; /* mostly a fresh span's */
        if (small) {
            if (ret) {
                st->unmapped_pages -= n;
            } else {
                st->free_pages -= n;
                st->normal_resident_pages -= carved_res;
            }
            dll_remove(st->spans, id);
            if (dll_empty(st->spans, sentinel_heap(len, ret)))
                st->nonempty[ret][(len - 1) >> 6] &= ~((uint64_t)1 << ((len - 1) & 63));
        } else {
            ph_remove(st, id);
        }
        uint32_t left = span_new(st, start + n, len - n);
        s = &st->spans[id];
        st->spans[left].location = old;
        st->spans[left].nresident = s->nresident - carved_res;
        record_span(st, left);
        if (small) { /* no coalescing: no candidates */
            dll_prepend(st->spans, sentinel_heap(len - n, ret), left);
            st->nonempty[ret][(len - n - 1) >> 6] |= (uint64_t)1 << ((len - n - 1) & 63);
        } else {
            ph_prepend(st, left);
        }
        s->length = n;
        st->pmap[start + n - 1] = id;
    }
    s->location = LOC_IN_USE;
    s->nresident = 0; /* only tracked for free spans (seq_end 0: no pristine chain) */
    return id;
}

static uint32_t ph_alloc_large(tc_state *st, uint32_t n)
{
    uint64_t bound = (uint64_t)n << 32; /* SpanBestFitLess upper_bound of (n, start 0) */
    uint32_t best = NIL, best_normal = NIL;
    uint32_t i = lset_lower(&st->large_normal, bound + 1);
    if (i < st->large_normal.len)
        best = best_normal = st->pmap[(uint32_t)st->large_normal.keys[i]];
    i = lset_lower(&st->large_returned, bound + 1);
    if (i < st->large_returned.len) {
        uint32_t c = st->pmap[(uint32_t)st->large_returned.keys[i]];
        if (best_normal == NIL || st->spans[c].length < st->spans[best].length ||
            (st->spans[c].length == st->spans[best].length && st->spans[c].start < st->spans[best].start))
            best = c;
    }
    return best == NIL ? NIL : ph_carve(st, best, n);
}

static uint32_t ph_search(tc_state *st, uint32_t n)
{
    /* the shortest nonempty list of length >= n, normal before returned */
    uint32_t s = n <= MAX_PAGES ? ph_first_nonempty(st, n, 2) : MAX_PAGES + 1;
    if (s <= MAX_PAGES) {
        uint32_t ll = sentinel_heap(s, 0);
        if (dll_empty(st->spans, ll))
            ll = sentinel_heap(s, 1);
        return ph_carve(st, st->spans[ll].next, n);
    }
    return ph_alloc_large(st, n);
}

/* GrowHeap: at least kMinSystemAlloc pages, contiguous with the heap
 * (sbrk), handed to Delete so it coalesces and counts for the scavenger. */
static int ph_grow(tc_state *st, uint32_t n)
{
    uint32_t ask = n > MIN_SYSTEM_ALLOC ? n : MIN_SYSTEM_ALLOC;
    if ((uint64_t)st->top + ask + 1 > st->pmap_cap)
        return -1; /* reserve() made room; only MAX_HEAP_PAGES can stop us */
    uint32_t p = st->top;
    memset(&st->pmap[p], 0xff, (size_t)ask * sizeof *st->pmap);
    /* osp and resw past the top were never written (the top only grows) and
     * are zero (rs_mem_realloc): not cleared again, which faulted in 2 bytes
     * of host memory per simulated OS page of every growth */
    assert(!st->osp[(uint64_t)p * OS_PER_PAGE] && !res_count(st, (uint64_t)p * OS_PER_PAGE,
                                                            ((uint64_t)p + 1) * OS_PER_PAGE));
    st->top += ask;
    st->system_pages += ask;
    uint32_t leaves = (uint32_t)(((uint64_t)st->top - 1) >> PAGEMAP_LEAF_SHIFT) + 1;
    if (leaves > st->leaves)
        st->leaves = leaves;
    uint32_t id = span_new(st, p, ask);
    record_span(st, id);
    ph_delete(st, id);
    return 0;
}

static uint32_t ph_new(tc_state *st, uint32_t n)
{
    uint32_t id = ph_search(st, n);
    if (id != NIL)
        return id;
    uint64_t free_b = st->free_pages << PAGE_SHIFT, unmapped_b = st->unmapped_pages << PAGE_SHIFT,
             sys_b = st->system_pages << PAGE_SHIFT;
    if (free_b && unmapped_b && free_b + unmapped_b >= sys_b / 4 &&
        sys_b / FORCED_COALESCE_BYTES != (sys_b + ((uint64_t)n << PAGE_SHIFT)) / FORCED_COALESCE_BYTES) {
        ph_release_at_least(st, 0x7fffffff);
        id = ph_search(st, n);
        if (id != NIL)
            return id;
    }
    if (ph_grow(st, n))
        return NIL;
    return ph_search(st, n);
}

/* ---- object slots ------------------------------------------------------ */

/* The index within small-class span s of the object at offset off (from
 * BASE_ADDR): exact when off is an object's start (magic = ceil(2^32 / size)). */
/* The first object slot of small-class span s (its chunk's first). */
static inline uint32_t span_slot0(const tc_span *s) { return s->chunk << CHUNK_SHIFT; }

static inline uint32_t span_index(const tc_state *st, const tc_span *s, uint64_t off)
{
    uint64_t rel = off - ((uint64_t)s->start << PAGE_SHIFT);
    return (uint32_t)((rel * st->cls[s->sizeclass].magic) >> 32);
}

/* The free-chunk list's link: 32 bits in the first two (unused) link
 * words of free chunk c. */
static uint32_t chunk_next(const tc_state *st, uint32_t c)
{
    const uint16_t *w = &st->links[(uint64_t)c << CHUNK_SHIFT];
    return (uint32_t)w[0] | (uint32_t)w[1] << 16;
}

static void chunk_next_set(tc_state *st, uint32_t c, uint32_t next)
{
    uint16_t *w = &st->links[(uint64_t)c << CHUNK_SHIFT];
    w[0] = (uint16_t)next;
    w[1] = (uint16_t)(next >> 16);
}

/* The slot after x on the chain of the span whose first slot is slot0. */
static inline uint32_t link_next(const tc_state *st, uint32_t slot0, uint32_t x)
{
    uint16_t i = st->links[x];
    return i == LINK_END ? NIL : slot0 + i;
}

static uint32_t chunks_take(tc_state *st, unsigned cl, uint32_t span)
{
    uint32_t c = st->chunk_free[cl], k = st->cls[cl].nchunks;
    if (c != NIL) {
        st->chunk_free[cl] = chunk_next(st, c);
    } else {
        c = st->chunks_len;
        st->chunks_len += k;
        assert(st->chunks_len <= st->chunks_cap);
    }
    for (uint32_t j = 0; j < k; j++)
        st->chunk_span[c + j] = span;
    return c;
}

static void chunks_put(tc_state *st, unsigned cl, uint32_t c)
{
    chunk_next_set(st, c, st->chunk_free[cl]);
    st->chunk_free[cl] = c;
    for (uint32_t j = 0; j < st->cls[cl].nchunks; j++)
        st->chunk_span[c + j] = NIL;
}

/* ---- central free lists (central_freelist.cc) -------------------------- */

/* The pristine chain of span s (objects, ..., seq_end - 1), written into
 * the link words it has skipped so far: from here on s's chain is walked. */
static void seq_materialize(tc_state *st, tc_span *s)
{
    if (s->objects != NIL) {
        uint32_t slot0 = span_slot0(s);
        for (uint32_t k = s->objects; k + 1 < s->seq_end; k++)
            st->links[k] = (uint16_t)(k + 1 - slot0);
        st->links[s->seq_end - 1] = LINK_END;
    }
    s->seq_end = 0;
}

/* ReleaseToSpans of the object at off (a class cl object start). */
static void central_release_to_spans(tc_state *st, unsigned cl, uint64_t off)
{
    tc_central *c = &st->central[cl];
    uint32_t id = st->pmap[off >> PAGE_SHIFT];
    tc_span *s = &st->spans[id];
    assert(s->refcount > 0 && s->sizeclass == cl && s->chunk != NIL);
    uint32_t slot0 = span_slot0(s), slot = slot0 + span_index(st, s, off);
    if (s->objects == NIL) { /* was empty: back on the nonempty list, in front */
        dll_remove(st->spans, id);
        dll_prepend(st->spans, c->nonempty, id);
    }
    c->counter++;
    if (--s->refcount == 0) {
        c->counter -= st->cls[cl].objects;
        dll_remove(st->spans, id);
        c->num_spans--;
        chunks_put(st, cl, s->chunk);
        s->chunk = NIL;
        s->objects = NIL;
        ph_delete(st, id);
    } else {
        if (s->seq_end)
            seq_materialize(st, s);
        st->links[slot] = s->objects == NIL ? LINK_END : (uint16_t)(s->objects - slot0);
        s->objects = slot;
    }
}

/* ReleaseListToSpans of n objects (n <= a batch) in list order: their
 * page-map entries are fetched together, then their span records, so that
 * the misses overlap instead of coming one object after another. */
static void central_release_list(tc_state *st, unsigned cl, const uint64_t *off, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        __builtin_prefetch(&st->pmap[off[i] >> PAGE_SHIFT]);
    for (uint32_t i = 0; i < n; i++)
        __builtin_prefetch(&st->spans[st->pmap[off[i] >> PAGE_SHIFT]], 1);
    for (uint32_t i = 0; i < n; i++)
        central_release_to_spans(st, cl, off[i]);
}

static int central_shrink_cache(tc_state *st, unsigned cl, int force)
{
    tc_central *c = &st->central[cl];
    if (c->cache_size == 0)
        return 0;
    if (c->used_slots == c->cache_size) {
        if (!force)
            return 0;
        c->cache_size--;
        c->used_slots--;
        central_release_list(st, cl, c->tc_objs[c->used_slots], st->cls[cl].batch);
        return 1;
    }
    c->cache_size--;
    return 1;
}

static int central_evict_random(tc_state *st, unsigned locked, int force)
{
    int t = st->race_counter++;
    if (t >= (int)st->nclasses) {
        while (t >= (int)st->nclasses)
            t -= (int)st->nclasses;
        st->race_counter = t;
    }
    if ((unsigned)t == locked)
        return 0;
    return central_shrink_cache(st, (unsigned)t, force);
}

static int central_make_cache_space(tc_state *st, unsigned cl)
{
    tc_central *c = &st->central[cl];
    if (c->used_slots < c->cache_size)
        return 1;
    if (c->cache_size == c->max_cache_size)
        return 0;
    if (central_evict_random(st, cl, 0) || central_evict_random(st, cl, 1)) {
        if (c->cache_size < c->max_cache_size) {
            c->cache_size++;
            return 1;
        }
    }
    return 0;
}

/* InsertRange of the list's first n objects (n <= a batch; the head is
 * the stack's top): a whole batch into a transfer slot when there is room
 * for it, else back to their spans.  They leave the list (PopRange). */
static void central_insert_range(tc_state *st, unsigned cl, tc_freelist *fl, uint32_t n)
{
    tc_central *c = &st->central[cl];
    assert(n <= TRANSFER_NUM_OBJ && n <= fl->length);
    const uint64_t *top = fl->stk + fl->length; /* top[-1] is the head */
    uint64_t off[TRANSFER_NUM_OBJ], *dst = off;
    if (n == st->cls[cl].batch && central_make_cache_space(st, cl))
        dst = c->tc_objs[c->used_slots++];
    for (uint32_t i = 0; i < n; i++)
        dst[i] = top[-(ptrdiff_t)i - 1];
    fl->length -= n;
    if (fl->length < fl->lowater)
        fl->lowater = fl->length;
    if (dst == off)
        central_release_list(st, cl, off, n);
}

/* The offsets of the k objects of a pristine chain that end at offset
 * o, the last first (o - size, o - 2 size, ...): two a round. */
static inline void seq_offsets(uint64_t *rev, uint32_t k, uint64_t o, uint64_t size)
{
    uint64_t a = o - size, b = a - size, step = 2 * size;
    uint64_t *end = rev + (k & ~1u);
    for (; rev < end; rev += 2, a -= step, b -= step) {
        rev[0] = a;
        rev[1] = b;
    }
    if (k & 1)
        rev[0] = a;
}

/* FetchFromOneSpans: up to n objects off the first nonempty span's chain,
 * their offsets into rev in reverse chain order (the chain's head last);
 * how many. */
static uint32_t central_fetch_from_one_span(tc_state *st, unsigned cl, uint32_t n, uint64_t *rev)
{
    tc_central *c = &st->central[cl];
    if (dll_empty(st->spans, c->nonempty))
        return 0;
    uint32_t id = st->spans[c->nonempty].next;
    tc_span *s = &st->spans[id];
    uint32_t result = 0, curr = s->objects, slot0 = span_slot0(s);
    uint64_t off0 = (uint64_t)s->start << PAGE_SHIFT, size = st->cls[cl].size_bytes;
    assert(curr != NIL);
    if (s->seq_end) { /* Populate's chain: the next slots, in address order */
        uint32_t avail = s->seq_end - curr;
        result = n < avail ? n : avail;
        seq_offsets(rev, result, off0 + (uint64_t)(curr - slot0 + result) * size, size);
        curr = result == avail ? NIL : curr + result;
    } else {
        /* the span's links, a few lines in any order: fetch them together */
        const uint16_t *first = &st->links[slot0];
        uint64_t out[TRANSFER_NUM_OBJ];
        for (uint32_t k = 0; k < st->cls[cl].objects && k < 512; k += 32)
            __builtin_prefetch(first + k);
        assert(n <= TRANSFER_NUM_OBJ);
        do {
            out[result] = off0 + (uint64_t)(curr - slot0) * size;
            curr = link_next(st, slot0, curr);
        } while (++result < n && curr != NIL);
        for (uint32_t i = 0; i < result; i++)
            rev[i] = out[result - 1 - i];
    }
    if (curr == NIL) {
        dll_remove(st->spans, id);
        dll_prepend(st->spans, c->empty, id);
    }
    s->objects = curr;
    s->refcount = (uint16_t)(s->refcount + result);
    c->counter -= result;
    return result;
}

/* Populate: a new span from the page heap, carved into objects in address
 * order; writing each link touches the page of each object's first word
 * (those pages become resident here; the model's own link words for the
 * chain wait, seq_end).  Then FetchFromOneSpans of up to n objects from
 * it, the only span on the class's nonempty list (Populate is called when
 * that list is empty): the first n of its chain, as central_fetch_from_one_span
 * takes them, without looking the span up again; how many (0: no span). */
static uint32_t central_populate_fetch(tc_state *st, unsigned cl, uint32_t n, uint64_t *rev)
{
    /* the class's numbers in locals: the stores below could alias them */
    const uint64_t size = st->cls[cl].size_bytes;
    const uint32_t objects = st->cls[cl].objects;
    tc_central *c = &st->central[cl];
    assert(dll_empty(st->spans, c->nonempty));
    uint32_t id = ph_new(st, st->cls[cl].pages);
    if (id == NIL)
        return 0;
    tc_span *s = &st->spans[id];
    uint32_t start = s->start;
    s->sizeclass = (uint8_t)cl;
    for (uint32_t i = 1; i + 1 < s->length; i++)
        st->pmap[start + i] = id; /* RegisterSizeClass */
    uint32_t k = chunks_take(st, cl, id);
    uint32_t slot0 = k << CHUNK_SHIFT;
    uint64_t off = (uint64_t)start << PAGE_SHIFT;
    if (size <= ((uint64_t)1 << OS_PAGE_SHIFT)) {
        /* starts at most a page apart: every page from the first object's
         * to the last one's holds a start */
        uint64_t last = off + (uint64_t)(objects - 1) * size;
        st->resident_pages += res_set(st, off >> OS_PAGE_SHIFT, (last >> OS_PAGE_SHIFT) + 1);
    } else {
        for (uint32_t j = 0; j < objects; j++)
            os_touch(st, (off + (uint64_t)j * size) >> OS_PAGE_SHIFT);
    }
    /* the fetch: the chain's first result objects; the span stays on the
     * nonempty list, in front, or (all taken) goes to the empty one */
    uint32_t result = n < objects ? n : objects;
    seq_offsets(rev, result, off + (uint64_t)result * size, size);
    s = &st->spans[id];
    s->chunk = k;
    s->objects = result == objects ? NIL : slot0 + result;
    s->seq_end = slot0 + objects;
    s->refcount = (uint16_t)result;
    dll_prepend(st->spans, result == objects ? c->empty : c->nonempty, id);
    c->num_spans++;
    c->counter += objects - result;
    return result;
}

/* RemoveRange from the spans (the caller has looked in the transfer
 * cache): up to n objects' offsets into rev, in the reverse of the order of
 * the chain gperftools makes (each further span's objects in front,
 * SLL_PushRange: reversed, after), so that the chain's head is last, as a
 * thread cache's stack has it; how many, 0 when not even a Populate gave
 * any. */
static uint32_t central_remove_range(tc_state *st, unsigned cl, uint32_t n, uint64_t *rev)
{
    assert(n <= TRANSFER_NUM_OBJ && (n != st->cls[cl].batch || st->central[cl].used_slots == 0));
    /* a fetch finds nothing exactly when the class has no nonempty span,
     * as it often has not (a fetch that took a span's last objects leaves
     * none): then Populate and a fetch from its span, which gives n
     * objects or all it has (no other span of the class has any) */
    uint32_t nonempty = st->central[cl].nonempty;
    if (dll_empty(st->spans, nonempty))
        return central_populate_fetch(st, cl, n, rev);
    uint32_t result = central_fetch_from_one_span(st, cl, n, rev);
    while (result < n && !dll_empty(st->spans, nonempty))
        result += central_fetch_from_one_span(st, cl, n - result, rev + result);
    return result;
}

/* ---- thread caches (thread_cache.{h,cc}) ------------------------------- */

/* Room for need objects in fl's stack; -1 (nothing changed) when the
 * simulator is out of memory. */
static int fl_reserve(tc_freelist *fl, uint32_t need)
{
    if (need <= fl->cap)
        return 0;
    assert(need <= FL_CAP);
    uint32_t cap = fl->cap * 2 > FL_CAP ? FL_CAP : fl->cap * 2;
    if (cap < need)
        cap = need;
    uint64_t *p = realloc(fl->stk, (size_t)cap * sizeof *p);
    if (!p)
        return -1;
    fl->stk = p;
    fl->cap = cap;
    return 0;
}

/* FetchFromCentralCache's new max_length: +1 below batch (slow start),
 * then + batch up to MAX_DYNAMIC_FREELIST, a multiple of batch. */
static uint32_t fl_max_after_fetch(const tc_freelist *fl, uint32_t batch)
{
    if (fl->max_length < batch)
        return fl->max_length + 1;
    uint32_t len = fl->max_length + batch;
    if (len > MAX_DYNAMIC_FREELIST)
        len = MAX_DYNAMIC_FREELIST;
    return len - len % batch;
}

static void tc_release_to_central(tc_state *st, tc_thread *t, unsigned cl, uint32_t n)
{
    tc_freelist *fl = &t->list[cl];
    if (n > fl->length)
        n = fl->length;
    int64_t delta = (int64_t)n * st->cls[cl].size_bytes;
    uint32_t batch = st->cls[cl].batch;
    while (n > batch) {
        central_insert_range(st, cl, fl, batch);
        n -= batch;
    }
    central_insert_range(st, cl, fl, n);
    t->size_bytes -= delta;
}

static void tc_increase_cache_limit(tc_state *st, uint32_t h)
{
    if (st->unclaimed_cache_space > 0) {
        st->unclaimed_cache_space -= STEAL_AMOUNT;
        st->threads[h].max_size_bytes += STEAL_AMOUNT;
        return;
    }
    for (int i = 0; i < STEAL_TRIES; i++, st->next_memory_steal = st->threads[st->next_memory_steal].next) {
        if (st->next_memory_steal == NIL)
            st->next_memory_steal = st->thread_heaps;
        if (st->next_memory_steal == NIL)
            return;
        uint32_t v = st->next_memory_steal;
        if (v == h || st->threads[v].max_size_bytes <= MIN_THREAD_CACHE)
            continue;
        st->threads[v].max_size_bytes -= STEAL_AMOUNT;
        st->threads[h].max_size_bytes += STEAL_AMOUNT;
        st->next_memory_steal = st->threads[v].next;
        return;
    }
}

static void tc_scavenge(tc_state *st, uint32_t h)
{
    tc_thread *t = &st->threads[h];
    for (unsigned cl = 1; cl < st->nclasses; cl++) {
        tc_freelist *fl = &t->list[cl];
        uint32_t lowmark = fl->lowater;
        if (lowmark > 0) {
            uint32_t drop = lowmark > 1 ? lowmark / 2 : 1, batch = st->cls[cl].batch;
            tc_release_to_central(st, t, cl, drop);
            if (fl->max_length > batch)
                fl->max_length = fl->max_length - batch > batch ? fl->max_length - batch : batch;
        }
        fl->lowater = fl->length;
    }
    tc_increase_cache_limit(st, h);
}

static void tc_list_too_long(tc_state *st, uint32_t h, unsigned cl)
{
    tc_thread *t = &st->threads[h];
    tc_freelist *fl = &t->list[cl];
    uint32_t batch = st->cls[cl].batch;
    t->size_bytes += st->cls[cl].size_bytes;
    tc_release_to_central(st, t, cl, batch);
    if (fl->max_length < batch) {
        fl->max_length++;
    } else if (fl->max_length > batch) {
        if (++fl->overages > MAX_OVERAGES) {
            fl->max_length -= batch;
            fl->overages = 0;
        }
    }
    if (t->size_bytes > t->max_size_bytes)
        tc_scavenge(st, h);
}

static inline void tc_deallocate(tc_state *st, uint32_t h, uint64_t off, unsigned cl)
{
    tc_thread *t = &st->threads[h];
    tc_freelist *fl = &t->list[cl];
    assert(fl->length < fl->cap);
    fl->stk[fl->length] = off; /* Push: the new head */
    if (++fl->length > fl->max_length) {
        tc_list_too_long(st, h, cl);
        return;
    }
    t->size_bytes += st->cls[cl].size_bytes;
    if (t->size_bytes > t->max_size_bytes)
        tc_scavenge(st, h);
}

/* FetchFromCentralCache: the first object's offset, the others (in chain
 * order) pushed in front of the (empty) list; UINT64_MAX when none could
 * be had. */
static uint64_t tc_fetch_from_central(tc_state *st, tc_thread *t, unsigned cl)
{
    tc_freelist *fl = &t->list[cl];
    uint32_t batch = st->cls[cl].batch;
    uint32_t num = fl->max_length < batch ? fl->max_length : batch;
    uint32_t max_after = fl_max_after_fetch(fl, batch);
    /* room for what this fetch pushes onto the empty list (num <=
     * max_after), and for the longest the list may then grow before the
     * next fetch: max_after and one push past it */
    assert(fl->length == 0 && num <= max_after);
    if (fl_reserve(fl, max_after + 1))
        return UINT64_MAX;
    /* the fetched objects' offsets go onto the stack: the first is
     * returned, the rest pushed in front of the (empty) list, the second
     * on top (PushRange(got - 1, next(start), end)): the chain reversed,
     * which the spans give as it is, with the first on top, taken off */
    uint64_t *stk = fl->stk;
    uint32_t got = num;
    tc_central *c = &st->central[cl];
    assert(num <= fl->cap);
    if (num == batch && c->used_slots > 0) { /* RemoveRange: a transfer slot, in chain order */
        const uint64_t *o = c->tc_objs[--c->used_slots] + got;
        for (uint64_t *d = stk; d < stk + got; d++)
            *d = *--o;
    } else if (!(got = central_remove_range(st, cl, num, stk))) {
        return UINT64_MAX;
    }
    t->size_bytes += (int64_t)(got - 1) * st->cls[cl].size_bytes;
    fl->length = got - 1;
    fl->max_length = max_after;
    return stk[got - 1];
}

/* The cache of simulator thread `thread`, or NIL. */
static inline uint32_t thread_lookup(const tc_state *st, uint32_t thread)
{
    uint32_t id = thread % THREAD_ID_LIMIT;
    return id < st->thread_index_cap ? st->thread_index[id] : NIL;
}

/* NewHeap + ThreadCache::Init. */
static uint32_t thread_create(tc_state *st, uint32_t thread)
{
    uint32_t id = thread % THREAD_ID_LIMIT;
    uint32_t old_cap = st->thread_index_cap;
    if (grow((void **)&st->thread_index, &st->thread_index_cap, (uint64_t)id + 1, sizeof *st->thread_index, 16))
        return NIL;
    for (uint32_t i = old_cap; i < st->thread_index_cap; i++)
        st->thread_index[i] = NIL;
    if (grow((void **)&st->threads, &st->threads_cap, (uint64_t)st->nthreads + 1, sizeof *st->threads, 4))
        return NIL;
    tc_thread *t = &st->threads[st->nthreads];
    memset(t, 0, sizeof *t);
    for (unsigned cl = 1; cl < st->nclasses; cl++) { /* the lists' stacks */
        t->list[cl] = (tc_freelist){.max_length = 1, .cap = FL_INIT};
        if (!(t->list[cl].stk = malloc(FL_INIT * sizeof(uint64_t)))) {
            while (--cl > 0)
                free(t->list[cl].stk);
            return NIL;
        }
    }
    uint32_t h = st->nthreads++;
    t->next = NIL;
    t->id = thread;
    tc_increase_cache_limit(st, h);
    if (t->max_size_bytes == 0) {
        t->max_size_bytes = MIN_THREAD_CACHE;
        st->unclaimed_cache_space -= MIN_THREAD_CACHE;
    }
    t->next = st->thread_heaps;
    if (st->thread_heaps == NIL)
        st->next_memory_steal = h;
    st->thread_heaps = h;
    st->thread_index[id] = h;
    return h;
}

/* ---- stats ------------------------------------------------------------- */

static uint64_t chunks_of(uint64_t bytes) { return (bytes + META_CHUNK_BYTES - 1) / META_CHUNK_BYTES; }

static uint64_t metadata_bytes(const tc_state *st)
{
    return PAGEMAP_ROOT_BYTES + CENTRAL_STATIC_BYTES + (uint64_t)st->leaves * PAGEMAP_LEAF_BYTES +
           chunks_of((uint64_t)(st->spans_inuse_hw + 2) * SPAN_STRUCT_BYTES) * META_CHUNK_BYTES +
           chunks_of((uint64_t)(st->nthreads ? st->nthreads : 1) * THREAD_CACHE_STRUCT_BYTES) *
               META_CHUNK_BYTES;
}

void rs_tc_stats_get(const void *state, rs_tc_stats *r)
{
    const tc_state *st = state;
    memset(r, 0, sizeof *r);
    r->heap_size = st->system_pages << PAGE_SHIFT;
    r->pageheap_free = st->free_pages << PAGE_SHIFT;
    r->pageheap_unmapped = st->unmapped_pages << PAGE_SHIFT;
    for (unsigned cl = 1; cl < st->nclasses; cl++) {
        const tc_central *c = &st->central[cl];
        const tc_class_info *ci = &st->cls[cl];
        r->central_cache_free += c->counter * ci->size_bytes + c->num_spans * ci->tail_bytes;
        r->transfer_cache_free += (uint64_t)c->used_slots * ci->batch * ci->size_bytes;
    }
    for (uint32_t h = 0; h < st->nthreads; h++) {
        r->thread_cache_free += (uint64_t)st->threads[h].size_bytes;
        r->thread_cache_max_sizes += (uint64_t)st->threads[h].max_size_bytes;
    }
    r->current_total_thread_cache = r->thread_cache_free;
    r->max_total_thread_cache = (uint64_t)st->overall_thread_cache;
    r->metadata = metadata_bytes(st);
    r->total_decommit = st->decommit_pages << PAGE_SHIFT;
    r->scavenge_count = st->scavenge_count;
    r->thread_count = st->nthreads;
}

static void tc_stats(const void *state, rs_alloc_stats *r)
{
    const tc_state *st = state;
    uint64_t meta = metadata_bytes(st);
    uint64_t central = 0, transfer = 0;
    for (unsigned cl = 1; cl < st->nclasses; cl++) {
        const tc_central *c = &st->central[cl];
        const tc_class_info *ci = &st->cls[cl];
        central += c->counter * ci->size_bytes + c->num_spans * ci->tail_bytes;
        transfer += (uint64_t)c->used_slots * ci->batch * ci->size_bytes;
    }
    uint64_t cached = central + transfer;
    uint64_t thread_cached = 0;
    for (uint32_t h = 0; h < st->nthreads; h++)
        thread_cached += (uint64_t)st->threads[h].size_bytes;
    cached += thread_cached;
    *r = (rs_alloc_stats){
        .requested_bytes = st->requested_bytes,
        .allocated_bytes = st->allocated_bytes,
        .active_bytes = st->active_pages << OS_PAGE_SHIFT,
        .resident_bytes = (st->resident_pages << OS_PAGE_SHIFT) + meta,
        .mapped_bytes = ((st->system_pages - st->unmapped_pages) << PAGE_SHIFT) + meta,
        .metadata_bytes = meta,
        .cached_bytes = cached,
        .dirty_bytes = st->normal_resident_pages << OS_PAGE_SHIFT,
        .released_bytes = st->released_total_pages << OS_PAGE_SHIFT,
        .live_count = st->live_count,
        .thread_cached_bytes = thread_cached,
        .heap_bytes = (st->system_pages << PAGE_SHIFT) + meta,  /* generic.heap_size, + metadata */
        .unmapped_bytes = st->unmapped_pages << PAGE_SHIFT,     /* pageheap_unmapped */
        .central_cached_bytes = central,
        .transfer_cached_bytes = transfer,
        .pageheap_free_bytes = (uint64_t)st->free_pages << PAGE_SHIFT,
    };
}

static int stats_ordered(const tc_state *st)
{
    rs_alloc_stats s;
    tc_stats(st, &s);
    return s.requested_bytes <= s.allocated_bytes && s.requested_bytes <= s.active_bytes &&
           s.active_bytes <= s.resident_bytes && s.resident_bytes <= s.mapped_bytes;
}

/* ---- create / destroy -------------------------------------------------- */

static int param_size(const rs_config *cfg, const rs_param *p, uint64_t *r, rs_err *err)
{
    const char *v = cfg ? rs_config_raw(cfg, p->key) : NULL;
    if (rs_parse_size(v ? v : p->def, r))
        return rs_fail(err, RS_EINPUT, "invalid value '%s' for '%s' (expected a size)", v, p->key);
    return 0;
}

static int param_double(const rs_config *cfg, const rs_param *p, double *r, rs_err *err)
{
    const char *v = cfg ? rs_config_raw(cfg, p->key) : NULL;
    if (rs_parse_double(v ? v : p->def, r))
        return rs_fail(err, RS_EINPUT, "invalid value '%s' for '%s' (expected a number)", v, p->key);
    if (*r < 0)
        return rs_fail(err, RS_EINPUT, "invalid value '%s' for '%s' (expected >= 0)", v, p->key);
    return 0;
}

static void destroy(void *state)
{
    tc_state *st = state;
    if (!st)
        return;
    rs_mem_free(st->pmap);
    rs_mem_free(st->osp);
    rs_mem_free(st->resw);
    rs_mem_free(st->spans);
    rs_mem_free(st->large_normal.keys);
    rs_mem_free(st->large_returned.keys);
    rs_mem_free(st->links);
    rs_mem_free(st->chunk_span);
    for (uint32_t h = 0; h < st->nthreads; h++)
        for (unsigned cl = 1; cl < st->nclasses; cl++)
            free(st->threads[h].list[cl].stk);
    rs_mem_free(st->threads);
    rs_mem_free(st->thread_index);
    free(st);
}

static int startup_alloc(tc_state *st, uint64_t size_bytes);

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    uint64_t total_tc;
    double rate;
    int rc;
    if ((rc = param_size(cfg, &tc_params[0], &total_tc, err)) ||
        (rc = param_double(cfg, &tc_params[1], &rate, err)))
        return rc;
    tc_state *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator tcmalloc");
    /* set_overall_thread_cache_size: clip, then RecomputePerThreadCacheSize
     * with no thread: everything unclaimed */
    if (total_tc < (uint64_t)MIN_THREAD_CACHE)
        total_tc = (uint64_t)MIN_THREAD_CACHE;
    if (total_tc > (uint64_t)MAX_OVERALL_THREAD_CACHE)
        total_tc = (uint64_t)MAX_OVERALL_THREAD_CACHE;
    st->overall_thread_cache = (int64_t)total_tc;
    st->unclaimed_cache_space = (int64_t)total_tc;
    st->release_rate = rate;
    st->release_index = MAX_PAGES;
    st->thread_heaps = st->next_memory_steal = NIL;
    /* Start-up metadata: the library's static constructor (tcmalloc.cc
     * TCMallocGuard) runs tc_free(tc_malloc(1)) before and after
     * ThreadCache::InitTSD, at load time, before any code of the program.
     * That first GrowHeap makes the page-map leaf covering the heap
     * (PageMap2::Ensure: 2 MiB, memset), the span allocator's first chunk
     * and the loading thread's ThreadCache (its allocator's first chunk).
     * So every tcmalloc process has them before its first own allocation:
     * they are counted from here (metadata_bytes), and the workload's first
     * growth adds none of them.  The objects and pages of that start-up are
     * made at the end of create (startup_alloc). */
    st->leaves = 1;

    rs_tc_class classes[RS_TC_CLASS_MAX];
    unsigned n = rs_tc_classes(classes);
    st->nclasses = n + 1;
    assert(st->nclasses == NCLASS_ALL);
    for (unsigned cl = 1; cl <= n; cl++) {
        tc_class_info *ci = &st->cls[cl];
        ci->size_bytes = classes[cl].size_bytes;
        ci->pages = classes[cl].pages;
        ci->objects = classes[cl].objects;
        assert(ci->objects < LINK_END); /* at most 1 024 (8-byte objects on one page) */
        ci->batch = classes[cl].num_to_move;
        ci->nchunks = (ci->objects + (1u << CHUNK_SHIFT) - 1) >> CHUNK_SHIFT;
        ci->tail_bytes = (uint32_t)(((uint64_t)ci->pages << PAGE_SHIFT) % ci->size_bytes);
        ci->magic = (((uint64_t)1 << 32) + ci->size_bytes - 1) / ci->size_bytes;
    }
    /* the class of each size (SizeMap class_array_), size 0 -> class 1 */
    for (unsigned cl = 1, s = 0; s <= RS_TC_MAX_SIZE; s += s < SMALL_LOOKUP_MAX ? 8 : 128) {
        while (s > st->cls[cl].size_bytes)
            cl++;
        if (s <= SMALL_LOOKUP_MAX)
            st->class_small[s >> 3] = (uint8_t)cl;
        if (s >= SMALL_LOOKUP_MAX)
            st->class_large[(s - SMALL_LOOKUP_MAX) >> 7] = (uint8_t)cl;
    }
    /* central lists (CentralFreeList::Init for every class, 0 included) */
    if (grow((void **)&st->spans, &st->spans_cap, NSENTINEL + 64, sizeof *st->spans, 64) ||
        grow((void **)&st->large_normal.keys, &(uint32_t){0}, st->spans_cap, sizeof(uint64_t), 64) ||
        grow((void **)&st->large_returned.keys, &(uint32_t){0}, st->spans_cap, sizeof(uint64_t), 64)) {
        destroy(st);
        return rs_fail(err, RS_ENOMEM, "out of memory for allocator tcmalloc");
    }
    for (uint32_t i = 0; i < NSENTINEL; i++) {
        st->spans[i] = (tc_span){.location = LOC_UNUSED, .objects = NIL, .chunk = NIL};
        dll_init(st->spans, i);
    }
    st->spans_len = NSENTINEL;
    st->spans_free = NIL;
    st->spans_nfree = st->spans_cap - NSENTINEL;
    for (unsigned cl = 0; cl < st->nclasses; cl++) {
        tc_central *c = &st->central[cl];
        c->nonempty = sentinel_central(cl, 0);
        c->empty = sentinel_central(cl, 1);
        c->max_cache_size = MAX_TRANSFER_ENTRIES;
        c->cache_size = INIT_TRANSFER_SLOTS;
        if (cl > 0) {
            int32_t lim = TRANSFER_CACHE_BYTES / (int32_t)(st->cls[cl].size_bytes * st->cls[cl].batch);
            if (lim < 1)
                lim = 1;
            if (lim < c->max_cache_size)
                c->max_cache_size = lim;
            if (c->max_cache_size < c->cache_size)
                c->cache_size = c->max_cache_size;
        }
        st->chunk_free[cl] = NIL;
    }
    /* What every process with this library holds at its first own malloc
     * (measured: MallocExtension_GetStats at the start of main() reports
     * 73752 B in use = 73728 + 8 + 16, a class-1 span with 1023 free
     * objects and a class-2 span with 511, all in the central lists):
     * libstdc++'s emergency exception pool, allocated when libstdc++ (which
     * libtcmalloc needs) is loaded — 1024 × 64 + 64 ×
     * sizeof(__cxa_dependent_exception) = 72704 B (GCC 12
     * libsupc++/eh_alloc.cc, pool::pool) —, then TCMallocGuard's
     * `new MallocExtension` (8 B, malloc_extension.cc InitModule) and
     * `new TCMallocImplementation` (16 B, tcmalloc.cc TCMallocGuard), never
     * freed.  They come straight from the central lists (the tc_malloc(1)
     * pairs around them are freed again), so the workload's first 8- and
     * 16-byte objects take the free rest of those spans, as in a real
     * process, instead of new spans. */
    /* The pool's malloc is the process's first, made while libstdc++ is
     * initialised and before libtcmalloc's own static initialisers have run:
     * FLAGS_tcmalloc_release_rate (page_heap.cc, a dynamic initialiser
     * EnvToDouble("TCMALLOC_RELEASE_RATE", 1.0)) still reads 0, so the first
     * GrowHeap's IncrementalScavenge takes the "releasing is disabled" branch
     * and sets the counter to kDefaultReleaseDelay: nothing is released until
     * 2^18 pages have been freed (measured: at main() the first 1 MiB is all
     * on the normal lists, 0 B unmapped). */
    static const uint64_t startup[] = { 72704, 8, 16 };
    st->release_rate = 0;
    for (size_t i = 0; i < sizeof startup / sizeof *startup; i++)
        if (startup_alloc(st, startup[i])) {
            destroy(st);
            return rs_fail(err, RS_ENOMEM, "out of memory for allocator tcmalloc");
        }
    st->release_rate = rate;
    *r_state = st;
    return 0;
}

/* Make the slow path of one allocation unable to fail: two span records,
 * a slot block for class cl (0: none), page-map room for a growth by
 * max(npages, 1 MiB).  Out of line: reserve_class below calls it only when
 * what is there may not be enough. */
static __attribute__((noinline)) int reserve(tc_state *st, unsigned cl, uint32_t npages)
{
    if (st->spans_nfree < 2) {
        uint32_t cap = st->spans_cap;
        /* the records past the capacity are needed: it grows exactly when
         * it did while records were made one at a time as needed (which
         * record a span gets is not observable: lists are linked, never
         * ordered by record) */
        if (grow((void **)&st->spans, &st->spans_cap, (uint64_t)cap + 2 - st->spans_nfree, sizeof *st->spans, 64))
            return -1;
        uint32_t c1 = cap, c2 = cap;
        if (grow((void **)&st->large_normal.keys, &c1, st->spans_cap, sizeof(uint64_t), 64) ||
            grow((void **)&st->large_returned.keys, &c2, st->spans_cap, sizeof(uint64_t), 64)) {
            st->spans_cap = cap; /* keep the sets at least as large as the records */
            return -1;
        }
        st->spans_nfree += st->spans_cap - cap;
    }
    if (cl && st->chunk_free[cl] == NIL) {
        uint64_t need = (uint64_t)st->chunks_len + st->cls[cl].nchunks;
        uint32_t c1 = st->chunks_cap;
        if (need > (UINT32_MAX >> CHUNK_SHIFT) ||
            grow((void **)&st->chunk_span, &c1, need, sizeof *st->chunk_span, 64))
            return -1;
        if (c1 != st->chunks_cap) {
            void *p = rs_mem_realloc(st->links, ((size_t)c1 << CHUNK_SHIFT) * sizeof *st->links);
            if (!p)
                return -1; /* chunk_span is larger than needed: harmless */
            st->links = p;
            st->chunks_cap = c1;
            /* room for any class's chunks while chunks_len < chunks_fast */
            uint32_t lim = c1 < (UINT32_MAX >> CHUNK_SHIFT) ? c1 : (UINT32_MAX >> CHUNK_SHIFT), k = 0;
            for (unsigned c = 1; c < st->nclasses; c++)
                k = st->cls[c].nchunks > k ? st->cls[c].nchunks : k;
            st->chunks_fast = lim >= k ? lim - k + 1 : 0;
        }
    }
    uint64_t g = npages > MIN_SYSTEM_ALLOC ? npages : MIN_SYSTEM_ALLOC;
    uint64_t need = (uint64_t)(st->top ? st->top : 1) + g + 1;
    if (need > MAX_HEAP_PAGES)
        return -1;
    if (need > st->pmap_cap) {
        uint32_t c1 = st->pmap_cap;
        if (grow((void **)&st->pmap, &c1, need, sizeof *st->pmap, 1024))
            return -1;
        void *p = rs_mem_realloc(st->osp, (size_t)c1 * OS_PER_PAGE * sizeof *st->osp);
        if (!p)
            return -1;
        st->osp = p;
        p = rs_mem_realloc(st->resw, res_words(c1) * sizeof *st->resw);
        if (!p)
            return -1; /* osp is larger than needed: harmless */
        st->resw = p;
        st->pmap_cap = c1;
        if (st->top == 0) { /* page 0: the guard */
            st->pmap[0] = NIL;
            st->osp[0] = st->osp[1] = 0;
            res_clear(st, 0, OS_PER_PAGE);
            st->top = 1;
        }
        /* top + MIN_SYSTEM_ALLOC + 1 <= pmap_cap and MAX_HEAP_PAGES while
         * top < top_fast (top is >= 1 from here on) */
        uint64_t lim = c1 < MAX_HEAP_PAGES ? c1 : MAX_HEAP_PAGES;
        st->top_fast = lim > MIN_SYSTEM_ALLOC ? (uint32_t)(lim - MIN_SYSTEM_ALLOC) : 0;
    }
    return 0;
}

/* reserve for a small allocation of class cl (its span is at most
 * MIN_SYSTEM_ALLOC pages), inline: nearly always everything is there (two
 * free records, page-map room for a growth, slots for any class's span),
 * as this checks, without a call; else reserve looks closer. */
static inline int reserve_class(tc_state *st, unsigned cl)
{
    assert(st->cls[cl].pages <= MIN_SYSTEM_ALLOC);
    if (st->spans_nfree >= 2 && st->top < st->top_fast && st->chunks_len < st->chunks_fast)
        return 0;
    return reserve(st, cl, st->cls[cl].pages);
}

/* ---- ops ---------------------------------------------------------------- */

static inline unsigned size_class(const tc_state *st, uint64_t size)
{
    return size <= SMALL_LOOKUP_MAX ? st->class_small[(size + 7) >> 3]
                                    : st->class_large[(size - SMALL_LOOKUP_MAX + 127) >> 7];
}

/* The counters of an allocation of size_bytes that was given usable. */
static inline rs_addr alloc_done(tc_state *st, uint64_t off, uint64_t size_bytes, uint64_t usable)
{
    st->requested_bytes += size_bytes;
    st->allocated_bytes += usable;
    st->live_count++;
    assert(stats_ordered(st));
    return BASE_ADDR + off;
}

/* Every allocation but a pop from an existing thread's list: a large one,
 * a thread's first, a fetch from the central list. */
static __attribute__((noinline)) rs_addr tc_alloc_slow(tc_state *st, uint64_t size_bytes, uint32_t thread)
{
    uint64_t off;
    if (size_bytes <= MAX_SIZE) {
        unsigned cl = size_class(st, size_bytes);
        uint32_t h = thread_lookup(st, thread);
        if (h == NIL && (h = thread_create(st, thread)) == NIL)
            return 0;
        tc_thread *t = &st->threads[h];
        assert(t->list[cl].length == 0); /* else tc_alloc popped */
        if (reserve_class(st, cl))
            return 0;
        off = tc_fetch_from_central(st, t, cl);
        if (off == UINT64_MAX)
            return 0;
        live_add(st, off, size_bytes ? size_bytes : 1); /* the requested range (malloc(0): its first byte) */
        return alloc_done(st, off, size_bytes, st->cls[cl].size_bytes);
    }
    if (size_bytes > RS_ALLOC_MAX_REQUEST_BYTES) /* before the page count can wrap */
        return 0;
    uint64_t npages = (size_bytes + PAGE_BYTES - 1) >> PAGE_SHIFT;
    if (npages >= MAX_HEAP_PAGES || reserve(st, 0, (uint32_t)npages))
        return 0;
    uint32_t id = ph_new(st, (uint32_t)npages);
    if (id == NIL)
        return 0;
    off = (uint64_t)st->spans[id].start << PAGE_SHIFT;
    uint64_t q = off >> OS_PAGE_SHIFT, nq = large_os_pages(size_bytes);
    st->spans[id].objects = (uint32_t)nq;
    st->active_pages += nq;
    st->resident_pages += res_set(st, q, q + nq);
    return alloc_done(st, off, size_bytes, npages << PAGE_SHIFT);
}

/* Pop: the head of a thread's non-empty list fl, its offset (the caller
 * lowers the thread's size_ by the class size). */
static inline uint64_t tc_pop(tc_state *st, tc_freelist *fl)
{
    const uint64_t *stk = fl->stk;
    uint32_t len = --fl->length; /* a local, used thrice: fl->length is not read back */
    uint64_t off = stk[len];
    if (len < fl->lowater)
        fl->lowater = len;
    if (len) /* the next pop's live counter; not its resident bit, read only
              * when the page had no live object, in a bitmap a 32768th of
              * the heap's size (a word a 256 KiB run of it) */
        __builtin_prefetch(&st->osp[stk[len - 1] >> OS_PAGE_SHIFT], 1);
    return off;
}

/* The end of a pop whose requested range [off, off + bytes) crosses an
 * OS page: out of line, so that tc_alloc calls nothing but in a tail call
 * and keeps no register across one (no frame to save and restore). */
static __attribute__((noinline)) rs_addr tc_alloc_pages(tc_state *st, uint64_t off, uint64_t size_bytes,
                                                        uint64_t bytes, uint64_t usable)
{
    live_add_pages(st, off >> OS_PAGE_SHIFT, (off + bytes - 1) >> OS_PAGE_SHIFT);
    return alloc_done(st, off, size_bytes, usable);
}

/* The commonest allocation, a Pop from the thread's list, here; the
 * others in tc_alloc_slow. */
static rs_addr tc_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    tc_state *st = state;
    (void)now_ns; /* gperftools 2.10 has no time-driven behaviour */
    if (size_bytes <= MAX_SIZE) {
        unsigned cl = size_class(st, size_bytes);
        uint32_t h = thread_lookup(st, thread);
        tc_freelist *fl;
        if (h != NIL && (fl = &st->threads[h].list[cl])->length) {
            uint64_t off = tc_pop(st, fl), usable = st->cls[cl].size_bytes;
            uint64_t bytes = size_bytes ? size_bytes : 1; /* the requested range (malloc(0): its first byte) */
            st->threads[h].size_bytes -= usable;
            if ((off ^ (off + bytes - 1)) >> OS_PAGE_SHIFT)
                return tc_alloc_pages(st, off, size_bytes, bytes, usable);
            live_add_page(st, off >> OS_PAGE_SHIFT);
            return alloc_done(st, off, size_bytes, usable);
        }
    }
    return tc_alloc_slow(st, size_bytes, thread);
}

/* Pops for size[i..n) from thread t's lists, until one is large or its
 * list empty; where that one is (n: all done).  The counters a pop adds to
 * are summed here and added once at the end: nothing a pop does reads
 * them. */
static unsigned tc_pop_n(tc_state *st, tc_thread *t, const uint64_t *size, unsigned i, unsigned n,
                         rs_addr *r_addr)
{
    uint64_t requested = 0, allocated = 0;
    unsigned i0 = i;
    for (; i < n && size[i] <= MAX_SIZE; i++) {
        unsigned cl = size_class(st, size[i]);
        tc_freelist *fl = &t->list[cl];
        if (!fl->length)
            break;
        uint64_t off = tc_pop(st, fl);
        assert(size[i] > 0); /* alloc.h: no malloc(0) to stand for its first byte */
        live_add(st, off, size[i]);
        requested += size[i];
        allocated += st->cls[cl].size_bytes;
        r_addr[i] = BASE_ADDR + off;
    }
    t->size_bytes -= (int64_t)allocated;
    st->requested_bytes += requested;
    st->allocated_bytes += allocated;
    st->live_count += i - i0;
    assert(stats_ordered(st));
    return i;
}

/* alloc_n (alloc.h): the pops in a run, each other allocation as
 * tc_alloc makes it. */
static unsigned tc_alloc_n(void *state, const uint64_t *size, unsigned n, uint32_t thread,
                           uint64_t now_ns, rs_addr *r_addr)
{
    tc_state *st = state;
    (void)now_ns;
    for (unsigned i = 0; i < n; i++) {
        uint32_t h = thread_lookup(st, thread);
        if (h != NIL && (i = tc_pop_n(st, &st->threads[h], size, i, n, r_addr)) == n)
            break;
        if (!(r_addr[i] = tc_alloc_slow(st, size[i], thread)))
            return i;
    }
    return n;
}

/* One of the library's start-up objects (create): a small class object
 * fetched straight from its central list and live for ever.  Its pages are
 * resident (written), but like the metadata it is the library's, not the
 * workload's: requested, allocated, active and live_count leave it out. */
static int startup_alloc(tc_state *st, uint64_t size_bytes)
{
    unsigned cl = size_class(st, size_bytes);
    uint64_t off;
    if (st->nstartup == STARTUP_OBJECTS || reserve_class(st, cl) ||
        central_remove_range(st, cl, 1, &off) != 1)
        return -1;
    for (uint64_t q = off >> OS_PAGE_SHIFT; q <= (off + size_bytes - 1) >> OS_PAGE_SHIFT; q++)
        os_touch(st, q);
    st->startup_off[st->nstartup++] = off;
    return 0;
}

#ifndef NDEBUG
/* Whether off is the start of an object of a class cl span (for asserts). */
static int is_object_of(const tc_state *st, uint64_t off, unsigned cl)
{
    const tc_span *s = &st->spans[st->pmap[off >> PAGE_SHIFT]];
    return s->sizeclass == cl &&
           (uint64_t)span_index(st, s, off) * st->cls[cl].size_bytes == off - ((uint64_t)s->start << PAGE_SHIFT);
}
#endif

static void tc_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    tc_state *st = state;
    (void)now_ns;
    assert(addr > BASE_ADDR && addr < BASE_ADDR + ((uint64_t)st->top << PAGE_SHIFT));
    uint64_t off = addr - BASE_ADDR;
    if (size_bytes > MAX_SIZE) { /* do_free_pages: a span of its own */
        uint32_t id = st->pmap[off >> PAGE_SHIFT];
        tc_span *s = &st->spans[id];
        assert(s->sizeclass == 0);
        assert(s->location == LOC_IN_USE && off == (uint64_t)s->start << PAGE_SHIFT);
        assert(size_bytes > MAX_SIZE && ((size_bytes + PAGE_BYTES - 1) >> PAGE_SHIFT) == s->length);
        uint64_t usable = (uint64_t)s->length << PAGE_SHIFT;
        assert(s->objects == large_os_pages(size_bytes));
        st->active_pages -= s->objects;
        s->objects = NIL;
        st->allocated_bytes -= usable;
        ph_delete(st, id);
    } else {
        /* a sized free names its class (the span's, ValidateSizeHint) */
        unsigned cl = size_class(st, size_bytes);
        const tc_class_info *ci = &st->cls[cl];
        assert(is_object_of(st, off, cl));
        live_remove(st, off, size_bytes ? size_bytes : 1);
        st->allocated_bytes -= ci->size_bytes;
        uint32_t h = thread_lookup(st, thread);
        if (h != NIL) {
            tc_deallocate(st, h, off, cl);
        } else { /* no cache for this thread: straight to the central list,
                  * InsertRange of one object, which is never a whole batch
                  * (NumMoveSize: at least 2), so to its span */
            assert(ci->batch > 1);
            central_release_to_spans(st, cl, off);
        }
    }
    st->requested_bytes -= size_bytes;
    st->live_count--;
    assert(stats_ordered(st));
}

/* free_n (alloc.h): the frees into the thread's cache in a run, the
 * counters they take from summed and taken once (nothing a push does
 * reads them); a large object and those after it, or all when the thread
 * has no cache, as tc_free frees them. */
static void tc_free_n(void *state, const rs_addr *addr, const uint64_t *size, unsigned n, uint32_t thread,
                      uint64_t now_ns)
{
    tc_state *st = state;
    uint32_t h = thread_lookup(st, thread);
    uint64_t requested = 0, allocated = 0;
    unsigned i = 0;
    for (; h != NIL && i < n && size[i] <= MAX_SIZE; i++) {
        uint64_t off = addr[i] - BASE_ADDR;
        unsigned cl = size_class(st, size[i]);
        assert(addr[i] > BASE_ADDR && is_object_of(st, off, cl) && size[i] > 0);
        live_remove(st, off, size[i]);
        tc_deallocate(st, h, off, cl);
        requested += size[i];
        allocated += st->cls[cl].size_bytes;
    }
    st->requested_bytes -= requested;
    st->allocated_bytes -= allocated;
    st->live_count -= i;
    assert(stats_ordered(st));
    for (; i < n; i++)
        tc_free(state, addr[i], size[i], thread, now_ns);
}

/* A free is coming (alloc.h): stage 0 fetches the OS page's live counter,
 * which the free writes, and the page-map entry; stage 1 the span record
 * the entry names; stage 2 (the record cached by then) the object's link
 * word and, when the span has no free object yet, its list neighbours'
 * records.  The free itself only pushes the object on its thread cache's
 * stack, but a trim frees many objects of a class at once, so the list
 * grows too long and hands the objects freed last to the central list,
 * which writes the words of those that go back to their spans; fetched
 * here, they are cached by then (without stages 1 and 2 the MDS replay took about 5 % longer:
 * one round-robin run of 6 rounds). */
static void tc_prefetch(const void *state, rs_addr addr, int stage)
{
    const tc_state *st = state;
    if (addr <= BASE_ADDR || addr >= BASE_ADDR + ((uint64_t)st->top << PAGE_SHIFT))
        return;
    uint64_t off = addr - BASE_ADDR;
    if (stage == 0) {
        __builtin_prefetch(&st->pmap[off >> PAGE_SHIFT]);
        __builtin_prefetch(&st->osp[off >> OS_PAGE_SHIFT], 1);
    } else if (stage == 1) {
        __builtin_prefetch(&st->spans[st->pmap[off >> PAGE_SHIFT]]);
    } else {
        const tc_span *s = &st->spans[st->pmap[off >> PAGE_SHIFT]];
        if (!s->sizeclass || s->chunk == NIL)
            return;
        uint32_t idx = span_index(st, s, off);
        if (idx >= st->cls[s->sizeclass].objects)
            return; /* a stale hint */
        __builtin_prefetch(&st->links[(uint64_t)span_slot0(s) + idx], 1);
        if (s->objects == NIL) {
            __builtin_prefetch(&st->spans[s->prev], 1);
            __builtin_prefetch(&st->spans[s->next], 1);
        }
    }
}

static uint64_t tc_usable_size(const void *state, uint64_t size_bytes)
{
    const tc_state *st = state;
    if (size_bytes <= MAX_SIZE)
        return st->cls[size_class(st, size_bytes)].size_bytes;
    if (size_bytes > RS_ALLOC_MAX_REQUEST_BYTES)
        return 0; /* too large: alloc refuses it */
    return ((size_bytes + PAGE_BYTES - 1) >> PAGE_SHIFT) << PAGE_SHIFT;
}

/* MallocExtension::ReleaseFreeMemory = ReleaseToSystem(SIZE_MAX): every
 * normal free span of the page heap is released; caches are untouched. */
static void tc_release(void *state, uint64_t now_ns)
{
    (void)now_ns;
    ph_release_at_least(state, UINT64_MAX >> PAGE_SHIFT);
    assert(stats_ordered(state));
}

/* Debian's libtcmalloc-minimal4 (gperftools). */
static const rs_alloc_real tc_real = {
    .soname = "libtcmalloc_minimal.so.4",
    .package = "libtcmalloc-minimal4",
    .lib_tag = "libtcmalloc",
    .api = RS_ALLOC_API_MALLOC_EXTENSION,
    .reports = RS_ALLOC_F_ALLOCATED | RS_ALLOC_F_ACTIVE | RS_ALLOC_F_MAPPED | RS_ALLOC_F_CACHED |
               RS_ALLOC_F_THREAD_CACHED | RS_ALLOC_F_CENTRAL_CACHED | RS_ALLOC_F_TRANSFER_CACHED |
               RS_ALLOC_F_PAGEHEAP_FREE | RS_ALLOC_F_HEAP | RS_ALLOC_F_UNMAPPED | RS_ALLOC_F_DIRTY,
};

const rs_alloc_ops rs_alloc_tcmalloc = {
    .name = "tcmalloc",
    .doc = "gperftools 2.10 tcmalloc: 85 size classes, thread caches with slow start and a "
           "global budget, transfer and central caches, page heap with release-rate scavenger",
    .params = tc_params,
    .create = create,
    .destroy = destroy,
    .alloc = tc_alloc,
    .free = tc_free,
    .alloc_n = tc_alloc_n,
    .free_n = tc_free_n,
    .usable_size = tc_usable_size,
    .advance = NULL,
    .release = tc_release,
    .stats = tc_stats,
    .prefetch = tc_prefetch,
    .reports_heap = 1,
    .reports = RS_ALLOC_F_THREAD_CACHED | RS_ALLOC_F_HEAP | RS_ALLOC_F_UNMAPPED |
               RS_ALLOC_F_CENTRAL_CACHED | RS_ALLOC_F_TRANSFER_CACHED | RS_ALLOC_F_PAGEHEAP_FREE,
    .audit = rs_tc_audit,
    .footprint_bytes = rs_tc_footprint_bytes,
    .real = &tc_real,
};

/* ---- test helpers ------------------------------------------------------ */

int rs_tc_thread_list(const void *state, uint32_t thread, unsigned cl, uint32_t *r_length,
                      uint32_t *r_max_length)
{
    const tc_state *st = state;
    uint32_t h = thread_lookup(st, thread);
    if (h == NIL || cl == 0 || cl >= st->nclasses)
        return RS_ENOTFOUND;
    *r_length = st->threads[h].list[cl].length;
    *r_max_length = st->threads[h].list[cl].max_length;
    return 0;
}

int rs_tc_thread_cache(const void *state, uint32_t thread, uint64_t *r_size_bytes,
                       uint64_t *r_max_size_bytes)
{
    const tc_state *st = state;
    uint32_t h = thread_lookup(st, thread);
    if (h == NIL)
        return RS_ENOTFOUND;
    *r_size_bytes = (uint64_t)st->threads[h].size_bytes;
    *r_max_size_bytes = (uint64_t)st->threads[h].max_size_bytes;
    return 0;
}

int rs_tc_central(const void *state, unsigned cl, uint64_t *r_free_objects,
                  uint32_t *r_transfer_batches, uint64_t *r_spans)
{
    const tc_state *st = state;
    if (cl == 0 || cl >= st->nclasses)
        return RS_ENOTFOUND;
    *r_free_objects = st->central[cl].counter;
    *r_transfer_batches = (uint32_t)st->central[cl].used_slots;
    *r_spans = st->central[cl].num_spans;
    return 0;
}

static uint64_t fl_stack_bytes(const tc_state *st)
{
    uint64_t n = 0;
    for (uint32_t h = 0; h < st->nthreads; h++)
        for (unsigned cl = 1; cl < st->nclasses; cl++)
            n += st->threads[h].list[cl].cap;
    return n * sizeof(uint64_t);
}

uint64_t rs_tc_footprint_bytes(const void *state)
{
    const tc_state *st = state;
    return sizeof *st + (uint64_t)st->pmap_cap * (sizeof *st->pmap + OS_PER_PAGE * sizeof *st->osp) +
           res_words(st->pmap_cap) * sizeof *st->resw +
           (uint64_t)st->spans_cap * (sizeof *st->spans + 2 * sizeof(uint64_t)) +
           (uint64_t)st->chunks_cap * (sizeof *st->chunk_span + ((size_t)1 << CHUNK_SHIFT) * sizeof *st->links) +
           (uint64_t)st->threads_cap * sizeof *st->threads +
           fl_stack_bytes(st) +
           (uint64_t)st->thread_index_cap * sizeof *st->thread_index;
}

/* ---- audit ------------------------------------------------------------- */

/* Walk span id's free chain (the pristine one, seq_end, slot by slot; else
 * by its links) marking its slots free; fails on a pristine chain that does
 * not end at the span's last slot, a loop, an index outside the span or a
 * slot already marked. */
static int mark_chain(const tc_state *st, uint8_t *is_free, uint32_t id, uint64_t *r_n)
{
    const tc_span *s = &st->spans[id];
    uint32_t slot0 = span_slot0(s), objects = st->cls[s->sizeclass].objects;
    uint64_t n = 0;
    if (s->seq_end && s->seq_end != slot0 + objects)
        return -1;
    for (uint32_t x = s->objects; x != NIL;
         x = s->seq_end ? (x + 1 < s->seq_end ? x + 1 : NIL) : link_next(st, slot0, x)) {
        if (x < slot0 || x - slot0 >= objects || n >= objects || is_free[x])
            return -1;
        is_free[x] = 1;
        n++;
    }
    *r_n = n;
    return 0;
}

/* The same for an array of offsets (a thread cache list's stack, a
 * transfer slot): each an object start in an in-use span of class cl,
 * none marked before. */
static int mark_stack(const tc_state *st, uint8_t *is_free, const uint64_t *stk, uint32_t n, unsigned cl)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = stk[i];
        if (off >= (uint64_t)st->top << PAGE_SHIFT)
            return -1;
        uint32_t sp = st->pmap[off >> PAGE_SHIFT];
        if (sp == NIL || sp >= st->spans_len || st->spans[sp].sizeclass != cl || st->spans[sp].chunk == NIL)
            return -1;
        const tc_span *s = &st->spans[sp];
        uint32_t idx = span_index(st, s, off);
        if (idx >= st->cls[cl].objects ||
            (uint64_t)idx * st->cls[cl].size_bytes != off - ((uint64_t)s->start << PAGE_SHIFT))
            return -1;
        uint32_t x = span_slot0(s) + idx;
        if (is_free[x])
            return -1;
        is_free[x] = 1;
    }
    return 0;
}

int rs_tc_audit(const void *state, rs_err *err)
{
    const tc_state *st = state;
    int rc = 0;
    uint64_t nslots = (uint64_t)st->chunks_len << CHUNK_SHIFT;
    uint8_t *is_free = calloc(nslots + 1, 1);
    uint16_t live[MAX_PAGES * OS_PER_PAGE], first[MAX_PAGES * OS_PER_PAGE]; /* of one small span */
    uint64_t *span_free = calloc((size_t)st->spans_len + 1, sizeof *span_free);
    if (!is_free || !span_free) {
        free(is_free);
        free(span_free);
        return rs_fail(err, RS_ENOMEM, "out of memory in audit");
    }
#define AUDIT_FAIL(...) do { rc = rs_fail(err, RS_EINTERNAL, __VA_ARGS__); goto out; } while (0)
    /* free-object chains: thread caches, transfer caches, spans */
    uint64_t tc_bytes_total = 0;
    for (uint32_t h = 0; h < st->nthreads; h++) {
        const tc_thread *t = &st->threads[h];
        int64_t bytes = 0;
        for (unsigned cl = 1; cl < st->nclasses; cl++) {
            uint64_t n = t->list[cl].length;
            if (n > t->list[cl].cap || mark_stack(st, is_free, t->list[cl].stk, (uint32_t)n, cl))
                AUDIT_FAIL("thread %u class %u: free list broken", h, cl);
            if (t->list[cl].lowater > t->list[cl].length || t->list[cl].max_length == 0)
                AUDIT_FAIL("thread %u class %u: lowater/max_length wrong", h, cl);
            bytes += (int64_t)n * st->cls[cl].size_bytes;
        }
        if (bytes != t->size_bytes)
            AUDIT_FAIL("thread %u: size %lld, lists hold %lld", h, (long long)t->size_bytes, (long long)bytes);
        tc_bytes_total += (uint64_t)bytes;
        if (thread_lookup(st, t->id) != h)
            AUDIT_FAIL("thread %u: index does not find it", h);
    }
    for (unsigned cl = 1; cl < st->nclasses; cl++) {
        const tc_central *c = &st->central[cl];
        if (c->used_slots < 0 || c->used_slots > c->cache_size || c->cache_size > c->max_cache_size)
            AUDIT_FAIL("class %u: transfer cache %d/%d/%d", cl, c->used_slots, c->cache_size, c->max_cache_size);
        for (int i = 0; i < c->used_slots; i++)
            if (mark_stack(st, is_free, c->tc_objs[i], st->cls[cl].batch, cl))
                AUDIT_FAIL("class %u: transfer slot %d broken", cl, i);
        uint64_t counter = 0, nspans = 0;
        for (int e = 0; e < 2; e++) {
            uint32_t list = e ? c->empty : c->nonempty;
            for (uint32_t id = st->spans[list].next; id != list; id = st->spans[id].next) {
                const tc_span *s = &st->spans[id];
                uint64_t n;
                if (nspans++ > st->spans_len || s->sizeclass != cl || s->location != LOC_IN_USE ||
                    st->spans[s->next].prev != id)
                    AUDIT_FAIL("class %u: span %u misplaced", cl, id);
                if (s->chunk == NIL || mark_chain(st, is_free, id, &n))
                    AUDIT_FAIL("class %u: span %u object list broken", cl, id);
                if ((n == 0) != (e == 1) || n + s->refcount != st->cls[cl].objects)
                    AUDIT_FAIL("class %u: span %u has %llu free, refcount %u", cl, id, (unsigned long long)n,
                               s->refcount);
                span_free[id] = n;
                counter += n;
            }
        }
        if (counter != c->counter || nspans != c->num_spans)
            AUDIT_FAIL("class %u: counter %llu/%llu spans %llu/%llu", cl, (unsigned long long)counter,
                       (unsigned long long)c->counter, (unsigned long long)nspans,
                       (unsigned long long)c->num_spans);
    }
    /* walk the heap by spans */
    uint64_t resident = 0, active = 0, allocated = 0, free_p = 0, unmapped_p = 0, normal_res = 0, nlarge[2] = {0};
    uint32_t prev_loc = LOC_UNUSED;
    for (uint32_t p = 1; p < st->top;) {
        uint32_t id = st->pmap[p];
        if (id == NIL || id < NSENTINEL || id >= st->spans_len)
            AUDIT_FAIL("page %u: bad span %u", p, id);
        const tc_span *s = &st->spans[id];
        if (s->start != p || s->length == 0 || p + s->length > st->top || st->pmap[p + s->length - 1] != id)
            AUDIT_FAIL("page %u: span %u boundaries wrong", p, id);
        uint32_t nres = count_resident(st, p, s->length);
        resident += nres;
        if (s->location == LOC_IN_USE && s->sizeclass) {
            unsigned cl = s->sizeclass;
            const tc_class_info *ci = &st->cls[cl];
            uint64_t q0 = (uint64_t)p * OS_PER_PAGE, q1 = ((uint64_t)p + s->length) * OS_PER_PAGE;
            if (s->length != ci->pages || s->chunk == NIL || s->length > MAX_PAGES)
                AUDIT_FAIL("span %u: class %u with %u pages", id, cl, s->length);
            memset(live, 0, (size_t)(q1 - q0) * sizeof *live);
            memset(first, 0, (size_t)(q1 - q0) * sizeof *first);
            for (uint32_t q = p; q < p + s->length; q++)
                if (st->pmap[q] != id)
                    AUDIT_FAIL("span %u: page %u not registered", id, q);
            for (uint32_t k = 0; k < ci->objects; k++) {
                uint32_t x = span_slot0(s) + k;
                uint64_t off = ((uint64_t)p << PAGE_SHIFT) + (uint64_t)k * ci->size_bytes;
                if (st->chunk_span[x >> CHUNK_SHIFT] != id)
                    AUDIT_FAIL("span %u: chunk owner wrong", id);
                if (!res_test(st, off >> OS_PAGE_SHIFT))
                    AUDIT_FAIL("span %u: object %u's first page not resident", id, k);
                int startup = 0;
                for (uint32_t i = 0; i < st->nstartup; i++)
                    startup |= st->startup_off[i] == off;
                if (!is_free[x] && !startup) { /* its requested bytes cover [off, off + 1 .. size) */
                    allocated += ci->size_bytes;
                    first[(off >> OS_PAGE_SHIFT) - q0]++;
                    for (uint64_t q = off >> OS_PAGE_SHIFT; q <= (off + ci->size_bytes - 1) >> OS_PAGE_SHIFT; q++)
                        live[q - q0]++;
                }
            }
            for (uint64_t q = q0; q < q1; q++) {
                /* requested sizes are not kept: the page's count lies between
                 * the objects whose first byte is on it and the objects whose
                 * usable range overlaps it */
                unsigned n = st->osp[q] & OS_LIVE_MASK;
                if (n < first[q - q0] || n > live[q - q0])
                    AUDIT_FAIL("OS page %llu: live %u, counted %u..%u", (unsigned long long)q, n, first[q - q0],
                               live[q - q0]);
                if (n && !res_test(st, q))
                    AUDIT_FAIL("OS page %llu: live but not resident", (unsigned long long)q);
                active += n > 0;
            }
        } else if (s->location == LOC_IN_USE) {
            allocated += (uint64_t)s->length << PAGE_SHIFT;
            /* more than MAX_SIZE requested: every OS page but the last is
             * live, and what is live is resident (a run: its bits at once) */
            uint64_t q0 = (uint64_t)p * OS_PER_PAGE, all = (uint64_t)s->length * OS_PER_PAGE, nq = s->objects;
            if (nq + 1 < all || nq > all)
                AUDIT_FAIL("large span %u: %llu live OS pages of %llu", id, (unsigned long long)nq,
                           (unsigned long long)all);
            if (res_count(st, q0, q0 + nq) != nq)
                AUDIT_FAIL("large span %u: live pages not resident", id);
            active += nq;
        } else if (s->location == LOC_NORMAL || s->location == LOC_RETURNED) {
            int ret = s->location == LOC_RETURNED;
            if (nres != s->nresident || (ret && nres))
                AUDIT_FAIL("free span %u: nresident %u, counted %u", id, s->nresident, nres);
            if (prev_loc == s->location)
                AUDIT_FAIL("free span %u not coalesced with its predecessor", id);
            if (ret)
                unmapped_p += s->length;
            else {
                free_p += s->length;
                normal_res += nres;
            }
            if (s->length > MAX_PAGES) {
                const tc_lset *set = ret ? &st->large_returned : &st->large_normal;
                uint32_t i = lset_lower(set, lkey(s));
                if (i >= set->len || set->keys[i] != lkey(s))
                    AUDIT_FAIL("large free span %u not in its set", id);
                nlarge[ret]++;
            } else {
                uint32_t list = sentinel_heap(s->length, ret), k = 0, x;
                for (x = st->spans[list].next; x != list && x != id && k <= st->spans_len; x = st->spans[x].next)
                    k++;
                if (x != id)
                    AUDIT_FAIL("free span %u not on its list", id);
            }
        } else {
            AUDIT_FAIL("span %u in the page map is unused", id);
        }
        prev_loc = s->location;
        p += s->length;
    }
    /* a live count outside the small spans would be in active_pages but
     * not in the recount: the comparison below finds it */
    if (resident != st->resident_pages || active != st->active_pages || allocated != st->allocated_bytes ||
        free_p != st->free_pages || unmapped_p != st->unmapped_pages || normal_res != st->normal_resident_pages ||
        (st->top ? st->top - 1 : 0) != st->system_pages) /* top 0: nothing reserved yet */
        AUDIT_FAIL("counters differ: resident %llu/%llu active %llu/%llu allocated %llu/%llu free %llu/%llu "
                   "unmapped %llu/%llu dirty %llu/%llu",
                   (unsigned long long)resident, (unsigned long long)st->resident_pages,
                   (unsigned long long)active, (unsigned long long)st->active_pages,
                   (unsigned long long)allocated, (unsigned long long)st->allocated_bytes,
                   (unsigned long long)free_p, (unsigned long long)st->free_pages,
                   (unsigned long long)unmapped_p, (unsigned long long)st->unmapped_pages,
                   (unsigned long long)normal_res, (unsigned long long)st->normal_resident_pages);
    for (uint32_t len = 1; len <= MAX_PAGES; len++)
        for (int ret = 0; ret < 2; ret++)
            if ((int)((st->nonempty[ret][(len - 1) >> 6] >> ((len - 1) & 63)) & 1) ==
                dll_empty(st->spans, sentinel_heap(len, ret)))
                AUDIT_FAIL("free list of %u pages (%s): nonempty bit wrong", len, ret ? "returned" : "normal");
    for (int k = 0; k < 2; k++) {
        const tc_lset *set = k ? &st->large_returned : &st->large_normal;
        if (set->len != nlarge[k])
            AUDIT_FAIL("large set %d holds %u spans, the heap %llu", k, set->len, (unsigned long long)nlarge[k]);
        for (uint32_t i = 1; i < set->len; i++)
            if (set->keys[i - 1] >= set->keys[i])
                AUDIT_FAIL("large set %d not sorted", k);
    }
    if (!stats_ordered(st))
        AUDIT_FAIL("stats out of order");
    (void)tc_bytes_total;
#undef AUDIT_FAIL
out:
    free(is_free);
    free(span_free);
    return rc;
}
