/*
 * tcmalloc.h — the gperftools 2.10 tcmalloc allocator model
 * (models/alloc/tcmalloc.c): its ops table, the size-class derivation
 * exposed so tests can compare it with gperftools 2.10's classes and with the
 * installed library, tcmalloc's own statistics, and test helpers.
 *
 * Class numbers follow tcmalloc's: class 0 is unused (as in SizeMap), the
 * real classes are 1 .. rs_tc_class_count().  The table is derived from
 * SizeMap::Init's rule (src/common.cc), not read from a table.
 */
#ifndef RS_ALLOC_TCMALLOC_H
#define RS_ALLOC_TCMALLOC_H

#include <stdint.h>

#include "alloc.h"

extern const rs_alloc_ops rs_alloc_tcmalloc;

#define RS_TC_PAGE_BYTES 8192u     /* kPageSize: 1 << kPageShift (13) */
#define RS_TC_MAX_SIZE 262144u     /* kMaxSize: larger requests take whole pages */
#define RS_TC_CLASS_MAX 128u       /* kClassSizesMax */

/* One size class as SizeMap::Init leaves it. */
typedef struct rs_tc_class {
    uint32_t size_bytes;     /* class_to_size */
    uint32_t pages;          /* class_to_pages: tcmalloc pages per span */
    uint32_t objects;        /* objects carved from one span */
    uint32_t num_to_move;    /* num_objects_to_move: the batch between caches */
} rs_tc_class;

/* Derive the classes: r_classes[1 .. n] are filled (index 0 zeroed) and n,
 * the number of classes (85), is returned.  r_classes must hold
 * RS_TC_CLASS_MAX entries.  Pure. */
unsigned rs_tc_classes(rs_tc_class *r_classes);

/* tcmalloc's own numbers (MallocExtension properties), in bytes. */
typedef struct rs_tc_stats {
    uint64_t heap_size;                   /* generic.heap_size (system_bytes) */
    uint64_t pageheap_free;               /* tcmalloc.pageheap_free_bytes */
    uint64_t pageheap_unmapped;           /* tcmalloc.pageheap_unmapped_bytes */
    uint64_t central_cache_free;          /* tcmalloc.central_cache_free_bytes (incl. span tails) */
    uint64_t transfer_cache_free;         /* tcmalloc.transfer_cache_free_bytes */
    uint64_t thread_cache_free;           /* tcmalloc.thread_cache_free_bytes */
    uint64_t current_total_thread_cache;  /* tcmalloc.current_total_thread_cache_bytes */
    uint64_t max_total_thread_cache;      /* tcmalloc.max_total_thread_cache_bytes */
    uint64_t thread_cache_max_sizes;      /* sum of every thread cache's max_size_ */
    uint64_t metadata;                    /* the model's metadata estimate */
    uint64_t total_decommit;              /* tcmalloc.pageheap_total_decommit_bytes */
    uint64_t scavenge_count;              /* tcmalloc.pageheap_scavenge_count */
    uint64_t thread_count;                /* thread caches created */
} rs_tc_stats;

void rs_tc_stats_get(const void *state, rs_tc_stats *r_stats);

/* Test and benchmark helpers on a state made by rs_alloc_tcmalloc.create. */

/* Thread `thread`'s free list of class cl: length and max_length.  0, or
 * RS_ENOTFOUND when the thread has no cache or cl is out of range. */
int rs_tc_thread_list(const void *state, uint32_t thread, unsigned cl, uint32_t *r_length,
                      uint32_t *r_max_length);
/* Thread `thread`'s cache: bytes held and max_size_.  0 or RS_ENOTFOUND. */
int rs_tc_thread_cache(const void *state, uint32_t thread, uint64_t *r_size_bytes,
                       uint64_t *r_max_size_bytes);
/* Class cl's central list: free objects in its spans, transfer-cache
 * batches held, spans.  0 or RS_ENOTFOUND. */
int rs_tc_central(const void *state, unsigned cl, uint64_t *r_free_objects,
                  uint32_t *r_transfer_batches, uint64_t *r_spans);

/* Recompute every counter, list and the page map from scratch and compare
 * with the incremental state.  O(heap); for tests.  0, or RS_EINTERNAL with
 * the first discrepancy in err. */
int rs_tc_audit(const void *state, rs_err *err);
/* Bytes of host memory the simulator state occupies (capacities included). */
uint64_t rs_tc_footprint_bytes(const void *state);

#endif
