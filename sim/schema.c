/* schema.c — the run config's schema; see schema.h. */
#include "schema.h"

#include <string.h>

#include "registry.h"

const rs_param rs_core_params[] = {
    { .key = "daemon", .type = RS_PT_STRING, .def = "kv",
      .doc = "daemon model (rssim list daemon)" },
    { .key = "alloc", .type = RS_PT_STRING, .def = "jemalloc",
      .doc = "allocator model (rssim list allocator)" },
    { .key = "cache", .type = RS_PT_STRING, .def = "lru",
      .doc = "cache policy (rssim list cache)" },
    { .key = "layout", .type = RS_PT_STRING, .def = "kv-map",
      .doc = "object layout preset: which allocations an object makes (rssim list layout)" },
    { .key = "trim", .type = RS_PT_STRING, .def = "periodic",
      .doc = "trim policy (rssim list trim)" },
    { .key = "seed", .type = RS_PT_INT, .def = "1",
      .doc = "seed of every random stream of the run" },
    { .key = "sample_interval", .type = RS_PT_DURATION, .def = "100ms",
      .doc = "virtual time between two samples",
      .range = "(0, )" },
    { .key = "base_bytes", .type = RS_PT_SIZE, .def = "0",
      .doc = "resident memory outside the cache (code, sessions, ...), added to rss" },
    { .key = "run_tail", .type = RS_PT_DURATION, .def = "0",
      .doc = "virtual time simulated after the last trace record (timers keep running)" },
    { .key = "steady_from", .type = RS_PT_DOUBLE, .def = "0.5",
      .doc = "fraction of the run after which samples count as steady state",
      .range = "[0, 1)" },
    { .key = "strict", .type = RS_PT_BOOL, .def = "false",
      .doc = "a record the daemon cannot apply to its state (an op on an unknown inode, an "
             "unlink of a missing dentry, a close without an open) stops the run with FILE:LINE "
             "instead of being counted in the run's metrics" },
    { .key = "alloc_tick_interval", .type = RS_PT_DURATION, .def = "100ms",
      .doc = "virtual time between two calls of the allocator's advance (decay, scavenger, "
             "background thread); 0 = never" },
    { .key = NULL },
};

static const rs_param *lookup(const void *ctx, const char *key)
{
    (void)ctx;
    const rs_param *p = rs_param_find(rs_core_params, key);
    for (const rs_registry *const *reg = rs_registries; !p && *reg; reg++)
        for (size_t i = 0; !p && i < (*reg)->count; i++)
            p = rs_param_find(rs_registry_params(*reg, i), key);
    return p;
}

/* A key that picks a plug-in must name a registered one. */
static int check(const void *ctx, const rs_config *cfg, rs_err *err)
{
    (void)ctx;
    for (const rs_registry *const *reg = rs_registries; *reg; reg++) {
        const char *name;
        const void *ops;
        if (!(*reg)->key || !(name = rs_config_raw(cfg, (*reg)->key)))
            continue;
        if (rs_registry_get(*reg, name, &ops, err))
            return rs_err_prefix(err, "%s: key '%s'", rs_config_origin(cfg, (*reg)->key),
                                 (*reg)->key);
    }
    return 0;
}

static const rs_config_schema run_schema = { .lookup = lookup, .check = check };

int rs_config_new(rs_config **r_cfg, rs_err *err)
{
    return rs_config_new_schema(r_cfg, &run_schema, err);
}

const rs_param *rs_schema_param(const char *key)
{
    return lookup(NULL, key);
}
