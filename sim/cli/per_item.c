/*
 * per_item.c — RSS and accounted bytes per cached item; see per_item.h.
 *
 * At the run's last sample (the end of the run, inside the steady window
 * since steady_from < 1), with N the daemon's count of cached items at
 * that moment (the same instant: daemon metrics are taken at the end):
 *   rss_per_cached_<item>_bytes       = (rss_bytes - base_bytes) / N
 *   accounted_per_cached_<item>_bytes = accounted_bytes / N
 * Everything the cache holds is spread over its items: for the MDS also
 * the dirfrags, capabilities and null dentries, for the OSD also the
 * buffers and their data.  So the numbers answer "how much does the cache
 * cost per inode (onode) it holds", and their change between two runs
 * that differ only in a struct size is that struct's share (with the
 * allocator's rounding in the RSS one).  Metric names: docs/store.md.
 */
#include "per_item.h"

#include <stdio.h>
#include <string.h>

#include "../run.h"

/* The daemons with a count of cached items, and the metric holding it. */
static const struct {
    const char *daemon, *item, *count_metric;
} items[] = {
    { "mds", "inode", "mds_cached_inodes_count" },
    { "osd", "onode", "onodes_count" },
};

int rs_cli_per_item(rs_store *st, long long run_id, const rs_config *cfg, rs_result *res,
                    rs_err *err)
{
    const char *daemon = rs_config_string(cfg, "daemon");
    double n = 0;
    size_t i;
    int rc;

    for (i = 0; i < sizeof items / sizeof items[0]; i++)
        if (!strcmp(items[i].daemon, daemon))
            break;
    if (i == sizeof items / sizeof items[0] || !res->nsamples)
        return 0;
    if (rs_result_metric(res, items[i].count_metric, &n) || n < 1) {
        printf("  per cached %-5s  none cached at the end of the run\n", items[i].item);
        return 0;
    }
    /* a sampled run's count is of 1/k of the namespace; its samples are scaled */
    if (!strcmp(daemon, "mds"))
        n *= (double)rs_run_sample_k(cfg);
    const rs_sample *s = &res->samples[res->nsamples - 1];
    double rss = ((double)s->rss_bytes - (double)s->base_bytes) / n;
    double acc = (double)s->accounted_bytes / n;
    char rss_name[48], acc_name[48];
    snprintf(rss_name, sizeof rss_name, "rss_per_cached_%s_bytes", items[i].item);
    snprintf(acc_name, sizeof acc_name, "accounted_per_cached_%s_bytes", items[i].item);
    if ((rc = rs_result_set_metric(res, rss_name, rss, err)) ||
        (rc = rs_result_set_metric(res, acc_name, acc, err)) ||
        (rc = rs_store_metric_set(st, run_id, rss_name, rss, err)) ||
        (rc = rs_store_metric_set(st, run_id, acc_name, acc, err)))
        return rc;
    printf("  per cached %-5s %10.1f B rss   %.1f B accounted (%.0f %ss at the end)\n",
           items[i].item, rss, acc, n, items[i].item);
    return 0;
}
