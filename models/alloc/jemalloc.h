/*
 * jemalloc.h — the jemalloc 5.3 allocator model (models/alloc/jemalloc.c):
 * its ops table, and the size-class derivation exposed so tests can compare
 * it with jemalloc 5.3.0's own bin table and with the installed library.
 *
 * The thread-cache geometry (rs_je_tcache_*) is derived the same way from
 * tcache.c's rule.  Size-class indices follow jemalloc's szind_t: 0 is the 8-byte class,
 * 0 .. rs_je_nbins()-1 are the small (slab) classes, then come the large
 * classes ("lextents").  Every function here is a pure function of its
 * arguments: the classes are derived from sc.h's rule (quantum 16, page 4096,
 * one tiny class, then 4 classes per doubling), not read from a table.
 */
#ifndef RS_ALLOC_JEMALLOC_H
#define RS_ALLOC_JEMALLOC_H

#include <stdint.h>

#include "alloc.h"

extern const rs_alloc_ops rs_alloc_jemalloc;

/* Bytes jemalloc adds to every large extent (opt.cache_oblivious, on in the
 * Debian build): one page, so a 16 KiB allocation occupies 20 KiB. */
#define RS_JE_LARGE_PAD_BYTES 4096u

/* Number of size classes on a 64-bit host (SC_NSIZES, 232). */
unsigned rs_je_sc_count(void);
/* Number of small classes (arenas.nbins, 36). */
unsigned rs_je_nbins(void);
/* Number of large classes (arenas.nlextents, 196). */
unsigned rs_je_nlextents(void);

/* Size in bytes of class szind, or 0 when szind >= rs_je_sc_count(). */
uint64_t rs_je_index2size(unsigned szind);
/* The class a request of size_bytes gets (0 is treated as 1), or
 * rs_je_sc_count() when the request exceeds the largest class. */
unsigned rs_je_size2index(uint64_t size_bytes);
/* Usable size of a request: its class size; 0 when too large. */
uint64_t rs_je_usable_size(uint64_t size_bytes);

/* Geometry of small class binind (arenas.bin.<i>.size / .nregs / .slab_size).
 * Returns 0, or RS_ENOTFOUND (outputs untouched) when binind >= nbins. */
int rs_je_bin_info(unsigned binind, uint64_t *r_size_bytes, uint32_t *r_nregs,
                   uint64_t *r_slab_bytes);
/* Size of large class i (arenas.lextent.<i>.size), or 0 when i is out of
 * range. */
uint64_t rs_je_lextent_size(unsigned i);

/* Cached classes (arenas.nhbins: classes up to opt.tcache_max 32 KiB, 41). */
unsigned rs_je_tcache_nhbins(void);
/* Capacity of the tcache stack of class szind (tcache_ncached_max_compute),
 * 0 when the class is not cached. */
unsigned rs_je_tcache_ncached_max(unsigned szind);

/* Test and benchmark helpers on a state made by rs_alloc_jemalloc.create. */

/* Event counts since create (jemalloc's nfills / nflushes and decay stats). */
typedef struct rs_je_counters {
    uint64_t nfills;        /* tcache fills from an arena bin */
    uint64_t nflushes;      /* tcache flushes (overflow or GC) */
    uint64_t nflushed;      /* objects those flushes returned */
    uint64_t ngc_events;    /* tcache GC events (one class each) */
    uint64_t nticks_fired;  /* arena decay tickers that fired (decay mode only) */
    uint64_t ndecay_epochs; /* decay epoch advances, all arenas */
    uint64_t npurged_pages; /* pages purged by decay (not by release()) */
} rs_je_counters;
void rs_je_get_counters(const void *state, rs_je_counters *r_counters);
/* A thread's arena and, for class szind, its tcache fill (ncached) and
 * lg_fill_div.  RS_ENOTFOUND when the thread never allocated or freed. */
int rs_je_thread_info(const void *state, uint32_t thread, unsigned szind, unsigned *r_arena,
                      unsigned *r_ncached, unsigned *r_lg_fill_div);
/* The arena owning the region at addr, or -1 when addr is outside the heap. */
int rs_je_addr_arena(const void *state, rs_addr addr);


/* Recompute every counter, the page map, the slab bitmaps and the heaps from
 * scratch and compare them with the incremental state.  O(heap pages); for
 * tests.  0, or RS_EINTERNAL with the first discrepancy in err. */
int rs_je_audit(const void *state, rs_err *err);
/* Bytes of host memory the simulator state occupies (array capacities
 * included): the cost of the model, not of the simulated heap. */
uint64_t rs_je_footprint_bytes(const void *state);

#endif
