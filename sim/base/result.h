/*
 * result.h — what one run produces: samples (docs/store.md columns) and
 * named metrics.  The sampler fills it, the store writes it, plots read the
 * stored copy.  Column lists are X-macros so the sampler, the SQLite schema
 * and the CSV export can never disagree.
 */
#ifndef RS_RESULT_H
#define RS_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Integer sample columns, in schema order (all bytes unless named). */
#define RS_SAMPLE_INT_COLUMNS(X)                                              \
    X(t_ns)            /* virtual time of the sample */                       \
    X(accounted_bytes) /* what the daemon counts (mempool); limit applies */  \
    X(untracked_bytes) /* requested by cache objects but not counted */       \
    X(requested_bytes) /* all live requested bytes in the allocator */        \
    X(allocated_bytes) /* after size-class rounding */                        \
    X(active_bytes)    /* resident pages holding live allocations */         \
    X(resident_bytes)  /* resident heap pages */                              \
    X(mapped_bytes)    /* heap minus released */                              \
    X(metadata_bytes)  /* allocator metadata (resident) */                    \
    X(cached_bytes)    /* free objects in thread/central caches */            \
    X(dirty_bytes)     /* free pages not yet released */                      \
    X(base_bytes)      /* resident memory outside the cache */                \
    X(rss_bytes)       /* resident_bytes + base_bytes */                      \
    X(limit_bytes)     /* the configured cache limit */                       \
    X(items_count)     /* cached objects */                                   \
    X(trims_count)     /* trims run so far */                                 \
    X(trimmed_items_count) /* objects trimmed so far */                      \
    X(thread_cached_bytes) /* the part of cached_bytes in thread caches */   \
    X(heap_bytes)      /* allocator heap incl. released (0: not reported) */ \
    X(unmapped_bytes)  /* of heap, released to the OS now */               \
    X(central_cached_bytes)  /* tcmalloc central free lists */              \
    X(transfer_cached_bytes) /* tcmalloc transfer cache */                  \
    X(pageheap_free_bytes)   /* tcmalloc free page-heap spans */

/* Real sample columns. */
#define RS_SAMPLE_REAL_COLUMNS(X)                                             \
    X(x)         /* untracked fraction 1 - accounted/rss */                   \
    X(overshoot) /* rss/limit */

typedef struct rs_sample {
#define RS_X_INT(name) uint64_t name;
#define RS_X_REAL(name) double name;
    RS_SAMPLE_INT_COLUMNS(RS_X_INT)
    RS_SAMPLE_REAL_COLUMNS(RS_X_REAL)
#undef RS_X_INT
#undef RS_X_REAL
} rs_sample;

typedef struct rs_metric {
    char name[48]; /* e.g. "rss_steady_bytes", "overshoot_p99" */
    double value;
} rs_metric;

typedef struct rs_result {
    rs_sample *samples; /* owned, in time order */
    size_t nsamples, samples_cap;
    rs_metric *metrics; /* owned */
    size_t nmetrics, metrics_cap;
} rs_result;

void rs_result_init(rs_result *res);
void rs_result_release(rs_result *res);
int rs_result_add_sample(rs_result *res, const rs_sample *s, rs_err *err);
/* Add or replace metric name. */
int rs_result_set_metric(rs_result *res, const char *name, double value, rs_err *err);
/* Value of metric name; 0 when found, RS_ENOTFOUND otherwise. */
int rs_result_metric(const rs_result *res, const char *name, double *r_value);

#endif
