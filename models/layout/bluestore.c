/*
 * bluestore.c — what a BlueStore OSD allocates per cached object, in its
 * mempools (every part tracked: dump_mempools counts them).
 *
 *   bluestore-onode   an onode: Onode (616 B, bluestore_cache_onode) and one
 *                     allocation of osd_onode_extra_bytes for what hangs off
 *                     it in bluestore_cache_other (264 B: one Extent 48 +
 *                     Blob 104 + SharedBlob 112); object_bytes is unused.
 *   bluestore-buffer  a cached range: Buffer (96 B, bluestore_cache_other)
 *                     and its data at the requested length (bluestore_cache_
 *                     data; buffer_raw.h accounts the requested length);
 *                     object_bytes 0 is a 2Q warm_out ghost, Buffer only.
 *
 * Sizes: sizeof at v15.2.5 (rssim's own measurement: clang 14, libstdc++ 12, x86_64; 616 B also in a
 * field dump, hotsos #480).  One extent per cached onode is a choice: a
 * fully written 4 MiB object has far more (PR 12568, PR 32697: 25 KB/onode
 * in a write-heavy test), so raise the key for such workloads.
 */
#include <stdlib.h>

#include "layout.h"

enum { ONODE_BYTES = 616, BUFFER_BYTES = 96 };

static const rs_param onode_params[] = {
    { .key = "osd_onode_extra_bytes", .type = RS_PT_SIZE, .def = "264",
      .doc = "bluestore_cache_other bytes per cached onode: one Extent 48 + Blob 104 + SharedBlob 112",
      .range = "[0, 4G)" },
    { .key = NULL },
};

static int onode_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    uint64_t *extra = malloc(sizeof *extra);
    if (!extra)
        return rs_fail(err, RS_ENOMEM, "out of memory for layout bluestore-onode");
    *extra = rs_config_size(cfg, "osd_onode_extra_bytes");
    *r_state = extra;
    return 0;
}

static void onode_destroy(void *state)
{
    free(state);
}

static unsigned onode_parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts)
{
    uint64_t extra = *(const uint64_t *)state;
    (void)object_bytes;
    (void)aux;
    r_parts[0] = (rs_part){ .size_bytes = ONODE_BYTES, .tracked = 1, .name = "Onode" };
    if (!extra)
        return 1;
    r_parts[1] = (rs_part){ .size_bytes = extra, .tracked = 1, .name = "extents and blobs" };
    return 2;
}

static unsigned buffer_parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts)
{
    (void)state;
    (void)aux;
    r_parts[0] = (rs_part){ .size_bytes = BUFFER_BYTES, .tracked = 1, .name = "Buffer" };
    if (!object_bytes)
        return 1;
    r_parts[1] = (rs_part){ .size_bytes = object_bytes, .tracked = 1, .name = "data" };
    return 2;
}

const rs_layout_ops rs_layout_bluestore_onode = {
    .name = "bluestore-onode",
    .doc = "BlueStore onode: Onode 616 B + osd_onode_extra_bytes of extents and blobs (mempools)",
    .params = onode_params,
    .max_parts = 2,
    .create = onode_create,
    .destroy = onode_destroy,
    .parts = onode_parts,
};

const rs_layout_ops rs_layout_bluestore_buffer = {
    .name = "bluestore-buffer",
    .doc = "BlueStore cached range: Buffer 96 B + its data at the requested length (0: a ghost)",
    .params = NULL,
    .max_parts = 2,
    .create = rs_layout_stateless_create,
    .destroy = rs_layout_stateless_destroy,
    .parts = buffer_parts,
};
