/*
 * cmd_observe.c — `rssim observe import`: a capture set of a daemon's own
 * outputs (sim/observe.h, docs/observe.md) stored as one run of kind
 * 'observed', in one transaction (rs_store_run_import).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/config.h"
#include "../observe.h"
#include "../store.h"
#include "cli.h"

#define MIB 1048576.0

/* The params of an observed run (what the capture was of). */
static const rs_param observe_params[] = {
    { .key = "daemon", .type = RS_PT_STRING, .def = "mds", .choices = "mds|osd",
      .doc = "the observed daemon" },
    { .key = "release", .type = RS_PT_STRING, .def = "pacific", .choices = "pacific|quincy|reef",
      .doc = "its Ceph release (the dumps' shapes)" },
    { .key = "mds_cache_memory_limit", .type = RS_PT_SIZE, .def = "0",
      .doc = "the MDS's cache limit (from config_get; 0: not captured)" },
    { .key = "osd_memory_target", .type = RS_PT_SIZE, .def = "0",
      .doc = "the OSD's memory target (from config_get; 0: not captured)" },
    { .key = "steady_from", .type = RS_PT_DOUBLE, .def = "0.5", .range = "[0, 1)",
      .doc = "steady state from this fraction of the capture on" },
    { .key = "capture_start", .type = RS_PT_STRING, .def = "0",
      .doc = "Unix time of the first capture (s)" },
    { .key = NULL },
};

static void observe_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim observe import FILE|DIR... [-o DB] [--daemon mds|osd]\n"
            "                            [--release pacific|quincy|reef] [--label L]\n"
            "                            [--steady-from F]\n\n"
            "Store what a live daemon said about itself over time as one run of kind\n"
            "'observed' (scripts/capture-observations writes such a set).  Each file is\n"
            "the raw output of one command, named T-WHAT[.EXT]: T the capture's Unix time\n"
            "in seconds, WHAT one of dump_mempools, perf_dump, cache_status, session_ls,\n"
            "config_get (JSON, from 'ceph daemon X ...'), heap_stats (tcmalloc's text),\n"
            "proc_status (/proc/PID/status), ps_rss ('ps -o rss -p PID').  Files of one T\n"
            "are one sample; every sample needs an RSS and the accounted (mempool) bytes.\n\n"
            "  -o, --db DB          SQLite database (default %s)\n"
            "      --daemon D       mds (default) or osd: which pools are its cache\n"
            "      --release R      pacific (default), quincy or reef: the dumps' shapes\n"
            "      --label L        free text\n"
            "      --steady-from F  steady state from this fraction on (default 0.5)\n"
            "  -h, --help           this help\n",
            rs_cli_default_db());
}

static int observe_import(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'o' },      { "daemon", required_argument, NULL, 'd' },
        { "release", required_argument, NULL, 'r' }, { "label", required_argument, NULL, 'l' },
        { "steady-from", required_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *daemon = "mds", *release = "pacific", *label = NULL,
               *steady = "0.5";
    rs_err err = { 0 };
    rs_config *cfg = NULL;
    rs_observe *ob = NULL;
    rs_store *st = NULL;
    rs_result res;
    int c, rc = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': db = optarg; break;
        case 'd': daemon = optarg; break;
        case 'r': release = optarg; break;
        case 'l': label = optarg; break;
        case 's': steady = optarg; break;
        case 'h': observe_usage(stdout); return 0;
        default: observe_usage(stderr); return 2;
        }
    }
    if (optind >= argc)
        return rs_cli_usage_error("observe import", "no capture FILE or DIR given");
    rs_result_init(&res);
    if ((rc = rs_observe_new(&ob, daemon, release, &err)) ||
        (rc = rs_config_new_with(&cfg, observe_params, &err)) ||
        (rc = rs_config_set(cfg, "daemon", daemon, &err)) ||
        (rc = rs_config_set(cfg, "release", release, &err)) ||
        (rc = rs_config_set(cfg, "steady_from", steady, &err)) ||
        (rc = rs_config_validate(cfg, &err)))
        goto report;
    for (int i = optind; i < argc && !rc; i++)
        rc = rs_observe_add(ob, argv[i], &err);
    if (rc)
        goto report;
    uint64_t limit = 0;
    double t0 = 0;
    if ((rc = rs_observe_result(ob, rs_config_double(cfg, "steady_from"), &res, &limit, &t0,
                                &err)))
        goto report;
    char v[64];
    snprintf(v, sizeof v, "%llu", (unsigned long long)limit);
    if ((rc = rs_config_set(cfg, strcmp(daemon, "mds") ? "osd_memory_target"
                                                       : "mds_cache_memory_limit", v, &err)))
        goto report;
    snprintf(v, sizeof v, "%.3f", t0);
    if ((rc = rs_config_set(cfg, "capture_start", v, &err)))
        goto report;
    for (const rs_param *p = observe_params; p->key; p++)
        if (!rs_config_raw(cfg, p->key) && (rc = rs_config_set(cfg, p->key, p->def, &err)))
            goto report;

    uint64_t end_ns = res.samples[res.nsamples - 1].t_ns;
    int64_t run_id = 0;
    rs_run_meta meta = { .kind = "observed", .seed = 0, .label = label, .sweep_id = 0,
                         .point_index = -1 };
    if ((rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)) ||
        (rc = rs_store_run_import(st, &meta, cfg, &res, 0, end_ns, &run_id, &err)))
        goto report;
    double rss = NAN, acc = NAN, x = NAN;
    rs_result_metric(&res, "rss_steady_bytes", &rss);
    rs_result_metric(&res, "accounted_steady_bytes", &acc);
    rs_result_metric(&res, "x_steady", &x);
    printf("run %lld (observed): %zu samples from %zu files over %.1f s, rss steady %.1f MiB, "
           "accounted steady %.1f MiB, x_steady %.3f\n", (long long)run_id, res.nsamples,
           rs_observe_files(ob), (double)end_ns / 1e9, rss / MIB, acc / MIB, x);
report:
    if (rc)
        rc = rs_cli_report(&err);
    rs_result_release(&res);
    rs_store_close(st);
    rs_observe_free(ob);
    rs_config_free(cfg);
    return rc;
}

int cmd_observe(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "import"))
        return observe_import(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        observe_usage(stdout);
        return 0;
    }
    if (argc < 2)
        return rs_cli_usage_error("observe", "no subcommand (import)");
    return rs_cli_usage_error("observe", "unknown subcommand '%s' (import)", argv[1]);
}
