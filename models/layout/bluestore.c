/*
 * bluestore.c — what a BlueStore OSD allocates per cached object, in its
 * mempools (every part tracked: dump_mempools counts them).
 *
 *   bluestore-onode   an onode: Onode (616 B, bluestore_cache_onode) and one
 *                     allocation for its extent map's metadata
 *                     (bluestore_Extent/Blob/SharedBlob, bluestore_cache_other).
 *                     With bluestore_max_blob_size 0 (the default, every
 *                     preset up to Octopus) that is osd_onode_extra_bytes
 *                     whatever was written (264 B: one Extent 48 + Blob 104 +
 *                     SharedBlob 112).  With it set, object_bytes (how much
 *                     of the object has been written) gives one blob per
 *                     bluestore_max_blob_size, each an Extent, a Blob, a
 *                     SharedBlob, one pextent, a use tracker of 4 B per
 *                     allocation unit and a checksum per device block
 *                     (onode_create says where each comes from).
 *   bluestore-buffer  a cached range: Buffer (96 B, bluestore_cache_other)
 *                     and its data at the requested length (bluestore_cache_
 *                     data; buffer_raw.h accounts the requested length);
 *                     object_bytes 0 is a 2Q warm_out ghost, Buffer only.
 *
 * Sizes: sizeof at v15.2.5 (rssim's own measurement: clang 14, libstdc++ 12,
 * x86_64; 616 B also in a field dump, hotsos #480).  They are data: the
 * tables below (bytes, source, how obtained) give the defaults of the keys
 * bluestore_sizeof_<type>, which a run overrides (--set
 * bluestore_sizeof_Onode=600) without a rebuild; read only when set, the
 * row otherwise (as the MDS layouts do, so later releases can share a key).
 * Later releases' sizes are set by their presets (osd-pacific Onode 616,
 * Buffer 96, Blob 112; osd-quincy and osd-reef 680/112, Blob 112;
 * docs/models.md, "Cache").  The blobs are one allocation per onode, not six
 * per blob as in BlueStore (a choice: a 4 MiB object's 64 blobs would be 384
 * allocations to track; the allocator rounds the one to its class).
 */
#include <stdlib.h>

#include "layout.h"

#define SIZE_RANGE "[1, 64K]" /* a struct of 0 B or of more than 64 KiB is a typo */
#define V15 "sizeof, clang 14 / libstdc++ 12, x86_64"
/* X(type, bytes, source, how): key bluestore_sizeof_<type> */
#define ONODE_V15(X) X("Onode", 616, "src/os/bluestore/BlueStore.h@v15.2.5 (hotsos #480: 1848 B / 3 onodes)", V15)
/* what one blob of an onode's extent map allocates (bluestore_max_blob_size > 0) */
#define BLOB_V15(X)                                                                             \
    X("Extent", 48, "src/os/bluestore/BlueStore.h@v15.2.5", V15)                                \
    X("Blob", 104, "src/os/bluestore/BlueStore.h@v15.2.5", V15)                                 \
    X("SharedBlob", 112, "src/os/bluestore/BlueStore.h@v15.2.5", V15)
/* a blob's one physical extent (PExtentVector of one: bluestore_types.h) */
#define PEXTENT_V15(X) X("bluestore_pextent_t", 16, "src/os/bluestore/bluestore_types.h@v15.2.5", V15)
#define BUFFER_V15(X) X("Buffer", 96, "src/os/bluestore/BlueStore.h@v15.2.5", V15)

#define KEY(type) "bluestore_sizeof_" type
#define PARAM(ctype, bytes, src, how)                                                           \
    { .key = KEY(ctype), .type = RS_PT_SIZE, .def = #bytes,                                     \
      .doc = "sizeof(BlueStore::" ctype ") in bytes; default: " src ", " how, .range = SIZE_RANGE },
#define PARAM_T(ctype, bytes, src, how)                                                         \
    { .key = KEY(ctype), .type = RS_PT_SIZE, .def = #bytes,                                     \
      .doc = "sizeof(" ctype ") in bytes; default: " src ", " how, .range = SIZE_RANGE },
#define ROW(ctype, bytes, src, how) { KEY(ctype), bytes, src, how },

static const rs_size_row onode_rows[] = { ONODE_V15(ROW) BLOB_V15(ROW) PEXTENT_V15(ROW) { NULL, 0, NULL, NULL } };
enum { ROW_ONODE, ROW_EXTENT, ROW_BLOB, ROW_SHARED_BLOB, ROW_PEXTENT };
static const rs_size_row buffer_rows[] = { BUFFER_V15(ROW) { NULL, 0, NULL, NULL } };

/* A size key's bytes: the run's value when it set the key, else the row's. */
static uint64_t size_of(const rs_config *cfg, const rs_size_row *row)
{
    return rs_config_raw(cfg, row->key) ? rs_config_size(cfg, row->key) : row->bytes;
}

typedef struct onode_layout {
    uint64_t onode_bytes, extra_bytes;
    uint64_t max_blob_bytes; /* 0: extra_bytes per onode, whatever was written */
    uint64_t blob_bytes;     /* per blob of max_blob_bytes */
} onode_layout;

/* bluestore_csum_type: the checksum value's size (bluestore_blob_t::
 * get_csum_value_size, src/os/bluestore/bluestore_types.h) */
#define CSUM_TYPES "none|crc32c|crc32c_16|crc32c_8|xxhash32|xxhash64"
static const unsigned csum_value_bytes[] = { 0, 4, 2, 1, 4, 8 };

static const rs_param onode_params[] = {
    ONODE_V15(PARAM)
    BLOB_V15(PARAM)
    PEXTENT_V15(PARAM_T)
    { .key = "osd_onode_extra_bytes", .type = RS_PT_SIZE, .def = "264",
      .doc = "with bluestore_max_blob_size 0: bluestore_cache_other bytes per cached onode, "
             "whatever was written (one Extent 48 + Blob 104 + SharedBlob 112)",
      .range = "[0, 4G)" },
    { .key = "bluestore_max_blob_size", .type = RS_PT_SIZE, .def = "0",
      .doc = "the largest blob BlueStore makes (bluestore_max_blob_size_hdd/_ssd, 64 KiB in "
             "v16.2.15): an onode carries one blob, with its Extent, SharedBlob, pextent, use "
             "tracker and checksums, per bluestore_max_blob_size of the object written; 0: a "
             "fixed osd_onode_extra_bytes per onode",
      .range = "[0, 4G]" },
    { .key = "bluestore_min_alloc_size", .type = RS_PT_SIZE, .def = "4K",
      .doc = "allocation unit: a blob's use tracker keeps 4 B per unit when it spans more than "
             "one (bluestore_min_alloc_size_hdd/_ssd 4 KiB in v16.2.15)",
      .range = "[512, 64M]" },
    { .key = "bdev_block_size", .type = RS_PT_SIZE, .def = "4K",
      .doc = "the device block: a blob keeps one checksum per block (csum_order = "
             "block_size_order, BlueStore::_choose_write_options)",
      .range = "[512, 64M]" },
    { .key = "bluestore_csum_type", .type = RS_PT_STRING, .def = "crc32c", .choices = CSUM_TYPES,
      .doc = "checksum per block: its value size (crc32c 4 B; none: no checksums)" },
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
    *l = (onode_layout){ .onode_bytes = size_of(cfg, &onode_rows[ROW_ONODE]),
                         .extra_bytes = rs_config_size(cfg, "osd_onode_extra_bytes"),
                         .max_blob_bytes = rs_config_size(cfg, "bluestore_max_blob_size") };
    /* every key is read; one that does nothing for this run is refused when
     * it differs from its default */
    uint64_t block = rs_config_size(cfg, "bdev_block_size");
    uint64_t au = rs_config_size(cfg, "bluestore_min_alloc_size");
    int csum = rs_config_choice(cfg, "bluestore_csum_type");
    uint64_t sz[ROW_PEXTENT + 1];
    const char *vain = NULL;
    for (int r = ROW_EXTENT; r <= ROW_PEXTENT; r++) {
        sz[r] = size_of(cfg, &onode_rows[r]);
        if (sz[r] != onode_rows[r].bytes)
            vain = onode_rows[r].key;
    }
    if (block != 4096)
        vain = "bdev_block_size";
    if (au != 4096)
        vain = "bluestore_min_alloc_size";
    if (csum != 1)
        vain = "bluestore_csum_type";
    if (!l->max_blob_bytes && vain) {
        rs_fail(err, RS_EINPUT, "%s does nothing with bluestore_max_blob_size 0 (the onode "
                "carries osd_onode_extra_bytes, not blobs)", vain);
        free(l);
        return RS_EINPUT;
    }
    if (!l->max_blob_bytes) {
        *r_state = l;
        return 0;
    }
    if (l->extra_bytes != 264) {
        free(l);
        return rs_fail(err, RS_EINPUT,
                       "osd_onode_extra_bytes does nothing with bluestore_max_blob_size set "
                       "(an onode carries its blobs)");
    }
    /* A blob of max_blob_bytes (BlueStore::_do_write_big cuts a write into
     * blobs of at most max_blob_size; v16.1.0 BlueStore.cc): Extent, Blob,
     * SharedBlob (Pacific's Collection::new_blob gives each blob its own),
     * one pextent (PExtentVector, mempool bluestore_cache_other), the use
     * tracker's 4 B per allocation unit when it spans more than one
     * (bluestore_blob_use_tracker_t::init; au = get_release_size(min_alloc)
     * = max(csum chunk, min_alloc)), and one checksum value per block
     * (init_csum, csum_data in bluestore_cache_other). */
    unsigned vbytes = csum >= 0 ? csum_value_bytes[csum] : 0;
    if (vbytes && block > au)
        au = block;
    uint64_t mb = l->max_blob_bytes, units = (mb + au - 1) / au;
    l->blob_bytes = sz[ROW_EXTENT] + sz[ROW_BLOB] + sz[ROW_SHARED_BLOB] + sz[ROW_PEXTENT] +
                    (units > 1 ? 4 * units : 0) +
                    (vbytes ? vbytes * ((mb + block - 1) / block) : 0);
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
    (void)aux;
    r_parts[0] = (rs_part){ .size_bytes = l->onode_bytes, .tracked = 1, .name = "Onode" };
    /* object_bytes: how much of the object has been written (0: unknown or
     * nothing), which sets its blobs when max_blob_bytes is set */
    uint64_t extra = l->max_blob_bytes
                         ? (object_bytes + l->max_blob_bytes - 1) / l->max_blob_bytes * l->blob_bytes
                         : l->extra_bytes;
    if (!extra)
        return 1;
    r_parts[1] = (rs_part){ .size_bytes = extra, .tracked = 1, .name = "extents and blobs" };
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
