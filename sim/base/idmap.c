/* idmap.c — growing and deleting in the key -> id map; see idmap.h. */
#include "idmap.h"

#include "mem.h"

/* A slot's home, from its fingerprint alone. */
static uint64_t slot_home(const rs_idmap *m, uint64_t s)
{
    uint64_t fp = s >> 32;
    return (fp & RS_IDMAP_HASHED ? fp & ~RS_IDMAP_HASHED : rs_hash64(fp - 1) >> 33) & m->mask;
}

static int rehash(rs_idmap *m, uint64_t nslots, rs_err *err)
{
    uint64_t *old = m->slots, oldn = old ? m->mask + 1 : 0;
    uint64_t *slots = nslots <= RS_IDMAP_HASHED ? rs_mem_calloc(nslots * sizeof *slots) : NULL;

    if (!slots)
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu key slots", (unsigned long long)nslots);
    m->slots = slots;
    m->mask = nslots - 1;
    for (uint64_t i = 0; i < oldn; i++) {
        if (old[i]) {
            uint64_t j = slot_home(m, old[i]);
            while (slots[j])
                j = (j + 1) & m->mask;
            slots[j] = old[i];
        }
    }
    rs_mem_free(old);
    return 0;
}

int rs_idmap_init(rs_idmap *m, uint64_t nslots, rs_err *err)
{
    *m = (rs_idmap){ 0 };
    return rehash(m, nslots, err);
}

void rs_idmap_release(rs_idmap *m)
{
    rs_mem_free(m->slots);
    *m = (rs_idmap){ 0 };
}

int rs_idmap_reserve(rs_idmap *m, rs_err *err)
{
    if ((m->count + 1) * 4 <= (m->mask + 1) * 3)
        return 0;
    return rehash(m, 2 * (m->mask + 1), err);
}

void rs_idmap_delete(rs_idmap *m, uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        uint64_t s = m->slots[j];
        if (!s)
            break;
        uint64_t home = slot_home(m, s);
        /* move s to i if its home is not cyclically in (i, j] */
        if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
            m->slots[i] = s;
            i = j;
        }
    }
    m->slots[i] = 0;
    m->count--;
}
