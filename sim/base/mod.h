/*
 * mod.h — x mod n for the run-time counts a record is spread over (PGs,
 * shards, threads): a mask when n is a power of two, as those counts
 * usually are, else the division.  The value is x % n either way; what it
 * saves is a 64-bit division (tens of cycles) per record.  n > 0.
 */
#ifndef RS_MOD_H
#define RS_MOD_H

#include <stdint.h>

static inline uint64_t rs_mod64(uint64_t x, uint64_t n)
{
    return (n & (n - 1)) == 0 ? x & (n - 1) : x % n;
}

#endif
