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
 * field dump, hotsos #480).  They are data: the table SIZES_V15 below (bytes,
 * source, how obtained) gives the defaults of the keys bluestore_sizeof_Onode
 * and bluestore_sizeof_Buffer, which a run overrides (--set
 * bluestore_sizeof_Onode=600) without a rebuild; read only when set, the
 * row otherwise (as the MDS layouts do, so later releases can share a key).  One extent per cached onode is a choice: a
 * fully written 4 MiB object has far more (PR 12568, PR 32697: 25 KB/onode
 * in a write-heavy test), so raise the key for such workloads.
 * Later releases' sizes are set by their presets (osd-pacific 616/96 + 272,
 * osd-quincy and osd-reef 680/112 + 272; docs/models.md, "Cache").
 */
#include <stdlib.h>

#include "layout.h"

#define SIZE_RANGE "[1, 64K]" /* a struct of 0 B or of more than 64 KiB is a typo */
#define V15 "sizeof, clang 14 / libstdc++ 12, x86_64"
/* X(type, bytes, source, how): key bluestore_sizeof_<type> */
#define ONODE_V15(X) X("Onode", 616, "src/os/bluestore/BlueStore.h@v15.2.5 (hotsos #480: 1848 B / 3 onodes)", V15)
#define BUFFER_V15(X) X("Buffer", 96, "src/os/bluestore/BlueStore.h@v15.2.5", V15)

#define KEY(type) "bluestore_sizeof_" type
#define PARAM(ctype, bytes, src, how)                                                           \
    { .key = KEY(ctype), .type = RS_PT_SIZE, .def = #bytes,                                     \
      .doc = "sizeof(BlueStore::" ctype ") in bytes; default: " src ", " how, .range = SIZE_RANGE },
#define ROW(ctype, bytes, src, how) { KEY(ctype), bytes, src, how },

static const rs_size_row onode_rows[] = { ONODE_V15(ROW) { NULL, 0, NULL, NULL } };
static const rs_size_row buffer_rows[] = { BUFFER_V15(ROW) { NULL, 0, NULL, NULL } };

/* A size key's bytes: the run's value when it set the key, else the row's. */
static uint64_t size_of(const rs_config *cfg, const rs_size_row *row)
{
    return rs_config_raw(cfg, row->key) ? rs_config_size(cfg, row->key) : row->bytes;
}

typedef struct onode_layout {
    uint64_t onode_bytes, extra_bytes;
} onode_layout;

static const rs_param onode_params[] = {
    ONODE_V15(PARAM)
    { .key = "osd_onode_extra_bytes", .type = RS_PT_SIZE, .def = "264",
      .doc = "bluestore_cache_other bytes per cached onode: one Extent 48 + Blob 104 + SharedBlob 112",
      .range = "[0, 4G)" },
    { .key = NULL },
};

static const rs_param buffer_params[] = {
    BUFFER_V15(PARAM)
    { .key = NULL },
};

static int onode_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    onode_layout *l = malloc(sizeof *l);
    if (!l)
        return rs_fail(err, RS_ENOMEM, "out of memory for layout bluestore-onode");
    l->onode_bytes = size_of(cfg, &onode_rows[0]);
    l->extra_bytes = rs_config_size(cfg, "osd_onode_extra_bytes");
    *r_state = l;
    return 0;
}

static int buffer_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    uint64_t *head = malloc(sizeof *head);
    if (!head)
        return rs_fail(err, RS_ENOMEM, "out of memory for layout bluestore-buffer");
    *head = size_of(cfg, &buffer_rows[0]);
    *r_state = head;
    return 0;
}

static void layout_destroy(void *state)
{
    free(state);
}

static unsigned onode_parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts)
{
    const onode_layout *l = state;
    (void)object_bytes;
    (void)aux;
    r_parts[0] = (rs_part){ .size_bytes = l->onode_bytes, .tracked = 1, .name = "Onode" };
    if (!l->extra_bytes)
        return 1;
    r_parts[1] = (rs_part){ .size_bytes = l->extra_bytes, .tracked = 1, .name = "extents and blobs" };
    return 2;
}

static unsigned buffer_parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts)
{
    (void)aux;
    r_parts[0] = (rs_part){ .size_bytes = *(const uint64_t *)state, .tracked = 1, .name = "Buffer" };
    if (!object_bytes)
        return 1;
    r_parts[1] = (rs_part){ .size_bytes = object_bytes, .tracked = 1, .name = "data" };
    return 2;
}

const rs_layout_ops rs_layout_bluestore_onode = {
    .name = "bluestore-onode",
    .doc = "BlueStore onode: Onode 616 B (v15.2.5) + osd_onode_extra_bytes of extents and blobs (mempools)",
    .params = onode_params,
    .max_parts = 2,
    .create = onode_create,
    .destroy = layout_destroy,
    .parts = onode_parts,
    .sizes = onode_rows,
};

const rs_layout_ops rs_layout_bluestore_buffer = {
    .name = "bluestore-buffer",
    .doc = "BlueStore cached range: Buffer 96 B (v15.2.5) + its data at the requested length (0: a ghost)",
    .params = buffer_params,
    .max_parts = 2,
    .create = buffer_create,
    .destroy = layout_destroy,
    .parts = buffer_parts,
    .sizes = buffer_rows,
};
