/* objects.c — live objects, their parts and addresses; see objects.h. */
#include "objects.h"

#include <stdlib.h>
#include <string.h>

#include "../../sim/base/mem.h"

#define FREE_SLOT UINT32_MAX
#define WINDOW_BITS 43 /* a packed slot's 40 bits, in units of 8 bytes */

int rs_objects_init(rs_objects *o, const rs_layout_ops *layout, const rs_config *cfg,
                    rs_alloc *alloc, rs_err *err)
{
    int rc;

    memset(o, 0, sizeof *o);
    o->admit_max = UINT64_MAX;
    o->layout.ops = layout;
    if ((rc = o->layout.ops->create(cfg, &o->layout.state, err))) {
        o->layout.ops = NULL;
        return rc;
    }
    o->alloc = alloc;
    o->max_parts = o->layout.ops->max_parts;
    o->free_head = FREE_SLOT;
    o->addr_bytes = 5;
    for (unsigned i = 0; i < RS_OBJ_SHAPES; i++)
        o->shapes[i].key = UINT64_MAX;
    return 0;
}

void rs_objects_release(rs_objects *o)
{
    if (!o->layout.ops)
        return;
    o->layout.ops->destroy(o->layout.state);
    rs_mem_free(o->obj);
    rs_mem_free(o->addr);
    memset(o, 0, sizeof *o);
}

static int grow(rs_objects *o, rs_err *err)
{
    uint32_t cap = o->cap ? o->cap * 2 : 1024;
    if (cap <= o->cap || cap == FREE_SLOT)
        return rs_fail(err, RS_ENOMEM, "more than %u live objects", o->cap);
    rs_obj *obj = rs_mem_realloc(o->obj, (size_t)cap * sizeof *obj);
    if (!obj)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u objects", cap);
    o->obj = obj;
    uint8_t *addr = rs_mem_realloc(o->addr, (size_t)cap * o->max_parts * o->addr_bytes);
    if (!addr)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u objects", cap);
    o->addr = addr;
    o->cap = cap;
    return 0;
}

/* Non-zero address a's packed slot value, ((a - window) >> 3) + 1, or 0
 * when a does not fit one: a fits when a - window is a multiple of 8 below
 * 2^43 - 8.  d = a - window rotated right by 3 is below 2^40 - 1 exactly
 * then (a misaligned d rotates its low bits to the top; an a below the
 * window wraps d past the bound), and is the packed value less one. */
static inline uint64_t pack_at(uint64_t window, rs_addr a)
{
    uint64_t d = a - window, r = (d >> 3) | (d << 61);
    return r < ((uint64_t)1 << (WINDOW_BITS - 3)) - 1 ? r + 1 : 0;
}

static inline uint64_t pack(const rs_objects *o, rs_addr a)
{
    return pack_at(o->addr_window, a);
}

/* Whether a fits a packed slot (0 always does); the first non-zero
 * address sets the window. */
static int packs(rs_objects *o, rs_addr a)
{
    if (!a)
        return 1;
    if (!o->addr_window_set) {
        o->addr_window = a & ~(((uint64_t)1 << WINDOW_BITS) - 1);
        o->addr_window_set = 1;
    }
    return pack(o, a) != 0;
}

/* v's low nb bytes (5 or 8) at p, least significant first: written out,
 * as the compiler does not unroll a loop of them at -O2. */
static inline void put_bytes(uint8_t *p, uint64_t v, unsigned nb)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24),
    p[4] = (uint8_t)(v >> 32);
    if (nb == 8)
        p[5] = (uint8_t)(v >> 40), p[6] = (uint8_t)(v >> 48), p[7] = (uint8_t)(v >> 56);
}

/* From 5-byte to 8-byte slots, every slot the table has: in place from the
 * end, after the array grew.  RS_ENOMEM with nothing changed. */
static int widen(rs_objects *o, rs_err *err)
{
    size_t n = (size_t)o->cap * o->max_parts;
    uint8_t *addr = n ? rs_mem_realloc(o->addr, n * 8) : o->addr;
    if (n && !addr)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u objects' addresses", o->cap);
    o->addr = addr;
    for (size_t i = n; i-- > 0;) /* slot i moves from 5 i to 8 i: never over one not yet read */
        put_bytes(addr + i * 8, rs_objects_slot(o, i), 8);
    o->addr_bytes = 8;
    return 0;
}

/* Slot i holds a (any case); RS_ENOMEM when the table had to widen and
 * could not. */
static int slot_put(rs_objects *o, size_t i, rs_addr a, rs_err *err)
{
    int rc;
    if (o->addr_bytes == 5 && !packs(o, a) && (rc = widen(o, err)))
        return rc;
    unsigned nb = o->addr_bytes; /* in locals: the byte stores below may alias o */
    put_bytes(o->addr + i * nb, nb == 5 && a ? pack(o, a) : a, nb);
    return 0;
}

/* An object's slots, first.., hold addr[0..n), addresses made (none is 0,
 * which slot_put alone takes), and its slots past them no address;
 * RS_ENOMEM when the table had to widen and could not.  The commonest
 * case, a packed table with its window set and every address in it, in a
 * loop of its own: the byte stores may alias o, so o's fields are read
 * into locals once (and the few empty slots are written there too, not by
 * a call of memset). */
static int slots_put(rs_objects *o, size_t first, const rs_addr *addr, unsigned n, rs_err *err)
{
    unsigned i = 0, max = o->max_parts;
    int rc;
    if (o->addr_bytes == 5 && o->addr_window_set) {
        uint8_t *p = o->addr + first * 5;
        uint64_t window = o->addr_window, v;
        for (; i < n && (v = pack_at(window, addr[i])); i++)
            put_bytes(p + (size_t)i * 5, v, 5);
        if (i == n) {
            for (; i < max; i++) /* no address: 0 */
                put_bytes(p + (size_t)i * 5, 0, 5);
            return 0;
        }
    }
    for (; i < n; i++)
        if ((rc = slot_put(o, first + i, addr[i], err)))
            return rc;
    if (n < max) /* no address: 0 in either width */
        memset(o->addr + (first + n) * o->addr_bytes, 0, (size_t)(max - n) * o->addr_bytes);
    return 0;
}

/* Allocate size[0..n) into addr[] (the model's alloc_n, or alloc a part
 * at a time); how many were made, all of them or those before the first
 * that failed. */
static unsigned alloc_parts(const rs_alloc *al, const uint64_t *size, unsigned n, uint32_t thread,
                            uint64_t now_ns, rs_addr *addr)
{
    if (al->ops->alloc_n)
        return al->ops->alloc_n(al->state, size, n, thread, now_ns, addr);
    for (unsigned i = 0; i < n; i++)
        if (!(addr[i] = al->ops->alloc(al->state, size[i], thread, now_ns)))
            return i;
    return n;
}

/* Free addr[0..n) (of size[0..n)), in order (the model's free_n, or free a
 * part at a time). */
static void free_parts(const rs_alloc *al, const rs_addr *addr, const uint64_t *size, unsigned n,
                       uint32_t thread, uint64_t now_ns)
{
    if (al->ops->free_n) {
        al->ops->free_n(al->state, addr, size, n, thread, now_ns);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        al->ops->free(al->state, addr[i], size[i], thread, now_ns);
}

/* Undo the first n parts made for an object, the last made first. */
static void unmake_parts(const rs_alloc *al, const rs_addr *addr, const uint64_t *size, unsigned n,
                         uint32_t thread, uint64_t now_ns)
{
    while (n-- > 0)
        al->ops->free(al->state, addr[n], size[n], thread, now_ns);
}

/* Where the shape of key (bytes << 32 | aux) is remembered, if it is. */
static inline size_t shape_slot(uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 58); /* 64 = RS_OBJ_SHAPES */
}
_Static_assert(RS_OBJ_SHAPES == 64, "shape_slot takes 6 bits");

/* The sums of parts p[0..n) into e, and their sizes. */
static void shape_fill(rs_obj_shape *e, const rs_part *p, unsigned n)
{
    e->accounted = e->untracked = 0;
    for (unsigned i = 0; i < n; i++) {
        e->size[i] = p[i].size_bytes;
        if (p[i].tracked)
            e->accounted += p[i].size_bytes;
        else
            e->untracked += p[i].size_bytes;
    }
    e->n = n;
}

/* Entry e's new shape, key's (bytes << 32 | aux): the layout's.  Out of
 * line: it is seldom called, and its parts array would make every caller
 * of shape_of set up a large frame. */
__attribute__((noinline)) static const rs_obj_shape *shape_miss(rs_objects *o, rs_obj_shape *e,
                                                                 uint64_t key, uint64_t bytes,
                                                                 uint32_t aux)
{
    rs_part parts[RS_LAYOUT_MAX_PARTS];
    shape_fill(e, parts, o->layout.ops->parts(o->layout.state, bytes, aux, parts));
    e->key = key;
    return e;
}

/* The shape of an object of bytes (below UINT32_MAX) and aux: when the
 * layout has few shapes, the one remembered, or the layout's, remembered
 * from now on; else the layout's, in *tmp. */
static inline const rs_obj_shape *shape_of(rs_objects *o, uint64_t bytes, uint32_t aux,
                                           rs_obj_shape *tmp)
{
    if (!o->layout.ops->few_shapes) {
        rs_part parts[RS_LAYOUT_MAX_PARTS];
        shape_fill(tmp, parts, o->layout.ops->parts(o->layout.state, bytes, aux, parts));
        return tmp;
    }
    uint64_t key = bytes << 32 | aux;
    rs_obj_shape *e = &o->shapes[shape_slot(key)];
    return e->key == key ? e : shape_miss(o, e, key, bytes, aux);
}

int rs_objects_add(rs_objects *o, uint64_t key, uint64_t bytes, uint32_t aux,
                   uint32_t thread, uint64_t now_ns, rs_oid *r_id, uint64_t *r_accounted,
                   rs_err *err)
{
    rs_addr addr[RS_LAYOUT_MAX_PARTS];
    uint32_t id;
    int rc;

    if (bytes == 0 || bytes >= UINT32_MAX)
        return rs_fail(err, RS_EINPUT, "object of %llu bytes: sizes must be 1..4294967294",
                       (unsigned long long)bytes);
    if (aux == FREE_SLOT)
        aux = FREE_SLOT - 1;
    rs_obj_shape tmp;
    const rs_obj_shape *sh = shape_of(o, bytes, aux, &tmp);
    const uint64_t *size = sh->size;
    uint64_t accounted = sh->accounted;
    unsigned n = sh->n;
    if (accounted > o->admit_max) { /* larger than the cache: never admitted */
        *r_id = RS_OID_NONE;
        if (r_accounted)
            *r_accounted = 0;
        return 0;
    }
    if (o->free_head != FREE_SLOT) {
        id = o->free_head;
        o->free_head = (uint32_t)o->obj[id].key;
        if (o->free_head != FREE_SLOT) { /* the next insert's records, fetched long before it */
            __builtin_prefetch(&o->obj[o->free_head], 1);
            __builtin_prefetch(o->addr + (size_t)o->free_head * o->max_parts * o->addr_bytes, 1);
        }
    } else {
        if (o->n_used == o->cap && (rc = grow(o, err)))
            return rc;
        id = o->n_used++;
    }
    /* the record first, so that key, bytes and aux need not outlive the
     * calls (a failure makes it a free one again) */
    o->obj[id] = (rs_obj){ .key = key, .bytes = (uint32_t)bytes, .aux = aux };
    /* All parts are made, then their addresses kept: a part the model
     * could not make undoes those made before it, an address the table
     * could not keep (it had to widen and the host had no memory) all of
     * them, the last made first. */
    size_t first = (size_t)id * o->max_parts;
    unsigned made = alloc_parts(o->alloc, size, n, thread, now_ns, addr);
    rc = made < n ? rs_alloc_fail_full(o->alloc, err) : 0;
    if (rc || (rc = slots_put(o, first, addr, n, err))) {
        unmake_parts(o->alloc, addr, size, made, thread, now_ns);
        o->obj[id] = (rs_obj){ .key = o->free_head, .aux = FREE_SLOT };
        o->free_head = id;
        return rc;
    }
    o->accounted_bytes += accounted;
    o->untracked_bytes += sh->untracked;
    if (r_accounted)
        *r_accounted = accounted;
    o->live_count++;
    *r_id = id;
    return 0;
}

uint64_t rs_objects_accounted_of(const rs_objects *o, uint64_t bytes, uint32_t aux)
{
    uint64_t key = bytes << 32 | aux;
    const rs_obj_shape *e = &o->shapes[shape_slot(key)];
    if (bytes < UINT32_MAX && e->key == key)
        return e->accounted;
    rs_part parts[RS_LAYOUT_MAX_PARTS];
    rs_obj_shape sh;
    shape_fill(&sh, parts, o->layout.ops->parts(o->layout.state, bytes, aux, parts));
    return sh.accounted;
}

uint64_t rs_objects_del(rs_objects *o, rs_oid id, uint32_t thread, uint64_t now_ns)
{
    rs_addr addr[RS_LAYOUT_MAX_PARTS];
    rs_obj *ob = &o->obj[id];
    rs_obj_shape tmp;
    const rs_obj_shape *sh = shape_of(o, ob->bytes, ob->aux, &tmp);
    uint64_t accounted = sh->accounted;
    unsigned n = sh->n;
    size_t first = (size_t)id * o->max_parts;

    for (unsigned i = 0; i < n; i++)
        addr[i] = rs_objects_slot(o, first + i);
    free_parts(o->alloc, addr, sh->size, n, thread, now_ns);
    o->untracked_bytes -= sh->untracked;
    o->accounted_bytes -= accounted;
    *ob = (rs_obj){ .key = o->free_head, .aux = FREE_SLOT };
    o->free_head = id;
    o->live_count--;
    return accounted;
}

int rs_layout_stateless_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    (void)cfg;
    (void)err;
    *r_state = NULL;
    return 0;
}

void rs_layout_stateless_destroy(void *state)
{
    (void)state;
}
