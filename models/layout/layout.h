/*
 * layout.h — what allocations one cache object makes (container overhead).
 *
 * A layout turns an object (its accounted size, plus an op-specific aux such
 * as a name length) into the list of heap allocations the real daemon makes
 * for it, each flagged tracked (counted by the mempool, so in
 * accounted_bytes) or untracked (real memory the daemon does not count).
 * parts() must be a pure function of its arguments: the same list is
 * recomputed when the object dies, to free exactly what was allocated.
 */
#ifndef RS_LAYOUT_H
#define RS_LAYOUT_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"

typedef struct rs_part {
    uint64_t size_bytes; /* requested allocation size, > 0 */
    uint32_t tracked;    /* 1: counted in accounted_bytes (mempool) */
    const char *name;    /* "object", "map node", "key string" (static) */
} rs_part;

#define RS_LAYOUT_MAX_PARTS 8

typedef struct rs_layout_ops {
    const char *name;
    const char *doc;
    const rs_param *params;
    unsigned max_parts; /* parts() never returns more, <= RS_LAYOUT_MAX_PARTS */

    int (*create)(const rs_config *cfg, void **r_state, rs_err *err);
    void (*destroy)(void *state);
    /* Fill r_parts for one object; returns the count (>= 1).  A pure
     * function of its arguments (and the state create made). */
    unsigned (*parts)(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts);
    /* Nonzero when a run's objects come in few (bytes, aux) shapes (an
     * MDS's: three kinds by name length), so the object table remembers
     * what parts() said of each (objects.h); 0 when sizes vary (a kv
     * value's, an OSD buffer's), where remembering costs more than asking. */
    int few_shapes;

    /* Optional: a tag saying what else a daemon may read from this
     * layout's state (RS_MDS_SIZES_KIND: an MDS version's struct sizes,
     * rs_mds_layout_sizes()), so a daemon takes only the kind it knows.
     * NULL when there is nothing. */
    const char *data_kind;
    /* Optional: the Ceph struct sizes the layout uses, one row per size
     * key among params (its default, and where it comes from), ended by a
     * row with key NULL.  NULL when it has none. */
    const struct rs_size_row *sizes;
} rs_layout_ops;

/* One struct size of a layout's table: the key that overrides it per run,
 * its default (bytes), the source it was read from (file, line, tag or
 * commit) and how it was obtained (e.g. "sizeof, g++ 12"). */
typedef struct rs_size_row {
    const char *key;
    uint32_t bytes;
    const char *source;
    const char *how;
} rs_size_row;

/* create/destroy for a layout with no state (parts() gets NULL). */
int rs_layout_stateless_create(const rs_config *cfg, void **r_state, rs_err *err);
void rs_layout_stateless_destroy(void *state);

typedef struct rs_layout {
    const rs_layout_ops *ops;
    void *state;
} rs_layout;

#endif
