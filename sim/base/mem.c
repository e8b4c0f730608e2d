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
/* A mapped block's header has a 4 KiB page of its own in front of the
 * array, which starts on a 2 MiB boundary: an array of a whole number of
 * huge pages (a power-of-two table of 2 MiB or more) then takes that many,
 * not one more for the header's 64 bytes — a hash table touches its last
 * page too, and a huge page is cleared whole. */
#define HDR_PAGE ((size_t)4096)

/* The header in front of every block: its usable size, and the size of its
 * mapping's array part (0 when it came from malloc). */
typedef struct hdr {
    size_t bytes;
    size_t mapped;
} hdr;

static hdr *hdr_of(void *p)
{
    return (hdr *)((char *)p - HDR_BYTES);
}

/* Address space for a header page and a 2 MiB-aligned array of len bytes
 * (a multiple of 2 MiB): the array's start, or NULL.  The mapping is
 * [start - HDR_PAGE, start + len). */
static char *reserve_huge(size_t len)
{
    size_t span = len + HUGE_BYTES + HDR_PAGE;
    if (span < len)
        return NULL;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *start = (char *)(((uintptr_t)raw + HDR_PAGE + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    char *base = start - HDR_PAGE;
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (start + len < raw + span)
        munmap(start + len, (size_t)(raw + span - (start + len)));
    return start;
}

/* The whole mapping, header page included: one advice keeps it one VMA,
 * which mremap needs (only the array's aligned 2 MiB ranges can be huge). */
static void advise_huge(char *start, size_t len)
{
#ifdef MADV_HUGEPAGE
    madvise(start - HDR_PAGE, len + HDR_PAGE, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#else
    (void)start;
    (void)len;
#endif
}

static void *block_new(size_t bytes)
{
    hdr *h;
    size_t total = bytes + HDR_BYTES;

    if (total < bytes)
        return NULL;
    if (total >= MAP_FROM_BYTES) {
        size_t len = (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
        char *start = len >= bytes ? reserve_huge(len) : NULL;
        if (!start)
            return NULL;
        advise_huge(start, len);
        h = (hdr *)(start - HDR_BYTES);
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
    if (bytes <= h->bytes || (h->mapped && bytes <= h->mapped)) {
        h->bytes = bytes > h->bytes ? bytes : h->bytes;
        return p;
    }
    if (h->mapped) {
        /* move the pages rather than copy them: no moment with both the old
         * and the new array resident; in place when the address space
         * after it is free, else onto a reserved 2 MiB-aligned range */
        size_t len = (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
        if (len < bytes)
            return NULL;
        char *base = (char *)p - HDR_PAGE, *start = p;
        if (mremap(base, h->mapped + HDR_PAGE, len + HDR_PAGE, 0) == MAP_FAILED) {
            if (!(start = reserve_huge(len)))
                return NULL;
            if (mremap(base, h->mapped + HDR_PAGE, len + HDR_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
                       start - HDR_PAGE) == MAP_FAILED) {
                munmap(start - HDR_PAGE, len + HDR_PAGE);
                return NULL;
            }
        }
        advise_huge(start, len);
        h = (hdr *)(start - HDR_BYTES);
        h->mapped = len;
        h->bytes = bytes;
        return start;
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
        munmap((char *)p - HDR_PAGE, h->mapped + HDR_PAGE);
    else
        free(h);
}
