/*
 * zipf.c — Zipf ranks by rejection-inversion and a keyed Feistel bijection
 * (see zipf.h for the sources and the contracts).
 */
#include "zipf.h"

#include <math.h>

#include "../../sim/base/hash.h"

/* log(1 + x) / x, stable near 0.  log(1 + x) instead of log1p: glibc's log1p
 * is several times slower, and for |x| > 1e-8 the rounding of 1 + x costs at
 * most ~1e-8 relative error, far below what moves a sampled rank. */
static double helper1(double x)
{
    return fabs(x) > 1e-8 ? log(1 + x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x) /* expm1(x) / x, stable near 0 */
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

static double zipf_h(const rs_zipf *z, double x)
{
    return exp(-z->s * log(x));
}

static double zipf_hint(const rs_zipf *z, double x)
{
    double lx = log(x);
    return helper2((1 - z->s) * lx) * lx;
}

static double zipf_hinv(const rs_zipf *z, double x)
{
    double t = x * (1 - z->s);
    if (t < -1)
        t = -1;
    return exp(helper1(t) * x);
}

void rs_zipf_init(rs_zipf *z, double s, uint64_t n)
{
    z->s = s;
    z->n = (double)n;
    z->h_x1 = zipf_hint(z, 1.5) - 1;
    z->h_n = zipf_hint(z, z->n + 0.5);
    z->s_acc = 2 - zipf_hinv(z, zipf_hint(z, 2.5) - zipf_h(z, 2));
}

uint64_t rs_zipf_sample(const rs_zipf *z, gsl_rng *rng)
{
    for (;;) {
        double u = z->h_n + gsl_rng_uniform(rng) * (z->h_x1 - z->h_n);
        double x = zipf_hinv(z, u);
        double k = floor(x + 0.5);
        if (k < 1)
            k = 1;
        else if (k > z->n)
            k = z->n;
        if (k - x <= z->s_acc || u >= zipf_hint(z, k + 0.5) - zipf_h(z, k))
            return (uint64_t)k;
    }
}

/* b = bits(n - 1) low bits split into lo (b/2 bits) and hi (the rest);
 * rounds alternately do hi ^= F(lo) and lo ^= F(hi), each invertible, so the
 * whole is a permutation of [0, 2^b); cycle walking restricts it to [0, n)
 * since 2^b < 2n.  F is the top bits of a multiply by an odd constant. */
void rs_perm_init(rs_perm *p, uint64_t n, uint64_t key)
{
    static const uint64_t base[4] = { 0x243f6a8885a308d3ull, 0x13198a2e03707344ull,
                                      0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull };
    unsigned bits = n > 1 ? 64u - (unsigned)__builtin_clzll(n - 1) : 1u;

    p->n = n;
    p->lo_bits = bits / 2;
    p->hi_bits = bits - p->lo_bits;
    p->lo_mask = (1ull << p->lo_bits) - 1;
    for (unsigned i = 0; i < 4; i++)
        p->round_keys[i] = base[i] ^ (key ? rs_hash64(key * 4 + i) : 0);
}

static inline uint64_t perm_round(uint64_t v, uint64_t key, unsigned out_bits)
{
    /* the top out_bits (0 .. 63) bits; two shifts avoid a shift by 64 */
    return (((v ^ key) * 0x9e3779b97f4a7c15ull) >> (63 - out_bits)) >> 1;
}

uint64_t rs_perm_apply(const rs_perm *p, uint64_t x)
{
    if (p->n <= 1)
        return 0;
    do {
        uint64_t lo = x & p->lo_mask, hi = x >> p->lo_bits;
        for (int i = 0; i < 4; i += 2) {
            hi ^= perm_round(lo, p->round_keys[i], p->hi_bits);
            lo ^= perm_round(hi, p->round_keys[i + 1], p->lo_bits);
        }
        x = (hi << p->lo_bits) | lo;
    } while (x >= p->n);
    return x;
}
