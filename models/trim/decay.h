/*
 * decay.h — Ceph's DecayCounter (src/common/DecayCounter.{h,cc}, v15.2.5)
 * on virtual time: every read or hit first decays the value,
 *   val = val * exp(elapsed * ln(0.5) / half_life) + delta,
 * and a value below 0.01 becomes 0.  The MDS throttles trimming
 * (mds_cache_trim_decay_rate) and cap recall (mds_recall_*_decay_rate) with
 * it.  Header-only: a counter is three numbers inside its owner.
 */
#ifndef RS_DECAY_H
#define RS_DECAY_H

#include <math.h>
#include <stdint.h>

typedef struct rs_decay {
    double val;
    double half_life_s; /* > 0 */
    uint64_t last_ns;   /* when val was last decayed */
} rs_decay;

static inline void rs_decay_init(rs_decay *d, double half_life_s, uint64_t now_ns)
{
    d->val = 0;
    d->half_life_s = half_life_s > 0 ? half_life_s : 1e-9;
    d->last_ns = now_ns;
}

static inline void rs_decay_hit(rs_decay *d, uint64_t now_ns, double delta)
{
    double el_s = now_ns > d->last_ns ? (double)(now_ns - d->last_ns) / 1e9 : 0.0;
    double v = d->val * exp(el_s * log(0.5) / d->half_life_s) + delta;
    d->val = v < 0.01 ? 0.0 : v;
    d->last_ns = now_ns > d->last_ns ? now_ns : d->last_ns;
}

static inline double rs_decay_get(rs_decay *d, uint64_t now_ns)
{
    rs_decay_hit(d, now_ns, 0);
    return d->val;
}

#endif
