/*
 * kv_map.c — layout "kv-map": a cached object indexed by name in a
 * std::map<std::string, T*>, as Ceph's caches index theirs (CDir::items,
 * BlueStore's onode map).  Each object makes:
 *   1. the object itself, object_bytes, tracked (a mempool class);
 *   2. the map node, 72 B: 32 B _Rb_tree_node_base (colour, parent, left,
 *      right) + 32 B std::string (SSO) + 8 B pointer;
 *   3. the key's heap buffer, key_bytes + 1, only when the key is longer
 *      than 15 characters (libstdc++'s SSO capacity).
 * Sizes: libstdc++ 12 x86_64, measured by counting operator new
 * (100k elements: map<string(15),u64> 72 B/elem,
 * map<string(40),u64> 72 + 41 B/elem).  Whether the container's parts are
 * counted is a parameter: false is the MDS before PR 19954 (containers
 * outside the mempool), true after it.
 */
#include <stdlib.h>

#include "layout.h"

#define MAP_NODE_BYTES 72u  /* rb node base 32 + std::string 32 + T* 8 */
#define SSO_CAPACITY 15u    /* libstdc++ std::string local buffer */

typedef struct kv_map {
    uint64_t key_bytes;
    uint32_t containers_tracked;
} kv_map;

static const rs_param params[] = {
    { .key = "kv_key_bytes", .type = RS_PT_INT, .def = "40",
      .doc = "length of each object's name in characters; > 15 puts it on the heap (key_bytes+1 B)",
      .range = "[1, 65535]" },
    { .key = "kv_containers_tracked", .type = RS_PT_BOOL, .def = "false",
      .doc = "count map nodes and key strings in accounted_bytes (a mempool container)" },
    { .key = NULL },
};

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    int64_t key_bytes = rs_config_int(cfg, "kv_key_bytes");
    kv_map *m = malloc(sizeof *m);
    if (!m)
        return rs_fail(err, RS_ENOMEM, "out of memory for layout kv-map");
    m->key_bytes = (uint64_t)key_bytes;
    m->containers_tracked = rs_config_bool(cfg, "kv_containers_tracked") ? 1 : 0;
    *r_state = m;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

static unsigned parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts)
{
    const kv_map *m = state;
    unsigned n = 0;
    (void)aux;
    r_parts[n++] = (rs_part){ .size_bytes = object_bytes, .tracked = 1, .name = "object" };
    r_parts[n++] = (rs_part){ .size_bytes = MAP_NODE_BYTES, .tracked = m->containers_tracked,
                              .name = "map node" };
    if (m->key_bytes > SSO_CAPACITY)
        r_parts[n++] = (rs_part){ .size_bytes = m->key_bytes + 1, .tracked = m->containers_tracked,
                                  .name = "key string" };
    return n;
}

const rs_layout_ops rs_layout_kv_map = {
    .name = "kv-map",
    .doc = "object + std::map<std::string,T*> node (72 B) + heap key string when > 15 chars",
    .params = params,
    .max_parts = 3,
    .create = create,
    .destroy = destroy,
    .parts = parts,
};
