/* test_mod.c — sim/base/mod.h: rs_mod64 is x % n for every n, a power of
 * two or not, at the edges of x and of n. */
#include <stdint.h>

#include "check.h"
#include "sim/base/hash.h"
#include "sim/base/mod.h"

int main(void)
{
    const uint64_t ns[] = { 1, 2, 3, 5, 7, 8, 32, 100, 128, 1000, 4096, 65535, 65536,
                            UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT64_MAX / 2 + 1, UINT64_MAX };
    const uint64_t xs[] = { 0, 1, 7, 8, 9, 127, 128, 129, UINT32_MAX, UINT64_MAX - 1, UINT64_MAX };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        for (size_t j = 0; j < sizeof xs / sizeof xs[0]; j++)
            CHECK_EQ_U64(rs_mod64(xs[j], ns[i]), xs[j] % ns[i]);
        for (uint64_t k = 0; k < 10000; k++) {
            uint64_t x = rs_hash64(k);
            CHECK_EQ_U64(rs_mod64(x, ns[i]), x % ns[i]);
        }
    }
    return check_done();
}
