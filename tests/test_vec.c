/* test_vec.c — sim/base/vec.h: the doubling, the first capacity, contents
 * kept across growth, no change on failure (overflow), any element type. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim/base/vec.h"

static void test_grown_cap(void)
{
    CHECK_EQ_U64(rs_vec_grown_cap(0, 1, 16), 16);
    CHECK_EQ_U64(rs_vec_grown_cap(0, 16, 16), 16);
    CHECK_EQ_U64(rs_vec_grown_cap(0, 17, 16), 32);
    CHECK_EQ_U64(rs_vec_grown_cap(16, 17, 256), 32); /* doubles from the current capacity */
    CHECK_EQ_U64(rs_vec_grown_cap(16, 100, 256), 128);
    CHECK_EQ_U64(rs_vec_grown_cap(32, 20, 16), 32); /* holds it already */
    CHECK_EQ_U64(rs_vec_grown_cap(0, 0, 16), 0);
    CHECK_EQ_U64(rs_vec_grown_cap(0, 3, 0), 4); /* from 1 without a first capacity */
    CHECK_EQ_U64(rs_vec_grown_cap(0, 1u << 20, 1u << 20), 1u << 20);
    CHECK_EQ_U64(rs_vec_grown_cap(3, 13, 64), 24); /* 3, 6, 12, 24 */
    CHECK_EQ_U64(rs_vec_grown_cap(SIZE_MAX / 2 + 1, SIZE_MAX, 1), 0); /* would overflow */
}

typedef struct pair {
    uint64_t a;
    uint32_t b;
} pair;

static void test_append(void)
{
    pair *v = NULL;
    size_t n = 0, cap = 0, grows = 0, last_cap = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        CHECK(RS_VEC_RESERVE(v, cap, n + 1, 16) == 0);
        CHECK(cap >= n + 1);
        if (cap != last_cap) {
            CHECK(last_cap == 0 ? cap == 16 : cap == 2 * last_cap);
            grows++;
            last_cap = cap;
        }
        v[n++] = (pair){ .a = (uint64_t)i * 3, .b = i };
    }
    CHECK_EQ_U64(cap, 131072);
    CHECK_EQ_U64(grows, 14); /* 16 .. 131072 */
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += v[i].a != (uint64_t)i * 3 || v[i].b != i;
    CHECK_EQ_U64(bad, 0);
    /* a reserve the array already holds changes nothing */
    pair *before = v;
    CHECK(RS_VEC_RESERVE(v, cap, 10, 16) == 0 && v == before && cap == 131072);
    free(v);
}

static void test_failure_keeps_array(void)
{
    char *s = NULL;
    size_t cap = 0;
    CHECK(RS_VEC_RESERVE(s, cap, 5, 8) == 0 && cap == 8);
    memcpy(s, "abcd", 5);
    char *before = s;
    /* a size no doubling reaches without overflow: refused, nothing changed */
    CHECK(RS_VEC_RESERVE(s, cap, SIZE_MAX, 8) == -1);
    CHECK(s == before && cap == 8 && memcmp(s, "abcd", 5) == 0);
    /* elements so large the byte count overflows */
    uint64_t *w = NULL;
    size_t wcap = 0;
    CHECK(RS_VEC_RESERVE(w, wcap, SIZE_MAX / 4, 1) == -1 && w == NULL && wcap == 0);
    free(s);
}

int main(void)
{
    test_grown_cap();
    test_append();
    test_failure_keeps_array();
    return check_done();
}
