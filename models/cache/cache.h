/*
 * cache.h — the cache-policy plug-in interface.
 *
 * A policy decides *which* object goes next; when to trim and to what target
 * is the trim policy's job, and what an object costs is the layout's.
 * Objects are named by rs_oid, a dense 32-bit index into the daemon's object
 * table, so a policy keeps its links in arrays indexed by oid, not pointers.
 * Pinned objects are never offered as victims (Ceph moves them aside: lru.h
 * pintail, BlueStore's pinned onodes).
 */
#ifndef RS_CACHE_H
#define RS_CACHE_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"

typedef uint32_t rs_oid;
#define RS_OID_NONE UINT32_MAX

typedef struct rs_cache_ops {
    const char *name;       /* "lru", ... */
    const char *doc;
    const rs_param *params; /* NULL-terminated, may be NULL */

    int (*create)(const rs_config *cfg, void **r_state, rs_err *err);
    void (*destroy)(void *state);
    /* Add a new object of bytes accounted bytes (not yet in the policy). */
    int (*insert)(void *state, rs_oid id, uint64_t bytes, rs_err *err);
    /* The object was used (a hit). */
    void (*touch)(void *state, rs_oid id);
    /* Drop the object (evicted or deleted); pinned or not. */
    void (*remove)(void *state, rs_oid id);
    /* Pin / unpin: a pinned object is never returned by victim(). */
    void (*pin)(void *state, rs_oid id);
    void (*unpin)(void *state, rs_oid id);
    /* The object to evict next, without removing it; RS_OID_NONE if none. */
    rs_oid (*victim)(void *state);
    /* Optional hint: id is about to be touched or removed; stage 0 may
     * fetch its own links, stage 1 (later) its neighbours'. */
    void (*prefetch)(const void *state, rs_oid id, int stage);
    /* Optional: the victim that would follow id once id is removed, or
     * RS_OID_NONE; lets a trim prefetch the objects it will evict. */
    rs_oid (*next_victim)(const void *state, rs_oid id);
    /* Objects held, pinned included. */
    uint64_t (*count)(const void *state);
} rs_cache_ops;

typedef struct rs_cache {
    const rs_cache_ops *ops;
    void *state;
} rs_cache;

#endif
