/*
 * vec.h — growing an array by doubling: the one helper for the "if full,
 * double the capacity and realloc" step every growable array needs.
 *
 * The array stays the caller's plain pointer + count + capacity (no wrapper
 * struct), so existing structs keep their fields:
 *
 *     if (RS_VEC_RESERVE(q->heap, q->cap, q->n + 1, 16))
 *         return rs_fail(err, RS_ENOMEM, "out of memory for %zu events", q->n + 1);
 *     q->heap[q->n++] = ev;
 *
 * Growth is geometric (amortised O(1) per append): from first_cap, or from
 * the current capacity, doubled until it holds the wanted count.  On failure
 * (out of memory, or a byte count that would overflow size_t) nothing
 * changes: the array, its contents and its capacity are as before.  Memory
 * comes from realloc, so the array is released with free().
 *
 * Depends on nothing but the C library.
 */
#ifndef RS_VEC_H
#define RS_VEC_H

#include <stddef.h>

/* The capacity that holds want elements: cap (or first_cap when cap is 0,
 * or 1 when both are) doubled until >= want; cap itself when it already
 * holds want.  0 when doubling would overflow size_t. */
size_t rs_vec_grown_cap(size_t cap, size_t want, size_t first_cap);

/* Make the array *r_arr (the address of the caller's pointer to it, of any
 * object type; *cap elements of elem_bytes) hold at least want elements,
 * realloc'ing it to rs_vec_grown_cap(*cap, want, first_cap) elements when it
 * does not.  0, or -1 (out of memory or overflow) with *r_arr and *cap
 * untouched. */
int rs_vec_reserve(void *r_arr, size_t *cap, size_t want, size_t elem_bytes, size_t first_cap);

/* rs_vec_reserve for an array pointer arr and a size_t capacity cap (both
 * lvalues), the element size taken from arr's type. */
#define RS_VEC_RESERVE(arr, cap, want, first_cap) \
    rs_vec_reserve(&(arr), &(cap), (want), sizeof *(arr), (first_cap))

#endif
