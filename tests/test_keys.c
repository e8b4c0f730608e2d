/*
 * test_keys.c — no key silently does nothing.  For every preset and every
 * key rssim declares anywhere (core, any daemon, any plug-in, any slot):
 * a key none of the run's plug-ins reads is refused, naming the daemon and
 * the preset; a key they do read is accepted, and a replay of a small trace
 * then really reads it (the config counts its getter calls).
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
#include "sim/registry.h"
#include "sim/run.h"
#include "sim/schema.h"

/* A small trace of each daemon kind, made once. */
static const char *trace_for(const char *daemon)
{
    static char paths[4][300];
    static const char *kinds[4] = { "kv", "alloc", "mds", "osd" };
    static const char *gens[4] = { "kv", "alloc", "kernel-build", "fio" };
    static const char *const opts[4][6] = {
        { "keys=500", "events=4000", "rate=4000", NULL },
        { "count=500", "steps=500", NULL },
        { "clients=2", "builds=1", "events=6000", NULL },
        { "rw=randrw", "bs=16K", "size=8M", "numjobs=2", "number-ios=500", NULL },
    };
    for (int i = 0; i < 4; i++) {
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

/* Does the run c describes read key?  Worked out from the declarations
 * alone, independently of sim/schema.c. */
static int expected_used(const rs_components *c, const char *key)
{
    if (!strcmp(key, "alloc_tick_interval"))
        return c->alloc->advance != NULL;
    if (rs_param_find(rs_core_params, key) || rs_param_find(c->daemon->params, key) ||
        rs_param_find(c->alloc->params, key))
        return 1;
    for (size_t i = 0; i < c->nparts; i++) {
        const rs_daemon_slot *sl = &c->daemon->slots[i];
        if (!strcmp(sl->param.key, key))
            return 1;
        const rs_registry *reg = rs_registry_of_component(sl->kind);
        for (size_t j = 0; j < reg->count; j++)
            if (reg->entries[j] == c->parts[i] && rs_param_find(rs_registry_params(reg, j), key))
                return 1;
    }
    return 0;
}

/* Every declared run key, once: core, plug-ins' params, daemons' slots. */
static size_t all_keys(const rs_param **out, size_t cap)
{
    size_t n = 0;
#define ADD(p)                                                                 \
    do {                                                                       \
        int dup = 0;                                                           \
        for (size_t k = 0; k < n; k++)                                         \
            dup |= !strcmp(out[k]->key, (p)->key);                             \
        if (!dup && n < cap)                                                   \
            out[n++] = (p);                                                    \
    } while (0)
    for (const rs_param *p = rs_core_params; p->key; p++)
        ADD(p);
    for (const rs_registry *const *reg = rs_registries; *reg; reg++) {
        if (*reg == &rs_reg_gen)
            continue; /* generator options are not run keys */
        for (size_t i = 0; i < (*reg)->count; i++)
            for (const rs_param *p = rs_registry_params(*reg, i); p && p->key; p++)
                ADD(p);
    }
    for (size_t i = 0; i < rs_reg_daemon.count; i++) {
        const rs_daemon_ops *d = rs_reg_daemon.entries[i];
        for (const rs_daemon_slot *sl = d->slots; sl && sl->param.key; sl++)
            ADD(&sl->param);
    }
#undef ADD
    return n;
}

/* Replay cfg on a small trace; every key it holds must have been read. */
static void check_all_read(const char *what, rs_config *cfg)
{
    rs_components c;
    rs_err err;
    rs_result res;
    CHECK(rs_schema_resolve(cfg, &c, &err) == 0);
    const char *trace = trace_for(c.daemon->trace_daemon);
    /* small limits so every policy trims */
    rs_result_init(&res);
    int rc = rs_run_execute(trace, cfg, &res, NULL, &err);
    CHECK_MSG(rc == 0, "%s: %s", what, err.msg);
    rs_result_release(&res);
    for (size_t i = 0; rc == 0 && i < rs_config_count(cfg); i++) {
        const char *key, *value;
        rs_config_at(cfg, i, &key, &value);
        if (!strcmp(key, "seed"))
            continue; /* stored with the run; see its doc in sim/schema.c */
        CHECK_MSG(rs_config_was_read(cfg, key), "%s: key '%s' = '%s' was accepted but never read",
                  what, key, value);
    }
}

static void test_preset(const char *presets, const char *name)
{
    char path[1100], what[1200];
    const rs_param *keys[512];
    size_t nkeys = all_keys(keys, 512);
    rs_config *base;
    rs_components c;
    rs_err err;

    snprintf(path, sizeof path, "%s/%s", presets, name);
    CHECK(rs_config_new(&base, &err) == 0);
    CHECK_MSG(rs_config_load_file(base, path, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_config_validate(base, &err) == 0, "preset %s: %s", name, err.msg);
    CHECK(rs_schema_resolve(base, &c, &err) == 0);
    snprintf(what, sizeof what, "preset %s as written", name);
    rs_config *copy;
    CHECK(rs_config_clone(base, &copy, &err) == 0);
    check_all_read(what, copy);
    rs_config_free(copy);

    char preset[300];
    snprintf(preset, sizeof preset, "(preset %.*s)", (int)(strlen(name) - 5), name);
    size_t used = 0, refused = 0;
    for (size_t k = 0; k < nkeys; k++) {
        const rs_param *p = keys[k];
        rs_config *cfg;
        CHECK(rs_config_clone(base, &cfg, &err) == 0);
        /* a slot key keeps the preset's choice; every other key its default */
        const char *v = rs_config_raw(base, p->key) ? rs_config_raw(base, p->key) : p->def;
        if (!strcmp(p->key, "daemon") || !strcmp(p->key, "alloc"))
            v = rs_config_string(base, p->key);
        for (size_t i = 0; i < c.nparts; i++)
            if (!strcmp(c.daemon->slots[i].param.key, p->key))
                v = rs_config_string(base, p->key);
        CHECK(rs_config_set(cfg, p->key, v, &err) == 0);
        int want = expected_used(&c, p->key);
        int rc = rs_config_validate(cfg, &err);
        snprintf(what, sizeof what, "preset %s + %s=%s", name, p->key, v);
        if (want) {
            CHECK_MSG(rc == 0, "%s: refused: %s", what, err.msg);
            if (rc == 0)
                check_all_read(what, cfg);
            used++;
        } else {
            char msg[600];
            snprintf(msg, sizeof msg, "key '%s' is not used by daemon %s %s", p->key,
                     c.daemon->name, preset);
            CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, msg), "%s: got '%s', want '%s'", what,
                      rc ? err.msg : "accepted", msg);
            refused++;
        }
        rs_config_free(cfg);
    }
    CHECK_MSG(used > 3 && refused > 3, "%s: %zu used, %zu refused", name, used, refused);
    rs_config_free(base);
}

int main(void)
{
    return for_each_preset("keys", test_preset);
}
