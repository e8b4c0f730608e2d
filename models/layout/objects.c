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
static inline uint64_t pack(const rs_objects *o, rs_addr a)
{
    uint64_t d = a - o->addr_window, r = (d >> 3) | (d << 61);
    return r < ((uint64_t)1 << (WINDOW_BITS - 3)) - 1 ? r + 1 : 0;
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

/* Slot i holds a, the packed table's cases other than the commonest. */
static int slot_put_slow(rs_objects *o, size_t i, rs_addr a, rs_err *err)
{
    int rc;
    if (o->addr_bytes == 5 && !packs(o, a) && (rc = widen(o, err)))
        return rc;
    unsigned nb = o->addr_bytes; /* in locals: the byte stores below may alias o */
    put_bytes(o->addr + i * nb, nb == 5 && a ? pack(o, a) : a, nb);
    return 0;
}

/* Slot i holds a; RS_ENOMEM when the table had to widen and could not.
 * The commonest case here: a packed table, its window set, an address in
 * it. */
static inline int slot_put(rs_objects *o, size_t i, rs_addr a, rs_err *err)
{
    uint64_t v;
    if (o->addr_bytes == 5 && o->addr_window_set && a && (v = pack(o, a))) {
        put_bytes(o->addr + i * 5, v, 5);
        return 0;
    }
    return slot_put_slow(o, i, a, err);
}

int rs_objects_add(rs_objects *o, uint64_t key, uint64_t bytes, uint32_t aux,
                   uint32_t thread, uint64_t now_ns, rs_oid *r_id, uint64_t *r_accounted,
                   rs_err *err)
{
    uint64_t accounted = 0;
    rs_part parts[RS_LAYOUT_MAX_PARTS];
    uint32_t id;
    int rc;

    if (bytes == 0 || bytes >= UINT32_MAX)
        return rs_fail(err, RS_EINPUT, "object of %llu bytes: sizes must be 1..4294967294",
                       (unsigned long long)bytes);
    if (aux == FREE_SLOT)
        aux = FREE_SLOT - 1;
    unsigned n = o->layout.ops->parts(o->layout.state, bytes, aux, parts);
    if (o->admit_max != UINT64_MAX) {
        uint64_t tracked = 0;
        for (unsigned i = 0; i < n; i++)
            tracked += parts[i].tracked ? parts[i].size_bytes : 0;
        if (tracked > o->admit_max) { /* larger than the cache: never admitted */
            *r_id = RS_OID_NONE;
            if (r_accounted)
                *r_accounted = 0;
            return 0;
        }
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
    size_t first = (size_t)id * o->max_parts;
    for (unsigned i = 0; i < n; i++) {
        rs_addr a = o->alloc->ops->alloc(o->alloc->state, parts[i].size_bytes, thread, now_ns);
        rc = a ? slot_put(o, first + i, a, err) : rs_alloc_fail_full(o->alloc, err);
        if (rc) {
            if (a) /* made, but its address could not be kept */
                o->alloc->ops->free(o->alloc->state, a, parts[i].size_bytes, thread, now_ns);
            while (i-- > 0) { /* undo the parts already made */
                o->alloc->ops->free(o->alloc->state, rs_objects_slot(o, first + i), parts[i].size_bytes,
                                    thread, now_ns);
                if (!parts[i].tracked)
                    o->untracked_bytes -= parts[i].size_bytes;
            }
            o->obj[id] = (rs_obj){ .key = o->free_head, .aux = FREE_SLOT };
            o->free_head = id;
            return rc;
        }
        if (parts[i].tracked)
            accounted += parts[i].size_bytes;
        else
            o->untracked_bytes += parts[i].size_bytes;
    }
    o->accounted_bytes += accounted;
    if (r_accounted)
        *r_accounted = accounted;
    if (n < o->max_parts) /* no address: 0 in either width */
        memset(o->addr + (first + n) * o->addr_bytes, 0, (size_t)(o->max_parts - n) * o->addr_bytes);
    o->obj[id] = (rs_obj){ .key = key, .bytes = (uint32_t)bytes, .aux = aux };
    o->live_count++;
    *r_id = id;
    return 0;
}

uint64_t rs_objects_accounted_of(const rs_objects *o, uint64_t bytes, uint32_t aux)
{
    rs_part parts[RS_LAYOUT_MAX_PARTS];
    uint64_t accounted = 0;
    unsigned n = o->layout.ops->parts(o->layout.state, bytes, aux, parts);
    for (unsigned i = 0; i < n; i++)
        if (parts[i].tracked)
            accounted += parts[i].size_bytes;
    return accounted;
}

uint64_t rs_objects_del(rs_objects *o, rs_oid id, uint32_t thread, uint64_t now_ns)
{
    rs_part parts[RS_LAYOUT_MAX_PARTS];
    rs_obj *ob = &o->obj[id];
    uint64_t accounted = 0;
    unsigned n = o->layout.ops->parts(o->layout.state, ob->bytes, ob->aux, parts);
    size_t first = (size_t)id * o->max_parts;

    for (unsigned i = 0; i < n; i++) {
        o->alloc->ops->free(o->alloc->state, rs_objects_slot(o, first + i), parts[i].size_bytes, thread,
                            now_ns);
        if (parts[i].tracked)
            accounted += parts[i].size_bytes;
        else
            o->untracked_bytes -= parts[i].size_bytes;
    }
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
