/*
 * cmd_replay.c — `rssim replay TRACE --preset P [--set key=value ...]`:
 * one run, stored in SQLite, summarised on stdout.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/sample.h"
#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../run.h"
#include "../store.h"
#include "cli.h"
#include "per_item.h"

#define MAX_SETS 256

static void usage(FILE *f)
{
    char foreign[160];
    fprintf(f,
            "usage: rssim replay TRACE --preset P [--set key=value ...] [--seed N]\n"
            "                    [--db PATH] [--label TEXT] [--format F[:SPEC]]\n\n"
            "Replay TRACE through the models the preset names, store the run (status\n"
            "running, then done or failed) in the database, and print its metrics.\n\n"
            "  -p, --preset P    models/presets/P.conf, or a path to a .conf file\n"
            "      --format F[:SPEC]\n"
            "                    read TRACE as another tool's trace, no import step:\n"
            "                    %s\n"
            "                    (e.g. csv:obj-id-col=2,obj-size-col=3; docs/trace-format.md)\n"
            "  -s, --set K=V     override one parameter (repeatable; see 'rssim list')\n"
            "      --seed N      same as --set seed=N\n"
            "      --db PATH     SQLite database (default %s)\n"
            "      --label TEXT  free text stored with the run\n"
            "      --strict      same as --set strict=true: a record the daemon cannot\n"
            "                    apply (unknown inode, close without open) is an error\n"
            "      --emit-alloc-trace FILE\n"
            "                    also write every allocator call of the run as an\n"
            "                    allocation trace (daemon alloc) for rssim-real\n"
            "  -h, --help        this help\n",
            rs_trace_codec_names('f', foreign, sizeof foreign), rs_cli_default_db());
}

static double metric(const rs_result *res, const char *name)
{
    double v = 0;
    rs_result_metric(res, name, &v);
    return v;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option opts[] = {
        { "preset", required_argument, NULL, 'p' }, { "set", required_argument, NULL, 's' },
        { "seed", required_argument, NULL, 'S' },   { "db", required_argument, NULL, 'd' },
        { "label", required_argument, NULL, 'l' },  { "help", no_argument, NULL, 'h' },
        { "emit-alloc-trace", required_argument, NULL, 'E' },
        { "strict", no_argument, NULL, 'T' },
        { "format", required_argument, NULL, 'F' },
        { NULL, 0, NULL, 0 },
    };
    const char *preset = NULL, *db = rs_cli_default_db(), *label = NULL, *emit = NULL;
    const char *format = NULL;
    char *sets[MAX_SETS + 2], seedset[64], formatset[1100];
    int nsets = 0, c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "p:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': preset = optarg; break;
        case 'T':
            optarg = "strict=true";
            /* fall through */
        case 's':
        case 'S':
            if (nsets == MAX_SETS)
                return rs_cli_usage_error("replay", "more than %d --set options", MAX_SETS);
            if (c == 'S') {
                snprintf(seedset, sizeof seedset, "seed=%s", optarg);
                sets[nsets++] = seedset;
            } else {
                sets[nsets++] = optarg;
            }
            break;
        case 'd': db = optarg; break;
        case 'l': label = optarg; break;
        case 'E': emit = optarg; break;
        case 'F': format = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1)
        return rs_cli_usage_error("replay", "expected exactly one TRACE");
    if (!preset)
        return rs_cli_usage_error("replay", "--preset is required");
    const char *trace = argv[optind];
    /* --format F is the run's key trace_format (stored with it) */
    for (int i = 0; i < nsets && format; i++)
        if (!strncmp(sets[i], "trace_format=", 13))
            return rs_cli_usage_error("replay", "--format %s and --set %s both say how to read "
                                                "the trace; give one", format, sets[i]);
    if (format) {
        if ((size_t)snprintf(formatset, sizeof formatset, "trace_format=%s", format) >= sizeof formatset)
            return rs_cli_usage_error("replay", "--format is too long");
        sets[nsets++] = formatset;
    }

    rs_err err = { 0 };
    rs_config *cfg = NULL;
    rs_store *st = NULL;
    rs_result res;
    char sha[65];
    long long run_id = 0;
    unsigned long long events = 0, wall = 0;

    rs_result_init(&res);
    rs_trace *probe = NULL;
    const char *foreign = NULL;
    if ((rc = rs_cli_build_config(preset, sets, nsets, &cfg, &err)) ||
        (rc = rs_cli_check_input(trace, &err)))
        goto out;
    /* a bad trace_format spec fails here, before a run is stored */
    foreign = rs_config_string(cfg, "trace_format");
    if (foreign && strcmp(foreign, "rssim") != 0 &&
        (rc = rs_trace_open_foreign(&probe, trace, foreign, &err)))
        goto out;
    rs_trace_close(probe);
    if ((rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)) ||
        (rc = rs_store_trace_sha256(st, trace, sha, &err)))
        goto out;
    rs_run_meta meta = {
        .kind = "predicted", .trace_path = trace, .trace_sha256 = sha, .preset = preset,
        .seed = (uint64_t)rs_config_int(cfg, "seed"), .label = label, .sweep_id = 0,
        .point_index = -1,
    };
    int64_t id;
    if ((rc = rs_store_run_begin(st, &meta, cfg, &id, &err)))
        goto out;
    run_id = id;
    rs_run_opts ropts = { .emit_alloc_trace = emit };
    if ((rc = rs_cli_execute_run_opts(st, run_id, trace, cfg, &ropts, &res, &events, &wall, &err))) {
        rs_err_prefix(&err, "run %lld failed", run_id);
        goto out;
    }
    printf("run %lld done: %llu events in %.3f s (%.2f M events/s), database %s\n", run_id, events,
           (double)wall / 1e9, wall ? (double)events / ((double)wall / 1e9) / 1e6 : 0.0, db);
    if (rs_run_sample_k(cfg) > 1)
        printf("  sampled 1/%u of directories; %s; every number below is scaled to the whole "
               "namespace\n", rs_run_sample_k(cfg), RS_SAMPLE_ERROR_NOTE);
    printf("  limit             %10.1f MiB\n", metric(&res, "limit_bytes") / 1048576.0);
    printf("  accounted steady  %10.1f MiB   peak %.1f MiB\n",
           metric(&res, "accounted_steady_bytes") / 1048576.0,
           metric(&res, "accounted_peak_bytes") / 1048576.0);
    printf("  rss steady        %10.1f MiB   peak %.1f MiB\n",
           metric(&res, "rss_steady_bytes") / 1048576.0, metric(&res, "rss_peak_bytes") / 1048576.0);
    /* a ratio with nothing to divide by is not 0: say so (a limit of 0 is
     * "no limit"; x = 1 when nothing is accounted) */
    if (metric(&res, "x_steady") < 1)
        printf("  x steady          %10.3f       (1-x)^-1 = %.3f\n", metric(&res, "x_steady"),
               1.0 / (1.0 - metric(&res, "x_steady")));
    else
        printf("  x steady          %10.3f       (1-x)^-1 = n/a (nothing accounted)\n",
               metric(&res, "x_steady"));
    if (metric(&res, "limit_bytes") > 0)
        printf("  overshoot         %10.3f       p99 %.3f  max %.3f (rss/limit)\n",
               metric(&res, "overshoot_steady"), metric(&res, "overshoot_p99"),
               metric(&res, "overshoot_max"));
    else
        printf("  overshoot                n/a       (the limit is 0: rss/limit is undefined)\n");
    printf("  trims             %10.0f       items trimmed %.0f\n", metric(&res, "trims_count"),
           metric(&res, "trimmed_items_count"));
    if (metric(&res, "health_rss_checks_count") > 0) /* the osd's whole model */
        printf("  health (osd)      %10.0f of %.0f checks RSS over osd_memory_target (max +%.1f MiB)\n",
               metric(&res, "health_rss_over_target_count"), metric(&res, "health_rss_checks_count"),
               metric(&res, "health_rss_over_target_peak_bytes") / 1048576.0);
    /* lookups, per cache that counts them (docs/models.md, "Hits and misses") */
    static const struct { const char *prefix, *label; } caches[] = {
        { "", "hits" }, { "onode_", "onode hits" }, { "buffer_", "buffer hits" },
        { "rocksdb_", "rocksdb hits" },
    };
    for (size_t i = 0; i < sizeof caches / sizeof caches[0]; i++) {
        char name[48];
        double hits, misses, ratio, bratio;
        snprintf(name, sizeof name, "%shits", caches[i].prefix);
        if (rs_result_metric(&res, name, &hits))
            continue;
        snprintf(name, sizeof name, "%smisses", caches[i].prefix);
        misses = metric(&res, name);
        printf("  %-17s %10.0f       misses %.0f", caches[i].label, hits, misses);
        snprintf(name, sizeof name, "%smiss_ratio", caches[i].prefix);
        if (rs_result_metric(&res, name, &ratio) == 0)
            printf("  miss_ratio %.4f", ratio);
        snprintf(name, sizeof name, "%sbyte_miss_ratio", caches[i].prefix);
        if (rs_result_metric(&res, name, &bratio) == 0)
            printf("  byte_miss_ratio %.4f", bratio);
        printf("\n");
    }
    double v;
    if (rs_result_metric(&res, "mds_cache_oversized_count", &v) == 0)
        printf("  MDS_CACHE_OVERSIZED %8.0f       episodes, %.1f s (cache > health threshold x "
               "limit at a tick)\n", v, metric(&res, "mds_cache_oversized_s"));
    rc = rs_cli_per_item(st, run_id, cfg, &res, &err);
out:
    rs_result_release(&res);
    rs_config_free(cfg);
    rs_store_close(st);
    return rc ? rs_cli_report(&err) : 0;
}
