/*
 * test_node.c — the node's series (sim/node.c): the peak of the sum, not
 * the sum of peaks; copies out of phase; step hold between samples and
 * before/after a daemon's run; count; quantiles; wrapping refused.
 * Expected values are worked out by hand from the tiny series below.
 */
#include <string.h>

#include "check.h"
#include "sim/node.h"

#define P(t, rss) { .t_ns = (t), .rss_bytes = (rss), .accounted_bytes = (rss) / 2, \
                    .resident_bytes = (rss) - 1, .base_bytes = 1 }

/* a daemon peaking at t=1 and one peaking at t=3: their peaks do not coincide */
static void test_peaks_do_not_coincide(void)
{
    static const rs_node_point a[] = { P(0, 10), P(1, 100), P(2, 10), P(3, 10) };
    static const rs_node_point b[] = { P(0, 20), P(1, 20), P(2, 20), P(3, 200) };
    rs_node_member m[2] = { { .pts = a, .npts = 4, .count = 1 }, { .pts = b, .npts = 4, .count = 1 } };
    rs_node_result r;
    rs_err err = { 0 };

    CHECK_MSG(rs_node_sum(m, 2, 1, 0.5, &r, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(r.npts, 4);
    CHECK_EQ_U64(r.pts[1].rss_bytes, 120);
    CHECK_EQ_U64(r.pts[3].rss_bytes, 210);
    CHECK_EQ_U64(r.pts[3].accounted_bytes, 5 + 100);
    CHECK_EQ_U64(r.pts[3].base_bytes, 2);
    CHECK_EQ_U64(r.rss_peak_bytes, 210);
    CHECK_EQ_U64(r.rss_peak_t_ns, 3);
    CHECK_EQ_U64(r.sum_of_peaks_bytes, 300);
    CHECK(r.rss_peak_bytes < r.sum_of_peaks_bytes);
    CHECK_EQ_U64(r.member_at_peak_bytes[0], 10);
    CHECK_EQ_U64(r.member_at_peak_bytes[1], 200);
    CHECK_EQ_U64(r.member_peak_bytes[0], 100);
    /* steady_from_ns = 0.5 x 3 truncated = 1: points t=1 (120), 2 (30), 3 (210) */
    CHECK_EQ_U64(r.steady_from_ns, 1);
    CHECK(fabs(r.rss_steady_bytes - (120 + 30 + 210) / 3.0) < 1e-9);
    CHECK_EQ_U64(r.rss_p99_bytes, 210);
    rs_node_result_release(&r);
}

/* count 3 in phase = 3 x; out of phase by 1: copy i holds its first sample
 * before it starts and its last after its run */
static void test_count_and_phase(void)
{
    static const rs_node_point a[] = { P(0, 10), P(2, 100), P(4, 10) };
    rs_node_member m = { .pts = a, .npts = 3, .count = 3 };
    rs_node_result r;
    rs_err err = { 0 };

    CHECK(rs_node_sum(&m, 1, 1, 0, &r, &err) == 0);
    CHECK_EQ_U64(r.npts, 5);
    CHECK_EQ_U64(r.pts[1].rss_bytes, 30); /* step hold of t=0 */
    CHECK_EQ_U64(r.rss_peak_bytes, 300);
    CHECK_EQ_U64(r.sum_of_peaks_bytes, 300);
    rs_node_result_release(&r);

    m.phase_ns = 1; /* copies start at 0, 1, 2; the node ends at 2 + 4 = 6 */
    CHECK(rs_node_sum(&m, 1, 1, 0, &r, &err) == 0);
    CHECK_EQ_U64(r.end_ns, 6);
    CHECK_EQ_U64(r.npts, 7);
    /* t: copy0 copy1 copy2 -> 0: 10 10 10; 2: 100 10 10; 3: 100 100 10; 4: 10 100 100 */
    CHECK_EQ_U64(r.pts[0].rss_bytes, 30);
    CHECK_EQ_U64(r.pts[2].rss_bytes, 120);
    CHECK_EQ_U64(r.pts[3].rss_bytes, 210);
    CHECK_EQ_U64(r.pts[4].rss_bytes, 210);
    CHECK_EQ_U64(r.pts[6].rss_bytes, 30);
    CHECK_EQ_U64(r.rss_peak_bytes, 210);
    CHECK_EQ_U64(r.rss_peak_t_ns, 3);
    CHECK_EQ_U64(r.sum_of_peaks_bytes, 300);
    rs_node_result_release(&r);
}

/* a clock not dividing the end gets the end as its last point */
static void test_clock(void)
{
    static const rs_node_point a[] = { P(0, 1), P(5, 7) };
    rs_node_member m = { .pts = a, .npts = 2, .count = 1 };
    rs_node_result r;
    rs_err err = { 0 };

    CHECK(rs_node_sum(&m, 1, 2, 0, &r, &err) == 0);
    CHECK_EQ_U64(r.npts, 4); /* 0 2 4 5 */
    CHECK_EQ_U64(r.pts[3].t_ns, 5);
    CHECK_EQ_U64(r.pts[2].rss_bytes, 1);
    CHECK_EQ_U64(r.pts[3].rss_bytes, 7);
    rs_node_result_release(&r);
}

static void test_refusals(void)
{
    static const rs_node_point big[] = { P(0, UINT64_MAX / 2) };
    static const rs_node_point back[] = { P(3, 1), P(2, 1) };
    rs_node_member m = { .pts = big, .npts = 1, .count = 3 };
    rs_node_result r;
    rs_err err = { 0 };

    CHECK(rs_node_sum(&m, 1, 1, 0, &r, &err) == RS_EINTERNAL);
    CHECK(strstr(err.msg, "wraps") != NULL);
    m.pts = back;
    m.npts = 2;
    CHECK(rs_node_sum(&m, 1, 1, 0, &r, &err) == RS_EINPUT);
    m.count = 0;
    CHECK(rs_node_sum(&m, 1, 1, 0, &r, &err) == RS_EINPUT);
    CHECK(rs_node_sum(&m, 0, 1, 0, &r, &err) == RS_EINPUT);
    static const rs_node_point far[] = { P(0, 1), P(1000000000000ull, 1) };
    rs_node_member f = { .pts = far, .npts = 2, .count = 1 };
    CHECK(rs_node_sum(&f, 1, 1, 0, &r, &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "too large") != NULL);
}

int main(void)
{
    test_peaks_do_not_coincide();
    test_count_and_phase();
    test_clock();
    test_refusals();
    return check_done();
}
