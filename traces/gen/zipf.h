/*
 * zipf.h — two building blocks of the random-offset generators: a Zipf rank
 * sampler and a keyed bijection of [0, n).
 *
 * rs_zipf draws ranks 1..n with P(k) ∝ k^-s by rejection-inversion
 * (Hörmann & Derflinger 1996, "Rejection-inversion to generate variates from
 * monotone discrete distributions", ACM TOMACS 6(3); the formulation of
 * Apache Commons RNG's RejectionInversionZipfSampler): O(1) memory and time
 * per sample for any n, no CDF table, any s > 0 (s = 1 included).
 *
 * rs_perm is a fixed bijection of [0, n) chosen by a 64-bit key: an
 * alternating 4-round Feistel network over the next power of two, with cycle
 * walking (fewer than 2 steps on average).  Key 0 is the network traces/gen/kv.c
 * uses.  Generators use it to spread hot ranks over the id space and, with a
 * new key per pass, to visit every block once per pass in random order
 * (fio's random map) with O(1) memory.
 */
#ifndef RS_ZIPF_H
#define RS_ZIPF_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

typedef struct rs_zipf {
    double s, n;
    double h_x1;  /* H(1.5) - 1 */
    double h_n;   /* H(n + 0.5) */
    double s_acc; /* 2 - H^-1(H(2.5) - h(2)): quick-accept bound */
} rs_zipf;

/* Ranks 1..n (n >= 1) with exponent s > 0. */
void rs_zipf_init(rs_zipf *z, double s, uint64_t n);
/* One rank in 1..n; draws one or more uniforms from rng. */
uint64_t rs_zipf_sample(const rs_zipf *z, gsl_rng *rng);

typedef struct rs_perm {
    uint64_t n;
    unsigned lo_bits, hi_bits;
    uint64_t lo_mask;
    uint64_t round_keys[4];
} rs_perm;

/* A bijection of [0, n), n >= 1, selected by key (0: kv.c's). */
void rs_perm_init(rs_perm *p, uint64_t n, uint64_t key);
/* The image of x (x < n). */
uint64_t rs_perm_apply(const rs_perm *p, uint64_t x);

#endif
