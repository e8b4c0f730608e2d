/*
 * registry.c — every plug-in rssim knows, one line each.  Adding a plug-in:
 * write its file, add its extern and its line here; the conformance test
 * (tests/test_conformance.c) then checks it with the others.
 */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "../models/alloc/alloc.h"
#include "../models/cache/cache.h"
#include "../models/daemon/daemon.h"
#include "../models/layout/layout.h"
#include "../models/trim/trim.h"
#include "../traces/gen/gen.h"
#include "../traces/trace.h"

extern const rs_alloc_ops rs_alloc_ideal, rs_alloc_jemalloc, rs_alloc_glibc, rs_alloc_tcmalloc;
extern const rs_cache_ops rs_cache_lru, rs_cache_fifo, rs_cache_lru_mid, rs_cache_bluestore_onode_lru, rs_cache_bluestore_2q,
    rs_cache_rocksdb_lru;
extern const rs_layout_ops rs_layout_kv_object, rs_layout_kv_map;
extern const rs_layout_ops rs_layout_mds_luminous, rs_layout_mds_pr19954, rs_layout_mds_octopus;
extern const rs_layout_ops rs_layout_mds_pacific, rs_layout_mds_quincy, rs_layout_mds_reef, rs_layout_mds_squid,
    rs_layout_mds_tentacle;
extern const rs_layout_ops rs_layout_bluestore_onode, rs_layout_bluestore_buffer;
extern const rs_trim_ops rs_trim_periodic, rs_trim_on_insert, rs_trim_autotune, rs_trim_mds_tick, rs_trim_mds_upkeep;
extern const rs_trim_ops rs_trim_bluestore_mempool, rs_trim_bluestore_on_add, rs_trim_bluestore_autotune;
extern const rs_daemon_ops rs_daemon_kv, rs_daemon_alloc, rs_daemon_osd, rs_daemon_mds;
extern const rs_gen_ops rs_gen_kv, rs_gen_alloc, rs_gen_fio, rs_gen_kernel_build;

#define ENTRIES(...) ((const void *const[]){ __VA_ARGS__ })
#define COUNT(...) (sizeof((const void *const[]){ __VA_ARGS__ }) / sizeof(const void *))
#define REGISTRY(var, kind_, key_, type, ...)                                  \
    const rs_registry var = {                                                  \
        .kind = kind_, .key = key_, .entries = ENTRIES(__VA_ARGS__),           \
        .count = COUNT(__VA_ARGS__), .params_offset = offsetof(type, params),  \
    }

REGISTRY(rs_reg_alloc, "allocator", "alloc", rs_alloc_ops, &rs_alloc_ideal, &rs_alloc_jemalloc, &rs_alloc_glibc, &rs_alloc_tcmalloc);
REGISTRY(rs_reg_cache, "cache policy", "cache", rs_cache_ops, &rs_cache_lru, &rs_cache_fifo, &rs_cache_lru_mid,
         &rs_cache_bluestore_onode_lru, &rs_cache_bluestore_2q, &rs_cache_rocksdb_lru);
REGISTRY(rs_reg_layout, "layout", "layout", rs_layout_ops, &rs_layout_kv_object, &rs_layout_kv_map, &rs_layout_mds_luminous, &rs_layout_mds_pr19954, &rs_layout_mds_octopus,
         &rs_layout_mds_pacific, &rs_layout_mds_quincy, &rs_layout_mds_reef, &rs_layout_mds_squid,
         &rs_layout_mds_tentacle,
         &rs_layout_bluestore_onode, &rs_layout_bluestore_buffer);
REGISTRY(rs_reg_trim, "trim policy", "trim", rs_trim_ops, &rs_trim_periodic, &rs_trim_on_insert, &rs_trim_autotune, &rs_trim_mds_tick, &rs_trim_mds_upkeep,
         &rs_trim_bluestore_mempool, &rs_trim_bluestore_on_add, &rs_trim_bluestore_autotune);
REGISTRY(rs_reg_daemon, "daemon", "daemon", rs_daemon_ops, &rs_daemon_kv, &rs_daemon_alloc, &rs_daemon_osd, &rs_daemon_mds);
REGISTRY(rs_reg_gen, "generator", NULL, rs_gen_ops, &rs_gen_kv, &rs_gen_alloc, &rs_gen_fio,
         &rs_gen_kernel_build);

/* The trace codecs (readers/writers and importers): traces/ keeps the one
 * list, RS_TRACE_CODECS, since the reader below the registry sniffs it. */
const rs_registry rs_reg_trace_format = {
    .kind = "trace format",
    .key = NULL,
    .entries = ENTRIES(RS_TRACE_CODECS),
    .count = COUNT(RS_TRACE_CODECS),
    .params_offset = (size_t)-1,
};

const rs_registry *const rs_registries[] = {
    &rs_reg_daemon, &rs_reg_cache, &rs_reg_layout, &rs_reg_alloc, &rs_reg_trim,
    &rs_reg_trace_format, &rs_reg_gen, NULL,
};

const rs_registry *rs_registry_of_component(rs_component_kind kind)
{
    switch (kind) {
    case RS_COMPONENT_CACHE: return &rs_reg_cache;
    case RS_COMPONENT_LAYOUT: return &rs_reg_layout;
    case RS_COMPONENT_TRIM: return &rs_reg_trim;
    }
    return NULL;
}

const char *rs_registry_name(const rs_registry *reg, size_t i)
{
    return *(const char *const *)reg->entries[i];
}

const rs_param *rs_registry_params(const rs_registry *reg, size_t i)
{
    if (reg->params_offset == (size_t)-1)
        return NULL;
    return *(const rs_param *const *)((const char *)reg->entries[i] + reg->params_offset);
}

const void *rs_registry_find(const rs_registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->count; i++)
        if (strcmp(rs_registry_name(reg, i), name) == 0)
            return reg->entries[i];
    return NULL;
}

int rs_registry_get(const rs_registry *reg, const char *name, const void **r_ops, rs_err *err)
{
    char known[512];
    size_t n = 0;

    if ((*r_ops = rs_registry_find(reg, name)))
        return 0;
    known[0] = '\0';
    for (size_t i = 0; i < reg->count && n < sizeof known; i++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                              rs_registry_name(reg, i));
    return rs_fail(err, RS_EINPUT, "unknown %s '%s' (known: %s)", reg->kind, name, known);
}
