/*
 * mds_layout.c — the MDS layouts ("mds-luminous", "mds-pr19954",
 * "mds-octopus", and the later releases below); see mds_layout.h.
 *
 * Sizes are data: each layout's Ceph struct sizes are one row set of the
 * table SIZES_* below (bytes, the file and commit they were read at, how
 * they were obtained), and each becomes a run key named after the C++ type
 * (mds_sizeof_CInode, ...) whose default is that layout's row, so a Ceph
 * developer overrides one per run (--set mds_sizeof_CInode=1720) without a
 * rebuild.  A key is declared only by the layouts that read it (the schema
 * refuses mds_sizeof_DecayCounter under mds-octopus, where the counters
 * live inside CInode and CDir).  The keys share one name across layouts,
 * so the config's own default would be the first layout's: a layout reads
 * a key only when the run set it, its own row otherwise.
 *
 * Container nodes are derived from the Ceph types they hold and libstdc++'s
 * node layouts (docs/models.md, "The MDS model", lists each with its
 * source):
 *   std::map node = 32 B _Rb_tree_node_base + the value;
 *     CDir::items        map<dentry_key_t, CDentry*>      72 B (sizeof, v15;
 *                        dentry_key_t {snapid_t, string_view, __u32 hash},
 *                        32 B, since PR 19954's 0c8ec93af7); 64 B before
 *                        it (dentry_key_t {snapid_t, const char *, __u32},
 *                        24 B: mdstypes.h of early 2018)
 *     CInode::client_caps map<client_t, Capability*>      48 B (32 + 8 + 8)
 *                        map<client_t, Capability> (v15) 360 B (sizeof)
 *     CInode::dirfrags   compact_map<frag_t, CDir*>: the std::map object it
 *                        allocates on first insert + a node of 48 B.  The
 *                        object comes from plain `new` in compact_map_base
 *                        (map.reset(new Map)), so it is never in the
 *                        mempool, not even after PR 19954; with a mempool
 *                        allocator (pool and type pointers, 16 B) it is
 *                        64 B, with std::allocator 48 B
 *   MDCache::inode_map   unordered_map<inodeno_t, CInode*> hash node with its
 *                        cached hash (std::hash<inodeno_t> is not noexcept):
 *                        next 8 + key 8 + value 8 + hash 8 = 32 B, in both
 *                        2018 versions too (MDCache.h:126@7b7a7d55b1,
 *                        :128@46c25abd1c: keyed by inodeno_t, not vinodeno_t)
 *   CDentry name         heap buffer of length + 1 when longer than 15
 *                        (libstdc++ SSO), std::string before PR 19954
 *                        (CDentry.h:346@7b7a7d55b1) and mds_co::string after
 *                        (CDentry.h:378@46c25abd1c).
 * The struct sizes were checked against the 2018 tree: g++ 12 / libstdc++ 12
 * sizeof of CInode, CDentry, CDir, Capability and the nodes above, compiled
 * from src/mds at 7b7a7d55b1 and 46c25abd1c (docs/models.md, "MDS layouts").
 * Outside the mempool in every version, for as long as the inode lives:
 *   SimpleLock::unstable_bits_t (80 B: gather set<__s32> 48, num_wrlock and
 *                        num_xlock 8, MutationRef 8 (a boost::intrusive_ptr,
 *                        Mutation.h:167), xlock_by_client and excl_client 16;
 *                        SimpleLock.h:180-188@7b7a7d55b1, plain `new` at
 *                        :211), one per lock that
 *                        CInode::set_loner_cap() gave an exclusive client
 *                        (authlock, filelock, linklock, xattrlock).  Dropping
 *                        the loner only writes -1 into it; it is freed by a
 *                        later wrlock/xlock release, so most stay
 *                        (`mds_loner_locks`, default 3 of the 4: an estimate,
 *                        docs/models.md).  Given as one allocation of n x 80
 *                        B (80, 160, 240 and 320 are all tcmalloc classes,
 *                        so one n x 80 B block takes what n blocks of 80 B
 *                        take) to keep the simulator's per-object address
 *                        slots at seven.
 * Before PR 19954 (master, 7b7a7d55b1), outside the mempool: the balancer's
 * load counters in std::vectors of DecayCounter (40 B: val, delta, vel,
 * last_decay, rate; DecayCounter.h:47-51):
 *   CInode::pop          inode_load_vec_t: 2 x 40 = 80 B (mdstypes.h:1046)
 *   CDir pop_me, pop_nested, pop_auth_subtree, pop_auth_subtree_nested
 *                        dirfrag_load_vec_t: 5 x 40 = 200 B each
 *                        (mdstypes.h:1083, CDir.h:358-361).
 * PR 19954 made them std::array inside the objects (7e2f59aad3;
 * mdstypes.h:1411,1446@46c25abd1c): part of sizeof(CInode) and sizeof(CDir)
 * there, nothing outside.
 * PR 19954's other FIXMEs (lock waiter lists, bufferptr xattrs, snap_blob,
 * inline_data, scrub_info, bloom filter) allocate nothing while they are
 * empty, which they are for a kernel build (no xattrs, snapshots, inline
 * data or scrubs); they are listed in docs/models.md and not allocated.
 */
#include "mds_layout.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SSO_CAPACITY 15u      /* libstdc++ std::string local buffer */
#define RB_NODE_BASE 32u      /* libstdc++ _Rb_tree_node_base: colour, parent, left, right */
#define POINTER_BYTES 8u
#define CLIENT_T_BYTES 8u     /* client_t: one int64_t */
#define STD_MAP_BYTES 48u     /* sizeof(std::map) with std::allocator */
#define MEMPOOL_ALLOC_BYTES 16u /* a mempool allocator's pool and type pointers */
#define DIRFRAGS_NODE_BYTES 48u /* 32 + frag_t 4 (+4 pad) + CDir* 8 */
#define INODE_MAP_NODE_BYTES 32u /* next 8 + inodeno_t 8 + CInode* 8 + cached hash 8 */
#define SHARED_BLOCK_BYTES 32u /* _Sp_counted_ptr_inplace: vptr 8, use and weak counts 8, mempool allocator 16 */
#define INODE_POP_COUNTERS 2u /* inode_load_vec_t */
#define DIR_POP_COUNTERS 5u   /* dirfrag_load_vec_t */
#define DIR_POPS 4u           /* pop_me, pop_nested, pop_auth_subtree, pop_auth_subtree_nested */
#define SIZE_RANGE "[1, 64K]" /* a struct of 0 B or of more than 64 KiB is a typo */

/* ---- the table: one row set per layout ------------------------------ */

/* X(field, type, bytes, source, how): one Ceph struct size of one layout:
 * the rs_mds_sizes field it sets, the C++ type (its key is
 * mds_sizeof_<type>), its sizeof in bytes, where it was read (file, line,
 * commit or tag) and how it was obtained. */
#define G12 "sizeof, g++ 12 / libstdc++ 12 / boost 1.74, x86_64"
#define SIZES_LUMINOUS(X)                                                                      \
    X(inode, "CInode", 1640, "src/mds/CInode.h@7b7a7d55b1 (CInode.cc:4670 mds_co factory)", G12) \
    X(dentry, "CDentry", 472, "src/mds/CDentry.h@7b7a7d55b1 (CDentry.cc:636)", G12)           \
    X(dir, "CDir", 848, "src/mds/CDir.h@7b7a7d55b1 (CDir.cc:3328)", G12)                       \
    X(cap, "Capability", 272, "src/mds/Capability.h@7b7a7d55b1", G12)                          \
    X(dentry_key, "dentry_key_t", 24, "src/mds/mdstypes.h@7b7a7d55b1 {snapid_t, const char *, __u32}", G12) \
    X(lock_bits, "SimpleLock_unstable_bits_t", 80, "src/mds/SimpleLock.h:180-188@7b7a7d55b1", G12) \
    X(decay_counter, "DecayCounter", 40, "src/common/DecayCounter.h:47-51@7b7a7d55b1", G12)
#define SIZES_PR19954(X)                                                                       \
    X(inode, "CInode", 1760, "src/mds/CInode.h@46c25abd1c (CInode.cc:4634 mds_co factory)", G12) \
    X(dentry, "CDentry", 512, "src/mds/CDentry.h@46c25abd1c (CDentry.cc:628)", G12)           \
    X(dir, "CDir", 1584, "src/mds/CDir.h@46c25abd1c (CDir.cc:3339)", G12)                      \
    X(cap, "Capability", 288, "src/mds/Capability.h:353@46c25abd1c", G12)                      \
    X(dentry_key, "dentry_key_t", 32, "src/mds/mdstypes.h@46c25abd1c {snapid_t, string_view, __u32}", G12) \
    X(lock_bits, "SimpleLock_unstable_bits_t", 80, "src/mds/SimpleLock.h:181-188@46c25abd1c", G12)
#define C14 "sizeof, clang 14 / libstdc++ 12, x86_64; the same with g++ 12 / boost 1.74"
#define SIZES_OCTOPUS(X)                                                                       \
    X(inode, "CInode", 1856, "src/mds/CInode.h@v15.2.5", C14)                                  \
    X(dentry, "CDentry", 528, "src/mds/CDentry.h@v15.2.5", C14)                                \
    X(dir, "CDir", 1288, "src/mds/CDir.h@v15.2.5", C14)                                        \
    X(cap, "Capability", 320, "src/mds/Capability.h@v15.2.5 (in a 360 B client_caps node, CInode.h:154)", C14) \
    X(dentry_key, "dentry_key_t", 32, "src/mds/mdstypes.h@v15.2.5 {snapid_t, string_view, __u32}", C14) \
    X(lock_bits, "SimpleLock_unstable_bits_t", 104, "src/mds/SimpleLock.h:618-640@v15.2.5", \
      G12 "; 80 in the 2018 trees: Octopus added elist<MDLockCacheItem*> lock_caches (24 B)")
/* Pacific: the Debian 16.2.15 ceph-mds prints its own sizes at debug_mds
 * 10 (MDSDaemon::init); the types it does not print (dentry_key_t, the lock
 * bits) are the probe's on v16.1.0 (0e97d85931) and on v17.2.7, equal.
 * CDentry is 616 there, 600 at v16.1.0: 16.2.x took replica_unlinking_ref
 * and corrupt_first_loaded (also in v17.2.7's CDentry.h).  inode_t left
 * CInode for a shared block (CInode.h allocate_inode, mempool mds_co). */
#define V16 "src/mds/"
#define BIN16 "printed by Debian's ceph-mds 16.2.15 (debug_mds 10, MDSDaemon::init), x86_64"
#define G12_16 "sizeof, g++ 12 / libstdc++ 12 / boost 1.74, x86_64, on src/ at v16.1.0 and v17.2.7"
#define SIZES_PACIFIC(X)                                                                       \
    X(inode, "CInode", 1328, V16 "CInode.h@v16.2.15 (1328 at v16.1.0 too)", BIN16)             \
    X(inode_store, "mempool_inode", 560, V16 "CInode.h@v16.2.15 (inode_t<mds_co allocator>)", BIN16) \
    X(dentry, "CDentry", 616, V16 "CDentry.h@v16.2.15 (600 at v16.1.0)", BIN16)               \
    X(dir, "CDir", 1088, V16 "CDir.h@v16.2.15", BIN16)                                         \
    X(cap, "Capability", 320, V16 "Capability.h@v16.2.15 (in a 360 B client_caps node)", BIN16) \
    X(dentry_key, "dentry_key_t", 32, V16 "mdstypes.h:1358@v16.1.0", G12_16)                   \
    X(lock_bits, "SimpleLock_unstable_bits_t", 104, V16 "SimpleLock.h:618-640@v16.1.0", G12_16)
/* Quincy, Reef, Tentacle: the probe (docs/models.md, "Struct sizes by
 * release") compiled against src/ of v17.2.7 (b12291d110), of Debian's
 * ceph_18.2.7+ds.orig.tar.xz and of ceph_20.2.4+ds.orig.tar.xz. */
#define PROBE17 "sizeof, g++ 12.2 / libstdc++ 12 / boost 1.74 (1.83 the same), x86_64, -std=c++17"
#define PROBE18 "sizeof, g++ 12.2 / libstdc++ 12 / boost 1.74 (1.83 the same), x86_64, -std=c++20"
#define PROBE20 "sizeof, g++ 12.2 / libstdc++ 12 / boost 1.83, x86_64, -std=c++20"
#define SIZES_QUINCY(X)                                                                        \
    X(inode, "CInode", 1328, V16 "CInode.h@v17.2.7", PROBE17)                                  \
    X(inode_store, "mempool_inode", 560, V16 "CInode.h@v17.2.7 (inode_t, mdstypes.h)", PROBE17) \
    X(dentry, "CDentry", 616, V16 "CDentry.h@v17.2.7", PROBE17)                                \
    X(dir, "CDir", 1088, V16 "CDir.h@v17.2.7", PROBE17)                                        \
    X(cap, "Capability", 320, V16 "Capability.h@v17.2.7 (client_caps node 360)", PROBE17)     \
    X(dentry_key, "dentry_key_t", 32, V16 "mdstypes.h@v17.2.7", PROBE17)                       \
    X(lock_bits, "SimpleLock_unstable_bits_t", 104, V16 "SimpleLock.h@v17.2.7", PROBE17)
#define SIZES_REEF(X)                                                                          \
    X(inode, "CInode", 1344, V16 "CInode.h@v18.2.7 (+ item_to_flush)", PROBE18)                \
    X(inode_store, "mempool_inode", 632, "src/include/cephfs/types.h@v18.2.7 (inode_t + fscrypt fields)", PROBE18) \
    X(dentry, "CDentry", 616, V16 "CDentry.h@v18.2.7", PROBE18)                                \
    X(dir, "CDir", 1088, V16 "CDir.h@v18.2.7", PROBE18)                                        \
    X(cap, "Capability", 320, V16 "Capability.h@v18.2.7 (client_caps node 360)", PROBE18)     \
    X(dentry_key, "dentry_key_t", 32, V16 "mdstypes.h@v18.2.7", PROBE18)                       \
    X(lock_bits, "SimpleLock_unstable_bits_t", 104, V16 "SimpleLock.h@v18.2.7", PROBE18)
#define SIZES_TENTACLE(X)                                                                      \
    X(inode, "CInode", 1392, V16 "CInode.h@v20.2.4", PROBE20)                                  \
    X(inode_store, "mempool_inode", 712, "src/include/cephfs/types.h@v20.2.4 (inode_t)", PROBE20) \
    X(dentry, "CDentry", 592, V16 "CDentry.h@v20.2.4", PROBE20)                                \
    X(dir, "CDir", 1088, V16 "CDir.h@v20.2.4", PROBE20)                                        \
    X(cap, "Capability", 272, V16 "Capability.h@v20.2.4 (client_caps node 312)", PROBE20)     \
    X(dentry_key, "dentry_key_t", 32, V16 "mdstypes.h@v20.2.4", PROBE20)                       \
    X(lock_bits, "SimpleLock_unstable_bits_t", 104, V16 "SimpleLock.h@v20.2.4", PROBE20)
/* Squid: no v19 tree could be had (docs/models.md); its rows are Reef's,
 * the release before it, and say so. */
#define NOT19 "NOT computed for Squid (v19): v18.2.7's value"
#define SIZES_SQUID(X)                                                                         \
    X(inode, "CInode", 1344, V16 "CInode.h@v18.2.7", NOT19)                                    \
    X(inode_store, "mempool_inode", 632, "src/include/cephfs/types.h@v18.2.7", NOT19)          \
    X(dentry, "CDentry", 616, V16 "CDentry.h@v18.2.7", NOT19)                                  \
    X(dir, "CDir", 1088, V16 "CDir.h@v18.2.7", NOT19)                                          \
    X(cap, "Capability", 320, V16 "Capability.h@v18.2.7", NOT19)                               \
    X(dentry_key, "dentry_key_t", 32, V16 "mdstypes.h@v18.2.7", NOT19)                         \
    X(lock_bits, "SimpleLock_unstable_bits_t", 104, V16 "SimpleLock.h@v18.2.7", NOT19)

/* The structure of each version: what is in the mempool, where the
 * Capability lives, whether the load counters are vectors outside. */
static const rs_mds_sizes shape_luminous = {
    .name = "mds-luminous", .cap_inside_node = 0, .containers_tracked = 0, .cap_tracked = 0,
    .pop_vectors = 1,
};
static const rs_mds_sizes shape_pr19954 = {
    .name = "mds-pr19954", .cap_inside_node = 0, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0,
};
static const rs_mds_sizes shape_octopus = {
    .name = "mds-octopus", .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0,
};

/* From v16: inode_t in its own block (std::allocate_shared with the
 * mds_co allocator: one tracked allocation per cached inode). */
static const rs_mds_sizes shape_pacific = {
    .name = "mds-pacific", .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0, .inode_shared = 1,
};
static const rs_mds_sizes shape_quincy = {
    .name = "mds-quincy", .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0, .inode_shared = 1,
};
static const rs_mds_sizes shape_reef = {
    .name = "mds-reef", .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0, .inode_shared = 1,
};
static const rs_mds_sizes shape_squid = {
    .name = "mds-squid", .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0, .inode_shared = 1,
};

static const rs_mds_sizes shape_tentacle = {
    .name = "mds-tentacle", .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .pop_vectors = 0, .inode_shared = 1,
};

/* ---- the layouts' state: sizes of this run -------------------------- */

typedef struct mds_layout_state {
    rs_mds_sizes sizes; /* first: rs_mds_layout_sizes() returns its address */
    uint32_t loner_locks;
} mds_layout_state;

/* The container nodes and side allocations that follow from the struct
 * sizes and the version's shape. */
static void derive(rs_mds_sizes *s)
{
    s->items_node = RB_NODE_BASE + s->dentry_key + POINTER_BYTES;
    s->cap_node = RB_NODE_BASE + CLIENT_T_BYTES + (s->cap_inside_node ? s->cap : POINTER_BYTES);
    s->dirfrags_map = STD_MAP_BYTES + (s->containers_tracked ? MEMPOOL_ALLOC_BYTES : 0);
    s->dirfrags_node = DIRFRAGS_NODE_BYTES;
    s->inode_map_node = INODE_MAP_NODE_BYTES;
    s->inode_block = s->inode_shared ? SHARED_BLOCK_BYTES + s->inode_store : 0;
    s->inode_pop = s->pop_vectors ? INODE_POP_COUNTERS * s->decay_counter : 0;
    s->dir_pop = s->pop_vectors ? DIR_POP_COUNTERS * s->decay_counter : 0;
}

/* A size key's bytes: the run's value when it set the key, else def (the
 * layout's row). */
static uint32_t size_of(const rs_config *cfg, const char *key, uint32_t def)
{
    return rs_config_raw(cfg, key) ? (uint32_t)rs_config_size(cfg, key) : def;
}

#define KEY(type) "mds_sizeof_" type
#define READ_ROW(field, ctype, bytes, src, how) st->sizes.field = size_of(cfg, KEY(ctype), bytes);

static int create_from(const rs_config *cfg, const rs_mds_sizes *shape, mds_layout_state **r_st,
                       rs_err *err)
{
    mds_layout_state *st = malloc(sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for MDS layout %s", shape->name);
    *st = (mds_layout_state){ .sizes = *shape,
                              .loner_locks = (uint32_t)rs_config_int(cfg, "mds_loner_locks") };
    *r_st = st;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

uint32_t rs_mds_object_bytes(const rs_mds_sizes *s, unsigned kind)
{
    switch (kind) {
    case RS_MDS_FILE: return s->dentry + s->inode + s->inode_block;
    case RS_MDS_DIR: return s->dir;
    default: return s->dentry;
    }
}

static unsigned dentry_parts(const rs_mds_sizes *s, uint32_t name_len, rs_part *p)
{
    unsigned n = 0;
    p[n++] = (rs_part){ .size_bytes = s->dentry, .tracked = 1, .name = "CDentry" };
    p[n++] = (rs_part){ .size_bytes = s->items_node, .tracked = s->containers_tracked,
                        .name = "CDir::items node" };
    if (name_len > SSO_CAPACITY)
        p[n++] = (rs_part){ .size_bytes = (uint64_t)name_len + 1,
                            .tracked = s->containers_tracked, .name = "dentry name" };
    return n;
}

static unsigned parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *p)
{
    const mds_layout_state *st = state;
    const rs_mds_sizes *s = &st->sizes;
    unsigned kind = aux & 0xff, n;
    uint32_t name_len = aux >> 8;

    switch (kind) {
    case RS_MDS_FILE:
        n = dentry_parts(s, name_len, p);
        p[n++] = (rs_part){ .size_bytes = s->inode, .tracked = 1, .name = "CInode" };
        if (s->inode_shared)
            p[n++] = (rs_part){ .size_bytes = s->inode_block, .tracked = 1,
                                .name = "CInode::mempool_inode shared block" };
        p[n++] = (rs_part){ .size_bytes = s->inode_map_node, .tracked = 0,
                            .name = "MDCache::inode_map node" };
        if (s->pop_vectors)
            p[n++] = (rs_part){ .size_bytes = s->inode_pop, .tracked = 0, .name = "CInode::pop" };
        if (st->loner_locks)
            p[n++] = (rs_part){ .size_bytes = (uint64_t)st->loner_locks * s->lock_bits, .tracked = 0,
                                .name = "SimpleLock::unstable_bits_t (loner)" };
        return n;
    case RS_MDS_NULL:
        return dentry_parts(s, name_len, p);
    case RS_MDS_DIR:
        p[0] = (rs_part){ .size_bytes = s->dir, .tracked = 1, .name = "CDir" };
        p[1] = (rs_part){ .size_bytes = s->dirfrags_map, .tracked = 0,
                          .name = "CInode::dirfrags map" };
        p[2] = (rs_part){ .size_bytes = s->dirfrags_node, .tracked = s->containers_tracked,
                          .name = "CInode::dirfrags node" };
        n = 3;
        for (unsigned i = 0; s->pop_vectors && i < DIR_POPS; i++)
            p[n++] = (rs_part){ .size_bytes = s->dir_pop, .tracked = 0, .name = "CDir pop vector" };
        return n;
    default:
        p[0] = (rs_part){ .size_bytes = object_bytes, .tracked = 1, .name = "object" };
        return 1;
    }
}

unsigned rs_mds_side_parts(const rs_mds_sizes *s, unsigned side, uint32_t request_bytes,
                           uint32_t journal_bytes, rs_part *p)
{
    switch (side) {
    case RS_MDS_CAP:
        if (s->cap_inside_node) {
            p[0] = (rs_part){ .size_bytes = s->cap_node, .tracked = s->cap_tracked,
                              .name = "client_caps node with Capability" };
            return 1;
        }
        p[0] = (rs_part){ .size_bytes = s->cap, .tracked = s->cap_tracked, .name = "Capability" };
        p[1] = (rs_part){ .size_bytes = s->cap_node, .tracked = s->containers_tracked,
                          .name = "client_caps node" };
        return 2;
    case RS_MDS_REQUEST:
        if (!request_bytes)
            return 0;
        p[0] = (rs_part){ .size_bytes = request_bytes, .tracked = 0, .name = "request" };
        return 1;
    case RS_MDS_JOURNAL:
        if (!journal_bytes)
            return 0;
        p[0] = (rs_part){ .size_bytes = journal_bytes, .tracked = 0, .name = "journal event" };
        return 1;
    default:
        return 0;
    }
}

/* ---- one layout per row set ----------------------------------------- */

#define LONER_PARAM                                                                            \
    { .key = "mds_loner_locks", .type = RS_PT_INT, .def = "3",                                 \
      .doc = "SimpleLock::unstable_bits_t left per inode by the loner mechanism (outside the "  \
             "mempool): 0..4 of authlock, filelock, linklock, xattrlock (3: an estimate, "      \
             "docs/models.md)",                                                                 \
      .range = "[0, 4]" }
#define PARAM(field, ctype, bytes, src, how)                                                    \
    { .key = KEY(ctype), .type = RS_PT_SIZE, .def = #bytes,                                     \
      .doc = "sizeof(" ctype ") in bytes; default: " src ", " how, .range = SIZE_RANGE },
#define ROW(field, ctype, bytes, src, how) { KEY(ctype), bytes, src, how },

#define MDS_LAYOUT(var, name_, shape, SIZES, doc_)                                            \
    static const rs_param params_##shape[] = { SIZES(PARAM) LONER_PARAM, { .key = NULL } };   \
    static const rs_size_row rows_##shape[] = { SIZES(ROW) { NULL, 0, NULL, NULL } };         \
    static int create_##shape(const rs_config *cfg, void **r_state, rs_err *err)              \
    {                                                                                          \
        mds_layout_state *st = NULL;                                                           \
        int rc = create_from(cfg, &shape, &st, err);                                           \
        if (rc)                                                                                \
            return rc;                                                                         \
        SIZES(READ_ROW)                                                                        \
        derive(&st->sizes);                                                                    \
        *r_state = st;                                                                         \
        return 0;                                                                              \
    }                                                                                          \
    const rs_layout_ops var = {                                                                \
        .name = name_, .doc = doc_, .params = params_##shape, .max_parts = 7,                  \
        .create = create_##shape, .destroy = destroy, .parts = parts,                          \
        .data_kind = RS_MDS_SIZES_KIND, .sizes = rows_##shape, .few_shapes = 1,               \
    }

MDS_LAYOUT(rs_layout_mds_luminous, "mds-luminous", shape_luminous, SIZES_LUMINOUS,
           "CephFS MDS before PR 19954: CInode 1640, CDentry 472, CDir 848; container nodes, "
           "names, Capability (272 + 48 B map node), load vectors and loner lock bits outside "
           "the mempool");
MDS_LAYOUT(rs_layout_mds_pr19954, "mds-pr19954", shape_pr19954, SIZES_PR19954,
           "CephFS MDS after PR 19954: CInode 1760, CDentry 512, CDir 1584 (load counters "
           "inside), Capability 288; containers in mds_co; inode_map and loner lock bits outside");
MDS_LAYOUT(rs_layout_mds_octopus, "mds-octopus", shape_octopus, SIZES_OCTOPUS,
           "CephFS MDS v15.2.5: CInode 1856, CDentry 528, CDir 1288, Capability inside a 360 B "
           "client_caps node; inode_map and loner lock bits outside the mempool");

MDS_LAYOUT(rs_layout_mds_pacific, "mds-pacific", shape_pacific, SIZES_PACIFIC,
           "CephFS MDS v16.2.15: CInode 1328 + its inode_t in a 592 B shared block, CDentry "
           "616, CDir 1088, Capability inside a 360 B client_caps node");
MDS_LAYOUT(rs_layout_mds_quincy, "mds-quincy", shape_quincy, SIZES_QUINCY,
           "CephFS MDS v17.2.7: CInode 1328 + a 592 B inode_t block, CDentry 616, CDir 1088, "
           "Capability inside a 360 B client_caps node");
MDS_LAYOUT(rs_layout_mds_reef, "mds-reef", shape_reef, SIZES_REEF,
           "CephFS MDS v18.2.7: CInode 1344 + a 664 B inode_t block, CDentry 616, CDir 1088, "
           "Capability inside a 360 B client_caps node");
MDS_LAYOUT(rs_layout_mds_squid, "mds-squid", shape_squid, SIZES_SQUID,
           "CephFS MDS v19: sizes NOT computed for Squid, v18.2.7's (mds-reef) used");
MDS_LAYOUT(rs_layout_mds_tentacle, "mds-tentacle", shape_tentacle, SIZES_TENTACLE,
           "CephFS MDS v20.2.4: CInode 1392 + a 744 B inode_t block, CDentry 592, CDir 1088, "
           "Capability inside a 312 B client_caps node");

const rs_mds_sizes *rs_mds_layout_sizes(const rs_layout *layout)
{
    const rs_layout_ops *ops = layout->ops;
    if (!ops || !ops->data_kind || strcmp(ops->data_kind, RS_MDS_SIZES_KIND) != 0 || !layout->state)
        return NULL;
    return &((const mds_layout_state *)layout->state)->sizes;
}
