/*
 * registry.h — the plug-in registries, searched by name.
 *
 * Every kind of plug-in (daemon, cache policy, layout, allocator, trim
 * policy, trace format, generator) has one static const registry listing its
 * ops tables.  Each ops table starts with `const char *name`, so one lookup
 * serves all kinds.  Adding a plug-in = one file + one line in registry.c;
 * tests/test_conformance.c walks every registry automatically.
 */
#ifndef RS_REGISTRY_H
#define RS_REGISTRY_H

#include <stddef.h>

#include "../models/daemon/daemon.h"
#include "base/config.h"

typedef struct rs_registry {
    const char *kind;            /* "allocator", "cache policy", ... */
    const char *key;             /* the config key choosing one: "alloc", "cache", ... */
    const void *const *entries;  /* ops tables; each begins with const char *name */
    size_t count;
    /* Offset of the `const rs_param *params` field in this kind's ops
     * table, or (size_t)-1 when the kind has no parameters. */
    size_t params_offset;
} rs_registry;

extern const rs_registry rs_reg_alloc;
extern const rs_registry rs_reg_cache;
extern const rs_registry rs_reg_layout;
extern const rs_registry rs_reg_trim;
extern const rs_registry rs_reg_daemon;
extern const rs_registry rs_reg_trace_format;
extern const rs_registry rs_reg_gen;

/* The registry of one component kind (cache, layout, trim). */
const rs_registry *rs_registry_of_component(rs_component_kind kind);

/* All registries, NULL-terminated, for the conformance test and `--help`. */
extern const rs_registry *const rs_registries[];

/* The entry called name, or NULL. */
const void *rs_registry_find(const rs_registry *reg, const char *name);
/* The same, failing with RS_EINPUT "unknown <kind> 'name' (known: a, b)". */
int rs_registry_get(const rs_registry *reg, const char *name, const void **r_ops, rs_err *err);
const char *rs_registry_name(const rs_registry *reg, size_t i);
/* The parameter table of entry i, or NULL. */
const rs_param *rs_registry_params(const rs_registry *reg, size_t i);

#endif
