/*
 * test_mem.c — the large-array blocks (sim/base/mem.h): contents kept on
 * every kind of growth (malloc'd to mapped, within the mapping, moved by
 * mremap) and every byte past the largest size a block was given reads
 * zero, which lets a growing array skip clearing (and so touching) its new
 * part (models/cache/lru_mid.c relies on it).  A mapped block starts on a
 * 2 MiB boundary, however it grew, and a block of a whole number of huge
 * pages maps no address space past them (its header has a page of its own
 * in front).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "sim/base/mem.h"

/* Are bytes [from, to) of p all `v`? */
static int all(const unsigned char *p, size_t from, size_t to, unsigned char v)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

int main(void)
{
    const size_t mib = (size_t)1 << 20;
    /* small: from malloc, zero */
    unsigned char *p = rs_mem_calloc(1000);
    CHECK(p && all(p, 0, 1000, 0));
    memset(p, 0xa5, 1000);
    /* malloc'd to a mapping: copied, the rest zero */
    p = rs_mem_realloc(p, 3 * mib);
    CHECK(p && all(p, 0, 1000, 0xa5) && all(p, 1000, 3 * mib, 0));
    memset(p, 0x5a, 3 * mib);
    /* within its 2 MiB-rounded mapping (3 MiB + header -> 4 MiB) */
    p = rs_mem_realloc(p, 3 * mib + mib / 2);
    CHECK(p && all(p, 0, 3 * mib, 0x5a) && all(p, 3 * mib, 3 * mib + mib / 2, 0));
    memset(p, 0x3c, 3 * mib + mib / 2);
    /* past it: mremap */
    p = rs_mem_realloc(p, 9 * mib);
    CHECK(p && all(p, 0, 3 * mib + mib / 2, 0x3c) && all(p, 3 * mib + mib / 2, 9 * mib, 0));
    /* a smaller size keeps the block and its contents */
    memset(p, 0x77, 9 * mib);
    unsigned char *q = rs_mem_realloc(p, mib);
    CHECK(q == p && all(q, 0, 9 * mib, 0x77));
    /* growing again: what was given before is kept as it is, past it zero */
    q = rs_mem_realloc(q, 11 * mib);
    CHECK(q && all(q, 0, 9 * mib, 0x77) && all(q, 9 * mib, 11 * mib, 0));
    rs_mem_free(q);
    /* grown past 256 KiB (onto huge pages), then within that mapping */
    p = rs_mem_calloc(4000);
    memset(p, 0x11, 4000);
    p = rs_mem_realloc(p, 300 << 10);
    CHECK(p && all(p, 0, 4000, 0x11) && all(p, 4000, 300 << 10, 0));
    memset(p, 0x22, 300 << 10);
    p = rs_mem_realloc(p, 600 << 10);
    CHECK(p && all(p, 0, 300 << 10, 0x22) && all(p, 300 << 10, 600 << 10, 0));
    rs_mem_free(p);
    /* a fresh large block is zero */
    p = rs_mem_calloc(5 * mib);
    CHECK(p && all(p, 0, 5 * mib, 0));
    rs_mem_free(p);
    /* mapped blocks: 2 MiB-aligned when made and after each growth; 4 MiB
     * of array map nothing past 4 MiB */
    const uintptr_t huge = 2 * mib;
    p = rs_mem_calloc(4 * mib);
    CHECK(p && ((uintptr_t)p & (huge - 1)) == 0);
    unsigned char vec[1];
    errno = 0;
    CHECK(mincore(p + 4 * mib, 4096, vec) == -1 && errno == ENOMEM);
    memset(p, 0x44, 4 * mib);
    void *guard = rs_mem_calloc(4 * mib); /* likely right after it: the move path */
    for (size_t n = 6; n <= 30; n += 8) {
        p = rs_mem_realloc(p, n * mib);
        CHECK(p && ((uintptr_t)p & (huge - 1)) == 0 && all(p, 0, 4 * mib, 0x44) &&
              all(p, 4 * mib, n * mib, 0));
    }
    rs_mem_free(guard);
    rs_mem_free(p);
    p = rs_mem_realloc(NULL, 300 << 10);
    CHECK(p && ((uintptr_t)p & (huge - 1)) == 0);
    rs_mem_free(p);
    rs_mem_free(NULL);
    return check_done();
}
