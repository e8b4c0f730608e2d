/*
 * runner.c — what `rssim replay` and `rssim sweep` share: building a run's
 * config from a preset and --set overrides, and running one stored run so
 * that it ends 'done' with all its rows or 'failed' with a reason.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "../schema.h"
#include "../base/config.h"
#include "../run.h"
#include "../store.h"
#include "cli.h"

int rs_cli_preset_path(const char *name, char *r_path, unsigned long cap, rs_err *err)
{
    size_t n = strlen(name);
    const char *dir = rs_cli_data_dir(RS_CLI_PRESETS);

    if (!n)
        return rs_fail(err, RS_EINPUT, "empty preset name");
    if (strchr(name, '/') || (n > 5 && strcmp(name + n - 5, ".conf") == 0)) {
        if ((size_t)snprintf(r_path, cap, "%s", name) >= cap)
            return rs_fail(err, RS_EINPUT, "preset path too long: '%s'", name);
        return 0;
    }
    if ((size_t)snprintf(r_path, cap, "%s/%s.conf", dir, name) >= cap)
        return rs_fail(err, RS_EINPUT, "preset path too long: '%s'", name);
    return 0;
}

int rs_cli_check_input(const char *path, rs_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return rs_fail(err, RS_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return rs_fail(err, RS_EINPUT, "'%s' is not a regular file", path);
    if (access(path, R_OK) != 0)
        return rs_fail(err, RS_EINPUT, "cannot read '%s': %s", path, strerror(errno));
    return 0;
}

static void note_dropped(void *ctx, const char *key, const char *origin)
{
    (void)ctx;
    fprintf(stderr, "rssim: note: %s: key '%s' is not read with the plug-ins chosen; left out of "
            "the run\n", origin, key);
}

int rs_cli_build_config(const char *preset, char *const *sets, int nsets,
                        rs_config **r_cfg, rs_err *err)
{
    char path[4096];
    rs_config *cfg = NULL;
    int rc;

    if ((rc = rs_config_new(&cfg, err)))
        return rc;
    if (preset && ((rc = rs_cli_preset_path(preset, path, sizeof path, err)) ||
                   (rc = rs_config_load_file(cfg, path, err))))
        goto fail;
    for (int i = 0; i < nsets; i++)
        if ((rc = rs_config_set_kv(cfg, sets[i], "--set", err)))
            goto fail;
    if ((rc = rs_schema_finish(cfg, note_dropped, NULL, err)))
        goto fail;
    *r_cfg = cfg;
    return 0;
fail:
    rs_config_free(cfg);
    return rc;
}

int rs_cli_execute_run(rs_store *st, long long run_id, const char *trace, const rs_config *cfg,
                       const char *emit_alloc_trace, rs_result *r_res, unsigned long long *r_events,
                       unsigned long long *r_wall_ns, rs_err *err)
{
    rs_run_opts opts = { .emit_alloc_trace = emit_alloc_trace };
    return rs_cli_execute_run_opts(st, run_id, trace, cfg, &opts, r_res, r_events, r_wall_ns, err);
}

void rs_cli_note_burst(long long run_id, const char *trace, const rs_run_stats *st)
{
    if (!st->burst_records)
        return;
    fprintf(stderr, "rssim: note: run %lld: all %llu records of %s are at one time (t_ns %llu) and were "
            "replayed as they came, so no trim, sample or allocator tick fell between them: its result "
            "is the memory of one burst, not of a workload over time (stored as burst_records_count). "
            "Give the records their times; an osd trace whose records share one time (rssim gen fio) "
            "is replayed as a closed loop with --set client_iodepth=D, fio's --iodepth\n",
            run_id, (unsigned long long)st->burst_records, trace, (unsigned long long)st->burst_t_ns);
}

int rs_cli_execute_run_opts(rs_store *st, long long run_id, const char *trace, const rs_config *cfg,
                            const rs_run_opts *opts, rs_result *r_res,
                            unsigned long long *r_events, unsigned long long *r_wall_ns, rs_err *err)
{
    rs_run_stats stats = { 0 };
    rs_err ignored;
    unsigned long long t0 = rs_cli_now_ns();
    int rc = rs_run_execute_opts(trace, cfg, opts, r_res, &stats, err);
    unsigned long long wall = rs_cli_now_ns() - t0;

    if (rc) {
        rs_store_run_fail(st, run_id, err->msg, &ignored);
        return rc;
    }
    if ((rc = rs_store_run_finish(st, run_id, r_res, stats.events, wall, err)))
        return rc;
    rs_cli_note_burst(run_id, trace, &stats);
    if (r_events)
        *r_events = stats.events;
    if (r_wall_ns)
        *r_wall_ns = wall;
    return 0;
}
