/*
 * vec.c — growing an array by doubling (see vec.h).  The caller's pointer is
 * read and written with memcpy, so one function serves arrays of any
 * element type without breaking the aliasing rules.
 */
#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t rs_vec_grown_cap(size_t cap, size_t want, size_t first_cap)
{
    if (want <= cap)
        return cap;
    size_t n = cap ? cap : first_cap ? first_cap : 1;
    while (n < want) {
        if (n > SIZE_MAX / 2)
            return 0;
        n *= 2;
    }
    return n;
}

int rs_vec_reserve(void *r_arr, size_t *cap, size_t want, size_t elem_bytes, size_t first_cap)
{
    void *arr;
    if (want <= *cap)
        return 0;
    size_t n = rs_vec_grown_cap(*cap, want, first_cap);
    if (!n || (elem_bytes && n > SIZE_MAX / elem_bytes))
        return -1;
    memcpy(&arr, r_arr, sizeof arr);
    void *p = realloc(arr, n * elem_bytes);
    if (!p)
        return -1;
    memcpy(r_arr, &p, sizeof p);
    *cap = n;
    return 0;
}
