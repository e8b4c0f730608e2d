/*
 * idmap.h — key -> 32-bit id: the daemons' index of their objects.
 *
 * Open addressing with linear probing, backward-shift deletion and load at
 * most 3/4; a full table doubles in place (idmap.c).  A slot is (fingerprint << 32) | (id + 1), 0 when empty.  The
 * fingerprint is the key itself when the key is below 2^31 - 1 (keys of
 * generated traces, inode and object numbers are), else a flag bit and bits
 * 33..63 of the key's hash.  A key's home slot is those same hash bits, so
 * deleting and growing never read the caller's keys, and a probe reads one
 * (key_of) only to confirm a hashed fingerprint: a hit on a small key costs
 * one cache miss, for its slot.  The caller keeps the keys, indexed by id.
 */
#ifndef RS_IDMAP_H
#define RS_IDMAP_H

#include <stdint.h>

#include "err.h"
#include "hash.h"

#define RS_IDMAP_NONE UINT32_MAX

typedef struct rs_idmap {
    uint64_t *slots;
    uint64_t mask;  /* slots - 1, a power of two minus one */
    uint64_t count; /* keys held */
} rs_idmap;

/* The key of id, read only to confirm a hashed fingerprint. */
typedef uint64_t (*rs_idmap_key_fn)(const void *ctx, uint32_t id);

int rs_idmap_init(rs_idmap *m, uint64_t nslots, rs_err *err); /* nslots: a power of two */
void rs_idmap_release(rs_idmap *m);
/* Double the table (rs_idmap_reserve when it is full). */
int rs_idmap_grow(rs_idmap *m, rs_err *err);

/* Room for one more key: may move every slot, so probe after it.  Inline:
 * a daemon calls it for every key it adds, and it mostly finds room. */
static inline int rs_idmap_reserve(rs_idmap *m, rs_err *err)
{
    if ((m->count + 1) * 4 <= (m->mask + 1) * 3)
        return 0;
    return rs_idmap_grow(m, err);
}
/* Empty a slot holding a key (backward shift keeps probe runs whole). */
void rs_idmap_delete(rs_idmap *m, uint64_t slot);

#define RS_IDMAP_HASHED (1ull << 31)

/* Of a key's hash h (rs_hash64) the map reads bits 33..63 alone (h >> 33:
 * the home slot and a hashed fingerprint), so a caller that keeps a hash
 * may keep its upper half only. */

static inline uint64_t rs_idmap_fingerprint(uint64_t key, uint64_t h)
{
    return key <= RS_IDMAP_HASHED - 2 ? key + 1 : RS_IDMAP_HASHED | (h >> 33);
}

static inline uint64_t rs_idmap_home(const rs_idmap *m, uint64_t h)
{
    return (h >> 33) & m->mask;
}

static inline uint32_t rs_idmap_id(const rs_idmap *m, uint64_t slot)
{
    uint64_t s = m->slots[slot];
    return s ? (uint32_t)s - 1 : RS_IDMAP_NONE;
}

/* The slot holding key (whose hash is h = rs_hash64(key)), or the empty slot
 * where it would go. */
static inline uint64_t rs_idmap_probe(const rs_idmap *m, uint64_t key, uint64_t h,
                                      rs_idmap_key_fn key_of, const void *ctx)
{
    uint64_t fp = rs_idmap_fingerprint(key, h), i = rs_idmap_home(m, h);
    for (;;) {
        uint64_t s = m->slots[i];
        if (!s || ((s >> 32) == fp &&
                   (!(fp & RS_IDMAP_HASHED) || key_of(ctx, (uint32_t)s - 1) == key)))
            return i;
        i = (i + 1) & m->mask;
    }
}

static inline uint32_t rs_idmap_find(const rs_idmap *m, uint64_t key, rs_idmap_key_fn key_of,
                                     const void *ctx)
{
    return rs_idmap_id(m, rs_idmap_probe(m, key, rs_hash64(key), key_of, ctx));
}

/* Put id into the empty slot a probe for key returned. */
static inline void rs_idmap_put(rs_idmap *m, uint64_t slot, uint64_t key, uint64_t h, uint32_t id)
{
    m->slots[slot] = (rs_idmap_fingerprint(key, h) << 32) | ((uint64_t)id + 1);
    m->count++;
}

/* Prefetch hints: the key's home slot; then (once it is cached) the id
 * whose fingerprint matches along the next 16 slots, unconfirmed, or NONE. */
static inline void rs_idmap_prefetch(const rs_idmap *m, uint64_t h)
{
    __builtin_prefetch(&m->slots[rs_idmap_home(m, h)]);
}

/* The slot word within 16 of the key's home whose fingerprint matches
 * (unconfirmed), its distance from home in *r_dist; 0 if none. */
static inline uint64_t rs_idmap_guess_slot(const rs_idmap *m, uint64_t key, uint64_t h, uint64_t *r_dist)
{
    uint64_t fp = rs_idmap_fingerprint(key, h), i = rs_idmap_home(m, h);
    for (uint64_t n = 0; n < 16; n++, i = (i + 1) & m->mask) {
        uint64_t s = m->slots[i];
        if (!s)
            break;
        if ((s >> 32) == fp) {
            *r_dist = n;
            return s;
        }
    }
    return 0;
}

static inline uint32_t rs_idmap_guess(const rs_idmap *m, uint64_t key, uint64_t h)
{
    uint64_t dist, s = rs_idmap_guess_slot(m, key, h, &dist);
    return s ? (uint32_t)s - 1 : RS_IDMAP_NONE;
}

#endif
