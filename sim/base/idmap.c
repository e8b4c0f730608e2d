/* idmap.c — growing and deleting in the key -> id map; see idmap.h. */
#include "idmap.h"

#include <stdlib.h>

#include "mem.h"

/* A slot's home under mask, from its fingerprint alone.  The mask is
 * passed, not read from the map: a store to a slot (a uint64_t) could be
 * to m->mask, so the compiler would read it again after every one. */
static inline uint64_t slot_home(uint64_t mask, uint64_t s)
{
    uint64_t fp = s >> 32;
    return (fp & RS_IDMAP_HASHED ? fp & ~RS_IDMAP_HASHED : rs_hash64(fp - 1) >> 33) & mask;
}

/* Double the table in place (the block grows, on huge pages by mremap:
 * no second table, so no fresh pages but the new half's).  A key's new home
 * is its old one or that plus the old size n.  The old table is walked one
 * cluster (run of full slots) at a time from just after an empty slot e;
 * a cluster's keys are taken out and put back in their order under the new
 * mask.  They land within the cluster's own slots and their copies n up,
 * never in another cluster's: for every tail [x, b] of a cluster [a, b],
 * the keys homed in it fit in it (slot b + 1 is empty), and so do the keys
 * homed in its image in either half (a subset of them).  So every probe run
 * stays whole.  The scratch is had before anything moves (a failure leaves
 * the table as it was), room for every key — a cluster could be that long;
 * only the pages the longest one uses are ever touched. */
int rs_idmap_grow(rs_idmap *m, rs_err *err)
{
    uint64_t n = m->mask + 1, nn = 2 * n, e = 0;

    if (nn > RS_IDMAP_HASHED)
        return rs_fail(err, RS_ENOMEM, "more than %llu key slots", (unsigned long long)n);
    while (m->slots[e]) /* load <= 3/4: there is an empty slot */
        e++;
    uint64_t *buf = malloc((size_t)(m->count ? m->count : 1) * sizeof *buf);
    uint64_t *slots = buf ? rs_mem_realloc(m->slots, nn * sizeof *slots) : NULL;
    if (!slots) {
        free(buf);
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu key slots", (unsigned long long)nn);
    }
    m->slots = slots; /* its new half reads zero (mem.h) */
    const uint64_t mask = nn - 1;
    for (uint64_t k = 1; k <= n;) {
        uint64_t len = 0, s;
        for (uint64_t i; (s = slots[i = (e + k) & (n - 1)]); k++) {
            buf[len++] = s;
            slots[i] = 0;
        }
        for (uint64_t t = 0; t < len; t++) {
            uint64_t j = slot_home(mask, s = buf[t]);
            while (slots[j])
                j = (j + 1) & mask;
            slots[j] = s;
        }
        k++; /* the empty slot that ended the cluster */
    }
    m->mask = mask;
    free(buf);
    return 0;
}

int rs_idmap_init(rs_idmap *m, uint64_t nslots, rs_err *err)
{
    *m = (rs_idmap){ 0 };
    if (nslots < 2 || nslots > RS_IDMAP_HASHED || (nslots & (nslots - 1)) ||
        !(m->slots = rs_mem_calloc(nslots * sizeof *m->slots)))
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu key slots", (unsigned long long)nslots);
    m->mask = nslots - 1;
    return 0;
}

void rs_idmap_release(rs_idmap *m)
{
    rs_mem_free(m->slots);
    *m = (rs_idmap){ 0 };
}

void rs_idmap_delete(rs_idmap *m, uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        uint64_t s = m->slots[j];
        if (!s)
            break;
        uint64_t home = slot_home(m->mask, s);
        /* move s to i if its home is not cyclically in (i, j] */
        if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
            m->slots[i] = s;
            i = j;
        }
    }
    m->slots[i] = 0;
    m->count--;
}
