/*
 * objects.h — the table of live simulated objects and their allocations.
 *
 * This is where "object born / object dies" (a cache policy's event) becomes
 * alloc(size) / free(addr): an object's parts come from the layout, each
 * part is allocated from the run's allocator, and the addresses are kept in
 * a flat array (max_parts slots per object).  Tracked parts add to
 * accounted_bytes, untracked ones to untracked_bytes.
 *
 * A slot takes 5 bytes while every address the table has held is a multiple
 * of 8 within one 8 TiB window (the window of the first address): it holds
 * ((addr - window) >> 3) + 1, 0 for no address.  The allocator models' heaps
 * lie in one window each (tcmalloc's from 2^40, jemalloc's from 2^44, the
 * ideal allocator's from 4 KiB) unless glibc's mmapped chunks (from 2^46)
 * join its heap (from 2^28); the first address that does not fit turns the
 * table into 8-byte slots, once, and the run goes on the same.  An MDS
 * object's seven slots take 35 bytes instead of 56.
 *
 * Objects are dense rs_oid indices; freed indices are reused (LIFO, the free
 * list threaded through the free records' key field), so the arrays stay as
 * large as the peak number of live objects.  Per object the table costs 16
 * bytes plus 5 (or 8) per part slot; the remembered shapes (rs_obj_shape)
 * 6 KiB in all.
 */
#ifndef RS_OBJECTS_H
#define RS_OBJECTS_H

#include <stdint.h>

#include "../alloc/alloc.h"
#include "../cache/cache.h"
#include "layout.h"

typedef struct rs_obj {
    uint64_t key;   /* the daemon's key (kv key, inode number, ...) */
    uint32_t bytes; /* the object's own size as the layout sees it */
    uint32_t aux;   /* layout input (e.g. name length); UINT32_MAX marks a free slot */
} rs_obj;

/* What parts() said of one (bytes, aux): the sizes in order and the sums
 * of the tracked and the untracked ones.  parts() is a pure function of
 * them (layout.h); when the layout's objects come in few shapes
 * (few_shapes: an MDS's, three kinds by name length), the table remembers
 * the last few instead of asking the layout for every object born and
 * dead. */
typedef struct rs_obj_shape {
    uint64_t key;       /* bytes << 32 | aux; UINT64_MAX: none (bytes is < UINT32_MAX) */
    uint64_t accounted, untracked;
    unsigned n;
    uint64_t size[RS_LAYOUT_MAX_PARTS];
} rs_obj_shape;

#define RS_OBJ_SHAPES 64 /* direct-mapped on the key */

typedef struct rs_objects {
    rs_layout layout;
    rs_alloc *alloc;
    unsigned max_parts;
    rs_obj *obj;      /* [cap] */
    uint8_t *addr;    /* [cap * max_parts] slots of addr_bytes each */
    unsigned addr_bytes; /* 5 (packed, see above) or 8 */
    int addr_window_set; /* addr_window is the first address's window */
    uint32_t free_head; /* first reusable id (its key holds the next), or UINT32_MAX */
    uint32_t n_used;  /* ids handed out so far (high-water mark) */
    uint32_t cap;
    /* the three counters an add or a del changes are not neighbours:
     * GCC's SLP vectorizer (-O2) made two neighbouring adds one 16-byte
     * load, add and store, with the operands packed into a vector first */
    uint64_t accounted_bytes; /* tracked parts of live objects */
    uint64_t admit_max;       /* an object accounting more is not admitted (UINT64_MAX: all are) */
    uint64_t untracked_bytes; /* untracked parts of live objects */
    uint64_t addr_window;     /* (see addr_window_set) */
    uint64_t live_count;
    rs_obj_shape shapes[RS_OBJ_SHAPES];
} rs_objects;

/* Build the layout ops for cfg; alloc is borrowed. */
int rs_objects_init(rs_objects *o, const rs_layout_ops *layout, const rs_config *cfg,
                    rs_alloc *alloc, rs_err *err);
/* Drop the table.  Live objects are not freed one by one: their allocations
 * belong to the run's allocator, which is destroyed with the run. */
void rs_objects_release(rs_objects *o);

/* A new object: make its allocations; *r_accounted gets the bytes its
 * tracked parts add (may be NULL).  An object whose tracked parts would
 * exceed o->admit_max (when set) is not admitted: nothing is made and
 * *r_id is RS_OID_NONE (returns 0).  RS_EINPUT if bytes does not fit,
 * RS_ENOMEM if the simulator (or the allocator model) is out of memory. */
int rs_objects_add(rs_objects *o, uint64_t key, uint64_t bytes, uint32_t aux,
                   uint32_t thread, uint64_t now_ns, rs_oid *r_id, uint64_t *r_accounted,
                   rs_err *err);
/* The accounted bytes an object of bytes (and aux) would add, without
 * making it. */
uint64_t rs_objects_accounted_of(const rs_objects *o, uint64_t bytes, uint32_t aux);
/* The object dies: free its allocations.  Returns its accounted bytes. */
uint64_t rs_objects_del(rs_objects *o, rs_oid id, uint32_t thread, uint64_t now_ns);

static inline const rs_obj *rs_objects_get(const rs_objects *o, rs_oid id)
{
    return &o->obj[id];
}

/* The address in the slot at p, of nb bytes (5: packed in window), 0 for
 * none. */
static inline rs_addr rs_objects_slot_at(const uint8_t *p, unsigned nb, uint64_t window)
{
    uint64_t v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
                 (uint64_t)p[4] << 32;
    if (nb == 5)
        return v ? window + ((v - 1) << 3) : 0;
    return v | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* The address in slot i (id * max_parts + part), 0 for none. */
static inline rs_addr rs_objects_slot(const rs_objects *o, size_t i)
{
    return rs_objects_slot_at(o->addr + i * o->addr_bytes, o->addr_bytes, o->addr_window);
}

/* Hint that object id will soon die: stage 0 fetches its record and
 * address slots, stage s >= 1 its allocations' allocator metadata (stage
 * s - 1 of the allocator's prefetch, alloc.h). */
static inline void rs_objects_prefetch(const rs_objects *o, rs_oid id, int stage)
{
    size_t first = (size_t)id * o->max_parts;
    if (stage == 0) {
        const uint8_t *p = o->addr + first * o->addr_bytes;
        __builtin_prefetch(&o->obj[id]);
        __builtin_prefetch(p);
        __builtin_prefetch(p + o->max_parts * o->addr_bytes - 1); /* the slots may cross a line */
        return;
    }
    void (*prefetch)(const void *, rs_addr, int) = o->alloc->ops->prefetch;
    if (!prefetch)
        return;
    /* the table in locals (the calls may alias it, so it would be read
     * again for each slot); an object's parts fill its first slots, so
     * the first empty one ends them */
    const void *state = o->alloc->state;
    unsigned nb = o->addr_bytes, max = o->max_parts;
    const uint8_t *p = o->addr + first * nb;
    uint64_t window = o->addr_window;
    rs_addr a;
    for (unsigned i = 0; i < max && (a = rs_objects_slot_at(p + (size_t)i * nb, nb, window)); i++)
        prefetch(state, a, stage - 1);
}

#endif
