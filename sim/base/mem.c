/* mem.c — large arrays on transparent huge pages; see mem.h. */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_BYTES ((size_t)2 << 20)
/* Blocks from this size on are mappings on huge pages, not only from 2 MiB
 * on: a growing array would otherwise be copied three more times on its way
 * from 256 KiB to 2 MiB, each time into fresh 4 KiB pages (a page fault
 * each, dearer per byte than a huge page's where the machine is virtual),
 * and a hash table rehashed as often; at most 2 MiB of memory per block is
 * the price. */
#define MAP_FROM_BYTES ((size_t)256 << 10)
#define HDR_BYTES ((size_t)64) /* keeps the array cache-line aligned */

/* The header in front of every block: its usable size, and the size of its
 * mapping (0 when it came from malloc). */
typedef struct hdr {
    size_t bytes;
    size_t mapped;
} hdr;

static hdr *hdr_of(void *p)
{
    return (hdr *)((char *)p - HDR_BYTES);
}

/* A zeroed, 2 MiB-aligned mapping of len bytes (a multiple of 2 MiB). */
static void *map_huge(size_t len)
{
    size_t span = len + HUGE_BYTES;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *start = (char *)(((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (start > raw)
        munmap(raw, (size_t)(start - raw));
    if (start + len < raw + span)
        munmap(start + len, (size_t)(raw + span - (start + len)));
#ifdef MADV_HUGEPAGE
    madvise(start, len, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#endif
    return start;
}

static void *block_new(size_t bytes)
{
    hdr *h;
    size_t total = bytes + HDR_BYTES;

    if (total < bytes)
        return NULL;
    if (total >= MAP_FROM_BYTES) {
        size_t len = (total + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
        if (len < total || !(h = map_huge(len)))
            return NULL;
        h->mapped = len;
    } else {
        if (!(h = calloc(1, total)))
            return NULL;
        h->mapped = 0;
    }
    h->bytes = bytes;
    return (char *)h + HDR_BYTES;
}

void *rs_mem_calloc(size_t bytes)
{
    return block_new(bytes);
}

void *rs_mem_realloc(void *p, size_t bytes)
{
    if (!p)
        return block_new(bytes);
    hdr *h = hdr_of(p);
    if (bytes <= h->bytes || (h->mapped && bytes + HDR_BYTES <= h->mapped)) {
        h->bytes = bytes > h->bytes ? bytes : h->bytes;
        return p;
    }
    if (h->mapped) {
        /* move the pages rather than copy them: no moment with both the old
         * and the new array resident */
        size_t len = (bytes + HDR_BYTES + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
        if (len < bytes)
            return NULL;
        hdr *n = mremap(h, h->mapped, len, MREMAP_MAYMOVE);
        if (n == MAP_FAILED)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(n, len, MADV_HUGEPAGE);
#endif
        n->mapped = len;
        n->bytes = bytes;
        return (char *)n + HDR_BYTES;
    }
    void *q = block_new(bytes);
    if (!q)
        return NULL;
    memcpy(q, p, h->bytes);
    rs_mem_free(p);
    return q;
}

void rs_mem_free(void *p)
{
    if (!p)
        return;
    hdr *h = hdr_of(p);
    if (h->mapped)
        munmap(h, h->mapped);
    else
        free(h);
}
