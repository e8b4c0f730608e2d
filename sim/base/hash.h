/*
 * hash.h — the one integer hash rssim uses: the splitmix64 finaliser
 * (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014), a bijection of u64 with good avalanche.  Hash tables key on
 * it and generators derive per-key values from it, so it must never change:
 * generated traces would change with it.
 */
#ifndef RS_HASH_H
#define RS_HASH_H

#include <stdint.h>

static inline uint64_t rs_hash64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#endif
