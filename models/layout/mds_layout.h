/*
 * mds_layout.h — the CephFS MDS layouts: what each MDS cache object
 * allocates, in several versions of the code (docs/models.md, MDS layouts),
 * from struct sizes that are run keys (mds_sizeof_CInode, ...) defaulting to
 * the version's row of the layout's size table:
 *   mds-luminous  master just before PR 19954 (8c95cc5144^1): containers
 *                 outside the mempool, map<client_t, Capability*>;
 *   mds-pr19954   just after it (8c95cc5144): containers in mds_co;
 *   mds-octopus   v15.2.5: Capability inside the client_caps map node;
 *   mds-pacific   v16.1.0: inode_t in a shared block of its own (mds_co);
 *   mds-quincy, mds-reef: Pacific's shape, each release's sizes (v17.2.7,
 *                 v18.2.7); mds-squid: Reef's sizes (no v19 tree could be
 *                 had; docs/models.md says why); mds-tentacle: v20.2.4's.
 *
 * The layout registry's parts(object_bytes, aux) serves the cached kinds,
 * with aux = kind | name_length << 8 (object_bytes is ignored for them):
 *   RS_MDS_FILE  a primary dentry with its inode (they live and die
 *                together: expiring the dentry frees the inode);
 *   RS_MDS_DIR   a directory's dirfrag (CDir) and its slot in the
 *                inode's dirfrags map;
 *   RS_MDS_NULL  a null dentry (its inode was unlinked), until trimmed.
 * Any other kind is one tracked allocation of object_bytes.  Capabilities
 * and per-request allocations have untracked-only versions, so they are
 * not layout objects: the MDS daemon gets them from rs_mds_side_parts().
 */
#ifndef RS_MDS_LAYOUT_H
#define RS_MDS_LAYOUT_H

#include <stdint.h>

#include "layout.h"

enum rs_mds_kind {
    RS_MDS_FILE = 0,
    RS_MDS_DIR = 1,
    RS_MDS_NULL = 2,
    RS_MDS_CACHED_KINDS = 3,
};

enum rs_mds_side {
    RS_MDS_CAP = 0,      /* one client's capability on one inode */
    RS_MDS_REQUEST = 1,  /* a client request in flight (message, MDRequest, reply) */
    RS_MDS_JOURNAL = 2,  /* the journal event of a namespace change */
    RS_MDS_SIDES = 3,
};

#define RS_MDS_AUX(kind, name_len) ((uint32_t)(kind) | ((uint32_t)(name_len) << 8))

/* The struct sizes of one run (bytes): the layout's row of its version,
 * with the run's mds_sizeof_* keys applied, and what follows from them. */
typedef struct rs_mds_sizes {
    const char *name;
    /* Ceph structs (keys mds_sizeof_<type>) */
    uint32_t inode, dentry, dir, cap;
    uint32_t dentry_key;        /* dentry_key_t, the CDir::items key */
    uint32_t lock_bits;         /* SimpleLock::unstable_bits_t */
    uint32_t decay_counter;     /* DecayCounter (in load vectors only before PR 19954) */
    uint32_t inode_store;       /* CInode::mempool_inode (v16+: inode_t outside CInode) */
    /* the version's shape */
    uint32_t cap_inside_node;   /* 1: the Capability lives inside the node (v15) */
    uint32_t containers_tracked;/* 1: container nodes and names in mds_co */
    uint32_t cap_tracked;       /* 1: Capability in mds_co */
    uint32_t pop_vectors;       /* 1: load counters in std::vectors (before PR 19954), untracked */
    uint32_t inode_shared;      /* 1: inode_t in a shared block of its own, mds_co (v16+) */
    /* derived: libstdc++ nodes around the Ceph types */
    uint32_t items_node;        /* CDir::items map node: 32 + dentry_key + 8 */
    uint32_t dirfrags_map;      /* the std::map a compact_map allocates (never tracked) */
    uint32_t dirfrags_node;     /* CInode::dirfrags map node */
    uint32_t cap_node;          /* CInode::client_caps map node: 32 + 8 + (Capability or 8) */
    uint32_t inode_map_node;    /* MDCache::inode_map hash node (never tracked) */
    uint32_t inode_pop, dir_pop;/* one load vector's heap block (pop_vectors only) */
    uint32_t inode_block;       /* the inode_t shared block: 32 + inode_store (inode_shared only) */
} rs_mds_sizes;

/* rs_layout_ops.data_kind of an MDS layout (its state holds an rs_mds_sizes). */
#define RS_MDS_SIZES_KIND "mds sizes"

/* The struct sizes of a created layout (valid while it lives), or NULL when
 * it is not an MDS layout (kv-map, kv-object): the MDS daemon refuses such
 * a layout. */
const rs_mds_sizes *rs_mds_layout_sizes(const rs_layout *layout);

/* Bytes of a cached kind's main struct (what a non-MDS layout is given as
 * object_bytes). */
uint32_t rs_mds_object_bytes(const rs_mds_sizes *s, unsigned kind);

/* The allocations of a side object: a capability (parts per the version),
 * a request (request_bytes, untracked) or a journal event (journal_bytes,
 * untracked; none when 0).  Returns the count (<= 2). */
unsigned rs_mds_side_parts(const rs_mds_sizes *s, unsigned side, uint32_t request_bytes,
                           uint32_t journal_bytes, rs_part *r_parts);

#endif
