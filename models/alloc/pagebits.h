/*
 * pagebits.h — a bitmap of pages, one bit a page, set, cleared and counted
 * 64 pages (a word) at a time: the residency of the allocator models'
 * pages (tcmalloc's OS pages, jemalloc's and glibc's 4 KiB pages).  A run
 * [lo, hi) of pages covers whole words but its first and last; a free or
 * a release of a span then costs its pages / 64, not its pages.
 */
#ifndef RS_ALLOC_PAGEBITS_H
#define RS_ALLOC_PAGEBITS_H

#include <stdint.h>

/* The bits of word w within pages [lo, hi) (lo < hi). */
static inline uint64_t rs_pb_mask(uint64_t lo, uint64_t hi, uint64_t w)
{
    uint64_t m = ~(uint64_t)0;
    if (w == lo >> 6)
        m &= ~(uint64_t)0 << (lo & 63);
    if (w == (hi - 1) >> 6) /* -hi & 63: 64 - hi % 64, or 0 (all of the word) */
        m &= ~(uint64_t)0 >> (-hi & 63);
    return m;
}

/* Whether [lo, hi) (lo < hi) lies within one word, the commonest run (a
 * span of a page or a few), and then its mask (rs_pb_mask of that word). */
static inline int rs_pb_one_word(uint64_t lo, uint64_t hi)
{
    return !((lo ^ (hi - 1)) >> 6);
}

static inline uint64_t rs_pb_mask1(uint64_t lo, uint64_t hi)
{
    return (~(uint64_t)0 << (lo & 63)) & (~(uint64_t)0 >> (-hi & 63));
}

/* Bits set in x, without a call: __builtin_popcountll is a library call
 * (libgcc's __popcountdi2) where the build does not target POPCNT, and a
 * call in an inline run function made its callers save registers around
 * it.  The SWAR sum (bits in pairs, nibbles, bytes; the bytes summed by
 * a multiply). */
static inline uint64_t rs_pb_popcount(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (x * 0x0101010101010101u) >> 56;
}

/* Bits set in x, a subset of m, the mask of a run within a word (one
 * unbroken run of bits, not 0).  A run is most often all or nothing set (a
 * span's pages are written and released together): then no popcount; all
 * of m is counted from its ends. */
static inline uint64_t rs_pb_count_in(uint64_t x, uint64_t m)
{
    if (x == m)
        return (uint64_t)(64 - __builtin_clzll(m) - __builtin_ctzll(m));
    return x ? rs_pb_popcount(x) : 0;
}

static inline int rs_pb_test(const uint64_t *bits, uint64_t p)
{
    return (int)(bits[p >> 6] >> (p & 63)) & 1;
}

/* Sets bit p; 1 if it was not set (a page made resident), else 0. */
static inline int rs_pb_set1(uint64_t *bits, uint64_t p)
{
    uint64_t bit = (uint64_t)1 << (p & 63);
    if (bits[p >> 6] & bit)
        return 0;
    bits[p >> 6] |= bit;
    return 1;
}

/* Sets [lo, hi) (lo < hi) word by word; returns how many of its bits
 * were not set.  Out of line: a run over words is rare, and its loop,
 * inline, made its callers keep more registers (saved and restored on
 * every call; MDS replay +0.35 % instructions). */
static __attribute__((noinline, unused)) uint64_t rs_pb_set_words(uint64_t *bits, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    for (uint64_t w = lo >> 6; w <= (hi - 1) >> 6; w++) {
        uint64_t m = rs_pb_mask(lo, hi, w), x = ~bits[w] & m; /* the pages not set */
        if (x) { /* mostly none: pages are written again and again */
            n += rs_pb_count_in(x, m);
            bits[w] |= m;
        }
    }
    return n;
}

/* Sets [lo, hi); returns how many of its bits were not set. */
static inline uint64_t rs_pb_set(uint64_t *bits, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    if (lo < hi && rs_pb_one_word(lo, hi)) { /* the loop's one round, without its bounds */
        uint64_t m = rs_pb_mask1(lo, hi), x = ~bits[lo >> 6] & m;
        if (x) {
            n = rs_pb_count_in(x, m);
            bits[lo >> 6] |= m;
        }
    } else if (lo < hi) {
        n = rs_pb_set_words(bits, lo, hi);
    }
    return n;
}

/* Clears [lo, hi); returns how many of its bits were set. */
static inline uint64_t rs_pb_clear(uint64_t *bits, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    if (lo < hi)
        for (uint64_t w = lo >> 6; w <= (hi - 1) >> 6; w++) {
            uint64_t m = rs_pb_mask(lo, hi, w), x = bits[w] & m;
            if (x) {
                n += rs_pb_count_in(x, m);
                bits[w] &= ~x;
            }
        }
    return n;
}

/* How many bits of [lo, hi) (lo < hi) are set, word by word (out of
 * line, as rs_pb_set_words). */
static __attribute__((noinline, unused)) uint64_t rs_pb_count_words(const uint64_t *bits, uint64_t lo,
                                                                    uint64_t hi)
{
    uint64_t n = 0;
    for (uint64_t w = lo >> 6; w <= (hi - 1) >> 6; w++) {
        uint64_t m = rs_pb_mask(lo, hi, w);
        n += rs_pb_count_in(bits[w] & m, m);
    }
    return n;
}

/* How many bits of [lo, hi) are set. */
static inline uint64_t rs_pb_count(const uint64_t *bits, uint64_t lo, uint64_t hi)
{
    if (lo < hi && rs_pb_one_word(lo, hi)) { /* the loop's one round, without its bounds */
        uint64_t m = rs_pb_mask1(lo, hi);
        return rs_pb_count_in(bits[lo >> 6] & m, m);
    }
    return lo < hi ? rs_pb_count_words(bits, lo, hi) : 0;
}

#endif
