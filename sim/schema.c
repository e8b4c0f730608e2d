/* schema.c — the run config's schema; see schema.h. */
#include "schema.h"

#include <stdio.h>
#include <string.h>

#include "registry.h"

const rs_param rs_core_params[] = {
    { .key = "daemon", .type = RS_PT_STRING, .def = "kv",
      .doc = "daemon model (rssim list daemon)" },
    { .key = "alloc", .type = RS_PT_STRING, .def = "jemalloc",
      .doc = "allocator model (rssim list allocator)" },
    { .key = "seed", .type = RS_PT_INT, .def = "1", .range = "[0, )",
      .doc = "the run's seed, stored with it (the replay models draw no random numbers: "
             "runs differing only in seed are identical; generators take their own --seed)" },
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
    { .key = "trace_format", .type = RS_PT_STRING, .def = "rssim",
      .doc = "read the trace as another tool's, NAME[:SPEC] (rssim list trace; "
             "docs/trace-format.md section 12); rssim: an rssim trace, text or binary as its "
             "content says" },
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
    /* a slot's key ("cache", "layout", "trim", ...) of any daemon */
    for (size_t i = 0; !p && i < rs_reg_daemon.count; i++) {
        const rs_daemon_ops *d = rs_reg_daemon.entries[i];
        for (const rs_daemon_slot *sl = d->slots; !p && sl && sl->param.key; sl++)
            if (strcmp(sl->param.key, key) == 0)
                p = &sl->param;
    }
    return p;
}

/* The plug-in cfg's key names in reg (or def when unset), failing with the
 * key and where it was set. */
static int pick(const rs_config *cfg, const rs_registry *reg, const char *key, const char *def,
                const void **r_ops, rs_err *err)
{
    const char *name = rs_config_raw(cfg, key) ? rs_config_string(cfg, key) : def;
    if (rs_registry_get(reg, name, r_ops, err))
        return rs_err_prefix(err, "%s: key '%s'", rs_config_origin(cfg, key), key);
    return 0;
}

/* A trim policy must trim the kind of target the daemon's slot offers
 * (trim.h); else fail naming the policies that would do. */
static int trim_fits(const rs_config *cfg, const rs_daemon_ops *d, const rs_daemon_slot *sl,
                     const rs_trim_ops *t, rs_err *err)
{
    unsigned needs = t->needs ? t->needs : RS_TRIM_BYTES;
    unsigned offers = sl->offers ? sl->offers : RS_TRIM_BYTES;
    char fit[256];
    size_t n = 0;

    if (needs & offers)
        return 0;
    fit[0] = '\0';
    for (size_t j = 0; j < rs_reg_trim.count && n < sizeof fit; j++) {
        const rs_trim_ops *o = rs_reg_trim.entries[j];
        if ((o->needs ? o->needs : RS_TRIM_BYTES) & offers)
            n += (size_t)snprintf(fit + n, sizeof fit - n, "%s%s", n ? ", " : "", o->name);
    }
    return rs_fail(err, RS_EINPUT,
                   "%s: key '%s': daemon %s cannot use trim policy '%s': it trims %s, the daemon "
                   "has %s (policies that fit: %s)",
                   rs_config_origin(cfg, sl->param.key), sl->param.key, d->name, t->name,
                   needs == RS_TRIM_SHARDS ? "per-shard caches" : "one cache to one byte limit",
                   offers == RS_TRIM_SHARDS ? "per-shard caches" : "one cache with one byte limit",
                   fit);
}

int rs_schema_resolve(const rs_config *cfg, rs_components *r, rs_err *err)
{
    const void *ops;
    int rc;

    memset(r, 0, sizeof *r);
    if ((rc = pick(cfg, &rs_reg_daemon, "daemon", rs_param_find(rs_core_params, "daemon")->def,
                   &ops, err)))
        return rc;
    r->daemon = ops;
    if ((rc = pick(cfg, &rs_reg_alloc, "alloc", rs_param_find(rs_core_params, "alloc")->def,
                   &ops, err)))
        return rc;
    r->alloc = ops;
    for (const rs_daemon_slot *sl = r->daemon->slots; sl && sl->param.key; sl++) {
        size_t i = (size_t)(sl - r->daemon->slots);
        if (i >= RS_DAEMON_MAX_SLOTS)
            return rs_fail(err, RS_EINTERNAL, "daemon '%s' has more than %d slots", r->daemon->name,
                           RS_DAEMON_MAX_SLOTS);
        if ((rc = pick(cfg, rs_registry_of_component(sl->kind), sl->param.key, sl->param.def,
                       &r->parts[i], err)))
            return rc;
        char why[256];
        const char *name = *(const char *const *)r->parts[i]; /* every ops table starts so */
        if (rs_param_check_choice(&sl->param, name, why, sizeof why))
            return rs_fail(err, RS_EINPUT, "%s: daemon %s cannot use %s '%s' for key '%s': %s",
                           rs_config_origin(cfg, sl->param.key), r->daemon->name,
                           rs_registry_of_component(sl->kind)->kind, name, sl->param.key, why);
        r->nparts = i + 1;
        if (sl->kind == RS_COMPONENT_TRIM && (rc = trim_fits(cfg, r->daemon, sl, r->parts[i], err)))
            return rc;
    }
    return 0;
}

/* Is key read by the run cfg describes (core, daemon, allocator, a slot's
 * key or the params of the plug-in it chose)? */
int rs_schema_reads(const rs_components *c, const char *key)
{
    if (strcmp(key, "alloc_tick_interval") == 0)
        return c->alloc->advance != NULL; /* the allocator's clock: only one that has advance */
    if (rs_param_find(rs_core_params, key) || rs_param_find(c->daemon->params, key) ||
        rs_param_find(c->alloc->params, key))
        return 1;
    for (size_t i = 0; i < c->nparts; i++) {
        const rs_daemon_slot *sl = &c->daemon->slots[i];
        const rs_registry *reg = rs_registry_of_component(sl->kind);
        if (strcmp(sl->param.key, key) == 0)
            return 1;
        for (size_t j = 0; j < reg->count; j++)
            if (reg->entries[j] == c->parts[i] && rs_param_find(rs_registry_params(reg, j), key))
                return 1;
    }
    return 0;
}

/* Who reads key, for the message: "trim policy 'mds-tick'", "daemon 'mds'". */
static void reader_of(const char *key, char *buf, size_t n)
{
    for (const rs_registry *const *reg = rs_registries; *reg; reg++)
        for (size_t i = 0; i < (*reg)->count; i++)
            if (rs_param_find(rs_registry_params(*reg, i), key)) {
                snprintf(buf, n, "%s '%s'", (*reg)->kind, rs_registry_name(*reg, i));
                return;
            }
    for (size_t i = 0; i < rs_reg_daemon.count; i++) {
        const rs_daemon_ops *d = rs_reg_daemon.entries[i];
        for (const rs_daemon_slot *sl = d->slots; sl && sl->param.key; sl++)
            if (strcmp(sl->param.key, key) == 0) {
                snprintf(buf, n, "daemon '%s', where it picks a component", d->name);
                return;
            }
    }
    snprintf(buf, n, "no plug-in");
}

/* The preset a config came from, from where its daemon key was set. */
static void preset_of(const rs_config *cfg, char *buf, size_t n)
{
    const char *o = rs_config_origin(cfg, "daemon");
    const char *slash = strrchr(o, '/');
    const char *base = slash ? slash + 1 : o;
    const char *dot = strstr(base, ".conf:");
    if (!rs_config_raw(cfg, "daemon") || !dot) {
        snprintf(buf, n, "%s", "");
        return;
    }
    snprintf(buf, n, " (preset %.*s)", (int)(dot - base), base);
}

/* Every plug-in name must exist, and every key must be read by this run. */
static int check(const void *ctx, const rs_config *cfg, rs_err *err)
{
    (void)ctx;
    rs_components c;
    int rc;

    if ((rc = rs_schema_resolve(cfg, &c, err)))
        return rc;
    for (size_t i = 0; i < rs_config_count(cfg); i++) {
        const char *key, *value;
        rs_config_at(cfg, i, &key, &value);
        if (rs_schema_reads(&c, key))
            continue;
        char who[160], preset[96];
        reader_of(key, who, sizeof who);
        preset_of(cfg, preset, sizeof preset);
        return rs_fail(err, RS_EINPUT,
                       "%s: key '%s' is not used by daemon %s%s with alloc=%s (it is read by %s; "
                       "'rssim list daemon' shows what each daemon reads)",
                       rs_config_origin(cfg, key), key, c.daemon->name, preset, c.alloc->name, who);
    }
    return 0;
}

int rs_schema_prune(rs_config *cfg, void (*note)(void *ctx, const char *key, const char *origin),
                    void *ctx, rs_err *err)
{
    rs_components c;
    int rc, chosen = !rs_config_from_file(cfg, "daemon") && rs_config_raw(cfg, "daemon");

    if ((rc = rs_schema_resolve(cfg, &c, err)))
        return rc;
    chosen |= !rs_config_from_file(cfg, "alloc") && rs_config_raw(cfg, "alloc");
    for (size_t i = 0; i < c.nparts; i++) {
        const char *k = c.daemon->slots[i].param.key;
        chosen |= !rs_config_from_file(cfg, k) && rs_config_raw(cfg, k);
    }
    if (!chosen)
        return 0;
    for (size_t i = 0; i < rs_config_count(cfg);) {
        const char *key, *value;
        rs_config_at(cfg, i, &key, &value);
        if (!rs_config_from_file(cfg, key) || rs_schema_reads(&c, key) || !rs_config_param(cfg, key)) {
            i++;
            continue;
        }
        if (note)
            note(ctx, key, rs_config_origin(cfg, key));
        rs_config_unset(cfg, key);
    }
    return 0;
}

int rs_schema_finish(rs_config *cfg, void (*note)(void *ctx, const char *key, const char *origin),
                     void *ctx, rs_err *err)
{
    int rc = rs_schema_prune(cfg, note, ctx, err);
    return rc ? rc : rs_config_validate(cfg, err);
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
