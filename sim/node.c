/*
 * node.c — the sum of several daemons' RSS on one clock; see node.h.
 *
 * Each copy of each member walks its samples with its own cursor as the
 * node's clock advances (O(points x copies)); copies of a member with
 * phase 0 are one cursor times count.  Quantiles are nearest-rank over the
 * steady grid points (a sorted copy of them).
 */
#include "node.h"

#include <stdlib.h>
#include <string.h>

/* The value of a copy at node time t: its latest sample at or before
 * t - offset, its first before it starts, its last after it ends. */
static const rs_node_point *at(const rs_node_member *m, size_t *cursor, uint64_t offset_ns,
                               uint64_t t_ns)
{
    if (t_ns < offset_ns)
        return &m->pts[0];
    uint64_t local = t_ns - offset_ns;
    while (*cursor + 1 < m->npts && m->pts[*cursor + 1].t_ns <= local)
        (*cursor)++;
    return &m->pts[*cursor];
}

static int add(uint64_t *acc, uint64_t v, uint64_t times, rs_err *err)
{
    uint64_t prod;
    if (__builtin_mul_overflow(v, times, &prod) || __builtin_add_overflow(*acc, prod, acc))
        return rs_fail(err, RS_EINTERNAL, "the node's total wraps 64 bits");
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void rs_node_result_release(rs_node_result *res)
{
    if (!res)
        return;
    free(res->pts);
    free(res->member_at_peak_bytes);
    free(res->member_peak_bytes);
    memset(res, 0, sizeof *res);
}

int rs_node_sum(const rs_node_member *m, size_t n, uint64_t interval_ns, double steady_from,
                rs_node_result *r, rs_err *err)
{
    uint64_t end_ns = 0, copies = 0, *sorted = NULL, *member_now = NULL;
    size_t *cursors = NULL, ncursors = 0;
    int rc = 0;

    memset(r, 0, sizeof *r);
    if (n == 0)
        return rs_fail(err, RS_EINPUT, "a node needs at least one member");
    if (interval_ns == 0 || !(steady_from >= 0 && steady_from < 1))
        return rs_fail(err, RS_EINPUT, "node: bad interval or steady_from");
    for (size_t k = 0; k < n; k++) {
        if (!m[k].pts || m[k].npts == 0 || m[k].count == 0)
            return rs_fail(err, RS_EINPUT, "node member %zu: no samples or no daemon", k + 1);
        for (size_t j = 1; j < m[k].npts; j++)
            if (m[k].pts[j].t_ns <= m[k].pts[j - 1].t_ns)
                return rs_fail(err, RS_EINPUT, "node member %zu: sample times not increasing", k + 1);
        uint64_t last_off, e;
        if (__builtin_mul_overflow(m[k].phase_ns, (uint64_t)(m[k].count - 1), &last_off) ||
            __builtin_add_overflow(last_off, m[k].pts[m[k].npts - 1].t_ns, &e))
            return rs_fail(err, RS_EINPUT, "node member %zu: phase x count overflows", k + 1);
        if (e > end_ns)
            end_ns = e;
        uint64_t c = m[k].phase_ns ? m[k].count : 1;
        copies += c;
        ncursors += (size_t)c;
    }
    uint64_t npts = end_ns / interval_ns + 1 + (end_ns % interval_ns != 0);
    if (npts > RS_NODE_MAX_POINTS || npts * copies > RS_NODE_MAX_WORK)
        return rs_fail(err, RS_EINPUT, "node: %llu clock points x %llu daemon series is too large "
                       "(at most %llu points, %llu in all): use a larger sample_interval",
                       (unsigned long long)npts, (unsigned long long)copies,
                       (unsigned long long)RS_NODE_MAX_POINTS, (unsigned long long)RS_NODE_MAX_WORK);
    r->pts = calloc((size_t)npts, sizeof *r->pts);
    r->member_at_peak_bytes = calloc(n, sizeof *r->member_at_peak_bytes);
    r->member_peak_bytes = calloc(n, sizeof *r->member_peak_bytes);
    cursors = calloc(ncursors, sizeof *cursors);
    member_now = calloc(n, sizeof *member_now);
    if (!r->pts || !r->member_at_peak_bytes || !r->member_peak_bytes || !cursors || !member_now) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory for a node of %llu points",
                     (unsigned long long)npts);
        goto out;
    }
    r->npts = (size_t)npts;
    r->interval_ns = interval_ns;
    r->end_ns = end_ns;
    for (size_t p = 0; p < r->npts && !rc; p++) {
        uint64_t t = p + 1 == r->npts ? end_ns : (uint64_t)p * interval_ns;
        rs_node_point *s = &r->pts[p];
        size_t cur = 0;
        s->t_ns = t;
        for (size_t k = 0; k < n && !rc; k++) {
            uint64_t times = m[k].phase_ns ? 1 : m[k].count, c = m[k].phase_ns ? m[k].count : 1;
            member_now[k] = 0;
            for (uint64_t i = 0; i < c && !rc; i++, cur++) {
                const rs_node_point *v = at(&m[k], &cursors[cur], i * m[k].phase_ns, t);
                if ((rc = add(&s->rss_bytes, v->rss_bytes, times, err)) ||
                    (rc = add(&s->accounted_bytes, v->accounted_bytes, times, err)) ||
                    (rc = add(&s->resident_bytes, v->resident_bytes, times, err)) ||
                    (rc = add(&s->base_bytes, v->base_bytes, times, err)) ||
                    (rc = add(&member_now[k], v->rss_bytes, times, err)))
                    break;
            }
            if (member_now[k] > r->member_peak_bytes[k])
                r->member_peak_bytes[k] = member_now[k];
        }
        if (!rc && (p == 0 || s->rss_bytes > r->rss_peak_bytes)) {
            r->rss_peak_bytes = s->rss_bytes;
            r->rss_peak_t_ns = t;
            memcpy(r->member_at_peak_bytes, member_now, n * sizeof *member_now);
        }
    }
    if (rc)
        goto out;
    /* every daemon's own peak, over its whole run */
    for (size_t k = 0; k < n && !rc; k++) {
        uint64_t pk = 0;
        for (size_t j = 0; j < m[k].npts; j++)
            if (m[k].pts[j].rss_bytes > pk)
                pk = m[k].pts[j].rss_bytes;
        rc = add(&r->sum_of_peaks_bytes, pk, m[k].count, err);
    }
    if (rc)
        goto out;
    /* the steady part: grid points from steady_from x end */
    r->steady_from_ns = (uint64_t)(steady_from * (double)end_ns);
    size_t first = 0;
    while (first + 1 < r->npts && r->pts[first].t_ns < r->steady_from_ns)
        first++;
    size_t ns = r->npts - first;
    sorted = malloc(ns * sizeof *sorted);
    if (!sorted) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory for a node's quantiles");
        goto out;
    }
    double sum = 0;
    for (size_t j = 0; j < ns; j++) {
        sorted[j] = r->pts[first + j].rss_bytes;
        sum += (double)sorted[j];
    }
    qsort(sorted, ns, sizeof *sorted, cmp_u64);
    r->rss_steady_bytes = sum / (double)ns;
    /* nearest rank: the smallest value with at least q of the points at or below it */
    size_t i50 = (ns * 50 + 99) / 100, i99 = (ns * 99 + 99) / 100;
    r->rss_p50_bytes = sorted[i50 ? i50 - 1 : 0];
    r->rss_p99_bytes = sorted[i99 ? i99 - 1 : 0];
    r->nmembers = n;
out:
    free(sorted);
    free(cursors);
    free(member_now);
    if (rc)
        rs_node_result_release(r);
    return rc;
}
