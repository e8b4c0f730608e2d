/*
 * mem.h — the simulator's large arrays, on transparent huge pages.
 *
 * A replay is bound by memory latency: every record touches a few random
 * entries of arrays of tens to hundreds of megabytes (key slots, object
 * records, LRU links, the allocator models' page and slab tables).  On 4 KiB
 * pages each of those touches also misses the TLB; Debian's kernels give huge
 * pages only to memory that asks for them (transparent_hugepage=madvise).
 * Arrays of 256 KiB or more are therefore mapped 2 MiB-aligned (a whole
 * number of 2 MiB pages) and advised MADV_HUGEPAGE before they are touched;
 * smaller ones come from malloc.
 * Contents are kept on resize, as with realloc; rs_mem_calloc's are zero,
 * and so is every byte past the largest size a block has had: a grown array
 * need not clear its new part (clearing it would also fault in, and have the
 * kernel zero, pages the array may never use).
 * A block remembers its own size: free it with rs_mem_free only.
 */
#ifndef RS_MEM_H
#define RS_MEM_H

#include <stddef.h>

void *rs_mem_calloc(size_t bytes);
/* p may be NULL; on failure NULL is returned and p is untouched. */
void *rs_mem_realloc(void *p, size_t bytes);
void rs_mem_free(void *p);

#endif
