/*
 * test_plan_key.c — the key `rssim plan` searches is the one the run
 * enforces (rs_plan_limit_key).  For every preset: the key chosen is the
 * one the preset's daemon and trim policy are meant to be limited by (the
 * table below, written from the presets' sources: Luminous and Octopus
 * BlueStore without autotune size their cache by bluestore_cache_size,
 * autotune steers to osd_memory_target, the MDS by mds_cache_memory_limit),
 * the run accepts the key, and a replay of a small trace at two values of
 * it enforces two different limits (limit_bytes grows with the key).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gen_util.h"
#include "presets.h"

/* scratch.h helper this test does not use */
static const char *path_in(const char *name) __attribute__((unused));
#include "sim/plan.h"
#include "sim/registry.h"
#include "sim/run.h"
#include "sim/schema.h"

static const struct {
    const char *preset, *key; /* NULL key: nothing to plan */
} expected[] = {
    { "alloc-replay", NULL },
    { "kv-fifo", "kv_cache_limit" },
    { "kv-ideal", "kv_cache_limit" },
    { "kv-lru", "kv_cache_limit" },
    { "kv-small", "kv_cache_limit" },
    { "mds-luminous", "mds_cache_memory_limit" },
    { "mds-octopus", "mds_cache_memory_limit" },
    { "mds-pacific", "mds_cache_memory_limit" },
    { "mds-quincy", "mds_cache_memory_limit" },
    { "mds-reef", "mds_cache_memory_limit" },
    { "mds-squid", "mds_cache_memory_limit" },
    { "mds-tentacle", "mds_cache_memory_limit" },
    { "osd-autotune", "osd_memory_target" },
    { "osd-luminous-200ms", "bluestore_cache_size" },
    { "osd-luminous-50ms", "bluestore_cache_size" },
    { "osd-octopus", "bluestore_cache_size" },
    { "osd-pacific", "osd_memory_target" },
    { "osd-quincy", "osd_memory_target" },
    { "osd-reef", "osd_memory_target" },
    { "osd-squid", "osd_memory_target" },
};

static const char *trace_for(const char *daemon)
{
    static char paths[3][300];
    static const char *kinds[3] = { "kv", "mds", "osd" };
    static const char *gens[3] = { "kv", "kernel-build", "fio" };
    static const char *const opts[3][6] = {
        { "keys=4000", "events=20000", "rate=20000", NULL },
        { "clients=2", "builds=1", "events=20000", NULL },
        { "rw=randread", "bs=64K", "size=256M", "numjobs=2", "number-ios=4000", NULL },
    };
    for (int i = 0; i < 3; i++) {
        if (strcmp(kinds[i], daemon))
            continue;
        if (!paths[i][0]) {
            rs_err err;
            snprintf(paths[i], sizeof paths[i], "%s/%s.bin", dir, kinds[i]);
            const rs_gen_ops *g = rs_registry_find(&rs_reg_gen, gens[i]);
            CHECK_MSG(g && gen_with(g, paths[i], "binary", opts[i], NULL, 0, &err) == 0, "gen %s",
                      gens[i]);
        }
        return paths[i];
    }
    return NULL;
}

/* The limit a replay of preset + key=value enforced (its limit_bytes metric). */
static double limit_at(const rs_config *base, const char *daemon, const char *key,
                       const char *value)
{
    rs_config *cfg;
    rs_err err = { 0 };
    rs_result res;
    double v = -1;

    CHECK(rs_config_clone(base, &cfg, &err) == 0);
    CHECK_MSG(rs_config_set(cfg, key, value, &err) == 0 && rs_config_validate(cfg, &err) == 0,
              "%s=%s refused: %s", key, value, err.msg);
    rs_result_init(&res);
    int rc = rs_run_execute(trace_for(daemon), cfg, &res, NULL, &err);
    CHECK_MSG(rc == 0, "replay with %s=%s: %s", key, value, err.msg);
    if (rc == 0)
        CHECK(rs_result_metric(&res, "limit_bytes", &v) == 0);
    rs_result_release(&res);
    rs_config_free(cfg);
    return v;
}

static void test_preset(const char *presets, const char *file)
{
    char path[700], name[256];
    rs_config *base;
    rs_err err = { 0 };
    const char *key = NULL;
    int daemons = 0;

    snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - 5), file);
    snprintf(path, sizeof path, "%s/%s", presets, file);
    CHECK(rs_config_new(&base, &err) == 0);
    CHECK_MSG(rs_config_load_file(base, path, &err) == 0, "%s", err.msg);
    int rc = rs_plan_limit_key(base, &key, &daemons, &err);
    size_t i = 0, n = sizeof expected / sizeof expected[0];
    while (i < n && strcmp(expected[i].preset, name))
        i++;
    CHECK_MSG(i < n, "preset %s: add it to this test's table", name);
    if (i < n && !expected[i].key) {
        CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, "no memory limit key"), "%s: %s", name,
                  rc ? err.msg : key);
    } else if (i < n) {
        CHECK_MSG(rc == 0 && !strcmp(key, expected[i].key), "%s: got %s, want %s", name,
                  rc ? err.msg : key, expected[i].key);
        rs_components c;
        CHECK(rs_schema_resolve(base, &c, &err) == 0);
        CHECK_MSG(daemons == !strcmp(key, c.daemon->limit_key), "%s: is_daemons %d", name, daemons);
        const char *d = rs_config_string(base, "daemon");
        int osd = !strcmp(d, "osd");
        double lo = limit_at(base, d, key, osd ? "1G" : "8M");
        double hi = limit_at(base, d, key, osd ? "4G" : "32M");
        CHECK_MSG(lo > 0 && hi > lo, "%s: %s enforces %.0f and %.0f bytes", name, key, lo, hi);
    }
    rs_config_free(base);
}

int main(void)
{
    return for_each_preset("plan-key", test_preset);
}
