/*
 * alloc.h — the allocator plug-in interface.
 *
 * An allocator model receives every allocation and free the simulated daemon
 * makes and says which simulated pages are resident.  Addresses are simulated
 * (rs_addr, never dereferenced); frees are sized (the caller passes the size
 * it asked for, as C++14 sized delete does), so a model needs no per-address
 * size table.  Time is virtual and injected: a model never reads a clock, the
 * caller passes now_ns (as jemalloc's decay code takes `now`).
 *
 * Stats use jemalloc's vocabulary (README, Vocabulary) and must keep, at every
 * moment,
 *   requested <= allocated   and   requested <= active <= resident <= mapped.
 * "Touching" model: the application writes the bytes it requested, so a page
 * is resident from the first allocation whose requested range overlaps it
 * until the model releases it to the OS.  The tail of a size class beyond
 * the request is never written, so allocated may exceed active: a
 * 64 MiB + 8 B request gets jemalloc's 80 MiB class and 64 MiB of RSS.  This
 * relaxes the README's single chain (requested <= allocated <= active),
 * which real processes break the same way; docs/models.md says why.
 */
#ifndef RS_ALLOC_H
#define RS_ALLOC_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"
#include "../../traces/trace.h"

typedef uint64_t rs_addr; /* simulated address; 0 means the model failed */

#define RS_PAGE_BYTES 4096u /* the OS page (x86_64) */

/* The largest single request a model places: the trace format's largest
 * MALLOC (RS_REC_MALLOC_MAX_BYTES, 256 GiB) and 1/64 more for what a model
 * adds to a request (a size class, a pad page, a chunk header), so every
 * single request the reader accepts can be placed in an empty heap; a
 * larger one is refused (alloc returns 0, usable_size 0). */
#define RS_ALLOC_MAX_REQUEST_BYTES (RS_REC_MALLOC_MAX_BYTES + (RS_REC_MALLOC_MAX_BYTES >> 6))

/* The most address space one model's heap may span, released pages
 * included: 512 GiB.  A daemon's heap is larger than its cache limit (a
 * 256 GiB MDS cache, as some sites run, puts about 300 GiB in tcmalloc's
 * heap), so the bound is twice the largest request.  A model keeps a few
 * bytes of host memory per simulated page (tcmalloc ~8 B per 8 KiB page,
 * jemalloc ~8 B per 4 KiB page), so this bounds a model's own footprint to
 * ~1 GiB whatever the trace asks; a request that would take the heap past
 * it fails (alloc returns 0, "out of simulated memory"), as a real
 * allocator returns NULL when mmap fails. */
#define RS_ALLOC_MAX_HEAP_BYTES ((uint64_t)1 << 39)
_Static_assert(RS_ALLOC_MAX_HEAP_BYTES >= RS_ALLOC_MAX_REQUEST_BYTES, "a largest request fits an empty heap");

typedef struct rs_alloc_stats {
    uint64_t requested_bytes; /* sum of requested sizes of live allocations */
    uint64_t allocated_bytes; /* sum of usable (size-class) sizes of live allocations */
    uint64_t active_bytes;    /* resident pages holding at least one live allocation */
    uint64_t resident_bytes;  /* all resident heap pages: active + free-but-resident + caches + metadata */
    uint64_t mapped_bytes;    /* heap minus what was released to the OS */
    uint64_t metadata_bytes;  /* the allocator's own bookkeeping (resident, in resident_bytes) */
    uint64_t cached_bytes;    /* free objects held in thread/central caches (resident) */
    uint64_t dirty_bytes;     /* free pages not yet released (resident) */
    uint64_t released_bytes;  /* pages given back to the OS since start (not resident) */
    uint64_t live_count;      /* live allocations */
    /* The allocator's own view, where it has one (0 otherwise): */
    uint64_t thread_cached_bytes; /* the part of cached_bytes in per-thread caches */
    uint64_t heap_bytes;      /* all address space the heap holds, released included
                               * (tcmalloc generic.heap_size; jemalloc mapped + retained) */
    uint64_t unmapped_bytes;  /* of heap_bytes, released to the OS now (tcmalloc
                               * pageheap_unmapped; jemalloc retained); mapped = heap - unmapped */
    uint64_t central_cached_bytes;  /* of cached_bytes, in central free lists (tcmalloc
                                     * central_cache_free, span tails included) */
    uint64_t transfer_cached_bytes; /* of cached_bytes, in the transfer cache (tcmalloc) */
    uint64_t pageheap_free_bytes;   /* free page-heap spans not released, touched or not
                                     * (tcmalloc pageheap_free; dirty_bytes is its resident part) */
} rs_alloc_stats;

/* One bit per rs_alloc_stats field, for saying which fields a model or a
 * real library reports (rs_alloc_ops.reports, rs_alloc_real.reports). */
enum {
    RS_ALLOC_F_REQUESTED = 1u << 0,
    RS_ALLOC_F_ALLOCATED = 1u << 1,
    RS_ALLOC_F_ACTIVE = 1u << 2,
    RS_ALLOC_F_RESIDENT = 1u << 3,
    RS_ALLOC_F_MAPPED = 1u << 4,
    RS_ALLOC_F_METADATA = 1u << 5,
    RS_ALLOC_F_CACHED = 1u << 6,
    RS_ALLOC_F_DIRTY = 1u << 7,
    RS_ALLOC_F_RELEASED = 1u << 8,
    RS_ALLOC_F_LIVE_COUNT = 1u << 9,
    RS_ALLOC_F_THREAD_CACHED = 1u << 10,
    RS_ALLOC_F_HEAP = 1u << 11,
    RS_ALLOC_F_UNMAPPED = 1u << 12,
    RS_ALLOC_F_CENTRAL_CACHED = 1u << 13,
    RS_ALLOC_F_TRANSFER_CACHED = 1u << 14,
    RS_ALLOC_F_PAGEHEAP_FREE = 1u << 15,
};
/* The fields every model fills (the ones above "the allocator's own view"). */
#define RS_ALLOC_F_CORE (RS_ALLOC_F_LIVE_COUNT * 2u - 1u)

/* How rssim-real reads a real library's statistics and releases its free
 * memory: the library's own API, whose functions rssim-real resolves. */
typedef enum rs_alloc_real_api {
    RS_ALLOC_API_MALLINFO2,        /* glibc: mallinfo2(), malloc_trim(0) */
    RS_ALLOC_API_MALLCTL,          /* jemalloc: mallctl("stats.*"), arena.<all>.purge */
    RS_ALLOC_API_MALLOC_EXTENSION, /* gperftools: MallocExtension_GetNumericProperty,
                                    * MallocExtension_ReleaseFreeMemory */
} rs_alloc_real_api;

/* The real library a model imitates, as rssim-real loads it to replay the
 * same allocations (real/rssim_real.c) and `rssim validate` compares them
 * (sim/cli/cmd_validate.c). */
typedef struct rs_alloc_real {
    const char *soname;    /* put in front with LD_PRELOAD; NULL: the C library's, linked in */
    const char *package;   /* the Debian package that ships it (for the error when missing) */
    const char *lib_tag;   /* substring of the path `malloc` must resolve into */
    rs_alloc_real_api api; /* how its statistics are read and its memory released */
    uint32_t reports;      /* RS_ALLOC_F_* its statistics give (resident is RSS, always) */
    /* rssim-real replays as fast as it can, not in virtual time, so what the
     * library does on the wall clock cannot be compared.  When it has such
     * behaviour: the environment setting that switches it off in the real
     * library ("NAME=value", NULL: none) and the model setting that does the
     * same ("key=value", applied unless the caller sets key; NULL: none). */
    const char *replay_env;
    const char *replay_set;
} rs_alloc_real;

typedef struct rs_alloc_ops {
    const char *name;         /* registry name: "ideal", "jemalloc", ... */
    const char *doc;          /* one line */
    const rs_param *params;   /* NULL-terminated; keys prefixed by the model's name */

    /* Build one instance from cfg (already validated).  0 or RS_E*. */
    int (*create)(const rs_config *cfg, void **r_state, rs_err *err);
    void (*destroy)(void *state);

    /* Allocate size_bytes (> 0) for thread.  Returns a non-zero simulated
     * address, or 0 when the simulator itself ran out of memory. */
    rs_addr (*alloc)(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns);
    /* Free addr, which alloc returned for exactly size_bytes. */
    void (*free)(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns);
    /* Optional (NULL: the caller calls alloc and free once each): n calls
     * of alloc, or of free, in one, as an object's parts come and go
     * (layout/objects.c), so that a model can find the thread's cache and
     * keep its counters at hand once for them all.  alloc_n allocates
     * size[0..n) (each > 0) in order into r_addr[], exactly as n calls of
     * alloc would, and returns how many it made: n, or i < n when
     * allocation i failed (alloc returned 0), when it tries none after it.
     * free_n frees addr[0..n) (of size[0..n)) in order, exactly as n calls
     * of free. */
    unsigned (*alloc_n)(void *state, const uint64_t *size, unsigned n, uint32_t thread, uint64_t now_ns,
                        rs_addr *r_addr);
    void (*free_n)(void *state, const rs_addr *addr, const uint64_t *size, unsigned n, uint32_t thread,
                   uint64_t now_ns);
    /* The usable size a request of size_bytes gets (size-class rounding). */
    uint64_t (*usable_size)(const void *state, uint64_t size_bytes);
    /* Virtual time has reached now_ns (decay, scavenging).  May be NULL. */
    void (*advance)(void *state, uint64_t now_ns);
    /* Explicit release of free memory to the OS (purge, ReleaseFreeMemory,
     * malloc_trim).  May be NULL when the allocator has none. */
    void (*release)(void *state, uint64_t now_ns);
    void (*stats)(const void *state, rs_alloc_stats *r_stats);
    /* Optional hint: addr will soon be freed.  Stage 0 may fetch what
     * locates it (a page map entry), stage 1 (later) what that points to,
     * stage 2 (later still) what the free will write beyond that (a free
     * list's link word, neighbouring records).  Never changes state. */
    void (*prefetch)(const void *state, rs_addr addr, int stage);

    /* What makes one allocator special is declared here, never tested by
     * name.  reports_heap: the daemon can read the heap's mapped bytes from
     * the allocator, as Ceph's PriorityCache reads tcmalloc's
     * (MallocExtension generic.heap_size - tcmalloc.pageheap_unmapped_bytes;
     * Ceph src/common/PriorityCache.cc Manager::tune_memory); without it autotune has no
     * feedback. */
    int reports_heap;
    /* The optional fields of rs_alloc_stats (thread_cached_bytes and below)
     * this model fills with its own view: RS_ALLOC_F_* bits.  The core
     * fields (RS_ALLOC_F_CORE) every model fills. */
    uint32_t reports;
    /* Check the model's internal invariants (its incremental counters against
     * a recount of its structures): 0, or RS_E* with what is wrong.  Slow;
     * for tests.  NULL when the model has nothing to audit. */
    int (*audit)(const void *state, rs_err *err);
    /* The simulator's own host memory for the model's state, array capacities
     * included, in bytes (for benchmarks).  NULL when the model does not
     * count it. */
    uint64_t (*footprint_bytes)(const void *state);
    /* The real library that replays the same allocations (rssim-real,
     * `rssim validate`), or NULL when there is none (ideal). */
    const rs_alloc_real *real;
} rs_alloc_ops;

/* The ordering every model keeps (see the top of this file). */
static inline int rs_alloc_stats_ordered(const rs_alloc_stats *s)
{
    return s->requested_bytes <= s->allocated_bytes && s->requested_bytes <= s->active_bytes &&
           s->active_bytes <= s->resident_bytes && s->resident_bytes <= s->mapped_bytes;
}

/* An instance: the ops and the state, as handed to daemons. */
typedef struct rs_alloc {
    const rs_alloc_ops *ops;
    void *state;
} rs_alloc;

/* The error for an alloc that returned 0: the trace's live memory would take
 * the model's heap past RS_ALLOC_MAX_HEAP_BYTES.  That is the input's doing
 * (RS_EINPUT: exit status 2, the engine adds the record's FILE:LINE), not
 * the host's memory running out. */
static inline int rs_alloc_fail_full(const rs_alloc *a, rs_err *err)
{
    return rs_fail(err, RS_EINPUT,
                   "allocator model '%s' is out of simulated memory (its heap is bounded at "
                   "%llu GiB; the live memory this trace asks for is more than rssim simulates)",
                   a->ops->name, (unsigned long long)(RS_ALLOC_MAX_HEAP_BYTES >> 30));
}

#endif
