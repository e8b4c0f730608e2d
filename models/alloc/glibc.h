/*
 * glibc.h — the glibc 2.36 ptmalloc2 allocator model (models/alloc/glibc.c):
 * its ops table, the size rules, mallinfo2-like numbers and the test hooks.
 *
 * Addresses: the simulated sbrk heap starts at RS_GL_HEAP_BASE (page
 * aligned), so `addr - RS_GL_HEAP_BASE` is the offset a real process sees
 * between sbrk(0) before its first malloc and the pointer malloc returns.
 * mmapped chunks live at or above RS_GL_MMAP_BASE.
 */
#ifndef RS_ALLOC_GLIBC_H
#define RS_ALLOC_GLIBC_H

#include <stdint.h>

#include "alloc.h"

extern const rs_alloc_ops rs_alloc_glibc;

#define RS_GL_HEAP_BASE ((rs_addr)0x10000000u)   /* simulated sbrk start */
#define RS_GL_MMAP_BASE ((rs_addr)1 << 46)       /* simulated mmap area */

/* Chunk size of a request (malloc.c request2size): max(32, (n + 23) & ~15). */
uint64_t rs_gl_request2size(uint64_t size_bytes);
/* Usable size of a heap chunk for the request: chunk − 8 (malloc_usable_size). */
uint64_t rs_gl_usable_size(uint64_t size_bytes);
/* Usable size when the request is mmapped: page_round(chunk + 8) − 16. */
uint64_t rs_gl_mmap_usable_size(uint64_t size_bytes);

/* mallinfo2() fields the model keeps (one arena, so whole-process values). */
typedef struct rs_gl_mallinfo {
    uint64_t arena;    /* sbrk heap bytes (system_mem) */
    uint64_t ordblks;  /* free chunks in bins + 1 for top */
    uint64_t smblks;   /* chunks in fastbins */
    uint64_t hblks;    /* mmapped chunks */
    uint64_t hblkhd;   /* mmapped bytes */
    uint64_t fsmblks;  /* bytes in fastbins */
    uint64_t uordblks; /* arena − fordblks (tcache chunks count as in use) */
    uint64_t fordblks; /* top + fastbins + bins */
    uint64_t keepcost; /* top chunk size */
} rs_gl_mallinfo;

/* Fill *r from a state made by rs_alloc_glibc.create. */
void rs_gl_mallinfo2(const void *state, rs_gl_mallinfo *r);
/* Current (possibly dynamically raised) mmap and trim thresholds. */
uint64_t rs_gl_mmap_threshold(const void *state);
uint64_t rs_gl_trim_threshold(const void *state);
/* Resident bytes of the sbrk heap alone (what /proc/self/smaps shows as the
 * [heap] mapping's Rss). */
uint64_t rs_gl_heap_resident_bytes(const void *state);
/* The real chunk size behind a live pointer alloc returned for size_bytes
 * (it can exceed request2size by 16 when a split left less than MINSIZE). */
uint64_t rs_gl_chunk_size_of(const void *state, rs_addr addr, uint64_t size_bytes);

/* Recount the bins, the boundary maps, the caches, the page map and the
 * counters from scratch and compare them with the incremental state.
 * O(free chunks · log + heap pages); for tests.  0 or RS_EINTERNAL. */
int rs_gl_audit(const void *state, rs_err *err);
/* Host bytes the simulator state occupies (capacities included). */
uint64_t rs_gl_footprint_bytes(const void *state);

#endif
