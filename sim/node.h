/*
 * node.h — several daemons on one node: the node's RSS is the sum, at each
 * instant of one common clock, of the RSS of its daemons, each a process of
 * its own (its own allocator, cache and trace: its own run).
 *
 * What an operator sizes a node by is the peak of that sum, which is at
 * most, and usually below, the sum of the daemons' own peaks: the peaks need
 * not coincide.  A member is one run replayed by count daemons; copy i of it
 * starts i x phase_ns later on the node's clock (the same workload, out of
 * step).  A daemon holds its first sample's values before it starts and its
 * last sample's after its run ends (it is up and idle), so every daemon
 * counts at every instant.  Between its samples a daemon's value is that of
 * its latest sample (step hold), which is how the sampler observes it.
 *
 * The node's clock ticks every interval_ns from 0 and ends at the latest
 * copy's end (that instant included).  Sums are checked for wrapping.  Pure
 * computation: no store, no I/O.
 */
#ifndef RS_NODE_H
#define RS_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* One sample of a daemon or of the node. */
typedef struct rs_node_point {
    uint64_t t_ns;
    uint64_t rss_bytes;       /* what the OOM killer sees */
    uint64_t accounted_bytes; /* what the daemon counts against its limit */
    uint64_t resident_bytes;  /* the allocator's resident heap */
    uint64_t base_bytes;      /* outside the cache */
} rs_node_point;

/* One run and the daemons replaying it. */
typedef struct rs_node_member {
    const rs_node_point *pts; /* the run's samples, t_ns strictly increasing, npts >= 1 */
    size_t npts;
    uint32_t count;           /* daemons (>= 1) */
    uint64_t phase_ns;        /* copy i starts at i x phase_ns */
} rs_node_member;

/* Bounds: grid points x copies summed. */
#define RS_NODE_MAX_WORK 200000000ull
#define RS_NODE_MAX_POINTS 10000000ull

typedef struct rs_node_result {
    uint64_t interval_ns, end_ns;
    rs_node_point *pts;          /* the node's total on its clock */
    size_t npts;
    uint64_t steady_from_ns;     /* steady = from here to the end */
    double rss_steady_bytes;     /* mean of the steady part */
    uint64_t rss_p50_bytes, rss_p99_bytes; /* of the steady part (nearest rank) */
    uint64_t rss_peak_bytes;     /* the peak of the sum, over the whole run */
    uint64_t rss_peak_t_ns;      /* when (the first time) */
    uint64_t sum_of_peaks_bytes; /* sum over daemons of their own peak RSS */
    size_t nmembers;
    uint64_t *member_at_peak_bytes; /* per member, all its copies, at rss_peak_t_ns */
    uint64_t *member_peak_bytes;    /* per member, the peak of its copies' sum */
} rs_node_result;

/* Sum n members on a clock of interval_ns (> 0); steady_from in [0, 1).
 * RS_EINPUT for bad members (no samples, count 0, times not increasing) or
 * a node too large (RS_NODE_MAX_*), RS_EINTERNAL when a sum would wrap,
 * RS_ENOMEM.  *r_res is released with rs_node_result_release. */
int rs_node_sum(const rs_node_member *m, size_t n, uint64_t interval_ns, double steady_from,
                rs_node_result *r_res, rs_err *err);
void rs_node_result_release(rs_node_result *res);

#endif
